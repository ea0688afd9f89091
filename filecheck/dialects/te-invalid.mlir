// One invalid te op per chunk.
// RUN: lamina-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s

// CHECK: Operation does not verify: te.func @no_output must end with te.output
te.func @no_output {
  %A = te.placeholder "A" : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %a = te.read %A[%c0] : tensor<4xf32>
  te.yield %a : f32
}

// -----

func.func @placeholder_outside(%a: tensor<4xf32>) {
  // CHECK: Operation does not verify: 'te.placeholder' expects parent op 'te.func'
  %A = te.placeholder "A" : tensor<4xf32>
  func.return
}

// -----

func.func @output_outside(%a: tensor<4xf32>) {
  // CHECK: Operation does not verify: 'te.output' expects parent op 'te.func'
  te.output %a : tensor<4xf32>
}

// -----

te.func @compute_index_args {
  %A = te.placeholder "A" : tensor<4xf32>
  // CHECK: Operation does not verify: te.compute: body needs 1 index arguments (1 output axes, 0 reduce axes), got 2
  %C = te.compute (%i, %j) : tensor<4xf32> {
    %a = te.read %A[%i] : tensor<4xf32>
    te.yield %a : f32
  }
  te.output %C : tensor<4xf32>
}

// -----

te.func @compute_reduce_args {
  %A = te.placeholder "A" : tensor<4x4xf32>
  // CHECK: Operation does not verify: te.compute: body needs 3 index arguments (1 output axes, 2 reduce axes), got 2
  %C = te.compute (%i) reduce sum (%k) [4, 4] : tensor<4xf32> {
    %a = te.read %A[%i, %k] : tensor<4x4xf32>
    te.yield %a : f32
  }
  te.output %C : tensor<4xf32>
}

// -----

te.func @compute_arg_type {
  %A = te.placeholder "A" : tensor<4xf32>
  // CHECK: Operation does not verify: te.compute: body arguments must be of type index, got i32
  %C = "te.compute"() ({
  ^bb0(%i: i32):
    %c0 = arith.constant 0 : index
    %a = te.read %A[%c0] : tensor<4xf32>
    te.yield %a : f32
  }) : () -> tensor<4xf32>
  te.output %C : tensor<4xf32>
}

// -----

te.func @compute_yield_type {
  %A = te.placeholder "A" : tensor<4xf32>
  // CHECK: Operation does not verify: te.compute: body yields i32, but the result's element type is f32
  %C = te.compute (%i) : tensor<4xf32> {
    %a = te.read %A[%i] : tensor<4xf32>
    %b = arith.fptosi %a : f32 to i32
    te.yield %b : i32
  }
  te.output %C : tensor<4xf32>
}

// -----

te.func @compute_terminator {
  %A = te.placeholder "A" : tensor<4xf32>
  // CHECK: Operation does not verify: te.compute: body must end with te.yield
  %C = te.compute (%i) : tensor<4xf32> {
    tir.yield
  }
  te.output %C : tensor<4xf32>
}

// -----

te.func @compute_reduce_without_extents {
  %A = te.placeholder "A" : tensor<4xf32>
  // CHECK: Operation does not verify: te.compute: `reduce` and `reduce_extents` must be given together
  %C = "te.compute"() <{reduce = #te<reduce sum>}> ({
  ^bb0(%i: index):
    %a = te.read %A[%i] : tensor<4xf32>
    te.yield %a : f32
  }) : () -> tensor<4xf32>
  te.output %C : tensor<4xf32>
}

// -----

te.func @compute_dynamic {
  %A = te.placeholder "A" : tensor<?xf32>
  // CHECK: Operation does not verify: te.compute: tensor<?xf32> has 1 dynamic dimension(s) but names 0; give each '?' a name
  %C = te.compute (%i) : tensor<?xf32> {
    %a = te.read %A[%i] : tensor<?xf32>
    te.yield %a : f32
  }
  te.output %C : tensor<?xf32>
}

// -----

te.func @compute_empty_reduce {
  %A = te.placeholder "A" : tensor<4xf32>
  // CHECK: Operation does not verify: te.compute: extents must be non-negative and reduce extents positive (result tensor<4xf32>, reduce [0])
  %C = te.compute (%i) reduce sum (%k) [0] : tensor<4xf32> {
    %a = te.read %A[%i] : tensor<4xf32>
    te.yield %a : f32
  }
  te.output %C : tensor<4xf32>
}

// -----

te.func @compute_result_type {
  %A = te.placeholder "A" : tensor<4xf32>
  // CHECK:      %C = te.compute (%i) : memref<4xf32> {
  // CHECK-NEXT: ^
  // CHECK-NEXT: te.compute: result must be a tensor, got memref<4xf32>
  %C = te.compute (%i) : memref<4xf32> {
    %a = te.read %A[%i] : tensor<4xf32>
    te.yield %a : f32
  }
  te.output %A : tensor<4xf32>
}

// -----

te.func @compute_reduce_kind {
  %A = te.placeholder "A" : tensor<4xf32>
  // CHECK: Expected `sum`, `max`, `min`, or `prod`.
  %C = te.compute () reduce mean (%k) [4] : tensor<f32> {
    %a = te.read %A[%k] : tensor<4xf32>
    te.yield %a : f32
  }
  te.output %C : tensor<f32>
}

// -----

te.func @read_index_count {
  %A = te.placeholder "A" : tensor<4x4xf32>
  %C = te.compute (%i) : tensor<4xf32> {
    // CHECK: Operation does not verify: te.read of a rank-2 tensor needs 2 indices, got 1
    %a = te.read %A[%i] : tensor<4x4xf32>
    te.yield %a : f32
  }
  te.output %C : tensor<4xf32>
}

// -----

te.func @read_result_type {
  %A = te.placeholder "A" : tensor<4xf32>
  %C = te.compute (%i) : tensor<4xf32> {
    // CHECK: Operation does not verify: te.read result f16 is not the element type of tensor<4xf32>
    %a = "te.read"(%A, %i) : (tensor<4xf32>, index) -> f16
    %b = arith.extf %a : f16 to f32
    te.yield %b : f32
  }
  te.output %C : tensor<4xf32>
}

// -----

te.func @k {
  %A = te.placeholder "A" : tensor<4xf32>
  te.output %A : tensor<4xf32>
}
func.func @call_signature(%a: tensor<8xf32>) {
  // CHECK: Operation does not verify: te.call: @k takes (tensor<4xf32>) -> (tensor<4xf32>) (its placeholders and outputs), but is called as (tensor<8xf32>) -> (tensor<8xf32>)
  %0 = te.call @k(%a) : (tensor<8xf32>) -> tensor<8xf32>
  func.return
}

// -----

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  func.return %a : tensor<4xf32>
}
func.func @call_not_te_func(%a: tensor<4xf32>) {
  // CHECK: Operation does not verify: te.call: @f is a func.func, not a te.func or tir.prim_func
  %0 = te.call @f(%a) : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

tir.prim_func @extern(%a: memref<4xf32>, %b: memref<4xi64>) {
  tir.return
}
func.func @call_prim_func_signature(%a: tensor<4xf32>) {
  // CHECK: Operation does not verify: te.call: @extern takes buffers (memref<4xf32>, memref<4xi64>), but is called with tensors (tensor<4xf32>, tensor<4xf32>) (operands, then results)
  %0 = te.call @extern(%a) : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}
