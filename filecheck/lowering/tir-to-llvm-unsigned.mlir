// Unsigned integers become signless LLVM integers; the comparison keeps the sign.
// RUN: lamina-opt %s -p lower-relay-to-te,lower-te-to-tir,lower-tir-to-llvm | filecheck %s

func.func @main(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xi1> {
  %0 = relay.less %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  func.return %0 : tensor<4xi1>
}

// CHECK-NOT: ui8
// CHECK-LABEL: llvm.func @less(
// CHECK:         [[A:%[0-9]+]] = llvm.load {{%[0-9]+}} {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK:         [[B:%[0-9]+]] = llvm.load {{%[0-9]+}} {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK-NEXT:    [[LT:%[0-9]+]] = llvm.icmp "ult" [[A]], [[B]] : i8
// CHECK:         llvm.store [[LT]], {{%[0-9]+}} {alignment = 1 : i64} : i1, !llvm.ptr
// CHECK-NOT: ui8
