// fold-constant: constant chains fold to one constant (splat, inline or blob);
// ops that read inputs stay.
// RUN: lamina-opt %s --split-input-file -p fold-constant | filecheck %s
// RUN: lamina-opt %s --split-input-file -p fold-constant --opt-level 0 | filecheck %s --check-prefix=O0

// CHECK-LABEL: func.func @chain(
// CHECK-NEXT:    %s = relay.constant dense<{{\[\[}}2.000000e+00, 8.000000e+00, 4.000000e+00], [1.000000e+01, 6.000000e+00, 1.200000e+01]]> : tensor<2x3xf32>
// CHECK-NEXT:    %y = relay.add %x, %s : tensor<2x3xf32>
// CHECK-NEXT:    %zz = relay.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %out = relay.add %y, %zz : tensor<2x3xf32>
// CHECK-NEXT:    func.return %out : tensor<2x3xf32>
// O0-LABEL: func.func @chain(
// O0:         relay.transpose
func.func @chain(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %w = relay.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %t = relay.transpose %w {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = relay.reshape %t {shape = array<i64: 2, 3>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %two = relay.constant dense<2.0> : tensor<2x3xf32>
  %s = relay.multiply %r, %two : tensor<2x3xf32>
  %y = relay.add %x, %s : tensor<2x3xf32>
  %z = relay.constant dense<0.0> : tensor<2x3xf32>
  %zz = relay.relu %z : tensor<2x3xf32>
  %out = relay.add %y, %zz : tensor<2x3xf32>
  func.return %out : tensor<2x3xf32>
}

// -----

// A result above 16 elements becomes a dense_resource blob.
// CHECK-LABEL: func.func @blob(
// CHECK-NEXT:    %t = relay.constant dense_resource<t> : tensor<5x4xf32>
// CHECK-NEXT:    func.return %t : tensor<5x4xf32>
// CHECK:       dialect_resources
// CHECK:         t: "0x04000000
func.func @blob() -> tensor<5x4xf32> {
  %w = relay.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0, 14.0], [15.0, 16.0, 17.0, 18.0, 19.0]]> : tensor<4x5xf32>
  %t = relay.transpose %w {perm = array<i64: 1, 0>} : (tensor<4x5xf32>) -> tensor<5x4xf32>
  func.return %t : tensor<5x4xf32>
}

// -----

// Integer division by zero is left alone.
// CHECK-LABEL: func.func @div_zero(
// CHECK:         relay.divide
func.func @div_zero() -> tensor<2xi32> {
  %a = relay.constant dense<[7, -7]> : tensor<2xi32>
  %b = relay.constant dense<[0, 2]> : tensor<2xi32>
  %q = relay.divide %a, %b : tensor<2xi32>
  func.return %q : tensor<2xi32>
}

// -----

// exp and floor of constants fold (qnn.softmax's table and floor(1 / y_scale)).
// CHECK-LABEL: func.func @exp_floor(
// CHECK-NEXT:    %e = relay.constant dense<[1.000000e+00, 2.7182818284590451]> : tensor<2xf64>
// CHECK-NEXT:    %f = relay.constant dense<[2.540000e+02, -1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    func.return %e, %f
func.func @exp_floor() -> (tensor<2xf64>, tensor<2xf32>) {
  %a = relay.constant dense<[0.0, 1.0]> : tensor<2xf64>
  %e = relay.exp %a : tensor<2xf64>
  %b = relay.constant dense<[254.99998, -0.5]> : tensor<2xf32>
  %f = relay.floor %b : tensor<2xf32>
  func.return %e, %f : tensor<2xf64>, tensor<2xf32>
}
