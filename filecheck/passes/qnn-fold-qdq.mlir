// qnn-fold-qdq: dequantize -> op -> quantize chains (QDQ models) become
// integer qnn ops; what has no integer form stays in float, and the pass
// counts what it rewrote and what it left, and why.
// RUN: lamina-opt %s --split-input-file -p qnn-fold-qdq | filecheck %s
// RUN: lamina-opt %s --split-input-file -p qnn-fold-qdq --opt-level 0 | filecheck %s --check-prefix=O0
// RUN: lamina-opt %s --split-input-file -p qnn-fold-qdq --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// STATS: qnn-fold-qdq
// STATS-DAG: 1 qnn-fold-qdq.conv2d - reported by the pass
// STATS-DAG: 1 qnn-fold-qdq.dense - reported by the pass
// STATS-DAG: 1 qnn-fold-qdq.concatenate - reported by the pass
// STATS-DAG: 1 qnn-fold-qdq.max_pool2d - reported by the pass
// STATS-DAG: 1 qnn-fold-qdq.reshape - reported by the pass
// STATS-DAG: 1 qnn-fold-qdq.mean - reported by the pass
// STATS-DAG: 1 qnn-fold-qdq.avg_pool2d - reported by the pass
// STATS-DAG: 1 qnn-fold-qdq.add - reported by the pass
// STATS-DAG: 1 qnn-fold-qdq.matmul-float-out - reported by the pass
// STATS-DAG: 1 qnn-fold-qdq.left.softmax.scale-not-constant - reported by the pass
// STATS-DAG: 1 qnn-fold-qdq.softmax - reported by the pass
// STATS-DAG: 2 qnn-fold-qdq.table - reported by the pass
// STATS-DAG: 1 qnn-fold-qdq.left.multiply.no-integer-form - reported by the pass
// STATS-DAG: 1 qnn-fold-qdq.left.matmul.weight-scale-not-per-output-channel - reported by the pass
// STATS-DAG: 1 qnn-fold-qdq.left.matmul.scale-not-constant - reported by the pass

