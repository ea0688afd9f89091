// partition-graph: each lamina.compiler region becomes a private function of its
// target, numbered per target in program order, called with func.call. Weights
// (non-splat constants) are hoisted out as arguments; an op that is only
// annotated becomes a region of its own.
// RUN: lamina-opt %s --split-input-file -p 'annotate-target{targets=blas,c},merge-compiler-regions,partition-graph' | filecheck %s
// RUN: lamina-opt %s --split-input-file -p 'annotate-target{targets=blas,c},partition-graph' | filecheck %s --check-prefix=NOMERGE

// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %w = relay.constant dense_resource<w> : tensor<8x8xf32>
// CHECK-NEXT:    %0 = func.call @blas_0(%x, %w) : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    %1 = func.call @c_0(%0, %b) : (tensor<1x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    %2 = relay.softmax %1
// CHECK-NEXT:    %3 = func.call @blas_1(%2, %w) : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    func.return %3
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @blas_0(%x: tensor<1x8xf32>, %w: tensor<8x8xf32>) -> tensor<1x8xf32> attributes {lamina.compiler = "blas"} {
// CHECK-NEXT:    %0 = relay.matmul %x, %w
// CHECK-NEXT:    func.return %0 : tensor<1x8xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @c_0(%0: tensor<1x8xf32>, %b: tensor<8xf32>) -> tensor<1x8xf32> attributes {lamina.compiler = "c"} {
// CHECK-NEXT:    %1 = relay.add %0, %b
// CHECK-NEXT:    %2 = relay.relu %1
// CHECK-NEXT:    func.return %2 : tensor<1x8xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @blas_1(
// NOMERGE-LABEL: func.func @main(
// NOMERGE:         func.call @c_0(
// NOMERGE-NEXT:    func.call @c_1(
// NOMERGE:       func.func private @c_1(
func.func @main(%x: tensor<1x8xf32>, %b: tensor<8xf32>) -> tensor<1x8xf32> {
  %w = relay.constant dense_resource<w> : tensor<8x8xf32>
  %0 = relay.matmul %x, %w : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
  %1 = relay.add %0, %b : (tensor<1x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  %2 = relay.relu %1 : tensor<1x8xf32>
  %3 = relay.softmax %2 {axis = 1 : i64} : tensor<1x8xf32>
  %4 = relay.matmul %3, %w : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
  func.return %4 : tensor<1x8xf32>
}

// -----

// A composite's weight is hoisted out of the composite and of the region.
// CHECK-LABEL: func.func @weights(
// CHECK-NEXT:    %c = relay.constant dense_resource<bias>
// CHECK-NEXT:    %0 = func.call @c_0(%x, %c)
// CHECK:       func.func private @c_0(%x: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> attributes {lamina.compiler = "c"} {
// CHECK-NEXT:    %0 = relay.fused(%x, %c) ({
// CHECK-NEXT:    ^bb0(%a: tensor<4xf32>, %c_1: tensor<4xf32>):
// CHECK-NEXT:      %1 = relay.add %a, %c_1
func.func @weights(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.fused(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %c = relay.constant dense_resource<bias> : tensor<4xf32>
    %1 = relay.add %a, %c : tensor<4xf32>
    %2 = relay.relu %1 : tensor<4xf32>
    relay.yield %2 : tensor<4xf32>
  }) {lamina.composite = "c.add_relu"} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
