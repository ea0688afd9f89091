// alter-op-layout, sliding windows in the blocked layout: a depthwise conv2d and
// a float max pool whose input arrives blocked become relay.depthwise_conv2d_nchwc
// and relay.max_pool2d_nchwc (the weight re-laid out [C/x, KH, KW, x] at compile
// time, the padding kept on the op, a pool's ceil_mode tail as end padding), so
// a stem -> pool -> depthwise -> pointwise -> residual chain stays blocked: the
// image's 3 channels are one block (NCHW3c), 24 channels take a block of half
// the lanes or less. A reduction over the spatial axes that keeps them (squeeze
// and excitation) is computed blocked, and its scale brought back in through a
// transform of the small [N, C, 1, 1] tensor.
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' --split-input-file -p alter-op-layout | filecheck %s
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' --split-input-file -p alter-op-layout --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// STATS: (S) 2 alter-op-layout.conv2d-nchwc - reported by the pass
// STATS: (S) 1 alter-op-layout.max-pool-nchwc - reported by the pass
// STATS: (S) 1 alter-op-layout.depthwise-nchwc - reported by the pass
// STATS: (S) 2 alter-op-layout.conv2d-nchwc - reported by the pass

// CHECK-LABEL: func.func @main(%x: tensor<2x3x18x18xf32>) -> tensor<2x24x5x5xf32> {
// CHECK-NEXT:    %[[X:.*]] = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW3c"} : (tensor<2x3x18x18xf32>) -> tensor<2x1x18x18x3xf32>
// CHECK-NEXT:    %[[P:.*]] = relay.pad %[[X]] {pad_width = array<i64: 0, 0, 1, 1, 0, 0, 0, 1, 1, 0>}
// CHECK-NEXT:    %[[W0:.*]] = relay.constant dense<5.000000e-01> : tensor<[[N:[0-9]+]]x1x3x3x3x[[B:[0-9]+]]xf32>
// CHECK-NEXT:    %[[C0:.*]] = relay.conv2d_nchwc %[[P]], %[[W0]] {strides = array<i64: 2, 2>} : (tensor<2x1x20x20x3xf32>, tensor<[[N]]x1x3x3x3x[[B]]xf32>) -> tensor<2x[[N]]x9x9x[[B]]xf32>
// CHECK-NEXT:    %[[R0:.*]] = relay.clip %[[C0]]
// CHECK-NEXT:    %[[M:.*]] = relay.max_pool2d_nchwc %[[R0]] {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x[[N]]x9x9x[[B]]xf32>) -> tensor<2x[[N]]x5x5x[[B]]xf32>
// CHECK-NEXT:    %[[W1:.*]] = relay.constant dense<2.500000e-01> : tensor<[[N]]x3x3x[[B]]xf32>
// CHECK-NEXT:    %[[D:.*]] = relay.depthwise_conv2d_nchwc %[[M]], %[[W1]] {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x[[N]]x5x5x[[B]]xf32>, tensor<[[N]]x3x3x[[B]]xf32>) -> tensor<2x[[N]]x5x5x[[B]]xf32>
// CHECK-NEXT:    %[[R1:.*]] = relay.clip %[[D]]
// CHECK-NEXT:    %[[W2:.*]] = relay.constant dense<1.250000e-01> : tensor<[[N]]x[[N]]x1x1x[[B]]x[[B]]xf32>
// CHECK-NEXT:    %[[C2:.*]] = relay.conv2d_nchwc %[[R1]], %[[W2]]
// CHECK-NEXT:    %[[A:.*]] = relay.add %[[C2]], %[[M]] : tensor<2x[[N]]x5x5x[[B]]xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.layout_transform %[[A]] {src_layout = "NCHW[[B]]c", dst_layout = "NCHW"} : (tensor<2x[[N]]x5x5x[[B]]xf32>) -> tensor<2x24x5x5xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x24x5x5xf32>
func.func @main(%x: tensor<2x3x18x18xf32>) -> tensor<2x24x5x5xf32> {
  %w0 = relay.constant dense<0.5> : tensor<24x3x3x3xf32>
  %w1 = relay.constant dense<0.25> : tensor<24x1x3x3xf32>
  %w2 = relay.constant dense<0.125> : tensor<24x24x1x1xf32>
  %0 = relay.conv2d %x, %w0 {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x3x18x18xf32>, tensor<24x3x3x3xf32>)
  %1 = relay.clip %0 {a_min = 0.0 : f64, a_max = 6.0 : f64} : tensor<2x24x9x9xf32>
  %2 = relay.max_pool2d %1 {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>, ceil_mode} : (tensor<2x24x9x9xf32>)
  %3 = relay.conv2d %2, %w1 {padding = array<i64: 1, 1, 1, 1>, groups = 24 : i64} : (tensor<2x24x5x5xf32>, tensor<24x1x3x3xf32>)
  %4 = relay.clip %3 {a_min = 0.0 : f64, a_max = 6.0 : f64} : tensor<2x24x5x5xf32>
  %5 = relay.conv2d %4, %w2 : (tensor<2x24x5x5xf32>, tensor<24x24x1x1xf32>)
  %6 = relay.add %5, %2 : tensor<2x24x5x5xf32>
  func.return %6 : tensor<2x24x5x5xf32>
}

