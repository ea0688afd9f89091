// RUN: lamina-opt %s -p lower-relay-to-te | filecheck %s --check-prefix=TE
// RUN: lamina-opt %s -p lower-relay-to-te,lower-te-to-tir | filecheck %s
// RUN: lamina-opt %s -p lower-relay-to-te,lower-te-to-tir,lower-tir-to-llvm | filecheck %s --check-prefix=LLVM

// Shapes given as data: the check that the shape keeps x's 6 elements stops
// the run before the reshape (relay.check -> te.check -> tir.check on the
// loaded condition); the reshape's sizes "r0" and "r1" are set from elements
// of %s and dyn_arange's "k" from %n before the kernels that use them
// (te/tir.set_size without a bound). In @main (LLVM) each unbounded size is
// loaded, checked to be >= 0, compared with the capacity the runtime wrote
// into its `args` slot and stored there; a failed check branches to an exit
// that writes its number into the last slot (args[8]: 3 inputs, 2 outputs,
// 3 sizes) and returns. The module lists the messages (lamina.exits) and the
// unbounded sizes, with an empty bound (lamina.bounds).

// TE-LABEL:   func.func @main(
// TE:           %[[PROD:[0-9]+]] = te.call @prod(%s) : (tensor<2xi64>) -> tensor<i64>
// TE-NEXT:      %[[OK:[0-9]+]] = te.call @equal(%[[PROD]], %{{[0-9]+}}) : (tensor<i64>, tensor<i64>) -> tensor<i1>
// TE-NEXT:      te.check %[[OK]], "reshape: the shape must keep 6 elements" : tensor<i1>
// TE-NEXT:      te.set_size "r0" = %s[0] : tensor<2xi64>
// TE-NEXT:      te.set_size "r1" = %s[1] : tensor<2xi64>
// TE-NEXT:      %{{[0-9]+}} = te.call @dyn_reshape(%x, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32, ["r0", "r1"]>
// TE-NEXT:      te.set_size "k" = %n : tensor<i64>
// TE-NEXT:      %{{[0-9]+}} = te.call @dyn_arange(%n) : (tensor<i64>) -> tensor<?xi64, ["k"]>
// TE-NOT:       relay.
// TE:           func.return

// CHECK-LABEL: func.func @main(
// CHECK:         tir.call @equal(%{{[0-9]+}}, %{{[0-9]+}}, %[[OKBUF:[0-9]+]]) : memref<i64>, memref<i64>, memref<i1>
// CHECK-NEXT:    %[[OK:[0-9]+]] = tir.load %[[OKBUF]][] : memref<i1>
// CHECK-NEXT:    tir.check %[[OK]], "reshape: the shape must keep 6 elements"
// CHECK-NEXT:    tir.set_size "r0" = %1[0] : memref<2xi64>
// CHECK-NEXT:    tir.set_size "r1" = %1[1] : memref<2xi64>
// CHECK-NEXT:    %[[R0:[0-9]+]] = tir.size "r0" : index
// CHECK-NEXT:    %[[R1:[0-9]+]] = tir.size "r1" : index
// CHECK-NEXT:    tir.call @dyn_reshape(%0, %1, %3, %[[R0]], %[[R1]]) : memref<2x3xf32>, memref<2xi64>, memref<?x?xf32, #tir.sizes<["r0", "r1"]>>, index, index
// CHECK-NEXT:    tir.set_size "k" = %2 : memref<i64>
// CHECK-NEXT:    %[[K:[0-9]+]] = tir.size "k" : index
// CHECK-NEXT:    tir.call @dyn_arange(%2, %4, %[[K]]) : memref<i64>, memref<?xi64, #tir.sizes<["k"]>>, index
// CHECK-NEXT:    func.return
// CHECK:       tir.prim_func @dyn_arange(%0: memref<i64>, %1: memref<?xi64, #tir.sizes<["k"]>>, %k: index) attributes {sizes = ["k"]} {

