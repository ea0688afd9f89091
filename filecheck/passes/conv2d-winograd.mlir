// conv2d-winograd: with conv2d-winograd.tile-size, every eligible conv2d (f32,
// one group, a constant 3x3 weight, unit strides and dilation) becomes
// Winograd's input transform, a batched matmul over the transformed weight
// (compile-time constant, in panels of B output channels) and the output
// transform, between NCHW<B>c layout transforms; other convolutions are left as
// they are. Without the option (and without tuning records choosing it)
// nothing changes. With conv2d-winograd.origins, what an eligible conv becomes
// is marked with its workload. Followed by alter-op-layout (and cse), the transforms
// cancel against those of a direct blocked convolution next to it.
// RUN: lamina-opt %s --split-input-file -p conv2d-winograd --pass-config conv2d-winograd.tile-size=4 | filecheck %s
// RUN: lamina-opt %s --split-input-file -p conv2d-winograd --pass-config conv2d-winograd.tile-size=4 --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: lamina-opt %s --split-input-file -p conv2d-winograd | filecheck %s --check-prefix=DEFAULT
// RUN: lamina-opt %s --split-input-file -p conv2d-winograd --codegen-target wasm32 | filecheck %s --check-prefix=WASM
// RUN: lamina-opt %s --split-input-file -p conv2d-winograd --pass-config conv2d-winograd.origins=true | filecheck %s --check-prefix=ORIGIN
// RUN: lamina-opt %s --split-input-file -p conv2d-winograd,alter-op-layout,cse --pass-config conv2d-winograd.tile-size=2 | filecheck %s --check-prefix=BLOCKED

// STATS: (S) 1 conv2d-winograd.rewritten - reported by the pass

// CHECK-LABEL: func.func @main(%x: tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32> {
// CHECK-NEXT:    %[[XB:.*]] = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW[[B:[0-9]+]]c"} : (tensor<1x32x7x7xf32>) -> tensor<1x[[N:[0-9]+]]x7x7x[[B]]xf32>
// CHECK-NEXT:    %[[T:.*]] = relay.constant dense_resource<winograd_bt4> : tensor<6x6xf32>
// CHECK-NEXT:    %[[V:.*]] = relay.winograd_input_transform %[[XB]], %[[T]] {tile_size = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x[[N]]x7x7x[[B]]xf32>, tensor<6x6xf32>) -> tensor<36x4x32xf32>
// CHECK-NEXT:    %[[U:.*]] = relay.constant dense_resource<w_winograd4> : tensor<[[N]]x36x32x[[B]]xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.matmul %[[V]], %[[U]] : (tensor<36x4x32xf32>, tensor<[[N]]x36x32x[[B]]xf32>) -> tensor<[[N]]x36x4x[[B]]xf32>
// CHECK-NEXT:    %[[A:.*]] = relay.constant dense_resource<winograd_at4> : tensor<4x6xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.winograd_output_transform %[[M]], %[[A]] {tile_size = 4 : i64, output_size = array<i64: 7, 7>} : (tensor<[[N]]x36x4x[[B]]xf32>, tensor<4x6xf32>) -> tensor<1x[[N]]x7x7x[[B]]xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.layout_transform %[[Y]] {src_layout = "NCHW[[B]]c", dst_layout = "NCHW"} : (tensor<1x[[N]]x7x7x[[B]]xf32>) -> tensor<1x32x7x7xf32>
// CHECK-NEXT:    %{{.*}} = relay.relu %[[R]] : tensor<1x32x7x7xf32>
// On a target without a fused multiply-add (WebAssembly), F(2x2, 3x3) by default:
// WASM-LABEL: func.func @main(%x: tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32> {
// WASM:         relay.winograd_input_transform {{.*}} {tile_size = 2 : i64
// WASM:         relay.winograd_output_transform {{.*}} {tile_size = 2 : i64
// DEFAULT-LABEL: func.func @main(%x: tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32> {
// DEFAULT-NEXT:    %w = relay.constant
// DEFAULT-NEXT:    %0 = relay.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>}
// ORIGIN:          relay.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, lamina.origin = "{{[0-9a-f]+}} conv2d 1x32x7x7 * 32x32x3x3 padding 1,1,1,1 f32"}
func.func @main(%x: tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32> {
  %w = relay.constant dense<0.5> : tensor<32x32x3x3xf32>
  %0 = relay.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x7x7xf32>, tensor<32x32x3x3xf32>)
  %1 = relay.relu %0 : tensor<1x32x7x7xf32>
  func.return %1 : tensor<1x32x7x7xf32>
}

