// A composite whose pattern its target does not have: an error that names the
// target, the pattern and the patterns it does have (not TVM's "Unknown
// composite function").
// RUN: not lamina-opt %s -p 'annotate-target{targets=c}' 2>&1 | filecheck %s
// CHECK: lamina-opt: error: relay.fused (op #0 in @main): composite 'c.conv_relu': target 'c' has no composite pattern 'conv_relu' (its patterns: add_relu, multiply_add, swish)
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.fused(%a) ({
  ^bb0(%x: tensor<4xf32>):
    %1 = relay.relu %x : tensor<4xf32>
    relay.yield %1 : tensor<4xf32>
  }) {lamina.composite = "c.conv_relu"} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
