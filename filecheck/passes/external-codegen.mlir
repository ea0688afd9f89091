// external-codegen: each outlined function goes to its target's codegen; its
// calls become te.call of the external symbol (lowered like lamina's kernels),
// and the libraries to load are listed on the module.
// RUN: lamina-opt %s -p 'annotate-target{targets=blas,c},merge-compiler-regions,partition-graph,external-codegen' | filecheck %s
// RUN: lamina-opt %s -p 'annotate-target{targets=blas,c},merge-compiler-regions,partition-graph,external-codegen,lower-relay-to-te,lower-te-to-tir' | filecheck %s --check-prefix=TIR

// CHECK:       builtin.module attributes {lamina.external_libraries = [{{.*}}libscipy_openblas{{.*}}.so", "{{.*}}blas_{{.*}}.so", "{{.*}}c_{{.*}}.so"]} {
// CHECK-NEXT:    func.func @main(
// CHECK-NEXT:      %0 = te.call @lamina_blas_{{[0-9a-f]+}}(%x, %w) : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:      %1 = te.call @lamina_c_{{[0-9a-f]+}}(%0, %b) : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:      func.return %1
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// TIR:         tir.call @lamina_blas_{{[0-9a-f]+}}(%0, %1, %{{.*}}) : memref<2x8xf32>, memref<8x8xf32>, memref<2x8xf32>
// TIR-NEXT:    tir.call @lamina_c_{{[0-9a-f]+}}(%{{.*}}, %2, %3) : memref<2x8xf32>, memref<8xf32>, memref<2x8xf32>
func.func @main(%x: tensor<2x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = relay.matmul %x, %w : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %1 = relay.add %0, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %2 = relay.relu %1 : tensor<2x8xf32>
  func.return %2 : tensor<2x8xf32>
}
