// RUN: lamina-opt %s -p lower-tir-to-llvm | filecheck %s

// Integer division rounding, min/max NaN semantics, libm calls and the casts
// that xDSL's llvm dialect lacks (lamina.dialects.llvm_ext).

tir.prim_func @ops(%x: memref<4xi32>, %f: memref<4xf32>, %v: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %a = tir.load %x[%c0] : memref<4xi32>
  %b = arith.constant 3 : i32
  %0 = arith.floordivsi %a, %b : i32
  %1 = arith.ceildivsi %a, %b : i32
  %2 = arith.maxsi %0, %1 : i32
  tir.store %2, %x[%c0] : memref<4xi32>
  %g = tir.load %f[%c0] : memref<4xf32>
  %3 = arith.maximumf %g, %g : f32
  %4 = arith.maxnumf %3, %g : f32
  %5 = math.tanh %4 : f32
  %6 = math.erf %5 : f32
  %7 = math.exp %6 : f32
  %8 = arith.fptosi %7 : f32 to i32
  %9 = arith.uitofp %8 : i32 to f32
  %10 = arith.fptoui %9 : f32 to i32
  tir.store %10, %x[%c0] : memref<4xi32>
  %w = tir.load %v[%c0] : memref<16xf32>, vector<4xf32>
  %11 = math.exp2 %w : vector<4xf32>
  %12 = math.tanh %11 : vector<4xf32>
  tir.store %12, %v[%c0] : memref<16xf32>, vector<4xf32>
  tir.return
}

// CHECK-LABEL: llvm.func @ops(
// Scalar constants are made once, at the top of the function.
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[M1:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT:    %[[P1:.*]] = llvm.mlir.constant(1 : i32) : i32
// floordivsi: sdiv, minus one when inexact and the signs of remainder and divisor differ
// CHECK:         %[[Q:.*]] = llvm.sdiv %[[A:.*]], %[[B:.*]] : i32
// CHECK-NEXT:    %[[R:.*]] = llvm.srem %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[INEXACT:.*]] = llvm.icmp "ne" %[[R]], %[[Z]] : i32
// CHECK-NEXT:    %[[X:.*]] = llvm.xor %[[R]], %[[B]] : i32
// CHECK-NEXT:    %[[NEG:.*]] = llvm.icmp "slt" %[[X]], %[[Z]] : i32
// CHECK-NEXT:    %[[ADJ:.*]] = llvm.and %[[INEXACT]], %[[NEG]] : i1
// CHECK-NEXT:    %[[QM1:.*]] = llvm.add %[[Q]], %[[M1]] : i32
// CHECK-NEXT:    %[[FLOOR:.*]] = llvm.select %[[ADJ]], %[[QM1]], %[[Q]] : i1, i32
// ceildivsi: plus one when inexact and the signs agree
// CHECK:         llvm.icmp "sge"
// CHECK:         llvm.add %{{.*}}, %[[P1]] : i32
// CHECK:         %[[CEIL:.*]] = llvm.select
// CHECK-NEXT:    %[[GT:.*]] = llvm.icmp "sgt" %[[FLOOR]], %[[CEIL]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.select %[[GT]], %[[FLOOR]], %[[CEIL]] : i1, i32
// maximumf propagates NaN (llvm.maximum, with -0 and +0 unordered: nsz), maxnumf does not (llvm.maxnum)
// CHECK:         %[[MAX:.*]] = llvm.call_intrinsic "llvm.maximum.f32"(%[[G:.*]], %[[G]]) {fastmathFlags = #llvm.fastmath<nsz>} : (f32, f32) -> f32
// CHECK-NEXT:    %[[MAXNUM:.*]] = llvm.intr.maxnum(%[[MAX]], %[[G]]) : (f32, f32) -> f32
// CHECK-NEXT:    %[[T:.*]] = llvm.call @tanhf(%[[MAXNUM]]) : (f32) -> f32
// CHECK-NEXT:    %[[E:.*]] = llvm.call @erff(%[[T]]) : (f32) -> f32
// CHECK-NEXT:    %[[EXP:.*]] = llvm.intr.exp(%[[E]]) : (f32) -> f32
// CHECK-NEXT:    %[[I:.*]] = llvm.fptosi %[[EXP]] : f32 to i32
// CHECK-NEXT:    %[[U:.*]] = llvm.uitofp %[[I]] : i32 to f32
// CHECK-NEXT:    %{{.*}} = llvm.fptoui %[[U]] : f32 to i32
// vector libm calls are made lane by lane
// CHECK:         %[[VE:.*]] = llvm.intr.exp2(%{{.*}}) : (vector<4xf32>) -> vector<4xf32>
// CHECK-NEXT:    %[[UNDEF:.*]] = llvm.mlir.undef : vector<4xf32>
// CHECK-NEXT:    %[[L0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[X0:.*]] = llvm.extractelement %[[VE]][%[[L0]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[T0:.*]] = llvm.call @tanhf(%[[X0]]) : (f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.insertelement %[[T0]], %[[UNDEF]][%[[L0]] : i32] : vector<4xf32>
// CHECK-COUNT-3: llvm.call @tanhf
// CHECK:       llvm.func @tanhf(f32) -> f32
// CHECK-NEXT:  llvm.func @erff(f32) -> f32