// A conv with per-channel weight scales, an i32 bias dequantized at
// x_scale * w_scale (onnxruntime's QDQ bias: its integers as they are) and a
// relu: qnn.conv2d, the bias added in i32, requantized by
// x_scale * w_scale / y_scale with the relu as the clamp's lower bound (the
// output's zero point). The weight's dequantize is gone.
// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK:         %q = qnn.quantize %x, %xs, %xz
// CHECK-DAG:     %[[XZ:.*]] = relay.constant dense<128> : tensor<ui8>
// CHECK-DAG:     %[[WZ:.*]] = relay.constant dense<0> : tensor<i8>
// CHECK:         %[[ACC:.*]] = qnn.conv2d %q, %w, %[[XZ]], %[[WZ]] {padding = array<i64: 0, 1, 0, 1>} : (tensor<1x1x4x4xui8>, tensor<3x1x1x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x3x4x4xi32>
// CHECK-NEXT:    %[[B:.*]] = relay.constant dense<{{\[\[\[}}3]], {{\[\[}}-5]], {{\[\[}}7]]]> : tensor<3x1x1xi32>
// CHECK-NEXT:    %[[SUM:.*]] = relay.add %[[ACC]], %[[B]] : (tensor<1x3x4x4xi32>, tensor<3x1x1xi32>) -> tensor<1x3x4x4xi32>
// CHECK-NEXT:    %[[M:.*]] = relay.constant dense<{{\[\[\[}}6.250000e-01]], {{\[\[}}3.125000e-01]], {{\[\[}}1.250000e+00]]]> : tensor<3x1x1xf32>
// CHECK-NEXT:    %[[YZ:.*]] = relay.constant dense<10> : tensor<ui8>
// CHECK-NEXT:    %yq = qnn.requantize %[[SUM]], %[[M]], %[[YZ]] {out_min = 10 : i64} : (tensor<1x3x4x4xi32>, tensor<3x1x1xf32>, tensor<ui8>) -> tensor<1x3x4x4xui8>
// CHECK-NEXT:    %y = qnn.dequantize %yq, %ys, %yz
// CHECK-NEXT:    func.return %y
// CHECK-NOT:     relay.conv2d
// O0-LABEL: func.func @conv_bias_relu(
// O0:         relay.conv2d %xd, %wd
func.func @conv_bias_relu(%x: tensor<1x1x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %xs = relay.constant dense<0.5> : tensor<f32>
  %xz = relay.constant dense<128> : tensor<ui8>
  %w = relay.constant dense<[[[[1, -2, 3]]], [[[4, 5, -6]]], [[[-7, 8, 9]]]]> : tensor<3x1x1x3xi8>
  %ws = relay.constant dense<[[[[0.25]]], [[[0.125]]], [[[0.5]]]]> : tensor<3x1x1x1xf32>
  %wz = relay.constant dense<0> : tensor<i8>
  %bq = relay.constant dense<[3, -5, 7]> : tensor<3xi32>
  %bs = relay.constant dense<[0.125, 0.0625, 0.25]> : tensor<3xf32>
  %bz = relay.constant dense<0> : tensor<i32>
  %ys = relay.constant dense<0.2> : tensor<f32>
  %yz = relay.constant dense<10> : tensor<ui8>
  %q = qnn.quantize %x, %xs, %xz : (tensor<1x1x4x4xf32>, tensor<f32>, tensor<ui8>)
  %xd = qnn.dequantize %q, %xs, %xz : (tensor<1x1x4x4xui8>, tensor<f32>, tensor<ui8>)
  %wd = qnn.dequantize %w, %ws, %wz : (tensor<3x1x1x3xi8>, tensor<3x1x1x1xf32>, tensor<i8>)
  %bd = qnn.dequantize %bq, %bs, %bz : (tensor<3xi32>, tensor<3xf32>, tensor<i32>)
  %c = relay.conv2d %xd, %wd {padding = array<i64: 0, 1, 0, 1>} : (tensor<1x1x4x4xf32>, tensor<3x1x1x3xf32>) -> tensor<1x3x4x4xf32>
  %b = relay.bias_add %c, %bd : (tensor<1x3x4x4xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %r = relay.relu %b : tensor<1x3x4x4xf32>
  %yq = qnn.quantize %r, %ys, %yz : (tensor<1x3x4x4xf32>, tensor<f32>, tensor<ui8>)
  %y = qnn.dequantize %yq, %ys, %yz : (tensor<1x3x4x4xui8>, tensor<f32>, tensor<ui8>)
  func.return %y : tensor<1x3x4x4xf32>
}

// -----

// Gemm (transB) with a weight per output channel (axis 0 of [N, K]) and a
// float bias: the weight transposed for qnn.matmul (fold-constant folds it),
// its zero point per column; the bias rounded (half to even) in units of
// x_scale * w_scale = [0.125, 0.25, 0.0625, 0.5]: [8, -8, 8, 0.6 -> 1]; the
// clip [-1, 6] as the clamp [rint(-1 / 0.25) - 5, rint(6 / 0.25) - 5].
// CHECK-LABEL: func.func @dense_bias_clip(
// CHECK:         %[[WT:.*]] = relay.transpose %w {perm = array<i64: 1, 0>} : (tensor<4x3xi8>) -> tensor<3x4xi8>
// CHECK:         %[[WZ:.*]] = relay.constant dense<0> : tensor<4xi8>
// CHECK-NEXT:    %[[ACC:.*]] = qnn.matmul %x, %[[WT]], %{{.*}}, %[[WZ]] : (tensor<2x3xui8>, tensor<3x4xi8>, tensor<ui8>, tensor<4xi8>) -> tensor<2x4xi32>
// CHECK-NEXT:    %[[B:.*]] = relay.constant dense<[8, -8, 8, 1]> : tensor<4xi32>
// CHECK-NEXT:    %[[SUM:.*]] = relay.add %[[ACC]], %[[B]]
// CHECK-NEXT:    %[[M:.*]] = relay.constant dense<[5.000000e-01, 1.000000e+00, 2.500000e-01, 2.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[YZ:.*]] = relay.constant dense<-5> : tensor<i8>
// CHECK-NEXT:    %y = qnn.requantize %[[SUM]], %[[M]], %[[YZ]] {out_min = -9 : i64, out_max = 19 : i64} : (tensor<2x4xi32>, tensor<4xf32>, tensor<i8>) -> tensor<2x4xi8>
// CHECK-NEXT:    func.return %y
func.func @dense_bias_clip(%x: tensor<2x3xui8>) -> tensor<2x4xi8> {
  %xs = relay.constant dense<0.5> : tensor<f32>
  %xz = relay.constant dense<3> : tensor<ui8>
  %w = relay.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9], [-1, -2, -3]]> : tensor<4x3xi8>
  %ws = relay.constant dense<[[0.25], [0.5], [0.125], [1.0]]> : tensor<4x1xf32>
  %wz = relay.constant dense<0> : tensor<4x1xi8>
  %b = relay.constant dense<[1.0, -2.0, 0.5, 0.3]> : tensor<4xf32>
  %ys = relay.constant dense<0.25> : tensor<f32>
  %yz = relay.constant dense<-5> : tensor<i8>
  %xd = qnn.dequantize %x, %xs, %xz : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>)
  %wd = qnn.dequantize %w, %ws, %wz : (tensor<4x3xi8>, tensor<4x1xf32>, tensor<4x1xi8>)
  %d = relay.dense %xd, %wd, %b {transpose_b} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %c = relay.clip %d {a_min = -1.0 : f64, a_max = 6.0 : f64} : tensor<2x4xf32>
  %y = qnn.quantize %c, %ys, %yz : (tensor<2x4xf32>, tensor<f32>, tensor<i8>)
  func.return %y : tensor<2x4xi8>
}

