// simplify-expr: an elementwise op of one operand moves before a reshape
// (PyTorch's linear views its input as a matrix and its result back), so the
// views around an activation cancel; a cast keeps its new element type; a
// binary op stays.
// RUN: lamina-opt %s -p simplify-expr,dce | filecheck %s
// RUN: lamina-opt %s -p simplify-expr --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// STATS: (S)  2 rewrite.ElementwiseOverReshape - reported by the pass

// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %view = relay.reshape %m {shape = array<i64: 2, 64, 256>}
// CHECK-NEXT:    %back = relay.gelu %m : tensor<128x256xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.cast %m {dtype = f16} : (tensor<128x256xf32>) -> tensor<128x256xf16>
// CHECK-NEXT:    %half = relay.reshape %[[C]] {shape = array<i64: 2, 64, 256>}
// CHECK-NEXT:    %sum = relay.add %view, %view
// CHECK-NEXT:    func.return %back, %half, %sum
func.func @main(%m: tensor<128x256xf32>) -> (tensor<128x256xf32>, tensor<2x64x256xf16>, tensor<2x64x256xf32>) {
  %view = relay.reshape %m {shape = array<i64: 2, 64, 256>} : (tensor<128x256xf32>) -> tensor<2x64x256xf32>
  %gelu = relay.gelu %view : tensor<2x64x256xf32>
  %back = relay.reshape %gelu {shape = array<i64: 128, 256>} : (tensor<2x64x256xf32>) -> tensor<128x256xf32>
  %half = relay.cast %view {dtype = f16} : (tensor<2x64x256xf32>) -> tensor<2x64x256xf16>
  %sum = relay.add %view, %view : tensor<2x64x256xf32>
  func.return %back, %half, %sum : tensor<128x256xf32>, tensor<2x64x256xf16>, tensor<2x64x256xf32>
}
