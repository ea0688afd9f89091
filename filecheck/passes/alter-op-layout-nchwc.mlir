// alter-op-layout, blocked layouts: a conv2d with one group, a constant weight and
// channels divisible by the host's f32 lanes B becomes relay.conv2d_nchwc over an
// NCHW<B>c input (weight packed at compile time, padding as a relay.pad of the
// blocked input) between two relay.layout_transforms. The transforms then move
// out through elementwise ops (a per-channel bias is re-laid out at compile time,
// another NCHW operand gets its own transform) until inverse pairs cancel: one
// transform in per graph input, one out. 32 channels divide on every x86 host.
// RUN: lamina-opt %s --split-input-file -p alter-op-layout | filecheck %s
// RUN: lamina-opt %s --split-input-file -p alter-op-layout --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// STATS: (S) 2 alter-op-layout.conv2d-nchwc - reported by the pass
// STATS: (S) 5 alter-op-layout.transforms-moved - reported by the pass

// CHECK-LABEL: func.func @main(%x: tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32> {
// CHECK-NEXT:    %[[XB:.*]] = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW[[B:[0-9]+]]c"} : (tensor<1x32x6x6xf32>) -> tensor<1x[[N:[0-9]+]]x6x6x[[B]]xf32>
// CHECK-NEXT:    %[[P:.*]] = relay.pad %[[XB]] {pad_width = array<i64: 0, 0, 1, 1, 0, 0, 0, 1, 1, 0>} : (tensor<1x[[N]]x6x6x[[B]]xf32>) -> tensor<1x[[N]]x8x8x[[B]]xf32>
// CHECK-NEXT:    %[[W1:.*]] = relay.constant dense<5.000000e-01> : tensor<[[N]]x[[N]]x3x3x[[B]]x[[B]]xf32>
// CHECK-NEXT:    %[[C1:.*]] = relay.conv2d_nchwc %[[P]], %[[W1]] : (tensor<1x[[N]]x8x8x[[B]]xf32>, tensor<[[N]]x[[N]]x3x3x[[B]]x[[B]]xf32>) -> tensor<1x[[N]]x6x6x[[B]]xf32>
// CHECK-NEXT:    %[[BIAS:.*]] = relay.constant dense<2.500000e-01> : tensor<1x[[N]]x1x1x[[B]]xf32>
// CHECK-NEXT:    %[[A1:.*]] = relay.add %[[C1]], %[[BIAS]] : (tensor<1x[[N]]x6x6x[[B]]xf32>, tensor<1x[[N]]x1x1x[[B]]xf32>) -> tensor<1x[[N]]x6x6x[[B]]xf32>
// CHECK-NEXT:    %[[R1:.*]] = relay.relu %[[A1]] : tensor<1x[[N]]x6x6x[[B]]xf32>
// CHECK-NEXT:    %[[W2:.*]] = relay.constant dense<1.250000e-01> : tensor<[[N]]x[[N]]x1x1x[[B]]x[[B]]xf32>
// CHECK-NEXT:    %[[C2:.*]] = relay.conv2d_nchwc %[[R1]], %[[W2]] : (tensor<1x[[N]]x6x6x[[B]]xf32>, tensor<[[N]]x[[N]]x1x1x[[B]]x[[B]]xf32>) -> tensor<1x[[N]]x6x6x[[B]]xf32>
// CHECK-NEXT:    %[[XB2:.*]] = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW[[B]]c"}
// CHECK-NEXT:    %[[A2:.*]] = relay.add %[[C2]], %[[XB2]] : tensor<1x[[N]]x6x6x[[B]]xf32>
// CHECK-NEXT:    %[[R2:.*]] = relay.relu %[[A2]] : tensor<1x[[N]]x6x6x[[B]]xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.layout_transform %[[R2]] {src_layout = "NCHW[[B]]c", dst_layout = "NCHW"} : (tensor<1x[[N]]x6x6x[[B]]xf32>) -> tensor<1x32x6x6xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x32x6x6xf32>
func.func @main(%x: tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32> {
  %w1 = relay.constant dense<0.5> : tensor<32x32x3x3xf32>
  %b1 = relay.constant dense<0.25> : tensor<1x32x1x1xf32>
  %w2 = relay.constant dense<0.125> : tensor<32x32x1x1xf32>
  %0 = relay.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x6x6xf32>, tensor<32x32x3x3xf32>)
  %1 = relay.add %0, %b1 : (tensor<1x32x6x6xf32>, tensor<1x32x1x1xf32>)
  %2 = relay.relu %1 : tensor<1x32x6x6xf32>
  %3 = relay.conv2d %2, %w2 : (tensor<1x32x6x6xf32>, tensor<32x32x1x1xf32>)
  %4 = relay.add %3, %x : tensor<1x32x6x6xf32>
  %5 = relay.relu %4 : tensor<1x32x6x6xf32>
  func.return %5 : tensor<1x32x6x6xf32>
}

