// lower-te-to-tir, one case per chunk: te.funcs become tir.prim_funcs with the
// default schedule, the graph becomes destination-passing tir.calls.
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' --split-input-file -p lower-te-to-tir | filecheck %s

// An elementwise compute that is the kernel's output: one loop per axis, loads of
// the placeholders' buffers and a store into the output argument. Index constants
// are hoisted to the entry block.
// CHECK-LABEL: tir.prim_func @add(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<4x8xf32>, [[ARG1:%[0-9A-Za-z_]+]]: memref<8xf32>, [[ARG2:%[0-9A-Za-z_]+]]: memref<4x8xf32>) {
// CHECK-NEXT:    [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C1:%[0-9A-Za-z_]+]] = arith.constant 4 : index
// CHECK-NEXT:    [[C2:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[C3:%[0-9A-Za-z_]+]] = arith.constant 8 : index
// CHECK-NEXT:    tir.for serial [[IV0:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C2]] {
// CHECK-NEXT:      tir.for serial [[IV1:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C2]] {
// CHECK-NEXT:        [[LD0:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV0]], [[IV1]]] : memref<4x8xf32>
// CHECK-NEXT:        [[LD1:%[0-9A-Za-z_]+]] = tir.load [[ARG1]]{{\[}}[[IV1]]] : memref<8xf32>
// CHECK-NEXT:        [[V0:%[0-9A-Za-z_]+]] = arith.addf [[LD0]], [[LD1]] : f32
// CHECK-NEXT:        tir.store [[V0]], [[ARG2]]{{\[}}[[IV0]], [[IV1]]] : memref<4x8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
te.func @add {
  %A = te.placeholder "A" : tensor<4x8xf32>
  %B = te.placeholder "B" : tensor<8xf32>
  %C = te.compute (%i, %j) : tensor<4x8xf32> {
    %a = te.read %A[%i, %j] : tensor<4x8xf32>
    %b = te.read %B[%j] : tensor<8xf32>
    %s = arith.addf %a, %b : f32
    te.yield %s : f32
  }
  te.output %C : tensor<4x8xf32>
}

// -----

// An injective intermediate is inlined into its reader (compute_inline): no buffer,
// its body is re-emitted at the reader's (permuted) indices.
// CHECK-LABEL: tir.prim_func @transpose_relu(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<4x8xf32>, [[ARG1:%[0-9A-Za-z_]+]]: memref<4x8xf32>) {
// CHECK-NEXT:    [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C1:%[0-9A-Za-z_]+]] = arith.constant 4 : index
// CHECK-NEXT:    [[C2:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[C3:%[0-9A-Za-z_]+]] = arith.constant 8 : index
// CHECK-NEXT:    tir.for serial [[IV0:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C2]] {
// CHECK-NEXT:      tir.for serial [[IV1:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C2]] {
// CHECK-NEXT:        [[LD0:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV0]], [[IV1]]] : memref<4x8xf32>
// CHECK-NEXT:        [[C4:%[0-9A-Za-z_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        [[V0:%[0-9A-Za-z_]+]] = arith.maximumf [[LD0]], [[C4]] : f32
// CHECK-NEXT:        tir.store [[V0]], [[ARG1]]{{\[}}[[IV0]], [[IV1]]] : memref<4x8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
te.func @transpose_relu {
  %A = te.placeholder "A" : tensor<4x8xf32>
  %T = te.compute (%i, %j) : tensor<8x4xf32> {
    %a = te.read %A[%j, %i] : tensor<4x8xf32>
    te.yield %a : f32
  }
  %C = te.compute (%p, %q) : tensor<4x8xf32> {
    %t = te.read %T[%q, %p] : tensor<8x4xf32>
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %t, %z : f32
    te.yield %r : f32
  }
  te.output %C : tensor<4x8xf32>
}

// -----

