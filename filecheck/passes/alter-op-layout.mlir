// alter-op-layout: dense with a constant transposed weight gets the transposed
// constant; a 2-D conv2d with one group that is not already 1x1/unit-stride/
// unpadded becomes relay.pad (if padded) + relay.im2col + a 1x1 conv2d of the
// reshaped weight. A padded grouped (depthwise) conv2d reads an explicitly padded
// input (relay.pad, then no padding); other grouped and 1x1 convolutions are
// left alone. A max pool (of any rank) whose windows leave the input reads it
// padded with -inf.
// RUN: lamina-opt %s --split-input-file -p alter-op-layout | filecheck %s
// RUN: lamina-opt %s --split-input-file -p alter-op-layout --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// STATS: (S) 1 alter-op-layout.dense - reported by the pass
// STATS: (S) 1 alter-op-layout.conv2d - reported by the pass
// STATS: (S) 1 alter-op-layout.conv2d - reported by the pass
// STATS: (S) 1 alter-op-layout.grouped-pad - reported by the pass
// STATS: (S) 1 alter-op-layout.max-pool-pad - reported by the pass
// STATS: (S) 2 alter-op-layout.max-pool-pad - reported by the pass
// STATS-NOT: alter-op-layout.

// The weight 4x3 {transpose_b} becomes the constant 3x4 (transposed at compile
// time); the bias stays.
// CHECK-LABEL: func.func @main(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT:    %b = relay.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    [[WT:%[0-9A-Za-z_]+]] = relay.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00, 7.000000e+00, 1.000000e+01], [2.000000e+00, 5.000000e+00, 8.000000e+00, 1.100000e+01], [3.000000e+00, 6.000000e+00, 9.000000e+00, 1.200000e+01]]> : tensor<3x4xf32>
// CHECK-NEXT:    [[D:%[0-9A-Za-z_]+]] = relay.dense %x, [[WT]], %b : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return [[D]] : tensor<2x4xf32>
// CHECK-NOT:     transpose_b
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = relay.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>
  %b = relay.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = relay.dense %x, %w, %b {transpose_b} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>)
  func.return %0 : tensor<2x4xf32>
}

// -----

// A weight that is not a constant keeps its transpose_b.
// CHECK-LABEL: func.func @main(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT:    %0 = relay.dense %x, %w {transpose_b} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
func.func @main(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) -> tensor<2x4xf32> {
  %0 = relay.dense %x, %w {transpose_b} : (tensor<2x3xf32>, tensor<4x3xf32>)
  func.return %0 : tensor<2x4xf32>
}

// -----

// Strided and padded, weight an argument: pad, im2col with the strides (the
// padding is now done), and a relay.reshape of the weight to O x C*KH*KW x 1 x 1.
// CHECK-LABEL: func.func @main(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
// CHECK-NEXT:    [[P:%[0-9A-Za-z_]+]] = relay.pad %x {pad_width = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x10x10xf32>
// CHECK-NEXT:    [[C:%[0-9A-Za-z_]+]] = relay.im2col [[P]] {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x2x10x10xf32>) -> tensor<1x18x4x4xf32>
// CHECK-NEXT:    [[W:%[0-9A-Za-z_]+]] = relay.reshape %w {shape = array<i64: 4, 18, 1, 1>} : (tensor<4x2x3x3xf32>) -> tensor<4x18x1x1xf32>
// CHECK-NEXT:    [[Y:%[0-9A-Za-z_]+]] = relay.conv2d [[C]], [[W]] : (tensor<1x18x4x4xf32>, tensor<4x18x1x1xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    func.return [[Y]] : tensor<1x4x4x4xf32>
func.func @main(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %0 = relay.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>)
  func.return %0 : tensor<1x4x4x4xf32>
}

// -----

// Dilated, unpadded, constant weight: no pad, the weight reshaped at compile time.
// CHECK-LABEL: func.func @main(%x: tensor<1x1x5x5xf32>) -> tensor<1x2x3x3xf32> {
// CHECK-NEXT:    [[C:%[0-9A-Za-z_]+]] = relay.im2col %x {kernel_size = array<i64: 2, 2>, dilation = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> tensor<1x4x3x3xf32>
// CHECK-NEXT:    [[W:%[0-9A-Za-z_]+]] = relay.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]], {{\[\[}}3.000000e+00]], {{\[\[}}4.000000e+00]]], {{\[\[\[}}5.000000e+00]], {{\[\[}}6.000000e+00]], {{\[\[}}7.000000e+00]], {{\[\[}}8.000000e+00]]]]> : tensor<2x4x1x1xf32>
// CHECK-NEXT:    [[Y:%[0-9A-Za-z_]+]] = relay.conv2d [[C]], [[W]] : (tensor<1x4x3x3xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    func.return [[Y]] : tensor<1x2x3x3xf32>
// CHECK-NOT:     relay.pad
func.func @main(%x: tensor<1x1x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %w = relay.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[5.0, 6.0], [7.0, 8.0]]]]> : tensor<2x1x2x2xf32>
  %0 = relay.conv2d %x, %w {dilation = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>, tensor<2x1x2x2xf32>)
  func.return %0 : tensor<1x2x3x3xf32>
}

