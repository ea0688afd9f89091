// alter-op-layout, transposed convolutions (conv_transpose.py): one with a
// constant weight, one group and dilation 1 becomes one stride-1 convolution
// over the output's phases (stride^D x O output channels, a kernel covering
// every phase's taps) and a depth-to-space (reshape, transpose, reshape), then
// a crop where the phases overshoot the output. The new convolution takes the
// rules of any other: a 2x2 stride-2 one (U-Net's) is a 1x1 convolution, a GEMM;
// DCGAN's 4x4 stride-2 one a 3x3 blocked convolution.
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' --split-input-file -p alter-op-layout | filecheck %s

// CHECK-LABEL: func.func @unet(%x: tensor<1x32x7x7xf32>) -> tensor<1x16x14x14xf32> {
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<5.000000e-01> : tensor<64x32x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.conv2d %x, %[[W]] {padding = array<i64: 0, 0, 0, 0>} : (tensor<1x32x7x7xf32>, tensor<64x32x1x1xf32>) -> tensor<1x64x7x7xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %[[C]] {shape = array<i64: 1, 2, 2, 16, 7, 7>}
// CHECK-NEXT:    %[[T:.*]] = relay.transpose %[[R]] {perm = array<i64: 0, 3, 4, 1, 5, 2>} : (tensor<1x2x2x16x7x7xf32>) -> tensor<1x16x7x2x7x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.reshape %[[T]] {shape = array<i64: 1, 16, 14, 14>}
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x16x14x14xf32>
func.func @unet(%x: tensor<1x32x7x7xf32>) -> tensor<1x16x14x14xf32> {
  %w = relay.constant dense<0.5> : tensor<32x16x2x2xf32>
  %0 = relay.conv2d_transpose %x, %w {strides = array<i64: 2, 2>} : (tensor<1x32x7x7xf32>, tensor<32x16x2x2xf32>)
  func.return %0 : tensor<1x16x14x14xf32>
}

// -----

// CHECK-LABEL: func.func @dcgan(
// CHECK:         %[[P:.*]] = relay.pad %{{.*}} {pad_width = array<i64: 0, 0, 1, 1, 0, 0, 0, 1, 1, 0>}
// CHECK:         %[[C:.*]] = relay.conv2d_nchwc %[[P]], %{{.*}} : (tensor<1x1x6x6x16xf32>, tensor<2x1x3x3x16x16xf32>) -> tensor<1x2x4x4x16xf32>
// CHECK-NEXT:    %[[B:.*]] = relay.layout_transform %[[C]] {src_layout = "NCHW16c", dst_layout = "NCHW"}
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %[[B]] {shape = array<i64: 1, 2, 2, 8, 4, 4>}
// CHECK-NEXT:    %[[T:.*]] = relay.transpose %[[R]] {perm = array<i64: 0, 3, 4, 1, 5, 2>}
// CHECK-NEXT:    %[[Y:.*]] = relay.reshape %[[T]] {shape = array<i64: 1, 8, 8, 8>}
// CHECK-NEXT:    func.return %[[Y]]
func.func @dcgan(%x: tensor<1x16x4x4xf32>) -> tensor<1x8x8x8xf32> {
  %w = relay.constant dense<0.5> : tensor<16x8x4x4xf32>
  %0 = relay.conv2d_transpose %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x4x4xf32>, tensor<16x8x4x4xf32>)
  func.return %0 : tensor<1x8x8x8xf32>
}

// -----

// An odd output (kernel 3, stride 2): the phases give 10 columns, the output
// has 9. The phases' 1-D convolution (2 x 4 channels) is blocked too.
// CHECK-LABEL: func.func @odd(
// CHECK:         relay.pad %{{.*}} {pad_width = array<i64: 0, 0, 1, 0, 0, 0, 1, 0>}
// CHECK:         relay.conv1d_ncwc %{{.*}}, %{{.*}} : (tensor<1x1x6x4xf32>, tensor<1x1x2x4x8xf32>) -> tensor<1x1x5x8xf32>
// CHECK:         %[[Y:.*]] = relay.reshape %{{.*}} {shape = array<i64: 1, 4, 10>}
// CHECK-NEXT:    %[[S:.*]] = relay.strided_slice %[[Y]] {begin = array<i64: 0, 0, 0>, end = array<i64: 1, 4, 9>}
// CHECK-NEXT:    func.return %[[S]]
func.func @odd(%x: tensor<1x4x4xf32>) -> tensor<1x4x9xf32> {
  %w = relay.constant dense<0.5> : tensor<4x4x3xf32>
  %0 = relay.conv1d_transpose %x, %w {strides = array<i64: 2>} : (tensor<1x4x4xf32>, tensor<4x4x3xf32>)
  func.return %0 : tensor<1x4x9xf32>
}

// -----

// A depthwise one: each channel's 4 phases are its outputs of a grouped
// convolution (a channel multiplier of 4).
// CHECK-LABEL: func.func @grouped(
// CHECK:         %[[W:.*]] = relay.constant {{.*}} : tensor<64x1x2x2xf32>
// CHECK:         relay.conv2d %{{.*}}, %[[W]] {groups = 16 : i64} : (tensor<1x16x6x6xf32>, tensor<64x1x2x2xf32>) -> tensor<1x64x5x5xf32>
// CHECK-NEXT:    relay.reshape %{{.*}} {shape = array<i64: 1, 16, 2, 2, 1, 5, 5>}
// CHECK-NEXT:    relay.transpose %{{.*}} {perm = array<i64: 0, 1, 4, 5, 2, 6, 3>}
// CHECK-NEXT:    relay.reshape %{{.*}} {shape = array<i64: 1, 16, 10, 10>}
// CHECK-NEXT:    relay.strided_slice %{{.*}} {begin = array<i64: 0, 0, 0, 0>, end = array<i64: 1, 16, 9, 9>}
func.func @grouped(%x: tensor<1x16x4x4xf32>) -> tensor<1x16x9x9xf32> {
  %w = relay.constant dense<0.5> : tensor<16x1x3x3xf32>
  %0 = relay.conv2d_transpose %x, %w {strides = array<i64: 2, 2>, groups = 16 : i64} : (tensor<1x16x4x4xf32>, tensor<16x1x3x3xf32>)
  func.return %0 : tensor<1x16x9x9xf32>
}
