// RUN: not lamina-opt %s -p lower-tir-to-llvm 2>&1 | filecheck %s

// Unsupported input is a diagnostic naming the op and what to do, not a traceback.

tir.prim_func @f(%x: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %v = tir.load %x[%c0] : memref<4xi32>
  %r = math.ctpop %v : i32
  tir.store %r, %x[%c0] : memref<4xi32>
  tir.return
}

// CHECK: lamina-opt: error: tir.prim_func @f: no lowering to LLVM for 'math.ctpop'
// CHECK-NOT: Traceback
