// Round trip of every te op: custom form, and generic form re-parsed.
// RUN: lamina-opt %s | filecheck %s
// RUN: lamina-opt %s --print-op-generic | lamina-opt | filecheck %s
// RUN: lamina-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: te.func @kernel {
// CHECK-NEXT:    %A = te.placeholder "A" : tensor<4x8xf32>
// CHECK-NEXT:    %B = te.placeholder "B" {lamina.tag = "w"} : tensor<8xf32>
// CHECK-NEXT:    %C = te.compute (%i, %j) : tensor<4x8xf32> {
// CHECK-NEXT:      %a = te.read %A[%i, %j] : tensor<4x8xf32>
// CHECK-NEXT:      %b = te.read %B[%j] : tensor<8xf32>
// CHECK-NEXT:      %s = arith.addf %a, %b : f32
// CHECK-NEXT:      te.yield %s : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %S = te.compute (%i2) reduce sum (%k2) [8] : tensor<4xf32> {
// CHECK-NEXT:      %c2 = te.read %C[%i2, %k2] : tensor<4x8xf32>
// CHECK-NEXT:      te.yield %c2 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %M = te.compute (%i3) reduce max (%k3, %l3) [2, 4] attributes {lamina.tag = 1 : i64} : tensor<4xf32> {
// CHECK-NEXT:      %c4 = arith.constant 4 : index
// CHECK-NEXT:      %m3 = arith.muli %k3, %c4 : index
// CHECK-NEXT:      %j3 = arith.addi %m3, %l3 : index
// CHECK-NEXT:      %c3 = te.read %C[%i3, %j3] : tensor<4x8xf32>
// CHECK-NEXT:      te.yield %c3 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %N = te.compute (%i4) reduce min (%k4) [8] : tensor<4xf32> {
// CHECK-NEXT:      %c5 = te.read %C[%i4, %k4] : tensor<4x8xf32>
// CHECK-NEXT:      te.yield %c5 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %P = te.compute () reduce prod (%k5) [4] : tensor<f32> {
// CHECK-NEXT:      %s5 = te.read %S[%k5] : tensor<4xf32>
// CHECK-NEXT:      te.yield %s5 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %Z = te.compute () : tensor<f32> {
// CHECK-NEXT:      %p6 = te.read %P[] : tensor<f32>
// CHECK-NEXT:      te.yield %p6 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output %C, %M, %N, %Z : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>
// CHECK-NEXT:  }
te.func @kernel {
  %A = te.placeholder "A" : tensor<4x8xf32>
  %B = te.placeholder "B" {lamina.tag = "w"} : tensor<8xf32>
  %C = te.compute (%i, %j) : tensor<4x8xf32> {
    %a = te.read %A[%i, %j] : tensor<4x8xf32>
    %b = te.read %B[%j] : tensor<8xf32>
    %s = arith.addf %a, %b : f32
    te.yield %s : f32
  }
  %S = te.compute (%i2) reduce sum (%k2) [8] : tensor<4xf32> {
    %c2 = te.read %C[%i2, %k2] : tensor<4x8xf32>
    te.yield %c2 : f32
  }
  %M = te.compute (%i3) reduce max (%k3, %l3) [2, 4] attributes {lamina.tag = 1 : i64} : tensor<4xf32> {
    %c4 = arith.constant 4 : index
    %m3 = arith.muli %k3, %c4 : index
    %j3 = arith.addi %m3, %l3 : index
    %c3 = te.read %C[%i3, %j3] : tensor<4x8xf32>
    te.yield %c3 : f32
  }
  %N = te.compute (%i4) reduce min (%k4) [8] : tensor<4xf32> {
    %c5 = te.read %C[%i4, %k4] : tensor<4x8xf32>
    te.yield %c5 : f32
  }
  %P = te.compute () reduce prod (%k5) [4] : tensor<f32> {
    %s5 = te.read %S[%k5] : tensor<4xf32>
    te.yield %s5 : f32
  }
  %Z = te.compute () : tensor<f32> {
    %p6 = te.read %P[] : tensor<f32>
    te.yield %p6 : f32
  }
  te.output %C, %M, %N, %Z : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>
}

