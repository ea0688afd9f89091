// Round trip of the blocked-layout ops (relay.layout_transform, relay.conv1d_ncwc,
// relay.conv2d_nchwc, relay.conv3d_ncdhwc):
// custom form, and generic form re-parsed.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @blocked(%x: tensor<1x32x10x10xf32>, %w: tensor<2x2x3x3x16x16xf32>) -> (tensor<1x32x8x8xf32>, tensor<1x2x4x4x16xf32>) {
// CHECK-NEXT:    %0 = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW16c"} : (tensor<1x32x10x10xf32>) -> tensor<1x2x10x10x16xf32>
// CHECK-NEXT:    %1 = relay.conv2d_nchwc %0, %w : (tensor<1x2x10x10x16xf32>, tensor<2x2x3x3x16x16xf32>) -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT:    %2 = relay.conv2d_nchwc %0, %w {strides = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x2x10x10x16xf32>, tensor<2x2x3x3x16x16xf32>) -> tensor<1x2x4x4x16xf32>
// CHECK-NEXT:    %3 = relay.layout_transform %1 {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x2x8x8x16xf32>) -> tensor<1x32x8x8xf32>
// CHECK-NEXT:    func.return %3, %2 : tensor<1x32x8x8xf32>, tensor<1x2x4x4x16xf32>
// CHECK-NEXT:    }
// GENERIC:       %0 = "relay.layout_transform"(%x) <{src_layout = "NCHW", dst_layout = "NCHW16c"}> : (tensor<1x32x10x10xf32>) -> tensor<1x2x10x10x16xf32>
// GENERIC-NEXT:  %1 = "relay.conv2d_nchwc"(%0, %w) : (tensor<1x2x10x10x16xf32>, tensor<2x2x3x3x16x16xf32>) -> tensor<1x2x8x8x16xf32>
// GENERIC-NEXT:  %2 = "relay.conv2d_nchwc"(%0, %w) <{strides = array<i64: 2, 2>, dilation = array<i64: 1, 1>}> : (tensor<1x2x10x10x16xf32>, tensor<2x2x3x3x16x16xf32>) -> tensor<1x2x4x4x16xf32>
// GENERIC-NEXT:  %3 = "relay.layout_transform"(%1) <{src_layout = "NCHW16c", dst_layout = "NCHW"}> : (tensor<1x2x8x8x16xf32>) -> tensor<1x32x8x8xf32>

func.func @blocked(%x: tensor<1x32x10x10xf32>, %w: tensor<2x2x3x3x16x16xf32>) -> (tensor<1x32x8x8xf32>, tensor<1x2x4x4x16xf32>) {
  %0 = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW16c"} : (tensor<1x32x10x10xf32>)
  %1 = relay.conv2d_nchwc %0, %w : (tensor<1x2x10x10x16xf32>, tensor<2x2x3x3x16x16xf32>)
  %2 = relay.conv2d_nchwc %0, %w {strides = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x2x10x10x16xf32>, tensor<2x2x3x3x16x16xf32>)
  %3 = relay.layout_transform %1 {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x2x8x8x16xf32>)
  func.return %3, %2 : tensor<1x32x8x8xf32>, tensor<1x2x4x4x16xf32>
}

// Grouped: each of 2 groups reads 1 of the data's 2 input blocks.
// CHECK-LABEL: func.func @grouped(
// CHECK-NEXT:    %0 = relay.conv2d_nchwc %x, %w {groups = 2 : i64} : (tensor<1x2x10x10x16xf32>, tensor<2x1x3x3x16x16xf32>) -> tensor<1x2x8x8x16xf32>
// GENERIC:       %0 = "relay.conv2d_nchwc"(%x, %w) <{groups = 2 : i64}> : (tensor<1x2x10x10x16xf32>, tensor<2x1x3x3x16x16xf32>) -> tensor<1x2x8x8x16xf32>
func.func @grouped(%x: tensor<1x2x10x10x16xf32>, %w: tensor<2x1x3x3x16x16xf32>) -> tensor<1x2x8x8x16xf32> {
  %0 = relay.conv2d_nchwc %x, %w {groups = 2 : i64} : (tensor<1x2x10x10x16xf32>, tensor<2x1x3x3x16x16xf32>)
  func.return %0 : tensor<1x2x8x8x16xf32>
}