// A sum reduction: the output element is initialized to 0 in the output loops,
// then loaded, combined and stored back in the reduce loop.
// CHECK-LABEL: tir.prim_func @matmul(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<2x3xf32>, [[ARG1:%[0-9A-Za-z_]+]]: memref<3x4xf32>, [[ARG2:%[0-9A-Za-z_]+]]: memref<2x4xf32>) {
// CHECK-NEXT:    [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C1:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:    [[C2:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[C3:%[0-9A-Za-z_]+]] = arith.constant 4 : index
// CHECK-NEXT:    [[C4:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:    tir.for serial [[IV0:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C2]] {
// CHECK-NEXT:      tir.for serial [[IV1:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C2]] {
// CHECK-NEXT:        [[C5:%[0-9A-Za-z_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        tir.store [[C5]], [[ARG2]]{{\[}}[[IV0]], [[IV1]]] : memref<2x4xf32>
// CHECK-NEXT:        tir.for serial [[IV2:%[0-9A-Za-z_]+]] = [[C0]] to [[C4]] step [[C2]] {
// CHECK-NEXT:          [[LD0:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV0]], [[IV2]]] : memref<2x3xf32>
// CHECK-NEXT:          [[LD1:%[0-9A-Za-z_]+]] = tir.load [[ARG1]]{{\[}}[[IV2]], [[IV1]]] : memref<3x4xf32>
// CHECK-NEXT:          [[V0:%[0-9A-Za-z_]+]] = arith.mulf [[LD0]], [[LD1]] : f32
// CHECK-NEXT:          [[LD2:%[0-9A-Za-z_]+]] = tir.load [[ARG2]]{{\[}}[[IV0]], [[IV1]]] : memref<2x4xf32>
// CHECK-NEXT:          [[V1:%[0-9A-Za-z_]+]] = arith.addf [[LD2]], [[V0]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:          tir.store [[V1]], [[ARG2]]{{\[}}[[IV0]], [[IV1]]] : memref<2x4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
te.func @matmul {
  %A = te.placeholder "A" : tensor<2x3xf32>
  %B = te.placeholder "B" : tensor<3x4xf32>
  %C = te.compute (%i, %j) reduce sum (%k) [3] : tensor<2x4xf32> {
    %a = te.read %A[%i, %k] : tensor<2x3xf32>
    %b = te.read %B[%k, %j] : tensor<3x4xf32>
    %m = arith.mulf %a, %b : f32
    te.yield %m : f32
  }
  te.output %C : tensor<2x4xf32>
}

// -----

