// Invalid scatters, top-k and cumulative scans, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @scatter_nd_depth(%x: tensor<5x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2xf32>) {
  // CHECK: relay.scatter_nd: indices tensor<2x3xi64> must end in an axis of size 1 to 2 (the rank of the data)
  %0 = relay.scatter_nd %x, %i, %u : (tensor<5x3xf32>, tensor<2x3xi64>, tensor<2xf32>)
  func.return
}

// -----

func.func @scatter_nd_updates(%x: tensor<5x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>) {
  // CHECK: relay.scatter_nd: updates tensor<2x4xf32> must have shape [2, 3] (indices.shape[:-1] + data.shape[q:])
  %0 = relay.scatter_nd %x, %i, %u : (tensor<5x3xf32>, tensor<2x1xi64>, tensor<2x4xf32>)
  func.return
}

// -----

func.func @scatter_nd_float_indices(%x: tensor<5x3xf32>, %i: tensor<2x1xf32>, %u: tensor<2x3xf32>) {
  // CHECK: relay.scatter_nd: indices must be an integer tensor, got tensor<2x1xf32>
  %0 = relay.scatter_nd %x, %i, %u : (tensor<5x3xf32>, tensor<2x1xf32>, tensor<2x3xf32>)
  func.return
}

// -----

func.func @scatter_reduction(%x: tensor<5x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) {
  // CHECK: relay.scatter_nd: reduction must be one of none, add, mul, max, min, got "mean"
  %0 = relay.scatter_nd %x, %i, %u {reduction = "mean"} : (tensor<5x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>)
  func.return
}

// -----

func.func @scatter_elements_shape(%x: tensor<5x3xf32>, %i: tensor<2x4xi64>, %u: tensor<2x4xf32>) {
  // CHECK: relay.scatter_elements: indices tensor<2x4xi64> must have the data's rank and fit in the data tensor<5x3xf32> outside axis 0
  %0 = relay.scatter_elements %x, %i, %u {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2x4xi64>, tensor<2x4xf32>)
  func.return
}

// -----

func.func @scatter_elements_updates(%x: tensor<5x3xf32>, %i: tensor<2x3xi64>, %u: tensor<3x3xf32>) {
  // CHECK: relay.scatter_elements: updates tensor<3x3xf32> must have the shape of the indices tensor<2x3xi64>
  %0 = relay.scatter_elements %x, %i, %u {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2x3xi64>, tensor<3x3xf32>)
  func.return
}

// -----

func.func @topk_k(%x: tensor<5x3xf32>) {
  // CHECK: relay.topk: k = 4 must be in 0..3 (the size of axis 1)
  %0, %1 = relay.topk %x {k = 4 : i64, axis = 1 : i64} : (tensor<5x3xf32>)
  func.return
}

// -----

func.func @topk_result(%x: tensor<5x3xf32>) {
  // CHECK: relay.topk: result type (tensor<2x3xf32>, tensor<2x3xi32>) does not match the inferred type (tensor<2x3xf32>, tensor<2x3xi64>)
  %0, %1 = "relay.topk"(%x) <{k = 2 : i64, axis = 0 : i64}> : (tensor<5x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  func.return
}

// -----

func.func @cumulative_kind(%x: tensor<5x3xf32>) {
  // CHECK: relay.cumulative: kind must be one of sum, prod, got "max"
  %0 = relay.cumulative %x {axis = 0 : i64, kind = "max"} : (tensor<5x3xf32>)
  func.return
}

// -----

func.func @cumulative_axis(%x: tensor<5x3xf32>) {
  // CHECK: relay.cumulative: axis 2 is out of range for a rank-2 tensor (expected -2 <= axis < 2)
  %0 = relay.cumulative %x {axis = 2 : i64, kind = "sum"} : (tensor<5x3xf32>)
  func.return
}
