// Round trip of relay.roi_align (regions pooled from bilinear samples) and
// relay.deform_im2col (deformable convolution columns): custom form, and
// generic form re-parsed.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// roi_align with its defaults and with every property; deform_im2col with and
// without a mask (offset groups, padding), and over one spatial axis (strides,
// dilation).
// CHECK-LABEL: func.func @roi_deform(%x: tensor<2x4x10x12xf32>, %rois: tensor<5x4xf32>, %idx: tensor<5xi64>, %off: tensor<2x36x10x12xf32>, %mask: tensor<2x18x10x12xf32>, %v: tensor<1x6x9xf64>, %o1: tensor<1x2x4xf64>) -> (tensor<5x4x7x7xf32>, tensor<5x4x2x3xf32>, tensor<2x36x10x12xf32>, tensor<2x36x10x12xf32>, tensor<1x12x4xf64>) {
// CHECK-NEXT:    %0 = relay.roi_align %x, %rois, %idx {output_size = array<i64: 7, 7>} : (tensor<2x4x10x12xf32>, tensor<5x4xf32>, tensor<5xi64>) -> tensor<5x4x7x7xf32>
// CHECK-NEXT:    %1 = relay.roi_align %x, %rois, %idx {output_size = array<i64: 2, 3>, spatial_scale = 6.250000e-02 : f64, sampling_ratio = 2 : i64, mode = "max", aligned} : (tensor<2x4x10x12xf32>, tensor<5x4xf32>, tensor<5xi64>) -> tensor<5x4x2x3xf32>
// CHECK-NEXT:    %2 = relay.deform_im2col %x, %off {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, offset_groups = 2 : i64} : (tensor<2x4x10x12xf32>, tensor<2x36x10x12xf32>) -> tensor<2x36x10x12xf32>
// CHECK-NEXT:    %3 = relay.deform_im2col %x, %off, %mask {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, offset_groups = 2 : i64} : (tensor<2x4x10x12xf32>, tensor<2x36x10x12xf32>, tensor<2x18x10x12xf32>) -> tensor<2x36x10x12xf32>
// CHECK-NEXT:    %4 = relay.deform_im2col %v, %o1 {kernel_size = array<i64: 2>, strides = array<i64: 2>, dilation = array<i64: 2>} : (tensor<1x6x9xf64>, tensor<1x2x4xf64>) -> tensor<1x12x4xf64>
// CHECK-NEXT:    func.return %0, %1, %2, %3, %4 : tensor<5x4x7x7xf32>, tensor<5x4x2x3xf32>, tensor<2x36x10x12xf32>, tensor<2x36x10x12xf32>, tensor<1x12x4xf64>
// GENERIC:       %0 = "relay.roi_align"(%x, %rois, %idx) <{output_size = array<i64: 7, 7>}> : (tensor<2x4x10x12xf32>, tensor<5x4xf32>, tensor<5xi64>) -> tensor<5x4x7x7xf32>
// GENERIC-NEXT:  %1 = "relay.roi_align"(%x, %rois, %idx) <{output_size = array<i64: 2, 3>, spatial_scale = 6.250000e-02 : f64, sampling_ratio = 2 : i64, mode = "max", aligned}> : (tensor<2x4x10x12xf32>, tensor<5x4xf32>, tensor<5xi64>) -> tensor<5x4x2x3xf32>
// GENERIC-NEXT:  %2 = "relay.deform_im2col"(%x, %off) <{kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, offset_groups = 2 : i64}> : (tensor<2x4x10x12xf32>, tensor<2x36x10x12xf32>) -> tensor<2x36x10x12xf32>
// GENERIC-NEXT:  %3 = "relay.deform_im2col"(%x, %off, %mask) <{kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, offset_groups = 2 : i64}> : (tensor<2x4x10x12xf32>, tensor<2x36x10x12xf32>, tensor<2x18x10x12xf32>) -> tensor<2x36x10x12xf32>
// GENERIC-NEXT:  %4 = "relay.deform_im2col"(%v, %o1) <{kernel_size = array<i64: 2>, strides = array<i64: 2>, dilation = array<i64: 2>}> : (tensor<1x6x9xf64>, tensor<1x2x4xf64>) -> tensor<1x12x4xf64>
func.func @roi_deform(%x: tensor<2x4x10x12xf32>, %rois: tensor<5x4xf32>, %idx: tensor<5xi64>, %off: tensor<2x36x10x12xf32>, %mask: tensor<2x18x10x12xf32>, %v: tensor<1x6x9xf64>, %o1: tensor<1x2x4xf64>) -> (tensor<5x4x7x7xf32>, tensor<5x4x2x3xf32>, tensor<2x36x10x12xf32>, tensor<2x36x10x12xf32>, tensor<1x12x4xf64>) {
  %0 = relay.roi_align %x, %rois, %idx {output_size = array<i64: 7, 7>} : (tensor<2x4x10x12xf32>, tensor<5x4xf32>, tensor<5xi64>)
  %1 = relay.roi_align %x, %rois, %idx {output_size = array<i64: 2, 3>, spatial_scale = 6.250000e-02 : f64, sampling_ratio = 2 : i64, mode = "max", aligned} : (tensor<2x4x10x12xf32>, tensor<5x4xf32>, tensor<5xi64>)
  %2 = relay.deform_im2col %x, %off {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, offset_groups = 2 : i64} : (tensor<2x4x10x12xf32>, tensor<2x36x10x12xf32>)
  %3 = relay.deform_im2col %x, %off, %mask {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, offset_groups = 2 : i64} : (tensor<2x4x10x12xf32>, tensor<2x36x10x12xf32>, tensor<2x18x10x12xf32>)
  %4 = relay.deform_im2col %v, %o1 {kernel_size = array<i64: 2>, strides = array<i64: 2>, dilation = array<i64: 2>} : (tensor<1x6x9xf64>, tensor<1x2x4xf64>)
  func.return %0, %1, %2, %3, %4 : tensor<5x4x7x7xf32>, tensor<5x4x2x3xf32>, tensor<2x36x10x12xf32>, tensor<2x36x10x12xf32>, tensor<1x12x4xf64>
}
