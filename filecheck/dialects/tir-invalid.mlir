// One invalid tir op per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

// CHECK: tir.prim_func returns nothing: remove its result types
tir.prim_func @returns_custom(%x: memref<4xf32>) -> f32 {
  tir.return
}

// -----

// CHECK: Operation does not verify: tir.prim_func @returns_generic must not return values: kernels write their outputs into buffer arguments
"tir.prim_func"() <{sym_name = "returns_generic", function_type = (memref<4xf32>) -> f32}> ({
^bb0(%x: memref<4xf32>):
  "tir.return"() : () -> ()
}) : () -> ()

// -----

// CHECK: Operation does not verify: tir.prim_func @tensor_arg: argument #0 has type tensor<4xf32>, but kernel arguments must be memrefs
tir.prim_func @tensor_arg(%x: tensor<4xf32>) {
  tir.return
}

// -----

// CHECK: Operation does not verify: tir.prim_func @block_args: entry block arguments do not match the function type
"tir.prim_func"() <{sym_name = "block_args", function_type = (memref<4xf32>) -> ()}> ({
^bb0(%x: memref<8xf32>):
  "tir.return"() : () -> ()
}) : () -> ()

// -----

func.func @return_outside() {
  // CHECK: Operation does not verify: 'tir.return' expects parent op 'tir.prim_func'
  tir.return
}

// -----

func.func @call_tensor(%x: tensor<4xf32>) {
  // CHECK: tir.call: argument #0 has type tensor<4xf32>; kernels take buffers (memrefs), then sizes (index)
  tir.call @k(%x) : tensor<4xf32>
  func.return
}

// -----

tir.prim_func @for_body_args(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  // CHECK: Operation does not verify: tir.for body must have exactly one argument, the index-typed induction variable
  "tir.for"(%c0, %c0, %c0) <{kind = #tir<for_kind serial>}> ({
  ^bb0(%i: index, %j: index):
    "tir.yield"() : () -> ()
  }) : (index, index, index) -> ()
  tir.return
}

// -----

tir.prim_func @for_kind(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  // CHECK: Expected `serial`, `parallel`, `vectorized`, or `unrolled`.
  tir.for blocked %i = %c0 to %c0 step %c0 {
  }
  tir.return
}

// -----

tir.prim_func @for_bound_type(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : index
  // CHECK: Operation does not verify: operand 'lb' at position 0 does not verify:
  // CHECK-NEXT: i32 should be of base attribute index
  "tir.for"(%c0, %c1, %c1) <{kind = #tir<for_kind serial>}> ({
  ^bb0(%i: index):
    "tir.yield"() : () -> ()
  }) : (i32, index, index) -> ()
  tir.return
}

// -----

tir.prim_func @if_condition(%x: memref<4xf32>) {
  %c = arith.constant 0 : i32
  // CHECK: Operation does not verify: operand 'cond' at position 0 does not verify:
  // CHECK-NEXT: Expected attribute i1 but got i32
  "tir.if"(%c) ({
    "tir.yield"() : () -> ()
  }) : (i32) -> ()
  tir.return
}

// -----

tir.prim_func @load_index_count(%x: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  // CHECK: Operation does not verify: tir.load on a rank-2 buffer needs 2 indices, got 1
  %v = tir.load %x[%c0] : memref<4x8xf32>
  tir.return
}

// -----

tir.prim_func @load_element_type(%x: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  // CHECK: Operation does not verify: access type f16 does not match the buffer's element type f32
  %v = tir.load %x[%c0, %c0] : memref<4x8xf32>, f16
  tir.return
}

// -----

tir.prim_func @load_vector_type(%x: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  // CHECK: Operation does not verify: vector access vector<4xf16> does not match the buffer's element type f32
  %v = tir.load %x[%c0, %c0] : memref<4x8xf32>, vector<4xf16>
  tir.return
}

// -----

tir.prim_func @load_vector_rank(%x: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  // CHECK: Operation does not verify: vector access vector<2x2xf32> does not match the buffer's element type f32
  %v = tir.load %x[%c0, %c0] : memref<4x8xf32>, vector<2x2xf32>
  tir.return
}

// -----

tir.prim_func @store_index_count(%x: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  // CHECK: Operation does not verify: tir.store on a rank-2 buffer needs 2 indices, got 3
  tir.store %v, %x[%c0, %c0, %c0] : memref<4x8xf32>
  tir.return
}

// -----

tir.prim_func @store_element_type(%x: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %v = arith.constant 1 : i32
  // CHECK: Operation does not verify: access type i32 does not match the buffer's element type f32
  tir.store %v, %x[%c0, %c0] : memref<4x8xf32>, i32
  tir.return
}

// -----

tir.prim_func @store_vector_type(%x: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %v = arith.constant dense<1.0> : vector<4xf16>
  // CHECK: Operation does not verify: vector access vector<4xf16> does not match the buffer's element type f32
  tir.store %v, %x[%c0, %c0] : memref<4x8xf32>, vector<4xf16>
  tir.return
}

// -----

func.func @alloc_dynamic() {
  // CHECK: Operation does not verify: tir.alloc needs a static shape or named sizes (a #tir.sizes layout), got memref<?xf32>
  %g = tir.alloc global : memref<?xf32>
  func.return
}

// -----

func.func @alloc_scope() {
  // CHECK: Expected `global`, or `local`.
  %g = tir.alloc shared : memref<4xf32>
  func.return
}

// -----

func.func @constant_type() {
  // CHECK: Operation does not verify: tir.constant: resource type tensor<4x8xf32> does not match buffer type memref<8x4xf32>
  %w = "tir.constant"() <{value = dense_resource<w0> : tensor<4x8xf32>}> : () -> memref<8x4xf32>
  func.return
}

// -----

func.func @constant_tensor() {
  // CHECK: tir.constant needs a memref type, got tensor<4x8xf32>
  %w = tir.constant dense_resource<w0> : tensor<4x8xf32>
  func.return
}

// -----

tir.prim_func @store_not_memref(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  // CHECK: tir.store needs a memref type, got tensor<4xf32>
  tir.store %v, %x[%c0] : tensor<4xf32>
  tir.return
}

// -----

tir.prim_func @k(%a: memref<4xf32>) {
  tir.return
}
func.func @main(%x: memref<8xf32>) {
  tir.call @k(%x) : memref<8xf32>
  func.return
}
// CHECK: tir.call @k: buffer types (memref<8xf32>) do not match the kernel's (memref<4xf32>)
