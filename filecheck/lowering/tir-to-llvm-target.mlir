// RUN: lamina-opt %s -p lower-tir-to-llvm -t llvm | filecheck %s

// `-t llvm` prints LLVM IR for the host, through lamina.dialects.llvm_ext.

tir.prim_func @cast(%x: memref<4xf32>, %y: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tir.for %i = %c0 to %c4 step %c1 {
    %v = tir.load %x[%i] : memref<4xf32>
    %e = math.erf %v : f32
    %u = arith.fptoui %e : f32 to i32
    tir.store %u, %y[%i] : memref<4xi32>
  }
  tir.return
}

// CHECK:      target triple =
// CHECK:      define void @"cast"(ptr noalias align 64 %{{.*}}, ptr noalias align 64 %{{.*}})
// CHECK:        phi i64
// CHECK:        icmp slt i64
// CHECK:        getelementptr inbounds float, ptr
// CHECK:        call ccc float @"erff"(float
// CHECK:        fptoui float %{{.*}} to i32
// CHECK:        ret void
// CHECK:      declare float @"erff"(float
