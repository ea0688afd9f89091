// qnn-canonicalize: every qnn op becomes relay integer and float ops.
// quantize: divide, round (half to even), add the zero point, clip to the
// type's range, cast; dequantize: cast both to the scale's type, subtract,
// multiply; requantize: the same as quantize, the product in f32; matmul: i32 operands less
// their zero points, relay.matmul; conv2d: the same, then im2col + reshape +
// matmul (groups as the matmul's batch); add: onnxruntime's QLinearAdd
// arithmetic; mul: dequantize both, multiply, quantize; softmax: onnxruntime's
// QLinearSoftmax arithmetic.
// RUN: lamina-opt %s --split-input-file -p qnn-canonicalize | filecheck %s
// RUN: lamina-opt %s --split-input-file -p qnn-canonicalize --opt-level 0 | filecheck %s
// RUN: lamina-opt %s --split-input-file -p qnn-canonicalize --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: lamina-opt %s --split-input-file -p qnn-canonicalize,fold-constant | filecheck %s --check-prefix=FOLD

// One counter per op kind rewritten (add/mul count their inner quantize and
// dequantize too).
// STATS: qnn-canonicalize
// STATS-DAG: qnn-canonicalize.quantize - reported by the pass
// STATS-DAG: qnn-canonicalize.dequantize - reported by the pass
// STATS-DAG: qnn-canonicalize.requantize - reported by the pass
// STATS-DAG: qnn-canonicalize.matmul - reported by the pass
// STATS-DAG: qnn-canonicalize.conv2d - reported by the pass
// STATS-DAG: qnn-canonicalize.add - reported by the pass
// STATS-DAG: qnn-canonicalize.mul - reported by the pass

// CHECK-LABEL: func.func @quantize(
// CHECK-NEXT:    %0 = relay.divide %x, %s : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %1 = relay.round %0 : tensor<2x4xf32>
// CHECK-NEXT:    %2 = relay.cast %z {dtype = f32} : (tensor<ui8>) -> tensor<f32>
// CHECK-NEXT:    %3 = relay.add %1, %2 : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %4 = relay.clip %3 {a_min = 0.000000e+00 : f64, a_max = 2.550000e+02 : f64} : tensor<2x4xf32>
// CHECK-NEXT:    %5 = relay.cast %4 {dtype = ui8} : (tensor<2x4xf32>) -> tensor<2x4xui8>
// CHECK-NEXT:    func.return %5 : tensor<2x4xui8>
// CHECK-NOT:     qnn.
// FOLD-LABEL:  func.func @quantize(
// FOLD:          relay.divide %x, %s
func.func @quantize(%x: tensor<2x4xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<2x4xui8> {
  %0 = qnn.quantize %x, %s, %z : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>)
  func.return %0 : tensor<2x4xui8>
}

// -----

// Per channel, to s8: the scale and zero point broadcast along axis 0; the
// clip is s8's range.
// CHECK-LABEL: func.func @quantize_per_channel(
// CHECK-NEXT:    %0 = relay.divide %x, %s : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %1 = relay.round %0 : tensor<2x4xf32>
// CHECK-NEXT:    %2 = relay.cast %z {dtype = f32} : (tensor<2x1xi8>) -> tensor<2x1xf32>
// CHECK-NEXT:    %3 = relay.add %1, %2 : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %4 = relay.clip %3 {a_min = -1.280000e+02 : f64, a_max = 1.270000e+02 : f64} : tensor<2x4xf32>
// CHECK-NEXT:    %5 = relay.cast %4 {dtype = i8} : (tensor<2x4xf32>) -> tensor<2x4xi8>
// CHECK-NEXT:    func.return %5 : tensor<2x4xi8>
func.func @quantize_per_channel(%x: tensor<2x4xf32>, %s: tensor<2x1xf32>, %z: tensor<2x1xi8>) -> tensor<2x4xi8> {
  %0 = qnn.quantize %x, %s, %z : (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xi8>)
  func.return %0 : tensor<2x4xi8>
}

// -----

