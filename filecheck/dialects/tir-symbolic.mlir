// Buffers of symbolic shape: a #tir.sizes layout names their `?`s; a kernel takes
// the sizes as trailing index arguments (its `sizes` attribute), @main reads
// them with tir.size and passes them on.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s

// CHECK:       tir.prim_func @relu(%x: memref<?x8xf32, #tir.sizes<["n"]>>, %y: memref<?x8xf32, #tir.sizes<["n"]>>, %n: index) attributes {sizes = ["n"]} {
// CHECK:         tir.for serial %i = %c0 to %n step %c1 {
// CHECK:           %v = tir.load %x[%i, %j] : memref<?x8xf32, #tir.sizes<["n"]>>
// CHECK:       func.func @main(%a: memref<?x8xf32, #tir.sizes<["n"]>>, %b: memref<?x8xf32, #tir.sizes<["n"]>>) {
// CHECK-NEXT:    %n = tir.size "n" : index
// CHECK-NEXT:    tir.call @relu(%a, %b, %n) : memref<?x8xf32, #tir.sizes<["n"]>>, memref<?x8xf32, #tir.sizes<["n"]>>, index
tir.prim_func @relu(%x: memref<?x8xf32, #tir.sizes<["n"]>>, %y: memref<?x8xf32, #tir.sizes<["n"]>>, %n: index) attributes {sizes = ["n"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  tir.for serial %i = %c0 to %n step %c1 {
    tir.for serial %j = %c0 to %c8 step %c1 {
      %v = tir.load %x[%i, %j] : memref<?x8xf32, #tir.sizes<["n"]>>
      tir.store %v, %y[%i, %j] : memref<?x8xf32, #tir.sizes<["n"]>>
    }
  }
  tir.return
}
func.func @main(%a: memref<?x8xf32, #tir.sizes<["n"]>>, %b: memref<?x8xf32, #tir.sizes<["n"]>>) {
  %n = tir.size "n" : index
  tir.call @relu(%a, %b, %n) : memref<?x8xf32, #tir.sizes<["n"]>>, memref<?x8xf32, #tir.sizes<["n"]>>, index
  func.return
}
