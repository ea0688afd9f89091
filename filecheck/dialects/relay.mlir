// Round trip of every relay op: custom form, and generic form re-parsed.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @constants() -> (tensor<2x2xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<2x2xi32>, tensor<3x4xf32>)
// CHECK-NEXT:    %w = relay.constant dense_resource<w0> : tensor<2x2xf32>
// CHECK-NEXT:    %v = relay.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %s = relay.constant dense<2.500000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %i = relay.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK-NEXT:    %e = relay.constant dense_resource<big> : tensor<3x4xf32> {lamina.note = "elided"}
// CHECK-NEXT:    func.return %w, %v, %s, %i, %e : tensor<2x2xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<2x2xi32>, tensor<3x4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "constants"
// GENERIC:       %w = "relay.constant"() <{value = dense_resource<w0> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
// GENERIC-NEXT:  %v = "relay.constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>}> : () -> tensor<3xf32>
// GENERIC-NEXT:  %s = "relay.constant"() <{value = dense<2.500000e+00> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
// GENERIC-NEXT:  %i = "relay.constant"() <{value = dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
// GENERIC-NEXT:  %e = "relay.constant"() <{value = dense_resource<big> : tensor<3x4xf32>}> {lamina.note = "elided"} : () -> tensor<3x4xf32>
func.func @constants() -> (tensor<2x2xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<2x2xi32>, tensor<3x4xf32>) {
  %w = relay.constant dense_resource<w0> : tensor<2x2xf32>
  %v = relay.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %s = relay.constant dense<2.5> : tensor<2x3xf32>
  %i = relay.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %e = relay.constant dense_resource<big> : tensor<3x4xf32> {lamina.note = "elided"}
  func.return %w, %v, %s, %i, %e : tensor<2x2xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<2x2xi32>, tensor<3x4xf32>
}

// Binary ops: the short `: type` form when every type agrees, the function form
// otherwise; an omitted `-> result` is inferred (numpy broadcasting).
// CHECK-LABEL: func.func @binary(
// CHECK-NEXT:    %0 = relay.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %1 = relay.subtract %x, %z : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %2 = relay.multiply %z, %y : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %3 = relay.divide %0, %1 : tensor<2x3xf32>
// CHECK-NEXT:    %4 = relay.add %a, %a : tensor<4xi32>
// CHECK-NEXT:    %5 = relay.divide %a, %b {lamina.tag = 1 : i64} : (tensor<4xi32>, tensor<1xi32>) -> tensor<4xi32>
// CHECK-NEXT:    %6 = relay.multiply %x, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %3 : tensor<2x3xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "binary"
// GENERIC:       %0 = "relay.add"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %1 = "relay.subtract"(%x, %z) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %2 = "relay.multiply"(%z, %y) : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %3 = "relay.divide"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %4 = "relay.add"(%a, %a) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// GENERIC-NEXT:  %5 = "relay.divide"(%a, %b) {lamina.tag = 1 : i64} : (tensor<4xi32>, tensor<1xi32>) -> tensor<4xi32>
// GENERIC-NEXT:  %6 = "relay.multiply"(%x, %s) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
func.func @binary(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %z: tensor<2x1xf32>, %a: tensor<4xi32>, %b: tensor<1xi32>, %s: tensor<f32>) -> tensor<2x3xf32> {
  %0 = relay.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = relay.subtract %x, %z : (tensor<2x3xf32>, tensor<2x1xf32>)
  %2 = relay.multiply %z, %y : (tensor<2x1xf32>, tensor<3xf32>)
  %3 = relay.divide %0, %1 : tensor<2x3xf32>
  %4 = relay.add %a, %a : tensor<4xi32>
  %5 = relay.divide %a, %b {lamina.tag = 1 : i64} : (tensor<4xi32>, tensor<1xi32>)
  %6 = relay.multiply %x, %s : (tensor<2x3xf32>, tensor<f32>)
  func.return %3 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @relu(
// CHECK-NEXT:    %0 = relay.relu %x : tensor<2x3xf32>
// CHECK-NEXT:    %1 = relay.relu %a : tensor<4xi32>
// GENERIC-LABEL: "func.func"() <{sym_name = "relu"
// GENERIC:       %0 = "relay.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %1 = "relay.relu"(%a) : (tensor<4xi32>) -> tensor<4xi32>
func.func @relu(%x: tensor<2x3xf32>, %a: tensor<4xi32>) -> tensor<2x3xf32> {
  %0 = relay.relu %x : tensor<2x3xf32>
  %1 = relay.relu %a : tensor<4xi32>
  func.return %0 : tensor<2x3xf32>
}

// matmul: 2-D, batched with broadcast batch dims, and 1-D operands on either side.
// CHECK-LABEL: func.func @matmul(
// CHECK-NEXT:    %0 = relay.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %1 = relay.matmul %c, %d : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
// CHECK-NEXT:    %2 = relay.matmul %v, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %3 = relay.matmul %a, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %4 = relay.matmul %v, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
// CHECK-NEXT:    %5 = relay.matmul %s, %s : tensor<3x3xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "matmul"
// GENERIC:       %0 = "relay.matmul"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// GENERIC-NEXT:  %1 = "relay.matmul"(%c, %d) : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
// GENERIC-NEXT:  %2 = "relay.matmul"(%v, %b) : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
// GENERIC-NEXT:  %3 = "relay.matmul"(%a, %v) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
// GENERIC-NEXT:  %4 = "relay.matmul"(%v, %v) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
// GENERIC-NEXT:  %5 = "relay.matmul"(%s, %s) : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x1x3x4xf32>, %d: tensor<5x4x6xf32>, %v: tensor<3xf32>, %s: tensor<3x3xf32>) {
  %0 = relay.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = relay.matmul %c, %d : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>)
  %2 = relay.matmul %v, %b : (tensor<3xf32>, tensor<3x4xf32>)
  %3 = relay.matmul %a, %v : (tensor<2x3xf32>, tensor<3xf32>)
  %4 = relay.matmul %v, %v : (tensor<3xf32>, tensor<3xf32>)
  %5 = relay.matmul %s, %s : tensor<3x3xf32>
  func.return
}

