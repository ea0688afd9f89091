// One invalid relay.if / relay.loop per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @cond_type(%c: tensor<4xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: relay.if: cond must be a tensor<i1>, got tensor<4xi1>
  %r = relay.if %c (%x) then {
  ^bb0(%a: tensor<4xf32>):
    relay.yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    relay.yield %a : tensor<4xf32>
  } : (tensor<4xi1>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

func.func @branch_types(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: relay.if: the else body yields (tensor<f32>) but the op's results are (tensor<4xf32>)
  %r = relay.if %c (%x) then {
  ^bb0(%a: tensor<4xf32>):
    relay.yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    %s = relay.sum %a {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
    relay.yield %s : tensor<f32>
  } : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

func.func @body_args(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: relay.if: the then body takes (), but must take (tensor<4xf32>)
  %r = relay.if %c (%x) then {
    %k = relay.constant dense<1.0> : tensor<4xf32>
    relay.yield %k : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    relay.yield %a : tensor<4xf32>
  } : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

func.func @carried_type(%n: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: relay.loop: the body yields carried values of types (tensor<2xf32>), but they enter as (tensor<4xf32>); a carried value keeps its type
  %f, %k = relay.loop(%n, %c, %x) {
  ^bb0(%i: tensor<i64>, %cc: tensor<i1>, %acc: tensor<4xf32>):
    %h = relay.constant dense<1.0> : tensor<2xf32>
    relay.yield %cc, %h : tensor<i1>, tensor<2xf32>
  } {carried = 1 : i64} : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>, tensor<i64>)
  func.return %f : tensor<4xf32>
}

// -----

func.func @trip_type(%n: tensor<i32>, %c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: relay.loop: trip_count must be a tensor<i64>, got tensor<i32>
  %f, %k = relay.loop(%n, %c, %x) {
  ^bb0(%i: tensor<i64>, %cc: tensor<i1>, %acc: tensor<4xf32>):
    relay.yield %cc, %acc : tensor<i1>, tensor<4xf32>
  } {carried = 1 : i64} : (tensor<i32>, tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>, tensor<i64>)
  func.return %f : tensor<4xf32>
}

// -----

func.func @stack_rows(%n: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: relay.loop: the results are (tensor<3x4xf32>, tensor<i64>) but the body makes them (tensor<5x4xf32>, tensor<i64>)
  %s, %k = relay.loop(%n, %c, %x) {
  ^bb0(%i: tensor<i64>, %cc: tensor<i1>, %z: tensor<4xf32>):
    relay.yield %cc, %z : tensor<i1>, tensor<4xf32>
  } {carried = 0 : i64, max_trips = array<i64: 5>} : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> (tensor<3x4xf32>, tensor<i64>)
  func.return %x : tensor<4xf32>
}

// -----

func.func @trips_size_rows(%n: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: relay.loop: trips_size "trips" must be an identifier and max_trips that size, got max_trips 5
  %s, %k = relay.loop(%n, %c, %x) {
  ^bb0(%i: tensor<i64>, %cc: tensor<i1>, %z: tensor<4xf32>):
    relay.yield %cc, %z : tensor<i1>, tensor<4xf32>
  } {carried = 0 : i64, max_trips = array<i64: 5>, trips_size = "trips"} : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> (tensor<5x4xf32>, tensor<i64>)
  func.return %x : tensor<4xf32>
}
