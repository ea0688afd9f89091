// --verify-diagnostics checks the errors lamina-opt meets against the
// expected-error annotations of the input (message in double braces), as mlir-opt
// does: exit code 0 when every error is expected on its line and every expected error is produced.
// Each chunk is checked on its own; lines count from the start of the file.
// RUN: lamina-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: lamina-opt %s --split-input-file --verify-diagnostics -p cse,dce | filecheck %s

// A valid chunk is printed as usual.
// CHECK:      func.func @valid
// CHECK-NEXT:   relay.relu
// CHECK-NOT:  func.func
func.func @valid(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.relu %x : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// The verifier's broadcast check (generic form), at the failing op.
func.func @broadcast_generic(%a: tensor<1x4xf32>, %b: tensor<1x5xf32>) {
  // expected-error@+1 {{relay.add: shapes 1x4 and 1x5 do not broadcast}}
  %0 = "relay.add"(%a, %b) : (tensor<1x4xf32>, tensor<1x5xf32>) -> tensor<1x4xf32>
  func.return
}

// -----

// The custom form infers the result type while parsing: a parse error, checked too.
func.func @broadcast_custom(%a: tensor<1x4xf32>, %b: tensor<1x5xf32>) {
  %0 = relay.add %a, %b : (tensor<1x4xf32>, tensor<1x5xf32>) // expected-error {{shapes 1x4 and 1x5 do not broadcast}}
  func.return
}

// -----

// An undefined value, reported where it is used.
func.func @undefined(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.relu %a : tensor<4xf32>
  %1 = relay.add %0, %zz : tensor<4xf32>
  // expected-error@above {{use of undeclared SSA value name %zz}}
  func.return %1 : tensor<4xf32>
}

// -----

// A value used before its definition.
func.func @use_before_def(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@below {{'relay.relu' op uses %b before it is defined}}
  %b2 = relay.relu %b : tensor<4xf32>
  %b = relay.relu %a : tensor<4xf32>
  func.return %b2 : tensor<4xf32>
}
