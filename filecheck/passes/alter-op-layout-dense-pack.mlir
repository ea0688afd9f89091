// alter-op-layout, packed weights: a relay.matmul or relay.dense with a constant
// 2-D weight whose N columns divide into the host's lanes B becomes
// relay.dense_pack over the weight packed at compile time in [N/B, K, B] column
// panels; a dense's bias becomes a relay.add after it. A dense with alpha or
// beta other than 1, or with transpose_a, a weight that is not a constant,
// columns that do not divide into panels and integer products are left to the
// other rewrites. 32 columns divide on every x86 host.
// RUN: lamina-opt %s --split-input-file -p alter-op-layout | filecheck %s
// RUN: lamina-opt %s --split-input-file -p alter-op-layout --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// STATS-COUNT-6: (S) 1 alter-op-layout.dense-pack - reported by the pass
// STATS-NEXT:    alter-op-layout
// STATS-NOT:     alter-op-layout.dense-pack
// STATS:         (S) 1 alter-op-layout.dense - reported by the pass
// STATS-NOT:     alter-op-layout.

// A batched matmul: the batch axes stay on the data.
// CHECK-LABEL: func.func @main(%x: tensor<2x4x3xf32>) -> tensor<2x4x32xf32> {
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<5.000000e-01> : tensor<[[N:[0-9]+]]x3x[[B:[0-9]+]]xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.dense_pack %x, %[[W]] : (tensor<2x4x3xf32>, tensor<[[N]]x3x[[B]]xf32>) -> tensor<2x4x32xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x4x32xf32>
func.func @main(%x: tensor<2x4x3xf32>) -> tensor<2x4x32xf32> {
  %w = relay.constant dense<0.5> : tensor<3x32xf32>
  %0 = relay.matmul %x, %w : (tensor<2x4x3xf32>, tensor<3x32xf32>)
  func.return %0 : tensor<2x4x32xf32>
}

// -----

// A weight with leading axes of 1 (a recurrent cell's input projection,
// `[dirs, seq, batch, input] x [1, 1, input, gates]`) is packed as its 2-D matrix.
// CHECK-LABEL: func.func @main(%x: tensor<1x5x2x3xf32>) -> tensor<1x5x2x32xf32> {
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<5.000000e-01> : tensor<[[N:[0-9]+]]x3x[[B:[0-9]+]]xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.dense_pack %x, %[[W]] : (tensor<1x5x2x3xf32>, tensor<[[N]]x3x[[B]]xf32>) -> tensor<1x5x2x32xf32>
func.func @main(%x: tensor<1x5x2x3xf32>) -> tensor<1x5x2x32xf32> {
  %w = relay.constant dense<0.5> : tensor<1x1x3x32xf32>
  %0 = relay.matmul %x, %w : (tensor<1x5x2x3xf32>, tensor<1x1x3x32xf32>)
  func.return %0 : tensor<1x5x2x32xf32>
}

// -----

// A small batch of weights along one axis (a bidirectional cell's `[2, H, 4H]`):
// one packed product per matrix, over its slice of the data, concatenated.
// CHECK-LABEL: func.func @main(%h: tensor<2x3x8xf32>) -> tensor<2x3x32xf32> {
// CHECK-NEXT:    %[[S0:.*]] = relay.strided_slice %h {begin = array<i64: 0, 0, 0>, end = array<i64: 1, 3, 8>} : (tensor<2x3x8xf32>) -> tensor<1x3x8xf32>
// CHECK-NEXT:    %[[W0:.*]] = relay.constant dense<1.000000e+00> : tensor<[[N:[0-9]+]]x8x[[B:[0-9]+]]xf32>
// CHECK-NEXT:    %[[P0:.*]] = relay.dense_pack %[[S0]], %[[W0]] : (tensor<1x3x8xf32>, tensor<[[N]]x8x[[B]]xf32>) -> tensor<1x3x32xf32>
// CHECK-NEXT:    %[[S1:.*]] = relay.strided_slice %h {begin = array<i64: 1, 0, 0>, end = array<i64: 2, 3, 8>} : (tensor<2x3x8xf32>) -> tensor<1x3x8xf32>
// CHECK-NEXT:    %[[W1:.*]] = relay.constant dense<2.000000e+00> : tensor<[[N]]x8x[[B]]xf32>
// CHECK-NEXT:    %[[P1:.*]] = relay.dense_pack %[[S1]], %[[W1]] : (tensor<1x3x8xf32>, tensor<[[N]]x8x[[B]]xf32>) -> tensor<1x3x32xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.concatenate %[[P0]], %[[P1]] {axis = 0 : i64} : (tensor<1x3x32xf32>, tensor<1x3x32xf32>) -> tensor<2x3x32xf32>
// CHECK-NEXT:    func.return %[[C]] : tensor<2x3x32xf32>
func.func @main(%h: tensor<2x3x8xf32>) -> tensor<2x3x32xf32> {
  %b = relay.constant dense<[[[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]], [[2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]]]> : tensor<2x8x32xf32>
  %0 = relay.matmul %h, %b : (tensor<2x3x8xf32>, tensor<2x8x32xf32>)
  func.return %0 : tensor<2x3x32xf32>
}

