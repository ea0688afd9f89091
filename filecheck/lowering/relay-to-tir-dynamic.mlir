// RUN: lamina-opt %s -p lower-relay-to-te | filecheck %s --check-prefix=TE
// RUN: lamina-opt %s -p lower-relay-to-te,lower-te-to-tir | filecheck %s
// RUN: lamina-opt %s -p lower-relay-to-te,lower-te-to-tir,lower-tir-to-llvm | filecheck %s --check-prefix=LLVM

// Data-dependent sizes: NonZero's extern kernel writes its indices padded to
// the bound (6) and a count; the size "nz" is set from the count after that
// kernel ran and before the narrow that copies the valid prefix out. A narrow
// whose count is an input ("k") is bounded by a symbolic input size ("n").
// In @main (LLVM) the count is loaded, clamped to 0..bound (icmp/select) and
// stored into its `args` slot, where the runtime reads the output's size; the
// module lists the sizes it sets with their bounds (lamina.bounds).

// TE-LABEL:   func.func @main(
// TE-NOT:       te.set_size
// TE:           %[[IDX:[0-9]+]], %[[CNT:[0-9]+]] = te.call @nonzero(%x) : (tensor<2x3xf32>) -> (tensor<2x6xi64>, tensor<i64>)
// TE-NEXT:      te.set_size "nz" = %[[CNT]], bound "6" : tensor<i64>
// TE-NEXT:      %{{[0-9]+}} = te.call @narrow(%[[IDX]], %[[CNT]]) : (tensor<2x6xi64>, tensor<i64>) -> tensor<2x?xi64, ["nz"]>
// TE:           te.set_size "k" = %k, bound "n" : tensor<i64>
// TE-NEXT:      %{{[0-9]+}} = te.call @narrow_1(%y, %k) : (tensor<?x4xf32, ["n"]>, tensor<i64>) -> tensor<?x4xf32, ["k"]>
// TE-NOT:       te.set_size
// TE:           func.return

// CHECK-LABEL: func.func @main(
// CHECK-NOT:     tir.set_size
// CHECK:         tir.call @nonzero(%0, %[[IDX:[0-9]+]], %[[CNT:[0-9]+]]) : memref<2x3xf32>, memref<2x6xi64>, memref<i64>
// CHECK-NOT:     tir.call
// CHECK:         tir.set_size "nz" = %[[CNT]], bound "6" : memref<i64>
// CHECK-NOT:     tir.call
// CHECK:         %[[NZ:[0-9]+]] = tir.size "nz" : index
// CHECK-NEXT:    tir.call @narrow(%[[IDX]], %[[CNT]], %{{[0-9]+}}, %[[NZ]]) : memref<2x6xi64>, memref<i64>, memref<2x?xi64, #tir.sizes<["nz"]>>, index
// CHECK:         tir.call @cast(%{{[0-9]+}}, %3, %{{[0-9]+}}) : memref<?x2xi64, #tir.sizes<["nz"]>>, memref<?x2xf32, #tir.sizes<["nz"]>>, index
// CHECK-NOT:     tir.call
// CHECK:         tir.set_size "k" = %2, bound "n" : memref<i64>
// CHECK-NOT:     tir.call
// CHECK:         %[[K:[0-9]+]] = tir.size "k" : index
// CHECK-NEXT:    %[[N:[0-9]+]] = tir.size "n" : index
// CHECK-NEXT:    tir.call @narrow_1(%1, %2, %{{[0-9]+}}, %[[K]], %[[N]])
// CHECK-NOT:     tir.set_size
// CHECK:         func.return
// CHECK:       tir.prim_func @nonzero(%0: memref<2x3xf32>, %1: memref<2x6xi64>, %2: memref<i64>) {