// dense (ONNX Gemm): plain, transposes, bias (full and broadcast), alpha/beta.
// CHECK-LABEL: func.func @dense(
// CHECK-NEXT:    %0 = relay.dense %x, %k : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %1 = relay.dense %x, %w {transpose_b} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %2 = relay.dense %xt, %k {transpose_a} : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %3 = relay.dense %xt, %w {transpose_a, transpose_b} : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %4 = relay.dense %x, %w, %b {transpose_b} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %5 = relay.dense %x, %k, %c {alpha = 2.000000e+00 : f64, beta = 5.000000e-01 : f64} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %6 = relay.dense %x, %k, %b {beta = 0.000000e+00 : f64} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "dense"
// GENERIC:       %0 = "relay.dense"(%x, %k) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// GENERIC-NEXT:  %1 = "relay.dense"(%x, %w) <{transpose_b}> : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
// GENERIC-NEXT:  %2 = "relay.dense"(%xt, %k) <{transpose_a}> : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// GENERIC-NEXT:  %3 = "relay.dense"(%xt, %w) <{transpose_a, transpose_b}> : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
// GENERIC-NEXT:  %4 = "relay.dense"(%x, %w, %b) <{transpose_b}> : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// GENERIC-NEXT:  %5 = "relay.dense"(%x, %k, %c) <{alpha = 2.000000e+00 : f64, beta = 5.000000e-01 : f64}> : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC-NEXT:  %6 = "relay.dense"(%x, %k, %b) <{beta = 0.000000e+00 : f64}> : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
func.func @dense(%x: tensor<2x3xf32>, %xt: tensor<3x2xf32>, %k: tensor<3x4xf32>, %w: tensor<4x3xf32>, %b: tensor<4xf32>, %c: tensor<2x4xf32>) {
  %0 = relay.dense %x, %k : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = relay.dense %x, %w {transpose_b} : (tensor<2x3xf32>, tensor<4x3xf32>)
  %2 = relay.dense %xt, %k {transpose_a} : (tensor<3x2xf32>, tensor<3x4xf32>)
  %3 = relay.dense %xt, %w {transpose_a, transpose_b} : (tensor<3x2xf32>, tensor<4x3xf32>)
  %4 = relay.dense %x, %w, %b {transpose_b} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>)
  %5 = relay.dense %x, %k, %c {alpha = 2.0 : f64, beta = 0.5 : f64} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x4xf32>)
  %6 = relay.dense %x, %k, %b {beta = 0.0 : f64} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>)
  func.return
}

// CHECK-LABEL: func.func @nn_and_layout(
// CHECK-NEXT:    %0 = relay.softmax %x {axis = -1 : i64} : tensor<2x3x4xf32>
// CHECK-NEXT:    %1 = relay.softmax %x {axis = 0 : i64} : tensor<2x3x4xf32>
// CHECK-NEXT:    %safe = relay.softmax %x {axis = 2 : i64, safe} : tensor<2x3x4xf32>
// CHECK-NEXT:    %2 = relay.reshape %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT:    %3 = relay.reshape %x {shape = array<i64: 24>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK-NEXT:    %4 = relay.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    %5 = relay.transpose %x {perm = array<i64: 0, 1, 2>} : tensor<2x3x4xf32>
// CHECK-NEXT:    func.return %4 : tensor<4x2x3xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "nn_and_layout"
// GENERIC:       %0 = "relay.softmax"(%x) <{axis = -1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// GENERIC-NEXT:  %1 = "relay.softmax"(%x) <{axis = 0 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// GENERIC-NEXT:  %safe = "relay.softmax"(%x) <{axis = 2 : i64, safe}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// GENERIC-NEXT:  %2 = "relay.reshape"(%x) <{shape = array<i64: 6, 4>}> : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// GENERIC-NEXT:  %3 = "relay.reshape"(%x) <{shape = array<i64: 24>}> : (tensor<2x3x4xf32>) -> tensor<24xf32>
// GENERIC-NEXT:  %4 = "relay.transpose"(%x) <{perm = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// GENERIC-NEXT:  %5 = "relay.transpose"(%x) <{perm = array<i64: 0, 1, 2>}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
func.func @nn_and_layout(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = relay.softmax %x {axis = -1 : i64} : tensor<2x3x4xf32>
  %1 = relay.softmax %x {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %safe = relay.softmax %x {axis = 2 : i64, safe} : tensor<2x3x4xf32>
  %2 = relay.reshape %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %3 = relay.reshape %x {shape = array<i64: 24>} : (tensor<2x3x4xf32>)
  %4 = relay.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>)
  %5 = relay.transpose %x {perm = array<i64: 0, 1, 2>} : tensor<2x3x4xf32>
  func.return %4 : tensor<4x2x3xf32>
}