// -----

// Concatenate: the input at the output's scale as it is, the other
// requantized to it (0.25 / 0.5, zero point 0 -> 128). Max pool and reshape
// run on the integers, the reshape's output requantized to its other scale.
// Mean: an i32 sum of q - 128 by 0.5 / (0.25 * 16). avg_pool2d (padding
// counted): im2col windows summed, by 0.25 / (0.25 * 9).
// CHECK-LABEL: func.func @concat_pool(
// CHECK:         %[[BW:.*]] = relay.cast %b {dtype = i32}
// CHECK-NEXT:    %[[H:.*]] = relay.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[Z:.*]] = relay.constant dense<128> : tensor<ui8>
// CHECK-NEXT:    %[[BR:.*]] = qnn.requantize %[[BW]], %[[H]], %[[Z]] : (tensor<1x2x4x4xi32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xui8>
// CHECK-NEXT:    %cq = relay.concatenate %a, %[[BR]] {axis = 1 : i64} : (tensor<1x2x4x4xui8>, tensor<1x2x4x4xui8>) -> tensor<1x4x4x4xui8>
// CHECK-NEXT:    %mq = relay.max_pool2d %cq {{.*}} : (tensor<1x4x4x4xui8>) -> tensor<1x4x2x2xui8>
// CHECK-NEXT:    %[[AW:.*]] = relay.cast %a {dtype = i32}
// CHECK-NEXT:    %[[AZ:.*]] = relay.constant dense<128> : tensor<i32>
// CHECK-NEXT:    %[[AC:.*]] = relay.subtract %[[AW]], %[[AZ]]
// CHECK-NEXT:    %[[S:.*]] = relay.sum %[[AC]] {axes = array<i64: 2, 3>, keepdims} : (tensor<1x2x4x4xi32>) -> tensor<1x2x1x1xi32>
// CHECK-NEXT:    %[[M:.*]] = relay.constant dense<1.250000e-01> : tensor<f32>
// CHECK-NEXT:    %[[Z0:.*]] = relay.constant dense<0> : tensor<ui8>
// CHECK-NEXT:    %meq = qnn.requantize %[[S]], %[[M]], %[[Z0]]
// CHECK-NEXT:    %[[BW2:.*]] = relay.cast %b {dtype = i32}
// CHECK-NEXT:    %[[COLS:.*]] = relay.im2col %[[BW2]] {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xi32>) -> tensor<1x18x2x2xi32>
// CHECK-NEXT:    %[[WIN:.*]] = relay.reshape %[[COLS]] {shape = array<i64: 1, 2, 9, 2, 2>}
// CHECK-NEXT:    %[[PS:.*]] = relay.sum %[[WIN]] {axes = array<i64: 2>} : (tensor<1x2x9x2x2xi32>) -> tensor<1x2x2x2xi32>
// CHECK-NEXT:    %[[NINTH:.*]] = relay.constant dense<0.111111112> : tensor<f32>
// CHECK-NEXT:    %[[Z1:.*]] = relay.constant dense<0> : tensor<ui8>
// CHECK-NEXT:    %apq = qnn.requantize %[[PS]], %[[NINTH]], %[[Z1]]
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %b {shape = array<i64: 2, 16>} : (tensor<1x2x4x4xui8>) -> tensor<2x16xui8>
// CHECK-NEXT:    %[[RW:.*]] = relay.cast %[[R]] {dtype = i32}
// CHECK-NEXT:    %[[H2:.*]] = relay.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[Z2:.*]] = relay.constant dense<128> : tensor<ui8>
// CHECK-NEXT:    %rq = qnn.requantize %[[RW]], %[[H2]], %[[Z2]] : (tensor<2x16xi32>, tensor<f32>, tensor<ui8>) -> tensor<2x16xui8>
// CHECK-NEXT:    func.return %mq, %meq, %apq, %rq
func.func @concat_pool(%a: tensor<1x2x4x4xui8>, %b: tensor<1x2x4x4xui8>) -> (tensor<1x4x2x2xui8>, tensor<1x2x1x1xui8>, tensor<1x2x2x2xui8>, tensor<2x16xui8>) {
  %s1 = relay.constant dense<0.5> : tensor<f32>
  %s2 = relay.constant dense<0.25> : tensor<f32>
  %z1 = relay.constant dense<128> : tensor<ui8>
  %z2 = relay.constant dense<0> : tensor<ui8>
  %ad = qnn.dequantize %a, %s1, %z1 : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>)
  %bd = qnn.dequantize %b, %s2, %z2 : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>)
  %cat = relay.concatenate %ad, %bd {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %cq = qnn.quantize %cat, %s1, %z1 : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<ui8>)
  %cd = qnn.dequantize %cq, %s1, %z1 : (tensor<1x4x4x4xui8>, tensor<f32>, tensor<ui8>)
  %mp = relay.max_pool2d %cd {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32>
  %mq = qnn.quantize %mp, %s1, %z1 : (tensor<1x4x2x2xf32>, tensor<f32>, tensor<ui8>)
  %m = relay.mean %ad {axes = array<i64: 2, 3>, keepdims} : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32>
  %meq = qnn.quantize %m, %s2, %z2 : (tensor<1x2x1x1xf32>, tensor<f32>, tensor<ui8>)
  %ap = relay.avg_pool2d %bd {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, count_include_pad} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %apq = qnn.quantize %ap, %s2, %z2 : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<ui8>)
  %r = relay.reshape %bd {shape = array<i64: 2, 16>} : (tensor<1x2x4x4xf32>) -> tensor<2x16xf32>
  %rq = qnn.quantize %r, %s1, %z1 : (tensor<2x16xf32>, tensor<f32>, tensor<ui8>)
  func.return %mq, %meq, %apq, %rq : tensor<1x4x2x2xui8>, tensor<1x2x1x1xui8>, tensor<1x2x2x2xui8>, tensor<2x16xui8>
}