// -----

// A loop's constant read-only input (the cell's recurrent weight) is read in the
// body directly, where it is packed; the input and its argument go. A carried
// input and a computed one stay.
// CHECK-LABEL: func.func @main(%n: tensor<i64>, %c: tensor<i1>, %h: tensor<1x1x32xf32>, %b: tensor<32xf32>) -> tensor<1x1x32xf32> {
// CHECK-NEXT:    %f, %k = relay.loop(%n, %c, %h, %b) {
// CHECK-NEXT:    ^bb0(%i: tensor<i64>, %cc: tensor<i1>, %s: tensor<1x1x32xf32>, %bb: tensor<32xf32>):
// CHECK-NEXT:      %[[W:.*]] = relay.constant dense<2.500000e-01> : tensor<[[N:[0-9]+]]x32x[[B:[0-9]+]]xf32>
// CHECK-NEXT:      %[[P:.*]] = relay.dense_pack %s, %[[W]] : (tensor<1x1x32xf32>, tensor<[[N]]x32x[[B]]xf32>) -> tensor<1x1x32xf32>
// CHECK-NEXT:      %[[U:.*]] = relay.add %[[P]], %bb
// CHECK-NEXT:      relay.yield %cc, %[[U]] : tensor<i1>, tensor<1x1x32xf32>
// CHECK-NEXT:    } {carried = 1 : i64, max_trips = array<i64: 5>} : (tensor<i64>, tensor<i1>, tensor<1x1x32xf32>, tensor<32xf32>) -> (tensor<1x1x32xf32>, tensor<i64>)
func.func @main(%n: tensor<i64>, %c: tensor<i1>, %h: tensor<1x1x32xf32>, %b: tensor<32xf32>) -> tensor<1x1x32xf32> {
  %r = relay.constant dense<0.25> : tensor<1x32x32xf32>
  %f, %k = relay.loop(%n, %c, %h, %r, %b) {
  ^bb0(%i: tensor<i64>, %cc: tensor<i1>, %s: tensor<1x1x32xf32>, %w: tensor<1x32x32xf32>, %bb: tensor<32xf32>):
    %p = relay.matmul %s, %w : (tensor<1x1x32xf32>, tensor<1x32x32xf32>)
    %u = relay.add %p, %bb : (tensor<1x1x32xf32>, tensor<32xf32>)
    relay.yield %cc, %u : tensor<i1>, tensor<1x1x32xf32>
  } {carried = 1 : i64, max_trips = array<i64: 5>} : (tensor<i64>, tensor<i1>, tensor<1x1x32xf32>, tensor<1x32x32xf32>, tensor<32xf32>) -> (tensor<1x1x32xf32>, tensor<i64>)
  func.return %f : tensor<1x1x32xf32>
}

// -----