// Binary, comparison (i1 results), logical, where and cast ops.
// CHECK-LABEL: func.func @elementwise(
// CHECK-NEXT:    %0 = relay.power %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %1 = relay.maximum %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %2 = relay.minimum %y, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %3 = relay.floor_mod %i, %i : tensor<4xi32>
// CHECK-NEXT:    %4 = relay.trunc_mod %x, %x : tensor<2x3xf32>
// CHECK-NEXT:    %5 = relay.logical_and %b, %c : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT:    %6 = relay.logical_or %b, %b : tensor<2x3xi1>
// CHECK-NEXT:    %7 = relay.logical_xor %c, %b : (tensor<3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT:    %8 = relay.logical_not %b : tensor<2x3xi1>
// CHECK-NEXT:    %9 = relay.equal %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %10 = relay.not_equal %u, %u : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
// CHECK-NEXT:    %11 = relay.less %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %12 = relay.less_equal %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK-NEXT:    %13 = relay.greater %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %14 = relay.greater_equal %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK-NEXT:    %15 = relay.prelu %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %16 = relay.where %c, %x, %y : (tensor<3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %17 = relay.cast %x {dtype = i8} : (tensor<2x3xf32>) -> tensor<2x3xi8>
// CHECK-NEXT:    %18 = relay.cast %b {dtype = f64} : (tensor<2x3xi1>) -> tensor<2x3xf64>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "elementwise"
// GENERIC:       %0 = "relay.power"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %1 = "relay.maximum"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %2 = "relay.minimum"(%y, %x) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %3 = "relay.floor_mod"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// GENERIC-NEXT:  %4 = "relay.trunc_mod"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %5 = "relay.logical_and"(%b, %c) : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
// GENERIC-NEXT:  %6 = "relay.logical_or"(%b, %b) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// GENERIC-NEXT:  %7 = "relay.logical_xor"(%c, %b) : (tensor<3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// GENERIC-NEXT:  %8 = "relay.logical_not"(%b) : (tensor<2x3xi1>) -> tensor<2x3xi1>
// GENERIC-NEXT:  %9 = "relay.equal"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// GENERIC-NEXT:  %10 = "relay.not_equal"(%u, %u) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
// GENERIC-NEXT:  %11 = "relay.less"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// GENERIC-NEXT:  %12 = "relay.less_equal"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// GENERIC-NEXT:  %13 = "relay.greater"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// GENERIC-NEXT:  %14 = "relay.greater_equal"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// GENERIC-NEXT:  %15 = "relay.prelu"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %16 = "relay.where"(%c, %x, %y) : (tensor<3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %17 = "relay.cast"(%x) <{dtype = i8}> : (tensor<2x3xf32>) -> tensor<2x3xi8>
// GENERIC-NEXT:  %18 = "relay.cast"(%b) <{dtype = f64}> : (tensor<2x3xi1>) -> tensor<2x3xf64>
func.func @elementwise(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %i: tensor<4xi32>, %u: tensor<4xui8>, %b: tensor<2x3xi1>, %c: tensor<3xi1>) {
  %0 = relay.power %x, %y : (tensor<2x3xf32>, tensor<3xf32>)
  %1 = relay.maximum %x, %y : (tensor<2x3xf32>, tensor<3xf32>)
  %2 = relay.minimum %y, %x : (tensor<3xf32>, tensor<2x3xf32>)
  %3 = relay.floor_mod %i, %i : tensor<4xi32>
  %4 = relay.trunc_mod %x, %x : tensor<2x3xf32>
  %5 = relay.logical_and %b, %c : (tensor<2x3xi1>, tensor<3xi1>)
  %6 = relay.logical_or %b, %b : tensor<2x3xi1>
  %7 = relay.logical_xor %c, %b : (tensor<3xi1>, tensor<2x3xi1>)
  %8 = relay.logical_not %b : tensor<2x3xi1>
  %9 = relay.equal %x, %y : (tensor<2x3xf32>, tensor<3xf32>)
  %10 = relay.not_equal %u, %u : (tensor<4xui8>, tensor<4xui8>)
  %11 = relay.less %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>)
  %12 = relay.less_equal %i, %i : (tensor<4xi32>, tensor<4xi32>)
  %13 = relay.greater %x, %y : (tensor<2x3xf32>, tensor<3xf32>)
  %14 = relay.greater_equal %i, %i : (tensor<4xi32>, tensor<4xi32>)
  %15 = relay.prelu %x, %y : (tensor<2x3xf32>, tensor<3xf32>)
  %16 = relay.where %c, %x, %y : (tensor<3xi1>, tensor<2x3xf32>, tensor<3xf32>)
  %17 = relay.cast %x {dtype = i8} : (tensor<2x3xf32>)
  %18 = relay.cast %b {dtype = f64} : (tensor<2x3xi1>)
  func.return
}

// Unary math and activations; attributes keep their f64 values.
// CHECK-LABEL: func.func @unary(
// CHECK-NEXT:    %0 = relay.negative %i : tensor<4xi64>
// CHECK-NEXT:    %1 = relay.abs %x : tensor<2x3xf32>
// CHECK-NEXT:    %2 = relay.sign %i : tensor<4xi64>
// CHECK-NEXT:    %3 = relay.exp %x : tensor<2x3xf32>
// CHECK-NEXT:    %4 = relay.log %x : tensor<2x3xf32>
// CHECK-NEXT:    %5 = relay.sqrt %x : tensor<2x3xf32>
// CHECK-NEXT:    %6 = relay.rsqrt %x : tensor<2x3xf32>
// CHECK-NEXT:    %7 = relay.reciprocal %x : tensor<2x3xf32>
// CHECK-NEXT:    %8 = relay.floor %x : tensor<2x3xf32>
// CHECK-NEXT:    %9 = relay.ceil %x : tensor<2x3xf32>
// CHECK-NEXT:    %10 = relay.round %x : tensor<2x3xf32>
// CHECK-NEXT:    %11 = relay.sin %x : tensor<2x3xf32>
// CHECK-NEXT:    %12 = relay.cos %x : tensor<2x3xf32>
// CHECK-NEXT:    %13 = relay.tan %x : tensor<2x3xf32>
// CHECK-NEXT:    %14 = relay.tanh %x : tensor<2x3xf32>
// CHECK-NEXT:    %15 = relay.erf %x : tensor<2x3xf32>
// CHECK-NEXT:    %16 = relay.sigmoid %x : tensor<2x3xf32>
// CHECK-NEXT:    %17 = relay.softplus %x : tensor<2x3xf32>
// CHECK-NEXT:    %18 = relay.softsign %x : tensor<2x3xf32>
// CHECK-NEXT:    %19 = relay.hard_swish %x : tensor<2x3xf32>
// CHECK-NEXT:    %20 = relay.leaky_relu %x {alpha = 1.000000e-01 : f64} : tensor<2x3xf32>
// CHECK-NEXT:    %21 = relay.elu %x : tensor<2x3xf32>
// CHECK-NEXT:    %22 = relay.selu %x {alpha = 1.500000e+00 : f64, gamma = 2.000000e+00 : f64} : tensor<2x3xf32>
// CHECK-NEXT:    %23 = relay.hard_sigmoid %x {alpha = 2.000000e-01 : f64, beta = 5.000000e-01 : f64} : tensor<2x3xf32>
// CHECK-NEXT:    %24 = relay.gelu %x {approximate = "tanh"} : tensor<2x3xf32>
// CHECK-NEXT:    %25 = relay.clip %x {a_min = 0.000000e+00 : f64, a_max = 6.000000e+00 : f64} : tensor<2x3xf32>
// CHECK-NEXT:    %26 = relay.clip %i {a_max = 3.000000e+00 : f64} : tensor<4xi64>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "unary"
// GENERIC:       %0 = "relay.negative"(%i) : (tensor<4xi64>) -> tensor<4xi64>
// GENERIC-NEXT:  %1 = "relay.abs"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %2 = "relay.sign"(%i) : (tensor<4xi64>) -> tensor<4xi64>
// GENERIC-NEXT:  %3 = "relay.exp"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %4 = "relay.log"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %5 = "relay.sqrt"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %6 = "relay.rsqrt"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %7 = "relay.reciprocal"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %8 = "relay.floor"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %9 = "relay.ceil"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %10 = "relay.round"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %11 = "relay.sin"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %12 = "relay.cos"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %13 = "relay.tan"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %14 = "relay.tanh"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %15 = "relay.erf"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %16 = "relay.sigmoid"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %17 = "relay.softplus"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %18 = "relay.softsign"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %19 = "relay.hard_swish"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %20 = "relay.leaky_relu"(%x) <{alpha = 1.000000e-01 : f64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %21 = "relay.elu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %22 = "relay.selu"(%x) <{alpha = 1.500000e+00 : f64, gamma = 2.000000e+00 : f64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %23 = "relay.hard_sigmoid"(%x) <{alpha = 2.000000e-01 : f64, beta = 5.000000e-01 : f64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %24 = "relay.gelu"(%x) <{approximate = "tanh"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %25 = "relay.clip"(%x) <{a_min = 0.000000e+00 : f64, a_max = 6.000000e+00 : f64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %26 = "relay.clip"(%i) <{a_max = 3.000000e+00 : f64}> : (tensor<4xi64>) -> tensor<4xi64>
func.func @unary(%x: tensor<2x3xf32>, %i: tensor<4xi64>) {
  %0 = relay.negative %i : tensor<4xi64>
  %1 = relay.abs %x : tensor<2x3xf32>
  %2 = relay.sign %i : tensor<4xi64>
  %3 = relay.exp %x : tensor<2x3xf32>
  %4 = relay.log %x : tensor<2x3xf32>
  %5 = relay.sqrt %x : tensor<2x3xf32>
  %6 = relay.rsqrt %x : tensor<2x3xf32>
  %7 = relay.reciprocal %x : tensor<2x3xf32>
  %8 = relay.floor %x : tensor<2x3xf32>
  %9 = relay.ceil %x : tensor<2x3xf32>
  %10 = relay.round %x : tensor<2x3xf32>
  %11 = relay.sin %x : tensor<2x3xf32>
  %12 = relay.cos %x : tensor<2x3xf32>
  %13 = relay.tan %x : tensor<2x3xf32>
  %14 = relay.tanh %x : tensor<2x3xf32>
  %15 = relay.erf %x : tensor<2x3xf32>
  %16 = relay.sigmoid %x : tensor<2x3xf32>
  %17 = relay.softplus %x : tensor<2x3xf32>
  %18 = relay.softsign %x : tensor<2x3xf32>
  %19 = relay.hard_swish %x : tensor<2x3xf32>
  %20 = relay.leaky_relu %x {alpha = 1.000000e-01 : f64} : tensor<2x3xf32>
  %21 = relay.elu %x : tensor<2x3xf32>
  %22 = relay.selu %x {alpha = 1.5 : f64, gamma = 2.0 : f64} : tensor<2x3xf32>
  %23 = relay.hard_sigmoid %x {alpha = 0.2 : f64, beta = 0.5 : f64} : tensor<2x3xf32>
  %24 = relay.gelu %x {approximate = "tanh"} : tensor<2x3xf32>
  %25 = relay.clip %x {a_min = 0.0 : f64, a_max = 6.0 : f64} : tensor<2x3xf32>
  %26 = relay.clip %i {a_max = 3.0 : f64} : tensor<4xi64>
  func.return
}

