// tir-vectorize on a target without masked loads and stores (NEON, SIMD128):
// the vector body runs without masks when every lane is inside them (checked at
// the first and the last lane, before the body), the loop as a serial loop
// otherwise (the tail). Targets with them (AVX-512, RVV) keep the masks.
// RUN: lamina-opt %s --split-input-file --codegen-target=aarch64-linux-gnu -p tir-vectorize | filecheck %s --check-prefix=PEEL
// RUN: lamina-opt %s --split-input-file --codegen-target=wasm32 -p tir-vectorize | filecheck %s --check-prefix=PEEL
// RUN: lamina-opt %s --split-input-file --codegen-target='x86_64-linux-gnu -mcpu=znver4' -p tir-vectorize | filecheck %s --check-prefix=MASK
// RUN: lamina-opt %s --split-input-file --codegen-target='riscv64-linux-gnu -mattr=+v' -p tir-vectorize | filecheck %s --check-prefix=MASK

// A store guarded by the extent: whole vectors store plainly, the tail is the loop.
// PEEL-LABEL: tir.prim_func @tail(
// PEEL:         tir.for serial %o = %c0 to %c3 step %c1 {
// PEEL:           [[J0:%[0-9A-Za-z_]+]] = arith.addi %b, {{%[0-9]+}} : index
// PEEL-NEXT:      [[IN0:%[0-9]+]] = arith.cmpi slt, [[J0]], %c10 : index
// PEEL-NEXT:      [[C3:%[0-9]+]] = arith.constant 3 : index
// PEEL-NEXT:      [[J3:%[0-9]+]] = arith.addi [[J0]], [[C3]] : index
// PEEL-NEXT:      [[IN3:%[0-9]+]] = arith.cmpi slt, [[J3]], %c10 : index
// PEEL-NEXT:      [[ALL:%[0-9]+]] = arith.andi [[IN0]], [[IN3]] : i1
// PEEL-NEXT:      tir.if [[ALL]] {
// PEEL-NOT:         tir.vector_cmp
// PEEL:             [[V:%[0-9]+]] = tir.load %x{{\[}}[[J:%[0-9]+]]] : memref<10xf32>, vector<4xf32>
// PEEL-NEXT:        tir.store [[V]], %y{{\[}}[[J]]] : memref<10xf32>, vector<4xf32>
// PEEL-NEXT:      } else {
// PEEL-NEXT:        tir.for serial %l = %c0 to %c4 step %c1 {
// PEEL:               tir.if %p {
// PEEL-NOT:       tir.masked_store
// MASK-LABEL: tir.prim_func @tail(
// MASK:         tir.masked_store
// MASK-NOT:     else
tir.prim_func @tail(%x: memref<10xf32>, %y: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  tir.for serial %o = %c0 to %c3 step %c1 {
    tir.for vectorized %l = %c0 to %c4 step %c1 {
      %b = arith.muli %o, %c4 : index
      %j = arith.addi %b, %l : index
      %p = arith.cmpi slt, %j, %c10 : index
      tir.if %p {
        %v = tir.load %x[%j] : memref<10xf32>
        tir.store %v, %y[%j] : memref<10xf32>
      }
    }
  }
  tir.return
}

// -----

// A padded window's read (the index clamped into 0..9): a plain vector load
// where the window is inside, the clamped loads of the loop at the edges.
// PEEL-LABEL: tir.prim_func @window(
// PEEL:         [[K0:%[0-9]+]] = arith.subi {{%[0-9]+}}, %c1 : index
// PEEL-NEXT:    [[LO:%[0-9]+]] = arith.cmpi sge, [[K0]], %c0 : index
// PEEL-NEXT:    [[C3:%[0-9]+]] = arith.constant 3 : index
// PEEL-NEXT:    [[K3:%[0-9]+]] = arith.addi [[K0]], [[C3]] : index
// PEEL-NEXT:    [[HI:%[0-9]+]] = arith.cmpi sle, [[K3]], %c9 : index
// PEEL-NEXT:    [[ALL:%[0-9]+]] = arith.andi [[LO]], [[HI]] : i1
// PEEL-NEXT:    tir.if [[ALL]] {
// PEEL:           [[K:%[0-9]+]] = arith.subi {{%[0-9]+}}, %c1 : index
// PEEL-NEXT:      {{%[0-9]+}} = tir.load %x{{\[}}[[K]]] : memref<10xf32>, vector<4xf32>
// PEEL:         } else {
// PEEL-NEXT:      tir.for serial %l
// PEEL:             arith.minsi
// PEEL-NOT:     tir.masked_load
// MASK-LABEL: tir.prim_func @window(
// MASK:         tir.masked_load
// MASK-NOT:     else
tir.prim_func @window(%x: memref<10xf32>, %y: memref<12xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c9 = arith.constant 9 : index
  tir.for serial %o = %c0 to %c3 step %c1 {
    tir.for vectorized %l = %c0 to %c4 step %c1 {
      %b = arith.muli %o, %c4 : index
      %j = arith.addi %b, %l : index
      %k = arith.subi %j, %c1 : index
      %lo = arith.maxsi %k, %c0 : index
      %i = arith.minsi %lo, %c9 : index
      %v = tir.load %x[%i] : memref<10xf32>
      tir.store %v, %y[%j] : memref<12xf32>
    }
  }
  tir.return
}
