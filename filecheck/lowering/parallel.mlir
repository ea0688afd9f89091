// lower-tir-to-llvm outlines each top-level `tir.for parallel` of a kernel into
// @<kernel>_par<n>(buffers..., range) running iterations range[0] .. range[1], and
// calls @<kernel>_par<n>_launch(buffers...) (defined when translating to LLVM IR,
// around lamina_parallel_for, lamina's thread pool) in its place; `lamina.parallel` records
// [launch, body, #buffers, lb, ub, step] of each.
// RUN: lamina-opt %s --split-input-file -p lower-tir-to-llvm | filecheck %s

// CHECK:       builtin.module attributes {lamina.target_spec = "{{[^"]*}}", lamina.parallel = {{\[\[}}"scale_par0_launch", "scale_par0", #builtin.int<2>, #builtin.int<0>, #builtin.int<8>, #builtin.int<1>, #builtin.int<0>]]
// CHECK-LABEL: llvm.func @scale(%x: !llvm.ptr {{.*}}, %y: !llvm.ptr {{.*}}) {
// CHECK-NOT:     llvm.br
// CHECK:         llvm.call @scale_par0_launch(%x, %y) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }
// The body: the buffers, then the range, read as two i64s; the loop runs from
// range[0] to range[1] with the original step.
// CHECK-LABEL: llvm.func @scale_par0(
// CHECK-SAME:    %{{[0-9]+}}: !llvm.ptr {{.*}}, %{{[0-9]+}}: !llvm.ptr {{.*}}, [[RNG:%[0-9]+]]: !llvm.ptr {{.*}}) {
// CHECK:         [[P0:%[0-9]+]] = llvm.getelementptr inbounds [[RNG]][{{%[0-9A-Za-z_]+}}] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK-NEXT:    [[LO:%[0-9]+]] = llvm.load [[P0]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    [[P1:%[0-9]+]] = llvm.getelementptr inbounds [[RNG]][{{%[0-9A-Za-z_]+}}] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK-NEXT:    [[HI:%[0-9]+]] = llvm.load [[P1]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    llvm.br ^[[HEAD:.*]]([[LO]] : i64)
// CHECK-NEXT:  ^[[HEAD]](%i: i64):
// CHECK-NEXT:    {{%[0-9]+}} = llvm.icmp "slt" %i, [[HI]] : i64
// CHECK:         llvm.fmul
// CHECK:         llvm.return
// CHECK:       llvm.func @scale_par0_launch(!llvm.ptr, !llvm.ptr)
tir.prim_func @scale(%x: memref<8x4xf32>, %y: memref<8x4xf32>) {
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

// -----

// Two parallel loops: _par0 and _par1, each with the buffers it uses in first-use
// order. A local buffer used only inside the loop moves into the body (one per
// thread); a parallel loop nested in another one runs serially inside the body.
// CHECK:       builtin.module attributes {lamina.target_spec = "{{[^"]*}}", lamina.parallel = {{\[\[}}"two_par0_launch", "two_par0", #builtin.int<2>, #builtin.int<0>, #builtin.int<8>, #builtin.int<2>, #builtin.int<0>], ["two_par1_launch", "two_par1", #builtin.int<2>, #builtin.int<0>, #builtin.int<8>, #builtin.int<1>, #builtin.int<0>]]
// CHECK-LABEL: llvm.func @two(
// CHECK-NOT:     llvm.alloca
// CHECK:         llvm.call @two_par0_launch(%x, %y) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    llvm.call @two_par1_launch(%y, %x) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-DAG:   llvm.func @two_par1(
// CHECK-DAG:   llvm.func @two_par0(
// CHECK:         %acc = llvm.alloca {{%[0-9]+}} x f32
// CHECK-DAG:   llvm.func @two_par0_launch(!llvm.ptr, !llvm.ptr)
// CHECK-DAG:   llvm.func @two_par1_launch(!llvm.ptr, !llvm.ptr)
tir.prim_func @two(%x: memref<8xf32>, %y: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %acc = tir.alloc local : memref<1xf32>
  tir.for parallel %i = %c0 to %c8 step %c2 {
    %v = tir.load %x[%i] : memref<8xf32>
    tir.store %v, %acc[%c0] : memref<1xf32>
    %w = tir.load %acc[%c0] : memref<1xf32>
    tir.store %w, %y[%i] : memref<8xf32>
  }
  tir.for parallel %i = %c0 to %c8 step %c1 {
    tir.for parallel %j = %c0 to %c1 step %c1 {
      %v = tir.load %y[%i] : memref<8xf32>
      tir.store %v, %x[%i] : memref<8xf32>
    }
  }
  tir.return
}

// -----

// A loop that captures a computed scalar (not a buffer or a constant) stays a
// serial loop in the kernel: nothing is outlined.
// CHECK-NOT:   lamina.parallel
// CHECK-LABEL: llvm.func @captures(
// CHECK:         %g = llvm.fadd %f, %f {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:    llvm.br ^[[HEAD:.*]](%c0 : i64)
// CHECK:         llvm.store %g
// CHECK-NOT:     llvm.call
// CHECK:         llvm.return
// CHECK-NOT:     _par0
tir.prim_func @captures(%x: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %f = arith.constant 1.0 : f32
  %g = arith.addf %f, %f : f32
  tir.for parallel %i = %c0 to %c8 step %c1 {
    tir.store %g, %x[%i] : memref<8xf32>
  }
  tir.return
}
