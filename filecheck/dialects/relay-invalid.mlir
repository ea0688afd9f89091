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
  // CHECK: relay.relu: operand #0: tensor<?x3xf32> has 1 dynamic dimension(s) but names 0
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
  // CHECK: relay.reshape: shape [-1, 2] must be non-negative (resolve -1 and 0 before building the op)
  %0 = relay.reshape %a {shape = array<i64: -1, 2>} : (tensor<2x3xf32>)
  func.return
}

// -----

func.func @reshape_shape_attr(%a: tensor<2x3xf32>) {
  // CHECK: relay.reshape: shape: 3.000000e+00 : f64 is not a dimension (an integer or a string naming one)
  %0 = relay.reshape %a {shape = [3.0, 2]} : (tensor<2x3xf32>)
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

// -----

func.func @exp_integer(%a: tensor<4xi32>) {
  // CHECK: relay.exp: needs a floating-point tensor, got tensor<4xi32>
  %0 = relay.exp %a : tensor<4xi32>
  func.return
}

// -----

func.func @logical_and_float(%a: tensor<4xf32>) {
  // CHECK: relay.logical_and: needs a boolean (i1) tensor, got tensor<4xf32>
  %0 = relay.logical_and %a, %a : tensor<4xf32>
  func.return
}

// -----

func.func @equal_result_generic(%a: tensor<4xf32>) {
  // CHECK: Operation does not verify: relay.equal: result type tensor<4xf32> does not match the inferred type tensor<4xi1>
  %0 = "relay.equal"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @where_condition(%a: tensor<4xf32>) {
  // CHECK: relay.where: needs a boolean (i1) tensor, got tensor<4xf32>
  %0 = relay.where %a, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  func.return
}

// -----

func.func @prelu_slope(%a: tensor<4xf32>, %s: tensor<2x4xf32>) {
  // CHECK: relay.prelu: alpha of shape [2, 4] must broadcast to the data's shape [4]
  %0 = relay.prelu %a, %s : (tensor<4xf32>, tensor<2x4xf32>)
  func.return
}

// -----

func.func @cast_dtype_generic(%a: tensor<4xf32>) {
  // CHECK: Operation does not verify: relay.cast: dtype must be an integer or floating-point type, got index
  %0 = "relay.cast"(%a) <{dtype = index}> : (tensor<4xf32>) -> tensor<4xindex>
  func.return
}

// -----

func.func @gelu_approximate(%a: tensor<4xf32>) {
  // CHECK: relay.gelu: approximate must be "none" or "tanh", got "fast"
  %0 = relay.gelu %a {approximate = "fast"} : tensor<4xf32>
  func.return
}

// -----

func.func @sum_axes_twice(%a: tensor<2x3xf32>) {
  // CHECK: relay.sum: axes [1, -1] name an axis twice
  %0 = relay.sum %a {axes = array<i64: 1, -1>} : (tensor<2x3xf32>)
  func.return
}

// -----

func.func @mean_axis_range(%a: tensor<2x3xf32>) {
  // CHECK: relay.mean: axis 2 is out of range for a rank-2 tensor (expected -2 <= axis < 2)
  %0 = relay.mean %a {axes = array<i64: 2>} : (tensor<2x3xf32>)
  func.return
}

// -----

func.func @argmax_result_generic(%a: tensor<2x3xf32>) {
  // CHECK: Operation does not verify: relay.argmax: result type tensor<2xi32> does not match the inferred type tensor<2xi64>
  %0 = "relay.argmax"(%a) <{axis = 1 : i64}> : (tensor<2x3xf32>) -> tensor<2xi32>
  func.return
}

// -----

func.func @conv_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<6x3x3x3xf32>) {
  // CHECK: relay.conv2d: 4 input channels in 2 group(s) need a weight with 2 input channels and a multiple of 2 output channels, got weight tensor<6x3x3x3xf32>
  %0 = relay.conv2d %x, %w {groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x3x3x3xf32>)
  func.return
}

// -----

func.func @conv_rank(%x: tensor<4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: relay.conv2d: data must be 4-D (batch, channels and 2 spatial axes), got tensor<4x8x8xf32>
  %0 = relay.conv2d %x, %w : (tensor<4x8x8xf32>, tensor<6x4x3x3xf32>)
  func.return
}

// -----

func.func @conv_strides(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: relay.conv2d: strides needs 2 values (one per spatial axis), got [2]
  %0 = relay.conv2d %x, %w {strides = array<i64: 2>} : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>)
  func.return
}

