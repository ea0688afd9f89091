// RUN: lamina-opt %s -p lower-tir-to-llvm | filecheck %s

// Float sums and products may contract into FMAs (TVM's FPOpFusion::Fast); a
// division never does.
tir.prim_func @contract(%f: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %a = tir.load %f[%c0] : memref<4xf32>
  %0 = arith.mulf %a, %a : f32
  %1 = arith.addf %0, %a : f32
  %2 = arith.subf %1, %a : f32
  %3 = arith.divf %2, %a : f32
  tir.store %3, %f[%c0] : memref<4xf32>
  tir.return
}

// CHECK-LABEL: llvm.func @contract(
// CHECK:         %[[M:.*]] = llvm.fmul %[[A:.*]], %[[A]] {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:    %[[S:.*]] = llvm.fadd %[[M]], %[[A]] {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:    %[[D:.*]] = llvm.fsub %[[S]], %[[A]] {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:    %{{.*}} = llvm.fdiv %[[D]], %[[A]] : f32
