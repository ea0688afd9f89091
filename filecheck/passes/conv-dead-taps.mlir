// conv-dead-taps: kernel taps that read only padding are dropped. A 3x3
// convolution dilated by 24 on a 16x16 map (DeepLabV3's atrous rate 24) reads
// input only through its centre tap: it becomes a 1x1 convolution without
// padding, its weight sliced at compile time. At rate 12 every tap reads some
// input, and the convolution is left as it is; so is one whose weight is not a
// constant.
// RUN: lamina-opt %s -p conv-dead-taps | filecheck %s
// RUN: lamina-opt %s -p conv-dead-taps --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// STATS: (S) 1 conv-dead-taps.rewritten - reported by the pass

// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %w = relay.constant dense<5.000000e-01> : tensor<4x8x3x3xf32>
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<5.000000e-01> : tensor<4x8x1x1xf32>
// CHECK-NEXT:    %[[A:.*]] = relay.conv2d %x, %[[W]] {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, groups = 1 : i64} : (tensor<1x8x16x16xf32>, tensor<4x8x1x1xf32>) -> tensor<1x4x16x16xf32>
// CHECK-NEXT:    %[[B:.*]] = relay.conv2d %x, %w {dilation = array<i64: 12, 12>, padding = array<i64: 12, 12, 12, 12>}
// CHECK-NEXT:    %[[C:.*]] = relay.conv2d %x, %v {dilation = array<i64: 24, 24>, padding = array<i64: 24, 24, 24, 24>}
func.func @main(%x: tensor<1x8x16x16xf32>, %v: tensor<4x8x3x3xf32>) -> (tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) {
  %w = relay.constant dense<0.5> : tensor<4x8x3x3xf32>
  %0 = relay.conv2d %x, %w {dilation = array<i64: 24, 24>, padding = array<i64: 24, 24, 24, 24>} : (tensor<1x8x16x16xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x16x16xf32>
  %1 = relay.conv2d %x, %w {dilation = array<i64: 12, 12>, padding = array<i64: 12, 12, 12, 12>} : (tensor<1x8x16x16xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x16x16xf32>
  %2 = relay.conv2d %x, %v {dilation = array<i64: 24, 24>, padding = array<i64: 24, 24, 24, 24>} : (tensor<1x8x16x16xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x16x16xf32>
  func.return %0, %1, %2 : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>
}