// Inverse and hyperbolic trigonometry.
// CHECK-LABEL: func.func @trig(
// CHECK-NEXT:    %0 = relay.asin %x : tensor<2x3xf32>
// CHECK-NEXT:    %1 = relay.acos %x : tensor<2x3xf32>
// CHECK-NEXT:    %2 = relay.atan %x : tensor<2x3xf32>
// CHECK-NEXT:    %3 = relay.sinh %x : tensor<2x3xf32>
// CHECK-NEXT:    %4 = relay.cosh %x : tensor<2x3xf32>
// CHECK-NEXT:    %5 = relay.asinh %x : tensor<2x3xf32>
// CHECK-NEXT:    %6 = relay.acosh %x : tensor<2x3xf32>
// CHECK-NEXT:    %7 = relay.atanh %x : tensor<2x3xf32>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "trig"
// GENERIC:       %0 = "relay.asin"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %1 = "relay.acos"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %2 = "relay.atan"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %3 = "relay.sinh"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %4 = "relay.cosh"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %5 = "relay.asinh"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %6 = "relay.acosh"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %7 = "relay.atanh"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @trig(%x: tensor<2x3xf32>) {
  %0 = relay.asin %x : tensor<2x3xf32>
  %1 = relay.acos %x : tensor<2x3xf32>
  %2 = relay.atan %x : tensor<2x3xf32>
  %3 = relay.sinh %x : tensor<2x3xf32>
  %4 = relay.cosh %x : tensor<2x3xf32>
  %5 = relay.asinh %x : tensor<2x3xf32>
  %6 = relay.acosh %x : tensor<2x3xf32>
  %7 = relay.atanh %x : tensor<2x3xf32>
  func.return
}

// Integer bitwise ops and shifts.
// CHECK-LABEL: func.func @bitwise(
// CHECK-NEXT:    %0 = relay.bitwise_and %a, %b : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// CHECK-NEXT:    %1 = relay.bitwise_or %a, %b : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// CHECK-NEXT:    %2 = relay.bitwise_xor %a, %b : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// CHECK-NEXT:    %3 = relay.left_shift %a, %b : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// CHECK-NEXT:    %4 = relay.right_shift %a, %b : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// CHECK-NEXT:    %5 = relay.bitwise_not %a : tensor<2x3xui8>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "bitwise"
// GENERIC:       %0 = "relay.bitwise_and"(%a, %b) : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// GENERIC-NEXT:  %1 = "relay.bitwise_or"(%a, %b) : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// GENERIC-NEXT:  %2 = "relay.bitwise_xor"(%a, %b) : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// GENERIC-NEXT:  %3 = "relay.left_shift"(%a, %b) : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// GENERIC-NEXT:  %4 = "relay.right_shift"(%a, %b) : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// GENERIC-NEXT:  %5 = "relay.bitwise_not"(%a) : (tensor<2x3xui8>) -> tensor<2x3xui8>
func.func @bitwise(%a: tensor<2x3xui8>, %b: tensor<3xui8>) {
  %0 = relay.bitwise_and %a, %b : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  %1 = relay.bitwise_or %a, %b : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  %2 = relay.bitwise_xor %a, %b : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  %3 = relay.left_shift %a, %b : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  %4 = relay.right_shift %a, %b : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  %5 = relay.bitwise_not %a : tensor<2x3xui8>
  func.return
}