// -----

// Left in float: a matmul whose weight scale varies along the contraction
// axis, a softmax and a matmul whose activation scale is not a constant. A matmul whose result is not quantized: the integer product,
// dequantized by x_scale * w_scale (0.5 * 0.25). An add of dequantized
// values with a relu: qnn.add and a clip of the integers at the zero point.
// CHECK-LABEL: func.func @left(
// CHECK:         relay.matmul %xd, %wd
// CHECK:         relay.softmax %xd2
// CHECK:         relay.matmul %xd2, %wd2
// CHECK:         %[[ACC:.*]] = qnn.matmul %x, %w
// CHECK-NEXT:    %[[U:.*]] = relay.constant dense<1.250000e-01> : tensor<4xf32>
// CHECK-NEXT:    %[[Z:.*]] = relay.constant dense<0> : tensor<i32>
// CHECK-NEXT:    %m3 = qnn.dequantize %[[ACC]], %[[U]], %[[Z]] : (tensor<2x4xi32>, tensor<4xf32>, tensor<i32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %e = relay.exp %m3
// CHECK:         %[[ADD:.*]] = qnn.add %x, %x, {{.*}} -> tensor<2x3xi8>
// CHECK-NEXT:    %rq = relay.clip %[[ADD]] {a_min = 0.000000e+00 : f64, a_max = 1.270000e+02 : f64} : tensor<2x3xi8>
func.func @left(%x: tensor<2x3xui8>, %s: tensor<f32>, %w: tensor<3x4xi8>) -> (tensor<2x3xui8>, tensor<2x4xui8>, tensor<2x4xui8>, tensor<2x4xf32>, tensor<2x3xi8>) {
  %xs = relay.constant dense<0.5> : tensor<f32>
  %xz = relay.constant dense<3> : tensor<ui8>
  %ws = relay.constant dense<[[0.25], [0.5], [0.125]]> : tensor<3x1xf32>
  %wc = relay.constant dense<0.25> : tensor<4xf32>
  %wz = relay.constant dense<0> : tensor<i8>
  %xd = qnn.dequantize %x, %xs, %xz : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>)
  %wd = qnn.dequantize %w, %ws, %wz : (tensor<3x4xi8>, tensor<3x1xf32>, tensor<i8>)
  %m = relay.matmul %xd, %wd : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %mq = qnn.quantize %m, %xs, %xz : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>)
  %xd2 = qnn.dequantize %x, %s, %xz : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>)
  %sm = relay.softmax %xd2 {axis = 1 : i64} : tensor<2x3xf32>
  %smq = qnn.quantize %sm, %xs, %xz : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>)
  %wd2 = qnn.dequantize %w, %wc, %wz : (tensor<3x4xi8>, tensor<4xf32>, tensor<i8>)
  %m2 = relay.matmul %xd2, %wd2 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %m2q = qnn.quantize %m2, %xs, %xz : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>)
  %m3 = relay.matmul %xd, %wd2 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %e = relay.exp %m3 : tensor<2x4xf32>
  %yz = relay.constant dense<0> : tensor<i8>
  %sum = relay.add %xd, %xd : tensor<2x3xf32>
  %r = relay.relu %sum : tensor<2x3xf32>
  %rq = qnn.quantize %r, %xs, %yz : (tensor<2x3xf32>, tensor<f32>, tensor<i8>)
  func.return %smq, %mq, %m2q, %e, %rq : tensor<2x3xui8>, tensor<2x4xui8>, tensor<2x4xui8>, tensor<2x4xf32>, tensor<2x3xi8>
}

