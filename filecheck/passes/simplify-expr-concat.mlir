// simplify-expr: a concatenation whose first operands are an earlier one's
// (same axis, same block) reads that one instead, the longest such: DenseNet's
// growing concatenations each extend the last by one operand. Other orders,
// other axes and single-operand prefixes are left alone.
// RUN: lamina-opt %s -p simplify-expr | filecheck %s
// RUN: lamina-opt %s -p simplify-expr --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %ab = relay.concatenate %a, %b {axis = 1 : i64}
// CHECK-NEXT:    %abc = relay.concatenate %ab, %c {axis = 1 : i64}
// CHECK-NEXT:    %abcd = relay.concatenate %abc, %d {axis = 1 : i64}
// CHECK-NEXT:    %abd = relay.concatenate %ab, %d {axis = 1 : i64}
// CHECK-NEXT:    %bac = relay.concatenate %b, %a, %c {axis = 1 : i64}
// CHECK-NEXT:    %ab0 = relay.concatenate %a, %b {axis = 0 : i64}
// CHECK-NEXT:    %ac = relay.concatenate %a, %c {axis = 1 : i64}
// CHECK-NEXT:    func.return
func.func @main(%a: tensor<1x2xf32>, %b: tensor<1x2xf32>, %c: tensor<1x2xf32>, %d: tensor<1x2xf32>)
    -> (tensor<1x8xf32>, tensor<1x6xf32>, tensor<1x6xf32>, tensor<2x2xf32>, tensor<1x4xf32>) {
  %ab = relay.concatenate %a, %b {axis = 1 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
  %abc = relay.concatenate %a, %b, %c {axis = 1 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x6xf32>
  %abcd = relay.concatenate %a, %b, %c, %d {axis = 1 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x8xf32>
  %abd = relay.concatenate %a, %b, %d {axis = 1 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x6xf32>
  %bac = relay.concatenate %b, %a, %c {axis = 1 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x6xf32>
  %ab0 = relay.concatenate %a, %b {axis = 0 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  %ac = relay.concatenate %a, %c {axis = 1 : i64} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
  func.return %abcd, %abd, %bac, %ab0, %ac : tensor<1x8xf32>, tensor<1x6xf32>, tensor<1x6xf32>, tensor<2x2xf32>, tensor<1x4xf32>
}

// STATS: (S)  3 rewrite.ConcatPrefix - reported by the pass
