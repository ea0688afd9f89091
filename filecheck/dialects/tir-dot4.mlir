// tir.dot4: 4 unsigned bytes times 4 signed bytes, summed into each i32 lane
// (x86's vpdpbusd); `a` of 4 bytes is the same quad for every lane.
// RUN: %lamina_roundtrip | filecheck %s

// CHECK-LABEL: tir.prim_func @dot(%acc: memref<16xi32>, %a: memref<4xui8>, %b: memref<64xi8>, %c: memref<32xui8>) {
// CHECK:         %{{.*}} = tir.dot4 %{{.*}}, %{{.*}}, %{{.*}} : vector<16xi32>, vector<4xui8>, vector<64xi8>
// CHECK:         %{{.*}} = tir.dot4 %{{.*}}, %{{.*}}, %{{.*}} : vector<8xi32>, vector<32xui8>, vector<32xi8>
tir.prim_func @dot(%acc: memref<16xi32>, %a: memref<4xui8>, %b: memref<64xi8>, %c: memref<32xui8>) {
  %c0 = arith.constant 0 : index
  %v = tir.load %acc[%c0] : memref<16xi32>, vector<16xi32>
  %x = tir.load %a[%c0] : memref<4xui8>, vector<4xui8>
  %y = tir.load %b[%c0] : memref<64xi8>, vector<64xi8>
  %d = tir.dot4 %v, %x, %y : vector<16xi32>, vector<4xui8>, vector<64xi8>
  tir.store %d, %acc[%c0] : memref<16xi32>, vector<16xi32>
  %v8 = tir.load %acc[%c0] : memref<16xi32>, vector<8xi32>
  %x8 = tir.load %c[%c0] : memref<32xui8>, vector<32xui8>
  %y8 = tir.load %b[%c0] : memref<64xi8>, vector<32xi8>
  %e = tir.dot4 %v8, %x8, %y8 : vector<8xi32>, vector<32xui8>, vector<32xi8>
  tir.store %e, %acc[%c0] : memref<16xi32>, vector<8xi32>
  tir.return
}
