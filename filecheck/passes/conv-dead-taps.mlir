// conv-dead-taps: kernel taps that read only padding are dropped. A 3x3
// convolution dilated by 24 on a 16x16 map (DeepLabV3's atrous rate 24) reads
// input only through its centre tap: it becomes a 1x1 convolution without
// padding, its weight sliced at compile time. At rate 12 every tap reads some
// input, but the side taps only for the 4 outputs nearest their side: the
// output is cut into 3 x 3 regions (rows and columns [0,4), [4,12), [12,16)),
// each a convolution with its live taps over the window it reads (2x2 taps in
// a corner, the centre tap alone in the middle), concatenated along W then H.
// A convolution whose weight is not a constant is left as it is.
// RUN: lamina-opt %s -p conv-dead-taps | filecheck %s
// RUN: lamina-opt %s -p conv-dead-taps --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// STATS: (S) 1 conv-dead-taps.rewritten - reported by the pass
// STATS: (S) 1 conv-dead-taps.split - reported by the pass

// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<5.000000e-01> : tensor<4x8x1x1xf32>
// CHECK-NEXT:    %[[A:.*]] = relay.conv2d %x, %[[W]] {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, groups = 1 : i64} : (tensor<1x8x16x16xf32>, tensor<4x8x1x1xf32>) -> tensor<1x4x16x16xf32>
// CHECK-NEXT:    %[[W00:.*]] = relay.constant dense<5.000000e-01> : tensor<4x8x2x2xf32>
// CHECK-NEXT:    %[[R00:.*]] = relay.conv2d %x, %[[W00]] {strides = array<i64: 1, 1>, dilation = array<i64: 12, 12>, padding = array<i64: 0, 0, 0, 0>, groups = 1 : i64} : (tensor<1x8x16x16xf32>, tensor<4x8x2x2xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %[[X01:.*]] = relay.strided_slice %x {begin = array<i64: 0, 0, 0, 4>, end = array<i64: 1, 8, 16, 12>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x8xf32>
// CHECK-NEXT:    %[[W01:.*]] = relay.constant dense<5.000000e-01> : tensor<4x8x2x1xf32>
// CHECK-NEXT:    %[[R01:.*]] = relay.conv2d %[[X01]], %[[W01]] {strides = array<i64: 1, 1>, dilation = array<i64: 12, 1>, padding = array<i64: 0, 0, 0, 0>, groups = 1 : i64} : (tensor<1x8x16x8xf32>, tensor<4x8x2x1xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %[[W02:.*]] = relay.constant dense<5.000000e-01> : tensor<4x8x2x2xf32>
// CHECK-NEXT:    %[[R02:.*]] = relay.conv2d %x, %[[W02]]
// CHECK-NEXT:    %[[ROW0:.*]] = relay.concatenate %[[R00]], %[[R01]], %[[R02]] {axis = 3 : i64} : (tensor<1x4x4x4xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x16xf32>
// CHECK:         %[[X11:.*]] = relay.strided_slice %x {begin = array<i64: 0, 0, 4, 4>, end = array<i64: 1, 8, 12, 12>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT:    %[[W11:.*]] = relay.constant dense<5.000000e-01> : tensor<4x8x1x1xf32>
// CHECK-NEXT:    %{{.*}} = relay.conv2d %[[X11]], %[[W11]] {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, groups = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<4x8x1x1xf32>) -> tensor<1x4x8x8xf32>
// CHECK:         %[[ROW1:.*]] = relay.concatenate {{.*}} {axis = 3 : i64} : (tensor<1x4x8x4xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x8x16xf32>
// CHECK:         %[[ROW2:.*]] = relay.concatenate {{.*}} {axis = 3 : i64}
// CHECK-NEXT:    %[[B:.*]] = relay.concatenate %[[ROW0]], %[[ROW1]], %[[ROW2]] {axis = 2 : i64} : (tensor<1x4x4x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x4x16xf32>) -> tensor<1x4x16x16xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.conv2d %x, %v {dilation = array<i64: 24, 24>, padding = array<i64: 24, 24, 24, 24>}
func.func @main(%x: tensor<1x8x16x16xf32>, %v: tensor<4x8x3x3xf32>) -> (tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) {
  %w = relay.constant dense<0.5> : tensor<4x8x3x3xf32>
  %0 = relay.conv2d %x, %w {dilation = array<i64: 24, 24>, padding = array<i64: 24, 24, 24, 24>} : (tensor<1x8x16x16xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x16x16xf32>
  %1 = relay.conv2d %x, %w {dilation = array<i64: 12, 12>, padding = array<i64: 12, 12, 12, 12>} : (tensor<1x8x16x16xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x16x16xf32>
  %2 = relay.conv2d %x, %v {dilation = array<i64: 24, 24>, padding = array<i64: 24, 24, 24, 24>} : (tensor<1x8x16x16xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x16x16xf32>
  func.return %0, %1, %2 : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>
}