// Gemm with transpose_b and a bias: the N x K weight packed, the bias added after.
// CHECK-LABEL: func.func @main(%x: tensor<2x3xf32>) -> tensor<2x32xf32> {
// CHECK-NEXT:    %b = relay.constant dense<1.000000e+00> : tensor<32xf32>
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<2.500000e-01> : tensor<[[N:[0-9]+]]x3x[[B:[0-9]+]]xf32>
// CHECK-NEXT:    %[[D:.*]] = relay.dense_pack %x, %[[W]] : (tensor<2x3xf32>, tensor<[[N]]x3x[[B]]xf32>) -> tensor<2x32xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.add %[[D]], %b : (tensor<2x32xf32>, tensor<32xf32>) -> tensor<2x32xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x32xf32>
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x32xf32> {
  %w = relay.constant dense<0.25> : tensor<32x3xf32>
  %b = relay.constant dense<1.0> : tensor<32xf32>
  %0 = relay.dense %x, %w, %b {transpose_b} : (tensor<2x3xf32>, tensor<32x3xf32>, tensor<32xf32>)
  func.return %0 : tensor<2x32xf32>
}

// -----

// f64: panels of the host's f64 lanes.
// CHECK-LABEL: func.func @main(%x: tensor<5x2xf64>) -> tensor<5x32xf64> {
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<2.000000e+00> : tensor<[[N:[0-9]+]]x2x[[B:[0-9]+]]xf64>
// CHECK-NEXT:    %[[Y:.*]] = relay.dense_pack %x, %[[W]] : (tensor<5x2xf64>, tensor<[[N]]x2x[[B]]xf64>) -> tensor<5x32xf64>
func.func @main(%x: tensor<5x2xf64>) -> tensor<5x32xf64> {
  %w = relay.constant dense<2.0> : tensor<2x32xf64>
  %0 = relay.dense %x, %w : (tensor<5x2xf64>, tensor<2x32xf64>)
  func.return %0 : tensor<5x32xf64>
}

// -----

// alpha 2: not packed; its weight is transposed at compile time (the dense rewrite).
// CHECK-LABEL: func.func @main(%x: tensor<2x3xf32>) -> tensor<2x32xf32> {
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<2.500000e-01> : tensor<3x32xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.dense %x, %[[W]] {alpha = 2.000000e+00 : f64} : (tensor<2x3xf32>, tensor<3x32xf32>) -> tensor<2x32xf32>
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x32xf32> {
  %w = relay.constant dense<0.25> : tensor<32x3xf32>
  %0 = relay.dense %x, %w {transpose_b, alpha = 2.0 : f64} : (tensor<2x3xf32>, tensor<32x3xf32>)
  func.return %0 : tensor<2x32xf32>
}

// -----

// Left alone: a weight that is an argument, 20 columns (no whole panels), integers.
// CHECK-LABEL: func.func @main(%x: tensor<4x3xf32>, %v: tensor<3x32xf32>, %i: tensor<4x3xi32>) -> (tensor<4x32xf32>, tensor<4x20xf32>, tensor<4x32xi32>) {
// CHECK-NEXT:    %0 = relay.matmul %x, %v : (tensor<4x3xf32>, tensor<3x32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    %w = relay.constant dense<5.000000e-01> : tensor<3x20xf32>
// CHECK-NEXT:    %1 = relay.matmul %x, %w : (tensor<4x3xf32>, tensor<3x20xf32>) -> tensor<4x20xf32>
// CHECK-NEXT:    %n = relay.constant dense<3> : tensor<3x32xi32>
// CHECK-NEXT:    %2 = relay.matmul %i, %n : (tensor<4x3xi32>, tensor<3x32xi32>) -> tensor<4x32xi32>
// CHECK-NOT:     relay.dense_pack
func.func @main(%x: tensor<4x3xf32>, %v: tensor<3x32xf32>, %i: tensor<4x3xi32>) -> (tensor<4x32xf32>, tensor<4x20xf32>, tensor<4x32xi32>) {
  %0 = relay.matmul %x, %v : (tensor<4x3xf32>, tensor<3x32xf32>)
  %w = relay.constant dense<0.5> : tensor<3x20xf32>
  %1 = relay.matmul %x, %w : (tensor<4x3xf32>, tensor<3x20xf32>)
  %n = relay.constant dense<3> : tensor<3x32xi32>
  %2 = relay.matmul %i, %n : (tensor<4x3xi32>, tensor<3x32xi32>)
  func.return %0, %1, %2 : tensor<4x32xf32>, tensor<4x20xf32>, tensor<4x32xi32>
}
