// Graph ops left in @main when lowering to TIR are reported with the pass to run.
// RUN: not lamina-opt %s -p lower-te-to-tir 2>&1 | filecheck %s

// CHECK:     lamina-opt: error: relay.relu in @main has not been lowered; run lower-relay-to-te first
// CHECK-NOT: Traceback
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.relu %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
