// A reduction blocked by reduce loops outside its cache_write (a GEMM's K
// blocks): each block's accumulators start at the identity, then, after the
// first block (the blocks' iteration number is not 0), at the partial result
// the block before wrote back; the epilogue (a relu) runs in the write-back of
// the last block only, the other blocks store the partial result as it is.
// RUN: lamina-opt %s -p lower-te-to-tir | filecheck %s

func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = te.call @mm(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  func.return %0 : tensor<4x16xf32>
}
te.func @mm {
  %A = te.placeholder "A" : tensor<4x8xf32>
  %B = te.placeholder "B" : tensor<8x16xf32>
  %C = te.compute (%i, %j) reduce sum (%k) [8] attributes {schedule = "split(i0, 2); split(r0, 4); reorder(i1, r0.o, i0.o, r0.i, i0.i); cache_write(i0.o); unroll(i0.i)"} : tensor<4x16xf32> {
    %x = te.read %A[%i, %k] : tensor<4x8xf32>
    %y = te.read %B[%k, %j] : tensor<8x16xf32>
    %m = arith.mulf %x, %y : f32
    te.yield %m : f32
  }
  %D = te.compute (%p, %q) : tensor<4x16xf32> {
    %v = te.read %C[%p, %q] : tensor<4x16xf32>
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %v, %z : f32
    te.yield %r : f32
  }
  te.output %D : tensor<4x16xf32>
}

// CHECK-LABEL: tir.prim_func @mm(
// CHECK-SAME:    [[A:%[0-9]+]]: memref<4x8xf32>, [[B:%[0-9]+]]: memref<8x16xf32>, [[C:%[0-9]+]]: memref<4x16xf32>)
// CHECK:         tir.for serial [[J:%[0-9]+]] =
// CHECK-NEXT:      tir.for serial [[KB:%[0-9]+]] =
// CHECK-NEXT:        tir.for serial [[IO:%[0-9]+]] =
// CHECK-NEXT:          [[ACC:%[0-9]+]] = tir.alloc local : memref<2xf32>
// CHECK-NEXT:          tir.for unrolled [[I:%[0-9]+]] =
// CHECK-NEXT:            [[ZERO:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:            tir.store [[ZERO]], [[ACC]]{{\[}}[[I]]] : memref<2xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:          [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:          [[LATER:%[0-9]+]] = arith.cmpi ne, [[KB]], [[C0]] : index
// CHECK-NEXT:          tir.if [[LATER]] {
// CHECK-NEXT:            tir.for unrolled [[I2:%[0-9]+]] =
// CHECK:                   [[PART:%[0-9]+]] = tir.load [[C]]{{\[}}{{%[0-9]+}}, [[J]]] : memref<4x16xf32>
// CHECK-NEXT:              tir.store [[PART]], [[ACC]]{{\[}}[[I2]]] : memref<2xf32>
// CHECK:                 tir.for serial [[K:%[0-9]+]] =
// CHECK:                   arith.mulf
// CHECK:                   arith.addf
// CHECK:                 [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:          [[LAST:%[0-9]+]] = arith.cmpi eq, [[KB]], [[C1]] : index
// CHECK-NEXT:          tir.if [[LAST]] {
// CHECK-NEXT:            tir.for unrolled
// CHECK-NEXT:              [[V:%[0-9A-Za-z_]+]] = tir.load [[ACC]]
// CHECK-NEXT:              [[Z:%[0-9A-Za-z_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:              [[R:%[0-9A-Za-z_]+]] = arith.maximumf [[V]], [[Z]] : f32
// CHECK:                   tir.store [[R]], [[C]]
// CHECK:               } else {
// CHECK-NEXT:            tir.for unrolled
// CHECK-NEXT:              [[V2:%[0-9]+]] = tir.load [[ACC]]
// CHECK-NOT:               arith.maximumf
// CHECK:                   tir.store [[V2]], [[C]]
