// Round trip of relay.dense_pack (a product whose weight is packed in column
// panels): custom form, and generic form re-parsed; the batch axes of the data
// stay (the weight is shared by every batch), symbolic ones too.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @packed(%x: tensor<6x3xf32>, %y: tensor<2x5x3xf32>, %w: tensor<2x3x16xf32>) -> (tensor<6x32xf32>, tensor<2x5x32xf32>) {
// CHECK-NEXT:    %0 = relay.dense_pack %x, %w : (tensor<6x3xf32>, tensor<2x3x16xf32>) -> tensor<6x32xf32>
// CHECK-NEXT:    %1 = relay.dense_pack %y, %w : (tensor<2x5x3xf32>, tensor<2x3x16xf32>) -> tensor<2x5x32xf32>
// CHECK-NEXT:    func.return %0, %1 : tensor<6x32xf32>, tensor<2x5x32xf32>
// CHECK-NEXT:  }
// GENERIC:       %0 = "relay.dense_pack"(%x, %w) : (tensor<6x3xf32>, tensor<2x3x16xf32>) -> tensor<6x32xf32>
// GENERIC-NEXT:  %1 = "relay.dense_pack"(%y, %w) : (tensor<2x5x3xf32>, tensor<2x3x16xf32>) -> tensor<2x5x32xf32>
func.func @packed(%x: tensor<6x3xf32>, %y: tensor<2x5x3xf32>, %w: tensor<2x3x16xf32>) -> (tensor<6x32xf32>, tensor<2x5x32xf32>) {
  %0 = relay.dense_pack %x, %w : (tensor<6x3xf32>, tensor<2x3x16xf32>)
  %1 = relay.dense_pack %y, %w : (tensor<2x5x3xf32>, tensor<2x3x16xf32>)
  func.return %0, %1 : tensor<6x32xf32>, tensor<2x5x32xf32>
}

// CHECK-LABEL: func.func @symbolic(%x: tensor<?x4xf64, ["n"]>, %w: tensor<1x4x8xf64>) -> tensor<?x8xf64, ["n"]> {
// CHECK-NEXT:    %0 = relay.dense_pack %x, %w : (tensor<?x4xf64, ["n"]>, tensor<1x4x8xf64>) -> tensor<?x8xf64, ["n"]>
func.func @symbolic(%x: tensor<?x4xf64, ["n"]>, %w: tensor<1x4x8xf64>) -> tensor<?x8xf64, ["n"]> {
  %0 = relay.dense_pack %x, %w : (tensor<?x4xf64, ["n"]>, tensor<1x4x8xf64>)
  func.return %0 : tensor<?x8xf64, ["n"]>
}
