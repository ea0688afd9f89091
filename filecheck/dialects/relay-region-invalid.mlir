// One invalid relay.fused / relay.yield per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

func.func @arg_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: relay.fused: 1 operands but the body has 2 arguments; each operand binds one argument
  %0 = relay.fused(%x) ({
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    relay.yield %a : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @arg_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: relay.fused: argument #0 of the body has type tensor<4xi32>, but operand #0 has type tensor<4xf32>
  %0 = relay.fused(%x) ({
  ^bb0(%a: tensor<4xi32>):
    %c = relay.constant dense<1.0> : tensor<4xf32>
    relay.yield %c : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @result_type(%x: tensor<4xf32>) -> tensor<2x2xf32> {
  // CHECK: relay.fused: the body yields (tensor<4xf32>) but the op's results are (tensor<2x2xf32>)
  %0 = relay.fused(%x) ({
  ^bb0(%a: tensor<4xf32>):
    relay.yield %a : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

func.func @no_yield(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: Operation relay.relu terminates block in single-block region but is not a terminator
  %0 = "relay.fused"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %r = relay.relu %a : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @captures(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: Operation using value defined out of its IsolatedFromAbove parent
  %0 = relay.fused() ({
    %r = relay.relu %x : tensor<4xf32>
    relay.yield %r : tensor<4xf32>
  }) : () -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @yield_outside(%x: tensor<4xf32>) {
  // CHECK: 'relay.yield' expects parent op to be one of 'relay.fused', 'relay.if', 'relay.loop'
  relay.yield %x : tensor<4xf32>
}

// -----

func.func @operand_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: relay.fused: 1 operands but 2 operand types
  %0 = relay.fused(%x) ({
  ^bb0(%a: tensor<4xf32>):
    relay.yield %a : tensor<4xf32>
  }) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
