// simplify-expr: x ** 2, 3 and 4 (a constant exponent) become products of x;
// other exponents, and a power that broadcasts x, stay.
// RUN: lamina-opt %s -p simplify-expr,dce | filecheck %s
// RUN: lamina-opt %s -p simplify-expr --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// STATS: (S)  3 rewrite.SmallPower - reported by the pass

// CHECK-LABEL: func.func @main(
// CHECK-NEXT:    %three = relay.constant dense<3.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %half = relay.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %p2 = relay.multiply %x, %x : tensor<2x3xf32>
// CHECK-NEXT:    %[[X2:.*]] = relay.multiply %x, %x : tensor<2x3xf32>
// CHECK-NEXT:    %p3 = relay.multiply %[[X2]], %x : tensor<2x3xf32>
// CHECK-NEXT:    %[[Y2:.*]] = relay.multiply %x, %x : tensor<2x3xf32>
// CHECK-NEXT:    %p4 = relay.multiply %[[Y2]], %[[Y2]] : tensor<2x3xf32>
// CHECK-NEXT:    %p5 = relay.power %x, %half : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %wide = relay.power %v, %three : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %p2, %p3, %p4, %p5, %wide
func.func @main(%x: tensor<2x3xf32>, %v: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %two = relay.constant dense<2.0> : tensor<f32>
  %three = relay.constant dense<3.0> : tensor<2x3xf32>
  %four = relay.constant dense<4.0> : tensor<1xf32>
  %half = relay.constant dense<0.5> : tensor<f32>
  %p2 = relay.power %x, %two : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %p3 = relay.power %x, %three : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %p4 = relay.power %x, %four : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  %p5 = relay.power %x, %half : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %wide = relay.power %v, %three : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %p2, %p3, %p4, %p5, %wide : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
