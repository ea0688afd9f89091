// RUN: lamina-opt %s -p lower-relay-to-te | filecheck %s --check-prefix=TE
// RUN: lamina-opt %s -p lower-relay-to-te,lower-te-to-tir | filecheck %s
// RUN: lamina-opt %s -p lower-relay-to-te,lower-te-to-tir,lower-tir-to-llvm | filecheck %s --check-prefix=LLVM

// A relay.loop whose trip count is given at run time (trips_size) sets its
// stacks' rows from it before it runs: te.set_size / tir.set_size without a
// bound, so the stack is planned at a capacity the runtime grows (the size
// has an `args` slot, @main checks the count is not negative and fits), and
// stack_row takes the size.

// TE-LABEL: func.func @main
// TE-NEXT:    te.set_size "trips" = %n : tensor<i64>
// TE-NEXT:    relay.loop(%n,

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    tir.set_size "trips" = %0 : memref<i64>
// CHECK:         %[[STACK:.*]] = tir.alloc global : memref<?x4xf32, #tir.sizes<["trips"]>>
// CHECK:         tir.for serial
// CHECK:           %[[ROWS:.*]] = tir.size "trips" : index
// CHECK-NEXT:      tir.call @stack_row(%{{.*}}, %{{.*}}, %[[STACK]], %[[ROWS]]) : memref<4xf32>, memref<i64>, memref<?x4xf32, #tir.sizes<["trips"]>>, index

// LLVM: builtin.module attributes {lamina.target_spec = "{{[^"]*}}", lamina.sizes = ["trips"], lamina.bounds = [["trips", ""]], lamina.exits = ["the data set size 'trips' to a negative value", "the data asked for more memory than planned"]
func.func @main(%n: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<?x4xf32, ["trips"]>) {
  %f, %s, %k = relay.loop(%n, %c, %x, %x) {
  ^bb0(%i: tensor<i64>, %cc: tensor<i1>, %acc: tensor<4xf32>, %y: tensor<4xf32>):
    %u = relay.add %acc, %y : tensor<4xf32>
    relay.yield %cc, %u, %u : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  } {carried = 1 : i64, max_trips = ["trips"], trips_size = "trips"} : (tensor<i64>, tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<?x4xf32, ["trips"]>, tensor<i64>)
  func.return %f, %s : tensor<4xf32>, tensor<?x4xf32, ["trips"]>
}
