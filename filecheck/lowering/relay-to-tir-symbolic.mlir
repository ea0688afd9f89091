// RUN: lamina-opt %s -p lower-relay-to-te | filecheck %s --check-prefix=TE
// RUN: lamina-opt %s -p lower-relay-to-te,lower-te-to-tir | filecheck %s

// A softmax over a symbolic axis: its reductions run over ["seq"], the kernel
// takes the sizes as index arguments, loops run to them (a tail guarded by a
// compare), and @main passes them with tir.size.

// TE:       te.compute (%{{.*}}) reduce max (%{{.*}}) ["seq"] : tensor<?xf32, ["batch"]>
// TE:       te.compute (%{{.*}}) reduce sum (%{{.*}}) ["seq"] : tensor<?xf32, ["batch"]>

// CHECK:       func.func @main(%0: memref<?x?xf32, #tir.sizes<["batch", "seq"]>> {lamina.name = "in0"}, %1: memref<?x?xf32, #tir.sizes<["batch", "seq"]>> {lamina.name = "out0"}) {
// CHECK-NEXT:    %2 = tir.size "batch" : index
// CHECK-NEXT:    %3 = tir.size "seq" : index
// CHECK-NEXT:    tir.call @softmax(%0, %1, %2, %3)
// CHECK:       tir.prim_func @softmax(%0: memref<?x?xf32, #tir.sizes<["batch", "seq"]>>, %1: memref<?x?xf32, #tir.sizes<["batch", "seq"]>>, %batch: index, %seq: index) attributes {sizes = ["batch", "seq"]} {
// CHECK:         tir.alloc local : memref<?xf32, #tir.sizes<["batch"]>>
// CHECK:         arith.addi %{{.*}}, %seq : index
// CHECK:         tir.for parallel %{{.*}} = %{{.*}} to %batch step
// CHECK:         arith.cmpi slt, %{{.*}}, %seq : index
func.func @main(%x: tensor<?x?xf32, ["batch", "seq"]>) -> tensor<?x?xf32, ["batch", "seq"]> {
  %0 = relay.softmax %x {axis = 1 : i64} : (tensor<?x?xf32, ["batch", "seq"]>)
  func.return %0 : tensor<?x?xf32, ["batch", "seq"]>
}
