// RUN: lamina-opt %s --split-input-file -p lower-tir-to-llvm | filecheck %s

// The vector ops tir-vectorize makes: a stride-2 read (a wide load and a
// shuffle), a masked load (llvm.intr.masked.load, its lanes off the mask from
// the pass-through), and a select by a lane mask, which xDSL's llvm.select cannot
// take: the lanes' bits are blended with and/or by the sign-extended mask (LLVM
// folds it back into one vector select).

tir.prim_func @vector_ops(%x: memref<16xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c9 = arith.constant 9 : index
  %lanes = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
  %n = arith.constant dense<3> : vector<4xindex>
  %m = tir.vector_cmp "slt", %lanes, %n : vector<4xindex> -> vector<4xi1>
  %w = tir.load %x[%c0] : memref<16xf32>, vector<8xf32>
  %e = vector.shuffle %w, %w [0, 2, 4, 6] : vector<8xf32>, vector<8xf32>
  %p = tir.masked_load %x[%c9], %m, %e : memref<16xf32>, vector<4xi1>, vector<4xf32>
  %s = tir.vector_select %m, %p, %e : vector<4xi1>, vector<4xf32>
  tir.store %s, %y[%c0] : memref<4xf32>, vector<4xf32>
  tir.return
}

// CHECK-LABEL: llvm.func @vector_ops(
// CHECK:         %m = llvm.icmp "slt" %lanes, %n : vector<4xi64>
// CHECK:         %w = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<8xf32>
// CHECK-NEXT:    %e = llvm.shufflevector %w, %w [0, 2, 4, 6] : vector<8xf32>
// CHECK-NEXT:    %[[AT:.*]] = llvm.getelementptr inbounds %x[%c9] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %p = llvm.intr.masked.load %[[AT]], %m, %e {alignment = 4 : i32} : (!llvm.ptr, vector<4xi1>, vector<4xf32>) -> vector<4xf32>
// CHECK-NEXT:    %[[A:.*]] = llvm.bitcast %p : vector<4xf32> to vector<4xi32>
// CHECK-NEXT:    %[[B:.*]] = llvm.bitcast %e : vector<4xf32> to vector<4xi32>
// CHECK-NEXT:    %[[M:.*]] = llvm.sext %m : vector<4xi1> to vector<4xi32>
// CHECK-NEXT:    %[[ONES:.*]] = llvm.mlir.constant(dense<-1> : vector<4xi32>) : vector<4xi32>
// CHECK-NEXT:    %[[NM:.*]] = llvm.xor %[[M]], %[[ONES]] : vector<4xi32>
// CHECK-NEXT:    %[[KA:.*]] = llvm.and %[[A]], %[[M]] : vector<4xi32>
// CHECK-NEXT:    %[[KB:.*]] = llvm.and %[[B]], %[[NM]] : vector<4xi32>
// CHECK-NEXT:    %[[R:.*]] = llvm.or %[[KA]], %[[KB]] : vector<4xi32>
// CHECK-NEXT:    %s = llvm.bitcast %[[R]] : vector<4xi32> to vector<4xf32>
// CHECK:         llvm.store %s

// -----

// A masked store of integers (what tir-vectorize makes of an i32 GEMM's
// write-back tail): llvm.intr.masked.store takes any element type (xDSL's own op
// takes floats only; lamina's `llvm` dialect replaces it).
tir.prim_func @int_masked_store(%x: memref<6xi32>, %y: memref<6xi32>) {
  %c4 = arith.constant 4 : index
  %lanes = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
  %n = arith.constant dense<2> : vector<4xindex>
  %m = tir.vector_cmp "slt", %lanes, %n : vector<4xindex> -> vector<4xi1>
  %v = tir.load %x[%c4] : memref<6xi32>, vector<4xi32>
  tir.masked_store %v, %y[%c4], %m : memref<6xi32>, vector<4xi32>, vector<4xi1>
  tir.return
}

// CHECK-LABEL: llvm.func @int_masked_store(
// CHECK:         %[[AT:.*]] = llvm.getelementptr inbounds %y[%c4] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:    llvm.intr.masked.store %v, %[[AT]], %m {alignment = 4 : i32} : vector<4xi32>, vector<4xi1> into !llvm.ptr
