// lower-relay-to-te of the blocked convolutions of every rank: the conv_nchwc
// schedule tiles the output columns (unrolled) by the channel block's vector
// lanes. A 2-D one loops batch, channel blocks, rows; a 3-D one puts its rows
// outside its channel blocks and depth (batch, rows, blocks, depth), so the
// input rows of an output row stay in cache for every block and depth: a
// temporal kernel's taps, each a plane apart, are not read from memory once
// per output depth.
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' -p lower-relay-to-te | filecheck %s

// CHECK-LABEL: te.func @conv2d_nchwc {
// CHECK:         te.compute {{.*}} attributes {schedule = "split(i3, {{[0-9]+}}); reorder(i0, i1, i2, i3.o, r0, r1, r2, r3, i3.i, i4); {{.*}}vectorize(i4)"}
// CHECK-LABEL: te.func @conv3d_ncdhwc {
// CHECK:         te.compute {{.*}} attributes {schedule = "split(i4, {{[0-9]+}}); reorder(i0, i3, i1, i2, i4.o, r0, r1, r2, r3, r4, i4.i, i5); {{.*}}vectorize(i5)"}
func.func @main(%x: tensor<1x2x8x14x16xf32>, %w: tensor<2x2x3x3x16x16xf32>, %v: tensor<1x2x10x8x14x16xf32>, %k: tensor<2x2x7x1x1x16x16xf32>) -> (tensor<1x2x6x12x16xf32>, tensor<1x2x2x8x14x16xf32>) {
  %0 = relay.conv2d_nchwc %x, %w : (tensor<1x2x8x14x16xf32>, tensor<2x2x3x3x16x16xf32>) -> tensor<1x2x6x12x16xf32>
  %1 = relay.conv3d_ncdhwc %v, %k {strides = array<i64: 2, 1, 1>} : (tensor<1x2x10x8x14x16xf32>, tensor<2x2x7x1x1x16x16xf32>) -> tensor<1x2x2x8x14x16xf32>
  func.return %0, %1 : tensor<1x2x6x12x16xf32>, tensor<1x2x2x8x14x16xf32>
}
