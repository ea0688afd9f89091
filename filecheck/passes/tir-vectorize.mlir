// tir-vectorize: each `tir.for vectorized` loop becomes straight-line vector code,
// or is demoted to serial when its body has something it cannot vectorize.
// Lane-dependent comparisons become tir.vector_cmp (vector<Nxi1> masks).
// RUN: lamina-opt %s --split-input-file -p tir-vectorize | filecheck %s

// Contiguous accesses along the lane become vector loads and stores at lane 0;
// the lane-independent scale is broadcast.
// CHECK-LABEL: tir.prim_func @contiguous(
// CHECK:         tir.for serial %i = %c0 to %c2 step %c1 {
// CHECK-NEXT:      [[L0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V:%[0-9A-Za-z_]+]] = tir.load %x{{\[}}%i, [[L0]]] : memref<2x8xf32>, vector<8xf32>
// CHECK-NEXT:      [[S:%[0-9A-Za-z_]+]] = vector.broadcast %s : f32 to vector<8xf32>
// CHECK-NEXT:      [[M:%[0-9A-Za-z_]+]] = arith.mulf [[V]], [[S]] : vector<8xf32>
// CHECK-NEXT:      tir.store [[M]], %y{{\[}}%i, [[L0]]] : memref<2x8xf32>, vector<8xf32>
// CHECK-NEXT:    }
// CHECK-NOT:     tir.for
tir.prim_func @contiguous(%x: memref<2x8xf32>, %y: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %s = arith.constant 2.0 : f32
  tir.for serial %i = %c0 to %c2 step %c1 {
    tir.for vectorized %j = %c0 to %c8 step %c1 {
      %v = tir.load %x[%i, %j] : memref<2x8xf32>
      %m = arith.mulf %v, %s : f32
      tir.store %m, %y[%i, %j] : memref<2x8xf32>
    }
  }
  tir.return
}


// -----

// A guard comparing `base + lane` with the extent becomes a lane mask: the
// store under it is a tir.masked_store, the load is a plain vector load. The
// whole vectors run the body without the mask: a branch on whether the first
// and the last lane are inside picks it, the masked body otherwise (the tail).
// CHECK-LABEL: tir.prim_func @tail(
// CHECK:         tir.for serial %o = %c0 to %c3 step %c1 {
// CHECK-NEXT:      %b = arith.muli %o, %c4 : index
// CHECK-NEXT:      [[L0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[J:%[0-9A-Za-z_]+]] = arith.addi %b, [[L0]] : index
// CHECK-NEXT:      [[FIRST:%[0-9A-Za-z_]+]] = arith.cmpi slt, [[J]], %c10 : index
// CHECK-NEXT:      [[C3:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:      [[JL:%[0-9A-Za-z_]+]] = arith.addi [[J]], [[C3]] : index
// CHECK-NEXT:      [[LAST:%[0-9A-Za-z_]+]] = arith.cmpi slt, [[JL]], %c10 : index
// CHECK-NEXT:      [[WHOLE:%[0-9A-Za-z_]+]] = arith.andi [[FIRST]], [[LAST]] : i1
// CHECK-NEXT:      tir.if [[WHOLE]] {
// CHECK:             [[W:%[0-9A-Za-z_]+]] = tir.load %x{{\[}}[[WJ:%[0-9A-Za-z_]+]]] : memref<10xf32>, vector<4xf32>
// CHECK-NEXT:        tir.store [[W]], %y{{\[}}[[WJ]]] : memref<10xf32>, vector<4xf32>
// CHECK-NEXT:      } else {
// CHECK:             [[MJ:%[0-9A-Za-z_]+]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:        [[RAMP:%[0-9A-Za-z_]+]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
// CHECK-NEXT:        [[JB:%[0-9A-Za-z_]+]] = vector.broadcast [[MJ]] : index to vector<4xindex>
// CHECK-NEXT:        [[JV:%[0-9A-Za-z_]+]] = arith.addi [[JB]], [[RAMP]] : vector<4xindex>
// CHECK-NEXT:        [[NB:%[0-9A-Za-z_]+]] = vector.broadcast %c10 : index to vector<4xindex>
// CHECK-NEXT:        [[MASK:%[0-9A-Za-z_]+]] = tir.vector_cmp "slt", [[JV]], [[NB]] : vector<4xindex> -> vector<4xi1>
// CHECK-NEXT:        [[X:%[0-9A-Za-z_]+]] = tir.load %x{{\[}}[[MJ]]] : memref<10xf32>, vector<4xf32>
// CHECK-NEXT:        tir.masked_store [[X]], %y{{\[}}[[MJ]]], [[MASK]] : memref<10xf32>, vector<4xf32>, vector<4xi1>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
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

