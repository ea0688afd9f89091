// Invalid tir.dot4 operands, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

tir.prim_func @float_acc(%v: vector<16xf32>, %x: vector<4xui8>, %y: vector<64xi8>) {
  // CHECK: tir.dot4: the accumulator must be a vector of i32, got vector<16xf32>
  %d = tir.dot4 %v, %x, %y : vector<16xf32>, vector<4xui8>, vector<64xi8>
  tir.return
}

// -----

tir.prim_func @signed_a(%v: vector<16xi32>, %x: vector<4xi8>, %y: vector<64xi8>) {
  // CHECK: tir.dot4: a must be 4 or 64 ui8 (unsigned bytes), got vector<4xi8>
  %d = tir.dot4 %v, %x, %y : vector<16xi32>, vector<4xi8>, vector<64xi8>
  tir.return
}

// -----

tir.prim_func @short_b(%v: vector<16xi32>, %x: vector<4xui8>, %y: vector<32xi8>) {
  // CHECK: tir.dot4: b must be 64 signed bytes (i8 or si8), got vector<32xi8>
  %d = tir.dot4 %v, %x, %y : vector<16xi32>, vector<4xui8>, vector<32xi8>
  tir.return
}
