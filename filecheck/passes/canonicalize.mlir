// canonicalize: xDSL's canonicalizer plus relay's canonical forms (the rules of
// simplify-expr, passes/simplify_expr.RULES): identities with splat 0/1 constants
// that keep the type, transpose and reshape chains.
// RUN: lamina-opt %s -p canonicalize | filecheck %s
// RUN: lamina-opt %s -p canonicalize --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: lamina-opt %s -p canonicalize --opt-level 1 | filecheck %s --check-prefix=O1

// CHECK-LABEL: func.func @identities(
// CHECK-NEXT:    %zero = relay.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %vz = relay.add %v, %zero : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %x, %x, %vz
func.func @identities(%x: tensor<2x3xf32>, %v: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %zero = relay.constant dense<0.0> : tensor<2x3xf32>
  %one = relay.constant dense<1.0> : tensor<2x3xf32>
  %a = relay.add %zero, %x : tensor<2x3xf32>
  %b = relay.multiply %a, %one : tensor<2x3xf32>
  %c = relay.subtract %b, %zero : tensor<2x3xf32>
  %d = relay.divide %c, %one : tensor<2x3xf32>
  %e = relay.multiply %one, %x : tensor<2x3xf32>
  // broadcasting changes the type: kept
  %vz = relay.add %v, %zero : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %d, %e, %vz : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @transposes(
// CHECK-NEXT:    %u2 = relay.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    func.return %x, %u2
func.func @transposes(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>) {
  %t1 = relay.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %t2 = relay.transpose %t1 {perm = array<i64: 1, 0, 2>} : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  %id = relay.transpose %t2 {perm = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %u1 = relay.transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %u2 = relay.transpose %u1 {perm = array<i64: 1, 0, 2>} : (tensor<2x4x3xf32>) -> tensor<4x2x3xf32>
  func.return %id, %u2 : tensor<2x3x4xf32>, tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @reshapes(
// CHECK-NEXT:    %s3 = relay.reshape %x {shape = array<i64: 4, 6>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK-NEXT:    func.return %x, %s3
func.func @reshapes(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x6xf32>) {
  %r1 = relay.reshape %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %r2 = relay.reshape %r1 {shape = array<i64: 2, 3, 4>} : (tensor<6x4xf32>) -> tensor<2x3x4xf32>
  %s1 = relay.reshape %x {shape = array<i64: 24>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %s2 = relay.reshape %s1 {shape = array<i64: 2, 12>} : (tensor<24xf32>) -> tensor<2x12xf32>
  %s3 = relay.reshape %s2 {shape = array<i64: 4, 6>} : (tensor<2x12xf32>) -> tensor<4x6xf32>
  func.return %r2, %s3 : tensor<2x3x4xf32>, tensor<4x6xf32>
}

// STATS:      canonicalize
// STATS-NEXT:   (S) 24 ops-before
// STATS-NEXT:   (S) 10 ops-after
// STATS-NEXT:   (S)  1 rewrite.AddZero
// STATS-NEXT:   (S)  1 rewrite.SubtractZero
// STATS-NEXT:   (S)  2 rewrite.MultiplyOne
// STATS-NEXT:   (S)  1 rewrite.DivideOne
// STATS-NEXT:   (S)  3 rewrite.ReshapeChain
// STATS-NEXT:   (S)  3 rewrite.TransposeChain

// At opt level 1 canonicalize (level 2) does not run.
// O1: relay.multiply
