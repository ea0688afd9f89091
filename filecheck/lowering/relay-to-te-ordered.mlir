// RUN: lamina-opt %s -p lower-relay-to-te | filecheck %s

// An ordered sum (`relay.sum {ordered}`, qnn.softmax's row sum) becomes a
// te.compute marked `ordered` (lower-te-to-tir gives LLVM no `reassoc`), whose
// schedule has no lane partials: each output adds in index order, 8 rows'
// chains interleaved inside the reduce loop (their accumulators cached) to
// overlap their latencies, the outer loops parallel. A plain sum keeps the
// default reduction template (its last reduce axis rfactored over the lanes).
// CHECK-LABEL: te.func @sum
// CHECK:         te.compute (%{{.*}}, %{{.*}}, %{{.*}}) reduce sum (%{{.*}}) [128] attributes {schedule = "split(i1, 8); reorder(i0, i1.o, i2, r0, i1.i); fuse(i0, i1.o); parallel(i0.i1.o); cache_write(i0.i1.o); unroll(i1.i)", ordered} : tensor<12x128x1xf32>
// CHECK-LABEL: te.func @sum_1
// CHECK:         te.compute (%{{.*}}, %{{.*}}, %{{.*}}) reduce sum (%{{.*}}) [128] : tensor<12x128x1xf32>
// A row count no multiple of 8: the rows one by one.
// CHECK-LABEL: te.func @sum_2
// CHECK:         te.compute (%{{.*}}) reduce sum (%{{.*}}) [10] attributes {schedule = "", ordered} : tensor<3xf32>
func.func @main(%x: tensor<12x128x128xf32>, %y: tensor<3x10xf32>) -> (tensor<12x128x1xf32>, tensor<12x128x1xf32>, tensor<3xf32>) {
  %0 = relay.sum %x {axes = array<i64: 2>, keepdims, ordered} : (tensor<12x128x128xf32>)
  %1 = relay.sum %x {axes = array<i64: 2>, keepdims} : (tensor<12x128x128xf32>)
  %2 = relay.sum %y {axes = array<i64: 1>, ordered} : (tensor<3x10xf32>)
  func.return %0, %1, %2 : tensor<12x128x1xf32>, tensor<12x128x1xf32>, tensor<3xf32>
}
