// A TE kernel over symbolic extents: tensor types name their sizes and reduce
// extents may be symbolic (quoted).
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s

// CHECK:      %1 = te.compute (%2) reduce sum (%3) ["seq"] : tensor<?xf32, ["batch"]> {
// CHECK-NEXT:   %4 = te.read %0[%2, %3] : tensor<?x?xf32, ["batch", "seq"]>
// CHECK:      %6 = te.compute (%7, %8) reduce max (%9, %10) ["2*seq", 3] : tensor<?x4xf32, ["batch"]> {
te.func @rowsum {
  %0 = te.placeholder "in0" : tensor<?x?xf32, ["batch", "seq"]>
  %1 = te.compute (%2) reduce sum (%3) ["seq"] : tensor<?xf32, ["batch"]> {
    %4 = te.read %0[%2, %3] : tensor<?x?xf32, ["batch", "seq"]>
    te.yield %4 : f32
  }
  %5 = arith.constant 0 : index
  %6 = te.compute (%7, %8) reduce max (%9, %10) ["seq*2", 3] : tensor<?x4xf32, ["batch"]> {
    %11 = te.read %0[%7, %5] : tensor<?x?xf32, ["batch", "seq"]>
    te.yield %11 : f32
  }
  te.output %1, %6 : tensor<?xf32, ["batch"]>, tensor<?x4xf32, ["batch"]>
}