// Reductions: no axes is every axis, empty axes none; argmax/argmin give i64;
// a sum may be `ordered` (in index order).
// CHECK-LABEL: func.func @reductions(
// CHECK-NEXT:    %0 = relay.sum %x : (tensor<2x3x4xf32>) -> tensor<f32>
// CHECK-NEXT:    %1 = relay.mean %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %2 = relay.max %x {axes = array<i64: 0, -1>, keepdims} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
// CHECK-NEXT:    %3 = relay.min %i {axes = array<i64>} : tensor<2x3xi32>
// CHECK-NEXT:    %4 = relay.prod %i {axes = array<i64: 1>} : (tensor<2x3xi32>) -> tensor<2xi32>
// CHECK-NEXT:    %5 = relay.logsumexp %x {axes = array<i64: 2>, keepdims} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// CHECK-NEXT:    %6 = relay.argmax %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x4xi64>
// CHECK-NEXT:    %7 = relay.argmin %i {axis = -1 : i64, keepdims, select_last_index} : (tensor<2x3xi32>) -> tensor<2x1xi64>
// CHECK-NEXT:    %8 = relay.sum %x {axes = array<i64: 2>, keepdims, ordered} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "reductions"
// GENERIC:       %0 = "relay.sum"(%x) : (tensor<2x3x4xf32>) -> tensor<f32>
// GENERIC-NEXT:  %1 = "relay.mean"(%x) <{axes = array<i64: 1>}> : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// GENERIC-NEXT:  %2 = "relay.max"(%x) <{axes = array<i64: 0, -1>, keepdims}> : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
// GENERIC-NEXT:  %3 = "relay.min"(%i) <{axes = array<i64>}> : (tensor<2x3xi32>) -> tensor<2x3xi32>
// GENERIC-NEXT:  %4 = "relay.prod"(%i) <{axes = array<i64: 1>}> : (tensor<2x3xi32>) -> tensor<2xi32>
// GENERIC-NEXT:  %5 = "relay.logsumexp"(%x) <{axes = array<i64: 2>, keepdims}> : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// GENERIC-NEXT:  %6 = "relay.argmax"(%x) <{axis = 1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x4xi64>
// GENERIC-NEXT:  %7 = "relay.argmin"(%i) <{axis = -1 : i64, keepdims, select_last_index}> : (tensor<2x3xi32>) -> tensor<2x1xi64>
// GENERIC-NEXT:  %8 = "relay.sum"(%x) <{axes = array<i64: 2>, keepdims, ordered}> : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
func.func @reductions(%x: tensor<2x3x4xf32>, %i: tensor<2x3xi32>) {
  %0 = relay.sum %x : (tensor<2x3x4xf32>)
  %1 = relay.mean %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>)
  %2 = relay.max %x {axes = array<i64: 0, -1>, keepdims} : (tensor<2x3x4xf32>)
  %3 = relay.min %i {axes = array<i64>} : (tensor<2x3xi32>)
  %4 = relay.prod %i {axes = array<i64: 1>} : (tensor<2x3xi32>)
  %5 = relay.logsumexp %x {axes = array<i64: 2>, keepdims} : (tensor<2x3x4xf32>)
  %6 = relay.argmax %x {axis = 1 : i64} : (tensor<2x3x4xf32>)
  %7 = relay.argmin %i {axis = -1 : i64, keepdims, select_last_index} : (tensor<2x3xi32>)
  %8 = relay.sum %x {axes = array<i64: 2>, keepdims, ordered} : (tensor<2x3x4xf32>)
  func.return
}