// LLVM:         builtin.module attributes {
// LLVM-SAME:      lamina.sizes = ["k", "r0", "r1"], lamina.bounds = {{\[\[}}"r0", ""], ["r1", ""], ["k", ""]],
// LLVM-SAME:      lamina.exits = ["reshape: the shape must keep 6 elements", "the data set size 'r0' to a negative value", "the data set size 'r1' to a negative value", "the data asked for more memory than planned", "the data set size 'k' to a negative value"]
// LLVM-LABEL:   llvm.func @main(%args: !llvm.ptr {llvm.noalias}, %params: !llvm.ptr {llvm.noalias}, %workspace: !llvm.ptr {llvm.noalias, llvm.align = 64 : i64}) {
// LLVM:           %{{[0-9]+}} = llvm.getelementptr inbounds %args[1] : (!llvm.ptr) -> !llvm.ptr, i64
// LLVM-NEXT:      %[[SHAPE:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// The capacities planned for the sizes the data sets: the slots' values on entry.
// LLVM:           %[[R0E:[0-9]+]] = llvm.getelementptr inbounds %args[6] : (!llvm.ptr) -> !llvm.ptr, i64
// LLVM-NEXT:      %[[R0CAP:[0-9]+]] = llvm.load %[[R0E]] {alignment = 8 : i64} : !llvm.ptr -> i64
// LLVM-NEXT:      %[[R1E:[0-9]+]] = llvm.getelementptr inbounds %args[7] : (!llvm.ptr) -> !llvm.ptr, i64
// LLVM-NEXT:      %[[R1CAP:[0-9]+]] = llvm.load %[[R1E]] {alignment = 8 : i64} : !llvm.ptr -> i64
// LLVM:           llvm.call @equal(
// LLVM-NEXT:      %[[OK:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 1 : i64} : !llvm.ptr -> i1
// LLVM-NEXT:      llvm.cond_br %[[OK]], ^[[R0BB:bb[0-9]+]], ^[[EXIT1:bb[0-9]+]]
// LLVM-NEXT:    ^[[R0BB]]:
// LLVM-NEXT:      %[[R0AT:[0-9]+]] = llvm.getelementptr inbounds %[[SHAPE]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// LLVM-NEXT:      %[[R0:[0-9]+]] = llvm.load %[[R0AT]] {alignment = 8 : i64} : !llvm.ptr -> i64
// LLVM-NEXT:      %[[R0SLOT:[0-9]+]] = llvm.getelementptr inbounds %args[6] : (!llvm.ptr) -> !llvm.ptr, i64
// LLVM-NEXT:      %[[ZERO:[0-9]+]] = llvm.mlir.constant(0) : i64
// LLVM-NEXT:      %[[R0POS:[0-9]+]] = llvm.icmp "sge" %[[R0]], %[[ZERO]] : i64
// LLVM-NEXT:      llvm.cond_br %[[R0POS]], ^[[R0OK:bb[0-9]+]], ^[[EXIT2:bb[0-9]+]]
// LLVM-NEXT:    ^[[R0OK]]:
// LLVM-NEXT:      %[[R0FITS:[0-9]+]] = llvm.icmp "sle" %[[R0]], %[[R0CAP]] : i64
// LLVM-NEXT:      llvm.store %[[R0]], %[[R0SLOT]] {alignment = 8 : i64} : i64, !llvm.ptr
// LLVM-NEXT:      %[[R1AT:[0-9]+]] = llvm.getelementptr inbounds %[[SHAPE]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// LLVM-NEXT:      %[[R1:[0-9]+]] = llvm.load %[[R1AT]] {alignment = 8 : i64} : !llvm.ptr -> i64
// LLVM-NEXT:      %[[R1SLOT:[0-9]+]] = llvm.getelementptr inbounds %args[7] : (!llvm.ptr) -> !llvm.ptr, i64
// LLVM:           %[[R1FITS:[0-9]+]] = llvm.icmp "sle" %[[R1]], %[[R1CAP]] : i64
// LLVM-NEXT:      llvm.store %[[R1]], %[[R1SLOT]] {alignment = 8 : i64} : i64, !llvm.ptr
// LLVM-DAG:       llvm.cond_br %[[R1FITS]], ^{{bb[0-9]+}}, ^[[REPLAN1:bb[0-9]+]]
// LLVM-DAG:       llvm.cond_br %[[R0FITS]], ^{{bb[0-9]+}}, ^[[REPLAN0:bb[0-9]+]]
// LLVM:           llvm.call @dyn_reshape(%{{[0-9]+}}, %[[SHAPE]], %{{[0-9]+}}, %[[R0]], %[[R1]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64) -> ()
// LLVM-NEXT:      %[[K:[0-9]+]] = llvm.load %{{[0-9]+}} {alignment = 8 : i64} : !llvm.ptr -> i64
// LLVM-NEXT:      %[[KSLOT:[0-9]+]] = llvm.getelementptr inbounds %args[5] : (!llvm.ptr) -> !llvm.ptr, i64
// LLVM:           llvm.icmp "sle" %[[K]], %{{[0-9]+}} : i64
// LLVM-NEXT:      llvm.store %[[K]], %[[KSLOT]] {alignment = 8 : i64} : i64, !llvm.ptr
// LLVM-NEXT:      llvm.cond_br %{{[0-9]+}}, ^{{bb[0-9]+}}, ^{{bb[0-9]+}}
// LLVM-NEXT:    ^{{bb[0-9]+}}:
// LLVM-NEXT:      llvm.call @dyn_arange(%{{[0-9]+}}, %{{[0-9]+}}, %[[K]]) : (!llvm.ptr, !llvm.ptr, i64) -> ()
// LLVM-NEXT:      llvm.return
// LLVM-NEXT:    ^[[EXIT1]]:
// LLVM-NEXT:      %[[STATUS:[0-9]+]] = llvm.getelementptr inbounds %args[8] : (!llvm.ptr) -> !llvm.ptr, i64
// LLVM-NEXT:      %[[ONE:[0-9]+]] = llvm.mlir.constant(1) : i64
// LLVM-NEXT:      llvm.store %[[ONE]], %[[STATUS]] {alignment = 8 : i64} : i64, !llvm.ptr
// LLVM-NEXT:      llvm.return
// LLVM-NEXT:    ^[[EXIT2]]:
// LLVM-NEXT:      %{{[0-9]+}} = llvm.getelementptr inbounds %args[8] : (!llvm.ptr) -> !llvm.ptr, i64
// LLVM-NEXT:      %{{[0-9]+}} = llvm.mlir.constant(2) : i64
// LLVM:         ^[[REPLAN1]]:
// LLVM-NEXT:      %{{[0-9]+}} = llvm.getelementptr inbounds %args[8] : (!llvm.ptr) -> !llvm.ptr, i64
// LLVM-NEXT:      %{{[0-9]+}} = llvm.mlir.constant(4) : i64
// LLVM-NEXT:      llvm.store
// LLVM-NEXT:      llvm.return
// LLVM-NOT:       tir.
func.func @main(%x: tensor<2x3xf32>, %s: tensor<2xi64>, %n: tensor<i64>) -> (tensor<?x?xf32, ["r0", "r1"]>, tensor<?xi64, ["k"]>) {
  %0 = relay.constant dense<6> : tensor<i64>
  %1 = relay.prod %s {axes = array<i64: 0>} : (tensor<2xi64>)
  %2 = relay.equal %1, %0 : (tensor<i64>, tensor<i64>)
  %3 = relay.check %x, %2 {message = "reshape: the shape must keep 6 elements"} : (tensor<2x3xf32>, tensor<i1>)
  %4 = relay.dyn_reshape %3, %s {sizes = ["r0", "r1"], dims = ["r0", "r1"]} : (tensor<2x3xf32>, tensor<2xi64>)
  %5 = relay.dyn_arange %n {size = "k"} : (tensor<i64>)
  func.return %4, %5 : tensor<?x?xf32, ["r0", "r1"]>, tensor<?xi64, ["k"]>
}
