// A tile that a symbolic size cuts (rows `m` split by 4, unrolled under
// cache_write, as a GEMM's rows while decoding): whole tiles (the tile's last
// row inside `m`) run the 4-row tile; the last, partial tile runs row by row
// over the rows that exist, each with a one-row accumulator, instead of four
// rows on clamped reads.
// RUN: lamina-opt %s -p lower-te-to-tir | filecheck %s

func.func @main(%a: tensor<?x8xf32, ["m"]>, %b: tensor<8x16xf32>) -> tensor<?x16xf32, ["m"]> {
  %0 = te.call @mm(%a, %b) : (tensor<?x8xf32, ["m"]>, tensor<8x16xf32>) -> tensor<?x16xf32, ["m"]>
  func.return %0 : tensor<?x16xf32, ["m"]>
}
te.func @mm {
  %A = te.placeholder "A" : tensor<?x8xf32, ["m"]>
  %B = te.placeholder "B" : tensor<8x16xf32>
  %C = te.compute (%i, %j) reduce sum (%k) [8] attributes {schedule = "split(i0, 4); reorder(i1, i0.o, r0, i0.i); cache_write(i0.o); unroll(i0.i)"} : tensor<?x16xf32, ["m"]> {
    %x = te.read %A[%i, %k] : tensor<?x8xf32, ["m"]>
    %y = te.read %B[%k, %j] : tensor<8x16xf32>
    %p = arith.mulf %x, %y : f32
    te.yield %p : f32
  }
  te.output %C : tensor<?x16xf32, ["m"]>
}

// CHECK-LABEL: tir.prim_func @mm(
// CHECK-SAME:    %m: index
// CHECK:         tir.for serial [[J:%[0-9]+]] =
// CHECK-NEXT:      tir.for serial [[IO:%[0-9]+]] =
// CHECK:             [[LASTROW:%[0-9]+]] = arith.addi {{.*}} : index
// CHECK-NEXT:        [[WHOLE:%[0-9]+]] = arith.cmpi slt, [[LASTROW]], %m : index
// CHECK-NEXT:        tir.if [[WHOLE]] {
// CHECK-NEXT:          [[ACC:%[0-9]+]] = tir.alloc local : memref<4xf32>
// CHECK:               tir.for serial {{%[0-9]+}} =
// CHECK-NEXT:            tir.for unrolled {{%[0-9]+}} =
// CHECK:             } else {
// CHECK:               tir.for serial [[I:%[0-9]+]] =
// CHECK:                 [[EXISTS:%[0-9]+]] = arith.cmpi slt, {{%[0-9]+}}, %m : index
// CHECK-NEXT:            tir.if [[EXISTS]] {
// CHECK-NEXT:              [[ROW:%[0-9]+]] = tir.alloc local : memref<1xf32>
// CHECK:                   tir.for serial {{%[0-9]+}} =
// CHECK-NOT:                 tir.for
// CHECK:                     arith.mulf
