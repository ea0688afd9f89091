// One invalid relay op per chunk. Ops in custom form are type-checked while parsing
// (--parsing-diagnostics); ops in generic form reach the verifier
// (--verify-diagnostics).
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @constant_type(%a: tensor<2x3xf32>) {
  // CHECK: Operation does not verify: relay.constant: result type tensor<3xf32> does not match the inferred type tensor<2xf32>
  %0 = "relay.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  func.return
}

// -----

func.func @constant_value() {
  // CHECK: relay.constant expects dense_resource<...> or dense<...> : tensor<...>
  %0 = relay.constant 1 : i32
  func.return
}

// -----

func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // CHECK:      %0 = relay.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>)
  // CHECK-NEXT: ^^^^^^
  // CHECK-NEXT: relay.add: shapes 2x3 and 4 do not broadcast (dimension 1 of the result would be one of [3, 4])
  %0 = relay.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>)
  func.return
}

// -----

func.func @subtract_broadcast_generic(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // CHECK: Operation does not verify: relay.subtract: shapes 2x3 and 3x3 do not broadcast (dimension 0 of the result would be one of [2, 3])
  %0 = "relay.subtract"(%a, %b) : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @multiply_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) {
  // CHECK: relay.multiply: operands must share an element type, got f32, i32
  %0 = relay.multiply %a, %b : (tensor<2x3xf32>, tensor<2x3xi32>)
  func.return
}

// -----

func.func @divide_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // CHECK: relay.divide: result type tensor<3xf32> does not match the inferred type tensor<2x3xf32>
  %0 = relay.divide %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @divide_result_generic(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // CHECK: Operation does not verify: relay.divide: result type tensor<2x3xf64> does not match the inferred type tensor<2x3xf32>
  %0 = "relay.divide"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf64>
  func.return
}

// -----

func.func @relu_result_generic(%a: tensor<2x3xf32>) {
  // CHECK: Operation does not verify: relay.relu: result type tensor<3x2xf32> does not match the inferred type tensor<2x3xf32>
  %0 = "relay.relu"(%a) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return
}

// -----

func.func @relu_dynamic(%a: tensor<?x3xf32>) {
  // CHECK: relay.relu: operand #0 has a dynamic shape tensor<?x3xf32>; lamina needs static shapes (give input_shapes= when importing)
  %0 = relay.relu %a : tensor<?x3xf32>
  func.return
}

// -----

func.func @relu_two_operands(%a: tensor<2x3xf32>) {
  // CHECK: relay.relu: too many operands (2)
  %0 = relay.relu %a, %a : tensor<2x3xf32>
  func.return
}

// -----

func.func @relu_no_operand() {
  // CHECK: relay.relu needs 1 operands, got 0
  %0 = relay.relu : tensor<2x3xf32>
  func.return
}

// -----

func.func @types_count(%a: tensor<2x3xf32>) {
  // CHECK: relay.add: 2 operands but 1 types
  %0 = relay.add %a, %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @matmul_contraction(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // CHECK: relay.matmul: contraction dimensions differ: lhs has 3 columns, rhs has 4 rows
  %0 = relay.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>)
  func.return
}

// -----

func.func @matmul_contraction_1d(%a: tensor<3xf32>, %b: tensor<4xf32>) {
  // CHECK: relay.matmul: contraction dimensions differ: lhs has 3 columns, rhs has 4 rows
  %0 = relay.matmul %a, %b : (tensor<3xf32>, tensor<4xf32>)
  func.return
}

// -----

func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // CHECK: relay.matmul: shapes 2 and 3 do not broadcast (dimension 0 of the result would be one of [2, 3])
  %0 = relay.matmul %a, %b : (tensor<2x3x4xf32>, tensor<3x4x5xf32>)
  func.return
}

// -----

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<3xf32>) {
  // CHECK: relay.matmul: operands must have rank >= 1
  %0 = relay.matmul %a, %b : (tensor<f32>, tensor<3xf32>)
  func.return
}

// -----

func.func @matmul_result_generic(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // CHECK: Operation does not verify: relay.matmul: result type tensor<4x2xf32> does not match the inferred type tensor<2x4xf32>
  %0 = "relay.matmul"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<4x2xf32>
  func.return
}

// -----

func.func @dense_rank(%a: tensor<1x2x3xf32>, %b: tensor<3x4xf32>) {
  // CHECK: relay.dense: operands must be 2-D, got ranks 3 and 2
  %0 = relay.dense %a, %b : (tensor<1x2x3xf32>, tensor<3x4xf32>)
  func.return
}

// -----

