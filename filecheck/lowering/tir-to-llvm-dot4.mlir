// tir.dot4 in LLVM: vpdpbusd where the host has AVX-512 VNNI (the quad
// broadcast with a zero shuffle), else the same sums in plain vector IR
// (zero- and sign-extended bytes, products, strided shuffles added).
// RUN: lamina-opt %s -p lower-tir-to-llvm | filecheck %s

// CHECK-LABEL: llvm.func @dot(
// CHECK:         llvm.bitcast %x : vector<4xi8> to i32
// CHECK:         llvm.shufflevector
// CHECK:         {{llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"|llvm.mul}}
tir.prim_func @dot(%acc: memref<16xi32>, %a: memref<4xui8>, %b: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %v = tir.load %acc[%c0] : memref<16xi32>, vector<16xi32>
  %x = tir.load %a[%c0] : memref<4xui8>, vector<4xui8>
  %y = tir.load %b[%c0] : memref<64xi8>, vector<64xi8>
  %d = tir.dot4 %v, %x, %y : vector<16xi32>, vector<4xui8>, vector<64xi8>
  tir.store %d, %acc[%c0] : memref<16xi32>, vector<16xi32>
  tir.return
}
