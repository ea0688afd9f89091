// Round trip of relay.im2col (the patches op of alter-op-layout): custom form, and
// generic form re-parsed. The result type may be left out (it is inferred) or given.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @im2col(%x: tensor<1x2x5x5xf32>) -> (tensor<1x18x3x3xf32>, tensor<1x18x5x5xf32>, tensor<1x8x2x2xf32>)
// CHECK-NEXT:    %0 = relay.im2col %x {kernel_size = array<i64: 3, 3>} : (tensor<1x2x5x5xf32>) -> tensor<1x18x3x3xf32>
// CHECK-NEXT:    %1 = relay.im2col %x {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x18x5x5xf32>
// CHECK-NEXT:    %2 = relay.im2col %x {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilation = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> tensor<1x8x2x2xf32>
// CHECK-NEXT:    func.return %0, %1, %2 : tensor<1x18x3x3xf32>, tensor<1x18x5x5xf32>, tensor<1x8x2x2xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "im2col"
// GENERIC:       %0 = "relay.im2col"(%x) <{kernel_size = array<i64: 3, 3>}> : (tensor<1x2x5x5xf32>) -> tensor<1x18x3x3xf32>
// GENERIC-NEXT:  %1 = "relay.im2col"(%x) <{kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}> : (tensor<1x2x5x5xf32>) -> tensor<1x18x5x5xf32>
// GENERIC-NEXT:  %2 = "relay.im2col"(%x) <{kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilation = array<i64: 2, 2>}> : (tensor<1x2x5x5xf32>) -> tensor<1x8x2x2xf32>
func.func @im2col(%x: tensor<1x2x5x5xf32>) -> (tensor<1x18x3x3xf32>, tensor<1x18x5x5xf32>, tensor<1x8x2x2xf32>) {
  %0 = relay.im2col %x {kernel_size = array<i64: 3, 3>} : (tensor<1x2x5x5xf32>)
  %1 = relay.im2col %x {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x18x5x5xf32>
  %2 = relay.im2col %x {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilation = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>)
  func.return %0, %1, %2 : tensor<1x18x3x3xf32>, tensor<1x18x5x5xf32>, tensor<1x8x2x2xf32>
}

// An integer input, and unequal kernel, stride and padding per axis.
// CHECK-LABEL: func.func @ints(%x: tensor<2x1x4x6xi32>) -> tensor<2x6x2x3xi32>
// CHECK-NEXT:    %0 = relay.im2col %x {kernel_size = array<i64: 2, 3>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 1>} : (tensor<2x1x4x6xi32>) -> tensor<2x6x2x3xi32>
// GENERIC-LABEL: "func.func"() <{sym_name = "ints"
// GENERIC:       %0 = "relay.im2col"(%x) <{kernel_size = array<i64: 2, 3>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 1>}> : (tensor<2x1x4x6xi32>) -> tensor<2x6x2x3xi32>
func.func @ints(%x: tensor<2x1x4x6xi32>) -> tensor<2x6x2x3xi32> {
  %0 = relay.im2col %x {kernel_size = array<i64: 2, 3>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 1>} : (tensor<2x1x4x6xi32>)
  func.return %0 : tensor<2x6x2x3xi32>
}
