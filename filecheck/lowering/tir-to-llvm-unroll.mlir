// `unrolled` loops: lower-tir-to-llvm marks the latch branch of one with constant
// bounds and at most 64 iterations, and the translation asks LLVM to unroll it
// fully (each loop its own self-referential loop ID); a longer loop, or one whose
// bounds are not constants, is a serial loop with no mark.
// RUN: lamina-opt %s -p lower-tir-to-llvm | filecheck %s
// RUN: lamina-opt %s -p lower-tir-to-llvm -t llvm | filecheck %s --check-prefix=IR

tir.prim_func @tiles(%x: memref<4x64xf32>, %y: memref<4x64xf32>, %z: memref<?xf32, #tir.sizes<["n"]>>, %n: index) attributes {sizes = ["n"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c65 = arith.constant 65 : index
  tir.for unrolled %i = %c0 to %c4 step %c1 {
    tir.for unrolled %j = %c0 to %c64 step %c1 {
      %v = tir.load %x[%i, %j] : memref<4x64xf32>
      tir.store %v, %y[%i, %j] : memref<4x64xf32>
    }
  }
  tir.for unrolled %k = %c0 to %c65 step %c1 {
    %w = tir.load %x[%c0, %c0] : memref<4x64xf32>
    tir.store %w, %y[%c0, %c0] : memref<4x64xf32>
  }
  tir.for unrolled %m = %c0 to %n step %c1 {
    %u = tir.load %x[%c1, %c1] : memref<4x64xf32>
    tir.store %u, %z[%m] : memref<?xf32, #tir.sizes<["n"]>>
  }
  tir.return
}

// CHECK-LABEL: llvm.func @tiles(
// CHECK:         llvm.cond_br %{{.*}}, ^{{.*}}, ^{{.*}} {lamina.for_kind = "unrolled"}
// CHECK:         llvm.cond_br %{{.*}}, ^{{.*}}, ^{{.*}} {lamina.for_kind = "unrolled"}
// CHECK:         llvm.br ^{{.*}}(%{{.*}} : i64) {lamina.unroll_full}
// CHECK:         llvm.br ^{{.*}}(%{{.*}} : i64) {lamina.unroll_full}
// CHECK-NOT:     lamina.unroll_full
// CHECK-NOT:     lamina.for_kind
// CHECK:         llvm.return

// IR-LABEL: define void @"tiles"(
// IR:         br label %{{.*}}, !llvm.loop ![[INNER:[0-9]+]]
// IR:         br label %{{.*}}, !llvm.loop ![[OUTER:[0-9]+]]
// IR-NOT:     !llvm.loop
// IR:         ret void
// IR-DAG:   ![[FULL:[0-9]+]] = !{ !"llvm.loop.unroll.full" }
// IR-DAG:   ![[INNER]] = !{ ![[INNER]], ![[FULL]] }
// IR-DAG:   ![[OUTER]] = !{ ![[OUTER]], ![[FULL]] }
