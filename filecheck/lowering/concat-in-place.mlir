// Concatenation without copies: each operand a call computes is computed in its
// slice of the concatenation's buffer (tir.view); an input is copied there. The
// buffer lives as long as any view of it is read (the workspace plan), and a
// view is its buffer's address plus the slice's bytes.
// RUN: lamina-opt %s -p lower-relay-to-te | filecheck %s --check-prefix=TE
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' -p lower-relay-to-te,lower-te-to-tir | filecheck %s
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' -p lower-relay-to-te,lower-te-to-tir,lower-tir-to-llvm | filecheck %s --check-prefix=LLVM

// lower-relay-to-te leaves such a concatenation in the graph, for lower-te-to-tir.
// TE-LABEL: func.func @main(
// TE:         %[[A:[0-9a-z]+]] = te.call @relu(
// TE-NEXT:    %[[B:[0-9a-z]+]] = te.call @sigmoid(
// TE-NEXT:    %{{[0-9a-z]+}} = relay.concatenate %[[A]], %[[B]], %{{[0-9a-z]+}} {axis = 1 : i64}
// TE-NOT:     te.func @concatenate

// CHECK-LABEL: func.func @main(
// CHECK-SAME:  %[[X:[0-9]+]]: memref<1x2x4x16xf32> {lamina.name = "in0"}, %[[Y:[0-9]+]]: memref<1x4x4x16xf32> {lamina.name = "in1"}, %[[OUT0:[0-9]+]]: memref<1x8x4x16xf32> {lamina.name = "out0"}, %[[OUT1:[0-9]+]]: memref<2x2x16xf32> {lamina.name = "out1"}) {
// CHECK-NEXT:    %[[C:[0-9]+]] = tir.alloc global : memref<1x8x4x16xf32>
// CHECK-NEXT:    %[[A:[0-9]+]] = tir.view %[[C]][0] : memref<1x8x4x16xf32> to memref<1x2x4x16xf32>
// CHECK-NEXT:    tir.call @relu(%[[X]], %[[A]])
// CHECK-NEXT:    %[[B:[0-9]+]] = tir.view %[[C]][128] : memref<1x8x4x16xf32> to memref<1x2x4x16xf32>
// CHECK-NEXT:    tir.call @sigmoid(%[[X]], %[[B]])
// CHECK-NEXT:    %[[YS:[0-9]+]] = tir.view %[[C]][256] : memref<1x8x4x16xf32> to memref<1x4x4x16xf32>
// CHECK-NEXT:    tir.call @copy(%[[Y]], %[[YS]])
// CHECK-NEXT:    tir.call @negative(%[[C]], %[[OUT0]])
// A slice is read after the concatenation, through its view.
// CHECK-NEXT:    %[[R:[0-9]+]] = tir.alloc global : memref<2x4x16xf32>
// CHECK-NEXT:    tir.call @reshape(%[[A]], %[[R]])
// Along the first axis; one operand reads the other.
// CHECK-NEXT:    %[[U:[0-9]+]] = tir.alloc global : memref<4x2x16xf32>
// CHECK-NEXT:    %[[S:[0-9]+]] = tir.view %[[U]][0] : memref<4x2x16xf32> to memref<2x2x16xf32>
// CHECK-NEXT:    tir.call @strided_slice(%[[R]], %[[S]])
// CHECK-NEXT:    %[[T:[0-9]+]] = tir.view %[[U]][64] : memref<4x2x16xf32> to memref<2x2x16xf32>
// CHECK-NEXT:    tir.call @tanh_1(%[[S]], %[[T]])
// CHECK-NEXT:    tir.call @strided_slice_1(%[[U]], %[[OUT1]])
// CHECK-NEXT:    func.return
// CHECK-NOT:   @concatenate

// LLVM-LABEL: llvm.func @main(
// LLVM:         %[[C:[0-9]+]] = llvm.getelementptr inbounds %workspace[0] {lamina.workspace_offset = 0 : i64}
// LLVM-NEXT:    %[[A:[0-9]+]] = llvm.getelementptr inbounds %[[C]][0] : (!llvm.ptr) -> !llvm.ptr, i8
// LLVM-NEXT:    llvm.call @relu({{.*}}, %[[A]])
// LLVM-NEXT:    %[[B:[0-9]+]] = llvm.getelementptr inbounds %[[C]][512] : (!llvm.ptr) -> !llvm.ptr, i8
// LLVM-NEXT:    llvm.call @sigmoid({{.*}}, %[[B]])
// LLVM-NEXT:    %[[YS:[0-9]+]] = llvm.getelementptr inbounds %[[C]][1024] : (!llvm.ptr) -> !llvm.ptr, i8
// LLVM-NEXT:    llvm.call @copy({{.*}}, %[[YS]])
// LLVM-NEXT:    llvm.call @negative(%[[C]], {{.*}})
// The reshape still reads the concatenation's first slice: its output is not at 0..2048.
// LLVM-NEXT:    %[[R:[0-9]+]] = llvm.getelementptr inbounds %workspace[2048] {lamina.workspace_offset = 2048 : i64}
// LLVM-NEXT:    llvm.call @reshape(%[[A]], %[[R]])

func.func @main(%x: tensor<1x2x4x16xf32>, %y: tensor<1x4x4x16xf32>) -> (tensor<1x8x4x16xf32>, tensor<2x2x16xf32>) {
  %a = relay.relu %x : tensor<1x2x4x16xf32>
  %b = relay.sigmoid %x : tensor<1x2x4x16xf32>
  %c = relay.concatenate %a, %b, %y {axis = 1 : i64} : (tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>, tensor<1x4x4x16xf32>) -> tensor<1x8x4x16xf32>
  %n = relay.negative %c : tensor<1x8x4x16xf32>
  %r = relay.reshape %a {shape = array<i64: 2, 4, 16>} : (tensor<1x2x4x16xf32>) -> tensor<2x4x16xf32>
  %s = relay.strided_slice %r {begin = array<i64: 0, 0, 0>, end = array<i64: 2, 2, 16>, strides = array<i64: 1, 1, 1>} : (tensor<2x4x16xf32>) -> tensor<2x2x16xf32>
  %t = relay.tanh %s : tensor<2x2x16xf32>
  %u = relay.concatenate %s, %t {axis = 0 : i64} : (tensor<2x2x16xf32>, tensor<2x2x16xf32>) -> tensor<4x2x16xf32>
  %z = relay.strided_slice %u {begin = array<i64: 1, 0, 0>, end = array<i64: 3, 2, 16>, strides = array<i64: 1, 1, 1>} : (tensor<4x2x16xf32>) -> tensor<2x2x16xf32>
  func.return %n, %z : tensor<1x8x4x16xf32>, tensor<2x2x16xf32>
}
