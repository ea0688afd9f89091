// Invalid qnn ops, one per chunk: operands of the wrong element type, scales
// and zero points that do not broadcast to their tensor.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @quantize_int(%x: tensor<2x4xi32>, %s: tensor<f32>, %z: tensor<ui8>) {
  // CHECK: qnn.quantize: data must be a float tensor, got tensor<2x4xi32>
  %0 = qnn.quantize %x, %s, %z : (tensor<2x4xi32>, tensor<f32>, tensor<ui8>)
  func.return
}

// -----

func.func @quantize_scale_shape(%x: tensor<2x4xf32>, %s: tensor<3xf32>, %z: tensor<ui8>) {
  // CHECK: qnn.quantize: scale tensor<3xf32> does not broadcast to tensor<2x4xf32>
  %0 = qnn.quantize %x, %s, %z : (tensor<2x4xf32>, tensor<3xf32>, tensor<ui8>)
  func.return
}

// -----

// A scale that broadcasts with the tensor but would widen it.
func.func @quantize_scale_widens(%x: tensor<4xf32>, %s: tensor<2x4xf32>, %z: tensor<ui8>) {
  // CHECK: qnn.quantize: scale tensor<2x4xf32> does not broadcast to tensor<4xf32>
  %0 = qnn.quantize %x, %s, %z : (tensor<4xf32>, tensor<2x4xf32>, tensor<ui8>)
  func.return
}

// -----

func.func @quantize_zero_point_type(%x: tensor<2x4xf32>, %s: tensor<f32>, %z: tensor<i32>) {
  // CHECK: qnn.quantize: zero_point must be ui8, i8, i16 or ui16, got tensor<i32>
  %0 = qnn.quantize %x, %s, %z : (tensor<2x4xf32>, tensor<f32>, tensor<i32>)
  func.return
}

// -----

func.func @quantize_zero_point_shape(%x: tensor<2x4xf32>, %s: tensor<f32>, %z: tensor<4x1xui8>) {
  // CHECK: qnn.quantize: zero_point tensor<4x1xui8> does not broadcast to tensor<2x4xf32>
  %0 = qnn.quantize %x, %s, %z : (tensor<2x4xf32>, tensor<f32>, tensor<4x1xui8>)
  func.return
}

// -----

func.func @dequantize_zero_point_type(%q: tensor<2x4xui8>, %s: tensor<f32>, %z: tensor<i8>) {
  // CHECK: qnn.dequantize: zero_point tensor<i8> must have the element type of tensor<2x4xui8>
  %0 = qnn.dequantize %q, %s, %z : (tensor<2x4xui8>, tensor<f32>, tensor<i8>)
  func.return
}

// -----

func.func @dequantize_float(%q: tensor<2x4xf32>, %s: tensor<f32>, %z: tensor<f32>) {
  // CHECK: qnn.dequantize: data must be ui8, i8, i16, ui16 or i32, got tensor<2x4xf32>
  %0 = qnn.dequantize %q, %s, %z : (tensor<2x4xf32>, tensor<f32>, tensor<f32>)
  func.return
}

// -----

func.func @dequantize_int_scale(%q: tensor<2x4xi8>, %s: tensor<i32>, %z: tensor<i8>) {
  // CHECK: qnn.dequantize: scale must be a float tensor, got tensor<i32>
  %0 = qnn.dequantize %q, %s, %z : (tensor<2x4xi8>, tensor<i32>, tensor<i8>)
  func.return
}

// -----

func.func @requantize_i8(%acc: tensor<3x5xi8>, %m: tensor<f32>, %z: tensor<ui8>) {
  // CHECK: qnn.requantize: data must be an i32 accumulator, got tensor<3x5xi8>
  %0 = qnn.requantize %acc, %m, %z : (tensor<3x5xi8>, tensor<f32>, tensor<ui8>)
  func.return
}

// -----

func.func @requantize_multiplier_shape(%acc: tensor<3x5xi32>, %m: tensor<3xf32>, %z: tensor<ui8>) {
  // CHECK: qnn.requantize: multiplier tensor<3xf32> does not broadcast to tensor<3x5xi32>
  %0 = qnn.requantize %acc, %m, %z : (tensor<3x5xi32>, tensor<3xf32>, tensor<ui8>)
  func.return
}

// -----