// -----

// CHECK-LABEL: func.func @main(%x: tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32> {
// CHECK:         %[[C:.*]] = relay.conv2d_nchwc
// CHECK-NEXT:    %[[M:.*]] = relay.mean %[[C]] {axes = array<i64: 2, 3>, keepdims} : (tensor<2x[[N:[0-9]+]]x8x8x[[B:[0-9]+]]xf32>) -> tensor<2x[[N]]x1x1x[[B]]xf32>
// CHECK-NEXT:    %{{.*}} = relay.layout_transform %[[M]] {src_layout = "NCHW[[B]]c", dst_layout = "NCHW"} : (tensor<2x[[N]]x1x1x[[B]]xf32>) -> tensor<2x32x1x1xf32>
// CHECK:         %[[S:.*]] = relay.sigmoid %{{.*}} : tensor<2x[[N]]x1x1x[[B]]xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.multiply %[[C]], %[[S]] : (tensor<2x[[N]]x8x8x[[B]]xf32>, tensor<2x[[N]]x1x1x[[B]]xf32>) -> tensor<2x[[N]]x8x8x[[B]]xf32>
// CHECK-NEXT:    %{{.*}} = relay.layout_transform %[[Y]] {src_layout = "NCHW[[B]]c", dst_layout = "NCHW"}
// CHECK-NEXT:    func.return
func.func @main(%x: tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32> {
  %w0 = relay.constant dense<0.5> : tensor<32x32x3x3xf32>
  %w1 = relay.constant dense<0.25> : tensor<4x32x1x1xf32>
  %w2 = relay.constant dense<0.125> : tensor<32x4x1x1xf32>
  %0 = relay.conv2d %x, %w0 {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x32x8x8xf32>, tensor<32x32x3x3xf32>)
  %1 = relay.mean %0 {axes = array<i64: -1, -2>, keepdims} : (tensor<2x32x8x8xf32>)
  %2 = relay.conv2d %1, %w1 : (tensor<2x32x1x1xf32>, tensor<4x32x1x1xf32>)
  %3 = relay.relu %2 : tensor<2x4x1x1xf32>
  %4 = relay.conv2d %3, %w2 : (tensor<2x4x1x1xf32>, tensor<32x4x1x1xf32>)
  %5 = relay.sigmoid %4 : tensor<2x32x1x1xf32>
  %6 = relay.multiply %0, %5 : (tensor<2x32x8x8xf32>, tensor<2x32x1x1xf32>)
  func.return %6 : tensor<2x32x8x8xf32>
}

// -----

// A mean that drops the spatial axes keeps NCHW: the transform back stays
// in front of it.
// CHECK-LABEL: func.func @main(%x: tensor<1x32x6x6xf32>) -> tensor<1x32xf32> {
// CHECK:         %[[T:.*]] = relay.layout_transform %{{.*}} {src_layout = "NCHW{{[0-9]+}}c", dst_layout = "NCHW"}
// CHECK-NEXT:    %{{.*}} = relay.mean %[[T]] {axes = array<i64: 2, 3>}
func.func @main(%x: tensor<1x32x6x6xf32>) -> tensor<1x32xf32> {
  %w = relay.constant dense<0.5> : tensor<32x32x3x3xf32>
  %0 = relay.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x6x6xf32>, tensor<32x32x3x3xf32>)
  %1 = relay.mean %0 {axes = array<i64: 2, 3>} : (tensor<1x32x6x6xf32>)
  func.return %1 : tensor<1x32xf32>
}
