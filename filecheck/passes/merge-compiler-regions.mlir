// merge-compiler-regions: annotated ops of one target joined by dataflow edges
// become one relay.fused region with lamina.compiler; values used outside it are
// its results. A merge that would make a path leave the region and come back (a
// diamond through an op of another target or of lamina) is refused.
// RUN: lamina-opt %s --split-input-file -p 'annotate-target{targets=c},merge-compiler-regions' | filecheck %s
// RUN: lamina-opt %s --split-input-file -p 'annotate-target{targets=c},merge-compiler-regions' --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// A chain with a value also used outside: one region, two results.
// CHECK-LABEL: func.func @chain(
// CHECK-NEXT:    %0, %1 = relay.fused(%x, %y) ({
// CHECK-NEXT:    ^bb0(%x_1: tensor<4xf32>, %y_1: tensor<4xf32>):
// CHECK-NEXT:      %2 = relay.add %x_1, %y_1
// CHECK-NEXT:      %3 = relay.relu %2
// CHECK-NEXT:      %4 = relay.exp %3
// CHECK-NEXT:      relay.yield %2, %4 : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    }) {lamina.compiler = "c"} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %2 = relay.softmax %1
// CHECK-NEXT:    func.return %2, %0
func.func @chain(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = relay.add %x, %y : tensor<4xf32>
  %1 = relay.relu %0 : tensor<4xf32>
  %2 = relay.exp %1 : tensor<4xf32>
  %3 = relay.softmax %2 {axis = 0 : i64} : tensor<4xf32>
  func.return %3, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// The diamond a -> softmax -> d, a -> d: merging a and d would put softmax both
// after and before the region. a and b merge; d stays a region of its own.
// CHECK-LABEL: func.func @diamond(
// CHECK-NEXT:    %b = relay.fused(%x) ({
// CHECK-NEXT:    ^bb0(%x_1: tensor<4xf32>):
// CHECK-NEXT:      %a = relay.exp %x_1
// CHECK-NEXT:      %b_1 = relay.relu %a
// CHECK-NEXT:      relay.yield %b_1 : tensor<4xf32>
// CHECK-NEXT:    }) {lamina.compiler = "c"}
// CHECK-NEXT:    %s = relay.softmax %b
// CHECK-NEXT:    %d = relay.fused(%b, %s) ({
// CHECK-NEXT:    ^bb0(%b_1: tensor<4xf32>, %s_1: tensor<4xf32>):
// CHECK-NEXT:      %d_1 = relay.add %b_1, %s_1
// CHECK-NEXT:      relay.yield %d_1 : tensor<4xf32>
// CHECK-NEXT:    }) {lamina.compiler = "c"}
// CHECK-NEXT:    func.return %d
func.func @diamond(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.exp %x : tensor<4xf32>
  %b = relay.relu %a : tensor<4xf32>
  %s = relay.softmax %b {axis = 0 : i64} : tensor<4xf32>
  %d = relay.add %b, %s : tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// -----

// A diamond entirely inside the target merges, and an unrelated op in between
// that depends on the region moves after it.
// CHECK-LABEL: func.func @inner_diamond(
// CHECK-NEXT:    %a, %d = relay.fused(%x) ({
// CHECK-NEXT:    ^bb0(%x_1: tensor<4xf32>):
// CHECK-NEXT:      %a_1 = relay.exp %x_1
// CHECK-NEXT:      %b = relay.relu %a_1
// CHECK-NEXT:      %c = relay.tanh %a_1
// CHECK-NEXT:      %d_1 = relay.add %b, %c
// CHECK-NEXT:      relay.yield %a_1, %d_1 : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    }) {lamina.compiler = "c"}
// CHECK-NEXT:    %s = relay.softmax %a
// CHECK-NEXT:    func.return %d, %s
func.func @inner_diamond(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = relay.exp %x : tensor<4xf32>
  %b = relay.relu %a : tensor<4xf32>
  %s = relay.softmax %a {axis = 0 : i64} : tensor<4xf32>
  %c = relay.tanh %a : tensor<4xf32>
  %d = relay.add %b, %c : tensor<4xf32>
  func.return %d, %s : tensor<4xf32>, tensor<4xf32>
}

// STATS: merge-compiler-regions
// STATS: merge-compiler-regions
// STATS-DAG: 1 merges-refused.c - reported by the pass
// STATS-DAG: 2 regions.c - reported by the pass
