// A te.func marked lamina.lowered (recall-kernels: its lowering is on record in
// the kernel cache) is kept as it is by lower-te-to-tir, for compile-kernels to
// declare; @main calls it with the sizes the mark names. The unmarked kernel
// is lowered as usual.
// RUN: lamina-opt %s -p lower-te-to-tir | filecheck %s

// CHECK-LABEL: func.func @main(
// CHECK:         %[[B:[0-9]+]] = tir.size "batch" : index
// CHECK-NEXT:    %[[S:[0-9]+]] = tir.size "seq" : index
// CHECK-NEXT:    tir.call @recalled(%{{[0-9]+}}, %[[T:[0-9]+]], %[[B]], %[[S]])
// CHECK:         tir.call @lowered(%[[T]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}})
// CHECK:       te.func @recalled attributes {lamina.lowered = {
// CHECK-NEXT:    te.placeholder "in0"
// CHECK:       tir.prim_func @lowered(
// CHECK-NOT:   te.func @lowered
func.func @main(%x: tensor<?x?xf32, ["batch", "seq"]>) -> tensor<?x?xf32, ["batch", "seq"]> {
  %0 = te.call @recalled(%x) : (tensor<?x?xf32, ["batch", "seq"]>) -> tensor<?x?xf32, ["batch", "seq"]>
  %1 = te.call @lowered(%0) : (tensor<?x?xf32, ["batch", "seq"]>) -> tensor<?x?xf32, ["batch", "seq"]>
  func.return %1 : tensor<?x?xf32, ["batch", "seq"]>
}
te.func @recalled attributes {lamina.lowered = {digest = "0f0f", buffers = 2 : i64, sizes = ["batch", "seq"], calls = []}} {
  %0 = te.placeholder "in0" : tensor<?x?xf32, ["batch", "seq"]>
  %1 = te.compute (%i, %j) : tensor<?x?xf32, ["batch", "seq"]> {
    %2 = te.read %0[%i, %j] : tensor<?x?xf32, ["batch", "seq"]>
    %3 = math.exp %2 : f32
    te.yield %3 : f32
  }
  te.output %1 : tensor<?x?xf32, ["batch", "seq"]>
}
te.func @lowered {
  %0 = te.placeholder "in0" : tensor<?x?xf32, ["batch", "seq"]>
  %1 = te.compute (%i, %j) : tensor<?x?xf32, ["batch", "seq"]> {
    %2 = te.read %0[%i, %j] : tensor<?x?xf32, ["batch", "seq"]>
    %3 = math.sqrt %2 : f32
    te.yield %3 : f32
  }
  te.output %1 : tensor<?x?xf32, ["batch", "seq"]>
}
