// Round trip of the qnn ops (quantize, dequantize, requantize, matmul, conv2d,
// add, mul, softmax): custom form, and generic form re-parsed. Scales and zero points
// per tensor (scalars) and per channel (shaped to broadcast).
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @quantize(%x: tensor<2x4xf32>, %s: tensor<f32>, %zu: tensor<ui8>, %sc: tensor<2x1xf32>, %zc: tensor<2x1xi8>, %z16: tensor<i16>) -> (tensor<2x4xui8>, tensor<2x4xi8>, tensor<2x4xi16>, tensor<2x4xf32>, tensor<2x4xf32>) {
// CHECK-NEXT:    %0 = qnn.quantize %x, %s, %zu : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
// CHECK-NEXT:    %1 = qnn.quantize %x, %sc, %zc : (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xi8>) -> tensor<2x4xi8>
// CHECK-NEXT:    %2 = qnn.quantize %x, %s, %z16 : (tensor<2x4xf32>, tensor<f32>, tensor<i16>) -> tensor<2x4xi16>
// CHECK-NEXT:    %3 = qnn.dequantize %0, %s, %zu : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x4xf32>
// CHECK-NEXT:    %4 = qnn.dequantize %1, %sc, %zc : (tensor<2x4xi8>, tensor<2x1xf32>, tensor<2x1xi8>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %0, %1, %2, %3, %4 : tensor<2x4xui8>, tensor<2x4xi8>, tensor<2x4xi16>, tensor<2x4xf32>, tensor<2x4xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "quantize"
// GENERIC:       %0 = "qnn.quantize"(%x, %s, %zu) : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
// GENERIC-NEXT:  %1 = "qnn.quantize"(%x, %sc, %zc) : (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xi8>) -> tensor<2x4xi8>
// GENERIC-NEXT:  %2 = "qnn.quantize"(%x, %s, %z16) : (tensor<2x4xf32>, tensor<f32>, tensor<i16>) -> tensor<2x4xi16>
// GENERIC-NEXT:  %3 = "qnn.dequantize"(%0, %s, %zu) : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x4xf32>
// GENERIC-NEXT:  %4 = "qnn.dequantize"(%1, %sc, %zc) : (tensor<2x4xi8>, tensor<2x1xf32>, tensor<2x1xi8>) -> tensor<2x4xf32>

func.func @quantize(%x: tensor<2x4xf32>, %s: tensor<f32>, %zu: tensor<ui8>, %sc: tensor<2x1xf32>, %zc: tensor<2x1xi8>, %z16: tensor<i16>) -> (tensor<2x4xui8>, tensor<2x4xi8>, tensor<2x4xi16>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = qnn.quantize %x, %s, %zu : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>)
  %1 = qnn.quantize %x, %sc, %zc : (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xi8>)
  %2 = qnn.quantize %x, %s, %z16 : (tensor<2x4xf32>, tensor<f32>, tensor<i16>)
  %3 = qnn.dequantize %0, %s, %zu : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>)
  %4 = qnn.dequantize %1, %sc, %zc : (tensor<2x4xi8>, tensor<2x1xf32>, tensor<2x1xi8>)
  func.return %0, %1, %2, %3, %4 : tensor<2x4xui8>, tensor<2x4xi8>, tensor<2x4xi16>, tensor<2x4xf32>, tensor<2x4xf32>
}

