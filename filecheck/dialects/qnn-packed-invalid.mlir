// Invalid packed int8 ops, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @conv_weight_layout(%x: tensor<1x4x10x10x16xui8>, %w: tensor<2x4x3x3x16x4xi8>, %b: tensor<2x16xi32>, %m: tensor<2x16xf32>, %z: tensor<ui8>) {
  // CHECK: qnn.conv2d_nchwc: weight must be [O/ob, 4, KH, KW, 4, 4*ob] for data tensor<1x4x10x10x16xui8>, got tensor<2x4x3x3x16x4xi8>
  %0 = qnn.conv2d_nchwc %x, %w, %b, %m, %z {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x10x10x16xui8>, tensor<2x4x3x3x16x4xi8>, tensor<2x16xi32>, tensor<2x16xf32>, tensor<ui8>)
  func.return
}

// -----

func.func @conv_signed_data(%x: tensor<1x4x10x10x16xi8>, %w: tensor<2x4x3x3x4x64xi8>, %b: tensor<2x16xi32>, %m: tensor<2x16xf32>, %z: tensor<ui8>) {
  // CHECK: qnn.conv2d_nchwc: data must be a ui8 tensor, got tensor<1x4x10x10x16xi8>
  %0 = qnn.conv2d_nchwc %x, %w, %b, %m, %z {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x10x10x16xi8>, tensor<2x4x3x3x4x64xi8>, tensor<2x16xi32>, tensor<2x16xf32>, tensor<ui8>)
  func.return
}

// -----

func.func @conv_window(%x: tensor<1x4x2x2x16xui8>, %w: tensor<2x4x3x3x4x64xi8>, %b: tensor<2x16xi32>, %m: tensor<2x16xf32>, %z: tensor<ui8>) {
  // CHECK: qnn.conv2d_nchwc: a 3x3 window (strides 1, 1, dilation 1, 1) does not fit tensor<1x4x2x2x16xui8>
  %0 = qnn.conv2d_nchwc %x, %w, %b, %m, %z {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x2x2x16xui8>, tensor<2x4x3x3x4x64xi8>, tensor<2x16xi32>, tensor<2x16xf32>, tensor<ui8>)
  func.return
}

// -----

func.func @conv_bias_shape(%x: tensor<1x4x10x10x16xui8>, %w: tensor<2x4x3x3x4x64xi8>, %b: tensor<32xi32>, %m: tensor<2x16xf32>, %z: tensor<ui8>) {
  // CHECK: qnn.conv2d_nchwc: bias must be tensor<2x16xi32>, got tensor<32xi32>
  %0 = qnn.conv2d_nchwc %x, %w, %b, %m, %z {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x10x10x16xui8>, tensor<2x4x3x3x4x64xi8>, tensor<32xi32>, tensor<2x16xf32>, tensor<ui8>)
  func.return
}

// -----

func.func @dense_clamp(%a: tensor<7x64xui8>, %w: tensor<3x16x64xi8>, %b: tensor<48xi32>, %m: tensor<48xf32>, %z: tensor<i8>) {
  // CHECK: qnn.dense_packed: the clamp range [5, 200] must be non-empty and within i8's [-128, 127]
  %0 = qnn.dense_packed %a, %w, %b, %m, %z {out_min = 5 : i64, out_max = 200 : i64} : (tensor<7x64xui8>, tensor<3x16x64xi8>, tensor<48xi32>, tensor<48xf32>, tensor<i8>)
  func.return
}

// -----

func.func @dense_reduction(%a: tensor<7x62xui8>, %w: tensor<3x16x64xi8>, %b: tensor<48xi32>, %m: tensor<48xf32>, %z: tensor<i8>) {
  // CHECK: qnn.dense_packed: weight must be [N/nb, 15, 4*nb] for data tensor<7x62xui8>, got tensor<3x16x64xi8>
  %0 = qnn.dense_packed %a, %w, %b, %m, %z : (tensor<7x62xui8>, tensor<3x16x64xi8>, tensor<48xi32>, tensor<48xf32>, tensor<i8>)
  func.return
}

// -----

func.func @dense_zero_point(%a: tensor<7x64xui8>, %w: tensor<3x16x64xi8>, %b: tensor<48xi32>, %m: tensor<48xf32>, %z: tensor<1xi8>) {
  // CHECK: qnn.dense_packed: the zero point must be a ui8 or i8 scalar, got tensor<1xi8>
  %0 = qnn.dense_packed %a, %w, %b, %m, %z : (tensor<7x64xui8>, tensor<3x16x64xi8>, tensor<48xi32>, tensor<48xf32>, tensor<1xi8>)
  func.return
}

// -----

func.func @conv_add_residual_shape(%x: tensor<1x4x10x10x16xui8>, %w: tensor<2x4x3x3x4x64xi8>, %b: tensor<2x16xi32>, %m: tensor<2x16xf32>, %z: tensor<ui8>, %r: tensor<1x2x10x10x16xui8>, %s: tensor<f32>) {
  // CHECK: qnn.conv2d_nchwc_add: the residual must be a u8 or i8 tensor of the convolution's shape 1x2x8x8x16, got tensor<1x2x10x10x16xui8>
  %0 = qnn.conv2d_nchwc_add %x, %w, %b, %m, %z, %r, %s, %s, %z, %s, %z {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x10x10x16xui8>, tensor<2x4x3x3x4x64xi8>, tensor<2x16xi32>, tensor<2x16xf32>, tensor<ui8>, tensor<1x2x10x10x16xui8>, tensor<f32>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>)
  func.return
}

// -----

func.func @conv_add_scale(%x: tensor<1x4x10x10x16xui8>, %w: tensor<2x4x3x3x4x64xi8>, %b: tensor<2x16xi32>, %m: tensor<2x16xf32>, %z: tensor<ui8>, %r: tensor<1x2x8x8x16xui8>, %s: tensor<f32>, %ps: tensor<16xf32>) {
  // CHECK: qnn.conv2d_nchwc_add: residual_scale must be tensor<f32>, got tensor<16xf32>
  %0 = qnn.conv2d_nchwc_add %x, %w, %b, %m, %z, %r, %s, %ps, %z, %s, %z {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x10x10x16xui8>, tensor<2x4x3x3x4x64xi8>, tensor<2x16xi32>, tensor<2x16xf32>, tensor<ui8>, tensor<1x2x8x8x16xui8>, tensor<f32>, tensor<16xf32>, tensor<ui8>, tensor<f32>, tensor<ui8>)
  func.return
}

// -----

func.func @conv_add_residual_zero_point(%x: tensor<1x4x10x10x16xui8>, %w: tensor<2x4x3x3x4x64xi8>, %b: tensor<2x16xi32>, %m: tensor<2x16xf32>, %z: tensor<ui8>, %r: tensor<1x2x8x8x16xi8>, %s: tensor<f32>) {
  // CHECK: qnn.conv2d_nchwc_add: residual_zero_point must be a i8 scalar, got tensor<ui8>
  %0 = qnn.conv2d_nchwc_add %x, %w, %b, %m, %z, %r, %s, %s, %z, %s, %z {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x10x10x16xui8>, tensor<2x4x3x3x4x64xi8>, tensor<2x16xi32>, tensor<2x16xf32>, tensor<ui8>, tensor<1x2x8x8x16xi8>, tensor<f32>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>)
  func.return
}
