// lower-relay-to-te: an op with an extern kernel (a scatter, top-k, a scan) is
// called with te.call of a tir.prim_func written directly over buffers (operands,
// then results), never a te.func; the ops around it get te.funcs as usual.
// RUN: lamina-opt %s --split-input-file -p lower-relay-to-te | filecheck %s
// And the whole way down to the LLVM dialect:
// RUN: lamina-opt %s --split-input-file -p lower-relay-to-te,lower-te-to-tir,lower-tir-to-llvm | filecheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %0 = te.call @scatter_nd(%x, %i, %u) : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %1 = te.call @relu(%0) : (tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK:       tir.prim_func @scatter_nd(%0: memref<4x3xf32>, %1: memref<2x1xi64>, %2: memref<2x3xf32>, %3: memref<4x3xf32>) {
// The data is copied into the output, then each in-range update is added in order
// (a negative index counts from the end).
// CHECK:           %{{.*}} = tir.load %0[%{{.*}}, %{{.*}}] : memref<4x3xf32>
// CHECK-NEXT:      tir.store %{{.*}}, %3[%{{.*}}, %{{.*}}] : memref<4x3xf32>
// CHECK:         %[[RAW:.*]] = tir.load %1[%{{.*}}, %{{.*}}] : memref<2x1xi64>
// CHECK-NEXT:    %[[IDX:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK-NEXT:    %[[NEG:.*]] = arith.cmpi slt, %[[IDX]], %{{.*}} : index
// CHECK-NEXT:    %[[WRAP:.*]] = arith.addi %[[IDX]], %{{.*}} : index
// CHECK-NEXT:    %[[AT:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[IDX]] : index
// CHECK:         tir.if %{{.*}} {
// CHECK:           %[[U:.*]] = tir.load %2[%{{.*}}, %{{.*}}] : memref<2x3xf32>
// CHECK-NEXT:      %[[OLD:.*]] = tir.load %3[%[[AT]], %{{.*}}] : memref<4x3xf32>
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[OLD]], %[[U]] : f32
// CHECK-NEXT:      tir.store %[[SUM]], %3[%[[AT]], %{{.*}}] : memref<4x3xf32>
// CHECK:       te.func @relu {
// LLVM:        llvm.func @scatter_nd(
// LLVM:        llvm.func @relu(
func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = relay.scatter_nd %x, %i, %u {reduction = "add"} : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>)
  %1 = relay.relu %0 : tensor<4x3xf32>
  func.return %1 : tensor<4x3xf32>
}

// -----

// Two results (values and i64 indices), and two identical top-k ops share one kernel.
// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %0, %1 = te.call @topk(%x) : (tensor<5x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
// CHECK-NEXT:    %2, %3 = te.call @topk(%x) : (tensor<5x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
// CHECK:       tir.prim_func @topk(%0: memref<5x3xf32>, %1: memref<2x3xf32>, %2: memref<2x3xi64>) {
// CHECK-NOT:   tir.prim_func @topk_1
// LLVM:        llvm.func @topk(
func.func @main(%x: tensor<5x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) {
  %0, %1 = relay.topk %x {k = 2 : i64, axis = 0 : i64, largest} : (tensor<5x3xf32>)
  %2, %3 = relay.topk %x {k = 2 : i64, axis = 0 : i64, largest} : (tensor<5x3xf32>)
  func.return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>
}
