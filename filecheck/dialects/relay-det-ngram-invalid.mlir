// Invalid determinants and n-gram counts, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @det_not_square(%x: tensor<2x3x4xf32>) {
  // CHECK: relay.det: data must be square matrices [..., M, M], got tensor<2x3x4xf32>
  %0 = relay.det %x : (tensor<2x3x4xf32>)
  func.return
}

// -----

func.func @det_vector(%x: tensor<4xf32>) {
  // CHECK: relay.det: data must be square matrices [..., M, M], got tensor<4xf32>
  %0 = relay.det %x : (tensor<4xf32>)
  func.return
}

// -----

func.func @det_integer(%x: tensor<3x3xi32>) {
  // CHECK: relay.det: needs a floating-point tensor, got tensor<3x3xi32>
  %0 = relay.det %x : (tensor<3x3xi32>)
  func.return
}

// -----

func.func @det_result(%x: tensor<2x3x3xf32>) {
  // CHECK: relay.det: result type tensor<3xf32> does not match the inferred type tensor<2xf32>
  %0 = relay.det %x : (tensor<2x3x3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @ngram_float_data(%x: tensor<6xf32>, %g: tensor<3x2xi64>, %p: tensor<3xi64>) {
  // CHECK: relay.ngram_count: data must be [L] or [B, L] integers, got tensor<6xf32>
  %0 = relay.ngram_count %x, %g, %p {width = 5 : i64} : (tensor<6xf32>, tensor<3x2xi64>, tensor<3xi64>)
  func.return
}

// -----

func.func @ngram_rank3_data(%x: tensor<2x2x6xi64>, %g: tensor<3x2xi64>, %p: tensor<3xi64>) {
  // CHECK: relay.ngram_count: data must be [L] or [B, L] integers, got tensor<2x2x6xi64>
  %0 = relay.ngram_count %x, %g, %p {width = 5 : i64} : (tensor<2x2x6xi64>, tensor<3x2xi64>, tensor<3xi64>)
  func.return
}

// -----

func.func @ngram_grams_i32(%x: tensor<6xi64>, %g: tensor<3x2xi32>, %p: tensor<3xi64>) {
  // CHECK: relay.ngram_count: grams must be [P, n] i64 with n >= 1, got tensor<3x2xi32>
  %0 = relay.ngram_count %x, %g, %p {width = 5 : i64} : (tensor<6xi64>, tensor<3x2xi32>, tensor<3xi64>)
  func.return
}

// -----

func.func @ngram_slots(%x: tensor<6xi64>, %g: tensor<3x2xi64>, %p: tensor<4xi64>) {
  // CHECK: relay.ngram_count: slots must be [3] i64 (one per gram), got tensor<4xi64>
  %0 = relay.ngram_count %x, %g, %p {width = 5 : i64} : (tensor<6xi64>, tensor<3x2xi64>, tensor<4xi64>)
  func.return
}

// -----

func.func @ngram_width(%x: tensor<6xi64>, %g: tensor<3x2xi64>, %p: tensor<3xi64>) {
  // CHECK: relay.ngram_count: width must be >= 0, got -1
  %0 = relay.ngram_count %x, %g, %p {width = -1 : i64} : (tensor<6xi64>, tensor<3x2xi64>, tensor<3xi64>)
  func.return
}

// -----

func.func @ngram_skip(%x: tensor<6xi64>, %g: tensor<3x2xi64>, %p: tensor<3xi64>) {
  // CHECK: relay.ngram_count: max_skip must be >= 0, got -2
  %0 = relay.ngram_count %x, %g, %p {width = 5 : i64, max_skip = -2 : i64} : (tensor<6xi64>, tensor<3x2xi64>, tensor<3xi64>)
  func.return
}

// -----

func.func @ngram_no_width(%x: tensor<6xi64>, %g: tensor<3x2xi64>, %p: tensor<3xi64>) {
  // CHECK: relay.ngram_count: property 'width' is required
  %0 = relay.ngram_count %x, %g, %p : (tensor<6xi64>, tensor<3x2xi64>, tensor<3xi64>)
  func.return
}
