// RUN: lamina-opt %s -p lower-tir-to-llvm | filecheck %s

// A kernel the graph calls inside a loop (a relay.loop's body) runs once per
// iteration: a parallel loop of it with little work (below
// LOOP_SERIAL_WORK operation instances: @small's 8 x 4) runs serially, since a
// fork and join of the threads per iteration costs more than it saves. The
// same loop in a kernel called once (@once) is outlined as before, and so is a
// big one in the loop (@big, 64 x 2048).

// CHECK:       builtin.module attributes {lamina.target_spec = "{{[^"]*}}", lamina.parallel = {{\[\[}}"once_par0_launch", "once_par0", {{.*}}], ["big_par0_launch", "big_par0", {{.*}}]],
// CHECK-LABEL: llvm.func @small(
// CHECK-NOT:     _launch
// CHECK:         llvm.fmul
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @once(
// CHECK:         llvm.call @once_par0_launch
// CHECK-LABEL: llvm.func @big(
// CHECK:         llvm.call @big_par0_launch
tir.prim_func @small(%x: memref<8x4xf32>, %y: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  tir.for parallel %i = %c0 to %c8 step %c1 {
    tir.for serial %j = %c0 to %c4 step %c1 {
      %v = tir.load %x[%i, %j] : memref<8x4xf32>
      %m = arith.mulf %v, %two : f32
      tir.store %m, %y[%i, %j] : memref<8x4xf32>
    }
  }
  tir.return
}
tir.prim_func @once(%x: memref<8x4xf32>, %y: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 3.0 : f32
  tir.for parallel %i = %c0 to %c8 step %c1 {
    tir.for serial %j = %c0 to %c4 step %c1 {
      %v = tir.load %x[%i, %j] : memref<8x4xf32>
      %m = arith.mulf %v, %two : f32
      tir.store %m, %y[%i, %j] : memref<8x4xf32>
    }
  }
  tir.return
}
tir.prim_func @big(%x: memref<64x2048xf32>, %y: memref<64x2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c2048 = arith.constant 2048 : index
  %two = arith.constant 2.0 : f32
  tir.for parallel %i = %c0 to %c64 step %c1 {
    tir.for serial %j = %c0 to %c2048 step %c1 {
      %v = tir.load %x[%i, %j] : memref<64x2048xf32>
      %m = arith.mulf %v, %two : f32
      tir.store %m, %y[%i, %j] : memref<64x2048xf32>
    }
  }
  tir.return
}
func.func @main(%n: memref<i64>, %a: memref<8x4xf32>, %b: memref<8x4xf32>, %c: memref<64x2048xf32>, %d: memref<64x2048xf32>) {
  %t = tir.load %n[] : memref<i64>
  %ub = arith.index_cast %t : i64 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tir.call @once(%a, %b) : memref<8x4xf32>, memref<8x4xf32>
  tir.for serial %i = %c0 to %ub step %c1 {
    tir.call @small(%a, %b) : memref<8x4xf32>, memref<8x4xf32>
    tir.call @big(%c, %d) : memref<64x2048xf32>, memref<64x2048xf32>
  }
  func.return
}
