// alter-op-layout, 1-D and 3-D convolutions: as 2-D ones, a convolution whose
// channels have a block of the lanes (16 on znver4; an input of fewer than 8
// channels is one block) becomes relay.conv1d_ncwc / relay.conv3d_ncdhwc
// between NCW <-> NCW<x>c (NCDHW <-> NCDHW<x>c) transforms, its padding a
// relay.pad of the blocked input and its weight packed [O/ob, C/cb, *K, cb, ob].
// Transforms between them move through elementwise ops, slices along the
// spatial axes and residual additions, and cancel: a chain stays blocked.
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' --split-input-file -p alter-op-layout | filecheck %s

// CHECK-LABEL: func.func @audio(%x: tensor<1x1x400xf32>) -> tensor<1x32x39xf32> {
// CHECK-NEXT:    %[[XB:.*]] = relay.layout_transform %x {src_layout = "NCW", dst_layout = "NCW1c"} : (tensor<1x1x400xf32>) -> tensor<1x1x400x1xf32>
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<5.000000e-01> : tensor<2x1x10x1x16xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.conv1d_ncwc %[[XB]], %[[W]] {strides = array<i64: 5>} : (tensor<1x1x400x1xf32>, tensor<2x1x10x1x16xf32>) -> tensor<1x2x79x16xf32>
// CHECK-NEXT:    %[[G:.*]] = relay.gelu %[[C]]
// CHECK-NEXT:    %[[P:.*]] = relay.pad %[[G]] {pad_width = array<i64: 0, 0, 1, 0, 0, 0, 1, 0>} : (tensor<1x2x79x16xf32>) -> tensor<1x2x81x16xf32>
// CHECK-NEXT:    %[[W2:.*]] = relay.constant dense<2.500000e-01> : tensor<2x2x3x16x16xf32>
// CHECK-NEXT:    %[[C2:.*]] = relay.conv1d_ncwc %[[P]], %[[W2]] {strides = array<i64: 2>} : (tensor<1x2x81x16xf32>, tensor<2x2x3x16x16xf32>) -> tensor<1x2x40x16xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.strided_slice %[[C2]] {begin = array<i64: 0, 0, 0, 0>, end = array<i64: 1, 2, 39, 16>} : (tensor<1x2x40x16xf32>) -> tensor<1x2x39x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.layout_transform %[[S]] {src_layout = "NCW16c", dst_layout = "NCW"} : (tensor<1x2x39x16xf32>) -> tensor<1x32x39xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @audio(%x: tensor<1x1x400xf32>) -> tensor<1x32x39xf32> {
  %w = relay.constant dense<0.5> : tensor<32x1x10xf32>
  %0 = relay.conv1d %x, %w {strides = array<i64: 5>} : (tensor<1x1x400xf32>, tensor<32x1x10xf32>)
  %1 = relay.gelu %0 : tensor<1x32x79xf32>
  %w2 = relay.constant dense<0.25> : tensor<32x32x3xf32>
  %2 = relay.conv1d %1, %w2 {strides = array<i64: 2>, padding = array<i64: 1, 1>} : (tensor<1x32x79xf32>, tensor<32x32x3xf32>)
  %3 = relay.strided_slice %2 {begin = array<i64: 0, 0, 0>, end = array<i64: 1, 32, 39>} : (tensor<1x32x40xf32>)
  func.return %3 : tensor<1x32x39xf32>
}

// -----

// A video block: (1, 3, 3) then (3, 1, 1) convolutions, a ReLU and a residual
// addition all blocked; the residual's own transform of %x is the first one
// again (`cse` merges them).
// CHECK-LABEL: func.func @video(
// CHECK-NEXT:    %[[XB:.*]] = relay.layout_transform %x {src_layout = "NCDHW", dst_layout = "NCDHW16c"} : (tensor<1x16x4x8x8xf32>) -> tensor<1x1x4x8x8x16xf32>
// CHECK-NEXT:    %[[P:.*]] = relay.pad %[[XB]] {pad_width = array<i64: 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0>}
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<5.000000e-01> : tensor<2x1x1x3x3x16x16xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.conv3d_ncdhwc %[[P]], %[[W]] : (tensor<1x1x4x10x10x16xf32>, tensor<2x1x1x3x3x16x16xf32>) -> tensor<1x2x4x8x8x16xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.relu %[[C]] : tensor<1x2x4x8x8x16xf32>
// CHECK-NEXT:    %[[P2:.*]] = relay.pad %[[R]] {pad_width = array<i64: 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0>}
// CHECK-NEXT:    %[[W2:.*]] = relay.constant dense<2.500000e-01> : tensor<1x2x3x1x1x16x16xf32>
// CHECK-NEXT:    %[[C2:.*]] = relay.conv3d_ncdhwc %[[P2]], %[[W2]] : (tensor<1x2x6x8x8x16xf32>, tensor<1x2x3x1x1x16x16xf32>) -> tensor<1x1x4x8x8x16xf32>
// CHECK-NEXT:    %[[XB2:.*]] = relay.layout_transform %x {src_layout = "NCDHW", dst_layout = "NCDHW16c"} : (tensor<1x16x4x8x8xf32>) -> tensor<1x1x4x8x8x16xf32>
// CHECK-NEXT:    %[[A:.*]] = relay.add %[[C2]], %[[XB2]] : tensor<1x1x4x8x8x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.layout_transform %[[A]] {src_layout = "NCDHW16c", dst_layout = "NCDHW"} : (tensor<1x1x4x8x8x16xf32>) -> tensor<1x16x4x8x8xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @video(%x: tensor<1x16x4x8x8xf32>) -> tensor<1x16x4x8x8xf32> {
  %w = relay.constant dense<0.5> : tensor<32x16x1x3x3xf32>
  %0 = relay.conv3d %x, %w {padding = array<i64: 0, 1, 1, 0, 1, 1>} : (tensor<1x16x4x8x8xf32>, tensor<32x16x1x3x3xf32>)
  %1 = relay.relu %0 : tensor<1x32x4x8x8xf32>
  %w2 = relay.constant dense<0.25> : tensor<16x32x3x1x1xf32>
  %2 = relay.conv3d %1, %w2 {padding = array<i64: 1, 0, 0, 1, 0, 0>} : (tensor<1x32x4x8x8xf32>, tensor<16x32x3x1x1xf32>)
  %3 = relay.add %2, %x : (tensor<1x16x4x8x8xf32>, tensor<1x16x4x8x8xf32>)
  func.return %3 : tensor<1x16x4x8x8xf32>
}

// -----

// Channels without a block of 16 or 8 (R(2+1)D's 230) stay in NCDHW.
// CHECK-LABEL: func.func @unblocked(
// CHECK-NOT:     relay.conv3d_ncdhwc
// CHECK:         relay.conv3d %x
func.func @unblocked(%x: tensor<1x16x4x8x8xf32>) -> tensor<1x230x4x8x8xf32> {
  %w = relay.constant dense<0.5> : tensor<230x16x1x3x3xf32>
  %0 = relay.conv3d %x, %w {padding = array<i64: 0, 1, 1, 0, 1, 1>} : (tensor<1x16x4x8x8xf32>, tensor<230x16x1x3x3xf32>)
  func.return %0 : tensor<1x230x4x8x8xf32>
}
