// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' -p lower-tir-to-llvm | filecheck %s --check-prefixes=CHECK,AVX512
// RUN: lamina-opt %s --codegen-target='aarch64-linux-gnu' -p lower-tir-to-llvm | filecheck %s --check-prefixes=CHECK,BITS

// `exp` of an f32 vector is inline arithmetic on every target (fast_exp): the
// argument clamped to [-104, 89], n = roundeven(x log2 e), r = x - n ln 2 in
// two parts, a degree-5 polynomial, then the result scaled by 2^n: one
// `llvm.ldexp` (vscalef) with AVX-512, else two factors built in the exponent
// bits. A NaN comes back as it went in. A scalar `exp` stays LLVM's intrinsic.

tir.prim_func @vexp(%v: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %w = tir.load %v[%c0] : memref<16xf32>, vector<4xf32>
  %e = math.exp %w : vector<4xf32>
  tir.store %e, %v[%c0] : memref<16xf32>, vector<4xf32>
  %s = tir.load %v[%c0] : memref<16xf32>
  %t = math.exp %s : f32
  tir.store %t, %v[%c0] : memref<16xf32>
  tir.return
}

// CHECK-LABEL: llvm.func @vexp(
// CHECK:         %[[X:.*]] = llvm.load %{{.*}} {alignment = {{.*}}} : !llvm.ptr -> vector<4xf32>
// CHECK:         %[[HI:.*]] = llvm.mlir.constant(dense<8.900000e+01> : vector<4xf32>) : vector<4xf32>
// CHECK-NEXT:    %[[MIN:.*]] = llvm.call_intrinsic "llvm.minnum.v4f32"(%[[X]], %[[HI]])
// CHECK-NEXT:    %[[LO:.*]] = llvm.mlir.constant(dense<-1.040000e+02> : vector<4xf32>) : vector<4xf32>
// CHECK-NEXT:    %[[XC:.*]] = llvm.call_intrinsic "llvm.maxnum.v4f32"(%[[MIN]], %[[LO]])
// CHECK-NEXT:    %[[LOG2E:.*]] = llvm.mlir.constant(dense<1.44269502> : vector<4xf32>) : vector<4xf32>
// CHECK-NEXT:    %[[XL:.*]] = llvm.fmul %[[XC]], %[[LOG2E]] : vector<4xf32>
// CHECK-NEXT:    %[[N:.*]] = llvm.call_intrinsic "llvm.roundeven.v4f32"(%[[XL]])
// CHECK-COUNT-7: llvm.call_intrinsic "llvm.fmuladd.v4f32"
// CHECK:         %[[K:.*]] = llvm.fptosi %[[N]] : vector<4xf32> to vector<4xi32>
// AVX512-NEXT:   %[[Y:.*]] = llvm.call_intrinsic "llvm.ldexp.v4f32.v4i32"(%{{.*}}, %[[K]])
// AVX512-NOT:    llvm.shl
// BITS-NEXT:     %[[ONE:.*]] = llvm.mlir.constant(dense<1> : vector<4xi32>) : vector<4xi32>
// BITS-NEXT:     %[[HALF:.*]] = llvm.ashr %[[K]], %[[ONE]] : vector<4xi32>
// BITS-COUNT-2:  llvm.shl
// BITS-NOT:      llvm.ldexp
// CHECK:         %[[NAN:.*]] = llvm.call_intrinsic "llvm.is.fpclass.v4f32"(%[[X]], %{{.*}}) : (vector<4xf32>, i32) -> vector<4xi1>
// CHECK:         llvm.store
// CHECK:         %[[S:.*]] = llvm.load %{{.*}} {alignment = {{.*}}} : !llvm.ptr -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.exp(%[[S]]) : (f32) -> f32
