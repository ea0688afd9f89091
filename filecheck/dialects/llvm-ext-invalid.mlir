// One invalid llvm.extractelement per chunk (dialects/llvm_ext.py). Ops in generic
// form reach the verifier (--verify-diagnostics).
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

// The custom form names the vector's type: a scalar there is a type conflict.
// CHECK: operand is used with type f32, but has been previously used or defined with type vector<4xf32>
func.func @scalar_custom(%v: vector<4xf32>, %i: i32) {
  %e = llvm.extractelement %v[%i : i32] : f32
  func.return
}

// -----

// Only a vector has elements.
// CHECK: Operation does not verify: operand 'vector' at position 0 does not verify:
// CHECK: f32 should be of base attribute vector
func.func @scalar_generic(%a: f32, %i: i32) {
  %e = "llvm.extractelement"(%a, %i) : (f32, i32) -> f32
  func.return
}

// -----

// The lane index is an integer, not an index.
// CHECK: Operation does not verify: operand 'position' at position 1 does not verify:
// CHECK: index should be of base attribute integer_type
func.func @index_position(%v: vector<4xf32>, %i: index) {
  %e = "llvm.extractelement"(%v, %i) : (vector<4xf32>, index) -> f32
  func.return
}
