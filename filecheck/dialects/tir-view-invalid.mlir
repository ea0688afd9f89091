// One invalid tir.view per chunk.
// RUN: lamina-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: tir.view: elements 8..24 are outside the 16 of memref<16xf32>
func.func @past_the_end(%b: memref<16xf32>) {
  %v = tir.view %b[8] : memref<16xf32> to memref<16xf32>
  func.return
}

// -----

// CHECK: tir.view: elements -4..4 are outside the 16 of memref<16xf32>
func.func @negative(%b: memref<16xf32>) {
  %v = tir.view %b[-4] : memref<16xf32> to memref<8xf32>
  func.return
}

// -----

// CHECK: tir.view: a view of memref<16xf32> has its element type, not i32
func.func @element_type(%b: memref<16xf32>) {
  %v = tir.view %b[0] : memref<16xf32> to memref<8xi32>
  func.return
}

// -----

// CHECK: tir.view: the buffer memref<?xf32, #tir.sizes<["n"]>> must have a static shape
func.func @symbolic(%b: memref<?xf32, #tir.sizes<["n"]>>) {
  %v = tir.view %b[0] : memref<?xf32, #tir.sizes<["n"]>> to memref<8xf32>
  func.return
}