// -----

// An op tied to axis positions (a softmax over the channels) keeps NCHW: the
// transform back stays in front of it. A stride and a dilation pass through.
// CHECK-LABEL: func.func @main(%x: tensor<1x32x9x9xf32>) -> tensor<1x32x3x3xf32> {
// CHECK:         %[[C:.*]] = relay.conv2d_nchwc %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>, dilation = array<i64: 2, 2>}
// CHECK-NEXT:    %[[T:.*]] = relay.layout_transform %[[C]] {src_layout = "NCHW{{[0-9]+}}c", dst_layout = "NCHW"}
// CHECK-NEXT:    %{{.*}} = relay.softmax %[[T]] {axis = 1 : i64}
func.func @main(%x: tensor<1x32x9x9xf32>) -> tensor<1x32x3x3xf32> {
  %w = relay.constant dense<0.5> : tensor<32x32x3x3xf32>
  %0 = relay.conv2d %x, %w {strides = array<i64: 2, 2>, dilation = array<i64: 2, 2>} : (tensor<1x32x9x9xf32>, tensor<32x32x3x3xf32>)
  %1 = relay.softmax %0 {axis = 1 : i64} : tensor<1x32x3x3xf32>
  func.return %1 : tensor<1x32x3x3xf32>
}

// -----

// A concatenation along the channels of operands that fill whole channel blocks
// joins the blocks (axis 1 of NCHW<B>c): the branches stay blocked, and so do the
// ops after it, down to the next convolution.
// CHECK-LABEL: func.func @main(%x: tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32> {
// CHECK-NOT:     dst_layout = "NCHW"}
// CHECK:         %[[C1:.*]] = relay.conv2d_nchwc
// CHECK-NOT:     dst_layout = "NCHW"}
// CHECK:         %[[C2:.*]] = relay.conv2d_nchwc
// CHECK-NOT:     dst_layout = "NCHW"}
// CHECK:         %[[CAT:.*]] = relay.concatenate %[[C1]], %[[C2]] {axis = 1 : i64} : (tensor<1x[[N:[0-9]+]]x6x6x[[B:[0-9]+]]xf32>, tensor<1x[[N]]x6x6x[[B]]xf32>)
// CHECK-NEXT:    %[[R:.*]] = relay.relu %[[CAT]]
// CHECK-NEXT:    %{{.*}} = relay.constant
// CHECK-NEXT:    %{{.*}} = relay.conv2d_nchwc %[[R]]
// CHECK-NEXT:    %{{.*}} = relay.layout_transform %{{.*}} {src_layout = "NCHW[[B]]c", dst_layout = "NCHW"}
func.func @main(%x: tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32> {
  %w1 = relay.constant dense<0.5> : tensor<32x32x3x3xf32>
  %w2 = relay.constant dense<0.25> : tensor<32x32x3x3xf32>
  %w3 = relay.constant dense<0.125> : tensor<32x64x1x1xf32>
  %0 = relay.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x6x6xf32>, tensor<32x32x3x3xf32>)
  %1 = relay.conv2d %x, %w2 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x6x6xf32>, tensor<32x32x3x3xf32>)
  %2 = relay.concatenate %0, %1 {axis = 1 : i64} : (tensor<1x32x6x6xf32>, tensor<1x32x6x6xf32>)
  %3 = relay.relu %2 : tensor<1x64x6x6xf32>
  %4 = relay.conv2d %3, %w3 : (tensor<1x64x6x6xf32>, tensor<32x64x1x1xf32>)
  func.return %4 : tensor<1x32x6x6xf32>
}