// Convolutions (1-D to 3-D, grouped, transposed), pools (incl. the two-result
// max_pool_with_argmax), normalizations and log_softmax.
// CHECK-LABEL: func.func @nn(
// CHECK-NEXT:    %0 = relay.conv2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 1, 1, 0>, dilation = array<i64: 1, 2>, groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x4x5xf32>
// CHECK-NEXT:    %1 = relay.conv2d %x, %d {groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %2 = relay.conv1d %x1, %w1 : (tensor<2x3x10xf32>, tensor<4x3x3xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT:    %3 = relay.conv3d %x3, %w3 {strides = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>, tensor<2x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32>
// CHECK-NEXT:    %4 = relay.conv2d_transpose %x, %wt {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x16x16xf32>
// CHECK-NEXT:    %5 = relay.conv1d_transpose %x1, %v1 : (tensor<2x3x10xf32>, tensor<3x2x3xf32>) -> tensor<2x2x12xf32>
// CHECK-NEXT:    %6 = relay.conv3d_transpose %x3, %w3 : (tensor<1x2x4x4x4xf32>, tensor<2x2x2x2x2xf32>) -> tensor<1x2x5x5x5xf32>
// CHECK-NEXT:    %7 = relay.bias_add %x, %c : (tensor<1x4x8x8xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %8 = relay.max_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %9 = relay.avg_pool2d %x {pool_size = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, count_include_pad} : (tensor<1x4x8x8xf32>) -> tensor<1x4x9x9xf32>
// CHECK-NEXT:    %10 = relay.max_pool1d %x1 {pool_size = array<i64: 2>} : (tensor<2x3x10xf32>) -> tensor<2x3x9xf32>
// CHECK-NEXT:    %11 = relay.avg_pool1d %x1 {pool_size = array<i64: 3>, dilation = array<i64: 2>} : (tensor<2x3x10xf32>) -> tensor<2x3x6xf32>
// CHECK-NEXT:    %12 = relay.max_pool3d %x3 {pool_size = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x3x3x3xf32>
// CHECK-NEXT:    %13 = relay.avg_pool3d %x3 {pool_size = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x3x3x3xf32>
// CHECK-NEXT:    %14, %15 = relay.max_pool_with_argmax %x {pool_size = array<i64: 2, 2>, column_major} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x7x7xf32>, tensor<1x4x7x7xi64>)
// CHECK-NEXT:    %16 = relay.batch_norm %x, %c, %c, %c, %c {epsilon = 1.000000e-03 : f64} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %17 = relay.layer_norm %x, %ln, %ln : (tensor<1x4x8x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %18 = relay.instance_norm %x, %c, %c : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %19 = relay.lrn %x {size = 3 : i64} : tensor<1x4x8x8xf32>
// CHECK-NEXT:    %20 = relay.log_softmax %x {axis = 1 : i64} : tensor<1x4x8x8xf32>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "nn"
// GENERIC:       %0 = "relay.conv2d"(%x, %w) <{strides = array<i64: 2, 1>, padding = array<i64: 1, 1, 1, 0>, dilation = array<i64: 1, 2>, groups = 2 : i64}> : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x4x5xf32>
// GENERIC-NEXT:  %1 = "relay.conv2d"(%x, %d) <{groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>}> : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
// GENERIC-NEXT:  %2 = "relay.conv1d"(%x1, %w1) : (tensor<2x3x10xf32>, tensor<4x3x3xf32>) -> tensor<2x4x8xf32>
// GENERIC-NEXT:  %3 = "relay.conv3d"(%x3, %w3) <{strides = array<i64: 2, 2, 2>}> : (tensor<1x2x4x4x4xf32>, tensor<2x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32>
// GENERIC-NEXT:  %4 = "relay.conv2d_transpose"(%x, %wt) <{strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>}> : (tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x16x16xf32>
// GENERIC-NEXT:  %5 = "relay.conv1d_transpose"(%x1, %v1) : (tensor<2x3x10xf32>, tensor<3x2x3xf32>) -> tensor<2x2x12xf32>
// GENERIC-NEXT:  %6 = "relay.conv3d_transpose"(%x3, %w3) : (tensor<1x2x4x4x4xf32>, tensor<2x2x2x2x2xf32>) -> tensor<1x2x5x5x5xf32>
// GENERIC-NEXT:  %7 = "relay.bias_add"(%x, %c) : (tensor<1x4x8x8xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// GENERIC-NEXT:  %8 = "relay.max_pool2d"(%x) <{pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode}> : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
// GENERIC-NEXT:  %9 = "relay.avg_pool2d"(%x) <{pool_size = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, count_include_pad}> : (tensor<1x4x8x8xf32>) -> tensor<1x4x9x9xf32>
// GENERIC-NEXT:  %10 = "relay.max_pool1d"(%x1) <{pool_size = array<i64: 2>}> : (tensor<2x3x10xf32>) -> tensor<2x3x9xf32>
// GENERIC-NEXT:  %11 = "relay.avg_pool1d"(%x1) <{pool_size = array<i64: 3>, dilation = array<i64: 2>}> : (tensor<2x3x10xf32>) -> tensor<2x3x6xf32>
// GENERIC-NEXT:  %12 = "relay.max_pool3d"(%x3) <{pool_size = array<i64: 2, 2, 2>}> : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x3x3x3xf32>
// GENERIC-NEXT:  %13 = "relay.avg_pool3d"(%x3) <{pool_size = array<i64: 2, 2, 2>}> : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x3x3x3xf32>
// GENERIC-NEXT:  %14, %15 = "relay.max_pool_with_argmax"(%x) <{pool_size = array<i64: 2, 2>, column_major}> : (tensor<1x4x8x8xf32>) -> (tensor<1x4x7x7xf32>, tensor<1x4x7x7xi64>)
// GENERIC-NEXT:  %16 = "relay.batch_norm"(%x, %c, %c, %c, %c) <{epsilon = 1.000000e-03 : f64}> : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// GENERIC-NEXT:  %17 = "relay.layer_norm"(%x, %ln, %ln) : (tensor<1x4x8x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x4x8x8xf32>
// GENERIC-NEXT:  %18 = "relay.instance_norm"(%x, %c, %c) : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// GENERIC-NEXT:  %19 = "relay.lrn"(%x) <{size = 3 : i64}> : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// GENERIC-NEXT:  %20 = "relay.log_softmax"(%x) <{axis = 1 : i64}> : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
func.func @nn(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %d: tensor<4x1x3x3xf32>, %x1: tensor<2x3x10xf32>, %w1: tensor<4x3x3xf32>, %x3: tensor<1x2x4x4x4xf32>, %w3: tensor<2x2x2x2x2xf32>, %wt: tensor<4x3x3x3xf32>, %c: tensor<4xf32>, %ln: tensor<8xf32>, %v1: tensor<3x2x3xf32>) {
  %0 = relay.conv2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 1, 1, 0>, dilation = array<i64: 1, 2>, groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>)
  %1 = relay.conv2d %x, %d {groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>)
  %2 = relay.conv1d %x1, %w1 : (tensor<2x3x10xf32>, tensor<4x3x3xf32>)
  %3 = relay.conv3d %x3, %w3 {strides = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>, tensor<2x2x2x2x2xf32>)
  %4 = relay.conv2d_transpose %x, %wt {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>)
  %5 = relay.conv1d_transpose %x1, %v1 : (tensor<2x3x10xf32>, tensor<3x2x3xf32>)
  %6 = relay.conv3d_transpose %x3, %w3 : (tensor<1x2x4x4x4xf32>, tensor<2x2x2x2x2xf32>)
  %7 = relay.bias_add %x, %c : (tensor<1x4x8x8xf32>, tensor<4xf32>)
  %8 = relay.max_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode} : (tensor<1x4x8x8xf32>)
  %9 = relay.avg_pool2d %x {pool_size = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, count_include_pad} : (tensor<1x4x8x8xf32>)
  %10 = relay.max_pool1d %x1 {pool_size = array<i64: 2>} : (tensor<2x3x10xf32>)
  %11 = relay.avg_pool1d %x1 {pool_size = array<i64: 3>, dilation = array<i64: 2>} : (tensor<2x3x10xf32>)
  %12 = relay.max_pool3d %x3 {pool_size = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>)
  %13 = relay.avg_pool3d %x3 {pool_size = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>)
  %14, %15 = relay.max_pool_with_argmax %x {pool_size = array<i64: 2, 2>, column_major} : (tensor<1x4x8x8xf32>)
  %16 = relay.batch_norm %x, %c, %c, %c, %c {epsilon = 1.0e-03 : f64} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %17 = relay.layer_norm %x, %ln, %ln : (tensor<1x4x8x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %18 = relay.instance_norm %x, %c, %c : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
  %19 = relay.lrn %x {size = 3 : i64} : tensor<1x4x8x8xf32>
  %20 = relay.log_softmax %x {axis = 1 : i64} : tensor<1x4x8x8xf32>
  func.return
}

