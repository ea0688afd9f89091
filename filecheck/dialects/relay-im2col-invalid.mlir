// One invalid relay.im2col per chunk (the patches op of alter-op-layout). Ops in
// custom form are type-checked while parsing (--parsing-diagnostics); ops in
// generic form reach the verifier (--verify-diagnostics).
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

// Every kernel size must be positive.
// CHECK: relay.im2col: kernel_size [0, 3] must be positive
func.func @zero(%x: tensor<1x2x5x5xf32>) {
  %0 = relay.im2col %x {kernel_size = array<i64: 0, 3>} : (tensor<1x2x5x5xf32>)
  func.return
}

// -----

// One kernel size per spatial axis.
// CHECK: relay.im2col: kernel_size needs 2 values (one per spatial axis), got [3]
func.func @length(%x: tensor<1x2x5x5xf32>) {
  %0 = relay.im2col %x {kernel_size = array<i64: 3>} : (tensor<1x2x5x5xf32>)
  func.return
}

// -----

// kernel_size is required.
// CHECK: relay.im2col: property 'kernel_size' is required
func.func @missing(%x: tensor<1x2x5x5xf32>) {
  %0 = relay.im2col %x : (tensor<1x2x5x5xf32>)
  func.return
}

// -----

// A window larger than the input has no patch.
// CHECK: relay.im2col: the window (extent 7) is larger than the padded input (extent 5) along spatial axis 0
func.func @too_large(%x: tensor<1x2x5x5xf32>) {
  %0 = relay.im2col %x {kernel_size = array<i64: 7, 7>} : (tensor<1x2x5x5xf32>)
  func.return
}

// -----

// The data must be NCHW.
// CHECK: relay.im2col: data must be 4-D (batch, channels and 2 spatial axes), got tensor<2x5x5xf32>
func.func @rank(%x: tensor<2x5x5xf32>) {
  %0 = relay.im2col %x {kernel_size = array<i64: 3, 3>} : (tensor<2x5x5xf32>)
  func.return
}

// -----

// The generic form reaches the verifier.
// CHECK: Operation does not verify: relay.im2col: kernel_size [-1, 2] must be positive
func.func @generic(%x: tensor<1x2x5x5xf32>) {
  %0 = "relay.im2col"(%x) <{kernel_size = array<i64: -1, 2>}> : (tensor<1x2x5x5xf32>) -> tensor<1x8x4x4xf32>
  func.return
}

// -----

// The result type must be (N, C*KH*KW, OH, OW).
// CHECK: Operation does not verify: relay.im2col: result type tensor<1x8x5x5xf32> does not match the inferred type tensor<1x8x4x4xf32>
func.func @result(%x: tensor<1x2x5x5xf32>) {
  %0 = "relay.im2col"(%x) <{kernel_size = array<i64: 2, 2>}> : (tensor<1x2x5x5xf32>) -> tensor<1x8x5x5xf32>
  func.return
}
