// fuse-ops: TVM's FuseOps. matmul/dense absorb the elementwise and broadcast ops
// they post-dominate, injective chains fuse, opaque ops (softmax) stay alone, and
// --pass-config / {max-depth=N} cap a group's size.
// RUN: lamina-opt %s --split-input-file -p fuse-ops | filecheck %s
// RUN: lamina-opt %s --split-input-file -p 'fuse-ops{max-depth=2}' | filecheck %s --check-prefix=DEPTH2
// RUN: lamina-opt %s --split-input-file -p fuse-ops --pass-config fuse-ops.max-depth=2 | filecheck %s --check-prefix=DEPTH2
// RUN: lamina-opt %s --split-input-file -p fuse-ops --opt-level 1 | filecheck %s --check-prefix=O1

// CHECK-LABEL: func.func @mlp(
// CHECK-NEXT:    %w = relay.constant dense<5.000000e-01> : tensor<8x8xf32>
// CHECK-NEXT:    %0 = relay.fused(%x, %w, %b) ({
// CHECK-NEXT:    ^bb0(%x_1: tensor<1x8xf32>, %w_1: tensor<8x8xf32>, %b_1: tensor<8xf32>):
// CHECK-NEXT:      %1 = relay.matmul %x_1, %w_1
// CHECK-NEXT:      %2 = relay.add %1, %b_1
// CHECK-NEXT:      %3 = relay.relu %2
// CHECK-NEXT:      relay.yield %3 : tensor<1x8xf32>
// CHECK-NEXT:    }) {lamina.primitive, lamina.group = "matmul_add_relu"} : (tensor<1x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    %{{.*}} = relay.fused(%0, %w, %b) ({
// CHECK:         }) {lamina.primitive, lamina.group = "matmul_add"}
// CHECK-NEXT:    %{{.*}} = relay.softmax
// CHECK-NEXT:    %{{.*}} = relay.fused(%{{.*}}) ({
// CHECK:         }) {lamina.primitive, lamina.group = "reshape_relu_reshape"}
// CHECK-NEXT:    func.return

// DEPTH2-LABEL: func.func @mlp(
// DEPTH2:         lamina.group = "matmul_add"
// DEPTH2:         lamina.group = "matmul_add"
// DEPTH2:         lamina.group = "relu_reshape"

// O1-LABEL: func.func @mlp(
// O1-NOT:     relay.fused
func.func @mlp(%x: tensor<1x8xf32>, %b: tensor<8xf32>) -> tensor<1x8xf32> {
  %w = relay.constant dense<0.5> : tensor<8x8xf32>
  %0 = relay.matmul %x, %w : (tensor<1x8xf32>, tensor<8x8xf32>)
  %1 = relay.add %0, %b : (tensor<1x8xf32>, tensor<8xf32>)
  %2 = relay.relu %1 : tensor<1x8xf32>
  %3 = relay.matmul %2, %w : (tensor<1x8xf32>, tensor<8x8xf32>)
  %4 = relay.add %3, %b : (tensor<1x8xf32>, tensor<8xf32>)
  %5 = relay.softmax %4 {axis = 1 : i64} : tensor<1x8xf32>
  %6 = relay.reshape %5 {shape = array<i64: 8>} : (tensor<1x8xf32>) -> tensor<8xf32>
  %7 = relay.relu %6 : tensor<8xf32>
  %8 = relay.reshape %7 {shape = array<i64: 1, 8>} : (tensor<8xf32>) -> tensor<1x8xf32>
  func.return %8 : tensor<1x8xf32>
}

// -----

// A diamond below a matmul becomes one group; a value that is also returned ends
// its group.
// CHECK-LABEL: func.func @diamond(
// CHECK-NEXT:    %out = relay.fused(%x, %w) ({
// CHECK:         lamina.group = "matmul_relu_relu_add"
// CHECK-NEXT:    %m = relay.fused(%out) ({
// CHECK:         lamina.group = "relu_multiply"
// CHECK-NEXT:    func.return %out, %m
func.func @diamond(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %mm = relay.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>)
  %a = relay.relu %mm : tensor<2x4xf32>
  %b = relay.relu %mm : tensor<2x4xf32>
  %out = relay.add %a, %b : tensor<2x4xf32>
  %r = relay.relu %out : tensor<2x4xf32>
  %m = relay.multiply %r, %r : tensor<2x4xf32>
  func.return %out, %m : tensor<2x4xf32>, tensor<2x4xf32>
}