// -----

// An operand whose channels do not fill whole blocks (3 of them) keeps the
// concatenation in NCHW: the convolution's result is transformed back before it.
// CHECK-LABEL: func.func @main(%x: tensor<1x32x6x6xf32>, %s: tensor<1x3x6x6xf32>) -> tensor<1x35x6x6xf32> {
// CHECK:         %[[C:.*]] = relay.conv2d_nchwc
// CHECK-NEXT:    %[[T:.*]] = relay.layout_transform %[[C]] {src_layout = "NCHW{{[0-9]+}}c", dst_layout = "NCHW"}
// CHECK-NEXT:    %{{.*}} = relay.concatenate %[[T]], %s {axis = 1 : i64} : (tensor<1x32x6x6xf32>, tensor<1x3x6x6xf32>) -> tensor<1x35x6x6xf32>
func.func @main(%x: tensor<1x32x6x6xf32>, %s: tensor<1x3x6x6xf32>) -> tensor<1x35x6x6xf32> {
  %w = relay.constant dense<0.5> : tensor<32x32x3x3xf32>
  %0 = relay.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x6x6xf32>, tensor<32x32x3x3xf32>)
  %1 = relay.concatenate %0, %s {axis = 1 : i64} : (tensor<1x32x6x6xf32>, tensor<1x3x6x6xf32>)
  func.return %1 : tensor<1x35x6x6xf32>
}

// -----

// Unit-stride slices and concatenations along the spatial axes (every channel
// kept) are the same ranges of the blocked tensor's axes 2 and 3.
// CHECK-LABEL: func.func @main(%x: tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32> {
// CHECK:         %[[C:.*]] = relay.conv2d_nchwc
// CHECK-NEXT:    %[[T:.*]] = relay.strided_slice %[[C]] {begin = array<i64: 0, 0, 0, 0, 0>, end = array<i64: 1, [[N:[0-9]+]], 2, 6, [[B:[0-9]+]]>}
// CHECK-NEXT:    %[[R:.*]] = relay.relu %[[T]] : tensor<1x[[N]]x2x6x[[B]]xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.strided_slice %[[C]] {begin = array<i64: 0, 0, 2, 0, 0>, end = array<i64: 1, [[N]], 6, 6, [[B]]>}
// CHECK-NEXT:    %[[CAT:.*]] = relay.concatenate %[[R]], %[[S]] {axis = 2 : i64} : (tensor<1x[[N]]x2x6x[[B]]xf32>, tensor<1x[[N]]x4x6x[[B]]xf32>) -> tensor<1x[[N]]x6x6x[[B]]xf32>
// CHECK-NEXT:    %{{.*}} = relay.constant
// CHECK-NEXT:    %{{.*}} = relay.conv2d_nchwc %[[CAT]]
func.func @main(%x: tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32> {
  %w = relay.constant dense<0.5> : tensor<32x32x3x3xf32>
  %w2 = relay.constant dense<0.25> : tensor<32x32x1x1xf32>
  %0 = relay.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x6x6xf32>, tensor<32x32x3x3xf32>)
  %1 = relay.strided_slice %0 {begin = array<i64: 0, 0, 0, 0>, end = array<i64: 1, 32, 2, 6>} : (tensor<1x32x6x6xf32>) -> tensor<1x32x2x6xf32>
  %2 = relay.relu %1 : tensor<1x32x2x6xf32>
  %3 = relay.strided_slice %0 {begin = array<i64: 0, 0, 2, 0>, end = array<i64: 1, 32, 6, 6>} : (tensor<1x32x6x6xf32>) -> tensor<1x32x4x6xf32>
  %4 = relay.concatenate %2, %3 {axis = 2 : i64} : (tensor<1x32x2x6xf32>, tensor<1x32x4x6xf32>)
  %5 = relay.conv2d %4, %w2 : (tensor<1x32x6x6xf32>, tensor<32x32x1x1xf32>)
  func.return %5 : tensor<1x32x6x6xf32>
}
