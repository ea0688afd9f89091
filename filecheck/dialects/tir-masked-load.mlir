// Round trip of tir.masked_load (the load tir-vectorize makes of a clamped,
// padded-window read: the lanes whose mask bit is set are read, the others come
// from the pass-through vector). Custom form, and generic form re-parsed.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @edge(%x: memref<2x10xf32>, %m: vector<4xi1>, %p: vector<4xf32>, %y: memref<2x12xf32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant -1 : index
// CHECK-NEXT:    %v = tir.masked_load %x[%c0, %c1], %m, %p : memref<2x10xf32>, vector<4xi1>, vector<4xf32>
// CHECK-NEXT:    tir.store %v, %y[%c0, %c0] : memref<2x12xf32>, vector<4xf32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// GENERIC: %v = "tir.masked_load"(%x, %m, %p, %c0, %c1) : (memref<2x10xf32>, vector<4xi1>, vector<4xf32>, index, index) -> vector<4xf32>
func.func @edge(%x: memref<2x10xf32>, %m: vector<4xi1>, %p: vector<4xf32>, %y: memref<2x12xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant -1 : index
  %v = tir.masked_load %x[%c0, %c1], %m, %p : memref<2x10xf32>, vector<4xi1>, vector<4xf32>
  tir.store %v, %y[%c0, %c0] : memref<2x12xf32>, vector<4xf32>
  func.return
}
