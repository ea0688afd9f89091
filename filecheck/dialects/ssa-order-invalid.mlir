// Values used before their definition: xDSL's verifier accepts them, lamina's does
// not (passes that walk use-def chains would loop or crash on them).
// RUN: lamina-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @self_use() {
  // CHECK: 'math.tanh' op uses a value of type f32 before it is defined
  %0 = math.tanh %0 : f32
  func.return
}

// -----

func.func @use_before_def(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: 'relay.relu' op uses %b before it is defined
  %a = relay.relu %b : tensor<2xf32>
  %b = relay.relu %x : tensor<2xf32>
  func.return %a : tensor<2xf32>
}

// -----

// CHECK: tir.prim_func @no_body must have a body of one block
tir.prim_func @no_body(%x: memref<4xf32>)
