// qnn-legalize: an integer convolution or matrix product over a constant
// symmetric s8 weight, with its bias adds and requantize, onto the packed int8
// kernels; the input's zero point moves into the bias (computed here), the
// input is blocked (3 channels padded to 4 with the zero point) and padded
// spatially with its zero point. What does not fit is left as it is.
// RUN: lamina-opt %s -p qnn-legalize | filecheck %s

// CHECK-LABEL: func.func @conv(%x: tensor<1x3x8x8xui8>) -> tensor<1x16x8x8xui8> {
// CHECK:         %[[C4:[0-9]+]] = relay.pad %x {pad_width = array<i64: 0, 0, 0, 0, 0, 1, 0, 0>, pad_value = 5.000000e+00 : f64} : (tensor<1x3x8x8xui8>) -> tensor<1x4x8x8xui8>
// CHECK-NEXT:    %[[B:[0-9]+]] = relay.layout_transform %[[C4]] {src_layout = "NCHW", dst_layout = "NCHW4c"} : (tensor<1x4x8x8xui8>) -> tensor<1x1x8x8x4xui8>
// CHECK-NEXT:    %[[P:[0-9]+]] = relay.pad %[[B]] {pad_width = array<i64: 0, 0, 1, 1, 0, 0, 0, 1, 1, 0>, pad_value = 5.000000e+00 : f64} : (tensor<1x1x8x8x4xui8>) -> tensor<1x1x10x10x4xui8>
// CHECK:         relay.constant dense<-305> : tensor<{{[0-9]+}}x{{[0-9]+}}xi32>
// CHECK:         %[[Y:[0-9]+]] = qnn.conv2d_nchwc %[[P]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {out_min = 0 : i64, out_max = 255 : i64, strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x1x10x10x4xui8>, tensor<{{[0-9]+}}x1x3x3x1x{{[0-9]+}}xi8>, tensor<{{[0-9]+}}x{{[0-9]+}}xi32>, tensor<{{[0-9]+}}x{{[0-9]+}}xf32>, tensor<ui8>)
// CHECK-NEXT:    %{{.*}} = relay.layout_transform %[[Y]] {src_layout = "NCHW{{[0-9]+}}c", dst_layout = "NCHW"}
// CHECK-NOT:     qnn.conv2d {{.*}}
// CHECK-NOT:     qnn.requantize
func.func @conv(%x: tensor<1x3x8x8xui8>) -> tensor<1x16x8x8xui8> {
  %w = relay.constant dense<3> : tensor<16x3x3x3xi8>
  %xz = relay.constant dense<5> : tensor<ui8>
  %wz = relay.constant dense<0> : tensor<16x1x1x1xi8>
  %acc = qnn.conv2d %x, %w, %xz, %wz {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xui8>, tensor<16x3x3x3xi8>, tensor<ui8>, tensor<16x1x1x1xi8>) -> tensor<1x16x8x8xi32>
  %b = relay.constant dense<100> : tensor<16x1x1xi32>
  %sum = relay.add %acc, %b : (tensor<1x16x8x8xi32>, tensor<16x1x1xi32>) -> tensor<1x16x8x8xi32>
  %m = relay.constant dense<0.01> : tensor<16x1x1xf32>
  %yz = relay.constant dense<2> : tensor<ui8>
  %y = qnn.requantize %sum, %m, %yz : (tensor<1x16x8x8xi32>, tensor<16x1x1xf32>, tensor<ui8>) -> tensor<1x16x8x8xui8>
  func.return %y : tensor<1x16x8x8xui8>
}