func.func @requantize_clamp_outside_the_type(%acc: tensor<3x5xi32>, %m: tensor<f32>, %z: tensor<i8>) {
  // CHECK: qnn.requantize: the clamp range [-200, 127] must be non-empty and within i8's [-128, 127]
  %0 = qnn.requantize %acc, %m, %z {out_min = -200 : i64} : (tensor<3x5xi32>, tensor<f32>, tensor<i8>)
  func.return
}

// -----

func.func @requantize_clamp_empty(%acc: tensor<3x5xi32>, %m: tensor<f32>, %z: tensor<ui8>) {
  // CHECK: qnn.requantize: the clamp range [9, 8] must be non-empty and within ui8's [0, 255]
  %0 = qnn.requantize %acc, %m, %z {out_min = 9 : i64, out_max = 8 : i64} : (tensor<3x5xi32>, tensor<f32>, tensor<ui8>)
  func.return
}

// -----

func.func @requantize_to_i32(%acc: tensor<3x5xi32>, %m: tensor<f32>, %z: tensor<i32>) {
  // CHECK: qnn.requantize: zero_point must be ui8, i8, i16 or ui16, got tensor<i32>
  %0 = qnn.requantize %acc, %m, %z : (tensor<3x5xi32>, tensor<f32>, tensor<i32>)
  func.return
}

// -----

func.func @matmul_zero_point_type(%a: tensor<3x4xui8>, %b: tensor<4x5xi8>, %za: tensor<ui8>, %zb: tensor<ui8>) {
  // CHECK: qnn.matmul: rhs_zp tensor<ui8> must have the element type of tensor<4x5xi8>
  %0 = qnn.matmul %a, %b, %za, %zb : (tensor<3x4xui8>, tensor<4x5xi8>, tensor<ui8>, tensor<ui8>)
  func.return
}

// -----

func.func @matmul_float(%a: tensor<3x4xf32>, %b: tensor<4x5xi8>, %za: tensor<f32>, %zb: tensor<i8>) {
  // CHECK: qnn.matmul: lhs must be ui8, i8, i16 or ui16, got tensor<3x4xf32>
  %0 = qnn.matmul %a, %b, %za, %zb : (tensor<3x4xf32>, tensor<4x5xi8>, tensor<f32>, tensor<i8>)
  func.return
}

// -----

// The shapes are checked by relay.matmul's inference (the message may name it).
func.func @matmul_shapes(%a: tensor<3x4xui8>, %b: tensor<5x5xi8>, %za: tensor<ui8>, %zb: tensor<i8>) {
  // CHECK: matmul: contraction dimensions differ: lhs has 4 columns, rhs has 5 rows
  %0 = qnn.matmul %a, %b, %za, %zb : (tensor<3x4xui8>, tensor<5x5xi8>, tensor<ui8>, tensor<i8>)
  func.return
}

// -----

func.func @conv2d_zero_point_type(%x: tensor<1x4x6x6xui8>, %w: tensor<6x4x3x3xi8>, %zx: tensor<i8>, %zw: tensor<i8>) {
  // CHECK: qnn.conv2d: data_zp tensor<i8> must have the element type of tensor<1x4x6x6xui8>
  %0 = qnn.conv2d %x, %w, %zx, %zw : (tensor<1x4x6x6xui8>, tensor<6x4x3x3xi8>, tensor<i8>, tensor<i8>)
  func.return
}

// -----

func.func @conv2d_zero_point_channels(%x: tensor<1x4x6x6xui8>, %w: tensor<6x4x3x3xi8>, %zx: tensor<ui8>, %zw: tensor<4x1x1x1xi8>) {
  // CHECK: qnn.conv2d: weight_zp tensor<4x1x1x1xi8> does not broadcast to tensor<6x4x3x3xi8>
  %0 = qnn.conv2d %x, %w, %zx, %zw : (tensor<1x4x6x6xui8>, tensor<6x4x3x3xi8>, tensor<ui8>, tensor<4x1x1x1xi8>)
  func.return
}

// -----

// Groups are checked by relay.conv2d's inference (the message may name it).
func.func @conv2d_groups(%x: tensor<1x4x6x6xui8>, %w: tensor<6x4x3x3xi8>, %zx: tensor<ui8>, %zw: tensor<i8>) {
  // CHECK: conv2d: 4 input channels in 2 group(s) need a weight with 2 input channels and a multiple of 2 output channels
  %0 = qnn.conv2d %x, %w, %zx, %zw {groups = 2 : i64} : (tensor<1x4x6x6xui8>, tensor<6x4x3x3xi8>, tensor<ui8>, tensor<i8>)
  func.return
}

