// Round trip of relay.det (batched determinants) and relay.ngram_count (the
// counting of TfIdfVectorizer): custom form, and generic form re-parsed.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// A batch of matrices, one f64 matrix (a scalar result) and the empty matrix;
// n-grams over [B, L] (with skips) and over [L].
// CHECK-LABEL: func.func @det_ngram(%m: tensor<3x4x4xf32>, %s: tensor<2x2xf64>, %e: tensor<0x0xf32>, %x: tensor<2x6xi32>, %t: tensor<9xi64>, %g: tensor<3x2xi64>, %p: tensor<3xi64>) -> (tensor<3xf32>, tensor<f64>, tensor<f32>, tensor<2x5xi64>, tensor<7xi64>) {
// CHECK-NEXT:    %0 = relay.det %m : (tensor<3x4x4xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %1 = relay.det %s : (tensor<2x2xf64>) -> tensor<f64>
// CHECK-NEXT:    %2 = relay.det %e : (tensor<0x0xf32>) -> tensor<f32>
// CHECK-NEXT:    %3 = relay.ngram_count %x, %g, %p {width = 5 : i64, max_skip = 2 : i64} : (tensor<2x6xi32>, tensor<3x2xi64>, tensor<3xi64>) -> tensor<2x5xi64>
// CHECK-NEXT:    %4 = relay.ngram_count %t, %g, %p {width = 7 : i64} : (tensor<9xi64>, tensor<3x2xi64>, tensor<3xi64>) -> tensor<7xi64>
// CHECK-NEXT:    func.return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<f64>, tensor<f32>, tensor<2x5xi64>, tensor<7xi64>
// GENERIC:       %0 = "relay.det"(%m) : (tensor<3x4x4xf32>) -> tensor<3xf32>
// GENERIC-NEXT:  %1 = "relay.det"(%s) : (tensor<2x2xf64>) -> tensor<f64>
// GENERIC-NEXT:  %2 = "relay.det"(%e) : (tensor<0x0xf32>) -> tensor<f32>
// GENERIC-NEXT:  %3 = "relay.ngram_count"(%x, %g, %p) <{width = 5 : i64, max_skip = 2 : i64}> : (tensor<2x6xi32>, tensor<3x2xi64>, tensor<3xi64>) -> tensor<2x5xi64>
// GENERIC-NEXT:  %4 = "relay.ngram_count"(%t, %g, %p) <{width = 7 : i64}> : (tensor<9xi64>, tensor<3x2xi64>, tensor<3xi64>) -> tensor<7xi64>
func.func @det_ngram(%m: tensor<3x4x4xf32>, %s: tensor<2x2xf64>, %e: tensor<0x0xf32>, %x: tensor<2x6xi32>, %t: tensor<9xi64>, %g: tensor<3x2xi64>, %p: tensor<3xi64>) -> (tensor<3xf32>, tensor<f64>, tensor<f32>, tensor<2x5xi64>, tensor<7xi64>) {
  %0 = relay.det %m : (tensor<3x4x4xf32>)
  %1 = relay.det %s : (tensor<2x2xf64>) -> tensor<f64>
  %2 = relay.det %e : (tensor<0x0xf32>)
  %3 = relay.ngram_count %x, %g, %p {width = 5 : i64, max_skip = 2 : i64} : (tensor<2x6xi32>, tensor<3x2xi64>, tensor<3xi64>)
  %4 = relay.ngram_count %t, %g, %p {width = 7 : i64} : (tensor<9xi64>, tensor<3x2xi64>, tensor<3xi64>) -> tensor<7xi64>
  func.return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<f64>, tensor<f32>, tensor<2x5xi64>, tensor<7xi64>
}