// CHECK-LABEL: func.func @dense(%a: tensor<2x5x64xui8>) -> tensor<2x5x32xi8> {
// CHECK:         %[[F:[0-9]+]] = relay.reshape %a {shape = array<i64: 10, 64>} : (tensor<2x5x64xui8>) -> tensor<10x64xui8>
// CHECK:         relay.constant dense<57344> : tensor<32xi32>
// CHECK:         %[[D:[0-9]+]] = qnn.dense_packed %[[F]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {out_min = -128 : i64, out_max = 127 : i64} : (tensor<10x64xui8>, tensor<{{[0-9]+}}x16x{{[0-9]+}}xi8>, tensor<32xi32>, tensor<32xf32>, tensor<i8>) -> tensor<10x32xi8>
// CHECK-NEXT:    %{{.*}} = relay.reshape %[[D]] {shape = array<i64: 2, 5, 32>} : (tensor<10x32xi8>) -> tensor<2x5x32xi8>
func.func @dense(%a: tensor<2x5x64xui8>) -> tensor<2x5x32xi8> {
  %w = relay.constant dense<-7> : tensor<64x32xi8>
  %az = relay.constant dense<128> : tensor<ui8>
  %wz = relay.constant dense<0> : tensor<32xi8>
  %acc = qnn.matmul %a, %w, %az, %wz : (tensor<2x5x64xui8>, tensor<64x32xi8>, tensor<ui8>, tensor<32xi8>) -> tensor<2x5x32xi32>
  %m = relay.constant dense<0.001> : tensor<32xf32>
  %yz = relay.constant dense<0> : tensor<i8>
  %y = qnn.requantize %acc, %m, %yz : (tensor<2x5x32xi32>, tensor<32xf32>, tensor<i8>) -> tensor<2x5x32xi8>
  func.return %y : tensor<2x5x32xi8>
}

// A weight zero point: left for qnn-canonicalize.
// CHECK-LABEL: func.func @asymmetric(
// CHECK:         qnn.conv2d
// CHECK:         qnn.requantize
func.func @asymmetric(%x: tensor<1x16x4x4xui8>) -> tensor<1x16x4x4xui8> {
  %w = relay.constant dense<3> : tensor<16x16x1x1xi8>
  %xz = relay.constant dense<5> : tensor<ui8>
  %wz = relay.constant dense<1> : tensor<16x1x1x1xi8>
  %acc = qnn.conv2d %x, %w, %xz, %wz : (tensor<1x16x4x4xui8>, tensor<16x16x1x1xi8>, tensor<ui8>, tensor<16x1x1x1xi8>) -> tensor<1x16x4x4xi32>
  %m = relay.constant dense<0.01> : tensor<f32>
  %yz = relay.constant dense<2> : tensor<ui8>
  %y = qnn.requantize %acc, %m, %yz : (tensor<1x16x4x4xi32>, tensor<f32>, tensor<ui8>) -> tensor<1x16x4x4xui8>
  func.return %y : tensor<1x16x4x4xui8>
}

