// Invalid blocked-layout ops, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @layout_unknown(%x: tensor<1x32x4x4xf32>) {
  // CHECK: relay.layout_transform: layout 'NHWC' is neither NCW, NCHW, NCDHW nor their blocked NCW<x>c, NCHW<x>c, NCDHW<x>c
  %0 = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NHWC"} : (tensor<1x32x4x4xf32>)
  func.return
}

// -----

func.func @layout_same_kind(%x: tensor<1x2x4x4x16xf32>) {
  // CHECK: relay.layout_transform: transforms between a plain layout and its blocked form (NCHW and NCHW<x>c), not NCHW16c to NCHW8c
  %0 = relay.layout_transform %x {src_layout = "NCHW16c", dst_layout = "NCHW8c"} : (tensor<1x2x4x4x16xf32>)
  func.return
}

// -----

func.func @layout_channels(%x: tensor<1x24x4x4xf32>) {
  // CHECK: relay.layout_transform: tensor<1x24x4x4xf32> is not NCHW with channels divisible by 16
  %0 = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW16c"} : (tensor<1x24x4x4xf32>)
  func.return
}

// -----

func.func @layout_block(%x: tensor<1x2x4x4x8xf32>) {
  // CHECK: relay.layout_transform: tensor<1x2x4x4x8xf32> is not NCHW16c
  %0 = relay.layout_transform %x {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x2x4x4x8xf32>)
  func.return
}

// -----

func.func @conv_blocking(%x: tensor<1x2x6x6x16xf32>, %w: tensor<2x2x3x3x8x16xf32>) {
  // CHECK: relay.conv2d_nchwc: needs data [N, C/cb, H, W, cb] and weight [O/ob, C/cb, KH, KW, cb, ob] with the same input blocking, got tensor<1x2x6x6x16xf32> and tensor<2x2x3x3x8x16xf32>
  %0 = relay.conv2d_nchwc %x, %w : (tensor<1x2x6x6x16xf32>, tensor<2x2x3x3x8x16xf32>)
  func.return
}

// -----

func.func @conv_window(%x: tensor<1x2x2x2x16xf32>, %w: tensor<2x2x3x3x16x16xf32>) {
  // CHECK: relay.conv2d_nchwc: the window (extent 3) is larger than the padded input (extent 2) along spatial axis 0
  %0 = relay.conv2d_nchwc %x, %w : (tensor<1x2x2x2x16xf32>, tensor<2x2x3x3x16x16xf32>)
  func.return
}

// -----

func.func @conv_int(%x: tensor<1x2x6x6x16xi32>, %w: tensor<2x2x3x3x16x16xi32>) {
  // CHECK: relay.conv2d_nchwc: needs a floating-point tensor, got tensor<1x2x6x6x16xi32>
  %0 = relay.conv2d_nchwc %x, %w : (tensor<1x2x6x6x16xi32>, tensor<2x2x3x3x16x16xi32>)
  func.return
}

// -----

func.func @conv_groups(%x: tensor<1x4x6x6x16xf32>, %w: tensor<3x2x3x3x16x16xf32>) {
  // CHECK: relay.conv2d_nchwc: 2 group(s) of the data's 4 channel blocks need a weight of 2 input blocks and output blocks in multiples of 2, got tensor<3x2x3x3x16x16xf32>
  %0 = relay.conv2d_nchwc %x, %w {groups = 2 : i64} : (tensor<1x4x6x6x16xf32>, tensor<3x2x3x3x16x16xf32>)
  func.return
}

// -----

func.func @layout_ranks(%x: tensor<1x32x4xf32>) {
  // CHECK: relay.layout_transform: transforms between a plain layout and its blocked form (NCHW and NCHW<x>c), not NCW to NCHW16c
  %0 = relay.layout_transform %x {src_layout = "NCW", dst_layout = "NCHW16c"} : (tensor<1x32x4xf32>)
  func.return
}

// -----

func.func @layout_rank_of_data(%x: tensor<1x32x4x4xf32>) {
  // CHECK: relay.layout_transform: tensor<1x32x4x4xf32> is not NCDHW with channels divisible by 16
  %0 = relay.layout_transform %x {src_layout = "NCDHW", dst_layout = "NCDHW16c"} : (tensor<1x32x4x4xf32>)
  func.return
}

// -----

func.func @conv3d_rank(%x: tensor<1x2x6x6x16xf32>, %w: tensor<2x2x3x3x16x16xf32>) {
  // CHECK: relay.conv3d_ncdhwc: needs data [N, C/cb, D, H, W, cb] and weight [O/ob, C/cb, KD, KH, KW, cb, ob] with the same input blocking, got tensor<1x2x6x6x16xf32> and tensor<2x2x3x3x16x16xf32>
  %0 = relay.conv3d_ncdhwc %x, %w : (tensor<1x2x6x6x16xf32>, tensor<2x2x3x3x16x16xf32>)
  func.return
}

// -----

func.func @conv1d_window(%x: tensor<1x2x2x16xf32>, %w: tensor<2x2x3x16x16xf32>) {
  // CHECK: relay.conv1d_ncwc: the window (extent 3) is larger than the padded input (extent 2) along spatial axis 0
  %0 = relay.conv1d_ncwc %x, %w : (tensor<1x2x2x16xf32>, tensor<2x2x3x16x16xf32>)
  func.return
}
