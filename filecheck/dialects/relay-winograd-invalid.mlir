// Invalid Winograd transforms, one per chunk. Ops in custom form are
// type-checked while parsing (--parsing-diagnostics); ops in generic form reach
// the verifier (--verify-diagnostics).
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @tile(%x: tensor<1x1x6x6x16xf32>, %t: tensor<3x3xf32>) {
  // CHECK: relay.winograd_input_transform: tile_size must be at least 1, got 0
  %0 = relay.winograd_input_transform %x, %t {tile_size = 0 : i64} : (tensor<1x1x6x6x16xf32>, tensor<3x3xf32>)
  func.return
}

// -----

func.func @tile_missing(%x: tensor<1x1x6x6x16xf32>, %t: tensor<6x6xf32>) {
  // CHECK: relay.winograd_input_transform: property 'tile_size' is required
  %0 = relay.winograd_input_transform %x, %t : (tensor<1x1x6x6x16xf32>, tensor<6x6xf32>)
  func.return
}

// -----

func.func @rank(%x: tensor<1x16x6x6xf32>, %t: tensor<6x6xf32>) {
  // CHECK: relay.winograd_input_transform: data must be a 5-D tensor of static sizes, got tensor<1x16x6x6xf32>
  %0 = relay.winograd_input_transform %x, %t {tile_size = 4 : i64} : (tensor<1x16x6x6xf32>, tensor<6x6xf32>)
  func.return
}

// -----

func.func @matrix(%x: tensor<1x1x6x6x16xf32>, %t: tensor<4x4xf32>) {
  // CHECK: relay.winograd_input_transform: the transform must be [6, 6] (B^T for tile_size 4), got tensor<4x4xf32>
  %0 = relay.winograd_input_transform %x, %t {tile_size = 4 : i64} : (tensor<1x1x6x6x16xf32>, tensor<4x4xf32>)
  func.return
}

// -----

func.func @small(%x: tensor<1x1x2x6x16xf32>, %t: tensor<6x6xf32>) {
  // CHECK: relay.winograd_input_transform: the padded input (2x6) is smaller than the 3x3 window
  %0 = relay.winograd_input_transform %x, %t {tile_size = 4 : i64} : (tensor<1x1x2x6x16xf32>, tensor<6x6xf32>)
  func.return
}

// -----

func.func @padding(%x: tensor<1x1x6x6x16xf32>, %t: tensor<6x6xf32>) {
  // CHECK: relay.winograd_input_transform: padding [1, -1, 1, 1] must be non-negative
  %0 = relay.winograd_input_transform %x, %t {tile_size = 4 : i64, padding = array<i64: 1, -1, 1, 1>} : (tensor<1x1x6x6x16xf32>, tensor<6x6xf32>)
  func.return
}

// -----

func.func @integers(%x: tensor<1x1x6x6x16xi32>, %t: tensor<6x6xi32>) {
  // CHECK: relay.winograd_input_transform: needs a floating-point tensor, got tensor<1x1x6x6x16xi32>
  %0 = relay.winograd_input_transform %x, %t {tile_size = 4 : i64} : (tensor<1x1x6x6x16xi32>, tensor<6x6xi32>)
  func.return
}

// -----

func.func @positions(%m: tensor<1x16x4x16xf32>, %s: tensor<4x6xf32>) {
  // CHECK: relay.winograd_output_transform: data must hold 36 tile positions for tile_size 4 (its axis 1), got tensor<1x16x4x16xf32>
  %0 = relay.winograd_output_transform %m, %s {tile_size = 4 : i64, output_size = array<i64: 8, 8>} : (tensor<1x16x4x16xf32>, tensor<4x6xf32>)
  func.return
}

// -----

func.func @images(%m: tensor<1x36x5x16xf32>, %s: tensor<4x6xf32>) {
  // CHECK: relay.winograd_output_transform: 5 tiles are not a whole number of 8x8 images (4 tiles of 4x4 each)
  %0 = relay.winograd_output_transform %m, %s {tile_size = 4 : i64, output_size = array<i64: 8, 8>} : (tensor<1x36x5x16xf32>, tensor<4x6xf32>)
  func.return
}

// -----

func.func @output_size(%m: tensor<1x36x4x16xf32>, %s: tensor<4x6xf32>) {
  // CHECK: relay.winograd_output_transform: output_size needs 2 values (one per spatial axis), got [8]
  %0 = relay.winograd_output_transform %m, %s {tile_size = 4 : i64, output_size = array<i64: 8>} : (tensor<1x36x4x16xf32>, tensor<4x6xf32>)
  func.return
}

// -----

func.func @output_matrix(%m: tensor<1x36x4x16xf32>, %s: tensor<6x6xf32>) {
  // CHECK: relay.winograd_output_transform: the transform must be [4, 6] (A^T for tile_size 4), got tensor<6x6xf32>
  %0 = relay.winograd_output_transform %m, %s {tile_size = 4 : i64, output_size = array<i64: 8, 8>} : (tensor<1x36x4x16xf32>, tensor<6x6xf32>)
  func.return
}

// -----

// The generic form reaches the verifier.
func.func @generic(%m: tensor<1x36x4x16xf32>, %s: tensor<4x6xf32>) {
  // CHECK: Operation does not verify: relay.winograd_output_transform: result type tensor<1x1x8x8x8xf32> does not match the inferred type tensor<1x1x8x8x16xf32>
  %0 = "relay.winograd_output_transform"(%m, %s) <{tile_size = 4 : i64, output_size = array<i64: 8, 8>}> : (tensor<1x36x4x16xf32>, tensor<4x6xf32>) -> tensor<1x1x8x8x8xf32>
  func.return
}
