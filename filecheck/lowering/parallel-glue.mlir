// RUN: lamina-opt %s -p lower-tir-to-llvm -t llvm | filecheck %s

// The launcher of an outlined parallel loop runs the body itself on one thread,
// else hands the loop's iteration count to lamina's thread pool
// (lamina_parallel_for); the worker maps chunk [lo, hi) of the count back to
// the body's range lb + i * step (here 2 + i * 3 up to 20: 6 iterations). The
// body is not inlined into either (LLVM would compile the loop nest three times).

// CHECK-LABEL: define void @"strided_par0"({{.*}}) noinline
// CHECK-LABEL: define void @"strided_par0_launch"(
// CHECK:         call i32 @"lamina_get_max_threads"()
// CHECK-NEXT:    icmp sle i32 %{{.*}}, 1
// CHECK:       alone:
// CHECK:         call void @"strided_par0"(
// CHECK:       team:
// CHECK:         sdiv i64 %{{.*}}, 3
// CHECK:         call void @"lamina_parallel_for"({{.*}} @"strided_par0_worker", ptr %{{.*}}, i64 %{{.*}})
// CHECK:       declare void @"lamina_parallel_for"(ptr {{.*}}, ptr {{.*}}, i64 {{.*}})
// CHECK:       declare i32 @"lamina_get_max_threads"()
// CHECK-LABEL: define internal void @"strided_par0_worker"(ptr %{{.*}}, i64 %{{.*}}, i64 %{{.*}})
// CHECK:         mul i64 %{{.*}}, 3
// CHECK-NEXT:    add i64 2, %{{.*}}
// CHECK:         call void @"strided_par0"(
// CHECK-NOT:     GOMP
tir.prim_func @strided(%x: memref<20xf32>) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c20 = arith.constant 20 : index
  %two = arith.constant 2.0 : f32
  tir.for parallel %i = %c2 to %c20 step %c3 {
    %v = tir.load %x[%i] : memref<20xf32>
    %m = arith.mulf %v, %two : f32
    tir.store %m, %x[%i] : memref<20xf32>
  }
  tir.return
}
