// conv-phases: a 1-D or 3-D convolution strided along its last axis, with a
// kernel there a multiple of the stride, becomes a unit-stride one over its
// input's phases: the input padded to M * s (here M = 4 + 2 - 1 = 5, s = 2:
// 10 = 1 + 9 + 0 with one column cropped), reshaped to [.., M, s], the phase
// axis moved next to the channels, and the channels x s convolved with the
// weight rearranged at compile time (kernel 4 -> 2). A kernel that is not a
// multiple of the stride, a dilated last axis, a weight that is not a constant
// and a 2-D convolution (alter-op-layout's blocked layout) are left alone.
// RUN: lamina-opt %s --split-input-file -p conv-phases | filecheck %s
// RUN: lamina-opt %s --split-input-file -p conv-phases --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// STATS:      (S) 1 conv-phases.rewritten - reported by the pass
// STATS:      (S) 1 conv-phases.padded - reported by the pass
// STATS:      (S) 1 conv-phases.rewritten - reported by the pass
// STATS-NOT:  conv-phases.

// CHECK-LABEL: func.func @one_d(%x: tensor<1x3x9xf32>) -> tensor<1x4x4xf32> {
// CHECK-NEXT:    %[[P:.*]] = relay.pad %x {pad_width = array<i64: 0, 0, 1, 0, 0, 0>} : (tensor<1x3x9xf32>) -> tensor<1x3x10xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %[[P]] {shape = array<i64: 1, 3, 5, 2>} : (tensor<1x3x10xf32>) -> tensor<1x3x5x2xf32>
// CHECK-NEXT:    %[[T:.*]] = relay.transpose %[[R]] {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x3x5x2xf32>) -> tensor<1x3x2x5xf32>
// CHECK-NEXT:    %[[X:.*]] = relay.reshape %[[T]] {shape = array<i64: 1, 6, 5>} : (tensor<1x3x2x5xf32>) -> tensor<1x6x5xf32>
// CHECK-NEXT:    %[[W:.*]] = relay.constant {{.*}} : tensor<4x6x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.conv1d %[[X]], %[[W]] {strides = array<i64: 1>, dilation = array<i64: 1>, padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x6x5xf32>, tensor<4x6x2xf32>) -> tensor<1x4x4xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x4x4xf32>
func.func @one_d(%x: tensor<1x3x9xf32>) -> tensor<1x4x4xf32> {
  %w = relay.constant dense<0.5> : tensor<4x3x4xf32>
  %0 = relay.conv1d %x, %w {strides = array<i64: 2>, padding = array<i64: 1, 1>} : (tensor<1x3x9xf32>, tensor<4x3x4xf32>) -> tensor<1x4x4xf32>
  func.return %0 : tensor<1x4x4xf32>
}

// -----

// Kernel 3, stride 2, padded (Whisper's second conv): not a multiple of the
// stride, so only its padding moves into a relay.pad before it.
// CHECK-LABEL: func.func @padded_apart(
// CHECK-NEXT:    %w = relay.constant
// CHECK-NEXT:    %[[P:.*]] = relay.pad %x {pad_width = array<i64: 0, 0, 1, 0, 0, 1>} : (tensor<1x3x9xf32>) -> tensor<1x3x11xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.conv1d %[[P]], %w {strides = array<i64: 2>, dilation = array<i64: 1>, padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x3x11xf32>, tensor<4x3x3xf32>) -> tensor<1x4x5xf32>
func.func @padded_apart(%x: tensor<1x3x9xf32>) -> tensor<1x4x5xf32> {
  %w = relay.constant dense<0.5> : tensor<4x3x3xf32>
  %0 = relay.conv1d %x, %w {strides = array<i64: 2>, padding = array<i64: 1, 1>} : (tensor<1x3x9xf32>, tensor<4x3x3xf32>) -> tensor<1x4x5xf32>
  func.return %0 : tensor<1x4x5xf32>
}

// -----

// 3-D: the other axes keep their strides and padding.
// CHECK-LABEL: func.func @three_d(
// CHECK-NOT:     relay.pad
// CHECK:         relay.transpose {{.*}} {perm = array<i64: 0, 1, 5, 2, 3, 4>}
// CHECK:         relay.conv3d {{.*}} {strides = array<i64: 2, 1, 1>, dilation = array<i64: 1, 1, 1>, padding = array<i64: 1, 0, 0, 1, 0, 0>, groups = 1 : i64}
func.func @three_d(%x: tensor<1x2x4x5x8xf32>) -> tensor<1x3x2x4x4xf32> {
  %w = relay.constant dense<0.5> : tensor<3x2x3x2x2xf32>
  %0 = relay.conv3d %x, %w {strides = array<i64: 2, 1, 2>, padding = array<i64: 1, 0, 0, 1, 0, 0>} : (tensor<1x2x4x5x8xf32>, tensor<3x2x3x2x2xf32>) -> tensor<1x3x2x4x4xf32>
  func.return %0 : tensor<1x3x2x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT:     relay.transpose
func.func @left_alone(%x: tensor<1x3x9xf32>, %v: tensor<4x3x4xf32>, %y: tensor<1x3x9x9xf32>) -> (tensor<1x4x4xf32>, tensor<1x4x4xf32>, tensor<1x4x2xf32>, tensor<1x4x4x4xf32>) {
  %w = relay.constant dense<0.5> : tensor<4x3x4xf32>
  %u = relay.constant dense<0.5> : tensor<4x3x3xf32>
  %k = relay.constant dense<0.5> : tensor<4x3x2x2xf32>
  %0 = relay.conv1d %x, %u {strides = array<i64: 2>, padding = array<i64: 0, 0>} : (tensor<1x3x9xf32>, tensor<4x3x3xf32>) -> tensor<1x4x4xf32>
  %1 = relay.conv1d %x, %v {strides = array<i64: 2>, padding = array<i64: 1, 1>} : (tensor<1x3x9xf32>, tensor<4x3x4xf32>) -> tensor<1x4x4xf32>
  %2 = relay.conv1d %x, %w {strides = array<i64: 2>, dilation = array<i64: 2>} : (tensor<1x3x9xf32>, tensor<4x3x4xf32>) -> tensor<1x4x2xf32>
  %3 = relay.conv2d %y, %k {strides = array<i64: 2, 2>} : (tensor<1x3x9x9xf32>, tensor<4x3x2x2xf32>) -> tensor<1x4x4x4xf32>
  func.return %0, %1, %2, %3 : tensor<1x4x4xf32>, tensor<1x4x4xf32>, tensor<1x4x2xf32>, tensor<1x4x4x4xf32>
}
