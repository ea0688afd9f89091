// Round trip of lamina's additions to xDSL's llvm dialect (dialects/llvm_ext.py:
// llvm.fptosi, llvm.fptoui, llvm.uitofp, llvm.extractelement, llvm.intr.masked.load), in MLIR's syntax:
// custom form, and generic form re-parsed.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @casts(%f: f32, %d: f64, %i: i32, %l: i64) -> (i32, i64, i8, f32, f64) {
// CHECK-NEXT:    %0 = llvm.fptosi %f : f32 to i32
// CHECK-NEXT:    %1 = llvm.fptosi %d : f64 to i64
// CHECK-NEXT:    %2 = llvm.fptoui %f : f32 to i8
// CHECK-NEXT:    %3 = llvm.uitofp %i : i32 to f32
// CHECK-NEXT:    %4 = llvm.uitofp %l : i64 to f64
// CHECK-NEXT:    func.return %0, %1, %2, %3, %4 : i32, i64, i8, f32, f64
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "casts"
// GENERIC:       %0 = "llvm.fptosi"(%f) : (f32) -> i32
// GENERIC-NEXT:  %1 = "llvm.fptosi"(%d) : (f64) -> i64
// GENERIC-NEXT:  %2 = "llvm.fptoui"(%f) : (f32) -> i8
// GENERIC-NEXT:  %3 = "llvm.uitofp"(%i) : (i32) -> f32
// GENERIC-NEXT:  %4 = "llvm.uitofp"(%l) : (i64) -> f64
func.func @casts(%f: f32, %d: f64, %i: i32, %l: i64) -> (i32, i64, i8, f32, f64) {
  %0 = llvm.fptosi %f : f32 to i32
  %1 = llvm.fptosi %d : f64 to i64
  %2 = llvm.fptoui %f : f32 to i8
  %3 = llvm.uitofp %i : i32 to f32
  %4 = llvm.uitofp %l : i64 to f64
  func.return %0, %1, %2, %3, %4 : i32, i64, i8, f32, f64
}

// Vector casts.
// CHECK-LABEL: func.func @vector_casts(%v: vector<4xf32>, %u: vector<4xi32>) -> (vector<4xi32>, vector<4xi32>, vector<4xf32>) {
// CHECK-NEXT:    %0 = llvm.fptosi %v : vector<4xf32> to vector<4xi32>
// CHECK-NEXT:    %1 = llvm.fptoui %v : vector<4xf32> to vector<4xi32>
// CHECK-NEXT:    %2 = llvm.uitofp %u : vector<4xi32> to vector<4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "vector_casts"
// GENERIC:       %0 = "llvm.fptosi"(%v) : (vector<4xf32>) -> vector<4xi32>
// GENERIC-NEXT:  %1 = "llvm.fptoui"(%v) : (vector<4xf32>) -> vector<4xi32>
// GENERIC-NEXT:  %2 = "llvm.uitofp"(%u) : (vector<4xi32>) -> vector<4xf32>
func.func @vector_casts(%v: vector<4xf32>, %u: vector<4xi32>) -> (vector<4xi32>, vector<4xi32>, vector<4xf32>) {
  %0 = llvm.fptosi %v : vector<4xf32> to vector<4xi32>
  %1 = llvm.fptoui %v : vector<4xf32> to vector<4xi32>
  %2 = llvm.uitofp %u : vector<4xi32> to vector<4xf32>
  func.return %0, %1, %2 : vector<4xi32>, vector<4xi32>, vector<4xf32>
}

// The lane index may be any integer type; the result is the element type.
// CHECK-LABEL: func.func @extract(%v: vector<4xf32>, %w: vector<8xi64>, %i: i32, %j: i64) -> (f32, i64) {
// CHECK-NEXT:    %0 = llvm.extractelement %v[%i : i32] : vector<4xf32>
// CHECK-NEXT:    %1 = llvm.extractelement %w[%j : i64] {lamina.tag} : vector<8xi64>
// CHECK-NEXT:    func.return %0, %1 : f32, i64
// GENERIC-LABEL: "func.func"() <{sym_name = "extract"
// GENERIC:       %0 = "llvm.extractelement"(%v, %i) : (vector<4xf32>, i32) -> f32
// GENERIC-NEXT:  %1 = "llvm.extractelement"(%w, %j) {lamina.tag} : (vector<8xi64>, i64) -> i64
func.func @extract(%v: vector<4xf32>, %w: vector<8xi64>, %i: i32, %j: i64) -> (f32, i64) {
  %0 = llvm.extractelement %v[%i : i32] : vector<4xf32>
  %1 = llvm.extractelement %w[%j : i64] {lamina.tag} : vector<8xi64>
  func.return %0, %1 : f32, i64
}

// A masked load: the lanes whose mask bit is clear come from the pass-through.
// CHECK-LABEL: func.func @masked_load(%p: !llvm.ptr, %m: vector<4xi1>, %t: vector<4xf32>) -> vector<4xf32> {
// CHECK-NEXT:    %0 = llvm.intr.masked.load %p, %m, %t {alignment = 4 : i32} : (!llvm.ptr, vector<4xi1>, vector<4xf32>) -> vector<4xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "masked_load"
// GENERIC:       %0 = "llvm.intr.masked.load"(%p, %m, %t) <{alignment = 4 : i32}> : (!llvm.ptr, vector<4xi1>, vector<4xf32>) -> vector<4xf32>
func.func @masked_load(%p: !llvm.ptr, %m: vector<4xi1>, %t: vector<4xf32>) -> vector<4xf32> {
  %0 = llvm.intr.masked.load %p, %m, %t {alignment = 4 : i32} : (!llvm.ptr, vector<4xi1>, vector<4xf32>) -> vector<4xf32>
  func.return %0 : vector<4xf32>
}
