// Round trip of relay.fused / relay.yield: custom form, and generic form re-parsed.
// RUN: lamina-opt %s --split-input-file | filecheck %s
// RUN: lamina-opt %s --split-input-file --print-op-generic | lamina-opt --split-input-file | filecheck %s
// RUN: lamina-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @dense_bias(
// CHECK-NEXT:    %0 = relay.fused(%x, %w, %b) ({
// CHECK-NEXT:    ^bb0(%a: tensor<1x8xf32>, %k: tensor<8x8xf32>, %c: tensor<8xf32>):
// CHECK-NEXT:      %1 = relay.matmul %a, %k : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:      %2 = relay.add %1, %c : (tensor<1x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:      relay.yield %2 : tensor<1x8xf32>
// CHECK-NEXT:    }) {lamina.composite = "dense_bias"} : (tensor<1x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    func.return %0 : tensor<1x8xf32>
// GENERIC:       %0 = "relay.fused"(%x, %w, %b) ({
// GENERIC:         "relay.yield"(%2) : (tensor<1x8xf32>) -> ()
// GENERIC-NEXT:  }) {lamina.composite = "dense_bias"} : (tensor<1x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
func.func @dense_bias(%x: tensor<1x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>) -> tensor<1x8xf32> {
  %2 = relay.fused(%x, %w, %b) ({
  ^bb0(%a: tensor<1x8xf32>, %k: tensor<8x8xf32>, %c: tensor<8xf32>):
    %0 = relay.matmul %a, %k : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
    %1 = relay.add %0, %c : (tensor<1x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
    relay.yield %1 : tensor<1x8xf32>
  }) {lamina.composite = "dense_bias"} : (tensor<1x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  func.return %2 : tensor<1x8xf32>
}

// -----

// Several results, a constant inside the group, no attributes.
// CHECK-LABEL: func.func @two_results(
// CHECK-NEXT:    %0, %1 = relay.fused(%x) ({
// CHECK-NEXT:    ^bb0(%a: tensor<4xf32>):
// CHECK-NEXT:      %c = relay.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT:      %2 = relay.add %a, %c : tensor<4xf32>
// CHECK-NEXT:      %3 = relay.relu %2 : tensor<4xf32>
// CHECK-NEXT:      relay.yield %2, %3 : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    }) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
func.func @two_results(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0, %1 = relay.fused(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %c = relay.constant dense<1.0> : tensor<4xf32>
    %2 = relay.add %a, %c : tensor<4xf32>
    %3 = relay.relu %2 : tensor<4xf32>
    relay.yield %2, %3 : tensor<4xf32>, tensor<4xf32>
  }) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
