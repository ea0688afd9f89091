// tir.view: a contiguous part of a buffer. Custom form, and generic form re-parsed.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s

// CHECK-LABEL: func.func @main
// CHECK: %[[B:.*]] = tir.alloc global : memref<1x6x4x16xf32>
// CHECK-NEXT: %{{.*}} = tir.view %[[B]][0] : memref<1x6x4x16xf32> to memref<1x2x4x16xf32>
// CHECK-NEXT: %{{.*}} = tir.view %[[B]][128] : memref<1x6x4x16xf32> to memref<1x4x4x16xf32>
// CHECK-NEXT: %{{.*}} = tir.view %[[B]][0] : memref<1x6x4x16xf32> to memref<384xf32>
func.func @main(%x: memref<1x6x4x16xf32>) {
  %b = tir.alloc global : memref<1x6x4x16xf32>
  %lo = tir.view %b[0] : memref<1x6x4x16xf32> to memref<1x2x4x16xf32>
  %hi = tir.view %b[128] : memref<1x6x4x16xf32> to memref<1x4x4x16xf32>
  %flat = tir.view %b[0] : memref<1x6x4x16xf32> to memref<384xf32>
  func.return
}
