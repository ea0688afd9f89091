// One invalid tir.masked_load or tir.vector_select per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

// A mask as long as the result, of i1: here 8 lanes for a 4-lane load.
// CHECK: mask vector<8xi1> must be a vector of i1 as long as vector<4xf32>
func.func @mask_length(%x: memref<8xf32>, %m: vector<8xi1>, %p: vector<4xf32>, %i: index) {
  %v = tir.masked_load %x[%i], %m, %p : memref<8xf32>, vector<8xi1>, vector<4xf32>
  func.return
}

// -----

// The loaded vector's element type must be the buffer's.
// CHECK: vector access vector<4xf64> does not match the buffer's element type f32
func.func @element(%x: memref<8xf32>, %m: vector<4xi1>, %p: vector<4xf64>, %i: index) {
  %v = tir.masked_load %x[%i], %m, %p : memref<8xf32>, vector<4xi1>, vector<4xf64>
  func.return
}

// -----

// One index per buffer dimension.
// CHECK: tir.masked_load on a rank-2 buffer needs 2 indices, got 1
func.func @indices(%x: memref<8x8xf32>, %m: vector<4xi1>, %p: vector<4xf32>, %i: index) {
  %v = tir.masked_load %x[%i], %m, %p : memref<8x8xf32>, vector<4xi1>, vector<4xf32>
  func.return
}

// -----

// The pass-through vector is the result's type (generic form).
// CHECK: attribute vector<8xf32> expected from variable 'T', but got vector<4xf32>
func.func @pass_thru(%x: memref<8xf32>, %m: vector<4xi1>, %p: vector<8xf32>, %i: index) {
  %v = "tir.masked_load"(%x, %m, %p, %i) : (memref<8xf32>, vector<4xi1>, vector<8xf32>, index) -> vector<4xf32>
  func.return
}

// -----

// tir.vector_select: the mask is as long as the values.
// CHECK: mask vector<8xi1> must be a vector of i1 as long as vector<4xf32>
func.func @select_mask(%m: vector<8xi1>, %a: vector<4xf32>, %b: vector<4xf32>) {
  %s = tir.vector_select %m, %a, %b : vector<8xi1>, vector<4xf32>
  func.return
}