// An f16 scale of f32 data is cast to the data's type; i16's range.
// CHECK-LABEL: func.func @quantize_i16(
// CHECK-NEXT:    %0 = relay.cast %s {dtype = f32} : (tensor<f16>) -> tensor<f32>
// CHECK-NEXT:    %1 = relay.divide %x, %0 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    %2 = relay.round %1 : tensor<3xf32>
// CHECK-NEXT:    %3 = relay.cast %z {dtype = f32} : (tensor<i16>) -> tensor<f32>
// CHECK-NEXT:    %4 = relay.add %2, %3 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    %5 = relay.clip %4 {a_min = -3.276800e+04 : f64, a_max = 3.276700e+04 : f64} : tensor<3xf32>
// CHECK-NEXT:    %6 = relay.cast %5 {dtype = i16} : (tensor<3xf32>) -> tensor<3xi16>
// CHECK-NEXT:    func.return %6 : tensor<3xi16>
func.func @quantize_i16(%x: tensor<3xf32>, %s: tensor<f16>, %z: tensor<i16>) -> tensor<3xi16> {
  %0 = qnn.quantize %x, %s, %z : (tensor<3xf32>, tensor<f16>, tensor<i16>)
  func.return %0 : tensor<3xi16>
}

// -----

// CHECK-LABEL: func.func @dequantize(
// CHECK-NEXT:    %0 = relay.cast %q {dtype = f32} : (tensor<2x4xi8>) -> tensor<2x4xf32>
// CHECK-NEXT:    %1 = relay.cast %z {dtype = f32} : (tensor<i8>) -> tensor<f32>
// CHECK-NEXT:    %2 = relay.subtract %0, %1 : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %3 = relay.multiply %2, %s : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %3 : tensor<2x4xf32>
func.func @dequantize(%q: tensor<2x4xi8>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<2x4xf32> {
  %0 = qnn.dequantize %q, %s, %z : (tensor<2x4xi8>, tensor<f32>, tensor<i8>)
  func.return %0 : tensor<2x4xf32>
}

// -----

// The product is computed in f32 (as onnxruntime): the accumulator cast, round,
// the zero point added, clipped to u8's range.
// CHECK-LABEL: func.func @requantize(
// CHECK-NEXT:    %0 = relay.cast %acc {dtype = f32} : (tensor<3x5xi32>) -> tensor<3x5xf32>
// CHECK-NEXT:    %1 = relay.multiply %0, %m : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    %2 = relay.round %1 : tensor<3x5xf32>
// CHECK-NEXT:    %3 = relay.cast %z {dtype = f32} : (tensor<ui8>) -> tensor<f32>
// CHECK-NEXT:    %4 = relay.add %2, %3 : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
// CHECK-NEXT:    %5 = relay.clip %4 {a_min = 0.000000e+00 : f64, a_max = 2.550000e+02 : f64} : tensor<3x5xf32>
// CHECK-NEXT:    %6 = relay.cast %5 {dtype = ui8} : (tensor<3x5xf32>) -> tensor<3x5xui8>
// CHECK-NEXT:    func.return %6 : tensor<3x5xui8>
func.func @requantize(%acc: tensor<3x5xi32>, %m: tensor<5xf32>, %z: tensor<ui8>) -> tensor<3x5xui8> {
  %0 = qnn.requantize %acc, %m, %z : (tensor<3x5xi32>, tensor<5xf32>, tensor<ui8>)
  func.return %0 : tensor<3x5xui8>
}

// -----

// A clamp range (a folded relu): the clip's bounds are it.
// CHECK-LABEL: func.func @requantize_clamped(
// CHECK:         relay.clip %{{.*}} {a_min = 5.000000e+00 : f64, a_max = 2.000000e+02 : f64} : tensor<3x5xf32>
// CHECK-NEXT:    relay.cast %{{.*}} {dtype = ui8} : (tensor<3x5xf32>) -> tensor<3x5xui8>
func.func @requantize_clamped(%acc: tensor<3x5xi32>, %m: tensor<f32>, %z: tensor<ui8>) -> tensor<3x5xui8> {
  %0 = qnn.requantize %acc, %m, %z {out_min = 5 : i64, out_max = 200 : i64} : (tensor<3x5xi32>, tensor<f32>, tensor<ui8>)
  func.return %0 : tensor<3x5xui8>
}

// -----

// CHECK-LABEL: func.func @matmul(
// CHECK-NEXT:    %0 = relay.cast %a {dtype = i32} : (tensor<2x3x4xui8>) -> tensor<2x3x4xi32>
// CHECK-NEXT:    %1 = relay.cast %za {dtype = i32} : (tensor<3x1xui8>) -> tensor<3x1xi32>
// CHECK-NEXT:    %2 = relay.subtract %0, %1 : (tensor<2x3x4xi32>, tensor<3x1xi32>) -> tensor<2x3x4xi32>
// CHECK-NEXT:    %3 = relay.cast %b {dtype = i32} : (tensor<4x5xi8>) -> tensor<4x5xi32>
// CHECK-NEXT:    %4 = relay.cast %zb {dtype = i32} : (tensor<5xi8>) -> tensor<5xi32>
// CHECK-NEXT:    %5 = relay.subtract %3, %4 : (tensor<4x5xi32>, tensor<5xi32>) -> tensor<4x5xi32>
// CHECK-NEXT:    %6 = relay.matmul %2, %5 : (tensor<2x3x4xi32>, tensor<4x5xi32>) -> tensor<2x3x5xi32>
// CHECK-NEXT:    func.return %6 : tensor<2x3x5xi32>
func.func @matmul(%a: tensor<2x3x4xui8>, %b: tensor<4x5xi8>, %za: tensor<3x1xui8>, %zb: tensor<5xi8>) -> tensor<2x3x5xi32> {
  %0 = qnn.matmul %a, %b, %za, %zb : (tensor<2x3x4xui8>, tensor<4x5xi8>, tensor<3x1xui8>, tensor<5xi8>)
  func.return %0 : tensor<2x3x5xi32>
}

// -----

// One group: im2col of the corrected data (the window attributes carried
// over), the flattened weight times the columns, reshaped to NCHW.
// CHECK-LABEL: func.func @conv2d(
// CHECK-NEXT:    %0 = relay.cast %x {dtype = i32} : (tensor<2x4x6x6xui8>) -> tensor<2x4x6x6xi32>
// CHECK-NEXT:    %1 = relay.cast %zx {dtype = i32} : (tensor<ui8>) -> tensor<i32>
// CHECK-NEXT:    %2 = relay.subtract %0, %1 : (tensor<2x4x6x6xi32>, tensor<i32>) -> tensor<2x4x6x6xi32>
// CHECK-NEXT:    %3 = relay.cast %w {dtype = i32} : (tensor<6x4x3x3xi8>) -> tensor<6x4x3x3xi32>
// CHECK-NEXT:    %4 = relay.cast %zw {dtype = i32} : (tensor<6x1x1x1xi8>) -> tensor<6x1x1x1xi32>
// CHECK-NEXT:    %5 = relay.subtract %3, %4 : (tensor<6x4x3x3xi32>, tensor<6x1x1x1xi32>) -> tensor<6x4x3x3xi32>
// CHECK-NEXT:    %6 = relay.im2col %2 {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x4x6x6xi32>) -> tensor<2x36x3x3xi32>
// CHECK-NEXT:    %7 = relay.reshape %6 {shape = array<i64: 2, 36, 9>} : (tensor<2x36x3x3xi32>) -> tensor<2x36x9xi32>
// CHECK-NEXT:    %8 = relay.reshape %5 {shape = array<i64: 6, 36>} : (tensor<6x4x3x3xi32>) -> tensor<6x36xi32>
// CHECK-NEXT:    %9 = relay.matmul %8, %7 : (tensor<6x36xi32>, tensor<2x36x9xi32>) -> tensor<2x6x9xi32>
// CHECK-NEXT:    %10 = relay.reshape %9 {shape = array<i64: 2, 6, 3, 3>} : (tensor<2x6x9xi32>) -> tensor<2x6x3x3xi32>
// CHECK-NEXT:    func.return %10 : tensor<2x6x3x3xi32>
func.func @conv2d(%x: tensor<2x4x6x6xui8>, %w: tensor<6x4x3x3xi8>, %zx: tensor<ui8>, %zw: tensor<6x1x1x1xi8>) -> tensor<2x6x3x3xi32> {
  %0 = qnn.conv2d %x, %w, %zx, %zw {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x4x6x6xui8>, tensor<6x4x3x3xi8>, tensor<ui8>, tensor<6x1x1x1xi8>)
  func.return %0 : tensor<2x6x3x3xi32>
}

// -----

// Two groups: one im2col over all channels, its rows and the weight's output
// channels split into the groups, one matmul with the groups as its batch
// (the same few ops for a depthwise convolution's hundreds of groups).
// CHECK-LABEL: func.func @conv2d_groups(
// CHECK:         %[[X:.*]] = relay.subtract %{{.*}} -> tensor<1x4x5x5xi32>
// CHECK:         %[[W:.*]] = relay.subtract %{{.*}} -> tensor<6x2x3x3xi32>
// CHECK-NEXT:    %[[C:.*]] = relay.im2col %[[X]] {kernel_size = array<i64: 3, 3>} : (tensor<1x4x5x5xi32>) -> tensor<1x36x3x3xi32>
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %[[C]] {shape = array<i64: 1, 2, 18, 9>} : (tensor<1x36x3x3xi32>) -> tensor<1x2x18x9xi32>
// CHECK-NEXT:    %[[F:.*]] = relay.reshape %[[W]] {shape = array<i64: 2, 3, 18>} : (tensor<6x2x3x3xi32>) -> tensor<2x3x18xi32>
// CHECK-NEXT:    %[[M:.*]] = relay.matmul %[[F]], %[[R]] : (tensor<2x3x18xi32>, tensor<1x2x18x9xi32>) -> tensor<1x2x3x9xi32>
// CHECK-NEXT:    %[[Y:.*]] = relay.reshape %[[M]] {shape = array<i64: 1, 6, 3, 3>} : (tensor<1x2x3x9xi32>) -> tensor<1x6x3x3xi32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x6x3x3xi32>
func.func @conv2d_groups(%x: tensor<1x4x5x5xi8>, %w: tensor<6x2x3x3xi8>, %zx: tensor<i8>, %zw: tensor<i8>) -> tensor<1x6x3x3xi32> {
  %0 = qnn.conv2d %x, %w, %zx, %zw {groups = 2 : i64} : (tensor<1x4x5x5xi8>, tensor<6x2x3x3xi8>, tensor<i8>, tensor<i8>)
  func.return %0 : tensor<1x6x3x3xi32>
}

// -----

// A constant weight: fold-constant folds its zero-point correction (and its
// reshape) into one i32 constant, computed at compile time.
// FOLD-LABEL:  func.func @conv2d_constant_weight(
// FOLD-NOT:      relay.cast %w
// FOLD:          %[[W:.*]] = relay.constant dense<{{\[\[}}0, 1, 2, 3], [-2, -3, -4, -5]]> : tensor<2x4xi32>
// FOLD-NEXT:     relay.matmul %[[W]], %{{.*}} : (tensor<2x4xi32>, tensor<1x4x4xi32>) -> tensor<1x2x4xi32>
// FOLD-NOT:      qnn.
// FOLD:          func.return
func.func @conv2d_constant_weight(%x: tensor<1x1x3x3xui8>, %zx: tensor<ui8>) -> tensor<1x2x2x2xi32> {
  %w = relay.constant dense<[[[[1, 2], [3, 4]]], [[[-1, -2], [-3, -4]]]]> : tensor<2x1x2x2xi8>
  %zw = relay.constant dense<1> : tensor<i8>
  %0 = qnn.conv2d %x, %w, %zx, %zw : (tensor<1x1x3x3xui8>, tensor<2x1x2x2xi8>, tensor<ui8>, tensor<i8>)
  func.return %0 : tensor<1x2x2x2xi32>
}

// -----

// add: onnxruntime's QLinearAdd, round(a * ra + (b * rb + k)) with the
// scales' ratios ra, rb and the offset k = zy - (ra * za + rb * zb), each
// product next to the sum it contracts into; an i8 output of u8 operands.
// CHECK-LABEL: func.func @add(
// CHECK-NEXT:    %0 = relay.divide %sa, %sy : tensor<f32>
// CHECK-NEXT:    %1 = relay.divide %sb, %sy : tensor<f32>
// CHECK-NEXT:    %2 = relay.cast %za {dtype = f32} : (tensor<ui8>) -> tensor<f32>
// CHECK-NEXT:    %3 = relay.cast %zb {dtype = f32} : (tensor<ui8>) -> tensor<f32>
// CHECK-NEXT:    %4 = relay.multiply %0, %2 : tensor<f32>
// CHECK-NEXT:    %5 = relay.multiply %1, %3 : tensor<f32>
// CHECK-NEXT:    %6 = relay.add %4, %5 : tensor<f32>
// CHECK-NEXT:    %7 = relay.cast %zy {dtype = f32} : (tensor<i8>) -> tensor<f32>
// CHECK-NEXT:    %8 = relay.subtract %7, %6 : tensor<f32>
// CHECK-NEXT:    %9 = relay.cast %b {dtype = f32} : (tensor<3xui8>) -> tensor<3xf32>
// CHECK-NEXT:    %10 = relay.multiply %9, %1 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    %11 = relay.add %10, %8 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    %12 = relay.cast %a {dtype = f32} : (tensor<2x3xui8>) -> tensor<2x3xf32>
// CHECK-NEXT:    %13 = relay.multiply %12, %0 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %14 = relay.add %13, %11 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %15 = relay.round %14 : tensor<2x3xf32>
// CHECK-NEXT:    %16 = relay.clip %15 {a_min = -1.280000e+02 : f64, a_max = 1.270000e+02 : f64} : tensor<2x3xf32>
// CHECK-NEXT:    %17 = relay.cast %16 {dtype = i8} : (tensor<2x3xf32>) -> tensor<2x3xi8>
// CHECK-NEXT:    func.return %17 : tensor<2x3xi8>
func.func @add(%a: tensor<2x3xui8>, %b: tensor<3xui8>, %sa: tensor<f32>, %za: tensor<ui8>, %sb: tensor<f32>, %zb: tensor<ui8>, %sy: tensor<f32>, %zy: tensor<i8>) -> tensor<2x3xi8> {
  %0 = qnn.add %a, %b, %sa, %za, %sb, %zb, %sy, %zy : (tensor<2x3xui8>, tensor<3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<i8>)
  func.return %0 : tensor<2x3xi8>
}

// -----

// CHECK-LABEL: func.func @mul(
// CHECK-COUNT-2: relay.subtract
// CHECK:         %[[P:.*]] = relay.multiply %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK-NEXT:    relay.divide %[[P]], %sy
// CHECK-NEXT:    relay.round
// CHECK:         relay.clip %{{.*}} {a_min = 0.000000e+00 : f64, a_max = 2.550000e+02 : f64}
// CHECK-NEXT:    relay.cast %{{.*}} {dtype = ui8} : (tensor<4xf32>) -> tensor<4xui8>
// CHECK-NOT:     qnn.
func.func @mul(%a: tensor<4xui8>, %b: tensor<4xui8>, %sa: tensor<f32>, %za: tensor<ui8>, %sb: tensor<f32>, %zb: tensor<ui8>, %sy: tensor<f32>, %zy: tensor<ui8>) -> tensor<4xui8> {
  %0 = qnn.mul %a, %b, %sa, %za, %sb, %zb, %sy, %zy : (tensor<4xui8>, tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>)
  func.return %0 : tensor<4xui8>
}

// -----

// add with constant scales and zero points: the offset computed at compile
// time, with onnxruntime's fused multiply-add: 3 - fma(0.5 / 0.25, 128, (0.125 / 0.25) * 10) = -258.
// CHECK-LABEL: func.func @add_constant(
// CHECK:         %[[K:.*]] = relay.constant dense<-2.580000e+02> : tensor<f32>
// CHECK-NEXT:    %[[B:.*]] = relay.cast %b {dtype = f32}
// CHECK-NEXT:    %[[BR:.*]] = relay.multiply %[[B]], %{{.*}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[IN:.*]] = relay.add %[[BR]], %[[K]]
// CHECK-NEXT:    %[[A:.*]] = relay.cast %a {dtype = f32}
// CHECK-NEXT:    %[[AR:.*]] = relay.multiply %[[A]], %{{.*}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    relay.add %[[AR]], %[[IN]]
// CHECK-NEXT:    relay.round
// CHECK-NEXT:    relay.clip %{{.*}} {a_min = 0.000000e+00 : f64, a_max = 2.550000e+02 : f64}
func.func @add_constant(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %sa = relay.constant dense<0.5> : tensor<f32>
  %za = relay.constant dense<128> : tensor<ui8>
  %sb = relay.constant dense<0.125> : tensor<f32>
  %zb = relay.constant dense<10> : tensor<ui8>
  %sy = relay.constant dense<0.25> : tensor<f32>
  %zy = relay.constant dense<3> : tensor<ui8>
  %0 = qnn.add %a, %b, %sa, %za, %sb, %zb, %sy, %zy : (tensor<4xui8>, tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>)
  func.return %0 : tensor<4xui8>
}

// -----

// softmax: onnxruntime's QLinearSoftmax. The codes' distance below their
// row's max (in i32, plus 255) indexes a table of exp built in f64 from the
// input scale (folded by fold-constant for a constant one); the sum along the
// axis is ordered (index order, as a sequential loop adds); the output scales
// by floor(1 / y_scale), divides by the sum, rounds, saturates.
// CHECK-LABEL: func.func @softmax(
// CHECK-NEXT:    %0 = relay.cast %x {dtype = i32} : (tensor<2x5xi8>) -> tensor<2x5xi32>
// CHECK-NEXT:    %1 = relay.max %0 {axes = array<i64: 1>, keepdims} : (tensor<2x5xi32>) -> tensor<2x1xi32>
// CHECK-NEXT:    %2 = relay.subtract %0, %1
// CHECK-NEXT:    %3 = relay.constant dense<255> : tensor<i32>
// CHECK-NEXT:    %4 = relay.add %2, %3
// CHECK-NEXT:    %5 = relay.cast %s {dtype = f64} : (tensor<f32>) -> tensor<f64>
// CHECK-NEXT:    %6 = relay.reshape %5 {shape = array<i64>} : tensor<f64>
// CHECK-NEXT:    %7 = relay.constant dense<{{.*}}> : tensor<f64>
// CHECK-NEXT:    %8 = relay.divide %7, %6 : tensor<f64>
// CHECK-NEXT:    %9 = relay.constant dense_resource<{{.*}}> : tensor<256xf64>
// CHECK-NEXT:    %10 = relay.add %9, %8 : (tensor<256xf64>, tensor<f64>) -> tensor<256xf64>
// CHECK-NEXT:    %11 = relay.multiply %10, %6 : (tensor<256xf64>, tensor<f64>) -> tensor<256xf64>
// CHECK-NEXT:    %12 = relay.exp %11 : tensor<256xf64>
// CHECK-NEXT:    %13 = relay.cast %12 {dtype = f32} : (tensor<256xf64>) -> tensor<256xf32>
// CHECK-NEXT:    %14 = relay.take %13, %4 {axis = 0 : i64} : (tensor<256xf32>, tensor<2x5xi32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %15 = relay.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %16 = relay.divide %15, %ys : tensor<f32>
// CHECK-NEXT:    %17 = relay.floor %16 : tensor<f32>
// CHECK-NEXT:    %18 = relay.multiply %14, %17 : (tensor<2x5xf32>, tensor<f32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %19 = relay.sum %14 {axes = array<i64: 1>, keepdims, ordered} : (tensor<2x5xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %20 = relay.divide %18, %19 : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %21 = relay.round %20 : tensor<2x5xf32>
// CHECK-NEXT:    %22 = relay.cast %yz {dtype = f32} : (tensor<i8>) -> tensor<f32>
// CHECK-NEXT:    %23 = relay.add %21, %22
// CHECK-NEXT:    %24 = relay.clip %23 {a_min = -1.280000e+02 : f64, a_max = 1.270000e+02 : f64} : tensor<2x5xf32>
// CHECK-NEXT:    %25 = relay.cast %24 {dtype = i8} : (tensor<2x5xf32>) -> tensor<2x5xi8>
// CHECK-NEXT:    func.return %25 : tensor<2x5xi8>
func.func @softmax(%x: tensor<2x5xi8>, %s: tensor<f32>, %z: tensor<i8>, %ys: tensor<f32>, %yz: tensor<i8>) -> tensor<2x5xi8> {
  %0 = qnn.softmax %x, %s, %z, %ys, %yz : (tensor<2x5xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>)
  func.return %0 : tensor<2x5xi8>
}