// Stores under a tail mask into local buffers. Where the buffer's rows hold
// whole vectors (last dim 8, base a multiple of the 4 lanes) the masked-off
// lanes land in the row's padding and the store stays plain; where they do not
// (last dim 6) they would land in the next row, which another iteration (or
// thread) writes, so the store is masked, integers included (in the tail: the
// whole vectors store without masks).
// CHECK-LABEL: tir.prim_func @local_tails(
// CHECK:         } else {
// CHECK:         tir.store [[P:%[0-9A-Za-z_]+]], %padded{{\[}}%r, [[J:%[0-9A-Za-z_]+]]] : memref<2x8xi32>, vector<4xi32>
// CHECK-NEXT:    tir.masked_store [[P]], %tight{{\[}}%r, [[J]]], [[M:%[0-9A-Za-z_]+]] : memref<2x6xi32>, vector<4xi32>, vector<4xi1>
tir.prim_func @local_tails(%x: memref<2x6xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %padded = tir.alloc local : memref<2x8xi32>
  %tight = tir.alloc local : memref<2x6xi32>
  tir.for parallel %r = %c0 to %c2 step %c1 {
    tir.for serial %o = %c0 to %c2 step %c1 {
      tir.for vectorized %l = %c0 to %c4 step %c1 {
        %b = arith.muli %o, %c4 : index
        %j = arith.addi %b, %l : index
        %p = arith.cmpi slt, %j, %c6 : index
        tir.if %p {
          %v = tir.load %x[%r, %j] : memref<2x6xi32>
          tir.store %v, %padded[%r, %j] : memref<2x8xi32>
          tir.store %v, %tight[%r, %j] : memref<2x6xi32>
        }
      }
    }
  }
  tir.return
}


// -----

// Rows of whole vectors are not enough: a tile loop whose last vector starts at
// the row's end (base 8 of a row of 8: the columns' tail is a whole vector) would
// write the next row, so the store is masked there; the base's largest value
// decides.
// CHECK-LABEL: tir.prim_func @local_tail_past_the_row(
// CHECK:         tir.masked_store {{%[0-9A-Za-z_]+}}, %row{{\[}}%r, {{%[0-9A-Za-z_]+}}], {{%[0-9A-Za-z_]+}} : memref<2x8xi32>, vector<4xi32>, vector<4xi1>
tir.prim_func @local_tail_past_the_row(%x: memref<2x8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %row = tir.alloc local : memref<2x8xi32>
  tir.for parallel %r = %c0 to %c2 step %c1 {
    tir.for serial %o = %c0 to %c3 step %c1 {
      tir.for vectorized %l = %c0 to %c4 step %c1 {
        %b = arith.muli %o, %c4 : index
        %j = arith.addi %b, %l : index
        %p = arith.cmpi slt, %j, %c8 : index
        tir.if %p {
          %v = tir.load %x[%r, %j] : memref<2x8xi32>
          tir.store %v, %row[%r, %j] : memref<2x8xi32>
        }
      }
    }
  }
  tir.return
}

// -----

