// tir-cse: common subexpression elimination for kernels, with xDSL's `cse`'s
// result (both are checked against the same lines): pure ops computed again are
// replaced by the first (also inside a loop, from before it; not between sibling
// loops), a load by an earlier one of its block when nothing may write between
// them, and ops nothing uses are erased.
// RUN: lamina-opt %s -p tir-cse | filecheck %s
// RUN: lamina-opt %s -p cse | filecheck %s

// CHECK-LABEL: tir.prim_func @k(
// CHECK-NEXT:    %n = arith.constant 2 : index
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    %a = arith.addi %n, %c1 : index
// CHECK-NEXT:    %v = tir.load %x[%a] : memref<8xf32>
// CHECK-NEXT:    %s = arith.addf %v, %v : f32
// CHECK-NEXT:    tir.store %s, %y[%a] : memref<8xf32>
// the store may have written %x[%a]: read again
// CHECK-NEXT:    %u = tir.load %x[%a] : memref<8xf32>
// CHECK-NEXT:    tir.store %u, %y[%c0] : memref<8xf32>
// CHECK-NEXT:    %t = tir.load %y[%a] : memref<8xf32>
// CHECK-NEXT:    tir.store %t, %y[%c1] : memref<8xf32>
// CHECK-NEXT:    tir.for serial %i = %c0 to %c8 step %c1 {
// CHECK-NEXT:      %e = arith.addi %i, %a : index
// a load inside the loop is not one of the block before it
// CHECK-NEXT:      %l = tir.load %y[%a] : memref<8xf32>
// CHECK-NEXT:      %g = tir.load %x[%e] : memref<8xf32>
// CHECK-NEXT:      %m = arith.mulf %g, %g : f32
// CHECK-NEXT:      %p = arith.addf %m, %l : f32
// CHECK-NEXT:      tir.store %p, %y[%i] : memref<8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.for serial %i_1 = %c0 to %c8 step %c1 {
// CHECK-NEXT:      %e_1 = arith.addi %i_1, %a : index
// CHECK-NEXT:      tir.store %s, %y[%e_1] : memref<8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
tir.prim_func @k(%x: memref<8xf32>, %y: memref<8xf32>) {
  %n = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = arith.addi %n, %c1 : index
  %unused = arith.muli %n, %c8 : index
  %b = arith.addi %n, %c1 : index
  %v = tir.load %x[%a] : memref<8xf32>
  %w = tir.load %x[%b] : memref<8xf32>
  %s = arith.addf %v, %w : f32
  tir.store %s, %y[%a] : memref<8xf32>
  %u = tir.load %x[%b] : memref<8xf32>
  tir.store %u, %y[%c0] : memref<8xf32>
  %t = tir.load %y[%a] : memref<8xf32>
  tir.store %t, %y[%c1] : memref<8xf32>
  tir.for serial %i = %c0 to %c8 step %c1 {
    %d = arith.addi %n, %c1 : index
    %e = arith.addi %i, %d : index
    %f = arith.addi %i, %a : index
    %l = tir.load %y[%a] : memref<8xf32>
    %g = tir.load %x[%e] : memref<8xf32>
    %h = tir.load %x[%f] : memref<8xf32>
    %m = arith.mulf %g, %h : f32
    %p = arith.addf %m, %l : f32
    tir.store %p, %y[%i] : memref<8xf32>
  }
  tir.for serial %i = %c0 to %c8 step %c1 {
    %e = arith.addi %i, %a : index
    tir.store %s, %y[%e] : memref<8xf32>
  }
  tir.return
}