// An i32 accumulator: dequantized with an i32 zero point, requantized with a
// per-tensor and a per-column multiplier.
// CHECK-LABEL: func.func @requantize(
// CHECK-NEXT:    %0 = qnn.dequantize %acc, %s, %zi : (tensor<3x5xi32>, tensor<f32>, tensor<i32>) -> tensor<3x5xf32>
// CHECK-NEXT:    %1 = qnn.requantize %acc, %m, %zu : (tensor<3x5xi32>, tensor<f32>, tensor<ui8>) -> tensor<3x5xui8>
// CHECK-NEXT:    %2 = qnn.requantize %acc, %mc, %zs : (tensor<3x5xi32>, tensor<5xf32>, tensor<i8>) -> tensor<3x5xi8>
// CHECK-NEXT:    %3 = qnn.requantize %acc, %m, %zu {out_min = 7 : i64} : (tensor<3x5xi32>, tensor<f32>, tensor<ui8>) -> tensor<3x5xui8>
// CHECK-NEXT:    %4 = qnn.requantize %acc, %m, %zs {out_min = -3 : i64, out_max = 90 : i64} : (tensor<3x5xi32>, tensor<f32>, tensor<i8>) -> tensor<3x5xi8>
// CHECK-NEXT:    func.return %0, %1, %2, %3, %4
// GENERIC-LABEL: "func.func"() <{sym_name = "requantize"
// GENERIC:       %0 = "qnn.dequantize"(%acc, %s, %zi) : (tensor<3x5xi32>, tensor<f32>, tensor<i32>) -> tensor<3x5xf32>
// GENERIC-NEXT:  %1 = "qnn.requantize"(%acc, %m, %zu) : (tensor<3x5xi32>, tensor<f32>, tensor<ui8>) -> tensor<3x5xui8>
// GENERIC-NEXT:  %2 = "qnn.requantize"(%acc, %mc, %zs) : (tensor<3x5xi32>, tensor<5xf32>, tensor<i8>) -> tensor<3x5xi8>
// GENERIC-NEXT:  %3 = "qnn.requantize"(%acc, %m, %zu) <{out_min = 7 : i64}> : (tensor<3x5xi32>, tensor<f32>, tensor<ui8>) -> tensor<3x5xui8>
// GENERIC-NEXT:  %4 = "qnn.requantize"(%acc, %m, %zs) <{out_min = -3 : i64, out_max = 90 : i64}> : (tensor<3x5xi32>, tensor<f32>, tensor<i8>) -> tensor<3x5xi8>

// A clamp range narrower than the output type's (a folded relu or clip).
func.func @requantize(%acc: tensor<3x5xi32>, %s: tensor<f32>, %zi: tensor<i32>, %m: tensor<f32>, %mc: tensor<5xf32>, %zu: tensor<ui8>, %zs: tensor<i8>) -> (tensor<3x5xf32>, tensor<3x5xui8>, tensor<3x5xi8>, tensor<3x5xui8>, tensor<3x5xi8>) {
  %0 = qnn.dequantize %acc, %s, %zi : (tensor<3x5xi32>, tensor<f32>, tensor<i32>)
  %1 = qnn.requantize %acc, %m, %zu : (tensor<3x5xi32>, tensor<f32>, tensor<ui8>)
  %2 = qnn.requantize %acc, %mc, %zs : (tensor<3x5xi32>, tensor<5xf32>, tensor<i8>)
  %3 = qnn.requantize %acc, %m, %zu {out_min = 7 : i64} : (tensor<3x5xi32>, tensor<f32>, tensor<ui8>)
  %4 = qnn.requantize %acc, %m, %zs {out_min = -3 : i64, out_max = 90 : i64} : (tensor<3x5xi32>, tensor<f32>, tensor<i8>)
  func.return %0, %1, %2, %3, %4 : tensor<3x5xf32>, tensor<3x5xui8>, tensor<3x5xi8>, tensor<3x5xui8>, tensor<3x5xi8>
}

// matmul: 2-D with a per-row a zero point and a per-column b zero point,
// batched with broadcast batch dims.
// CHECK-LABEL: func.func @matmul(
// CHECK-NEXT:    %0 = qnn.matmul %a, %b, %za, %zb : (tensor<3x4xui8>, tensor<4x5xi8>, tensor<3x1xui8>, tensor<5xi8>) -> tensor<3x5xi32>
// CHECK-NEXT:    %1 = qnn.matmul %c, %b, %z, %zs : (tensor<2x3x4xui8>, tensor<4x5xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x3x5xi32>
// CHECK-NEXT:    func.return %0, %1
// GENERIC-LABEL: "func.func"() <{sym_name = "matmul"
// GENERIC:       %0 = "qnn.matmul"(%a, %b, %za, %zb) : (tensor<3x4xui8>, tensor<4x5xi8>, tensor<3x1xui8>, tensor<5xi8>) -> tensor<3x5xi32>
// GENERIC-NEXT:  %1 = "qnn.matmul"(%c, %b, %z, %zs) : (tensor<2x3x4xui8>, tensor<4x5xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x3x5xi32>

