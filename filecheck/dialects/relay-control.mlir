// relay.if and relay.loop print as they parse, in custom and generic form.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s

// CHECK-LABEL: func.func @choose
// CHECK:         %r = relay.if %c (%x) then {
// CHECK-NEXT:    ^bb0(%a: tensor<4xf32>):
// CHECK-NEXT:      %t = relay.negative %a : tensor<4xf32>
// CHECK-NEXT:      relay.yield %t : tensor<4xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<4xf32>):
// CHECK-NEXT:      relay.yield %{{.*}} : tensor<4xf32>
// CHECK-NEXT:    } : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
func.func @choose(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = relay.if %c (%x) then {
  ^bb0(%a: tensor<4xf32>):
    %t = relay.negative %a : tensor<4xf32>
    relay.yield %t : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    relay.yield %a : tensor<4xf32>
  } : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @accumulate
// CHECK:         %f, %s, %k = relay.loop(%n, %c, %x, %y) {
// CHECK-NEXT:    ^bb0(%i: tensor<i64>, %cc: tensor<i1>, %acc: tensor<4xf32>, %z: tensor<4xf32>):
// CHECK-NEXT:      %u = relay.add %acc, %z : tensor<4xf32>
// CHECK-NEXT:      relay.yield %cc, %u, %u : tensor<i1>, tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    } {carried = 1 : i64, max_trips = array<i64: 5>} : (tensor<i64>, tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<5x4xf32>, tensor<i64>)
func.func @accumulate(%n: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<5x4xf32>) {
  %f, %s, %k = relay.loop(%n, %c, %x, %y) {
  ^bb0(%i: tensor<i64>, %cc: tensor<i1>, %acc: tensor<4xf32>, %z: tensor<4xf32>):
    %u = relay.add %acc, %z : tensor<4xf32>
    relay.yield %cc, %u, %u : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  } {carried = 1 : i64, max_trips = array<i64: 5>} : (tensor<i64>, tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<5x4xf32>, tensor<i64>)
  func.return %f, %s : tensor<4xf32>, tensor<5x4xf32>
}

// A loop over a symbolic length stacks ["t"] rows.
// CHECK-LABEL: func.func @scan_like
// CHECK:         {carried = 0 : i64, max_trips = ["t"]} : (tensor<i64>, tensor<i1>, tensor<?x3xf32, ["t"]>) -> (tensor<?x3xf32, ["t"]>, tensor<i64>)
func.func @scan_like(%n: tensor<i64>, %c: tensor<i1>, %x: tensor<?x3xf32, ["t"]>) -> tensor<?x3xf32, ["t"]> {
  %s, %k = relay.loop(%n, %c, %x) {
  ^bb0(%i: tensor<i64>, %cc: tensor<i1>, %xs: tensor<?x3xf32, ["t"]>):
    %row = relay.take %xs, %i {axis = 0 : i64} : (tensor<?x3xf32, ["t"]>, tensor<i64>) -> tensor<3xf32>
    relay.yield %cc, %row : tensor<i1>, tensor<3xf32>
  } {carried = 0 : i64, max_trips = ["t"]} : (tensor<i64>, tensor<i1>, tensor<?x3xf32, ["t"]>) -> (tensor<?x3xf32, ["t"]>, tensor<i64>)
  func.return %s : tensor<?x3xf32, ["t"]>
}

// A loop whose trip count is given at run time sets its stacks' rows from it
// (trips_size: the size it sets, max_trips that size).
// CHECK-LABEL: func.func @stack_run_time_rows
// CHECK:         %s, %k = relay.loop(%n, %c, %x) {
// CHECK:         } {carried = 0 : i64, max_trips = ["trips"], trips_size = "trips"} : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> (tensor<?x4xf32, ["trips"]>, tensor<i64>)
func.func @stack_run_time_rows(%n: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>) -> tensor<?x4xf32, ["trips"]> {
  %s, %k = relay.loop(%n, %c, %x) {
  ^bb0(%i: tensor<i64>, %cc: tensor<i1>, %z: tensor<4xf32>):
    relay.yield %cc, %z : tensor<i1>, tensor<4xf32>
  } {carried = 0 : i64, max_trips = ["trips"], trips_size = "trips"} : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> (tensor<?x4xf32, ["trips"]>, tensor<i64>)
  func.return %s : tensor<?x4xf32, ["trips"]>
}
