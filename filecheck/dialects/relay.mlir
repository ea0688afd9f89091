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
// CHECK-NEXT:    %2 = relay.reshape %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT:    %3 = relay.reshape %x {shape = array<i64: 24>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK-NEXT:    %4 = relay.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    %5 = relay.transpose %x {perm = array<i64: 0, 1, 2>} : tensor<2x3x4xf32>
// CHECK-NEXT:    func.return %4 : tensor<4x2x3xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "nn_and_layout"
// GENERIC:       %0 = "relay.softmax"(%x) <{axis = -1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// GENERIC-NEXT:  %1 = "relay.softmax"(%x) <{axis = 0 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// GENERIC-NEXT:  %2 = "relay.reshape"(%x) <{shape = array<i64: 6, 4>}> : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// GENERIC-NEXT:  %3 = "relay.reshape"(%x) <{shape = array<i64: 24>}> : (tensor<2x3x4xf32>) -> tensor<24xf32>
// GENERIC-NEXT:  %4 = "relay.transpose"(%x) <{perm = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// GENERIC-NEXT:  %5 = "relay.transpose"(%x) <{perm = array<i64: 0, 1, 2>}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
func.func @nn_and_layout(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = relay.softmax %x {axis = -1 : i64} : tensor<2x3x4xf32>
  %1 = relay.softmax %x {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %2 = relay.reshape %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %3 = relay.reshape %x {shape = array<i64: 24>} : (tensor<2x3x4xf32>)
  %4 = relay.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>)
  %5 = relay.transpose %x {perm = array<i64: 0, 1, 2>} : tensor<2x3x4xf32>
  func.return %4 : tensor<4x2x3xf32>
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
