// merge-composite: each target's pattern table, in order, wraps matches into
// relay.fused regions named <target>.<pattern>. Overlaps go to the earlier
// pattern of the table (c.add_relu before c.multiply_add), a match whose inner
// value is used outside is left alone, check functions veto matches (c takes
// float tensors only), and targets not asked for are ignored.
// RUN: lamina-opt %s --split-input-file -p 'merge-composite{targets=c}' | filecheck %s
// RUN: lamina-opt %s --split-input-file -p merge-composite --pass-config byoc.targets=c | filecheck %s
// RUN: lamina-opt %s --split-input-file -p 'merge-composite{targets=blas}' | filecheck %s --check-prefix=BLAS
// RUN: lamina-opt %s --split-input-file -p 'merge-composite{targets=c}' --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// CHECK-LABEL: func.func @overlap(
// CHECK-NEXT:    %0 = relay.multiply %a, %b
// CHECK-NEXT:    %1 = relay.fused(%0, %c) ({
// CHECK-NEXT:    ^bb0(%2: tensor<4x8xf32>, %c_1: tensor<4x8xf32>):
// CHECK-NEXT:      %3 = relay.add %2, %c_1
// CHECK-NEXT:      %4 = relay.relu %3
// CHECK-NEXT:      relay.yield %4 : tensor<4x8xf32>
// CHECK-NEXT:    }) {lamina.composite = "c.add_relu", lamina.partitioned_from = "add_relu_"}
// CHECK-NEXT:    func.return %1
// BLAS-LABEL: func.func @overlap(
// BLAS-NOT:     relay.fused
func.func @overlap(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = relay.multiply %a, %b : tensor<4x8xf32>
  %1 = relay.add %0, %c : tensor<4x8xf32>
  %2 = relay.relu %1 : tensor<4x8xf32>
  func.return %2 : tensor<4x8xf32>
}

// -----

// The add is also returned: relu(add) cannot be one composite, but a*b+c can.
// CHECK-LABEL: func.func @escaping(
// CHECK-NEXT:    %0 = relay.fused(%a, %b, %c) ({
// CHECK:         }) {lamina.composite = "c.multiply_add", lamina.partitioned_from = "multiply_add_"}
// CHECK-NEXT:    %1 = relay.relu %0
// CHECK-NEXT:    func.return %1, %0
func.func @escaping(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = relay.multiply %a, %b : tensor<4x8xf32>
  %1 = relay.add %0, %c : tensor<4x8xf32>
  %2 = relay.relu %1 : tensor<4x8xf32>
  func.return %2, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Integer tensors: the composite's check function says no.
// CHECK-LABEL: func.func @rejected(
// CHECK-NOT:     relay.fused
// CHECK:         func.return
func.func @rejected(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = relay.add %a, %b : tensor<4xi32>
  %1 = relay.relu %0 : tensor<4xi32>
  func.return %1 : tensor<4xi32>
}

// -----

// swish: a pattern that uses one value twice.
// CHECK-LABEL: func.func @swish(
// CHECK-NEXT:    %0 = relay.fused(%x) ({
// CHECK-NEXT:    ^bb0(%x_1: tensor<8xf32>):
// CHECK-NEXT:      %1 = relay.sigmoid %x_1
// CHECK-NEXT:      %2 = relay.multiply %x_1, %1
// CHECK-NEXT:      relay.yield %2
// CHECK-NEXT:    }) {lamina.composite = "c.swish"
func.func @swish(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = relay.sigmoid %x : tensor<8xf32>
  %1 = relay.multiply %x, %0 : tensor<8xf32>
  func.return %1 : tensor<8xf32>
}

// STATS: merge-composite
// STATS-DAG: composites.c.add_relu - reported by the pass
// STATS-DAG: rejected.c.add_relu - reported by the pass