// LLVM:         builtin.module attributes {lamina.target_spec = "{{[^"]*}}", lamina.sizes = ["k", "n", "nz"], lamina.bounds = {{\[\[}}"nz", "6"], ["k", "n"]]
// LLVM-LABEL:   llvm.func @main(%args: !llvm.ptr {llvm.noalias}, %params: !llvm.ptr {llvm.noalias}, %workspace: !llvm.ptr {llvm.noalias, llvm.align = 64 : i64}) {
// LLVM:           %[[KPTR:[0-9]+]] = llvm.getelementptr inbounds %args[2] : (!llvm.ptr) -> !llvm.ptr, i64
// LLVM-NEXT:      %[[KBUF:[0-9]+]] = llvm.load %[[KPTR]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// LLVM:           llvm.call @nonzero(%{{[0-9]+}}, %[[IDX:[0-9]+]], %[[CNT:[0-9]+]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// LLVM-NEXT:      %[[C:[0-9]+]] = llvm.load %[[CNT]] {alignment = 8 : i64} : !llvm.ptr -> i64
// LLVM-NEXT:      %[[BOUND:[0-9]+]] = llvm.mlir.constant(6) : i64
// LLVM-NEXT:      %[[ZERO:[0-9]+]] = llvm.mlir.constant(0) : i64
// LLVM-NEXT:      %[[NEG:[0-9]+]] = llvm.icmp "slt" %[[C]], %[[ZERO]] : i64
// LLVM-NEXT:      %[[ZERO2:[0-9]+]] = llvm.mlir.constant(0) : i64
// LLVM-NEXT:      %[[LOW:[0-9]+]] = llvm.select %[[NEG]], %[[ZERO2]], %[[C]] : i1, i64
// LLVM-NEXT:      %[[OVER:[0-9]+]] = llvm.icmp "sgt" %[[LOW]], %[[BOUND]] : i64
// LLVM-NEXT:      %[[NZ:[0-9]+]] = llvm.select %[[OVER]], %[[BOUND]], %[[LOW]] : i1, i64
// LLVM-NEXT:      %[[SLOT:[0-9]+]] = llvm.getelementptr inbounds %args[7] : (!llvm.ptr) -> !llvm.ptr, i64
// LLVM-NEXT:      llvm.store %[[NZ]], %[[SLOT]] {alignment = 8 : i64} : i64, !llvm.ptr
// LLVM-NOT:       llvm.call @{{(nonzero|transpose|cast|relu|narrow_1)}}(
// LLVM:           llvm.call @narrow(%[[IDX]], %[[CNT]], %{{[0-9]+}}, %[[NZ]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64) -> ()
// LLVM:           llvm.call @cast(%{{[0-9]+}}, %{{[0-9]+}}, %[[NZ]])
// LLVM-NOT:       llvm.call @{{(nonzero|transpose|cast|relu|narrow_1)}}(
// LLVM:           %[[KV:[0-9]+]] = llvm.load %[[KBUF]] {alignment = 8 : i64} : !llvm.ptr -> i64
// LLVM-NEXT:      %[[ZERO3:[0-9]+]] = llvm.mlir.constant(0) : i64
// LLVM-NEXT:      %[[KNEG:[0-9]+]] = llvm.icmp "slt" %[[KV]], %[[ZERO3]] : i64
// LLVM-NEXT:      %[[ZERO4:[0-9]+]] = llvm.mlir.constant(0) : i64
// LLVM-NEXT:      %[[KLOW:[0-9]+]] = llvm.select %[[KNEG]], %[[ZERO4]], %[[KV]] : i1, i64
// LLVM-NEXT:      %[[KOVER:[0-9]+]] = llvm.icmp "sgt" %[[KLOW]], %[[N:[0-9]+]] : i64
// LLVM-NEXT:      %[[KSIZE:[0-9]+]] = llvm.select %[[KOVER]], %[[N]], %[[KLOW]] : i1, i64
// LLVM-NEXT:      %[[KSLOT:[0-9]+]] = llvm.getelementptr inbounds %args[5] : (!llvm.ptr) -> !llvm.ptr, i64
// LLVM-NEXT:      llvm.store %[[KSIZE]], %[[KSLOT]] {alignment = 8 : i64} : i64, !llvm.ptr
// LLVM-NOT:       llvm.call @{{(nonzero|narrow|transpose|cast|relu)}}(
// LLVM:           llvm.call @narrow_1(%{{[0-9]+}}, %[[KBUF]], %{{[0-9]+}}, %[[KSIZE]], %{{[0-9]+}})
// LLVM-NOT:       tir.set_size
// LLVM:           llvm.return
func.func @main(%x: tensor<2x3xf32>, %y: tensor<?x4xf32, ["n"]>, %k: tensor<i64>) -> (tensor<?x2xf32, ["nz"]>, tensor<?x4xf32, ["k"]>) {
  %0, %1 = relay.nonzero %x : (tensor<2x3xf32>)
  %2 = relay.narrow %0, %1 {axis = 1 : i64, size = "nz"} : (tensor<2x6xi64>, tensor<i64>)
  %3 = relay.transpose %2 {perm = array<i64: 1, 0>} : (tensor<2x?xi64, ["nz"]>)
  %4 = relay.cast %3 {dtype = f32} : (tensor<?x2xi64, ["nz"]>)
  %5 = relay.narrow %y, %k {axis = 0 : i64, size = "k"} : (tensor<?x4xf32, ["n"]>, tensor<i64>)
  %6 = relay.relu %5 : (tensor<?x4xf32, ["k"]>)
  func.return %4, %6 : tensor<?x2xf32, ["nz"]>, tensor<?x4xf32, ["k"]>
}
