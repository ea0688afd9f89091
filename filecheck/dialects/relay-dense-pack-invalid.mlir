// Invalid relay.dense_pack ops, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @weight_rank(%x: tensor<6x3xf32>, %w: tensor<3x32xf32>) {
  // CHECK: relay.dense_pack: needs data [..., M, K] and a packed weight [N/nb, K, nb], got tensor<6x3xf32> and tensor<3x32xf32>
  %0 = relay.dense_pack %x, %w : (tensor<6x3xf32>, tensor<3x32xf32>)
  func.return
}

// -----

func.func @data_rank(%x: tensor<3xf32>, %w: tensor<2x3x16xf32>) {
  // CHECK: relay.dense_pack: needs data [..., M, K] and a packed weight [N/nb, K, nb], got tensor<3xf32> and tensor<2x3x16xf32>
  %0 = relay.dense_pack %x, %w : (tensor<3xf32>, tensor<2x3x16xf32>)
  func.return
}

// -----

func.func @contraction(%x: tensor<6x4xf32>, %w: tensor<2x3x16xf32>) {
  // CHECK: relay.dense_pack: contraction dimensions differ: data has 4 columns, the weight's panels 3 rows
  %0 = relay.dense_pack %x, %w : (tensor<6x4xf32>, tensor<2x3x16xf32>)
  func.return
}

// -----

func.func @integers(%x: tensor<6x3xi32>, %w: tensor<2x3x16xi32>) {
  // CHECK: relay.dense_pack: needs a floating-point tensor, got tensor<6x3xi32>
  %0 = relay.dense_pack %x, %w : (tensor<6x3xi32>, tensor<2x3x16xi32>)
  func.return
}

// -----

func.func @element_types(%x: tensor<6x3xf32>, %w: tensor<2x3x16xf64>) {
  // CHECK: relay.dense_pack: operands must share an element type, got f32, f64
  %0 = relay.dense_pack %x, %w : (tensor<6x3xf32>, tensor<2x3x16xf64>)
  func.return
}
