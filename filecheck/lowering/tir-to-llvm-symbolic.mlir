// RUN: lamina-opt %s -p lower-tir-to-llvm | filecheck %s

// CHECK: builtin.module attributes {lamina.target_spec = "{{[^"]*}}", lamina.sizes = ["m", "n"], lamina.dynamic_plan = {{\[\[}}3 : i64, 4 : i64, "4*m*n"]]

// A kernel over buffers of symbolic shape: its sizes are i64 arguments, the row
// stride of a `?x?` buffer is computed from them, and a local buffer of symbolic
// size is a dynamic alloca. @main reads the sizes from `args` after the buffers,
// and the per-shape offsets of its intermediates after the sizes.

// CHECK-LABEL: llvm.func @copy(%x: !llvm.ptr {llvm.align = 64 : i64, llvm.noalias}, %y: !llvm.ptr {llvm.align = 64 : i64, llvm.noalias}, %m: i64, %n: i64) {
// CHECK:         %[[T:.*]] = llvm.mul %m, %n : i64
// CHECK:         llvm.alloca %[[T]] x f32
// CHECK:         %[[ROW:.*]] = llvm.mul %i, %n : i64
// CHECK:         %[[AT:.*]] = llvm.add %[[ROW]], %j : i64
// CHECK:         llvm.getelementptr inbounds %x[%[[AT]]]
tir.prim_func @copy(%x: memref<?x?xf32, #tir.sizes<["m", "n"]>>, %y: memref<?x?xf32, #tir.sizes<["m", "n"]>>, %m: index, %n: index) attributes {sizes = ["m", "n"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tir.alloc local : memref<?x?xf32, #tir.sizes<["m", "n"]>>
  tir.for serial %i = %c0 to %m step %c1 {
    tir.for serial %j = %c0 to %n step %c1 {
      %v = tir.load %x[%i, %j] : memref<?x?xf32, #tir.sizes<["m", "n"]>>
      tir.store %v, %t[%i, %j] : memref<?x?xf32, #tir.sizes<["m", "n"]>>
      tir.store %v, %y[%i, %j] : memref<?x?xf32, #tir.sizes<["m", "n"]>>
    }
  }
  tir.return
}

// CHECK-LABEL: llvm.func @main(%args: !llvm.ptr {llvm.noalias}, %params: !llvm.ptr {llvm.noalias}, %workspace: !llvm.ptr {llvm.noalias, llvm.align = 64 : i64}) {
// CHECK-DAG:     %[[S2:.*]] = llvm.getelementptr inbounds %args[2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG:     %[[S3:.*]] = llvm.getelementptr inbounds %args[3] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG:     %[[S4:.*]] = llvm.getelementptr inbounds %args[4] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-DAG:     %[[OFF:.*]] = llvm.load %[[S4]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-DAG:     llvm.getelementptr inbounds %workspace[%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         llvm.call @copy
// CHECK:         llvm.call @copy
func.func @main(%a: memref<?x?xf32, #tir.sizes<["m", "n"]>>, %b: memref<?x?xf32, #tir.sizes<["m", "n"]>>) {
  %m = tir.size "m" : index
  %n = tir.size "n" : index
  %t = tir.alloc global : memref<?x?xf32, #tir.sizes<["m", "n"]>>
  tir.call @copy(%a, %t, %m, %n) : memref<?x?xf32, #tir.sizes<["m", "n"]>>, memref<?x?xf32, #tir.sizes<["m", "n"]>>, index, index
  tir.call @copy(%t, %b, %m, %n) : memref<?x?xf32, #tir.sizes<["m", "n"]>>, memref<?x?xf32, #tir.sizes<["m", "n"]>>, index, index
  func.return
}