// Layout: concatenate, multi-result split, strided_slice with negative strides,
// take/gather, broadcast_to, tile, pad (reflect, negative widths), trilu, resize.
// CHECK-LABEL: func.func @layout(
// CHECK-NEXT:    %0 = relay.concatenate %x, %y, %x {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1x4xf32>, tensor<2x3x4xf32>) -> tensor<2x7x4xf32>
// CHECK-NEXT:    %1, %2, %3 = relay.split %x {axis = 2 : i64, indices = array<i64: 1, 3>} : (tensor<2x3x4xf32>) -> (tensor<2x3x1xf32>, tensor<2x3x2xf32>, tensor<2x3x1xf32>)
// CHECK-NEXT:    %4 = relay.strided_slice %x {begin = array<i64: 1, 2, 0>, end = array<i64: 2, -1, 4>, strides = array<i64: 1, -1, 2>} : (tensor<2x3x4xf32>) -> tensor<1x3x2xf32>
// CHECK-NEXT:    %5 = relay.take %x, %i {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x2xi64>) -> tensor<2x2x2x4xf32>
// CHECK-NEXT:    %6 = relay.gather %x, %g {axis = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x2xi32>) -> tensor<2x3x2xf32>
// CHECK-NEXT:    %7 = relay.broadcast_to %y {shape = array<i64: 3, 2, 5, 4>} : (tensor<2x1x4xf32>) -> tensor<3x2x5x4xf32>
// CHECK-NEXT:    %8 = relay.tile %y {reps = array<i64: 1, 3, 2>} : (tensor<2x1x4xf32>) -> tensor<2x3x8xf32>
// CHECK-NEXT:    %9 = relay.pad %x {pad_width = array<i64: 0, 1, 2, 0, -1, 1>, pad_mode = "reflect"} : (tensor<2x3x4xf32>) -> tensor<2x3x7xf32>
// CHECK-NEXT:    %10 = relay.pad %x {pad_width = array<i64: 0, 0, 1, 0, 0, 1>, pad_value = 1.500000e+00 : f64} : (tensor<2x3x4xf32>) -> tensor<2x3x6xf32>
// CHECK-NEXT:    %11 = relay.trilu %x {upper, k = -1 : i64} : tensor<2x3x4xf32>
// CHECK-NEXT:    %12 = relay.resize %x {size = array<i64: 2, 6, 8>, method = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<2x3x4xf32>) -> tensor<2x6x8xf32>
// CHECK-NEXT:    %13 = relay.resize %x {size = array<i64: 2, 2, 3>, scales = array<f64: 1.000000e+00, 7.000000e-01, 8.000000e-01>, rounding_method = "ceil"} : (tensor<2x3x4xf32>) -> tensor<2x2x3xf32>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "layout"
// GENERIC:       %0 = "relay.concatenate"(%x, %y, %x) <{axis = 1 : i64}> : (tensor<2x3x4xf32>, tensor<2x1x4xf32>, tensor<2x3x4xf32>) -> tensor<2x7x4xf32>
// GENERIC-NEXT:  %1, %2, %3 = "relay.split"(%x) <{axis = 2 : i64, indices = array<i64: 1, 3>}> : (tensor<2x3x4xf32>) -> (tensor<2x3x1xf32>, tensor<2x3x2xf32>, tensor<2x3x1xf32>)
// GENERIC-NEXT:  %4 = "relay.strided_slice"(%x) <{begin = array<i64: 1, 2, 0>, end = array<i64: 2, -1, 4>, strides = array<i64: 1, -1, 2>}> : (tensor<2x3x4xf32>) -> tensor<1x3x2xf32>
// GENERIC-NEXT:  %5 = "relay.take"(%x, %i) <{axis = 1 : i64}> : (tensor<2x3x4xf32>, tensor<2x2xi64>) -> tensor<2x2x2x4xf32>
// GENERIC-NEXT:  %6 = "relay.gather"(%x, %g) <{axis = 2 : i64}> : (tensor<2x3x4xf32>, tensor<2x3x2xi32>) -> tensor<2x3x2xf32>
// GENERIC-NEXT:  %7 = "relay.broadcast_to"(%y) <{shape = array<i64: 3, 2, 5, 4>}> : (tensor<2x1x4xf32>) -> tensor<3x2x5x4xf32>
// GENERIC-NEXT:  %8 = "relay.tile"(%y) <{reps = array<i64: 1, 3, 2>}> : (tensor<2x1x4xf32>) -> tensor<2x3x8xf32>
// GENERIC-NEXT:  %9 = "relay.pad"(%x) <{pad_width = array<i64: 0, 1, 2, 0, -1, 1>, pad_mode = "reflect"}> : (tensor<2x3x4xf32>) -> tensor<2x3x7xf32>
// GENERIC-NEXT:  %10 = "relay.pad"(%x) <{pad_width = array<i64: 0, 0, 1, 0, 0, 1>, pad_value = 1.500000e+00 : f64}> : (tensor<2x3x4xf32>) -> tensor<2x3x6xf32>
// GENERIC-NEXT:  %11 = "relay.trilu"(%x) <{upper, k = -1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// GENERIC-NEXT:  %12 = "relay.resize"(%x) <{size = array<i64: 2, 6, 8>, method = "linear", coordinate_transformation_mode = "align_corners"}> : (tensor<2x3x4xf32>) -> tensor<2x6x8xf32>
// GENERIC-NEXT:  %13 = "relay.resize"(%x) <{size = array<i64: 2, 2, 3>, scales = array<f64: 1.000000e+00, 7.000000e-01, 8.000000e-01>, rounding_method = "ceil"}> : (tensor<2x3x4xf32>) -> tensor<2x2x3xf32>
func.func @layout(%x: tensor<2x3x4xf32>, %y: tensor<2x1x4xf32>, %i: tensor<2x2xi64>, %g: tensor<2x3x2xi32>) {
  %0 = relay.concatenate %x, %y, %x {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1x4xf32>, tensor<2x3x4xf32>)
  %1, %2, %3 = relay.split %x {axis = 2 : i64, indices = array<i64: 1, 3>} : (tensor<2x3x4xf32>)
  %4 = relay.strided_slice %x {begin = array<i64: 1, 2, 0>, end = array<i64: 2, -1, 4>, strides = array<i64: 1, -1, 2>} : (tensor<2x3x4xf32>)
  %5 = relay.take %x, %i {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x2xi64>)
  %6 = relay.gather %x, %g {axis = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x2xi32>)
  %7 = relay.broadcast_to %y {shape = array<i64: 3, 2, 5, 4>} : (tensor<2x1x4xf32>)
  %8 = relay.tile %y {reps = array<i64: 1, 3, 2>} : (tensor<2x1x4xf32>)
  %9 = relay.pad %x {pad_width = array<i64: 0, 1, 2, 0, -1, 1>, pad_mode = "reflect"} : (tensor<2x3x4xf32>)
  %10 = relay.pad %x {pad_width = array<i64: 0, 0, 1, 0, 0, 1>, pad_value = 1.5 : f64} : (tensor<2x3x4xf32>)
  %11 = relay.trilu %x {upper, k = -1 : i64} : tensor<2x3x4xf32>
  %12 = relay.resize %x {size = array<i64: 2, 6, 8>, method = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<2x3x4xf32>)
  %13 = relay.resize %x {size = array<i64: 2, 2, 3>, scales = array<f64: 1.0, 0.7, 0.8>, rounding_method = "ceil"} : (tensor<2x3x4xf32>)
  func.return
}