// -----

// A softmax of u8 codes: qnn.softmax (onnxruntime's QLinearSoftmax), the
// axis made positive. Elementwise float chains of one dequantized u8/s8
// value and scalar constants (a gelu; a scale then a tanh): a table of the
// chain over the 256 codes (the same ops on the codes' real values, then
// quantized) read by relay.take at the codes (an s8 code offset by 128).
// A chain with a non-scalar constant stays float.
// CHECK-LABEL: func.func @softmax_and_tables(
// CHECK:         %[[SM:.*]] = qnn.softmax %x, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
// CHECK:         %[[CODES:.*]] = relay.constant dense_resource<codes> : tensor<256xf32>
// CHECK-NEXT:    %[[G:.*]] = relay.gelu %[[CODES]] : tensor<256xf32>
// CHECK:         %[[T:.*]] = qnn.quantize %[[G]], %{{.*}}, %{{.*}} : (tensor<256xf32>, tensor<f32>, tensor<i8>) -> tensor<256xi8>
// CHECK-NEXT:    %[[I:.*]] = relay.cast %x {dtype = i32} : (tensor<2x3xui8>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[GQ:.*]] = relay.take %[[T]], %[[I]] {axis = 0 : i64} : (tensor<256xi8>, tensor<2x3xi32>) -> tensor<2x3xi8>
// CHECK:         %[[CODES8:.*]] = relay.constant dense_resource<codes{{.*}}> : tensor<256xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.multiply %[[CODES8]], %two : (tensor<256xf32>, tensor<f32>) -> tensor<256xf32>
// CHECK-NEXT:    %[[TH:.*]] = relay.tanh %[[M]] : tensor<256xf32>
// CHECK:         %[[T8:.*]] = qnn.quantize %[[TH]], %{{.*}}, %{{.*}} : (tensor<256xf32>, tensor<f32>, tensor<i8>) -> tensor<256xi8>
// CHECK-NEXT:    %[[I8:.*]] = relay.cast %y {dtype = i32} : (tensor<4xi8>) -> tensor<4xi32>
// CHECK-NEXT:    %[[OFF:.*]] = relay.constant dense<128> : tensor<i32>
// CHECK-NEXT:    %[[IX:.*]] = relay.add %[[I8]], %[[OFF]] : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
// CHECK-NEXT:    %[[TQ:.*]] = relay.take %[[T8]], %[[IX]] {axis = 0 : i64} : (tensor<256xi8>, tensor<4xi32>) -> tensor<4xi8>
// CHECK:         %[[V:.*]] = relay.multiply %yd, %vec
// CHECK-NEXT:    relay.tanh %[[V]]
// CHECK:         func.return %[[SM]], %[[GQ]], %[[TQ]]
func.func @softmax_and_tables(%x: tensor<2x3xui8>, %y: tensor<4xi8>) -> (tensor<2x3xui8>, tensor<2x3xi8>, tensor<4xi8>, tensor<4xi8>) {
  %xs = relay.constant dense<0.5> : tensor<f32>
  %xz = relay.constant dense<3> : tensor<ui8>
  %ps = relay.constant dense<0.00390625> : tensor<f32>
  %pz = relay.constant dense<0> : tensor<ui8>
  %ys = relay.constant dense<0.125> : tensor<f32>
  %yz = relay.constant dense<0> : tensor<i8>
  %two = relay.constant dense<2.0> : tensor<f32>
  %vec = relay.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %xd = qnn.dequantize %x, %xs, %xz : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>)
  %sm = relay.softmax %xd {axis = -1 : i64} : tensor<2x3xf32>
  %smq = qnn.quantize %sm, %ps, %pz : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>)
  %g = relay.gelu %xd : tensor<2x3xf32>
  %gq = qnn.quantize %g, %ys, %yz : (tensor<2x3xf32>, tensor<f32>, tensor<i8>)
  %yd = qnn.dequantize %y, %ys, %yz : (tensor<4xi8>, tensor<f32>, tensor<i8>)
  %m = relay.multiply %yd, %two : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %t = relay.tanh %m : tensor<4xf32>
  %tq = qnn.quantize %t, %ys, %yz : (tensor<4xf32>, tensor<f32>, tensor<i8>)
  %v = relay.multiply %yd, %vec : tensor<4xf32>
  %vt = relay.tanh %v : tensor<4xf32>
  %vq = qnn.quantize %vt, %ys, %yz : (tensor<4xf32>, tensor<f32>, tensor<i8>)
  func.return %smq, %gq, %tq, %vq : tensor<2x3xui8>, tensor<2x3xi8>, tensor<4xi8>, tensor<4xi8>
}
