// --verify-diagnostics fails (exit code 1) on an error nobody expected and on an
// expected error that was not produced, each reported at its line on stderr.
// RUN: not lamina-opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s

// CHECK: verify-diagnostics-mismatch.mlir:13:3: error: unexpected error: relay.add: shapes 1x4 and 1x5 do not broadcast
// CHECK: verify-diagnostics-mismatch.mlir:12:6: error: expected error "shapes 1x4 and 1x6 do not broadcast" was not produced
// CHECK: verify-diagnostics-mismatch.mlir:20:6: error: expected error "never produced" was not produced
// CHECK: verify-diagnostics-mismatch.mlir:28:22: error: unexpected error: use of undeclared SSA value name %zz
// CHECK: lamina-opt: error: --verify-diagnostics: 4 mismatches between the errors and the expected-* lines of the input

func.func @wrong_message(%a: tensor<1x4xf32>, %b: tensor<1x5xf32>) {
  // expected-error@+1 {{shapes 1x4 and 1x6 do not broadcast}}
  %0 = "relay.add"(%a, %b) : (tensor<1x4xf32>, tensor<1x5xf32>) -> tensor<1x4xf32>
  func.return
}

// -----

func.func @valid(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{never produced}}
  %0 = relay.relu %x : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @unexpected(%a: tensor<4xf32>) -> tensor<4xf32> {
  %1 = relay.add %a, %zz : tensor<4xf32>
  func.return %1 : tensor<4xf32>
}
