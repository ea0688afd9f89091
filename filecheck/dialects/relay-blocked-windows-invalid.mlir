// Invalid blocked sliding-window ops, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @dw_blocking(%x: tensor<1x2x6x6x16xf32>, %w: tensor<2x3x3x8xf32>) {
  // CHECK: relay.depthwise_conv2d_nchwc: needs data [N, C/x, H, W, x] and weight [C/x, KH, KW, x] with the same blocking, got tensor<1x2x6x6x16xf32> and tensor<2x3x3x8xf32>
  %0 = relay.depthwise_conv2d_nchwc %x, %w : (tensor<1x2x6x6x16xf32>, tensor<2x3x3x8xf32>)
  func.return
}

// -----

func.func @dw_blocks(%x: tensor<1x2x6x6x16xf32>, %w: tensor<3x3x3x16xf32>) {
  // CHECK: relay.depthwise_conv2d_nchwc: needs data [N, C/x, H, W, x] and weight [C/x, KH, KW, x] with the same blocking, got tensor<1x2x6x6x16xf32> and tensor<3x3x3x16xf32>
  %0 = relay.depthwise_conv2d_nchwc %x, %w : (tensor<1x2x6x6x16xf32>, tensor<3x3x3x16xf32>)
  func.return
}

// -----

func.func @dw_window(%x: tensor<1x2x2x2x16xf32>, %w: tensor<2x3x3x16xf32>) {
  // CHECK: relay.depthwise_conv2d_nchwc: the window (extent 3) is larger than the padded input (extent 2) along spatial axis 0
  %0 = relay.depthwise_conv2d_nchwc %x, %w : (tensor<1x2x2x2x16xf32>, tensor<2x3x3x16xf32>)
  func.return
}

// -----

func.func @dw_int(%x: tensor<1x2x6x6x16xi32>, %w: tensor<2x3x3x16xi32>) {
  // CHECK: relay.depthwise_conv2d_nchwc: needs a floating-point tensor, got tensor<1x2x6x6x16xi32>
  %0 = relay.depthwise_conv2d_nchwc %x, %w : (tensor<1x2x6x6x16xi32>, tensor<2x3x3x16xi32>)
  func.return
}

// -----

func.func @dw_padding(%x: tensor<1x2x6x6x16xf32>, %w: tensor<2x3x3x16xf32>) {
  // CHECK: relay.depthwise_conv2d_nchwc: padding [-1, 0, 0, 0] must be non-negative
  %0 = relay.depthwise_conv2d_nchwc %x, %w {padding = array<i64: -1, 0, 0, 0>} : (tensor<1x2x6x6x16xf32>, tensor<2x3x3x16xf32>)
  func.return
}

// -----

func.func @pool_rank(%x: tensor<1x32x6x6xf32>) {
  // CHECK: relay.max_pool2d_nchwc: needs data [N, C/x, H, W, x], got tensor<1x32x6x6xf32>
  %0 = relay.max_pool2d_nchwc %x {pool_size = array<i64: 2, 2>} : (tensor<1x32x6x6xf32>)
  func.return
}

// -----

func.func @pool_size(%x: tensor<1x2x6x6x16xf32>) {
  // CHECK: relay.max_pool2d_nchwc: pool_size [2, 0] must be 2 positive sizes
  %0 = relay.max_pool2d_nchwc %x {pool_size = array<i64: 2, 0>} : (tensor<1x2x6x6x16xf32>)
  func.return
}

// -----

func.func @pool_window(%x: tensor<1x2x6x6x16xf32>) {
  // CHECK: relay.max_pool2d_nchwc: the window (extent 7) is larger than the padded input (extent 6) along spatial axis 1
  %0 = relay.max_pool2d_nchwc %x {pool_size = array<i64: 2, 7>} : (tensor<1x2x6x6x16xf32>)
  func.return
}

// -----

func.func @pool_bool(%x: tensor<1x2x6x6x16xi1>) {
  // CHECK: relay.max_pool2d_nchwc: needs a floating-point or integer tensor, got tensor<1x2x6x6x16xi1>
  %0 = relay.max_pool2d_nchwc %x {pool_size = array<i64: 2, 2>} : (tensor<1x2x6x6x16xi1>)
  func.return
}
