// tir.call_extern: a kernel calls a C function the runtime provides (the image
// decoder), buffers as pointers, index and integers as values, and takes its
// integer result. Custom form, and generic form re-parsed.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tir.prim_func @image_shape(%data: memref<?xui8, #tir.sizes<["n"]>>, %shape: memref<3xi64>, %status: memref<i64>, %n: index) attributes {sizes = ["n"]} {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %fmt = arith.constant 1 : i32
// CHECK-NEXT:    %st = tir.call_extern @lamina_image_decode(%data, %n, %fmt, %shape, %c0, %shape) : (memref<?xui8, #tir.sizes<["n"]>>, index, i32, memref<3xi64>, index, memref<3xi64>) -> i64
// CHECK-NEXT:    tir.store %st, %status[] : memref<i64>
// GENERIC: %st = "tir.call_extern"(%data, %n, %fmt, %shape, %c0, %shape) <{callee = @lamina_image_decode}> : (memref<?xui8, #tir.sizes<["n"]>>, index, i32, memref<3xi64>, index, memref<3xi64>) -> i64
tir.prim_func @image_shape(%data: memref<?xui8, #tir.sizes<["n"]>>, %shape: memref<3xi64>, %status: memref<i64>, %n: index) attributes {sizes = ["n"]} {
  %c0 = arith.constant 0 : index
  %fmt = arith.constant 1 : i32
  %st = tir.call_extern @lamina_image_decode(%data, %n, %fmt, %shape, %c0, %shape) : (memref<?xui8, #tir.sizes<["n"]>>, index, i32, memref<3xi64>, index, memref<3xi64>) -> i64
  tir.store %st, %status[] : memref<i64>
  tir.return
}