// max/min/prod on floats: -inf, +inf and 1 as initial values; several outputs.
// CHECK-LABEL: tir.prim_func @reduce_f32(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<4x8xf32>, [[ARG1:%[0-9A-Za-z_]+]]: memref<4xf32>, [[ARG2:%[0-9A-Za-z_]+]]: memref<4xf32>, [[ARG3:%[0-9A-Za-z_]+]]: memref<4xf32>) {
// CHECK-NEXT:    [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C1:%[0-9A-Za-z_]+]] = arith.constant 4 : index
// CHECK-NEXT:    [[C2:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[C3:%[0-9A-Za-z_]+]] = arith.constant 8 : index
// CHECK-NEXT:    tir.for serial [[IV0:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C2]] {
// CHECK-NEXT:      [[C4:%[0-9A-Za-z_]+]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:      tir.store [[C4]], [[ARG1]]{{\[}}[[IV0]]] : memref<4xf32>
// CHECK-NEXT:      tir.for serial [[IV1:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C2]] {
// CHECK-NEXT:        [[LD0:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV0]], [[IV1]]] : memref<4x8xf32>
// CHECK-NEXT:        [[LD1:%[0-9A-Za-z_]+]] = tir.load [[ARG1]]{{\[}}[[IV0]]] : memref<4xf32>
// CHECK-NEXT:        [[V0:%[0-9A-Za-z_]+]] = arith.maximumf [[LD1]], [[LD0]] : f32
// CHECK-NEXT:        tir.store [[V0]], [[ARG1]]{{\[}}[[IV0]]] : memref<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.for serial [[IV2:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C2]] {
// CHECK-NEXT:      [[C5:%[0-9A-Za-z_]+]] = arith.constant 0x7f800000 : f32
// CHECK-NEXT:      tir.store [[C5]], [[ARG2]]{{\[}}[[IV2]]] : memref<4xf32>
// CHECK-NEXT:      tir.for serial [[IV3:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C2]] {
// CHECK-NEXT:        [[LD2:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV2]], [[IV3]]] : memref<4x8xf32>
// CHECK-NEXT:        [[LD3:%[0-9A-Za-z_]+]] = tir.load [[ARG2]]{{\[}}[[IV2]]] : memref<4xf32>
// CHECK-NEXT:        [[V1:%[0-9A-Za-z_]+]] = arith.minimumf [[LD3]], [[LD2]] : f32
// CHECK-NEXT:        tir.store [[V1]], [[ARG2]]{{\[}}[[IV2]]] : memref<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.for serial [[IV4:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C2]] {
// CHECK-NEXT:      [[C6:%[0-9A-Za-z_]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      tir.store [[C6]], [[ARG3]]{{\[}}[[IV4]]] : memref<4xf32>
// CHECK-NEXT:      tir.for serial [[IV5:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C2]] {
// CHECK-NEXT:        [[LD4:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV4]], [[IV5]]] : memref<4x8xf32>
// CHECK-NEXT:        [[LD5:%[0-9A-Za-z_]+]] = tir.load [[ARG3]]{{\[}}[[IV4]]] : memref<4xf32>
// CHECK-NEXT:        [[V2:%[0-9A-Za-z_]+]] = arith.mulf [[LD5]], [[LD4]] : f32
// CHECK-NEXT:        tir.store [[V2]], [[ARG3]]{{\[}}[[IV4]]] : memref<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
te.func @reduce_f32 {
  %A = te.placeholder "A" : tensor<4x8xf32>
  %M = te.compute (%i) reduce max (%k) [8] : tensor<4xf32> {
    %a = te.read %A[%i, %k] : tensor<4x8xf32>
    te.yield %a : f32
  }
  %N = te.compute (%i) reduce min (%k) [8] : tensor<4xf32> {
    %a = te.read %A[%i, %k] : tensor<4x8xf32>
    te.yield %a : f32
  }
  %P = te.compute (%i) reduce prod (%k) [8] : tensor<4xf32> {
    %a = te.read %A[%i, %k] : tensor<4x8xf32>
    te.yield %a : f32
  }
  te.output %M, %N, %P : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Integer reductions start from the type's min (max) and max (min); a reduction to
// a scalar over two reduce axes has no output loop.
// CHECK-LABEL: tir.prim_func @reduce_i32(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<4x8xi32>, [[ARG1:%[0-9A-Za-z_]+]]: memref<4xi32>, [[ARG2:%[0-9A-Za-z_]+]]: memref<i32>) {
// CHECK-NEXT:    [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C1:%[0-9A-Za-z_]+]] = arith.constant 4 : index
// CHECK-NEXT:    [[C2:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[C3:%[0-9A-Za-z_]+]] = arith.constant 8 : index
// CHECK-NEXT:    tir.for serial [[IV0:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C2]] {
// CHECK-NEXT:      [[C4:%[0-9A-Za-z_]+]] = arith.constant -2147483648 : i32
// CHECK-NEXT:      tir.store [[C4]], [[ARG1]]{{\[}}[[IV0]]] : memref<4xi32>
// CHECK-NEXT:      tir.for serial [[IV1:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C2]] {
// CHECK-NEXT:        [[LD0:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV0]], [[IV1]]] : memref<4x8xi32>
// CHECK-NEXT:        [[LD1:%[0-9A-Za-z_]+]] = tir.load [[ARG1]]{{\[}}[[IV0]]] : memref<4xi32>
// CHECK-NEXT:        [[V0:%[0-9A-Za-z_]+]] = arith.maxsi [[LD1]], [[LD0]] : i32
// CHECK-NEXT:        tir.store [[V0]], [[ARG1]]{{\[}}[[IV0]]] : memref<4xi32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    [[C5:%[0-9A-Za-z_]+]] = arith.constant 2147483647 : i32
// CHECK-NEXT:    tir.store [[C5]], [[ARG2]][] : memref<i32>
// CHECK-NEXT:    tir.for serial [[IV2:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C2]] {
// CHECK-NEXT:      tir.for serial [[IV3:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C2]] {
// CHECK-NEXT:        [[LD2:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV2]], [[IV3]]] : memref<4x8xi32>
// CHECK-NEXT:        [[LD3:%[0-9A-Za-z_]+]] = tir.load [[ARG2]][] : memref<i32>
// CHECK-NEXT:        [[V1:%[0-9A-Za-z_]+]] = arith.minsi [[LD3]], [[LD2]] : i32
// CHECK-NEXT:        tir.store [[V1]], [[ARG2]][] : memref<i32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
te.func @reduce_i32 {
  %A = te.placeholder "A" : tensor<4x8xi32>
  %M = te.compute (%i) reduce max (%k) [8] : tensor<4xi32> {
    %a = te.read %A[%i, %k] : tensor<4x8xi32>
    te.yield %a : i32
  }
  %N = te.compute () reduce min (%k, %l) [4, 8] : tensor<i32> {
    %a = te.read %A[%k, %l] : tensor<4x8xi32>
    te.yield %a : i32
  }
  te.output %M, %N : tensor<4xi32>, tensor<i32>
}

// -----

// An intermediate reduction gets a local buffer; the injective compute between it
// and the output is inlined.
// CHECK-LABEL: tir.prim_func @softmax_like(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<2x3xf32>, [[ARG1:%[0-9A-Za-z_]+]]: memref<2xf32>) {
// CHECK-NEXT:    [[BUF0:%[0-9A-Za-z_]+]] = tir.alloc local : memref<2xf32>
// CHECK-NEXT:    [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C1:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:    [[C2:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[C3:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:    tir.for serial [[IV0:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C2]] {
// CHECK-NEXT:      [[C4:%[0-9A-Za-z_]+]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:      tir.store [[C4]], [[BUF0]]{{\[}}[[IV0]]] : memref<2xf32>
// CHECK-NEXT:      tir.for serial [[IV1:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C2]] {
// CHECK-NEXT:        [[LD0:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV0]], [[IV1]]] : memref<2x3xf32>
// CHECK-NEXT:        [[LD1:%[0-9A-Za-z_]+]] = tir.load [[BUF0]]{{\[}}[[IV0]]] : memref<2xf32>
// CHECK-NEXT:        [[V0:%[0-9A-Za-z_]+]] = arith.maximumf [[LD1]], [[LD0]] : f32
// CHECK-NEXT:        tir.store [[V0]], [[BUF0]]{{\[}}[[IV0]]] : memref<2xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.for serial [[IV2:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C2]] {
// CHECK-NEXT:      [[C5:%[0-9A-Za-z_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      tir.store [[C5]], [[ARG1]]{{\[}}[[IV2]]] : memref<2xf32>
// CHECK-NEXT:      tir.for serial [[IV3:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C2]] {
// CHECK-NEXT:        [[LD2:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV2]], [[IV3]]] : memref<2x3xf32>
// CHECK-NEXT:        [[LD3:%[0-9A-Za-z_]+]] = tir.load [[BUF0]]{{\[}}[[IV2]]] : memref<2xf32>
// CHECK-NEXT:        [[V1:%[0-9A-Za-z_]+]] = arith.subf [[LD2]], [[LD3]] : f32
// CHECK-NEXT:        [[V2:%[0-9A-Za-z_]+]] = math.exp [[V1]] : f32
// CHECK-NEXT:        [[LD4:%[0-9A-Za-z_]+]] = tir.load [[ARG1]]{{\[}}[[IV2]]] : memref<2xf32>
// CHECK-NEXT:        [[V3:%[0-9A-Za-z_]+]] = arith.addf [[LD4]], [[V2]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:        tir.store [[V3]], [[ARG1]]{{\[}}[[IV2]]] : memref<2xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
te.func @softmax_like {
  %A = te.placeholder "A" : tensor<2x3xf32>
  %M = te.compute (%i) reduce max (%k) [3] : tensor<2xf32> {
    %a = te.read %A[%i, %k] : tensor<2x3xf32>
    te.yield %a : f32
  }
  %E = te.compute (%i, %j) : tensor<2x3xf32> {
    %a = te.read %A[%i, %j] : tensor<2x3xf32>
    %m = te.read %M[%i] : tensor<2xf32>
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    te.yield %e : f32
  }
  %S = te.compute (%i) reduce sum (%k) [3] : tensor<2xf32> {
    %e = te.read %E[%i, %k] : tensor<2x3xf32>
    te.yield %e : f32
  }
  te.output %S : tensor<2xf32>
}

// -----

// An elementwise compute with transcendental math that a reduction reads and the
// output reads point for point (softmax's exp) is computed once, into the
// output's buffer: the sum reads it there, and the output finishes in place.
// Row reductions and the computes around them run row by row: one loop over the
// rows, each row's max, exp, sum and quotient in turn.
// CHECK-LABEL: tir.prim_func @softmax_full(
// CHECK-SAME:  [[A:%[0-9A-Za-z_]+]]: memref<2x3xf32>, [[OUT:%[0-9A-Za-z_]+]]: memref<2x3xf32>) {
// CHECK:         [[MAX:%[0-9A-Za-z_]+]] = tir.alloc local : memref<2xf32>
// CHECK:         [[SUM:%[0-9A-Za-z_]+]] = tir.alloc local : memref<2xf32>
// CHECK-NEXT:    tir.for serial [[I:%[0-9A-Za-z_]+]] =
// CHECK:           tir.store {{.*}}, [[MAX]]{{\[}}[[I]]] : memref<2xf32>
// CHECK-NEXT:      tir.for serial
// CHECK:             arith.maximumf
// CHECK:           tir.for serial [[J:%[0-9A-Za-z_]+]] =
// CHECK-NEXT:        [[X:%[0-9A-Za-z_]+]] = tir.load [[A]]{{\[}}[[I]], [[J]]] : memref<2x3xf32>
// CHECK-NEXT:        [[M:%[0-9A-Za-z_]+]] = tir.load [[MAX]]{{\[}}[[I]]] : memref<2xf32>
// CHECK-NEXT:        [[D:%[0-9A-Za-z_]+]] = arith.subf [[X]], [[M]] : f32
// CHECK-NEXT:        [[E:%[0-9A-Za-z_]+]] = math.exp [[D]] : f32
// CHECK-NEXT:        tir.store [[E]], [[OUT]]{{\[}}[[I]], [[J]]] : memref<2x3xf32>
// CHECK-NEXT:      }
// CHECK:           tir.store {{.*}}, [[SUM]]{{\[}}[[I]]] : memref<2xf32>
// CHECK-NEXT:      tir.for serial [[K:%[0-9A-Za-z_]+]] =
// CHECK-NEXT:        tir.load [[OUT]]{{\[}}[[I]], [[K]]] : memref<2x3xf32>
// CHECK-NEXT:        tir.load [[SUM]]
// CHECK-NEXT:        arith.addf
// CHECK-NOT:         math.exp
// CHECK:           tir.for serial [[J2:%[0-9A-Za-z_]+]] =
// CHECK-NEXT:        [[E2:%[0-9A-Za-z_]+]] = tir.load [[OUT]]{{\[}}[[I]], [[J2]]] : memref<2x3xf32>
// CHECK-NEXT:        [[S:%[0-9A-Za-z_]+]] = tir.load [[SUM]]{{\[}}[[I]]] : memref<2xf32>
// CHECK-NEXT:        [[Q:%[0-9A-Za-z_]+]] = arith.divf [[E2]], [[S]] : f32
// CHECK-NEXT:        tir.store [[Q]], [[OUT]]{{\[}}[[I]], [[J2]]] : memref<2x3xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
te.func @softmax_full {
  %A = te.placeholder "A" : tensor<2x3xf32>
  %M = te.compute (%i) reduce max (%k) [3] : tensor<2xf32> {
    %a = te.read %A[%i, %k] : tensor<2x3xf32>
    te.yield %a : f32
  }
  %E = te.compute (%i, %j) : tensor<2x3xf32> {
    %a = te.read %A[%i, %j] : tensor<2x3xf32>
    %m = te.read %M[%i] : tensor<2xf32>
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    te.yield %e : f32
  }
  %S = te.compute (%i) reduce sum (%k) [3] : tensor<2xf32> {
    %e = te.read %E[%i, %k] : tensor<2x3xf32>
    te.yield %e : f32
  }
  %O = te.compute (%i, %j) : tensor<2x3xf32> {
    %e = te.read %E[%i, %j] : tensor<2x3xf32>
    %s = te.read %S[%i] : tensor<2xf32>
    %q = arith.divf %e, %s : f32
    te.yield %q : f32
  }
  te.output %O : tensor<2x3xf32>
}

// -----

// The graph: memref arguments in destination-passing style (inputs, then outputs,
// named by lamina.name), weights as tir.constant, intermediates as global
// tir.alloc, the returned call result written straight into the output argument.
// CHECK-LABEL: tir.prim_func @k1(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<4xf32>, [[ARG1:%[0-9A-Za-z_]+]]: memref<4xf32>, [[ARG2:%[0-9A-Za-z_]+]]: memref<4xf32>) {
// CHECK-NEXT:    [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C1:%[0-9A-Za-z_]+]] = arith.constant 4 : index
// CHECK-NEXT:    [[C2:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    tir.for serial [[IV0:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C2]] {
// CHECK-NEXT:      [[LD0:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV0]]] : memref<4xf32>
// CHECK-NEXT:      [[LD1:%[0-9A-Za-z_]+]] = tir.load [[ARG1]]{{\[}}[[IV0]]] : memref<4xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.addf [[LD0]], [[LD1]] : f32
// CHECK-NEXT:      tir.store [[V0]], [[ARG2]]{{\[}}[[IV0]]] : memref<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<4xf32> {lamina.name = "x"}, [[ARG1:%[0-9A-Za-z_]+]]: memref<4xf32> {lamina.name = "y"}) {
// CHECK-NEXT:    [[W0:%[0-9A-Za-z_]+]] = tir.constant dense_resource<w0> : memref<4xf32>
// CHECK-NEXT:    [[BUF0:%[0-9A-Za-z_]+]] = tir.alloc global : memref<4xf32>
// CHECK-NEXT:    tir.call @k1([[ARG0]], [[W0]], [[BUF0]]) : memref<4xf32>, memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    tir.call @k1([[BUF0]], [[BUF0]], [[ARG1]]) : memref<4xf32>, memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
te.func @k1 {
  %A = te.placeholder "A" : tensor<4xf32>
  %B = te.placeholder "B" : tensor<4xf32>
  %C = te.compute (%i) : tensor<4xf32> {
    %a = te.read %A[%i] : tensor<4xf32>
    %b = te.read %B[%i] : tensor<4xf32>
    %s = arith.addf %a, %b : f32
    te.yield %s : f32
  }
  te.output %C : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32> {lamina.name = "x"}) -> (tensor<4xf32> {lamina.name = "y"}) {
  %w = relay.constant dense_resource<w0> : tensor<4xf32>
  %0 = te.call @k1(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = te.call @k1(%0, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}

// -----

// Returning an input, a constant or an already-bound value needs a copy: one copy
// kernel per buffer type. Inline dense constants become resource blobs.
// CHECK-LABEL: tir.prim_func @k1(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<2x2xf32>, [[ARG1:%[0-9A-Za-z_]+]]: memref<2x2xf32>) {
// CHECK-NEXT:    [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C1:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:    [[C2:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    tir.for serial [[IV0:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C2]] {
// CHECK-NEXT:      tir.for serial [[IV1:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C2]] {
// CHECK-NEXT:        [[LD0:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV0]], [[IV1]]] : memref<2x2xf32>
// CHECK-NEXT:        tir.store [[LD0]], [[ARG1]]{{\[}}[[IV0]], [[IV1]]] : memref<2x2xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<2x2xf32> {lamina.name = "in0"}, [[ARG1:%[0-9A-Za-z_]+]]: memref<2x2xf32> {lamina.name = "out0"}, [[ARG2:%[0-9A-Za-z_]+]]: memref<2x2xf32> {lamina.name = "out1"}, [[ARG3:%[0-9A-Za-z_]+]]: memref<2x2xf32> {lamina.name = "out2"}, [[ARG4:%[0-9A-Za-z_]+]]: memref<2x2xf32> {lamina.name = "out3"}) {
// CHECK-NEXT:    [[W0:%[0-9A-Za-z_]+]] = tir.constant dense_resource<cst> : memref<2x2xf32>
// CHECK-NEXT:    tir.call @k1([[ARG0]], [[ARG1]]) : memref<2x2xf32>, memref<2x2xf32>
// CHECK-NEXT:    tir.call @copy([[ARG0]], [[ARG2]]) : memref<2x2xf32>, memref<2x2xf32>
// CHECK-NEXT:    tir.call @copy([[W0]], [[ARG3]]) : memref<2x2xf32>, memref<2x2xf32>
// CHECK-NEXT:    tir.call @copy([[ARG1]], [[ARG4]]) : memref<2x2xf32>, memref<2x2xf32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-LABEL: tir.prim_func @copy(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<2x2xf32>, [[ARG1:%[0-9A-Za-z_]+]]: memref<2x2xf32>) {
// CHECK-NEXT:    [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C1:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:    [[C2:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    tir.for serial [[IV0:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C2]] {
// CHECK-NEXT:      tir.for serial [[IV1:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C2]] {
// CHECK-NEXT:        [[LD0:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV0]], [[IV1]]] : memref<2x2xf32>
// CHECK-NEXT:        tir.store [[LD0]], [[ARG1]]{{\[}}[[IV0]], [[IV1]]] : memref<2x2xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
// CHECK:       {-#
// CHECK-NEXT:  dialect_resources: {
// CHECK-NEXT:    builtin: {
// CHECK-NEXT:      cst: "0x040000000000803F000000400000404000008040"
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  #-}
te.func @k1 {
  %A = te.placeholder "A" : tensor<2x2xf32>
  %C = te.compute (%i, %j) : tensor<2x2xf32> {
    %a = te.read %A[%i, %j] : tensor<2x2xf32>
    te.yield %a : f32
  }
  te.output %C : tensor<2x2xf32>
}
func.func @main(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %c = relay.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = te.call @k1(%x) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0, %x, %c, %0 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
