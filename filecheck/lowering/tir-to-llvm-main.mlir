// RUN: lamina-opt %s -p lower-tir-to-llvm | filecheck %s

// The entry ABI: @main(args, params, workspace). Buffers are loaded from the
// argument table, weights from the parameter table (in the order of
// lamina.params), intermediates live in the workspace at offsets planned by
// liveness: %t0 is dead before %t2 is first used, so they share offset 0.

tir.prim_func @k(%a: memref<8xf32>, %b: memref<8xf32>) {
  tir.return
}
tir.prim_func @widen(%a: memref<8xf32>, %b: memref<20xf32>) {
  tir.return
}
tir.prim_func @narrow(%a: memref<20xf32>, %b: memref<8xf32>) {
  tir.return
}
func.func @main(%x: memref<8xf32>, %y: memref<8xf32>) {
  %w = tir.constant dense_resource<w2> : memref<8xf32>
  %v = tir.constant dense_resource<w1> : memref<8xf32>
  %t0 = tir.alloc global : memref<8xf32>
  %t1 = tir.alloc global : memref<20xf32>
  %t2 = tir.alloc global : memref<8xf32>
  tir.call @k(%x, %t0) : memref<8xf32>, memref<8xf32>
  tir.call @widen(%t0, %t1) : memref<8xf32>, memref<20xf32>
  tir.call @narrow(%t1, %w) : memref<20xf32>, memref<8xf32>
  tir.call @k(%w, %t2) : memref<8xf32>, memref<8xf32>
  tir.call @k(%t2, %v) : memref<8xf32>, memref<8xf32>
  tir.call @k(%v, %y) : memref<8xf32>, memref<8xf32>
  func.return
}

// CHECK:      builtin.module attributes {lamina.target_spec = "{{[^"]*}}", lamina.params = ["w2", "w1"], lamina.workspace_size = 192 : i64, lamina.intermediate_bytes = 256 : i64} {
// CHECK:        llvm.func @main(%args: !llvm.ptr {llvm.noalias}, %params: !llvm.ptr {llvm.noalias}, %workspace: !llvm.ptr {llvm.noalias, llvm.align = 64 : i64}) {
// CHECK-NEXT:     %[[P0:.*]] = llvm.getelementptr inbounds %args[0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:     %[[X:.*]] = llvm.load %[[P0]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:     %[[P1:.*]] = llvm.getelementptr inbounds %args[1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:     %[[Y:.*]] = llvm.load %[[P1]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:     %[[Q0:.*]] = llvm.getelementptr inbounds %params[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:     %[[W:.*]] = llvm.load %[[Q0]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:     %[[Q1:.*]] = llvm.getelementptr inbounds %params[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:     %[[V:.*]] = llvm.load %[[Q1]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:     %[[T0:.*]] = llvm.getelementptr inbounds %workspace[0] {lamina.workspace_offset = 0 : i64} : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:     %[[T1:.*]] = llvm.getelementptr inbounds %workspace[64] {lamina.workspace_offset = 64 : i64} : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:     %[[T2:.*]] = llvm.getelementptr inbounds %workspace[0] {lamina.workspace_offset = 0 : i64} : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:     llvm.call @k(%[[X]], %[[T0]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:     llvm.call @widen(%[[T0]], %[[T1]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:     llvm.call @narrow(%[[T1]], %[[W]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:     llvm.call @k(%[[W]], %[[T2]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:     llvm.call @k(%[[T2]], %[[V]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:     llvm.call @k(%[[V]], %[[Y]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:     llvm.return