// -----

// Not eligible: a stride, a dilation, groups, a 1x1 kernel, a weight that is
// not a constant.
// CHECK-LABEL: func.func @main(%x: tensor<1x32x9x9xf32>, %v: tensor<32x32x3x3xf32>)
// CHECK-NOT:     winograd
// CHECK:         func.return
// ORIGIN-LABEL: func.func @main(%x: tensor<1x32x9x9xf32>, %v: tensor<32x32x3x3xf32>)
// ORIGIN-NOT:    lamina.origin
// ORIGIN:        func.return
func.func @main(%x: tensor<1x32x9x9xf32>, %v: tensor<32x32x3x3xf32>) -> tensor<1x32x5x5xf32> {
  %w = relay.constant dense<0.5> : tensor<32x32x3x3xf32>
  %g = relay.constant dense<0.5> : tensor<32x1x3x3xf32>
  %p = relay.constant dense<0.5> : tensor<32x32x1x1xf32>
  %0 = relay.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x9x9xf32>, tensor<32x32x3x3xf32>)
  %1 = relay.conv2d %0, %w {dilation = array<i64: 2, 2>, padding = array<i64: 2, 2, 2, 2>} : (tensor<1x32x5x5xf32>, tensor<32x32x3x3xf32>)
  %2 = relay.conv2d %1, %g {groups = 32 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x5x5xf32>, tensor<32x1x3x3xf32>)
  %3 = relay.conv2d %2, %p : (tensor<1x32x5x5xf32>, tensor<32x32x1x1xf32>)
  %4 = relay.conv2d %3, %v {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x5x5xf32>, tensor<32x32x3x3xf32>)
  func.return %4 : tensor<1x32x5x5xf32>
}

// -----

// A Winograd conv (F(2x2, 3x3): B^T over the points 0, -1, 1 and infinity)
// after a direct one (5x5), a residual add: blocked from the first to the
// last, one transform in and one out.
// BLOCKED-LABEL: func.func @main(%x: tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32> {
// BLOCKED-NEXT:    %[[XB:.*]] = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW[[B:[0-9]+]]c"}
// BLOCKED:         %[[C:.*]] = relay.conv2d_nchwc
// BLOCKED-NEXT:    %[[R:.*]] = relay.relu %[[C]]
// BLOCKED-NEXT:    %[[T:.*]] = relay.constant dense<{{\[}}[1.000000e+00, 0.000000e+00, -1.000000e+00, 0.000000e+00], [0.000000e+00, -1.000000e+00, 1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00], [0.000000e+00, -1.000000e+00, 0.000000e+00, 1.000000e+00]]> : tensor<4x4xf32>
// BLOCKED-NEXT:    %[[V:.*]] = relay.winograd_input_transform %[[R]], %[[T]] {tile_size = 2 : i64, padding = array<i64: 1, 1, 1, 1>}
// BLOCKED:         %[[Y:.*]] = relay.winograd_output_transform
// BLOCKED-NEXT:    %[[S:.*]] = relay.add %[[Y]], %[[XB]]
// BLOCKED-NEXT:    %[[O:.*]] = relay.relu %[[S]]
// BLOCKED-NEXT:    %{{.*}} = relay.layout_transform %[[O]] {src_layout = "NCHW[[B]]c", dst_layout = "NCHW"}
// BLOCKED-NOT:     relay.layout_transform
func.func @main(%x: tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32> {
  %w = relay.constant dense<0.5> : tensor<32x32x5x5xf32>
  %v = relay.constant dense<0.25> : tensor<32x32x3x3xf32>
  %0 = relay.conv2d %x, %w {padding = array<i64: 2, 2, 2, 2>} : (tensor<1x32x6x6xf32>, tensor<32x32x5x5xf32>)
  %1 = relay.relu %0 : tensor<1x32x6x6xf32>
  %2 = relay.conv2d %1, %v {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x6x6xf32>, tensor<32x32x3x3xf32>)
  %3 = relay.add %2, %x : tensor<1x32x6x6xf32>
  %4 = relay.relu %3 : tensor<1x32x6x6xf32>
  func.return %4 : tensor<1x32x6x6xf32>
}