func.func @matmul(%a: tensor<3x4xui8>, %b: tensor<4x5xi8>, %za: tensor<3x1xui8>, %zb: tensor<5xi8>, %c: tensor<2x3x4xui8>, %z: tensor<ui8>, %zs: tensor<i8>) -> (tensor<3x5xi32>, tensor<2x3x5xi32>) {
  %0 = qnn.matmul %a, %b, %za, %zb : (tensor<3x4xui8>, tensor<4x5xi8>, tensor<3x1xui8>, tensor<5xi8>)
  %1 = qnn.matmul %c, %b, %z, %zs : (tensor<2x3x4xui8>, tensor<4x5xi8>, tensor<ui8>, tensor<i8>)
  func.return %0, %1 : tensor<3x5xi32>, tensor<2x3x5xi32>
}

// conv2d: default attributes; padding, strides and dilation; groups with a
// per-output-channel weight zero point.
// CHECK-LABEL: func.func @conv2d(
// CHECK-NEXT:    %0 = qnn.conv2d %x, %w, %zx, %zw : (tensor<1x4x6x6xui8>, tensor<6x4x3x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x6x4x4xi32>
// CHECK-NEXT:    %1 = qnn.conv2d %x, %w, %zx, %zw {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 2, 2>} : (tensor<1x4x6x6xui8>, tensor<6x4x3x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x6x2x2xi32>
// CHECK-NEXT:    %2 = qnn.conv2d %x, %wg, %zx, %zc {groups = 2 : i64} : (tensor<1x4x6x6xui8>, tensor<6x2x3x3xi8>, tensor<ui8>, tensor<6x1x1x1xi8>) -> tensor<1x6x4x4xi32>
// CHECK-NEXT:    func.return %0, %1, %2
// GENERIC-LABEL: "func.func"() <{sym_name = "conv2d"
// GENERIC:       %0 = "qnn.conv2d"(%x, %w, %zx, %zw) : (tensor<1x4x6x6xui8>, tensor<6x4x3x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x6x4x4xi32>
// GENERIC-NEXT:  %1 = "qnn.conv2d"(%x, %w, %zx, %zw) <{strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 2, 2>}> : (tensor<1x4x6x6xui8>, tensor<6x4x3x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x6x2x2xi32>
// GENERIC-NEXT:  %2 = "qnn.conv2d"(%x, %wg, %zx, %zc) <{groups = 2 : i64}> : (tensor<1x4x6x6xui8>, tensor<6x2x3x3xi8>, tensor<ui8>, tensor<6x1x1x1xi8>) -> tensor<1x6x4x4xi32>

func.func @conv2d(%x: tensor<1x4x6x6xui8>, %w: tensor<6x4x3x3xi8>, %wg: tensor<6x2x3x3xi8>, %zx: tensor<ui8>, %zw: tensor<i8>, %zc: tensor<6x1x1x1xi8>) -> (tensor<1x6x4x4xi32>, tensor<1x6x2x2xi32>, tensor<1x6x4x4xi32>) {
  %0 = qnn.conv2d %x, %w, %zx, %zw : (tensor<1x4x6x6xui8>, tensor<6x4x3x3xi8>, tensor<ui8>, tensor<i8>)
  %1 = qnn.conv2d %x, %w, %zx, %zw {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 2, 2>} : (tensor<1x4x6x6xui8>, tensor<6x4x3x3xi8>, tensor<ui8>, tensor<i8>)
  %2 = qnn.conv2d %x, %wg, %zx, %zc {groups = 2 : i64} : (tensor<1x4x6x6xui8>, tensor<6x2x3x3xi8>, tensor<ui8>, tensor<6x1x1x1xi8>)
  func.return %0, %1, %2 : tensor<1x6x4x4xi32>, tensor<1x6x2x2xi32>, tensor<1x6x4x4xi32>
}