// -----

func.func @conv_window(%x: tensor<1x4x2x2xf32>, %w: tensor<6x4x3x3xf32>) {
  // CHECK: relay.conv2d: the window (extent 3) is larger than the padded input (extent 2) along spatial axis 0
  %0 = relay.conv2d %x, %w : (tensor<1x4x2x2xf32>, tensor<6x4x3x3xf32>)
  func.return
}

// -----

func.func @conv_transpose_output_padding(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // CHECK: relay.conv2d_transpose: spatial axis 0 would have size 11 (output padding 1 must be less than the stride or dilation)
  %0 = relay.conv2d_transpose %x, %w {output_padding = array<i64: 1, 0>} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>)
  func.return
}

// -----

func.func @pool_negative_padding(%x: tensor<1x4x8x8xf32>) {
  // CHECK: relay.max_pool2d: padding [-1, 0, 0, 0] must be non-negative
  %0 = relay.max_pool2d %x {pool_size = array<i64: 2, 2>, padding = array<i64: -1, 0, 0, 0>} : (tensor<1x4x8x8xf32>)
  func.return
}

// -----

func.func @avg_pool_integer(%x: tensor<1x4x8x8xi32>) {
  // CHECK: relay.avg_pool2d: needs a floating-point tensor, got tensor<1x4x8x8xi32>
  %0 = relay.avg_pool2d %x {pool_size = array<i64: 2, 2>} : (tensor<1x4x8x8xi32>)
  func.return
}

// -----

func.func @pool_size_missing_generic(%x: tensor<1x4x8x8xf32>) {
  // CHECK: Operation does not verify: property 'pool_size' expected in operation 'relay.max_pool2d'
  %0 = "relay.max_pool2d"(%x) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return
}

// -----

func.func @max_pool_with_argmax_results_generic(%x: tensor<1x4x8x8xf32>) {
  // CHECK: Operation does not verify: relay.max_pool_with_argmax: result type (tensor<1x4x7x7xf32>, tensor<1x4x7x7xi32>) does not match the inferred type (tensor<1x4x7x7xf32>, tensor<1x4x7x7xi64>)
  %0, %1 = "relay.max_pool_with_argmax"(%x) <{pool_size = array<i64: 2, 2>}> : (tensor<1x4x8x8xf32>) -> (tensor<1x4x7x7xf32>, tensor<1x4x7x7xi32>)
  func.return
}

// -----

func.func @batch_norm_params(%x: tensor<1x4x8x8xf32>, %c: tensor<4xf32>, %d: tensor<3xf32>) {
  // CHECK: relay.batch_norm: moving_mean must be 1-D of size 4 (one per channel), got tensor<3xf32>
  %0 = relay.batch_norm %x, %c, %c, %d, %c : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<4xf32>)
  func.return
}

// -----

func.func @layer_norm_gamma(%x: tensor<2x8xf32>, %g: tensor<4xf32>) {
  // CHECK: relay.layer_norm: shapes 8 and 4 do not broadcast (dimension 0 of the result would be one of [4, 8])
  %0 = relay.layer_norm %x, %g : (tensor<2x8xf32>, tensor<4xf32>)
  func.return
}

// -----

func.func @concatenate_shapes(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // CHECK: relay.concatenate: tensor<2x3xf32> and tensor<3x3xf32> differ outside axis 1
  %0 = relay.concatenate %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>)
  func.return
}

// -----

func.func @split_indices(%a: tensor<2x6xf32>) {
  // CHECK: relay.split: indices [4, 2] must ascend within 0..6 (the size of axis 1)
  %0, %1, %2 = relay.split %a {axis = 1 : i64, indices = array<i64: 4, 2>} : (tensor<2x6xf32>)
  func.return
}

// -----

