// Round trip of the blocked sliding-window ops (relay.depthwise_conv2d_nchwc,
// relay.max_pool2d_nchwc): custom form, and generic form re-parsed.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @windows(%x: tensor<2x3x9x9x8xf32>, %w: tensor<3x3x3x8xf32>) -> (tensor<2x3x9x9x8xf32>, tensor<2x3x4x3x8xf32>, tensor<2x3x5x5x8xf32>) {
// CHECK-NEXT:    %0 = relay.depthwise_conv2d_nchwc %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x3x9x9x8xf32>, tensor<3x3x3x8xf32>) -> tensor<2x3x9x9x8xf32>
// CHECK-NEXT:    %1 = relay.depthwise_conv2d_nchwc %x, %w {strides = array<i64: 2, 2>, dilation = array<i64: 1, 2>, padding = array<i64: 1, 0, 0, 0>} : (tensor<2x3x9x9x8xf32>, tensor<3x3x3x8xf32>) -> tensor<2x3x4x3x8xf32>
// CHECK-NEXT:    %2 = relay.max_pool2d_nchwc %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x3x9x9x8xf32>) -> tensor<2x3x5x5x8xf32>
// CHECK-NEXT:    func.return %0, %1, %2 : tensor<2x3x9x9x8xf32>, tensor<2x3x4x3x8xf32>, tensor<2x3x5x5x8xf32>
// GENERIC:       %0 = "relay.depthwise_conv2d_nchwc"(%x, %w) <{padding = array<i64: 1, 1, 1, 1>}> : (tensor<2x3x9x9x8xf32>, tensor<3x3x3x8xf32>) -> tensor<2x3x9x9x8xf32>
// GENERIC:       %2 = "relay.max_pool2d_nchwc"(%x) <{pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}> : (tensor<2x3x9x9x8xf32>) -> tensor<2x3x5x5x8xf32>

func.func @windows(%x: tensor<2x3x9x9x8xf32>, %w: tensor<3x3x3x8xf32>) -> (tensor<2x3x9x9x8xf32>, tensor<2x3x4x3x8xf32>, tensor<2x3x5x5x8xf32>) {
  %0 = relay.depthwise_conv2d_nchwc %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x3x9x9x8xf32>, tensor<3x3x3x8xf32>)
  %1 = relay.depthwise_conv2d_nchwc %x, %w {strides = array<i64: 2, 2>, dilation = array<i64: 1, 2>, padding = array<i64: 1, 0, 0, 0>} : (tensor<2x3x9x9x8xf32>, tensor<3x3x3x8xf32>)
  %2 = relay.max_pool2d_nchwc %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x3x9x9x8xf32>)
  func.return %0, %1, %2 : tensor<2x3x9x9x8xf32>, tensor<2x3x4x3x8xf32>, tensor<2x3x5x5x8xf32>
}

// An int8 model's max pool pools the blocked integers.
// CHECK-LABEL: func.func @int_pool(%q: tensor<1x2x9x9x16xui8>) -> tensor<1x2x5x5x16xui8> {
// CHECK-NEXT:    %0 = relay.max_pool2d_nchwc %q {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x9x9x16xui8>) -> tensor<1x2x5x5x16xui8>
func.func @int_pool(%q: tensor<1x2x9x9x16xui8>) -> tensor<1x2x5x5x16xui8> {
  %0 = relay.max_pool2d_nchwc %q {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x9x9x16xui8>)
  func.return %0 : tensor<1x2x5x5x16xui8>
}
