// lower-te-to-tir under a `schedule` attribute: the loop structure the schedule
// asks for (split loops and their kinds, a local accumulator for cache_write, the
// guards of non-dividing splits), with simplified index arithmetic.
// RUN: lamina-opt %s --split-input-file -p lower-te-to-tir | filecheck %s

// A register-tiled matmul, 7x13 by tiles of 3x4: i0 = i0.o*3 + i0.i (3 tiles, the
// last one partial), i1 = i1.o*4 + i1.i (4 tiles, the last partial). The tile
// accumulates in a local 3x4 buffer over r0 (rows of A clamped to 6 for the padded
// rows), then is written back under the guards `i0 < 7` and `i1 < 13`.
// CHECK-LABEL: tir.prim_func @mm(
// CHECK-SAME:  [[A:%[0-9A-Za-z_]+]]: memref<7x5xf32>, [[B:%[0-9A-Za-z_]+]]: memref<5x13xf32>, [[C:%[0-9A-Za-z_]+]]: memref<7x13xf32>) {
// CHECK-NEXT:    [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C3:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:    [[C1:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[C4:%[0-9A-Za-z_]+]] = arith.constant 4 : index
// CHECK-NEXT:    [[C5:%[0-9A-Za-z_]+]] = arith.constant 5 : index
// CHECK-NEXT:    [[C6:%[0-9A-Za-z_]+]] = arith.constant 6 : index
// CHECK-NEXT:    tir.for parallel [[IO:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C1]] {
// CHECK-NEXT:      tir.for serial [[JO:%[0-9A-Za-z_]+]] = [[C0]] to [[C4]] step [[C1]] {
// CHECK-NEXT:        [[ACC:%[0-9A-Za-z_]+]] = tir.alloc local : memref<3x4xf32>
// CHECK-NEXT:        tir.for unrolled [[II:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C1]] {
// CHECK-NEXT:          tir.for vectorized [[JI:%[0-9A-Za-z_]+]] = [[C0]] to [[C4]] step [[C1]] {
// CHECK-NEXT:            [[Z:%[0-9A-Za-z_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:            tir.store [[Z]], [[ACC]]{{\[}}[[II]], [[JI]]] : memref<3x4xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        tir.for serial [[K:%[0-9A-Za-z_]+]] = [[C0]] to [[C5]] step [[C1]] {
// CHECK-NEXT:          tir.for unrolled [[II2:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C1]] {
// CHECK-NEXT:            tir.for vectorized [[JI2:%[0-9A-Za-z_]+]] = [[C0]] to [[C4]] step [[C1]] {
// CHECK-NEXT:              [[T0:%[0-9A-Za-z_]+]] = arith.muli [[IO]], [[C3]] : index
// CHECK-NEXT:              [[ROW:%[0-9A-Za-z_]+]] = arith.addi [[II2]], [[T0]] : index
// CHECK-NEXT:              [[CROW:%[0-9A-Za-z_]+]] = arith.minsi [[ROW]], [[C6]] : index
// CHECK-NEXT:              [[AV:%[0-9A-Za-z_]+]] = tir.load [[A]]{{\[}}[[CROW]], [[K]]] : memref<7x5xf32>
// CHECK-NEXT:              [[T1:%[0-9A-Za-z_]+]] = arith.muli [[JO]], [[C4]] : index
// CHECK-NEXT:              [[COL:%[0-9A-Za-z_]+]] = arith.addi [[JI2]], [[T1]] : index
// CHECK-NEXT:              [[BV:%[0-9A-Za-z_]+]] = tir.load [[B]]{{\[}}[[K]], [[COL]]] : memref<5x13xf32>
// CHECK-NEXT:              %m = arith.mulf [[AV]], [[BV]] : f32
// CHECK-NEXT:              [[OLD:%[0-9A-Za-z_]+]] = tir.load [[ACC]]{{\[}}[[II2]], [[JI2]]] : memref<3x4xf32>
// CHECK-NEXT:              [[NEW:%[0-9A-Za-z_]+]] = arith.addf [[OLD]], %m fastmath<reassoc,contract> : f32
// CHECK-NEXT:              tir.store [[NEW]], [[ACC]]{{\[}}[[II2]], [[JI2]]] : memref<3x4xf32>
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        tir.for unrolled [[II3:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C1]] {
// CHECK-NEXT:          tir.for vectorized [[JI3:%[0-9A-Za-z_]+]] = [[C0]] to [[C4]] step [[C1]] {
// CHECK-NEXT:            [[T2:%[0-9A-Za-z_]+]] = arith.muli [[IO]], [[C3]] : index
// CHECK-NEXT:            [[ROW3:%[0-9A-Za-z_]+]] = arith.addi [[II3]], [[T2]] : index
// CHECK-NEXT:            [[C7:%[0-9A-Za-z_]+]] = arith.constant 7 : index
// CHECK-NEXT:            [[G0:%[0-9A-Za-z_]+]] = arith.cmpi slt, [[ROW3]], [[C7]] : index
// CHECK-NEXT:            tir.if [[G0]] {
// CHECK-NEXT:              [[T3:%[0-9A-Za-z_]+]] = arith.muli [[JO]], [[C4]] : index
// CHECK-NEXT:              [[COL3:%[0-9A-Za-z_]+]] = arith.addi [[JI3]], [[T3]] : index
// CHECK-NEXT:              [[C13:%[0-9A-Za-z_]+]] = arith.constant 13 : index
// CHECK-NEXT:              [[G1:%[0-9A-Za-z_]+]] = arith.cmpi slt, [[COL3]], [[C13]] : index
// CHECK-NEXT:              tir.if [[G1]] {
// CHECK-NEXT:                [[R:%[0-9A-Za-z_]+]] = tir.load [[ACC]]{{\[}}[[II3]], [[JI3]]] : memref<3x4xf32>
// CHECK:                     tir.store [[R]], [[C]]{{\[}}{{%[0-9A-Za-z_]+}}, {{%[0-9A-Za-z_]+}}] : memref<7x13xf32>
// CHECK-NEXT:              }
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
te.func @mm {
  %A = te.placeholder "A" : tensor<7x5xf32>
  %B = te.placeholder "B" : tensor<5x13xf32>
  %C = te.compute (%i, %j) reduce sum (%k) [5] attributes {schedule = "split(i0, 3); split(i1, 4); reorder(i0.o, i1.o, r0, i0.i, i1.i); cache_write(i1.o); unroll(i0.i); vectorize(i1.i); parallel(i0.o)"} : tensor<7x13xf32> {
    %a = te.read %A[%i, %k] : tensor<7x5xf32>
    %b = te.read %B[%k, %j] : tensor<5x13xf32>
    %m = arith.mulf %a, %b : f32
    te.yield %m : f32
  }
  te.output %C : tensor<7x13xf32>
}


// -----

// Fusing 3x10 into 30 points and splitting by 8: 4 parallel blocks of 8 vector
// lanes, one guard `fused < 30`. The vector lane enters i0 and i1 through a
// division and a modulo but the row-major offset is linear in it, so the accesses
// are flattened to [0, offset].
// CHECK-LABEL: tir.prim_func @scale(
// CHECK-SAME:  [[A:%[0-9A-Za-z_]+]]: memref<3x10xf32>, [[C:%[0-9A-Za-z_]+]]: memref<3x10xf32>) {
// CHECK-NEXT:    [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C4:%[0-9A-Za-z_]+]] = arith.constant 4 : index
// CHECK-NEXT:    [[C1:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[C8:%[0-9A-Za-z_]+]] = arith.constant 8 : index
// CHECK-NEXT:    tir.for parallel [[O:%[0-9A-Za-z_]+]] = [[C0]] to [[C4]] step [[C1]] {
// CHECK-NEXT:      tir.for vectorized [[L:%[0-9A-Za-z_]+]] = [[C0]] to [[C8]] step [[C1]] {
// CHECK-NEXT:        [[T0:%[0-9A-Za-z_]+]] = arith.muli [[O]], [[C8]] : index
// CHECK-NEXT:        [[F:%[0-9A-Za-z_]+]] = arith.addi [[L]], [[T0]] : index
// CHECK-NEXT:        [[C30:%[0-9A-Za-z_]+]] = arith.constant 30 : index
// CHECK-NEXT:        [[G:%[0-9A-Za-z_]+]] = arith.cmpi slt, [[F]], [[C30]] : index
// CHECK-NEXT:        tir.if [[G]] {
// CHECK-NEXT:          [[T1:%[0-9A-Za-z_]+]] = arith.muli [[O]], [[C8]] : index
// CHECK-NEXT:          [[F1:%[0-9A-Za-z_]+]] = arith.addi [[L]], [[T1]] : index
// CHECK-NEXT:          [[V:%[0-9A-Za-z_]+]] = tir.load [[A]]{{\[}}[[C0]], [[F1]]] : memref<3x10xf32>
// CHECK-NEXT:          %s = arith.addf [[V]], [[V]] : f32
// CHECK-NEXT:          [[T2:%[0-9A-Za-z_]+]] = arith.muli [[O]], [[C8]] : index
// CHECK-NEXT:          [[F2:%[0-9A-Za-z_]+]] = arith.addi [[L]], [[T2]] : index
// CHECK-NEXT:          tir.store %s, [[C]]{{\[}}[[C0]], [[F2]]] : memref<3x10xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
te.func @scale {
  %A = te.placeholder "A" : tensor<3x10xf32>
  %C = te.compute (%i, %j) attributes {schedule = "fuse(i0, i1); split(i0.i1, 8); parallel(i0.i1.o); vectorize(i0.i1.i)"} : tensor<3x10xf32> {
    %a = te.read %A[%i, %j] : tensor<3x10xf32>
    %s = arith.addf %a, %a : f32
    te.yield %s : f32
  }
  te.output %C : tensor<3x10xf32>
}