func.func @split_results_generic(%a: tensor<2x6xf32>) {
  // CHECK: Operation does not verify: relay.split: result type (tensor<2x2xf32>, tensor<2x4xf32>) does not match the inferred type (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  %0, %1 = "relay.split"(%a) <{axis = 1 : i64, indices = array<i64: 2, 4>}> : (tensor<2x6xf32>) -> (tensor<2x2xf32>, tensor<2x4xf32>)
  func.return
}

// -----

func.func @strided_slice_bounds(%a: tensor<4xf32>) {
  // CHECK: relay.strided_slice: axis 0 of size 4 is read out of bounds (begin 1, end 6, stride 2)
  %0 = relay.strided_slice %a {begin = array<i64: 1>, end = array<i64: 6>, strides = array<i64: 2>} : (tensor<4xf32>)
  func.return
}

// -----

func.func @take_indices(%a: tensor<4xf32>, %i: tensor<2xf32>) {
  // CHECK: relay.take: indices must be an integer tensor, got tensor<2xf32>
  %0 = relay.take %a, %i {axis = 0 : i64} : (tensor<4xf32>, tensor<2xf32>)
  func.return
}

// -----

func.func @gather_rank(%a: tensor<4x3xf32>, %i: tensor<2xi64>) {
  // CHECK: relay.gather: indices tensor<2xi64> must have the data's rank and fit in the data tensor<4x3xf32> outside axis 0
  %0 = relay.gather %a, %i {axis = 0 : i64} : (tensor<4x3xf32>, tensor<2xi64>)
  func.return
}

// -----

func.func @gather_nd_depth(%a: tensor<4x3xf32>, %i: tensor<2x3xi64>) {
  // CHECK: relay.gather_nd: the last axis of indices tensor<2x3xi64> must have a size in 1..2 (the data's rank after the batch dimensions)
  %0 = relay.gather_nd %a, %i : (tensor<4x3xf32>, tensor<2x3xi64>)
  func.return
}

// -----

func.func @gather_nd_batch(%a: tensor<4x3xf32>, %i: tensor<2x1xi64>) {
  // CHECK: relay.gather_nd: the 1 batch dimension(s) of data tensor<4x3xf32> and indices tensor<2x1xi64> differ
  %0 = "relay.gather_nd"(%a, %i) <{batch_dims = 1 : i64}> : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2xf32>
  func.return
}

// -----

func.func @gather_nd_float_indices(%a: tensor<4x3xf32>, %i: tensor<2x1xf32>) {
  // CHECK: relay.gather_nd: indices must be an integer tensor, got tensor<2x1xf32>
  %0 = relay.gather_nd %a, %i : (tensor<4x3xf32>, tensor<2x1xf32>)
  func.return
}

// -----

func.func @reverse_sequence_lengths(%a: tensor<4x3xf32>, %n: tensor<4xi64>) {
  // CHECK: relay.reverse_sequence: seq_lengths tensor<4xi64> must be 1-D of size 3 (the batch axis 1 of tensor<4x3xf32>)
  %0 = relay.reverse_sequence %a, %n {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<4x3xf32>, tensor<4xi64>)
  func.return
}

// -----

