// Invalid tir.call_extern ops, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

tir.prim_func @float_argument(%x: memref<4xf32>, %s: memref<i64>) {
  %f = arith.constant 1.0 : f32
  // CHECK: tir.call_extern @f: argument #1 has type f32; an external function takes buffers (memrefs), index values and integers
  %r = tir.call_extern @f(%x, %f) : (memref<4xf32>, f32) -> i64
  tir.return
}

// -----

tir.prim_func @float_result(%x: memref<4xf32>) {
  // CHECK: f32 should be of base attribute integer_type
  %r = tir.call_extern @f(%x) : (memref<4xf32>) -> f32
  tir.return
}

// -----

builtin.module {
  tir.prim_func @k(%x: memref<4xf32>) {
    tir.return
  }
  tir.prim_func @calls_a_kernel(%x: memref<4xf32>) {
    // CHECK: tir.call_extern @k: the module defines it; call a kernel of the module with tir.call
    %r = tir.call_extern @k(%x) : (memref<4xf32>) -> i64
    tir.return
  }
}
