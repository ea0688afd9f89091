// Invalid roi_align and deform_im2col ops, one per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @roi_rank(%x: tensor<4x10x12xf32>, %r: tensor<5x4xf32>, %i: tensor<5xi64>) {
  // CHECK: relay.roi_align: data must be 4-D (N, C, H, W), got tensor<4x10x12xf32>
  %0 = relay.roi_align %x, %r, %i {output_size = array<i64: 2, 2>} : (tensor<4x10x12xf32>, tensor<5x4xf32>, tensor<5xi64>)
  func.return
}

// -----

func.func @roi_box(%x: tensor<1x4x10x12xf32>, %r: tensor<5x5xf32>, %i: tensor<5xi64>) {
  // CHECK: relay.roi_align: rois must be (R, 4), got tensor<5x5xf32>
  %0 = relay.roi_align %x, %r, %i {output_size = array<i64: 2, 2>} : (tensor<1x4x10x12xf32>, tensor<5x5xf32>, tensor<5xi64>)
  func.return
}

// -----

func.func @roi_types(%x: tensor<1x4x10x12xf32>, %r: tensor<5x4xf64>, %i: tensor<5xi64>) {
  // CHECK: relay.roi_align: operands must share an element type, got f32, f64
  %0 = relay.roi_align %x, %r, %i {output_size = array<i64: 2, 2>} : (tensor<1x4x10x12xf32>, tensor<5x4xf64>, tensor<5xi64>)
  func.return
}

// -----

func.func @roi_indices(%x: tensor<1x4x10x12xf32>, %r: tensor<5x4xf32>, %i: tensor<4xi64>) {
  // CHECK: relay.roi_align: batch_indices must be (5) integers, one per region, got tensor<4xi64>
  %0 = relay.roi_align %x, %r, %i {output_size = array<i64: 2, 2>} : (tensor<1x4x10x12xf32>, tensor<5x4xf32>, tensor<4xi64>)
  func.return
}

// -----

func.func @roi_size(%x: tensor<1x4x10x12xf32>, %r: tensor<5x4xf32>, %i: tensor<5xi64>) {
  // CHECK: relay.roi_align: output_size [0, 2] must be positive
  %0 = relay.roi_align %x, %r, %i {output_size = array<i64: 0, 2>} : (tensor<1x4x10x12xf32>, tensor<5x4xf32>, tensor<5xi64>)
  func.return
}

// -----

func.func @roi_mode(%x: tensor<1x4x10x12xf32>, %r: tensor<5x4xf32>, %i: tensor<5xi64>) {
  // CHECK: relay.roi_align: mode must be one of avg, max, got "min"
  %0 = relay.roi_align %x, %r, %i {output_size = array<i64: 2, 2>, mode = "min"} : (tensor<1x4x10x12xf32>, tensor<5x4xf32>, tensor<5xi64>)
  func.return
}

// -----

func.func @roi_ratio(%x: tensor<1x4x10x12xf32>, %r: tensor<5x4xf32>, %i: tensor<5xi64>) {
  // CHECK: relay.roi_align: sampling_ratio must be >= 0, got -1
  %0 = relay.roi_align %x, %r, %i {output_size = array<i64: 2, 2>, sampling_ratio = -1 : i64} : (tensor<1x4x10x12xf32>, tensor<5x4xf32>, tensor<5xi64>)
  func.return
}

// -----

func.func @roi_scale(%x: tensor<1x4x10x12xf32>, %r: tensor<5x4xf32>, %i: tensor<5xi64>) {
  // CHECK: relay.roi_align: spatial_scale must be positive, got 0.0
  %0 = relay.roi_align %x, %r, %i {output_size = array<i64: 2, 2>, spatial_scale = 0.0 : f64} : (tensor<1x4x10x12xf32>, tensor<5x4xf32>, tensor<5xi64>)
  func.return
}

// -----

func.func @deform_offset_shape(%x: tensor<1x4x10x12xf32>, %o: tensor<1x9x10x12xf32>) {
  // CHECK: relay.deform_im2col: offset tensor<1x9x10x12xf32> must have shape [1, 18, 8, 10] (batch, offset groups x taps x spatial axes, the output positions)
  %0 = relay.deform_im2col %x, %o {kernel_size = array<i64: 3, 3>} : (tensor<1x4x10x12xf32>, tensor<1x9x10x12xf32>)
  func.return
}

// -----

func.func @deform_mask_shape(%x: tensor<1x4x10x12xf32>, %o: tensor<1x18x8x10xf32>, %m: tensor<1x18x8x10xf32>) {
  // CHECK: relay.deform_im2col: mask tensor<1x18x8x10xf32> must have shape [1, 9, 8, 10] (batch, offset groups x taps, the output positions)
  %0 = relay.deform_im2col %x, %o, %m {kernel_size = array<i64: 3, 3>} : (tensor<1x4x10x12xf32>, tensor<1x18x8x10xf32>, tensor<1x18x8x10xf32>)
  func.return
}

// -----

func.func @deform_groups(%x: tensor<1x4x10x12xf32>, %o: tensor<1x54x8x10xf32>) {
  // CHECK: relay.deform_im2col: offset_groups (3) must be positive and divide the 4 channels
  %0 = relay.deform_im2col %x, %o {kernel_size = array<i64: 3, 3>, offset_groups = 3 : i64} : (tensor<1x4x10x12xf32>, tensor<1x54x8x10xf32>)
  func.return
}

// -----

func.func @deform_integer(%x: tensor<1x4x10x12xi32>, %o: tensor<1x18x8x10xi32>) {
  // CHECK: relay.deform_im2col: needs floating-point tensors, got tensor<1x4x10x12xi32>
  %0 = relay.deform_im2col %x, %o {kernel_size = array<i64: 3, 3>} : (tensor<1x4x10x12xi32>, tensor<1x18x8x10xi32>)
  func.return
}

// -----

func.func @deform_offset_type(%x: tensor<1x4x10x12xf32>, %o: tensor<1x18x8x10xf64>) {
  // CHECK: relay.deform_im2col: operands must share an element type, got f32, f64
  %0 = relay.deform_im2col %x, %o {kernel_size = array<i64: 3, 3>} : (tensor<1x4x10x12xf32>, tensor<1x18x8x10xf64>)
  func.return
}

// -----

func.func @deform_kernel(%x: tensor<1x4x10x12xf32>, %o: tensor<1x18x8x10xf32>) {
  // CHECK: relay.deform_im2col: kernel_size needs 2 values (one per spatial axis), got [3]
  %0 = relay.deform_im2col %x, %o {kernel_size = array<i64: 3>} : (tensor<1x4x10x12xf32>, tensor<1x18x8x10xf32>)
  func.return
}

// -----

func.func @deform_window(%x: tensor<1x4x2x12xf32>, %o: tensor<1x18x8x10xf32>) {
  // CHECK: relay.deform_im2col: the window (extent 3) is larger than the padded input (extent 2) along spatial axis 0
  %0 = relay.deform_im2col %x, %o {kernel_size = array<i64: 3, 3>} : (tensor<1x4x2x12xf32>, tensor<1x18x8x10xf32>)
  func.return
}
