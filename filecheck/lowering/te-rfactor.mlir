// RUN: lamina-opt %s -p lower-te-to-tir | filecheck %s

// A vectorized innermost reduce loop is rfactored over the lanes: a local vector
// of partial results (initialized to the identity), the lanes past the reduce
// axis' end adding the identity (a select), then the partials combined pairwise
// (upper half of the lanes onto the lower, as a register's horizontal reduction:
// a vectorized loop while more than one pair is left) and lane 0 into the output.
te.func @row_max {
  %A = te.placeholder "A" : tensor<3x10xf32>
  %M = te.compute (%i) reduce max (%k) [10] attributes {schedule = "split(r0, 4); vectorize(r0.i)"} : tensor<3xf32> {
    %a = te.read %A[%i, %k] : tensor<3x10xf32>
    te.yield %a : f32
  }
  te.output %M : tensor<3xf32>
}

// CHECK-LABEL: tir.prim_func @row_max(
// CHECK-NEXT:    %[[PART:.*]] = tir.alloc local : memref<4xf32>
// CHECK:         tir.for serial %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      tir.for vectorized %[[L:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[NEG:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:        tir.store %[[NEG]], %[[PART]][%[[L]]] : memref<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.for serial %[[RO:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        tir.for vectorized %[[RI:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:               %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// CHECK:               %[[X:.*]] = tir.load %{{.*}}[%[[I]], %{{.*}}] : memref<3x10xf32>
// CHECK-NEXT:          %[[ID:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:          %[[V:.*]] = arith.select %[[IN]], %[[X]], %[[ID]] : f32
// CHECK-NEXT:          %[[P:.*]] = tir.load %[[PART]][%[[RI]]] : memref<4xf32>
// CHECK-NEXT:          %[[M:.*]] = arith.maximumf %[[P]], %[[V]] : f32
// CHECK-NEXT:          tir.store %[[M]], %[[PART]][%[[RI]]] : memref<4xf32>
// CHECK:           tir.store %{{.*}}, %[[OUT:.*]][%[[I]]] : memref<3xf32>
// CHECK:           tir.for vectorized %[[H:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:        %[[UP:.*]] = arith.addi %[[H]], %[[C2]] : index
// CHECK-NEXT:        %[[P2:.*]] = tir.load %[[PART]][%[[UP]]] : memref<4xf32>
// CHECK-NEXT:        %[[P0:.*]] = tir.load %[[PART]][%[[H]]] : memref<4xf32>
// CHECK-NEXT:        %[[M02:.*]] = arith.maximumf %[[P0]], %[[P2]] : f32
// CHECK-NEXT:        tir.store %[[M02]], %[[PART]][%[[H]]] : memref<4xf32>
// CHECK-NEXT:      }
// CHECK:           %[[P1:.*]] = tir.load %[[PART]][%{{.*}}] : memref<4xf32>
// CHECK-NEXT:      %[[Q0:.*]] = tir.load %[[PART]][%{{.*}}] : memref<4xf32>
// CHECK-NEXT:      %[[Q:.*]] = arith.maximumf %[[Q0]], %[[P1]] : f32
// CHECK-NEXT:      tir.store %[[Q]], %[[PART]][%{{.*}}] : memref<4xf32>
// CHECK:           %[[L0:.*]] = tir.load %[[PART]][%{{.*}}] : memref<4xf32>
// CHECK-NEXT:      %[[T:.*]] = tir.load %[[OUT]][%[[I]]] : memref<3xf32>
// CHECK-NEXT:      %[[R:.*]] = arith.maximumf %[[T]], %[[L0]] : f32
// CHECK-NEXT:      tir.store %[[R]], %[[OUT]][%[[I]]] : memref<3xf32>

// An `ordered` float sum (a `relay.sum {ordered}`) adds in index order: no
// `reassoc` flag for LLVM to vectorize with, and the schedule has no lanes.
te.func @row_sum_ordered {
  %A = te.placeholder "A" : tensor<3x10xf32>
  %S = te.compute (%i) reduce sum (%k) [10] attributes {ordered, schedule = ""} : tensor<3xf32> {
    %a = te.read %A[%i, %k] : tensor<3x10xf32>
    te.yield %a : f32
  }
  te.output %S : tensor<3xf32>
}

// CHECK-LABEL: tir.prim_func @row_sum_ordered(
// CHECK-NOT:     tir.alloc
// CHECK:         tir.for serial %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           tir.for serial %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[X:.*]] = tir.load %{{.*}}[%[[I]], %[[K]]] : memref<3x10xf32>
// CHECK-NEXT:        %[[ACC:.*]] = tir.load %{{.*}}[%[[I]]] : memref<3xf32>
// CHECK-NEXT:        %{{.*}} = arith.addf %[[ACC]], %[[X]] : f32
