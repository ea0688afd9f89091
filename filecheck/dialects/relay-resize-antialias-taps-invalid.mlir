// Invalid antialiased relay.dyn_resize ops, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @taps_per_axis(%x: tensor<1x1x8x6xf32>, %s: tensor<4xi64>, %p: tensor<12xf64>, %th: tensor<?xi64, ["th"]>) {
  // CHECK: relay.dyn_resize: antialias needs one 1-D i64 taps operand per resized axis (2), got (tensor<?xi64, ["th"]>)
  %0 = relay.dyn_resize %x, %s, %p, %th {axes = array<i64: 2, 3>, antialias, sizes = ["", "", "h", "w"], dims = [1, 1, "h", "w"], method = "linear"} : (tensor<1x1x8x6xf32>, tensor<4xi64>, tensor<12xf64>, tensor<?xi64, ["th"]>)
  func.return
}

// -----

func.func @nearest(%x: tensor<1x8xf32>, %s: tensor<2xi64>, %p: tensor<6xf64>, %t: tensor<?xi64, ["t"]>) {
  // CHECK: relay.dyn_resize: antialias needs method linear or cubic
  %0 = relay.dyn_resize %x, %s, %p, %t {axes = array<i64: 1>, antialias, sizes = ["", "w"], dims = [1, "w"]} : (tensor<1x8xf32>, tensor<2xi64>, tensor<6xf64>, tensor<?xi64, ["t"]>)
  func.return
}

// -----

func.func @taps_without_antialias(%x: tensor<1x8xf32>, %s: tensor<2xi64>, %p: tensor<6xf64>, %t: tensor<?xi64, ["t"]>) {
  // CHECK: relay.dyn_resize: taps operands are for antialias only
  %0 = relay.dyn_resize %x, %s, %p, %t {axes = array<i64: 1>, sizes = ["", "w"], dims = [1, "w"], method = "linear"} : (tensor<1x8xf32>, tensor<2xi64>, tensor<6xf64>, tensor<?xi64, ["t"]>)
  func.return
}
