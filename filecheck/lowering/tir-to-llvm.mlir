// RUN: lamina-opt %s --split-input-file -p lower-tir-to-llvm | filecheck %s

// Kernel signature, loop CFG, row-major addressing, if diamond.
tir.prim_func @relu(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  tir.for unrolled %i = %c0 to %c4 step %c1 {
    tir.for %j = %c0 to %c8 step %c1 {
      %v = tir.load %x[%i, %j] : memref<4x8xf32>
      %p = arith.cmpf ogt, %v, %z : f32
      tir.if %p {
        tir.store %v, %y[%i, %j] : memref<4x8xf32>
      } else {
        tir.store %z, %y[%i, %j] : memref<4x8xf32>
      }
    }
  }
  tir.return
}

// CHECK:       builtin.module attributes {lamina.target_spec = "{{[^"]*}}", lamina.params = [], lamina.workspace_size = 0 : i64, lamina.intermediate_bytes = 0 : i64} {
// CHECK-NEXT:    llvm.func @relu(%x: !llvm.ptr {llvm.align = 64 : i64, llvm.noalias}, %y: !llvm.ptr {llvm.align = 64 : i64, llvm.noalias}) {
// CHECK:           %[[C0:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:      %[[C1:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:      %[[C4:.*]] = llvm.mlir.constant(4) : i64
// CHECK-NEXT:      %[[C8:.*]] = llvm.mlir.constant(8) : i64
// CHECK-NEXT:      %[[Z:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK-NEXT:      llvm.br ^[[IHEAD:.*]](%[[C0]] : i64)
// CHECK-NEXT:    ^[[IHEAD]](%[[I:.*]]: i64):
// CHECK-NEXT:      %[[IC:.*]] = llvm.icmp "slt" %[[I]], %[[C4]] : i64
// CHECK-NEXT:      llvm.cond_br %[[IC]], ^[[IBODY:.*]], ^[[IEXIT:.*]] {lamina.for_kind = "unrolled"}
// CHECK-NEXT:    ^[[IBODY]]:
// CHECK-NEXT:      llvm.br ^[[JHEAD:.*]](%[[C0]] : i64)
// CHECK-NEXT:    ^[[JHEAD]](%[[J:.*]]: i64):
// CHECK-NEXT:      %[[JC:.*]] = llvm.icmp "slt" %[[J]], %[[C8]] : i64
// CHECK-NEXT:      llvm.cond_br %[[JC]], ^[[JBODY:.*]], ^[[JEXIT:.*]]
// CHECK-NEXT:    ^[[JBODY]]:
// CHECK-NEXT:      %[[ROW:.*]] = llvm.mul %[[I]], %[[C8]] : i64
// CHECK-NEXT:      %[[LIN:.*]] = llvm.add %[[ROW]], %[[J]] : i64
// CHECK-NEXT:      %[[PX:.*]] = llvm.getelementptr inbounds %x[%[[LIN]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:      %[[V:.*]] = llvm.load %[[PX]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:      %[[P:.*]] = llvm.fcmp "ogt" %[[V]], %[[Z]] : f32
// CHECK-NEXT:      llvm.cond_br %[[P]], ^[[THEN:.*]], ^[[ELSE:.*]]
// CHECK-NEXT:    ^[[THEN]]:
// CHECK:           llvm.store %[[V]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT:      llvm.br ^[[JOIN:.*]]
// CHECK-NEXT:    ^[[ELSE]]:
// CHECK:           llvm.store %[[Z]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT:      llvm.br ^[[JOIN]]
// CHECK-NEXT:    ^[[JOIN]]:
// CHECK-NEXT:      %[[JN:.*]] = llvm.add %[[J]], %[[C1]] : i64
// CHECK-NEXT:      llvm.br ^[[JHEAD]](%[[JN]] : i64)
// CHECK-NEXT:    ^[[JEXIT]]:
// CHECK-NEXT:      %[[IN:.*]] = llvm.add %[[I]], %[[C1]] : i64
// CHECK-NEXT:      llvm.br ^[[IHEAD]](%[[IN]] : i64) {lamina.unroll_full}
// CHECK-NEXT:    ^[[IEXIT]]:
// CHECK-NEXT:      llvm.return
// CHECK-NEXT:    }

// -----

// Local buffers become allocas hoisted into the entry block; vector accesses load
// and store LLVM vectors at the element's address, aligned to the element size.
tir.prim_func @vec(%x: memref<2x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  tir.for %i = %c0 to %c2 step %c1 {
    %acc = tir.alloc local : memref<16xf32>
    tir.for vectorized %j = %c0 to %c32 step %c16 {
      %v = tir.load %x[%i, %j] : memref<2x32xf32>, vector<16xf32>
      tir.store %v, %acc[%c0] : memref<16xf32>, vector<16xf32>
      %w = tir.load %acc[%c0] : memref<16xf32>, vector<16xf32>
      tir.store %w, %x[%i, %j] : memref<2x32xf32>, vector<16xf32>
    }
  }
  tir.return
}

// CHECK-LABEL: llvm.func @vec(
// CHECK-NEXT:      %[[N:.*]] = llvm.mlir.constant(16) : i64
// CHECK-NEXT:      %[[ACC:.*]] = llvm.alloca %[[N]] x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
// CHECK:           llvm.cond_br %{{.*}}, ^{{.*}}, ^{{.*}} {lamina.for_kind = "vectorized"}
// CHECK:           %[[P:.*]] = llvm.getelementptr inbounds %x[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:      %[[V:.*]] = llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:      %[[Q:.*]] = llvm.getelementptr inbounds %[[ACC]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:      llvm.store %[[V]], %[[Q]] {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr

// -----

// A kernel that some call passes the same buffer twice gets no `noalias`;
// external kernels (declared, or only called) become declarations.
tir.prim_func @inplace(%a: memref<4xf32>, %b: memref<4xf32>) {
  tir.return
}
func.func private @blas_gemm(memref<4xf32>, memref<4xf32>)
func.func @main(%x: memref<4xf32>) {
  tir.call @inplace(%x, %x) : memref<4xf32>, memref<4xf32>
  tir.call @blas_gemm(%x, %x) : memref<4xf32>, memref<4xf32>
  func.return
}

// CHECK:       llvm.func @inplace(%a: !llvm.ptr {llvm.align = 64 : i64}, %b: !llvm.ptr {llvm.align = 64 : i64}) {
// CHECK:       llvm.func @main(%args: !llvm.ptr {llvm.noalias}, %params: !llvm.ptr {llvm.noalias}, %workspace: !llvm.ptr {llvm.noalias, llvm.align = 64 : i64}) {
// CHECK:         llvm.call @inplace(%x, %x) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    llvm.call @blas_gemm(%x, %x) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK:       llvm.func @blas_gemm(!llvm.ptr, !llvm.ptr)
