// Invalid shapes given as data, checks and unbounded set-size ops, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @shape_f32(%x: tensor<6xf32>, %s: tensor<2xf32>) {
  // CHECK: relay.dyn_reshape: shape must be a static 1-D i64 tensor, got tensor<2xf32>
  %0 = relay.dyn_reshape %x, %s {sizes = ["a", "b"], dims = ["a", "b"]} : (tensor<6xf32>, tensor<2xf32>)
  func.return
}

// -----

func.func @shape_2d(%x: tensor<6xf32>, %s: tensor<1x2xi64>) {
  // CHECK: relay.dyn_reshape: shape must be a static 1-D i64 tensor, got tensor<1x2xi64>
  %0 = relay.dyn_reshape %x, %s {sizes = ["a", "b"], dims = ["a", "b"]} : (tensor<6xf32>, tensor<1x2xi64>)
  func.return
}

// -----

func.func @shape_symbolic(%x: tensor<6xf32>, %s: tensor<?xi64, ["k"]>) {
  // CHECK: relay.dyn_reshape: shape must be a static 1-D i64 tensor, got tensor<?xi64, ["k"]>
  %0 = relay.dyn_reshape %x, %s {sizes = ["a"], dims = ["a"]} : (tensor<6xf32>, tensor<?xi64, ["k"]>)
  func.return
}

// -----

func.func @sizes_count(%x: tensor<6xf32>, %s: tensor<2xi64>) {
  // CHECK: relay.dyn_reshape: sizes names 1 size(s), but the shape has 2 element(s)
  %0 = relay.dyn_reshape %x, %s {sizes = ["a"], dims = ["a", 6]} : (tensor<6xf32>, tensor<2xi64>)
  func.return
}

// -----

func.func @dims_count(%x: tensor<6xf32>, %s: tensor<2xi64>) {
  // CHECK: relay.dyn_reshape: dims has 1 entries, the shape 2
  %0 = relay.dyn_reshape %x, %s {sizes = ["a", "b"], dims = ["a"]} : (tensor<6xf32>, tensor<2xi64>)
  func.return
}

// -----

func.func @sizes_not_strings(%x: tensor<6xf32>, %s: tensor<2xi64>) {
  // CHECK: relay.dyn_reshape: sizes must be an array of size names, got [1 : i64, 2 : i64]
  %0 = relay.dyn_reshape %x, %s {sizes = [1, 2], dims = ["a", "b"]} : (tensor<6xf32>, tensor<2xi64>)
  func.return
}

// -----

func.func @dim_not_its_size(%x: tensor<6xf32>, %s: tensor<2xi64>) {
  // CHECK: relay.dyn_reshape: dim 1 must be the size 'b' it sets, got c
  %0 = relay.dyn_reshape %x, %s {sizes = ["a", "b"], dims = ["a", "c"]} : (tensor<6xf32>, tensor<2xi64>)
  func.return
}

// -----

func.func @dim_static_named(%x: tensor<6xf32>, %s: tensor<2xi64>) {
  // CHECK: relay.dyn_reshape: dim 1 must be the size 'b' it sets, got 3
  %0 = relay.dyn_reshape %x, %s {sizes = ["a", "b"], dims = ["a", 3]} : (tensor<6xf32>, tensor<2xi64>)
  func.return
}

// -----

func.func @repeated(%x: tensor<6xf32>, %s: tensor<2xi64>) {
  // CHECK: relay.dyn_reshape: a size is named twice in ['a', 'a']
  %0 = relay.dyn_reshape %x, %s {sizes = ["a", "a"], dims = ["a", "a"]} : (tensor<6xf32>, tensor<2xi64>)
  func.return
}

// -----

func.func @bad_name(%x: tensor<6xf32>, %s: tensor<1xi64>) {
  // CHECK: relay.dyn_reshape: '2a' is not a size name
  %0 = relay.dyn_reshape %x, %s {sizes = ["2a"], dims = ["a"]} : (tensor<6xf32>, tensor<1xi64>)
  func.return
}

// -----

func.func @unnamed_uses_set(%x: tensor<3x1xf32>, %s: tensor<2xi64>) {
  // CHECK: relay.dyn_broadcast_to: dim 0 (2*b) uses a size this op sets
  %0 = relay.dyn_broadcast_to %x, %s {sizes = ["", "b"], dims = ["2*b", "b"]} : (tensor<3x1xf32>, tensor<2xi64>)
  func.return
}

// -----

