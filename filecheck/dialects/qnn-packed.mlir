// The packed int8 ops the int8 kernels run (qnn-legalize makes them): operands
// packed for vpdpbusd, the requantization fused (bias, multiplier, zero point,
// clamp range).
// RUN: %lamina_roundtrip | filecheck %s

// CHECK-LABEL: func.func @conv(%x: tensor<1x4x10x10x16xui8>, %w: tensor<2x4x3x3x4x64xi8>, %b: tensor<2x16xi32>, %m: tensor<2x16xf32>, %z: tensor<ui8>) -> tensor<1x2x4x4x16xui8> {
// CHECK-NEXT:    %0 = qnn.conv2d_nchwc %x, %w, %b, %m, %z {strides = array<i64: 2, 2>, dilation = array<i64: 1, 1>, out_min = 3 : i64} : (tensor<1x4x10x10x16xui8>, tensor<2x4x3x3x4x64xi8>, tensor<2x16xi32>, tensor<2x16xf32>, tensor<ui8>) -> tensor<1x2x4x4x16xui8>
func.func @conv(%x: tensor<1x4x10x10x16xui8>, %w: tensor<2x4x3x3x4x64xi8>, %b: tensor<2x16xi32>, %m: tensor<2x16xf32>, %z: tensor<ui8>) -> tensor<1x2x4x4x16xui8> {
  %0 = qnn.conv2d_nchwc %x, %w, %b, %m, %z {strides = array<i64: 2, 2>, dilation = array<i64: 1, 1>, out_min = 3 : i64} : (tensor<1x4x10x10x16xui8>, tensor<2x4x3x3x4x64xi8>, tensor<2x16xi32>, tensor<2x16xf32>, tensor<ui8>)
  func.return %0 : tensor<1x2x4x4x16xui8>
}

// -----

// CHECK-LABEL: func.func @dense(%a: tensor<7x64xui8>, %w: tensor<3x16x64xi8>, %b: tensor<48xi32>, %m: tensor<48xf32>, %z: tensor<i8>) -> tensor<7x48xi8> {
// CHECK-NEXT:    %0 = qnn.dense_packed %a, %w, %b, %m, %z : (tensor<7x64xui8>, tensor<3x16x64xi8>, tensor<48xi32>, tensor<48xf32>, tensor<i8>) -> tensor<7x48xi8>
func.func @dense(%a: tensor<7x64xui8>, %w: tensor<3x16x64xi8>, %b: tensor<48xi32>, %m: tensor<48xf32>, %z: tensor<i8>) -> tensor<7x48xi8> {
  %0 = qnn.dense_packed %a, %w, %b, %m, %z : (tensor<7x64xui8>, tensor<3x16x64xi8>, tensor<48xi32>, tensor<48xf32>, tensor<i8>)
  func.return %0 : tensor<7x48xi8>
}

// -----

// The convolution with a residual add fused in its write-back (an s8
// residual, the left operand of the add it came from).
// CHECK-LABEL: func.func @conv_add(%x: tensor<1x4x10x10x16xui8>, %w: tensor<2x4x3x3x4x64xi8>, %b: tensor<2x16xi32>, %m: tensor<2x16xf32>, %z: tensor<ui8>, %r: tensor<1x2x8x8x16xi8>, %s: tensor<f32>, %rs: tensor<f32>, %rz: tensor<i8>, %ys: tensor<f32>, %yz: tensor<ui8>) -> tensor<1x2x8x8x16xui8> {
// CHECK-NEXT:    %0 = qnn.conv2d_nchwc_add %x, %w, %b, %m, %z, %r, %s, %rs, %rz, %ys, %yz {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>, residual_lhs} : (tensor<1x4x10x10x16xui8>, tensor<2x4x3x3x4x64xi8>, tensor<2x16xi32>, tensor<2x16xf32>, tensor<ui8>, tensor<1x2x8x8x16xi8>, tensor<f32>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x8x8x16xui8>
func.func @conv_add(%x: tensor<1x4x10x10x16xui8>, %w: tensor<2x4x3x3x4x64xi8>, %b: tensor<2x16xi32>, %m: tensor<2x16xf32>, %z: tensor<ui8>, %r: tensor<1x2x8x8x16xi8>, %s: tensor<f32>, %rs: tensor<f32>, %rz: tensor<i8>, %ys: tensor<f32>, %yz: tensor<ui8>) -> tensor<1x2x8x8x16xui8> {
  %0 = qnn.conv2d_nchwc_add %x, %w, %b, %m, %z, %r, %s, %rs, %rz, %ys, %yz {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>, residual_lhs} : (tensor<1x4x10x10x16xui8>, tensor<2x4x3x3x4x64xi8>, tensor<2x16xi32>, tensor<2x16xf32>, tensor<ui8>, tensor<1x2x8x8x16xi8>, tensor<f32>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>)
  func.return %0 : tensor<1x2x8x8x16xui8>
}
