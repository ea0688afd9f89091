// Invalid relay.dyn_resize ops, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @params_type(%x: tensor<1x4xf32>, %s: tensor<2xi64>, %p: tensor<6xf32>) {
  // CHECK: relay.dyn_resize: params must be a tensor<6xf64> (scales, roi), got tensor<6xf32>
  %0 = relay.dyn_resize %x, %s, %p {axes = array<i64: 1>, sizes = ["", "w"], dims = [1, "w"]} : (tensor<1x4xf32>, tensor<2xi64>, tensor<6xf32>)
  func.return
}

// -----

func.func @axes_order(%x: tensor<2x4xf32>, %s: tensor<2xi64>, %p: tensor<6xf64>) {
  // CHECK: relay.dyn_resize: axes [1, 0] must be distinct axes in increasing order
  %0 = relay.dyn_resize %x, %s, %p {axes = array<i64: 1, 0>, sizes = ["h", "w"], dims = ["h", "w"]} : (tensor<2x4xf32>, tensor<2xi64>, tensor<6xf64>)
  func.return
}

// -----

func.func @resized_axis_without_size(%x: tensor<2x4xf32>, %s: tensor<2xi64>, %p: tensor<6xf64>) {
  // CHECK: relay.dyn_resize: axis 0 must set a size if and only if it is resized
  %0 = relay.dyn_resize %x, %s, %p {axes = array<i64: 0, 1>, sizes = ["", "w"], dims = [2, "w"]} : (tensor<2x4xf32>, tensor<2xi64>, tensor<6xf64>)
  func.return
}

// -----

func.func @interpolate_ints(%x: tensor<2x4xi8>, %s: tensor<2xi64>, %p: tensor<6xf64>) {
  // CHECK: relay.dyn_resize: needs a floating-point tensor, got tensor<2x4xi8>
  %0 = relay.dyn_resize %x, %s, %p {axes = array<i64: 1>, sizes = ["", "w"], dims = [2, "w"], method = "linear"} : (tensor<2x4xi8>, tensor<2xi64>, tensor<6xf64>)
  func.return
}

// -----

func.func @bad_method(%x: tensor<2x4xf32>, %s: tensor<2xi64>, %p: tensor<6xf64>) {
  // CHECK: relay.dyn_resize: method must be one of nearest_neighbor, linear, cubic, got "bicubic"
  %0 = relay.dyn_resize %x, %s, %p {axes = array<i64: 1>, sizes = ["", "w"], dims = [2, "w"], method = "bicubic"} : (tensor<2x4xf32>, tensor<2xi64>, tensor<6xf64>)
  func.return
}
