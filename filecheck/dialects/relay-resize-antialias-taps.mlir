// relay.dyn_resize with antialias: one taps operand per resized axis, whose
// size (set by the data) is the number of the widened kernel's taps.
// RUN: %lamina_roundtrip | filecheck %s

// CHECK-LABEL: func.func @antialias(
// CHECK-NEXT:    %0 = relay.dyn_resize %x, %s, %p, %th, %tw {axes = array<i64: 2, 3>, antialias, sizes = ["", "", "h", "w"], dims = [1 : i64, 1 : i64, "h", "w"], method = "cubic"} : (tensor<1x1x8x6xf32>, tensor<4xi64>, tensor<12xf64>, tensor<?xi64, ["th"]>, tensor<?xi64, ["tw"]>) -> tensor<1x1x?x?xf32, ["h", "w"]>
func.func @antialias(%x: tensor<1x1x8x6xf32>, %s: tensor<4xi64>, %p: tensor<12xf64>, %th: tensor<?xi64, ["th"]>, %tw: tensor<?xi64, ["tw"]>) -> tensor<1x1x?x?xf32, ["h", "w"]> {
  %0 = relay.dyn_resize %x, %s, %p, %th, %tw {axes = array<i64: 2, 3>, antialias, sizes = ["", "", "h", "w"], dims = [1, 1, "h", "w"], method = "cubic"} : (tensor<1x1x8x6xf32>, tensor<4xi64>, tensor<12xf64>, tensor<?xi64, ["th"]>, tensor<?xi64, ["tw"]>)
  func.return %0 : tensor<1x1x?x?xf32, ["h", "w"]>
}
