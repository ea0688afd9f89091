// One invalid tir.vector_cmp per chunk (the lane-wise comparison tir-vectorize
// makes of a lane-dependent condition). Ops in custom form are type-checked while
// parsing (--parsing-diagnostics); ops in generic form reach the verifier
// (--verify-diagnostics).
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

// An ordered float predicate on integers.
// CHECK: tir.vector_cmp: 'olt' is not a predicate for vector<4xi32>; expected one of eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge
func.func @int_predicate(%a: vector<4xi32>) {
  %m = tir.vector_cmp "olt", %a, %a : vector<4xi32> -> vector<4xi1>
  func.return
}

// -----

// A signed integer predicate on floats.
// CHECK: tir.vector_cmp: 'slt' is not a predicate for vector<4xf32>; expected one of false, oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, uge, ult, ule, une, uno, true
func.func @float_predicate(%a: vector<4xf32>) {
  %m = tir.vector_cmp "slt", %a, %a : vector<4xf32> -> vector<4xi1>
  func.return
}

// -----

// One i1 per lane: not 8 for 4 lanes.
// CHECK: tir.vector_cmp of vector<4xf32> must give vector<...xi1> of its shape, not vector<8xi1>
func.func @result_length(%a: vector<4xf32>) {
  %m = tir.vector_cmp "olt", %a, %a : vector<4xf32> -> vector<8xi1>
  func.return
}

// -----

// In custom form both sides have one type.
// CHECK: operand is used with type vector<4xf32>, but has been previously used or defined with type vector<4xf64>
func.func @types_custom(%a: vector<4xf32>, %b: vector<4xf64>) {
  %m = tir.vector_cmp "olt", %a, %b : vector<4xf32> -> vector<4xi1>
  func.return
}

// -----

// The generic form reaches the same checks: sides of different types ...
// CHECK: Operation does not verify: operand 'rhs' at position 1 does not verify:
// CHECK: attribute vector<4xf32> expected from variable 'T', but got vector<4xf64>
func.func @types_generic(%a: vector<4xf32>, %b: vector<4xf64>) {
  %m = "tir.vector_cmp"(%a, %b) <{predicate = "olt"}> : (vector<4xf32>, vector<4xf64>) -> vector<4xi1>
  func.return
}

// -----

// ... a result of i8 ...
// CHECK: Operation does not verify: tir.vector_cmp of vector<4xf32> must give vector<...xi1> of its shape, not vector<4xi8>
func.func @result_element(%a: vector<4xf32>) {
  %m = "tir.vector_cmp"(%a, %a) <{predicate = "olt"}> : (vector<4xf32>, vector<4xf32>) -> vector<4xi8>
  func.return
}

// -----

// ... scalars ...
// CHECK: Operation does not verify: operand 'lhs' at position 0 does not verify:
// CHECK: f32 should be of base attribute vector
func.func @scalar(%a: f32) {
  %m = "tir.vector_cmp"(%a, %a) <{predicate = "olt"}> : (f32, f32) -> vector<4xi1>
  func.return
}

// -----

// ... and no predicate.
// CHECK: property 'predicate' expected in operation 'tir.vector_cmp'
func.func @no_predicate(%a: vector<4xf32>) {
  %m = "tir.vector_cmp"(%a, %a) : (vector<4xf32>, vector<4xf32>) -> vector<4xi1>
  func.return
}
