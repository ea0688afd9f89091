// lower-relay-to-te of the blocked sliding windows: relay.depthwise_conv2d_nchwc
// is a sum over the window's taps of the input (read at a clamped position,
// zero where the position is in the padding) times the channel's weight;
// relay.max_pool2d_nchwc the max of the same reads, -inf in the
// padding. Both get the window_nchwc schedule: output columns tiled and
// unrolled, the window's columns unrolled, the channel block in vector lanes,
// the accumulators cached across the taps.
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' -p lower-relay-to-te | filecheck %s

// CHECK-LABEL: te.func @depthwise_conv2d_nchwc {
// CHECK-NEXT:    %[[X:.*]] = te.placeholder "in0" : tensor<1x2x9x9x16xf32>
// CHECK-NEXT:    %[[W:.*]] = te.placeholder "in1" : tensor<2x3x3x16xf32>
// CHECK-NEXT:    %{{.*}} = te.compute (%[[N:.*]], %[[C:.*]], %{{.*}}, %{{.*}}, %[[B:.*]]) reduce sum (%[[KH:.*]], %[[KW:.*]]) [3, 3] attributes {schedule = "split(i3, 5); reorder(i0, i1, i2, i3.o, r0, r1, i3.i, i4); {{.*}} unroll(r1); unroll(i3.i); vectorize(i4)"} : tensor<1x2x5x5x16xf32> {
// CHECK:           %[[IN:.*]] = te.read %[[X]][%[[N]], %[[C]], %{{.*}}, %{{.*}}, %[[B]]] : tensor<1x2x9x9x16xf32>
// CHECK:           %[[V:.*]] = arith.select %{{.*}}, %[[IN]], %{{.*}} : f32
// CHECK-NEXT:      %[[WV:.*]] = te.read %[[W]][%[[C]], %[[KH]], %[[KW]], %[[B]]] : tensor<2x3x3x16xf32>
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[V]], %[[WV]] : f32
// CHECK-NEXT:      te.yield %[[P]] : f32

// CHECK-LABEL: te.func @max_pool2d_nchwc {
// CHECK-NEXT:    %[[X:.*]] = te.placeholder "in0" : tensor<1x2x9x9x16xf32>
// CHECK-NEXT:    %{{.*}} = te.compute (%[[N:.*]], %[[C:.*]], %{{.*}}, %{{.*}}, %[[B:.*]]) reduce max (%{{.*}}, %{{.*}}) [3, 3] attributes {schedule = "split(i3, 5); reorder(i0, i1, i2, i3.o, r0, r1, i3.i, i4); {{.*}} vectorize(i4)"} : tensor<1x2x5x5x16xf32> {
// CHECK:           %[[IN:.*]] = te.read %[[X]][%[[N]], %[[C]], %{{.*}}, %{{.*}}, %[[B]]] : tensor<1x2x9x9x16xf32>
// CHECK:           %[[LOW:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:      %[[V:.*]] = arith.select %{{.*}}, %[[IN]], %[[LOW]] : f32
// CHECK-NEXT:      te.yield %[[V]] : f32
func.func @main(%x: tensor<1x2x9x9x16xf32>, %w: tensor<2x3x3x16xf32>) -> (tensor<1x2x5x5x16xf32>, tensor<1x2x5x5x16xf32>) {
  %0 = relay.depthwise_conv2d_nchwc %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x9x9x16xf32>, tensor<2x3x3x16xf32>)
  %1 = relay.max_pool2d_nchwc %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x9x9x16xf32>)
  func.return %0, %1 : tensor<1x2x5x5x16xf32>, tensor<1x2x5x5x16xf32>
}