// A residual qnn.add of a legalized convolution's result is fused into its
// write-back: the other operand is blocked like the result, and the add's
// scales and zero points become the fused op's (`residual_lhs`: the residual
// was the add's left operand, the sum keeps that order).
// CHECK-LABEL: func.func @residual(%x: tensor<1x16x4x4xui8>, %r: tensor<1x16x4x4xui8>) -> tensor<1x16x4x4xui8> {
// CHECK:         %[[R:[0-9]+]] = relay.layout_transform %r {src_layout = "NCHW", dst_layout = "NCHW{{[0-9]+}}c"}
// CHECK:         %[[Y:[0-9]+]] = qnn.conv2d_nchwc_add %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[R]], %xs, %rs, %rz, %ys, %yz {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>, out_min = 0 : i64, out_max = 255 : i64, residual_lhs}
// CHECK-NEXT:    %{{.*}} = relay.layout_transform %[[Y]] {src_layout = "NCHW{{[0-9]+}}c", dst_layout = "NCHW"}
// CHECK-NOT:     qnn.add
func.func @residual(%x: tensor<1x16x4x4xui8>, %r: tensor<1x16x4x4xui8>) -> tensor<1x16x4x4xui8> {
  %w = relay.constant dense<3> : tensor<16x16x1x1xi8>
  %xz = relay.constant dense<5> : tensor<ui8>
  %wz = relay.constant dense<0> : tensor<16x1x1x1xi8>
  %acc = qnn.conv2d %x, %w, %xz, %wz : (tensor<1x16x4x4xui8>, tensor<16x16x1x1xi8>, tensor<ui8>, tensor<16x1x1x1xi8>) -> tensor<1x16x4x4xi32>
  %m = relay.constant dense<0.01> : tensor<f32>
  %cz = relay.constant dense<2> : tensor<ui8>
  %c = qnn.requantize %acc, %m, %cz : (tensor<1x16x4x4xi32>, tensor<f32>, tensor<ui8>) -> tensor<1x16x4x4xui8>
  %rs = relay.constant dense<0.5> : tensor<f32>
  %rz = relay.constant dense<7> : tensor<ui8>
  %xs = relay.constant dense<0.25> : tensor<f32>
  %ys = relay.constant dense<0.75> : tensor<f32>
  %yz = relay.constant dense<1> : tensor<ui8>
  %y = qnn.add %r, %c, %rs, %rz, %xs, %cz, %ys, %yz : (tensor<1x16x4x4xui8>, tensor<1x16x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x16x4x4xui8>
  func.return %y : tensor<1x16x4x4xui8>
}

// The convolution's result read elsewhere too: the add stays.
// CHECK-LABEL: func.func @shared(
// CHECK:         qnn.conv2d_nchwc %
// CHECK:         qnn.add
func.func @shared(%x: tensor<1x16x4x4xui8>, %r: tensor<1x16x4x4xui8>) -> (tensor<1x16x4x4xui8>, tensor<1x16x4x4xui8>) {
  %w = relay.constant dense<3> : tensor<16x16x1x1xi8>
  %xz = relay.constant dense<5> : tensor<ui8>
  %wz = relay.constant dense<0> : tensor<16x1x1x1xi8>
  %acc = qnn.conv2d %x, %w, %xz, %wz : (tensor<1x16x4x4xui8>, tensor<16x16x1x1xi8>, tensor<ui8>, tensor<16x1x1x1xi8>) -> tensor<1x16x4x4xi32>
  %m = relay.constant dense<0.01> : tensor<f32>
  %cz = relay.constant dense<2> : tensor<ui8>
  %c = qnn.requantize %acc, %m, %cz : (tensor<1x16x4x4xi32>, tensor<f32>, tensor<ui8>) -> tensor<1x16x4x4xui8>
  %s = relay.constant dense<0.5> : tensor<f32>
  %y = qnn.add %c, %r, %s, %cz, %s, %cz, %s, %cz : (tensor<1x16x4x4xui8>, tensor<1x16x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x16x4x4xui8>
  func.return %y, %c : tensor<1x16x4x4xui8>, tensor<1x16x4x4xui8>
}

// Both operands are convolutions; the left one's result is read by the add
// at another zero point than it was quantized to, so the right one takes the
// add.
// CHECK-LABEL: func.func @other_side(
// CHECK:         qnn.conv2d_nchwc %
// CHECK:         qnn.conv2d_nchwc_add {{.*}} residual_lhs}
// CHECK-NOT:     qnn.add
func.func @other_side(%x: tensor<1x16x4x4xui8>) -> tensor<1x16x4x4xui8> {
  %w = relay.constant dense<3> : tensor<16x16x1x1xi8>
  %xz = relay.constant dense<5> : tensor<ui8>
  %wz = relay.constant dense<0> : tensor<16x1x1x1xi8>
  %m = relay.constant dense<0.01> : tensor<f32>
  %az = relay.constant dense<2> : tensor<ui8>
  %bz = relay.constant dense<3> : tensor<ui8>
  %other = relay.constant dense<9> : tensor<ui8>
  %acc1 = qnn.conv2d %x, %w, %xz, %wz : (tensor<1x16x4x4xui8>, tensor<16x16x1x1xi8>, tensor<ui8>, tensor<16x1x1x1xi8>) -> tensor<1x16x4x4xi32>
  %a = qnn.requantize %acc1, %m, %az : (tensor<1x16x4x4xi32>, tensor<f32>, tensor<ui8>) -> tensor<1x16x4x4xui8>
  %acc2 = qnn.conv2d %x, %w, %xz, %wz : (tensor<1x16x4x4xui8>, tensor<16x16x1x1xi8>, tensor<ui8>, tensor<16x1x1x1xi8>) -> tensor<1x16x4x4xi32>
  %b = qnn.requantize %acc2, %m, %bz : (tensor<1x16x4x4xi32>, tensor<f32>, tensor<ui8>) -> tensor<1x16x4x4xui8>
  %s = relay.constant dense<0.5> : tensor<f32>
  %y = qnn.add %a, %b, %s, %other, %s, %bz, %s, %az : (tensor<1x16x4x4xui8>, tensor<1x16x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x16x4x4xui8>
  func.return %y : tensor<1x16x4x4xui8>
}
