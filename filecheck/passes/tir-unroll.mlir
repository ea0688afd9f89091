// tir-unroll: `tir.for unrolled` loops with constant bounds are replaced by one
// copy of the body per iteration, the induction variable a constant in each;
// loops with more than max-copies iterations, or non-constant bounds, become serial.
// RUN: lamina-opt %s --split-input-file -p tir-unroll | filecheck %s
// RUN: lamina-opt %s --split-input-file -p 'tir-unroll{max-copies=2}' | filecheck %s --check-prefix=MAX2

// CHECK-LABEL: tir.prim_func @unroll(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c3 = arith.constant 3 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    [[I0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    tir.for serial [[J0:%[0-9A-Za-z_]+]] = %c0 to %c8 step %c1 {
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = tir.load %x{{\[}}[[I0]], [[J0]]] : memref<3x8xf32>
// CHECK-NEXT:      tir.store [[V0]], %y{{\[}}[[I0]], [[J0]]] : memref<3x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    [[I1:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    tir.for serial [[J1:%[0-9A-Za-z_]+]] = %c0 to %c8 step %c1 {
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = tir.load %x{{\[}}[[I1]], [[J1]]] : memref<3x8xf32>
// CHECK-NEXT:      tir.store [[V1]], %y{{\[}}[[I1]], [[J1]]] : memref<3x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    [[I2:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:    tir.for serial [[J2:%[0-9A-Za-z_]+]] = %c0 to %c8 step %c1 {
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = tir.load %x{{\[}}[[I2]], [[J2]]] : memref<3x8xf32>
// CHECK-NEXT:      tir.store [[V2]], %y{{\[}}[[I2]], [[J2]]] : memref<3x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return

// With max-copies=2 the 3-iteration loop is demoted instead.
// MAX2-LABEL: tir.prim_func @unroll(
// MAX2:         tir.for serial %i = %c0 to %c3 step %c1 {
// MAX2-NEXT:      tir.for serial %j = %c0 to %c8 step %c1 {
// MAX2-NOT:     arith.constant 2 : index
// MAX2:         tir.return
tir.prim_func @unroll(%x: memref<3x8xf32>, %y: memref<3x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  tir.for unrolled %i = %c0 to %c3 step %c1 {
    tir.for serial %j = %c0 to %c8 step %c1 {
      %v = tir.load %x[%i, %j] : memref<3x8xf32>
      tir.store %v, %y[%i, %j] : memref<3x8xf32>
    }
  }
  tir.return
}

// -----

// Nested unrolled loops, a lower bound and a step: iterations 1 and 3 of the
// outer loop, each with both iterations of the inner one.
// CHECK-LABEL: tir.prim_func @nested(
// CHECK-NOT:     tir.for
// CHECK:         %z = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[A:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[B:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    tir.store %z, %y{{\[}}[[A]], [[B]]] : memref<4x2xf32>
// CHECK-NEXT:    [[B1:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    tir.store %z, %y{{\[}}[[A]], [[B1]]] : memref<4x2xf32>
// CHECK-NEXT:    [[A3:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:    {{%[0-9A-Za-z_]+}} = arith.constant 0 : index
// CHECK-NEXT:    tir.store %z, %y{{\[}}[[A3]], {{%[0-9A-Za-z_]+}}] : memref<4x2xf32>
// CHECK-NEXT:    {{%[0-9A-Za-z_]+}} = arith.constant 1 : index
// CHECK-NEXT:    tir.store %z, %y{{\[}}[[A3]], {{%[0-9A-Za-z_]+}}] : memref<4x2xf32>
// CHECK-NEXT:    tir.return
tir.prim_func @nested(%y: memref<4x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  tir.for unrolled %i = %c1 to %c4 step %c2 {
    tir.for unrolled %j = %c0 to %c2 step %c1 {
      tir.store %z, %y[%i, %j] : memref<4x2xf32>
    }
  }
  tir.return
}

// -----

// 100 iterations exceed the default max-copies (64): demoted to serial.
// CHECK-LABEL: tir.prim_func @too_large(
// CHECK:         tir.for serial %i = %c0 to %c100 step %c1 {
// CHECK-NEXT:      tir.store %z, %y[%i] : memref<100xf32>
// CHECK-NEXT:    }
tir.prim_func @too_large(%y: memref<100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %z = arith.constant 0.0 : f32
  tir.for unrolled %i = %c0 to %c100 step %c1 {
    tir.store %z, %y[%i] : memref<100xf32>
  }
  tir.return
}

// -----

// A bound that is not a constant (a triangular nest): demoted to serial.
// CHECK-LABEL: tir.prim_func @triangular(
// CHECK:         tir.for serial %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      tir.for serial %j = %c0 to %i step %c1 {
tir.prim_func @triangular(%y: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  tir.for serial %i = %c0 to %c4 step %c1 {
    tir.for unrolled %j = %c0 to %i step %c1 {
      tir.store %z, %y[%i, %j] : memref<4x4xf32>
    }
  }
  tir.return
}