// An integer kernel with a single output.
// CHECK-LABEL: te.func @int_kernel {
// CHECK-NEXT:    %X = te.placeholder "X" : tensor<3xi32>
// CHECK-NEXT:    %Y = te.compute (%n) : tensor<3xi32> {
// CHECK-NEXT:      %x = te.read %X[%n] : tensor<3xi32>
// CHECK-NEXT:      te.yield %x : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output %Y : tensor<3xi32>
// CHECK-NEXT:  }
te.func @int_kernel {
  %X = te.placeholder "X" : tensor<3xi32>
  %Y = te.compute (%n) : tensor<3xi32> {
    %x = te.read %X[%n] : tensor<3xi32>
    te.yield %x : i32
  }
  te.output %Y : tensor<3xi32>
}

// CHECK-LABEL: func.func @main(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %z: tensor<3xi32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    %0, %1, %2, %3 = te.call @kernel(%x, %y) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>)
// CHECK-NEXT:    %4 = te.call @int_kernel(%z) {lamina.tag} : (tensor<3xi32>) -> tensor<3xi32>
// CHECK-NEXT:    func.return %0 : tensor<4x8xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %z: tensor<3xi32>) -> tensor<4x8xf32> {
  %0:4 = te.call @kernel(%x, %y) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>)
  %1 = te.call @int_kernel(%z) {lamina.tag} : (tensor<3xi32>) -> tensor<3xi32>
  func.return %0#0 : tensor<4x8xf32>
}

// The generic form: properties, the reduce kind attribute and block arguments.
// GENERIC:       "te.func"() <{sym_name = "kernel"}> ({
// GENERIC-NEXT:    %A = "te.placeholder"() <{sym = "A"}> : () -> tensor<4x8xf32>
// GENERIC-NEXT:    %B = "te.placeholder"() <{sym = "B"}> {lamina.tag = "w"} : () -> tensor<8xf32>
// GENERIC-NEXT:    %C = "te.compute"() ({
// GENERIC-NEXT:    ^bb0(%i: index, %j: index):
// GENERIC-NEXT:      %a = "te.read"(%A, %i, %j) : (tensor<4x8xf32>, index, index) -> f32
// GENERIC-NEXT:      %b = "te.read"(%B, %j) : (tensor<8xf32>, index) -> f32
// GENERIC-NEXT:      %s = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// GENERIC-NEXT:      "te.yield"(%s) : (f32) -> ()
// GENERIC-NEXT:    }) : () -> tensor<4x8xf32>
// GENERIC-NEXT:    %S = "te.compute"() <{reduce = #te<reduce sum>, reduce_extents = array<i64: 8>}> ({
// GENERIC-NEXT:    ^bb0(%i2: index, %k2: index):
// GENERIC:         %M = "te.compute"() <{reduce = #te<reduce max>, reduce_extents = array<i64: 2, 4>}> ({
// GENERIC-NEXT:    ^bb0(%i3: index, %k3: index, %l3: index):
// GENERIC:         }) {lamina.tag = 1 : i64} : () -> tensor<4xf32>
// GENERIC-NEXT:    %N = "te.compute"() <{reduce = #te<reduce min>, reduce_extents = array<i64: 8>}> ({
// GENERIC:         %P = "te.compute"() <{reduce = #te<reduce prod>, reduce_extents = array<i64: 4>}> ({
// GENERIC-NEXT:    ^bb0(%k5: index):
// GENERIC:         %Z = "te.compute"() ({
// GENERIC-NEXT:      %p6 = "te.read"(%P) : (tensor<f32>) -> f32
// GENERIC:         "te.output"(%C, %M, %N, %Z) : (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> ()
// GENERIC-NEXT:  }) : () -> ()
// GENERIC:       %0, %1, %2, %3 = "te.call"(%x, %y) <{callee = @kernel}> : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>)
// GENERIC-NEXT:  %4 = "te.call"(%z) <{callee = @int_kernel}> {lamina.tag} : (tensor<3xi32>) -> tensor<3xi32>
