// One invalid tir.masked_store per chunk (the store tir-vectorize makes of a
// store under a lane-dependent guard).
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

// A mask as long as the value, of i1: here 8 lanes for a 4-lane value.
// CHECK: mask vector<8xi1> must be a vector of i1 as long as vector<4xf32>
func.func @mask_length(%y: memref<8xf32>, %v: vector<4xf32>, %m: vector<8xi1>) {
  %c0 = arith.constant 0 : index
  tir.masked_store %v, %y[%c0], %m : memref<8xf32>, vector<4xf32>, vector<8xi1>
  func.return
}

// -----

// A mask of i8 instead of i1.
// CHECK: mask vector<4xi8> must be a vector of i1 as long as vector<4xf32>
func.func @mask_element(%y: memref<8xf32>, %v: vector<4xf32>, %m: vector<4xi8>) {
  %c0 = arith.constant 0 : index
  tir.masked_store %v, %y[%c0], %m : memref<8xf32>, vector<4xf32>, vector<4xi8>
  func.return
}

// -----

// The stored vector's element type must be the buffer's.
// CHECK: vector access vector<4xf64> does not match the buffer's element type f32
func.func @value_element(%y: memref<8xf32>, %v: vector<4xf64>, %m: vector<4xi1>) {
  %c0 = arith.constant 0 : index
  tir.masked_store %v, %y[%c0], %m : memref<8xf32>, vector<4xf64>, vector<4xi1>
  func.return
}

// -----

// One index per buffer dimension.
// CHECK: tir.masked_store on a rank-2 buffer needs 2 indices, got 1
func.func @indices(%y: memref<8x8xf32>, %v: vector<4xf32>, %m: vector<4xi1>) {
  %c0 = arith.constant 0 : index
  tir.masked_store %v, %y[%c0], %m : memref<8x8xf32>, vector<4xf32>, vector<4xi1>
  func.return
}

// -----

// The generic form reaches the same verifier.
// CHECK: mask vector<2xi1> must be a vector of i1 as long as vector<4xf32>
func.func @generic(%y: memref<8xf32>, %v: vector<4xf32>, %m: vector<2xi1>, %i: index) {
  "tir.masked_store"(%v, %y, %m, %i) : (vector<4xf32>, memref<8xf32>, vector<2xi1>, index) -> ()
  func.return
}

// -----

// A scalar i1 is not a mask.
// CHECK: operand 'mask' at position 2 does not verify:
// CHECK-NEXT: i1 should be of base attribute vector
func.func @scalar_mask(%y: memref<8xf32>, %v: vector<4xf32>, %m: i1, %i: index) {
  "tir.masked_store"(%v, %y, %m, %i) : (vector<4xf32>, memref<8xf32>, i1, index) -> ()
  func.return
}
