// relay.dyn_resize: ONNX Resize to sizes set by the data (its `shape`
// operand), the scales and roi read from `params` when the kernel runs; axes
// outside `axes` keep their size and set none.
// RUN: %lamina_roundtrip | filecheck %s

// CHECK-LABEL: func.func @resize(%x: tensor<1x3x4x5xf32>, %s: tensor<4xi64>, %p: tensor<12xf64>) -> tensor<1x3x?x?xf32, ["h", "w"]> {
// CHECK-NEXT:    %0 = relay.dyn_resize %x, %s, %p {axes = array<i64: 2, 3>, sizes = ["", "", "h", "w"], dims = [1 : i64, 3 : i64, "h", "w"], method = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<1x3x4x5xf32>, tensor<4xi64>, tensor<12xf64>) -> tensor<1x3x?x?xf32, ["h", "w"]>
// CHECK-NEXT:    func.return %0 : tensor<1x3x?x?xf32, ["h", "w"]>
// CHECK-NEXT:  }
func.func @resize(%x: tensor<1x3x4x5xf32>, %s: tensor<4xi64>, %p: tensor<12xf64>) -> tensor<1x3x?x?xf32, ["h", "w"]> {
  %0 = relay.dyn_resize %x, %s, %p {axes = array<i64: 2, 3>, sizes = ["", "", "h", "w"], dims = [1, 3, "h", "w"], method = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<1x3x4x5xf32>, tensor<4xi64>, tensor<12xf64>)
  func.return %0 : tensor<1x3x?x?xf32, ["h", "w"]>
}

// -----

// CHECK-LABEL: func.func @nearest_symbolic(%x: tensor<?x8xi8, ["n"]>, %s: tensor<2xi64>, %p: tensor<6xf64>) -> tensor<?x?xi8, ["n", "m"]> {
// CHECK-NEXT:    %0 = relay.dyn_resize %x, %s, %p {axes = array<i64: 1>, sizes = ["", "m"], dims = ["n", "m"], rounding_method = "floor"} : (tensor<?x8xi8, ["n"]>, tensor<2xi64>, tensor<6xf64>) -> tensor<?x?xi8, ["n", "m"]>
func.func @nearest_symbolic(%x: tensor<?x8xi8, ["n"]>, %s: tensor<2xi64>, %p: tensor<6xf64>) -> tensor<?x?xi8, ["n", "m"]> {
  %0 = relay.dyn_resize %x, %s, %p {axes = array<i64: 1>, sizes = ["", "m"], dims = ["n", "m"], rounding_method = "floor"} : (tensor<?x8xi8, ["n"]>, tensor<2xi64>, tensor<6xf64>)
  func.return %0 : tensor<?x?xi8, ["n", "m"]>
}