// 1-D (NCW8c) and 3-D (NCDHW16c) convolutions and their layout transforms.
// CHECK-LABEL: func.func @ranks(
// CHECK-NEXT:    %0 = relay.layout_transform %x {src_layout = "NCW", dst_layout = "NCW8c"} : (tensor<1x16x20xf32>) -> tensor<1x2x20x8xf32>
// CHECK-NEXT:    %1 = relay.conv1d_ncwc %0, %w1 {strides = array<i64: 2>} : (tensor<1x2x20x8xf32>, tensor<4x2x3x8x8xf32>) -> tensor<1x4x9x8xf32>
// CHECK-NEXT:    %2 = relay.layout_transform %1 {src_layout = "NCW8c", dst_layout = "NCW"} : (tensor<1x4x9x8xf32>) -> tensor<1x32x9xf32>
// CHECK-NEXT:    %3 = relay.layout_transform %v {src_layout = "NCDHW", dst_layout = "NCDHW16c"} : (tensor<1x32x4x6x6xf32>) -> tensor<1x2x4x6x6x16xf32>
// CHECK-NEXT:    %4 = relay.conv3d_ncdhwc %3, %w3 {dilation = array<i64: 1, 2, 2>} : (tensor<1x2x4x6x6x16xf32>, tensor<1x2x3x1x3x16x16xf32>) -> tensor<1x1x2x6x2x16xf32>
// CHECK-NEXT:    %5 = relay.layout_transform %4 {src_layout = "NCDHW16c", dst_layout = "NCDHW"} : (tensor<1x1x2x6x2x16xf32>) -> tensor<1x16x2x6x2xf32>
// GENERIC:       "relay.conv1d_ncwc"(%0, %w1) <{strides = array<i64: 2>}> : (tensor<1x2x20x8xf32>, tensor<4x2x3x8x8xf32>) -> tensor<1x4x9x8xf32>
// GENERIC:       "relay.conv3d_ncdhwc"(%3, %w3) <{dilation = array<i64: 1, 2, 2>}> : (tensor<1x2x4x6x6x16xf32>, tensor<1x2x3x1x3x16x16xf32>) -> tensor<1x1x2x6x2x16xf32>
func.func @ranks(%x: tensor<1x16x20xf32>, %w1: tensor<4x2x3x8x8xf32>, %v: tensor<1x32x4x6x6xf32>, %w3: tensor<1x2x3x1x3x16x16xf32>) -> (tensor<1x32x9xf32>, tensor<1x16x2x6x2xf32>) {
  %0 = relay.layout_transform %x {src_layout = "NCW", dst_layout = "NCW8c"} : (tensor<1x16x20xf32>)
  %1 = relay.conv1d_ncwc %0, %w1 {strides = array<i64: 2>} : (tensor<1x2x20x8xf32>, tensor<4x2x3x8x8xf32>)
  %2 = relay.layout_transform %1 {src_layout = "NCW8c", dst_layout = "NCW"} : (tensor<1x4x9x8xf32>)
  %3 = relay.layout_transform %v {src_layout = "NCDHW", dst_layout = "NCDHW16c"} : (tensor<1x32x4x6x6xf32>)
  %4 = relay.conv3d_ncdhwc %3, %w3 {dilation = array<i64: 1, 2, 2>} : (tensor<1x2x4x6x6x16xf32>, tensor<1x2x3x1x3x16x16xf32>)
  %5 = relay.layout_transform %4 {src_layout = "NCDHW16c", dst_layout = "NCDHW"} : (tensor<1x1x2x6x2x16xf32>)
  func.return %2, %5 : tensor<1x32x9xf32>, tensor<1x16x2x6x2xf32>
}