// A transposed (gather) load: one scalar load per lane, inserted into a
// vector; the store and everything between stay vector ops.
// CHECK-LABEL: tir.prim_func @gather(
// CHECK:         tir.for serial %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      [[L0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[X0:%[0-9]+]] = tir.load %x{{\[}}[[L0]], %i] : memref<4x4xf32>
// CHECK-NEXT:      [[V0:%[0-9]+]] = vector.broadcast [[X0]] : f32 to vector<4xf32>
// CHECK-NEXT:      [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:      [[L1:%[0-9]+]] = arith.addi [[L0]], [[C1]] : index
// CHECK-NEXT:      [[X1:%[0-9]+]] = tir.load %x{{\[}}[[L1]], %i] : memref<4x4xf32>
// CHECK-NEXT:      [[V1:%[0-9]+]] = vector.insert [[X1]], [[V0]] [1] : f32 into vector<4xf32>
// CHECK:           [[V3:%[0-9]+]] = vector.insert {{%[0-9]+}}, {{%[0-9]+}} [3] : f32 into vector<4xf32>
// CHECK-NEXT:      [[E:%[0-9]+]] = math.exp [[V3]] : vector<4xf32>
// CHECK-NEXT:      tir.store [[E]], %y{{\[}}%i, [[L0]]] : memref<4x4xf32>, vector<4xf32>
tir.prim_func @gather(%x: memref<4x4xf32>, %y: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tir.for serial %i = %c0 to %c4 step %c1 {
    tir.for vectorized %j = %c0 to %c4 step %c1 {
      %v = tir.load %x[%j, %i] : memref<4x4xf32>
      %e = math.exp %v : f32
      tir.store %e, %y[%i, %j] : memref<4x4xf32>
    }
  }
  tir.return
}

// -----

// A reshape's index inside a fused kernel (a flat index split by a divisor, as a
// group norm reads its groups): the 4 lanes start at a multiple of 4 and 8 is a
// multiple of 4, so they share one quotient (a scalar) and their remainders are
// `base % 8 + lane`: one vector load. A divisor of 6 is crossed by some vectors:
// that loop is left serial (to LLVM).
// CHECK-LABEL: tir.prim_func @reshape_index(
// CHECK:         tir.for serial %o = %c0 to %c4 step %c1 {
// CHECK:           [[Q:%[0-9A-Za-z_]+]] = arith.divui [[B:%[0-9A-Za-z_]+]], %c8 : index
// CHECK-NEXT:      [[R:%[0-9A-Za-z_]+]] = arith.remui [[B]], %c8 : index
// CHECK-NEXT:      [[V:%[0-9A-Za-z_]+]] = tir.load %x{{\[}}[[Q]], [[R]]] : memref<2x8xf32>, vector<4xf32>
// CHECK:         tir.for serial %p = %c0 to %c3 step %c1 {
// CHECK:           tir.for serial %i = %c0 to %c4 step %c1 {
// CHECK-NOT:         vector
tir.prim_func @reshape_index(%x: memref<2x8xf32>, %y: memref<16xf32>, %z: memref<2x6xf32>, %w: memref<12xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  tir.for serial %o = %c0 to %c4 step %c1 {
    tir.for vectorized %i = %c0 to %c4 step %c1 {
      %b = arith.muli %o, %c4 : index
      %f = arith.addi %b, %i : index
      %q = arith.divui %f, %c8 : index
      %r = arith.remui %f, %c8 : index
      %v = tir.load %x[%q, %r] : memref<2x8xf32>
      tir.store %v, %y[%f] : memref<16xf32>
    }
  }
  tir.for serial %p = %c0 to %c3 step %c1 {
    tir.for vectorized %i = %c0 to %c4 step %c1 {
      %b = arith.muli %p, %c4 : index
      %f = arith.addi %b, %i : index
      %q = arith.divui %f, %c6 : index
      %r = arith.remui %f, %c6 : index
      %v = tir.load %z[%q, %r] : memref<2x6xf32>
      tir.store %v, %w[%f] : memref<12xf32>
    }
  }
  tir.return
}

// -----