func.func @reverse_sequence_axes(%a: tensor<4x3xf32>, %n: tensor<4xi64>) {
  // CHECK: relay.reverse_sequence: batch_axis and time_axis are both 0
  %0 = "relay.reverse_sequence"(%a, %n) <{batch_axis = 0 : i64, time_axis = -2 : i64}> : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @broadcast_to_shape(%a: tensor<3x2xf32>) {
  // CHECK: relay.broadcast_to: shapes 3x2 and 4x2 do not broadcast (dimension 0 of the result would be one of [3, 4])
  %0 = relay.broadcast_to %a {shape = array<i64: 4, 2>} : (tensor<3x2xf32>)
  func.return
}

// -----

func.func @tile_reps(%a: tensor<3x2xf32>) {
  // CHECK: relay.tile: reps [2] needs 2 non-negative values
  %0 = relay.tile %a {reps = array<i64: 2>} : (tensor<3x2xf32>)
  func.return
}

// -----

func.func @pad_mode(%a: tensor<3x2xf32>) {
  // CHECK: relay.pad: pad_mode must be one of constant, reflect, edge, wrap, got "mirror"
  %0 = relay.pad %a {pad_width = array<i64: 1, 1, 1, 1>, pad_mode = "mirror"} : (tensor<3x2xf32>)
  func.return
}

// -----

func.func @pad_crop(%a: tensor<3x2xf32>) {
  // CHECK: relay.pad: pad_width [-2, 0, -2, 0] crops tensor<3x2xf32> below size 0
  %0 = relay.pad %a {pad_width = array<i64: -2, 0, -2, 0>} : (tensor<3x2xf32>)
  func.return
}

// -----

func.func @trilu_rank(%a: tensor<3xf32>) {
  // CHECK: relay.trilu: data must have rank >= 2, got tensor<3xf32>
  %0 = relay.trilu %a : tensor<3xf32>
  func.return
}

// -----

func.func @resize_method(%a: tensor<1x1x2x2xf32>) {
  // CHECK: relay.resize: method must be one of nearest_neighbor, linear, cubic, got "bicubic"
  %0 = relay.resize %a {size = array<i64: 1, 1, 4, 4>, method = "bicubic"} : (tensor<1x1x2x2xf32>)
  func.return
}

// -----

func.func @resize_linear_integer(%a: tensor<1x1x2x2xi8>) {
  // CHECK: relay.resize: needs a floating-point tensor, got tensor<1x1x2x2xi8>
  %0 = relay.resize %a {size = array<i64: 1, 1, 4, 4>, method = "linear"} : (tensor<1x1x2x2xi8>)
  func.return
}

// -----

func.func @grid_sample_grid_shape(%a: tensor<1x2x4x4xf32>, %g: tensor<1x3x3x3xf32>) {
  // CHECK: relay.grid_sample: grid tensor<1x3x3x3xf32> must have the rank of the data tensor<1x2x4x4xf32>, its batch (1) first and 2 coordinates in its last axis
  %0 = relay.grid_sample %a, %g : (tensor<1x2x4x4xf32>, tensor<1x3x3x3xf32>)
  func.return
}

// -----

func.func @grid_sample_mode(%a: tensor<1x2x4x4xf32>, %g: tensor<1x3x3x2xf32>) {
  // CHECK: relay.grid_sample: method must be one of nearest, linear, cubic, got "bilinear"
  %0 = relay.grid_sample %a, %g {method = "bilinear"} : (tensor<1x2x4x4xf32>, tensor<1x3x3x2xf32>)
  func.return
}

// -----

func.func @grid_sample_linear_integer(%a: tensor<1x2x4x4xi32>, %g: tensor<1x3x3x2xf32>) {
  // CHECK: relay.grid_sample: method linear interpolates, so data must be floating-point, got tensor<1x2x4x4xi32>
  %0 = relay.grid_sample %a, %g : (tensor<1x2x4x4xi32>, tensor<1x3x3x2xf32>)
  func.return
}

// -----

func.func @col2im_blocks(%a: tensor<1x4x5xf32>) {
  // CHECK: relay.col2im: data's axis 2 (5) must be the number of blocks, 2 x 2 = 4
  %0 = relay.col2im %a {image_size = array<i64: 3, 3>, kernel_size = array<i64: 2, 2>} : (tensor<1x4x5xf32>)
  func.return
}

// -----

func.func @col2im_channels(%a: tensor<1x6x4xf32>) {
  // CHECK: relay.col2im: data's axis 1 (6) is not a multiple of the block size 4 (kernel_size [2, 2])
  %0 = relay.col2im %a {image_size = array<i64: 3, 3>, kernel_size = array<i64: 2, 2>} : (tensor<1x6x4xf32>)
  func.return
}

// -----

func.func @bitcast_width(%a: tensor<3xf32>) {
  // CHECK: relay.bitcast: cannot reinterpret f32 (32 bits) as i64 (64 bits): the widths differ
  %0 = relay.bitcast %a {dtype = i64} : (tensor<3xf32>)
  func.return
}

// -----

func.func @grid_sample_integer_grid(%a: tensor<1x2x4x4xf32>, %g: tensor<1x3x3x2xi64>) {
  // CHECK: relay.grid_sample: grid must be floating-point, got tensor<1x3x3x2xi64>
  %0 = relay.grid_sample %a, %g {method = "nearest"} : (tensor<1x2x4x4xf32>, tensor<1x3x3x2xi64>)
  func.return
}
