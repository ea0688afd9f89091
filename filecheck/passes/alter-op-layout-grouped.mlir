// alter-op-layout, grouped convolutions: when each group's input channels are
// whole blocks of the lanes (16 on znver4) and its output channels one block
// (RegNetX's groups of 16), the conv becomes relay.conv2d_nchwc {groups}: each
// output block reads its own group's input blocks, the weight packed per group
// [O/16, (C/groups)/16, KH, KW, 16, 16]. Groups of other widths, and depthwise
// convolutions, are left to the other rules.
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' --split-input-file -p alter-op-layout | filecheck %s

// CHECK-LABEL: func.func @main(%x: tensor<1x64x9x9xf32>) -> tensor<1x64x9x9xf32> {
// CHECK-NEXT:    %[[XB:.*]] = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW16c"} : (tensor<1x64x9x9xf32>) -> tensor<1x4x9x9x16xf32>
// CHECK-NEXT:    %[[P:.*]] = relay.pad %[[XB]] {pad_width = array<i64: 0, 0, 1, 1, 0, 0, 0, 1, 1, 0>} : (tensor<1x4x9x9x16xf32>) -> tensor<1x4x11x11x16xf32>
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<5.000000e-01> : tensor<4x1x3x3x16x16xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.conv2d_nchwc %[[P]], %[[W]] {groups = 4 : i64} : (tensor<1x4x11x11x16xf32>, tensor<4x1x3x3x16x16xf32>) -> tensor<1x4x9x9x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.layout_transform %[[C]] {src_layout = "NCHW16c", dst_layout = "NCHW"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @main(%x: tensor<1x64x9x9xf32>) -> tensor<1x64x9x9xf32> {
  %w = relay.constant dense<0.5> : tensor<64x16x3x3xf32>
  %0 = relay.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, groups = 4 : i64} : (tensor<1x64x9x9xf32>, tensor<64x16x3x3xf32>)
  func.return %0 : tensor<1x64x9x9xf32>
}

// -----

// Groups of 4 channels: not whole blocks.
// CHECK-LABEL: func.func @main(
// CHECK-NOT:     relay.conv2d_nchwc
// CHECK:         relay.conv2d %{{.*}} {groups = 16 : i64}
func.func @main(%x: tensor<1x64x9x9xf32>) -> tensor<1x64x9x9xf32> {
  %w = relay.constant dense<0.5> : tensor<64x4x3x3xf32>
  %0 = relay.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, groups = 16 : i64} : (tensor<1x64x9x9xf32>, tensor<64x4x3x3xf32>)
  func.return %0 : tensor<1x64x9x9xf32>
}
