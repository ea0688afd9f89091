// compile-kernels compiles each tir.prim_func to optimized LLVM bitcode on its
// own and replaces it by an llvm.func declaration holding it (base64): the
// symbol is the kernel's name without its uniquing suffix plus a content hash,
// so the two identical relus (relu, relu_1) become one kernel, and the calls
// of @main are renamed. What follows lowers @main alone; under an instrument
// that must see every pass on the whole module (printing the IR) the pass
// steps aside.
// RUN: lamina-opt %s -p lower-te-to-tir,compile-kernels | filecheck %s
// RUN: lamina-opt %s -p lower-te-to-tir,compile-kernels | lamina-opt -p tir-unroll,tir-vectorize,cse,lower-tir-to-llvm | filecheck %s --check-prefix=LLVM
// RUN: lamina-opt %s -p lower-te-to-tir,compile-kernels --print-ir-after compile-kernels 2>/dev/null | filecheck %s --check-prefix=ASIDE

// CHECK-LABEL: func.func @main
// CHECK:         tir.call @[[RELU:relu_[0-9a-f]{12}]](%0, %[[T:[0-9]+]])
// CHECK-NEXT:    tir.call @[[RELU]](%[[T]], %1)
// CHECK-NOT:   tir.prim_func
// CHECK:       llvm.func @[[RELU]](!llvm.ptr, !llvm.ptr) attributes {lamina.bitcode = "QkPA3
// CHECK-NOT:   llvm.func @relu

// LLVM-LABEL: llvm.func @main
// LLVM:        llvm.call @[[RELU:relu_[0-9a-f]{12}]](
// LLVM:        llvm.call @[[RELU]](
// LLVM:      llvm.func @[[RELU]](!llvm.ptr, !llvm.ptr) attributes {lamina.bitcode = "QkPA3

// ASIDE: tir.prim_func @relu
// ASIDE: tir.prim_func @relu_1
builtin.module {
  func.func @main(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
    %0 = te.call @relu(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %1 = te.call @relu_1(%0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    func.return %1 : tensor<2x8xf32>
  }
  te.func @relu {
    %0 = te.placeholder "in0" : tensor<2x8xf32>
    %1 = te.compute (%2, %3) : tensor<2x8xf32> {
      %4 = te.read %0[%2, %3] : tensor<2x8xf32>
      %5 = arith.constant 0.000000e+00 : f32
      %6 = arith.maximumf %4, %5 : f32
      te.yield %6 : f32
    }
    te.output %1 : tensor<2x8xf32>
  }
  te.func @relu_1 {
    %0 = te.placeholder "in0" : tensor<2x8xf32>
    %1 = te.compute (%2, %3) : tensor<2x8xf32> {
      %4 = te.read %0[%2, %3] : tensor<2x8xf32>
      %5 = arith.constant 0.000000e+00 : f32
      %6 = arith.maximumf %4, %5 : f32
      te.yield %6 : f32
    }
    te.output %1 : tensor<2x8xf32>
  }
}