// -----

func.func @add_int_scale(%a: tensor<2x3xui8>, %b: tensor<2x3xui8>, %sa: tensor<i32>, %za: tensor<ui8>, %sb: tensor<f32>, %zb: tensor<ui8>, %sy: tensor<f32>, %zy: tensor<ui8>) {
  // CHECK: qnn.add: lhs_scale must be a float tensor, got tensor<i32>
  %0 = qnn.add %a, %b, %sa, %za, %sb, %zb, %sy, %zy : (tensor<2x3xui8>, tensor<2x3xui8>, tensor<i32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>)
  func.return
}

// -----

func.func @mul_output_scale(%a: tensor<2x3xui8>, %b: tensor<3xui8>, %sa: tensor<f32>, %za: tensor<ui8>, %sb: tensor<f32>, %zb: tensor<ui8>, %sy: tensor<4xf32>, %zy: tensor<ui8>) {
  // CHECK: qnn.mul: output_scale tensor<4xf32> does not broadcast to tensor<2x3xui8>
  %0 = qnn.mul %a, %b, %sa, %za, %sb, %zb, %sy, %zy : (tensor<2x3xui8>, tensor<3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<4xf32>, tensor<ui8>)
  func.return
}

// -----

func.func @add_output_zero_point(%a: tensor<2x3xui8>, %b: tensor<2x3xui8>, %sa: tensor<f32>, %za: tensor<ui8>, %sb: tensor<f32>, %zb: tensor<ui8>, %sy: tensor<f32>, %zy: tensor<f32>) {
  // CHECK: qnn.add: output_zero_point must be ui8, i8, i16 or ui16, got tensor<f32>
  %0 = qnn.add %a, %b, %sa, %za, %sb, %zb, %sy, %zy : (tensor<2x3xui8>, tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<f32>)
  func.return
}

// -----

// The declared result type must be the inferred one.
func.func @quantize_result_type(%x: tensor<2x4xf32>, %s: tensor<f32>, %z: tensor<ui8>) {
  // CHECK: qnn.quantize: result type tensor<2x4xi8> does not match the inferred type tensor<2x4xui8>
  %0 = qnn.quantize %x, %s, %z : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xi8>
  func.return
}

// -----

func.func @softmax_i16(%x: tensor<2x5xi16>, %s: tensor<f32>, %z: tensor<i16>, %ys: tensor<f32>, %yz: tensor<ui8>) {
  // CHECK: qnn.softmax: data must be ui8 or i8, got tensor<2x5xi16>
  %0 = qnn.softmax %x, %s, %z, %ys, %yz : (tensor<2x5xi16>, tensor<f32>, tensor<i16>, tensor<f32>, tensor<ui8>)
  func.return
}

// -----

// onnxruntime's QLinearSoftmax has one scale: a per-channel one is refused.
func.func @softmax_per_channel(%x: tensor<2x5xui8>, %s: tensor<2x1xf32>, %z: tensor<ui8>, %ys: tensor<f32>, %yz: tensor<ui8>) {
  // CHECK: qnn.softmax: data_scale must be per tensor (one element), got tensor<2x1xf32>
  %0 = qnn.softmax %x, %s, %z, %ys, %yz {axis = 1 : i64} : (tensor<2x5xui8>, tensor<2x1xf32>, tensor<ui8>, tensor<f32>, tensor<ui8>)
  func.return
}

// -----

func.func @softmax_axis(%x: tensor<2x5xui8>, %s: tensor<f32>, %z: tensor<ui8>) {
  // CHECK: qnn.softmax: axis 2 is out of range for a rank-2 tensor (expected -2 <= axis < 2)
  %0 = qnn.softmax %x, %s, %z, %s, %z {axis = 2 : i64} : (tensor<2x5xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>)
  func.return
}

// -----

// The table's headroom depends on the size along the axis: it must be known.
func.func @softmax_symbolic(%x: tensor<2x?xui8, ["n"]>, %s: tensor<f32>, %z: tensor<ui8>) {
  // CHECK: qnn.softmax: the size along axis 1 must be static and non-zero, got tensor<2x?xui8, ["n"]>
  %0 = qnn.softmax %x, %s, %z, %s, %z : (tensor<2x?xui8, ["n"]>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>)
  func.return
}
