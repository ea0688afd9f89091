// Round trip of every tir op: custom form, and generic form re-parsed.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: tir.prim_func @kernel(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %s: memref<f32>) attributes {lamina.tag = 1 : i64} {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    %t = tir.alloc local : memref<8xf32>
// CHECK-NEXT:    tir.for parallel %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      tir.for vectorized %j = %c0 to %c8 step %c4 {
// CHECK-NEXT:        %v = tir.load %x[%i, %j] : memref<4x8xf32>, vector<4xf32>
// CHECK-NEXT:        tir.store %v, %y[%i, %j] : memref<4x8xf32>, vector<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.for unrolled %u = %c0 to %c8 step %c1 {
// CHECK-NEXT:        %e = tir.load %x[%i, %u] : memref<4x8xf32>
// CHECK-NEXT:        %lt = arith.cmpi ult, %u, %c4 : index
// CHECK-NEXT:        tir.if %lt {
// CHECK-NEXT:          tir.store %e, %t[%u] : memref<8xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:        tir.if %lt {
// CHECK-NEXT:          tir.store %e, %y[%i, %u] : memref<4x8xf32>
// CHECK-NEXT:        } else {
// CHECK-NEXT:          %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:          tir.store %zero, %y[%i, %u] : memref<4x8xf32>
// CHECK-NEXT:        } attributes {lamina.tag}
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.for serial %k = %c0 to %c8 step %c1 attributes {lamina.tag} {
// CHECK-NEXT:        %a = tir.load %s[] : memref<f32>
// CHECK-NEXT:        %b = tir.load %t[%k] {lamina.tag} : memref<8xf32>
// CHECK-NEXT:        %r = arith.addf %a, %b : f32
// CHECK-NEXT:        tir.store %r, %s[] {lamina.tag} : memref<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.for serial %n = %c0 to %c8 step %c1 {
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
tir.prim_func @kernel(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %s: memref<f32>) attributes {lamina.tag = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = tir.alloc local : memref<8xf32>
  tir.for parallel %i = %c0 to %c4 step %c1 {
    tir.for vectorized %j = %c0 to %c8 step %c4 {
      %v = tir.load %x[%i, %j] : memref<4x8xf32>, vector<4xf32>
      tir.store %v, %y[%i, %j] : memref<4x8xf32>, vector<4xf32>
    }
    tir.for unrolled %u = %c0 to %c8 step %c1 {
      %e = tir.load %x[%i, %u] : memref<4x8xf32>
      %lt = arith.cmpi ult, %u, %c4 : index
      tir.if %lt {
        tir.store %e, %t[%u] : memref<8xf32>
      }
      tir.if %lt {
        tir.store %e, %y[%i, %u] : memref<4x8xf32>
      } else {
        %zero = arith.constant 0.0 : f32
        tir.store %zero, %y[%i, %u] : memref<4x8xf32>
      } attributes {lamina.tag}
    }
    tir.for serial %k = %c0 to %c8 step %c1 attributes {lamina.tag} {
      %a = tir.load %s[] : memref<f32>
      %b = tir.load %t[%k] {lamina.tag} : memref<8xf32>
      %r = arith.addf %a, %b : f32
      tir.store %r, %s[] {lamina.tag} : memref<f32>
    }
    // No kind means serial; an empty body gets its implicit tir.yield.
    tir.for %n = %c0 to %c8 step %c1 {
    }
  }
  tir.return
}

// An integer kernel with a vector access on a 1-D buffer.
// CHECK-LABEL: tir.prim_func @ints(%p: memref<16xi32>) {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %w = tir.load %p[%c0] : memref<16xi32>, vector<8xi32>
// CHECK-NEXT:    tir.store %w, %p[%c0] : memref<16xi32>, vector<8xi32>
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
tir.prim_func @ints(%p: memref<16xi32>) {
  %c0 = arith.constant 0 : index
  %w = tir.load %p[%c0] : memref<16xi32>, vector<8xi32>
  tir.store %w, %p[%c0] : memref<16xi32>, vector<8xi32>
  tir.return
}

// The entry function: weights, workspace buffers and kernel calls.
// CHECK-LABEL: func.func @main(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %o: memref<f32>) {
// CHECK-NEXT:    %w = tir.constant dense_resource<w0> : memref<4x8xf32>
// CHECK-NEXT:    %g = tir.alloc global : memref<4x8xf32>
// CHECK-NEXT:    tir.call @kernel(%a, %g, %o) : memref<4x8xf32>, memref<4x8xf32>, memref<f32>
// CHECK-NEXT:    tir.call @kernel(%w, %b, %o) {lamina.tag} : memref<4x8xf32>, memref<4x8xf32>, memref<f32>
// CHECK-NEXT:    tir.call @nothing() : 
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @main(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %o: memref<f32>) {
  %w = tir.constant dense_resource<w0> : memref<4x8xf32>
  %g = tir.alloc global : memref<4x8xf32>
  tir.call @kernel(%a, %g, %o) : memref<4x8xf32>, memref<4x8xf32>, memref<f32>
  tir.call @kernel(%w, %b, %o) {lamina.tag} : memref<4x8xf32>, memref<4x8xf32>, memref<f32>
  tir.call @nothing() :
  func.return
}

// GENERIC:       "tir.prim_func"() <{sym_name = "kernel", function_type = (memref<4x8xf32>, memref<4x8xf32>, memref<f32>) -> ()}> ({
// GENERIC-NEXT:  ^bb0(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %s: memref<f32>):
// GENERIC:         %t = "tir.alloc"() <{scope = #tir<scope local>}> : () -> memref<8xf32>
// GENERIC-NEXT:    "tir.for"(%c0, %c4, %c1) <{kind = #tir<for_kind parallel>}> ({
// GENERIC-NEXT:    ^bb0(%i: index):
// GENERIC-NEXT:      "tir.for"(%c0, %c8, %c4) <{kind = #tir<for_kind vectorized>}> ({
// GENERIC-NEXT:      ^bb0(%j: index):
// GENERIC-NEXT:        %v = "tir.load"(%x, %i, %j) : (memref<4x8xf32>, index, index) -> vector<4xf32>
// GENERIC-NEXT:        "tir.store"(%v, %y, %i, %j) : (vector<4xf32>, memref<4x8xf32>, index, index) -> ()
// GENERIC-NEXT:        "tir.yield"() : () -> ()
// GENERIC-NEXT:      }) : (index, index, index) -> ()
// GENERIC-NEXT:      "tir.for"(%c0, %c8, %c1) <{kind = #tir<for_kind unrolled>}> ({
// GENERIC:             "tir.if"(%lt) ({
// GENERIC-NEXT:          "tir.store"(%e, %t, %u) : (f32, memref<8xf32>, index) -> ()
// GENERIC-NEXT:          "tir.yield"() : () -> ()
// GENERIC-NEXT:        }) : (i1) -> ()
// GENERIC-NEXT:        "tir.if"(%lt) ({
// GENERIC-NEXT:          "tir.store"(%e, %y, %i, %u) : (f32, memref<4x8xf32>, index, index) -> ()
// GENERIC-NEXT:          "tir.yield"() : () -> ()
// GENERIC-NEXT:        }, {
// GENERIC-NEXT:          %zero = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
// GENERIC-NEXT:          "tir.store"(%zero, %y, %i, %u) : (f32, memref<4x8xf32>, index, index) -> ()
// GENERIC-NEXT:          "tir.yield"() : () -> ()
// GENERIC-NEXT:        }) {lamina.tag} : (i1) -> ()
// GENERIC:           "tir.for"(%c0, %c8, %c1) <{kind = #tir<for_kind serial>}> ({
// GENERIC-NEXT:      ^bb0(%k: index):
// GENERIC-NEXT:        %a = "tir.load"(%s) : (memref<f32>) -> f32
// GENERIC:           }) {lamina.tag} : (index, index, index) -> ()
// GENERIC-NEXT:      "tir.for"(%c0, %c8, %c1) <{kind = #tir<for_kind serial>}> ({
// GENERIC-NEXT:      ^bb0(%n: index):
// GENERIC-NEXT:        "tir.yield"() : () -> ()
// GENERIC-NEXT:      }) : (index, index, index) -> ()
// GENERIC-NEXT:      "tir.yield"() : () -> ()
// GENERIC-NEXT:    }) : (index, index, index) -> ()
// GENERIC-NEXT:    "tir.return"() : () -> ()
// GENERIC-NEXT:  }) {lamina.tag = 1 : i64} : () -> ()
// GENERIC:       %w = "tir.constant"() <{value = dense_resource<w0> : tensor<4x8xf32>}> : () -> memref<4x8xf32>
// GENERIC-NEXT:  %g = "tir.alloc"() <{scope = #tir<scope global>}> : () -> memref<4x8xf32>
// GENERIC-NEXT:  "tir.call"(%a, %g, %o) <{callee = @kernel}> : (memref<4x8xf32>, memref<4x8xf32>, memref<f32>) -> ()
// GENERIC-NEXT:  "tir.call"(%w, %b, %o) <{callee = @kernel}> {lamina.tag} : (memref<4x8xf32>, memref<4x8xf32>, memref<f32>) -> ()
// GENERIC-NEXT:  "tir.call"() <{callee = @nothing}> : () -> ()