// Gathers and reversals with data-dependent indices: gather_nd (ONNX GatherND,
// batch_dims), reverse_sequence.
// CHECK-LABEL: func.func @gather_nd(
// CHECK-NEXT:    %0 = relay.gather_nd %x, %i : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
// CHECK-NEXT:    %1 = relay.gather_nd %x, %j {batch_dims = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x1xi32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %2 = relay.reverse_sequence %x, %n {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "gather_nd"
// GENERIC:       %0 = "relay.gather_nd"(%x, %i) : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
// GENERIC-NEXT:  %1 = "relay.gather_nd"(%x, %j) <{batch_dims = 2 : i64}> : (tensor<2x3x4xf32>, tensor<2x3x1xi32>) -> tensor<2x3xf32>
// GENERIC-NEXT:  %2 = "relay.reverse_sequence"(%x, %n) <{batch_axis = 1 : i64, time_axis = 0 : i64}> : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
func.func @gather_nd(%x: tensor<2x3x4xf32>, %i: tensor<5x2xi64>, %j: tensor<2x3x1xi32>, %n: tensor<3xi64>) {
  %0 = relay.gather_nd %x, %i : (tensor<2x3x4xf32>, tensor<5x2xi64>)
  %1 = relay.gather_nd %x, %j {batch_dims = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x1xi32>)
  %2 = relay.reverse_sequence %x, %n {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<2x3x4xf32>, tensor<3xi64>)
  func.return
}

// Sampling: grid_sample (N-D, every method and padding mode), col2im (N-D
// windows), and bitcast (same-width reinterpretation, bool as a byte).
// CHECK-LABEL: func.func @sampling(
// CHECK-NEXT:    %0 = relay.grid_sample %x, %g : (tensor<1x2x4x5xf32>, tensor<1x3x6x2xf32>) -> tensor<1x2x3x6xf32>
// CHECK-NEXT:    %1 = relay.grid_sample %x, %g {method = "cubic", padding_mode = "reflection", align_corners} : (tensor<1x2x4x5xf32>, tensor<1x3x6x2xf32>) -> tensor<1x2x3x6xf32>
// CHECK-NEXT:    %2 = relay.grid_sample %v, %h {method = "nearest", padding_mode = "border"} : (tensor<2x3x4x5x6xi8>, tensor<2x7x1x2x3xf64>) -> tensor<2x3x7x1x2xi8>
// CHECK-NEXT:    %3 = relay.col2im %c {image_size = array<i64: 5, 6>, kernel_size = array<i64: 2, 3>} : (tensor<2x12x16xf32>) -> tensor<2x2x5x6xf32>
// CHECK-NEXT:    %4 = relay.col2im %c1 {image_size = array<i64: 8>, kernel_size = array<i64: 2>, strides = array<i64: 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2>} : (tensor<1x2x4xi32>) -> tensor<1x1x8xi32>
// CHECK-NEXT:    %5 = relay.bitcast %f {dtype = i32} : (tensor<2x3xf32>) -> tensor<2x3xi32>
// CHECK-NEXT:    %6 = relay.bitcast %b {dtype = ui8} : (tensor<4xi1>) -> tensor<4xui8>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "sampling"
// GENERIC:       %0 = "relay.grid_sample"(%x, %g) : (tensor<1x2x4x5xf32>, tensor<1x3x6x2xf32>) -> tensor<1x2x3x6xf32>
// GENERIC-NEXT:  %1 = "relay.grid_sample"(%x, %g) <{method = "cubic", padding_mode = "reflection", align_corners}> : (tensor<1x2x4x5xf32>, tensor<1x3x6x2xf32>) -> tensor<1x2x3x6xf32>
// GENERIC-NEXT:  %2 = "relay.grid_sample"(%v, %h) <{method = "nearest", padding_mode = "border"}> : (tensor<2x3x4x5x6xi8>, tensor<2x7x1x2x3xf64>) -> tensor<2x3x7x1x2xi8>
// GENERIC-NEXT:  %3 = "relay.col2im"(%c) <{image_size = array<i64: 5, 6>, kernel_size = array<i64: 2, 3>}> : (tensor<2x12x16xf32>) -> tensor<2x2x5x6xf32>
// GENERIC-NEXT:  %4 = "relay.col2im"(%c1) <{image_size = array<i64: 8>, kernel_size = array<i64: 2>, strides = array<i64: 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2>}> : (tensor<1x2x4xi32>) -> tensor<1x1x8xi32>
// GENERIC-NEXT:  %5 = "relay.bitcast"(%f) <{dtype = i32}> : (tensor<2x3xf32>) -> tensor<2x3xi32>
// GENERIC-NEXT:  %6 = "relay.bitcast"(%b) <{dtype = ui8}> : (tensor<4xi1>) -> tensor<4xui8>
func.func @sampling(%x: tensor<1x2x4x5xf32>, %g: tensor<1x3x6x2xf32>, %v: tensor<2x3x4x5x6xi8>, %h: tensor<2x7x1x2x3xf64>, %c: tensor<2x12x16xf32>, %c1: tensor<1x2x4xi32>, %f: tensor<2x3xf32>, %b: tensor<4xi1>) {
  %0 = relay.grid_sample %x, %g : (tensor<1x2x4x5xf32>, tensor<1x3x6x2xf32>)
  %1 = relay.grid_sample %x, %g {method = "cubic", padding_mode = "reflection", align_corners} : (tensor<1x2x4x5xf32>, tensor<1x3x6x2xf32>)
  %2 = relay.grid_sample %v, %h {method = "nearest", padding_mode = "border"} : (tensor<2x3x4x5x6xi8>, tensor<2x7x1x2x3xf64>)
  %3 = relay.col2im %c {image_size = array<i64: 5, 6>, kernel_size = array<i64: 2, 3>} : (tensor<2x12x16xf32>)
  %4 = relay.col2im %c1 {image_size = array<i64: 8>, kernel_size = array<i64: 2>, strides = array<i64: 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2>} : (tensor<1x2x4xi32>)
  %5 = relay.bitcast %f {dtype = i32} : (tensor<2x3xf32>)
  %6 = relay.bitcast %b {dtype = ui8} : (tensor<4xi1>)
  func.return
}

// The blob is printed back (`big` has no data, so it is not); the resource section
// survives both round trips, alignment header included.
// CHECK:       {-#
// CHECK-NEXT:    dialect_resources: {
// CHECK-NEXT:      builtin: {
// CHECK-NEXT:        w0: "0x040000000000803F000000400000404000008040"
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  #-}
{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