// -----

// Two groups, unpadded: untouched.
// CHECK-LABEL: func.func @main(%x: tensor<1x4x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
// CHECK-NEXT:    %0 = relay.conv2d %x, %w {groups = 2 : i64} : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    func.return %0 : tensor<1x4x4x4xf32>
func.func @main(%x: tensor<1x4x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %0 = relay.conv2d %x, %w {groups = 2 : i64} : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>)
  func.return %0 : tensor<1x4x4x4xf32>
}

// -----

// A padded depthwise conv: the padding moves into a relay.pad; strides stay.
// CHECK-LABEL: func.func @main(%x: tensor<1x4x7x7xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32> {
// CHECK-NEXT:    %0 = relay.pad %x {pad_width = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x4x7x7xf32>) -> tensor<1x4x9x9xf32>
// CHECK-NEXT:    %1 = relay.conv2d %0, %w {strides = array<i64: 2, 2>, groups = 4 : i64} : (tensor<1x4x9x9xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    func.return %1 : tensor<1x4x4x4xf32>
func.func @main(%x: tensor<1x4x7x7xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %0 = relay.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, groups = 4 : i64} : (tensor<1x4x7x7xf32>, tensor<4x1x3x3xf32>)
  func.return %0 : tensor<1x4x4x4xf32>
}

// -----

// A max pool with padding and a ceil_mode tail: the input is padded with -inf
// by the begin padding and by what the last window needs at the end.
// CHECK-LABEL: func.func @main(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32> {
// CHECK-NEXT:    %0 = relay.pad %x {pad_width = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, pad_value = 0xfff0000000000000 : f64} : (tensor<1x2x7x7xf32>) -> tensor<1x2x9x9xf32>
// CHECK-NEXT:    %1 = relay.max_pool2d %0 {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x2x9x9xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    func.return %1 : tensor<1x2x4x4xf32>
func.func @main(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32> {
  %0 = relay.max_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>, ceil_mode} : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
  func.return %0 : tensor<1x2x4x4xf32>
}

// -----

// Max pools of the other ranks are padded alike: a video model's 1x3x3 one, a
// 1-D one with a ceil_mode tail.
// CHECK-LABEL: func.func @main(%x: tensor<1x2x4x7x7xf32>, %y: tensor<1x2x9xf32>) -> (tensor<1x2x4x4x4xf32>, tensor<1x2x5xf32>) {
// CHECK-NEXT:    %0 = relay.pad %x {pad_width = array<i64: 0, 0, 0, 1, 1, 0, 0, 0, 1, 1>, pad_value = 0xfff0000000000000 : f64} : (tensor<1x2x4x7x7xf32>) -> tensor<1x2x4x9x9xf32>
// CHECK-NEXT:    %1 = relay.max_pool3d %0 {pool_size = array<i64: 1, 3, 3>, strides = array<i64: 1, 2, 2>} : (tensor<1x2x4x9x9xf32>) -> tensor<1x2x4x4x4xf32>
// CHECK-NEXT:    %2 = relay.pad %y {pad_width = array<i64: 0, 0, 0, 0, 0, 1>, pad_value = 0xfff0000000000000 : f64} : (tensor<1x2x9xf32>) -> tensor<1x2x10xf32>
// CHECK-NEXT:    %3 = relay.max_pool1d %2 {pool_size = array<i64: 2>, strides = array<i64: 2>} : (tensor<1x2x10xf32>) -> tensor<1x2x5xf32>
func.func @main(%x: tensor<1x2x4x7x7xf32>, %y: tensor<1x2x9xf32>) -> (tensor<1x2x4x4x4xf32>, tensor<1x2x5xf32>) {
  %0 = relay.max_pool3d %x {pool_size = array<i64: 1, 3, 3>, strides = array<i64: 1, 2, 2>, padding = array<i64: 0, 1, 1, 0, 1, 1>} : (tensor<1x2x4x7x7xf32>) -> tensor<1x2x4x4x4xf32>
  %1 = relay.max_pool1d %y {pool_size = array<i64: 2>, strides = array<i64: 2>, ceil_mode} : (tensor<1x2x9xf32>) -> tensor<1x2x5xf32>
  func.return %0, %1 : tensor<1x2x4x4x4xf32>, tensor<1x2x5xf32>
}

// -----

// An unpadded max pool whose windows stay inside: untouched.
// CHECK-LABEL: func.func @main(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
// CHECK-NEXT:    %0 = relay.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
func.func @main(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %0 = relay.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  func.return %0 : tensor<1x2x4x4xf32>
}

// -----

// Already a 1x1, unit-stride, unpadded convolution (a GEMM): untouched.
// CHECK-LABEL: func.func @main(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> {
// CHECK-NEXT:    %0 = relay.conv2d %x, %w : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32>
// CHECK-NOT:     relay.im2col
func.func @main(%x: tensor<1x2x6x6xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32> {
  %0 = relay.conv2d %x, %w : (tensor<1x2x6x6xf32>, tensor<3x2x1x1xf32>)
  func.return %0 : tensor<1x3x6x6xf32>
}
