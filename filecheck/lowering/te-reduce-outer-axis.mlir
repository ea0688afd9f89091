// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' -p lower-te-to-tir | filecheck %s

// A reduction along an outer axis of what it reads (a mean over tokens:
// [B, S, D] -> [B, D]) gets the default schedule `reduction_rows`: lanes on
// the last output axis (4 registers of 16 here: independent accumulators, in
// a local buffer), the reduce loop outside the vector loop, every read a row
// of the input; the batch loop parallel.
te.func @mean_over_tokens {
  %A = te.placeholder "A" : tensor<2x50x64xf32>
  %S = te.compute (%b, %d) reduce sum (%s) [50] : tensor<2x64xf32> {
    %a = te.read %A[%b, %s, %d] : tensor<2x50x64xf32>
    te.yield %a : f32
  }
  te.output %S : tensor<2x64xf32>
}

// CHECK-LABEL: tir.prim_func @mean_over_tokens(
// CHECK:         tir.for parallel %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[ACC:.*]] = tir.alloc local : memref<64xf32>
// CHECK-NEXT:      tir.for vectorized %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        tir.store %[[Z]], %[[ACC]][%[[I]]] : memref<64xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.for serial %[[S:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        tir.for vectorized %[[D:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          %[[X:.*]] = tir.load %{{.*}}[%[[B]], %[[S]], %[[D]]] : memref<2x50x64xf32>
// CHECK-NEXT:          %[[P:.*]] = tir.load %[[ACC]][%[[D]]] : memref<64xf32>
// CHECK-NEXT:          %{{.*}} = arith.addf %[[P]], %[[X]] fastmath<reassoc,contract> : f32
// CHECK:           tir.for vectorized %[[O:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[V:.*]] = tir.load %[[ACC]][%[[O]]] : memref<64xf32>
// CHECK-NEXT:        tir.store %[[V]], %{{.*}}[%[[B]], %[[O]]] : memref<2x64xf32>

// A row reduction (over the innermost axis) keeps its vector partials of the
// reduce axis (`reduction`, rfactored over the lanes).
te.func @row_sum {
  %A = te.placeholder "A" : tensor<2x50x64xf32>
  %S = te.compute (%b, %s) reduce sum (%d) [64] : tensor<2x50xf32> {
    %a = te.read %A[%b, %s, %d] : tensor<2x50x64xf32>
    te.yield %a : f32
  }
  te.output %S : tensor<2x50xf32>
}

// CHECK-LABEL: tir.prim_func @row_sum(
// CHECK:         %[[PART:.*]] = tir.alloc local : memref<16xf32>
// CHECK:         tir.for serial %[[RO:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      tir.for vectorized %[[RI:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
