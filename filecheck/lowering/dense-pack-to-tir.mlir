// relay.dense_pack lowered: its compute reads the packed weight at [n / B, k,
// n % B]; its gemm schedule fuses the batch into the rows and splits the
// register tile's columns into vectors of the host's lanes L (a multiple of the
// panel B here: L divides 16 on every x86 host), unrolled, one register each.
// tir-vectorize then reads one weight vector of a panel per column vector and
// reduce step: a contiguous vector load, no gather.
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' -p fuse-ops,lower-relay-to-te | filecheck %s --check-prefix=TE
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' -p fuse-ops,lower-relay-to-te,lower-te-to-tir,tir-unroll,tir-vectorize | filecheck %s

func.func @main(%x: tensor<2x5x3xf32>, %w: tensor<2x3x16xf32>) -> tensor<2x5x32xf32> {
  %0 = relay.dense_pack %x, %w : (tensor<2x5x3xf32>, tensor<2x3x16xf32>)
  %1 = relay.relu %0 : tensor<2x5x32xf32>
  func.return %1 : tensor<2x5x32xf32>
}

// TE:       te.func @fused_dense_pack_relu {
// TE-NEXT:    [[X:%[0-9]+]] = te.placeholder "in0" : tensor<2x5x3xf32>
// TE-NEXT:    [[W:%[0-9]+]] = te.placeholder "in1" : tensor<2x3x16xf32>
// TE-NEXT:    {{%[0-9]+}} = te.compute ([[B0:%[0-9]+]], [[M:%[0-9]+]], [[N:%[0-9]+]]) reduce sum ([[K:%[0-9]+]]) [3]
// TE-SAME:      schedule = "fuse(i0, i1); split(i0.i1, {{[0-9]+}}); split(i2, {{[0-9]+}}); split(i2.i, [[L:[0-9]+]]); reorder({{.*}}, r0, i0.i1.i, i2.i.o, i2.i.i);
// TE-SAME:      unroll(i0.i1.i); unroll(i2.i.o); vectorize(i2.i.i)"
// TE-NEXT:      [[C16:%[0-9]+]] = arith.constant 16 : index
// TE-NEXT:      [[P:%[0-9]+]] = arith.divui [[N]], [[C16]] : index
// TE-NEXT:      [[C16B:%[0-9]+]] = arith.constant 16 : index
// TE-NEXT:      [[J:%[0-9]+]] = arith.remui [[N]], [[C16B]] : index
// TE-NEXT:      [[A:%[0-9]+]] = te.read [[X]]{{\[}}[[B0]], [[M]], [[K]]] : tensor<2x5x3xf32>
// TE-NEXT:      [[B:%[0-9]+]] = te.read [[W]]{{\[}}[[P]], [[K]], [[J]]] : tensor<2x3x16xf32>
// TE-NEXT:      {{%[0-9]+}} = arith.mulf [[A]], [[B]] : f32

// CHECK-LABEL: tir.prim_func @fused_dense_pack_relu(
// CHECK-SAME:    [[X:%[0-9]+]]: memref<2x5x3xf32>, [[W:%[0-9]+]]: memref<2x3x16xf32>, [[Y:%[0-9]+]]: memref<2x5x32xf32>)
// CHECK:         tir.for parallel
// CHECK:           [[ACC:%[0-9]+]] = tir.alloc local : memref<{{[0-9]+}}x{{[0-9]+}}x[[L:[0-9]+]]xf32>
// CHECK:           tir.for serial [[K:%[0-9]+]] =
// CHECK-NOT:         tir.for
// CHECK:             [[A:%[0-9]+]] = tir.load [[X]][{{.*}}, [[K]]] : memref<2x5x3xf32>
// CHECK-NEXT:        [[B:%[0-9]+]] = tir.load [[W]][{{%[0-9]+}}, [[K]], {{%[0-9]+}}] : memref<2x3x16xf32>, vector<[[L]]xf32>
// CHECK-NEXT:        [[AV:%[0-9]+]] = vector.broadcast [[A]] : f32 to vector<[[L]]xf32>
// CHECK-NEXT:        {{%[0-9]+}} = arith.mulf [[AV]], [[B]] : vector<[[L]]xf32>
// CHECK-NOT:     vector.shuffle
// CHECK:         arith.maximumf {{.*}} : vector<[[L]]xf32>