// A gather under a lane mask (the last vector of 6 columns): a masked-off
// lane's element may lie outside the buffer, so the loop is demoted.
// CHECK-LABEL: tir.prim_func @masked_gather(
// CHECK:         tir.for serial %j = %c0 to %c4 step %c1 {
// CHECK-NOT:     vector
tir.prim_func @masked_gather(%x: memref<6x6xf32>, %y: memref<6x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  tir.for serial %i = %c0 to %c6 step %c1 {
    tir.for vectorized %j = %c0 to %c4 step %c1 {
      %k = arith.addi %j, %c4 : index
      %in = arith.cmpi slt, %k, %c6 : index
      tir.if %in {
        %v = tir.load %x[%k, %i] : memref<6x6xf32>
        tir.store %v, %y[%i, %k] : memref<6x6xf32>
      }
    }
  }
  tir.return
}


// A stride-2 load (a stride-2 window) reads 2 x 4 lanes as one vector and keeps
// the even ones; a stride of 5 is past MAX_LOAD_STRIDE: gathered lane by lane.
// CHECK-LABEL: tir.prim_func @strided(
// CHECK:         %c5 = arith.constant 5 : index
// CHECK-NEXT:    [[L0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[B:%[0-9A-Za-z_]+]] = arith.muli [[L0]], %c2 : index
// CHECK-NEXT:    [[W:%[0-9A-Za-z_]+]] = tir.load %x{{\[}}[[B]]] : memref<16xf32>, vector<8xf32>
// CHECK-NEXT:    [[V:%[0-9A-Za-z_]+]] = vector.shuffle [[W]], [[W]] [0, 2, 4, 6] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT:    tir.store [[V]], %y{{\[}}[[L0]]] : memref<4xf32>, vector<4xf32>
// CHECK:         [[K0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[M:%[0-9A-Za-z_]+]] = arith.muli [[K0]], %c5 : index
// CHECK-NEXT:    {{%[0-9]+}} = tir.load %z{{\[}}[[M]]] : memref<20xf32>
// CHECK:         [[C15:%[0-9A-Za-z_]+]] = arith.constant 15 : index
// CHECK-NEXT:    [[M3:%[0-9A-Za-z_]+]] = arith.addi [[M]], [[C15]] : index
// CHECK-NEXT:    [[Z3:%[0-9A-Za-z_]+]] = tir.load %z{{\[}}[[M3]]] : memref<20xf32>
// CHECK-NEXT:    [[G:%[0-9A-Za-z_]+]] = vector.insert [[Z3]], {{%[0-9]+}} [3] : f32 into vector<4xf32>
// CHECK-NEXT:    tir.store [[G]], %y{{\[}}[[K0]]] : memref<4xf32>, vector<4xf32>
tir.prim_func @strided(%x: memref<16xf32>, %y: memref<4xf32>, %z: memref<20xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  tir.for vectorized %j = %c0 to %c4 step %c1 {
    %i = arith.muli %j, %c2 : index
    %v = tir.load %x[%i] : memref<16xf32>
    tir.store %v, %y[%j] : memref<4xf32>
  }
  tir.for vectorized %k = %c0 to %c4 step %c1 {
    %m = arith.muli %k, %c5 : index
    %w = tir.load %z[%m] : memref<20xf32>
    tir.store %w, %y[%k] : memref<4xf32>
  }
  tir.return
}


// -----

// A lane-independent condition stays a branch around vector code.
// CHECK-LABEL: tir.prim_func @uniform_if(
// CHECK:         tir.for serial %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      [[L0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      %p = arith.cmpi slt, %i, %c2 : index
// CHECK-NEXT:      tir.if %p {
// CHECK-NEXT:        [[V:%[0-9A-Za-z_]+]] = tir.load %x{{\[}}%i, [[L0]]] : memref<4x4xf32>, vector<4xf32>
// CHECK-NEXT:        tir.store [[V]], %y{{\[}}%i, [[L0]]] : memref<4x4xf32>, vector<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NOT:     tir.masked_store
tir.prim_func @uniform_if(%x: memref<4x4xf32>, %y: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  tir.for serial %i = %c0 to %c4 step %c1 {
    tir.for vectorized %j = %c0 to %c4 step %c1 {
      %p = arith.cmpi slt, %i, %c2 : index
      tir.if %p {
        %v = tir.load %x[%i, %j] : memref<4x4xf32>
        tir.store %v, %y[%i, %j] : memref<4x4xf32>
      }
    }
  }
  tir.return
}