// add and mul: broadcast operands, the output in a third scale and zero point
// (of another quantized type).
// CHECK-LABEL: func.func @binary(
// CHECK-NEXT:    %0 = qnn.add %a, %b, %sa, %za, %sb, %zb, %sy, %zy : (tensor<2x3xui8>, tensor<3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
// CHECK-NEXT:    %1 = qnn.mul %a, %b, %sa, %za, %sb, %zb, %sy, %zu : (tensor<2x3xui8>, tensor<3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
// CHECK-NEXT:    func.return %0, %1
// GENERIC-LABEL: "func.func"() <{sym_name = "binary"
// GENERIC:       %0 = "qnn.add"(%a, %b, %sa, %za, %sb, %zb, %sy, %zy) : (tensor<2x3xui8>, tensor<3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
// GENERIC-NEXT:  %1 = "qnn.mul"(%a, %b, %sa, %za, %sb, %zb, %sy, %zu) : (tensor<2x3xui8>, tensor<3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>

func.func @binary(%a: tensor<2x3xui8>, %b: tensor<3xui8>, %sa: tensor<f32>, %za: tensor<ui8>, %sb: tensor<f32>, %zb: tensor<ui8>, %sy: tensor<f32>, %zy: tensor<i8>, %zu: tensor<ui8>) -> (tensor<2x3xi8>, tensor<2x3xui8>) {
  %0 = qnn.add %a, %b, %sa, %za, %sb, %zb, %sy, %zy : (tensor<2x3xui8>, tensor<3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<i8>)
  %1 = qnn.mul %a, %b, %sa, %za, %sb, %zb, %sy, %zu : (tensor<2x3xui8>, tensor<3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>)
  func.return %0, %1 : tensor<2x3xi8>, tensor<2x3xui8>
}

// softmax: u8 or i8 codes, per-tensor scales and zero points, the output in
// its zero point's type; the axis defaults to the last.
// CHECK-LABEL: func.func @softmax(
// CHECK-NEXT:    %0 = qnn.softmax %x, %s, %z, %ys, %yz : (tensor<2x3x5xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<i8>) -> tensor<2x3x5xi8>
// CHECK-NEXT:    %1 = qnn.softmax %x, %s, %z, %ys, %z {axis = 1 : i64} : (tensor<2x3x5xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3x5xui8>
// CHECK-NEXT:    %2 = qnn.softmax %xi, %s1, %zi, %ys, %zi {axis = 0 : i64} : (tensor<4xi8>, tensor<1xf32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
// GENERIC-LABEL: "func.func"() <{sym_name = "softmax"
// GENERIC:       %0 = "qnn.softmax"(%x, %s, %z, %ys, %yz) : (tensor<2x3x5xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<i8>) -> tensor<2x3x5xi8>
// GENERIC-NEXT:  %1 = "qnn.softmax"(%x, %s, %z, %ys, %z) <{axis = 1 : i64}> : (tensor<2x3x5xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3x5xui8>
func.func @softmax(%x: tensor<2x3x5xui8>, %s: tensor<f32>, %z: tensor<ui8>, %ys: tensor<f32>, %yz: tensor<i8>, %xi: tensor<4xi8>, %s1: tensor<1xf32>, %zi: tensor<i8>) -> (tensor<2x3x5xi8>, tensor<2x3x5xui8>, tensor<4xi8>) {
  %0 = qnn.softmax %x, %s, %z, %ys, %yz : (tensor<2x3x5xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<i8>)
  %1 = qnn.softmax %x, %s, %z, %ys, %z {axis = 1 : i64} : (tensor<2x3x5xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>)
  %2 = qnn.softmax %xi, %s1, %zi, %ys, %zi {axis = 0 : i64} : (tensor<4xi8>, tensor<1xf32>, tensor<i8>, tensor<f32>, tensor<i8>)
  func.return %0, %1, %2 : tensor<2x3x5xi8>, tensor<2x3x5xui8>, tensor<4xi8>
}
