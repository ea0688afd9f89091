// RUN: lamina-opt %s -p lower-relay-to-te | filecheck %s

// An antialiased relay.dyn_resize lowers to one kernel of four computes: the
// sum of the weights along each resized axis (a reduction over that axis'
// taps, a size set by the data), the weighted values (a reduction over both
// axes' taps, in f64), and their quotient in the element type.

// CHECK-LABEL: func.func @main
// CHECK:         te.set_size "th" = %nh : tensor<i64>
// CHECK:         te.set_size "tw" = %nw : tensor<i64>
// CHECK:         te.call @dyn_resize(%x, %s, %p, %th, %tw)
// CHECK-LABEL: te.func @dyn_resize
// CHECK:         te.compute ({{.*}}) reduce sum ({{.*}}) ["th"] : tensor<?xf64, ["h"]>
// CHECK:         te.compute ({{.*}}) reduce sum ({{.*}}) ["tw"] : tensor<?xf64, ["w"]>
// CHECK:         te.compute ({{.*}}) reduce sum ({{.*}}, {{.*}}) ["th", "tw"] : tensor<1x1x?x?xf64, ["h", "w"]>
// CHECK:         te.compute ({{.*}}) : tensor<1x1x?x?xf32, ["h", "w"]>
// CHECK-NOT:     te.compute
func.func @main(%x: tensor<1x1x8x6xf32>, %s: tensor<4xi64>, %p: tensor<12xf64>, %nh: tensor<i64>, %nw: tensor<i64>) -> tensor<1x1x?x?xf32, ["h", "w"]> {
  %th = relay.dyn_arange %nh {size = "th"} : (tensor<i64>) -> tensor<?xi64, ["th"]>
  %tw = relay.dyn_arange %nw {size = "tw"} : (tensor<i64>) -> tensor<?xi64, ["tw"]>
  %0 = relay.dyn_resize %x, %s, %p, %th, %tw {axes = array<i64: 2, 3>, antialias, sizes = ["", "", "h", "w"], dims = [1, 1, "h", "w"], method = "cubic"} : (tensor<1x1x8x6xf32>, tensor<4xi64>, tensor<12xf64>, tensor<?xi64, ["th"]>, tensor<?xi64, ["tw"]>)
  func.return %0 : tensor<1x1x?x?xf32, ["h", "w"]>
}