func.func @dense_contraction(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // CHECK: relay.dense: contraction dimensions differ: op(a) is 2x3, op(b) is 4x3
  %0 = relay.dense %a, %b {transpose_b} : (tensor<2x3xf32>, tensor<3x4xf32>)
  func.return
}

// -----

func.func @dense_bias(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<5xf32>) {
  // CHECK: relay.dense: shapes 5 and 2x4 do not broadcast (dimension 1 of the result would be one of [4, 5])
  %0 = relay.dense %a, %b, %c : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<5xf32>)
  func.return
}

// -----

func.func @dense_bias_rank(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<3x1x4xf32>) {
  // CHECK: relay.dense: bias of shape 3x1x4 does not broadcast to 2x4
  %0 = relay.dense %a, %b, %c : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<3x1x4xf32>)
  func.return
}

// -----

func.func @dense_alpha(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // CHECK: relay.dense: property 'alpha' = 2 : i64 is invalid: 2 : i64 should be of base attribute float
  %0 = relay.dense %a, %b {alpha = 2 : i64} : (tensor<2x3xf32>, tensor<3x4xf32>)
  func.return
}

// -----

func.func @softmax_axis(%a: tensor<2x3xf32>) {
  // CHECK: relay.softmax: axis 2 is out of range for a rank-2 tensor (expected -2 <= axis < 2)
  %0 = relay.softmax %a {axis = 2 : i64} : tensor<2x3xf32>
  func.return
}

// -----

func.func @softmax_negative_axis(%a: tensor<2x3xf32>) {
  // CHECK: Operation does not verify: relay.softmax: axis -3 is out of range for a rank-2 tensor (expected -2 <= axis < 2)
  %0 = "relay.softmax"(%a) <{axis = -3 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @softmax_int(%a: tensor<2x3xi32>) {
  // CHECK: relay.softmax: needs a floating-point tensor
  %0 = relay.softmax %a {axis = 1 : i64} : tensor<2x3xi32>
  func.return
}

// -----

func.func @softmax_no_axis(%a: tensor<2x3xf32>) {
  // CHECK: relay.softmax: property 'axis' is required
  %0 = relay.softmax %a : tensor<2x3xf32>
  func.return
}

// -----

func.func @softmax_no_axis_generic(%a: tensor<2x3xf32>) {
  // CHECK: Operation does not verify: property 'axis' expected in operation 'relay.softmax'
  %0 = "relay.softmax"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) {
  // CHECK: relay.reshape: cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)
  %0 = relay.reshape %a {shape = array<i64: 4, 2>} : (tensor<2x3xf32>)
  func.return
}

// -----

func.func @reshape_negative(%a: tensor<2x3xf32>) {
  // CHECK: relay.reshape: shape [-1, 2] must be static and non-negative (resolve -1 and 0 before building the op)
  %0 = relay.reshape %a {shape = array<i64: -1, 2>} : (tensor<2x3xf32>)
  func.return
}

// -----

func.func @reshape_shape_attr(%a: tensor<2x3xf32>) {
  // CHECK: relay.reshape: property 'shape' = [3 : i64, 2 : i64] is invalid: [3 : i64, 2 : i64] should be of base attribute array
  %0 = relay.reshape %a {shape = [3, 2]} : (tensor<2x3xf32>)
  func.return
}

// -----

func.func @reshape_result_generic(%a: tensor<2x3xf32>) {
  // CHECK: Operation does not verify: relay.reshape: result type tensor<6xf32> does not match the inferred type tensor<3x2xf32>
  %0 = "relay.reshape"(%a) <{shape = array<i64: 3, 2>}> : (tensor<2x3xf32>) -> tensor<6xf32>
  func.return
}

// -----

func.func @transpose_perm(%a: tensor<2x3x4xf32>) {
  // CHECK: relay.transpose: perm [0, 0, 1] is not a permutation of 0..2
  %0 = relay.transpose %a {perm = array<i64: 0, 0, 1>} : (tensor<2x3x4xf32>)
  func.return
}

// -----

func.func @transpose_perm_rank(%a: tensor<2x3x4xf32>) {
  // CHECK: relay.transpose: perm [1, 0] is not a permutation of 0..2
  %0 = relay.transpose %a {perm = array<i64: 1, 0>} : (tensor<2x3x4xf32>)
  func.return
}

// -----

func.func @transpose_result(%a: tensor<2x3xf32>) {
  // CHECK: relay.transpose: result type tensor<2x3xf32> does not match the inferred type tensor<3x2xf32>
  %0 = relay.transpose %a {perm = array<i64: 1, 0>} : tensor<2x3xf32>
  func.return
}