func.func @bc_rank(%x: tensor<2x3x1xf32>, %s: tensor<2xi64>) {
  // CHECK: relay.dyn_broadcast_to: data of rank 3 cannot broadcast to rank 2
  %0 = relay.dyn_broadcast_to %x, %s {sizes = ["a", "b"], dims = ["a", "b"]} : (tensor<2x3x1xf32>, tensor<2xi64>)
  func.return
}

// -----

func.func @bc_dim(%x: tensor<3x2xf32>, %s: tensor<2xi64>) {
  // CHECK: relay.dyn_broadcast_to: a dim of 2 cannot broadcast to 4
  %0 = relay.dyn_broadcast_to %x, %s {sizes = ["a", ""], dims = ["a", 4]} : (tensor<3x2xf32>, tensor<2xi64>)
  func.return
}

// -----

func.func @arange_i32(%n: tensor<i32>) {
  // CHECK: relay.dyn_arange: count must be an i64 scalar (tensor<i64>), got tensor<i32>
  %0 = relay.dyn_arange %n {size = "n"} : (tensor<i32>)
  func.return
}

// -----

func.func @arange_vector(%n: tensor<1xi64>) {
  // CHECK: relay.dyn_arange: count must be an i64 scalar (tensor<i64>), got tensor<1xi64>
  %0 = relay.dyn_arange %n {size = "n"} : (tensor<1xi64>)
  func.return
}

// -----

func.func @arange_name(%n: tensor<i64>) {
  // CHECK: relay.dyn_arange: size must name a size (an identifier), got "n + 1"
  %0 = relay.dyn_arange %n {size = "n + 1"} : (tensor<i64>)
  func.return
}

// -----

func.func @check_int(%x: tensor<2xf32>, %ok: tensor<i64>) {
  // CHECK: relay.check: cond must be a boolean scalar (tensor<i1>), got tensor<i64>
  %0 = relay.check %x, %ok {message = "m"} : (tensor<2xf32>, tensor<i64>)
  func.return
}

// -----

func.func @check_vector(%x: tensor<2xf32>, %ok: tensor<2xi1>) {
  // CHECK: relay.check: cond must be a boolean scalar (tensor<i1>), got tensor<2xi1>
  %0 = relay.check %x, %ok {message = "m"} : (tensor<2xf32>, tensor<2xi1>)
  func.return
}

// -----

func.func @check_message(%x: tensor<2xf32>, %ok: tensor<i1>) {
  // CHECK: relay.check: property 'message' = 3 : i64 is invalid: 3 : i64 should be of base attribute string
  %0 = relay.check %x, %ok {message = 3} : (tensor<2xf32>, tensor<i1>)
  func.return
}

// -----

func.func @te_index_range(%s: tensor<2xi64>) {
  // CHECK: te.set_size: index 2 is out of the count's 2 elements
  te.set_size "a" = %s[2] : tensor<2xi64>
  func.return
}

// -----

func.func @te_index_missing(%s: tensor<2xi64>) {
  // CHECK: te.set_size: count must be a tensor<i64>, got tensor<2xi64>
  te.set_size "a" = %s : tensor<2xi64>
  func.return
}

// -----

func.func @te_index_scalar(%s: tensor<i64>) {
  // CHECK: te.set_size: count must be a 1-D tensor of i64 (with an [index]), got tensor<i64>
  te.set_size "a" = %s[0] : tensor<i64>
  func.return
}

// -----

func.func @te_check_int(%ok: tensor<i64>) {
  // CHECK: te.check: cond must be a tensor<i1>, got tensor<i64>
  te.check %ok, "m" : tensor<i64>
  func.return
}

// -----

func.func @tir_index_range(%s: memref<3xi64>) {
  // CHECK: tir.set_size: index -1 is out of the count's 3 elements
  tir.set_size "a" = %s[-1] : memref<3xi64>
  func.return
}

// -----

func.func @tir_index_f(%s: memref<3xf32>) {
  // CHECK: tir.set_size: count must be a 1-D memref of i64 (with an [index]), got memref<3xf32>
  tir.set_size "a" = %s[0] : memref<3xf32>
  func.return
}

// -----

func.func @tir_check_i64(%ok: i64) {
  // CHECK: operand is used with type i1, but has been previously used or defined with type i64
  tir.check %ok, "m"
  func.return
}

// -----

func.func @tir_unbounded_bad_name(%c: memref<i64>) {
  // CHECK: tir.set_size: '1n' is not a size name
  tir.set_size "1n" = %c : memref<i64>
  func.return
}
