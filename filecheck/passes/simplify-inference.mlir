// simplify-inference: batch_norm becomes a multiply by its scale and an add of its
// shift, then constant scales fold into conv / dense weights (new constants).
// RUN: lamina-opt %s -p simplify-inference | filecheck %s
// RUN: lamina-opt %s -p simplify-inference --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: lamina-opt %s -p simplify-inference --opt-level 0 | filecheck %s --check-prefix=O0

// scale = gamma / sqrt(var + eps) = [0.5, 2], shift = beta - mean * scale = [0, -0.5]
// CHECK-LABEL: func.func @conv_bn(
// CHECK-NEXT:    %bn_shift = relay.constant dense<{{\[\[\[}}0.000000e+00]], {{\[\[}}-5.000000e-01]]]> : tensor<2x1x1xf32>
// CHECK-NEXT:    %w_folded = relay.constant dense<{{\[\[\[\[}}5.000000e-01]]], {{\[\[\[}}4.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    %0 = relay.conv2d %x, %w_folded
// CHECK-NEXT:    %bn = relay.add %0, %bn_shift
// CHECK-NEXT:    func.return %bn

// CHECK-LABEL: func.func @dense_bn(
// CHECK-NEXT:    %bn_shift = relay.constant dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %w_folded = relay.constant dense<{{\[\[}}5.000000e-01, 1.000000e+00], [6.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    %b_folded = relay.constant dense<[5.000000e-01, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %0 = relay.dense %x, %w_folded, %b_folded {transpose_b}
// CHECK-NEXT:    %bn = relay.add %0, %bn_shift
// CHECK-NEXT:    func.return %bn

// The scale moves above the conv's bias_add (scaling the bias), then into the weights.
// CHECK-LABEL: func.func @conv_bias_bn(
// CHECK:         %bias_scaled = relay.constant dense<[5.000000e-01, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %w_folded = relay.constant dense<{{\[\[\[\[}}5.000000e-01]]], {{\[\[\[}}4.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    %0 = relay.conv2d %x, %w_folded
// CHECK-NEXT:    %1 = relay.bias_add %0, %bias_scaled
// CHECK-NEXT:    %bn = relay.add %1, %bn_shift
// CHECK-NEXT:    func.return %bn

// Statistics that are not constants: the scale and shift are graph ops.
// CHECK-LABEL: func.func @variable_stats(
// CHECK-NEXT:    %bn_eps = relay.constant dense<1.000000e-05> : tensor<1xf32>
// CHECK-NEXT:    %0 = relay.add %var, %bn_eps
// CHECK-NEXT:    %1 = relay.rsqrt %0
// CHECK-NEXT:    %2 = relay.multiply %gamma, %1
// CHECK-NEXT:    %3 = relay.multiply %mean, %2
// CHECK-NEXT:    %4 = relay.subtract %beta, %3
// CHECK-NEXT:    %5 = relay.reshape %2 {shape = array<i64: 2, 1, 1>}
// CHECK-NEXT:    %6 = relay.reshape %4 {shape = array<i64: 2, 1, 1>}
// CHECK-NEXT:    %7 = relay.multiply %x, %5
// CHECK-NEXT:    %bn = relay.add %7, %6
// CHECK-NEXT:    func.return %bn

// A conv whose result is also used elsewhere keeps its weights.
// CHECK-LABEL: func.func @shared_conv(
// CHECK:         %c = relay.conv2d %x, %w
// CHECK-NEXT:    %m = relay.multiply %c, %s
// CHECK-NEXT:    func.return %c, %m

// Two constant adds in a row become one.
// CHECK-LABEL: func.func @merge_adds(
// CHECK-NEXT:    %shift_merged = relay.constant dense<[3.000000e+00, 5.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %b = relay.add %x, %shift_merged
// CHECK-NEXT:    func.return %b

// STATS:      simplify-inference
// STATS:        (S)  4 simplify-inference.batch-norm - reported by the pass
// STATS-NEXT:   (S)  3 simplify-inference.folded-scale - reported by the pass
// STATS-NEXT:   (S)  1 simplify-inference.moved-scale - reported by the pass
// STATS-NEXT:   (S)  1 simplify-inference.merged-add - reported by the pass

// At opt level 0 the pass (opt level 1) does not run.
// O0-COUNT-4: relay.batch_norm

func.func @conv_bn(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = relay.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %gamma = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = relay.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %mean = relay.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %var = relay.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %c = relay.conv2d %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %bn = relay.batch_norm %c, %gamma, %beta, %mean, %var {epsilon = 1.0 : f64} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %bn : tensor<1x2x4x4xf32>
}
func.func @dense_bn(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = relay.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = relay.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %gamma = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = relay.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %mean = relay.constant dense<[0.0, 0.0]> : tensor<2xf32>
  %var = relay.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %d = relay.dense %x, %w, %b {transpose_b} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %bn = relay.batch_norm %d, %gamma, %beta, %mean, %var {epsilon = 1.0 : f64} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  func.return %bn : tensor<3x2xf32>
}
func.func @conv_bias_bn(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = relay.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %bias = relay.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %gamma = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = relay.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %mean = relay.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %var = relay.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %c = relay.conv2d %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %cb = relay.bias_add %c, %bias : (tensor<1x2x4x4xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %bn = relay.batch_norm %cb, %gamma, %beta, %mean, %var {epsilon = 1.0 : f64} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %bn : tensor<1x2x4x4xf32>
}
func.func @variable_stats(%x: tensor<1x2x4x4xf32>, %gamma: tensor<2xf32>, %beta: tensor<2xf32>, %mean: tensor<2xf32>, %var: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %bn = relay.batch_norm %x, %gamma, %beta, %mean, %var : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %bn : tensor<1x2x4x4xf32>
}
func.func @shared_conv(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = relay.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %s = relay.constant dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>
  %c = relay.conv2d %x, %w : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %m = relay.multiply %c, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %c, %m : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
func.func @merge_adds(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %c1 = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %c2 = relay.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %a = relay.add %x, %c1 : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %b = relay.add %a, %c2 : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  func.return %b : tensor<3x2xf32>
}
