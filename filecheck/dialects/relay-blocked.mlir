// Round trip of the blocked-layout ops (relay.layout_transform, relay.conv2d_nchwc):
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
