// simplify-expr: identities, reshape/transpose chains and relu(relu(x)), written
// with the pattern language; --pass-statistics shows which rules fired.
// RUN: lamina-opt %s -p simplify-expr,dce | filecheck %s
// RUN: lamina-opt %s -p simplify-expr --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: lamina-opt %s -p simplify-expr --opt-level 2 | filecheck %s --check-prefix=O2

// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %zero = relay.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %vz = relay.add %v, %zero : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %r2 = relay.reshape %x {shape = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK-NEXT:    %t3 = relay.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %rr = relay.relu %t3 : tensor<3x2xf32>
// CHECK-NEXT:    func.return %x, %vz, %r2, %rr

// STATS:      simplify-expr
// STATS:        (S)  1 rewrite.AddZero - reported by the pass
// STATS-NEXT:   (S)  1 rewrite.MultiplyOne - reported by the pass
// STATS-NEXT:   (S)  1 rewrite.ReshapeChain - reported by the pass
// STATS-NEXT:   (S)  1 rewrite.TransposeChain - reported by the pass
// STATS-NEXT:   (S)  1 rewrite.ReluRelu - reported by the pass

// O2: relay.multiply
func.func @main(%x: tensor<2x3xf32>, %v: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32>, tensor<3x2xf32>) {
  %zero = relay.constant dense<0.0> : tensor<2x3xf32>
  %one = relay.constant dense<1.0> : tensor<2x3xf32>
  %a = relay.add %zero, %x : tensor<2x3xf32>
  %b = relay.multiply %a, %one : tensor<2x3xf32>
  %vz = relay.add %v, %zero : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %r1 = relay.reshape %b {shape = array<i64: 3, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r2 = relay.reshape %r1 {shape = array<i64: 6>} : (tensor<3x2xf32>) -> tensor<6xf32>
  %t1 = relay.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %t2 = relay.transpose %t1 {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %t3 = relay.transpose %t2 {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %rr = relay.relu %t3 : tensor<3x2xf32>
  %rrr = relay.relu %rr : tensor<3x2xf32>
  func.return %b, %vz, %r2, %rrr : tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32>, tensor<3x2xf32>
}
