// RUN: lamina-opt %s -p lower-te-to-tir | filecheck %s

// A vectorized innermost reduce loop is rfactored over the lanes: a local vector
// of partial results (initialized to the identity), the lanes past the reduce
// axis' end adding the identity (a select), then the partials combined into the
// output.
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
// CHECK-NEXT:      tir.for unrolled %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[Q:.*]] = tir.load %[[PART]][%[[K]]] : memref<4xf32>
// CHECK-NEXT:        %[[T:.*]] = tir.load %[[OUT]][%[[I]]] : memref<3xf32>
// CHECK-NEXT:        %[[R:.*]] = arith.maximumf %[[T]], %[[Q]] : f32
// CHECK-NEXT:        tir.store %[[R]], %[[OUT]][%[[I]]] : memref<3xf32>
