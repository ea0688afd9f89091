// Round trip of the lane-wise tir ops tir-vectorize makes of a lane-dependent
// guard: tir.vector_cmp (a comparison per lane, into a vector of i1) and
// tir.masked_store (a store of the lanes whose mask bit is set). Custom form, and
// generic form re-parsed.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// A vectorized loop over 10 elements in steps of 4: the last step stores 2 lanes.
// CHECK-LABEL: tir.prim_func @tail(%x: memref<10xf32>, %y: memref<10xf32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    %c10 = arith.constant 10 : index
// CHECK-NEXT:    %lanes = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
// CHECK-NEXT:    %n = arith.constant dense<10> : vector<4xindex>
// CHECK-NEXT:    tir.for serial %i = %c0 to %c10 step %c4 {
// CHECK-NEXT:      %iv = vector.broadcast %i : index to vector<4xindex>
// CHECK-NEXT:      %idx = arith.addi %iv, %lanes : vector<4xindex>
// CHECK-NEXT:      %m = tir.vector_cmp "ult", %idx, %n : vector<4xindex> -> vector<4xi1>
// CHECK-NEXT:      %v = tir.load %x[%i] : memref<10xf32>, vector<4xf32>
// CHECK-NEXT:      tir.masked_store %v, %y[%i], %m : memref<10xf32>, vector<4xf32>, vector<4xi1>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "tir.prim_func"() <{sym_name = "tail"
// GENERIC:         %m = "tir.vector_cmp"(%idx, %n) <{predicate = "ult"}> : (vector<4xindex>, vector<4xindex>) -> vector<4xi1>
// GENERIC-NEXT:    %v = "tir.load"(%x, %i) : (memref<10xf32>, index) -> vector<4xf32>
// GENERIC-NEXT:    "tir.masked_store"(%v, %y, %m, %i) : (vector<4xf32>, memref<10xf32>, vector<4xi1>, index) -> ()
tir.prim_func @tail(%x: memref<10xf32>, %y: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  %lanes = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
  %n = arith.constant dense<10> : vector<4xindex>
  tir.for serial %i = %c0 to %c10 step %c4 {
    %iv = vector.broadcast %i : index to vector<4xindex>
    %idx = arith.addi %iv, %lanes : vector<4xindex>
    %m = tir.vector_cmp "ult", %idx, %n : vector<4xindex> -> vector<4xi1>
    %v = tir.load %x[%i] : memref<10xf32>, vector<4xf32>
    tir.masked_store %v, %y[%i], %m : memref<10xf32>, vector<4xf32>, vector<4xi1>
  }
  tir.return
}

// Float and integer predicates, a rank-2 buffer, attributes on both ops.
// CHECK-LABEL: tir.prim_func @relu_where(%x: memref<2x8xf64>, %y: memref<2x8xf64>, %k: memref<8xi32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %v = tir.load %x[%c1, %c0] : memref<2x8xf64>, vector<8xf64>
// CHECK-NEXT:    %z = arith.constant dense<0.000000e+00> : vector<8xf64>
// CHECK-NEXT:    %pos = tir.vector_cmp "ogt", %v, %z {lamina.tag} : vector<8xf64> -> vector<8xi1>
// CHECK-NEXT:    tir.masked_store %v, %y[%c1, %c0], %pos {lamina.tag = 2 : i64} : memref<2x8xf64>, vector<8xf64>, vector<8xi1>
// CHECK-NEXT:    %kv = tir.load %k[%c0] : memref<8xi32>, vector<8xi32>
// CHECK-NEXT:    %neg = tir.vector_cmp "slt", %kv, %kv : vector<8xi32> -> vector<8xi1>
// CHECK-NEXT:    tir.masked_store %kv, %k[%c0], %neg : memref<8xi32>, vector<8xi32>, vector<8xi1>
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "tir.prim_func"() <{sym_name = "relu_where"
// GENERIC:       %pos = "tir.vector_cmp"(%v, %z) <{predicate = "ogt"}> {lamina.tag} : (vector<8xf64>, vector<8xf64>) -> vector<8xi1>
// GENERIC-NEXT:  "tir.masked_store"(%v, %y, %pos, %c1, %c0) {lamina.tag = 2 : i64} : (vector<8xf64>, memref<2x8xf64>, vector<8xi1>, index, index) -> ()
// GENERIC:       %neg = "tir.vector_cmp"(%kv, %kv) <{predicate = "slt"}> : (vector<8xi32>, vector<8xi32>) -> vector<8xi1>
tir.prim_func @relu_where(%x: memref<2x8xf64>, %y: memref<2x8xf64>, %k: memref<8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = tir.load %x[%c1, %c0] : memref<2x8xf64>, vector<8xf64>
  %z = arith.constant dense<0.0> : vector<8xf64>
  %pos = tir.vector_cmp "ogt", %v, %z {lamina.tag} : vector<8xf64> -> vector<8xi1>
  tir.masked_store %v, %y[%c1, %c0], %pos {lamina.tag = 2 : i64} : memref<2x8xf64>, vector<8xf64>, vector<8xi1>
  %kv = tir.load %k[%c0] : memref<8xi32>, vector<8xi32>
  %neg = tir.vector_cmp "slt", %kv, %kv : vector<8xi32> -> vector<8xi1>
  tir.masked_store %kv, %k[%c0], %neg : memref<8xi32>, vector<8xi32>, vector<8xi1>
  tir.return
}

// A select by a lane mask (what tir-vectorize makes of an arith.select whose
// condition depends on the lane).
// CHECK-LABEL: func.func @select(%m: vector<4xi1>, %a: vector<4xf32>, %b: vector<4xf32>) -> vector<4xf32> {
// CHECK-NEXT:    %s = tir.vector_select %m, %a, %b : vector<4xi1>, vector<4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "select"
// GENERIC:       %s = "tir.vector_select"(%m, %a, %b) : (vector<4xi1>, vector<4xf32>, vector<4xf32>) -> vector<4xf32>
func.func @select(%m: vector<4xi1>, %a: vector<4xf32>, %b: vector<4xf32>) -> vector<4xf32> {
  %s = tir.vector_select %m, %a, %b : vector<4xi1>, vector<4xf32>
  func.return %s : vector<4xf32>
}
