// simplify-expr: a splat constant operand of an elementwise or broadcasting op
// becomes a rank-0 constant when the result keeps its type (the kernel then
// reads one value, not a buffer of them); one that decides the result's shape,
// and a constant that is not a splat, stay.
// RUN: lamina-opt %s -p simplify-expr,dce | filecheck %s

// CHECK-LABEL: func.func @main(
// CHECK-DAG:     %[[Z:.*]] = relay.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG:     %wide = relay.constant dense<2.000000e+00> : tensor<4x8xf32>
// CHECK-DAG:     %ramp = relay.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00]> : tensor<8xf32>
// CHECK:         %sel = relay.where %c, %[[Z]], %x : (tensor<4x1xi1>, tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %grown = relay.add %v, %wide : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %shifted = relay.add %x, %ramp : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
func.func @main(%c: tensor<4x1xi1>, %x: tensor<4x8xf32>, %v: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %zeros = relay.constant dense<0.0> : tensor<4x8xf32>
  %wide = relay.constant dense<2.0> : tensor<4x8xf32>
  %ramp = relay.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %sel = relay.where %c, %zeros, %x : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %grown = relay.add %v, %wide : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %shifted = relay.add %x, %ramp : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  func.return %sel, %grown, %shifted : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
