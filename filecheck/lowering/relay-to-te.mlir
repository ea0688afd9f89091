// lower-relay-to-te, one op per chunk: each relay op becomes a te.call of a new
// te.func whose placeholders are the op's operands.
// RUN: lamina-opt %s --split-input-file -p lower-relay-to-te | filecheck %s

// Broadcasting binary ops: a missing leading dimension of an operand is not indexed,
// a size-1 dimension is read at index 0, a rank-0 operand with no index.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x3xf32>, [[ARG1:%[0-9A-Za-z_]+]]: tensor<3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @add([[ARG0]], [[ARG1]]) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<2x3xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @add {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x3xf32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<3xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) : tensor<2x3xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[I1]]] : tensor<2x3xf32>
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN1]]{{\[}}[[I1]]] : tensor<3xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.addf [[R0]], [[R1]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<2x3xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = relay.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>)
  func.return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x3xf32>, [[ARG1:%[0-9A-Za-z_]+]]: tensor<2x1xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @subtract([[ARG0]], [[ARG1]]) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<2x3xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @subtract {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x3xf32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<2x1xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) : tensor<2x3xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[I1]]] : tensor<2x3xf32>
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN1]]{{\[}}[[I0]], [[C0]]] : tensor<2x1xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.subf [[R0]], [[R1]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<2x3xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3xf32>, %z: tensor<2x1xf32>) -> tensor<2x3xf32> {
  %0 = relay.subtract %x, %z : (tensor<2x3xf32>, tensor<2x1xf32>)
  func.return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x3xf32>, [[ARG1:%[0-9A-Za-z_]+]]: tensor<f32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @multiply([[ARG0]], [[ARG1]]) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<2x3xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @multiply {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x3xf32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<f32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) : tensor<2x3xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[I1]]] : tensor<2x3xf32>
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN1]][] : tensor<f32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.mulf [[R0]], [[R1]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<2x3xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3xf32>, %s: tensor<f32>) -> tensor<2x3xf32> {
  %0 = relay.multiply %x, %s : (tensor<2x3xf32>, tensor<f32>)
  func.return %0 : tensor<2x3xf32>
}

// -----

// Integer division is signed and truncating, and never traps: a zero divisor
// gives 0 and -1 negates (wrapping), as numpy; float division is divf.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<4xi32>, [[ARG1:%[0-9A-Za-z_]+]]: tensor<4xi32>, [[ARG2:%[0-9A-Za-z_]+]]: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>) {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @divide([[ARG0]], [[ARG1]]) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT:    [[CALL1:%[0-9A-Za-z_]+]] = te.call @divide_1([[ARG2]], [[ARG2]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return [[CALL0]], [[CALL1]] : tensor<4xi32>, tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @divide {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<4xi32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<4xi32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) : tensor<4xi32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]]] : tensor<4xi32>
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN1]]{{\[}}[[I0]]] : tensor<4xi32>
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : i32
// CHECK-NEXT:      [[ZERO:%[0-9A-Za-z_]+]] = arith.cmpi eq, [[R1]], [[C0]] : i32
// CHECK-NEXT:      [[CM1:%[0-9A-Za-z_]+]] = arith.constant -1 : i32
// CHECK-NEXT:      [[MINUS1:%[0-9A-Za-z_]+]] = arith.cmpi eq, [[R1]], [[CM1]] : i32
// CHECK-NEXT:      [[BAD:%[0-9A-Za-z_]+]] = arith.ori [[ZERO]], [[MINUS1]] : i1
// CHECK-NEXT:      [[C1:%[0-9A-Za-z_]+]] = arith.constant 1 : i32
// CHECK-NEXT:      [[SAFE:%[0-9A-Za-z_]+]] = arith.select [[BAD]], [[C1]], [[R1]] : i32
// CHECK-NEXT:      [[Q:%[0-9A-Za-z_]+]] = arith.divsi [[R0]], [[SAFE]] : i32
// CHECK-NEXT:      [[C2:%[0-9A-Za-z_]+]] = arith.constant 0 : i32
// CHECK-NEXT:      [[NEG:%[0-9A-Za-z_]+]] = arith.subi [[C2]], [[R0]] : i32
// CHECK-NEXT:      [[Q1:%[0-9A-Za-z_]+]] = arith.select [[MINUS1]], [[NEG]], [[Q]] : i32
// CHECK-NEXT:      [[C3:%[0-9A-Za-z_]+]] = arith.constant 0 : i32
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.select [[ZERO]], [[C3]], [[Q1]] : i32
// CHECK-NEXT:      te.yield [[V0]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<4xi32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @divide_1 {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<4xf32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<4xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) : tensor<4xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]]] : tensor<4xf32>
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN1]]{{\[}}[[I0]]] : tensor<4xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.divf [[R0]], [[R1]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<4xf32>
// CHECK-NEXT:  }
func.func @main(%a: tensor<4xi32>, %b: tensor<4xi32>, %x: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>) {
  %0 = relay.divide %a, %b : tensor<4xi32>
  %1 = relay.divide %x, %x : tensor<4xf32>
  func.return %0, %1 : tensor<4xi32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x3xf32>, [[ARG1:%[0-9A-Za-z_]+]]: tensor<4xi32>) -> (tensor<2x3xf32>, tensor<4xi32>) {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @relu([[ARG0]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    [[CALL1:%[0-9A-Za-z_]+]] = te.call @relu_1([[ARG1]]) : (tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT:    func.return [[CALL0]], [[CALL1]] : tensor<2x3xf32>, tensor<4xi32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @relu {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x3xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) : tensor<2x3xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[I1]]] : tensor<2x3xf32>
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.maximumf [[R0]], [[C0]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<2x3xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @relu_1 {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<4xi32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) : tensor<4xi32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]]] : tensor<4xi32>
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : i32
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.maxsi [[R0]], [[C0]] : i32
// CHECK-NEXT:      te.yield [[V0]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<4xi32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3xf32>, %a: tensor<4xi32>) -> (tensor<2x3xf32>, tensor<4xi32>) {
  %0 = relay.relu %x : tensor<2x3xf32>
  %1 = relay.relu %a : tensor<4xi32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<4xi32>
}

// -----

// Weights stay relay.constant in the graph; the kernel sees a placeholder.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x3xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT:    [[V0:%[0-9A-Za-z_]+]] = relay.constant dense_resource<w0> : tensor<3x4xf32>
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @matmul([[ARG0]], [[V0]]) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<2x4xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @matmul {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x3xf32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<3x4xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) reduce sum ([[I2:%[0-9A-Za-z_]+]]) [3]{{( attributes \{schedule = ".*"\})?}} : tensor<2x4xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[I2]]] : tensor<2x3xf32>
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN1]]{{\[}}[[I2]], [[I1]]] : tensor<3x4xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.mulf [[R0]], [[R1]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<2x4xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = relay.constant dense_resource<w0> : tensor<3x4xf32>
  %0 = relay.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>)
  func.return %0 : tensor<2x4xf32>
}

// -----

// Batched matmul with broadcast batch dimensions (size 1 reads index 0, a missing
// one is dropped).
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x1x3x4xf32>, [[ARG1:%[0-9A-Za-z_]+]]: tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @matmul([[ARG0]], [[ARG1]]) : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<2x5x3x6xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @matmul {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x1x3x4xf32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<5x4x6xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]], [[I2:%[0-9A-Za-z_]+]], [[I3:%[0-9A-Za-z_]+]]) reduce sum ([[I4:%[0-9A-Za-z_]+]]) [4] attributes {schedule = "{{.*}}"} : tensor<2x5x3x6xf32> {
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[C0]], [[I2]], [[I4]]] : tensor<2x1x3x4xf32>
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN1]]{{\[}}[[I1]], [[I4]], [[I3]]] : tensor<5x4x6xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.mulf [[R0]], [[R1]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<2x5x3x6xf32>
// CHECK-NEXT:  }
func.func @main(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32> {
  %0 = relay.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>)
  func.return %0 : tensor<2x5x3x6xf32>
}

// -----

// 1-D operands: vector-matrix, matrix-vector and the dot product.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<4xf32>, [[ARG1:%[0-9A-Za-z_]+]]: tensor<4x6xf32>, [[ARG2:%[0-9A-Za-z_]+]]: tensor<3x4xf32>) -> (tensor<6xf32>, tensor<3xf32>, tensor<f32>) {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @matmul([[ARG0]], [[ARG1]]) : (tensor<4xf32>, tensor<4x6xf32>) -> tensor<6xf32>
// CHECK-NEXT:    [[CALL1:%[0-9A-Za-z_]+]] = te.call @matmul_1([[ARG2]], [[ARG0]]) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
// CHECK-NEXT:    [[CALL2:%[0-9A-Za-z_]+]] = te.call @matmul_2([[ARG0]], [[ARG0]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
// CHECK-NEXT:    func.return [[CALL0]], [[CALL1]], [[CALL2]] : tensor<6xf32>, tensor<3xf32>, tensor<f32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @matmul {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<4xf32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<4x6xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) reduce sum ([[I1:%[0-9A-Za-z_]+]]) [4] : tensor<6xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I1]]] : tensor<4xf32>
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN1]]{{\[}}[[I1]], [[I0]]] : tensor<4x6xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.mulf [[R0]], [[R1]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<6xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @matmul_1 {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<3x4xf32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<4xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) reduce sum ([[I1:%[0-9A-Za-z_]+]]) [4] : tensor<3xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[I1]]] : tensor<3x4xf32>
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN1]]{{\[}}[[I1]]] : tensor<4xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.mulf [[R0]], [[R1]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<3xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @matmul_2 {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<4xf32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<4xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute () reduce sum ([[I0:%[0-9A-Za-z_]+]]) [4] : tensor<f32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]]] : tensor<4xf32>
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN1]]{{\[}}[[I0]]] : tensor<4xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.mulf [[R0]], [[R1]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<f32>
// CHECK-NEXT:  }
func.func @main(%v: tensor<4xf32>, %m: tensor<4x6xf32>, %n: tensor<3x4xf32>) -> (tensor<6xf32>, tensor<3xf32>, tensor<f32>) {
  %0 = relay.matmul %v, %m : (tensor<4xf32>, tensor<4x6xf32>)
  %1 = relay.matmul %n, %v : (tensor<3x4xf32>, tensor<4xf32>)
  %2 = relay.matmul %v, %v : (tensor<4xf32>, tensor<4xf32>)
  func.return %0, %1, %2 : tensor<6xf32>, tensor<3xf32>, tensor<f32>
}

// -----

// dense with transpose_b (TVM's nn.dense) and a broadcast bias at alpha = beta = 1.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x3xf32>, [[ARG1:%[0-9A-Za-z_]+]]: tensor<4x3xf32>, [[ARG2:%[0-9A-Za-z_]+]]: tensor<4xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @dense([[ARG0]], [[ARG1]], [[ARG2]]) : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<2x4xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @dense {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x3xf32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<4x3xf32>
// CHECK-NEXT:    [[IN2:%[0-9A-Za-z_]+]] = te.placeholder "in2" : tensor<4xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) reduce sum ([[I2:%[0-9A-Za-z_]+]]) [3]{{( attributes \{schedule = ".*"\})?}} : tensor<2x4xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[I2]]] : tensor<2x3xf32>
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN1]]{{\[}}[[I1]], [[I2]]] : tensor<4x3xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.mulf [[R0]], [[R1]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    [[T1:%[0-9A-Za-z_]+]] = te.compute ([[I3:%[0-9A-Za-z_]+]], [[I4:%[0-9A-Za-z_]+]]) : tensor<2x4xf32> {
// CHECK-NEXT:      [[R2:%[0-9A-Za-z_]+]] = te.read [[T0]]{{\[}}[[I3]], [[I4]]] : tensor<2x4xf32>
// CHECK-NEXT:      [[R3:%[0-9A-Za-z_]+]] = te.read [[IN2]]{{\[}}[[I4]]] : tensor<4xf32>
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = arith.addf [[R2]], [[R3]] : f32
// CHECK-NEXT:      te.yield [[V1]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T1]] : tensor<2x4xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = relay.dense %x, %w, %b {transpose_b} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>)
  func.return %0 : tensor<2x4xf32>
}

// -----

// dense with transpose_a, alpha and beta: a reduction, then an epilogue compute.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<3x2xf32>, [[ARG1:%[0-9A-Za-z_]+]]: tensor<3x4xf32>, [[ARG2:%[0-9A-Za-z_]+]]: tensor<2x4xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @dense([[ARG0]], [[ARG1]], [[ARG2]]) : (tensor<3x2xf32>, tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<2x4xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @dense {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<3x2xf32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<3x4xf32>
// CHECK-NEXT:    [[IN2:%[0-9A-Za-z_]+]] = te.placeholder "in2" : tensor<2x4xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) reduce sum ([[I2:%[0-9A-Za-z_]+]]) [3]{{( attributes \{schedule = ".*"\})?}} : tensor<2x4xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I2]], [[I0]]] : tensor<3x2xf32>
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN1]]{{\[}}[[I2]], [[I1]]] : tensor<3x4xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.mulf [[R0]], [[R1]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    [[T1:%[0-9A-Za-z_]+]] = te.compute ([[I3:%[0-9A-Za-z_]+]], [[I4:%[0-9A-Za-z_]+]]) : tensor<2x4xf32> {
// CHECK-NEXT:      [[R2:%[0-9A-Za-z_]+]] = te.read [[T0]]{{\[}}[[I3]], [[I4]]] : tensor<2x4xf32>
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = arith.mulf [[R2]], [[C0]] : f32
// CHECK-NEXT:      [[R3:%[0-9A-Za-z_]+]] = te.read [[IN2]]{{\[}}[[I3]], [[I4]]] : tensor<2x4xf32>
// CHECK-NEXT:      [[C1:%[0-9A-Za-z_]+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.mulf [[R3]], [[C1]] : f32
// CHECK-NEXT:      [[V3:%[0-9A-Za-z_]+]] = arith.addf [[V1]], [[V2]] : f32
// CHECK-NEXT:      te.yield [[V3]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T1]] : tensor<2x4xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<3x2xf32>, %k: tensor<3x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = relay.dense %x, %k, %c {transpose_a, alpha = 2.0 : f64, beta = 0.5 : f64} : (tensor<3x2xf32>, tensor<3x4xf32>, tensor<2x4xf32>)
  func.return %0 : tensor<2x4xf32>
}

// -----

// dense without a bias at alpha = 1 is the reduction alone; beta = 0 drops the bias.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x3xf32>, [[ARG1:%[0-9A-Za-z_]+]]: tensor<3x4xf32>, [[ARG2:%[0-9A-Za-z_]+]]: tensor<4xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @dense([[ARG0]], [[ARG1]], [[ARG2]]) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<2x4xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @dense {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x3xf32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<3x4xf32>
// CHECK-NEXT:    [[IN2:%[0-9A-Za-z_]+]] = te.placeholder "in2" : tensor<4xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) reduce sum ([[I2:%[0-9A-Za-z_]+]]) [3]{{( attributes \{schedule = ".*"\})?}} : tensor<2x4xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[I2]]] : tensor<2x3xf32>
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN1]]{{\[}}[[I2]], [[I1]]] : tensor<3x4xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.mulf [[R0]], [[R1]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<2x4xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3xf32>, %k: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = relay.dense %x, %k, %b {beta = 0.0 : f64} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>)
  func.return %0 : tensor<2x4xf32>
}

// -----

// softmax: max-reduce, shifted exp, sum-reduce, times the sum's reciprocal.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @softmax([[ARG0]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<2x3xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @softmax {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x3xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) reduce max ([[I1:%[0-9A-Za-z_]+]]) [3] : tensor<2xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[I1]]] : tensor<2x3xf32>
// CHECK-NEXT:      te.yield [[R0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    [[T1:%[0-9A-Za-z_]+]] = te.compute ([[I2:%[0-9A-Za-z_]+]], [[I3:%[0-9A-Za-z_]+]]) : tensor<2x3xf32> {
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I2]], [[I3]]] : tensor<2x3xf32>
// CHECK-NEXT:      [[R2:%[0-9A-Za-z_]+]] = te.read [[T0]]{{\[}}[[I2]]] : tensor<2xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.subf [[R1]], [[R2]] : f32
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = math.exp [[V0]] : f32
// CHECK-NEXT:      te.yield [[V1]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    [[T2:%[0-9A-Za-z_]+]] = te.compute ([[I4:%[0-9A-Za-z_]+]]) reduce sum ([[I5:%[0-9A-Za-z_]+]]) [3] : tensor<2xf32> {
// CHECK-NEXT:      [[R3:%[0-9A-Za-z_]+]] = te.read [[T1]]{{\[}}[[I4]], [[I5]]] : tensor<2x3xf32>
// CHECK-NEXT:      te.yield [[R3]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    [[T3:%[0-9A-Za-z_]+]] = te.compute ([[I6:%[0-9A-Za-z_]+]], [[I7:%[0-9A-Za-z_]+]]) : tensor<2x3xf32> {
// CHECK-NEXT:      [[R4:%[0-9A-Za-z_]+]] = te.read [[T1]]{{\[}}[[I6]], [[I7]]] : tensor<2x3xf32>
// CHECK-NEXT:      [[R5:%[0-9A-Za-z_]+]] = te.read [[T2]]{{\[}}[[I6]]] : tensor<2xf32>
// CHECK-NEXT:      [[ONE:%[0-9A-Za-z_]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      [[INV:%[0-9A-Za-z_]+]] = arith.divf [[ONE]], [[R5]] : f32
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.mulf [[R4]], [[INV]] : f32
// CHECK-NEXT:      te.yield [[V2]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T3]] : tensor<2x3xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.softmax %x {axis = 1 : i64} : tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// softmax over a leading axis: the reduce axis goes back in its place.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @softmax([[ARG0]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<2x3xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @softmax {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x3xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) reduce max ([[I1:%[0-9A-Za-z_]+]]) [2] : tensor<3xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I1]], [[I0]]] : tensor<2x3xf32>
// CHECK-NEXT:      te.yield [[R0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    [[T1:%[0-9A-Za-z_]+]] = te.compute ([[I2:%[0-9A-Za-z_]+]], [[I3:%[0-9A-Za-z_]+]]) : tensor<2x3xf32> {
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I2]], [[I3]]] : tensor<2x3xf32>
// CHECK-NEXT:      [[R2:%[0-9A-Za-z_]+]] = te.read [[T0]]{{\[}}[[I3]]] : tensor<3xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.subf [[R1]], [[R2]] : f32
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = math.exp [[V0]] : f32
// CHECK-NEXT:      te.yield [[V1]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    [[T2:%[0-9A-Za-z_]+]] = te.compute ([[I4:%[0-9A-Za-z_]+]]) reduce sum ([[I5:%[0-9A-Za-z_]+]]) [2] : tensor<3xf32> {
// CHECK-NEXT:      [[R3:%[0-9A-Za-z_]+]] = te.read [[T1]]{{\[}}[[I5]], [[I4]]] : tensor<2x3xf32>
// CHECK-NEXT:      te.yield [[R3]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    [[T3:%[0-9A-Za-z_]+]] = te.compute ([[I6:%[0-9A-Za-z_]+]], [[I7:%[0-9A-Za-z_]+]]) : tensor<2x3xf32> {
// CHECK-NEXT:      [[R4:%[0-9A-Za-z_]+]] = te.read [[T1]]{{\[}}[[I6]], [[I7]]] : tensor<2x3xf32>
// CHECK-NEXT:      [[R5:%[0-9A-Za-z_]+]] = te.read [[T2]]{{\[}}[[I7]]] : tensor<3xf32>
// CHECK-NEXT:      [[ONE:%[0-9A-Za-z_]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      [[INV:%[0-9A-Za-z_]+]] = arith.divf [[ONE]], [[R5]] : f32
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.mulf [[R4]], [[INV]] : f32
// CHECK-NEXT:      te.yield [[V2]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T3]] : tensor<2x3xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.softmax %x {axis = 0 : i64} : tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// reshape: linearize the output index, delinearize into the input shape (the
// outermost axis takes the quotient, with no remainder).
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x3xf32>) -> tensor<3x2xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @reshape([[ARG0]]) : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<3x2xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @reshape {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x3xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) : tensor<3x2xf32> {
// CHECK-NEXT:      [[C2:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.muli [[I0]], [[C2]] : index
// CHECK-NEXT:      [[V3:%[0-9A-Za-z_]+]] = arith.addi [[V2]], [[I1]] : index
// CHECK-NEXT:      [[C3:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:      [[V4:%[0-9A-Za-z_]+]] = arith.remui [[V3]], [[C3]] : index
// CHECK-NEXT:      [[V5:%[0-9A-Za-z_]+]] = arith.divui [[V3]], [[C3]] : index
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[V5]], [[V4]]] : tensor<2x3xf32>
// CHECK-NEXT:      te.yield [[R0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<3x2xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = relay.reshape %x {shape = array<i64: 3, 2>} : (tensor<2x3xf32>)
  func.return %0 : tensor<3x2xf32>
}

// -----

// transpose: output dim i is input dim perm[i].
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @transpose([[ARG0]]) : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<4x2x3xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @transpose {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x3x4xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]], [[I2:%[0-9A-Za-z_]+]]) : tensor<4x2x3xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I1]], [[I2]], [[I0]]] : tensor<2x3x4xf32>
// CHECK-NEXT:      te.yield [[R0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<4x2x3xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = relay.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>)
  func.return %0 : tensor<4x2x3xf32>
}

// -----

// Two uses of one op kind: structurally identical kernels are emitted once (under
// a name that does not clash with @relu, a non-graph function that is kept) and
// called twice.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @relu_1([[ARG0]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    [[CALL1:%[0-9A-Za-z_]+]] = te.call @relu_1([[CALL0]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return [[CALL1]] : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @relu {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "A" : tensor<4xf32>
// CHECK-NEXT:    te.output [[IN0]] : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @relu_1 {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<4xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) : tensor<4xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]]] : tensor<4xf32>
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.maximumf [[R0]], [[C0]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NOT:   te.func @relu_2
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.relu %x : tensor<4xf32>
  %1 = relay.relu %0 : tensor<4xf32>
  func.return %1 : tensor<4xf32>
}
te.func @relu {
  %A = te.placeholder "A" : tensor<4xf32>
  te.output %A : tensor<4xf32>
}

// -----

// Two groups alike but for the constants inside them (two layers' weights): the
// constants are hoisted out as operands, and both groups call one kernel; a group
// of other types gets its own.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[X:%[0-9A-Za-z_]+]]: tensor<4xf32>, [[Y:%[0-9A-Za-z_]+]]: tensor<8xf32>)
// CHECK:         [[C0:%[0-9A-Za-z_]+]] = relay.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK:         [[A:%[0-9A-Za-z_]+]] = te.call @fused_add_relu([[X]], [[C0]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK:         [[C1:%[0-9A-Za-z_]+]] = relay.constant dense<[5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<4xf32>
// CHECK:         [[B:%[0-9A-Za-z_]+]] = te.call @fused_add_relu([[A]], [[C1]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK:         te.call @fused_add_relu_1([[Y]], {{%[0-9A-Za-z_]+}}) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-COUNT-2: te.func @fused_add_relu
// CHECK-NOT:     te.func
func.func @main(%x: tensor<4xf32>, %y: tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  %0 = relay.fused(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %c = relay.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %s = relay.add %a, %c : tensor<4xf32>
    %r = relay.relu %s : tensor<4xf32>
    relay.yield %r : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = relay.fused(%0) ({
  ^bb0(%a: tensor<4xf32>):
    %c = relay.constant dense<[5.0, 6.0, 7.0, 8.0]> : tensor<4xf32>
    %s = relay.add %a, %c : tensor<4xf32>
    %r = relay.relu %s : tensor<4xf32>
    relay.yield %r : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = relay.fused(%y) ({
  ^bb0(%a: tensor<8xf32>):
    %c = relay.constant dense<1.0> : tensor<8xf32>
    %s = relay.add %a, %c : tensor<8xf32>
    %r = relay.relu %s : tensor<8xf32>
    relay.yield %r : tensor<8xf32>
  }) : (tensor<8xf32>) -> tensor<8xf32>
  func.return %1, %2 : tensor<4xf32>, tensor<8xf32>
}

// -----

// conv2d: grouped (the input channel from the output channel's group), strided and
// padded; padded reads are clamped into the input and replaced by 0 outside. It
// gets the window schedule: lanes along the output columns, a tile of rows.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<1x2x4x4xf32>, [[ARG1:%[0-9A-Za-z_]+]]: tensor<4x1x3x3xf32>) -> tensor<1x4x2x4xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @conv2d([[ARG0]], [[ARG1]]) : (tensor<1x2x4x4xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x2x4xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<1x4x2x4xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @conv2d {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<1x2x4x4xf32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<4x1x3x3xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]], [[I2:%[0-9A-Za-z_]+]], [[I3:%[0-9A-Za-z_]+]]) reduce sum ([[I4:%[0-9A-Za-z_]+]], [[I5:%[0-9A-Za-z_]+]], [[I6:%[0-9A-Za-z_]+]]) [1, 3, 3] attributes {schedule = "split(i2, 2); split(i3, 4); reorder(i0, i1, i2.o, i3.o, r0, r1, r2, i2.i, i3.i); {{.*}}; cache_write({{.*}}); unroll(i2.i); vectorize(i3.i)"} : tensor<1x4x2x4xf32> {
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.divui [[I1]], [[C0]] : index
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = arith.addi [[V0]], [[I4]] : index
// CHECK-NEXT:      [[C1:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.muli [[I2]], [[C1]] : index
// CHECK-NEXT:      [[V3:%[0-9A-Za-z_]+]] = arith.addi [[V2]], [[I5]] : index
// CHECK-NEXT:      [[C2:%[0-9A-Za-z_]+]] = arith.constant -1 : index
// CHECK-NEXT:      [[V4:%[0-9A-Za-z_]+]] = arith.addi [[V3]], [[C2]] : index
// CHECK-NEXT:      [[V5:%[0-9A-Za-z_]+]] = arith.addi [[I3]], [[I6]] : index
// CHECK-NEXT:      [[C3:%[0-9A-Za-z_]+]] = arith.constant -1 : index
// CHECK-NEXT:      [[V6:%[0-9A-Za-z_]+]] = arith.addi [[V5]], [[C3]] : index
// CHECK-NEXT:      [[C4:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V7:%[0-9A-Za-z_]+]] = arith.cmpi sge, [[V4]], [[C4]] : index
// CHECK-NEXT:      [[C5:%[0-9A-Za-z_]+]] = arith.constant 4 : index
// CHECK-NEXT:      [[V8:%[0-9A-Za-z_]+]] = arith.cmpi slt, [[V4]], [[C5]] : index
// CHECK-NEXT:      [[V9:%[0-9A-Za-z_]+]] = arith.andi [[V7]], [[V8]] : i1
// CHECK-NEXT:      [[C6:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V10:%[0-9A-Za-z_]+]] = arith.maxsi [[V4]], [[C6]] : index
// CHECK-NEXT:      [[C7:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:      [[V11:%[0-9A-Za-z_]+]] = arith.minsi [[V10]], [[C7]] : index
// CHECK-NEXT:      [[C8:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V12:%[0-9A-Za-z_]+]] = arith.cmpi sge, [[V6]], [[C8]] : index
// CHECK-NEXT:      [[C9:%[0-9A-Za-z_]+]] = arith.constant 4 : index
// CHECK-NEXT:      [[V13:%[0-9A-Za-z_]+]] = arith.cmpi slt, [[V6]], [[C9]] : index
// CHECK-NEXT:      [[V14:%[0-9A-Za-z_]+]] = arith.andi [[V12]], [[V13]] : i1
// CHECK-NEXT:      [[C10:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V15:%[0-9A-Za-z_]+]] = arith.maxsi [[V6]], [[C10]] : index
// CHECK-NEXT:      [[C11:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:      [[V16:%[0-9A-Za-z_]+]] = arith.minsi [[V15]], [[C11]] : index
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[V1]], [[V11]], [[V16]]] : tensor<1x2x4x4xf32>
// CHECK-NEXT:      [[V17:%[0-9A-Za-z_]+]] = arith.andi [[V9]], [[V14]] : i1
// CHECK-NEXT:      [[C12:%[0-9A-Za-z_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      [[V18:%[0-9A-Za-z_]+]] = arith.select [[V17]], [[R0]], [[C12]] : f32
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN1]]{{\[}}[[I1]], [[I4]], [[I5]], [[I6]]] : tensor<4x1x3x3xf32>
// CHECK-NEXT:      [[V19:%[0-9A-Za-z_]+]] = arith.mulf [[V18]], [[R1]] : f32
// CHECK-NEXT:      te.yield [[V19]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<1x4x2x4xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<1x2x4x4xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x2x4xf32> {
  %0 = relay.conv2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 1, 0, 1>, groups = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<4x1x3x3xf32>)
  func.return %0 : tensor<1x4x2x4xf32>
}

// -----

// max_pool2d without padding: windows stay inside, so reads are not guarded.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @max_pool2d([[ARG0]]) : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<1x1x2x2xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @max_pool2d {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<1x1x4x4xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]], [[I2:%[0-9A-Za-z_]+]], [[I3:%[0-9A-Za-z_]+]]) reduce max ([[I4:%[0-9A-Za-z_]+]], [[I5:%[0-9A-Za-z_]+]]) [2, 2] attributes {schedule = "split(i2, 2); split(i3, 2); reorder(i0, i1, i2.o, i3.o, r0, r1, i2.i, i3.i); {{.*}}; vectorize(i3.i)"} : tensor<1x1x2x2xf32> {
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.muli [[I2]], [[C0]] : index
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = arith.addi [[V0]], [[I4]] : index
// CHECK-NEXT:      [[C1:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.muli [[I3]], [[C1]] : index
// CHECK-NEXT:      [[V3:%[0-9A-Za-z_]+]] = arith.addi [[V2]], [[I5]] : index
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[I1]], [[V1]], [[V3]]] : tensor<1x1x4x4xf32>
// CHECK-NEXT:      te.yield [[R0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<1x1x2x2xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %0 = relay.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>)
  func.return %0 : tensor<1x1x2x2xf32>
}

// -----

// avg_pool1d with padding: a guarded sum, then a divide by the number of taps
// inside the input, computed from the output index.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<1x1x3xf32>) -> tensor<1x1x3xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @avg_pool1d([[ARG0]]) : (tensor<1x1x3xf32>) -> tensor<1x1x3xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<1x1x3xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @avg_pool1d {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<1x1x3xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]], [[I2:%[0-9A-Za-z_]+]]) reduce sum ([[I3:%[0-9A-Za-z_]+]]) [2] attributes {schedule = "{{.*}}vectorize(i2.i)"} : tensor<1x1x3xf32> {
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.addi [[I2]], [[I3]] : index
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant -1 : index
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = arith.addi [[V0]], [[C0]] : index
// CHECK-NEXT:      [[C1:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.cmpi sge, [[V1]], [[C1]] : index
// CHECK-NEXT:      [[C2:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:      [[V3:%[0-9A-Za-z_]+]] = arith.cmpi slt, [[V1]], [[C2]] : index
// CHECK-NEXT:      [[V4:%[0-9A-Za-z_]+]] = arith.andi [[V2]], [[V3]] : i1
// CHECK-NEXT:      [[C3:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V5:%[0-9A-Za-z_]+]] = arith.maxsi [[V1]], [[C3]] : index
// CHECK-NEXT:      [[C4:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:      [[V6:%[0-9A-Za-z_]+]] = arith.minsi [[V5]], [[C4]] : index
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[I1]], [[V6]]] : tensor<1x1x3xf32>
// CHECK-NEXT:      [[C5:%[0-9A-Za-z_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      [[V7:%[0-9A-Za-z_]+]] = arith.select [[V4]], [[R0]], [[C5]] : f32
// CHECK-NEXT:      te.yield [[V7]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    [[T1:%[0-9A-Za-z_]+]] = te.compute ([[I4:%[0-9A-Za-z_]+]], [[I5:%[0-9A-Za-z_]+]], [[I6:%[0-9A-Za-z_]+]]) : tensor<1x1x3xf32> {
// CHECK-NEXT:      [[C6:%[0-9A-Za-z_]+]] = arith.constant -1 : index
// CHECK-NEXT:      [[V8:%[0-9A-Za-z_]+]] = arith.addi [[I6]], [[C6]] : index
// CHECK-NEXT:      [[C7:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:      [[V9:%[0-9A-Za-z_]+]] = arith.subi [[C7]], [[V8]] : index
// CHECK-NEXT:      [[C8:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V10:%[0-9A-Za-z_]+]] = arith.maxsi [[V9]], [[C8]] : index
// CHECK-NEXT:      [[C9:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:      [[V11:%[0-9A-Za-z_]+]] = arith.minsi [[V10]], [[C9]] : index
// CHECK-NEXT:      [[C10:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V12:%[0-9A-Za-z_]+]] = arith.subi [[C10]], [[V8]] : index
// CHECK-NEXT:      [[C11:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V13:%[0-9A-Za-z_]+]] = arith.maxsi [[V12]], [[C11]] : index
// CHECK-NEXT:      [[C12:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:      [[V14:%[0-9A-Za-z_]+]] = arith.minsi [[V13]], [[C12]] : index
// CHECK-NEXT:      [[V15:%[0-9A-Za-z_]+]] = arith.subi [[V11]], [[V14]] : index
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[T0]]{{\[}}[[I4]], [[I5]], [[I6]]] : tensor<1x1x3xf32>
// CHECK-NEXT:      [[V16:%[0-9A-Za-z_]+]] = arith.index_cast [[V15]] : index to i64
// CHECK-NEXT:      [[V17:%[0-9A-Za-z_]+]] = arith.sitofp [[V16]] : i64 to f32
// CHECK-NEXT:      [[V18:%[0-9A-Za-z_]+]] = arith.divf [[R1]], [[V17]] : f32
// CHECK-NEXT:      te.yield [[V18]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T1]] : tensor<1x1x3xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<1x1x3xf32>) -> tensor<1x1x3xf32> {
  %0 = relay.avg_pool1d %x {pool_size = array<i64: 2>, padding = array<i64: 1, 0>} : (tensor<1x1x3xf32>)
  func.return %0 : tensor<1x1x3xf32>
}

// -----

// split: one compute per result, each reading its slice.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<2x2xf32>) {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]], [[CALL1:%[0-9A-Za-z_]+]] = te.call @split([[ARG0]]) : (tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<2x2xf32>)
// CHECK-NEXT:    func.return [[CALL0]], [[CALL1]] : tensor<2x1xf32>, tensor<2x2xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @split {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x3xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) : tensor<2x1xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[I1]]] : tensor<2x3xf32>
// CHECK-NEXT:      te.yield [[R0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    [[T1:%[0-9A-Za-z_]+]] = te.compute ([[I2:%[0-9A-Za-z_]+]], [[I3:%[0-9A-Za-z_]+]]) : tensor<2x2xf32> {
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.addi [[I3]], [[C0]] : index
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I2]], [[V0]]] : tensor<2x3xf32>
// CHECK-NEXT:      te.yield [[R1]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]], [[T1]] : tensor<2x1xf32>, tensor<2x2xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<2x2xf32>) {
  %0, %1 = relay.split %x {axis = 1 : i64, indices = array<i64: 1>} : (tensor<2x3xf32>)
  func.return %0, %1 : tensor<2x1xf32>, tensor<2x2xf32>
}

// -----

// mean: a sum over the axis (kept as size 1), then a divide by its extent.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @mean([[ARG0]]) : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<2x1x4xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @mean {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x3x4xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]], [[I2:%[0-9A-Za-z_]+]]) reduce sum ([[I3:%[0-9A-Za-z_]+]]) [3] : tensor<2x1x4xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[I3]], [[I2]]] : tensor<2x3x4xf32>
// CHECK-NEXT:      te.yield [[R0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    [[T1:%[0-9A-Za-z_]+]] = te.compute ([[I4:%[0-9A-Za-z_]+]], [[I5:%[0-9A-Za-z_]+]], [[I6:%[0-9A-Za-z_]+]]) : tensor<2x1x4xf32> {
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[T0]]{{\[}}[[I4]], [[I5]], [[I6]]] : tensor<2x1x4xf32>
// CHECK-NEXT:      [[R2:%[0-9A-Za-z_]+]] = te.read [[T0]]{{\[}}[[I4]], [[I5]], [[I6]]] : tensor<2x1x4xf32>
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.divf [[R1]], [[C0]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T1]] : tensor<2x1x4xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %0 = relay.mean %x {axes = array<i64: 1>, keepdims} : (tensor<2x3x4xf32>)
  func.return %0 : tensor<2x1x4xf32>
}

// -----

// argmax: the maximum, then the first index holding it (or NaN) by a min-reduce.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x3xf32>) -> tensor<2xi64> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @argmax([[ARG0]]) : (tensor<2x3xf32>) -> tensor<2xi64>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<2xi64>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @argmax {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x3xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) reduce max ([[I2:%[0-9A-Za-z_]+]]) [3] : tensor<2x1xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[I2]]] : tensor<2x3xf32>
// CHECK-NEXT:      te.yield [[R0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    [[T1:%[0-9A-Za-z_]+]] = te.compute ([[I3:%[0-9A-Za-z_]+]]) reduce min ([[I4:%[0-9A-Za-z_]+]]) [3] : tensor<2xi64> {
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I3]], [[I4]]] : tensor<2x3xf32>
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[R2:%[0-9A-Za-z_]+]] = te.read [[T0]]{{\[}}[[I3]], [[C0]]] : tensor<2x1xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.cmpf oeq, [[R1]], [[R2]] : f32
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = arith.cmpf uno, [[R1]], [[R1]] : f32
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.ori [[V0]], [[V1]] : i1
// CHECK-NEXT:      [[C1:%[0-9A-Za-z_]+]] = arith.constant 3 : i64
// CHECK-NEXT:      [[V3:%[0-9A-Za-z_]+]] = arith.index_cast [[I4]] : index to i64
// CHECK-NEXT:      [[V4:%[0-9A-Za-z_]+]] = arith.select [[V2]], [[V3]], [[C1]] : i64
// CHECK-NEXT:      te.yield [[V4]] : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T1]] : tensor<2xi64>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  %0 = relay.argmax %x {axis = 1 : i64} : (tensor<2x3xf32>)
  func.return %0 : tensor<2xi64>
}

// -----

// take: the index read from the tensor wraps when negative and is clamped.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<4xf32>, [[ARG1:%[0-9A-Za-z_]+]]: tensor<2xi64>) -> tensor<2xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @take([[ARG0]], [[ARG1]]) : (tensor<4xf32>, tensor<2xi64>) -> tensor<2xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<2xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @take {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<4xf32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<2xi64>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) : tensor<2xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN1]]{{\[}}[[I0]]] : tensor<2xi64>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.index_cast [[R0]] : i64 to index
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = arith.cmpi slt, [[V0]], [[C0]] : index
// CHECK-NEXT:      [[C1:%[0-9A-Za-z_]+]] = arith.constant 4 : index
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.addi [[V0]], [[C1]] : index
// CHECK-NEXT:      [[V3:%[0-9A-Za-z_]+]] = arith.select [[V1]], [[V2]], [[V0]] : index
// CHECK-NEXT:      [[C2:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V4:%[0-9A-Za-z_]+]] = arith.maxsi [[V3]], [[C2]] : index
// CHECK-NEXT:      [[C3:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:      [[V5:%[0-9A-Za-z_]+]] = arith.minsi [[V4]], [[C3]] : index
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[V5]]] : tensor<4xf32>
// CHECK-NEXT:      te.yield [[R1]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<2xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  %0 = relay.take %x, %i {axis = 0 : i64} : (tensor<4xf32>, tensor<2xi64>)
  func.return %0 : tensor<2xf32>
}

// -----

// pad reflect: the source index is mirrored with period 2 * (n - 1).
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<3xf32>) -> tensor<6xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @pad([[ARG0]]) : (tensor<3xf32>) -> tensor<6xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<6xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @pad {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<3xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) : tensor<6xf32> {
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant -2 : index
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.addi [[I0]], [[C0]] : index
// CHECK-NEXT:      [[C1:%[0-9A-Za-z_]+]] = arith.constant 4 : index
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = arith.remsi [[V0]], [[C1]] : index
// CHECK-NEXT:      [[C2:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.cmpi slt, [[V1]], [[C2]] : index
// CHECK-NEXT:      [[V3:%[0-9A-Za-z_]+]] = arith.addi [[V1]], [[C1]] : index
// CHECK-NEXT:      [[V4:%[0-9A-Za-z_]+]] = arith.select [[V2]], [[V3]], [[V1]] : index
// CHECK-NEXT:      [[C4:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:      [[V5:%[0-9A-Za-z_]+]] = arith.cmpi slt, [[V4]], [[C4]] : index
// CHECK-NEXT:      [[C5:%[0-9A-Za-z_]+]] = arith.constant 4 : index
// CHECK-NEXT:      [[V6:%[0-9A-Za-z_]+]] = arith.subi [[C5]], [[V4]] : index
// CHECK-NEXT:      [[V7:%[0-9A-Za-z_]+]] = arith.select [[V5]], [[V4]], [[V6]] : index
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[V7]]] : tensor<3xf32>
// CHECK-NEXT:      te.yield [[R0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<6xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<3xf32>) -> tensor<6xf32> {
  %0 = relay.pad %x {pad_width = array<i64: 2, 1>, pad_mode = "reflect"} : (tensor<3xf32>)
  func.return %0 : tensor<6xf32>
}

// -----

// pad constant: reads outside the input give pad_value.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<3xf32>) -> tensor<5xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @pad([[ARG0]]) : (tensor<3xf32>) -> tensor<5xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<5xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @pad {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<3xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) : tensor<5xf32> {
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant -1 : index
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.addi [[I0]], [[C0]] : index
// CHECK-NEXT:      [[C1:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = arith.cmpi sge, [[V0]], [[C1]] : index
// CHECK-NEXT:      [[C2:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.cmpi slt, [[V0]], [[C2]] : index
// CHECK-NEXT:      [[V3:%[0-9A-Za-z_]+]] = arith.andi [[V1]], [[V2]] : i1
// CHECK-NEXT:      [[C3:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V4:%[0-9A-Za-z_]+]] = arith.maxsi [[V0]], [[C3]] : index
// CHECK-NEXT:      [[C4:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:      [[V5:%[0-9A-Za-z_]+]] = arith.minsi [[V4]], [[C4]] : index
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[V5]]] : tensor<3xf32>
// CHECK-NEXT:      [[C5:%[0-9A-Za-z_]+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      [[V6:%[0-9A-Za-z_]+]] = arith.select [[V3]], [[R0]], [[C5]] : f32
// CHECK-NEXT:      te.yield [[V6]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<5xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<3xf32>) -> tensor<5xf32> {
  %0 = relay.pad %x {pad_width = array<i64: 1, 1>, pad_value = 2.0 : f64} : (tensor<3xf32>)
  func.return %0 : tensor<5xf32>
}

// -----

// concatenate: each operand is read at a clamped index; the right one is selected.
// (Its operands are not whole 64-byte blocks, so it is a kernel: concat-in-place.mlir.)
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2xf32>, [[ARG1:%[0-9A-Za-z_]+]]: tensor<1xf32>) -> tensor<3xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @concatenate([[ARG0]], [[ARG1]]) : (tensor<2xf32>, tensor<1xf32>) -> tensor<3xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<3xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @concatenate {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2xf32>
// CHECK-NEXT:    [[IN1:%[0-9A-Za-z_]+]] = te.placeholder "in1" : tensor<1xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) : tensor<3xf32> {
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant -2 : index
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.addi [[I0]], [[C0]] : index
// CHECK-NEXT:      [[C1:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = arith.maxsi [[V0]], [[C1]] : index
// CHECK-NEXT:      [[C2:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.minsi [[V1]], [[C2]] : index
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN1]]{{\[}}[[V2]]] : tensor<1xf32>
// CHECK-NEXT:      [[C3:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V3:%[0-9A-Za-z_]+]] = arith.maxsi [[I0]], [[C3]] : index
// CHECK-NEXT:      [[C4:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:      [[V4:%[0-9A-Za-z_]+]] = arith.minsi [[V3]], [[C4]] : index
// CHECK-NEXT:      [[R1:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[V4]]] : tensor<2xf32>
// CHECK-NEXT:      [[C5:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:      [[V5:%[0-9A-Za-z_]+]] = arith.cmpi slt, [[I0]], [[C5]] : index
// CHECK-NEXT:      [[V6:%[0-9A-Za-z_]+]] = arith.select [[V5]], [[R1]], [[R0]] : f32
// CHECK-NEXT:      te.yield [[V6]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<3xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2xf32>, %y: tensor<1xf32>) -> tensor<3xf32> {
  %0 = relay.concatenate %x, %y {axis = 0 : i64} : (tensor<2xf32>, tensor<1xf32>)
  func.return %0 : tensor<3xf32>
}

// -----

// cast: float to i8 goes through i32 (as C converts); to i1 it is `!= 0`.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<4xf32>) -> (tensor<4xi8>, tensor<4xi1>) {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @cast([[ARG0]]) : (tensor<4xf32>) -> tensor<4xi8>
// CHECK-NEXT:    [[CALL1:%[0-9A-Za-z_]+]] = te.call @cast_1([[ARG0]]) : (tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:    func.return [[CALL0]], [[CALL1]] : tensor<4xi8>, tensor<4xi1>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @cast {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<4xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) : tensor<4xi8> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]]] : tensor<4xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.fptosi [[R0]] : f32 to i32
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = arith.trunci [[V0]] : i32 to i8
// CHECK-NEXT:      te.yield [[V1]] : i8
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<4xi8>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @cast_1 {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<4xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) : tensor<4xi1> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]]] : tensor<4xf32>
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.cmpf une, [[R0]], [[C0]] : f32
// CHECK-NEXT:      te.yield [[V0]] : i1
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<4xi1>
// CHECK-NEXT:  }
func.func @main(%x: tensor<4xf32>) -> (tensor<4xi8>, tensor<4xi1>) {
  %0 = relay.cast %x {dtype = i8} : (tensor<4xf32>)
  %1 = relay.cast %x {dtype = i1} : (tensor<4xf32>)
  func.return %0, %1 : tensor<4xi8>, tensor<4xi1>
}

// -----

// resize nearest (asymmetric, floor): the f64 coordinate y / scale, rounded down
// and clamped.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<1x2xf32>) -> tensor<1x4xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @resize([[ARG0]]) : (tensor<1x2xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<1x4xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @resize {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<1x2xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) : tensor<1x4xf32> {
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.index_cast [[I1]] : index to i64
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = arith.sitofp [[V0]] : i64 to f64
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.divf [[V1]], [[C0]] : f64
// CHECK-NEXT:      [[V3:%[0-9A-Za-z_]+]] = math.floor [[V2]] : f64
// CHECK-NEXT:      [[V4:%[0-9A-Za-z_]+]] = arith.fptosi [[V3]] : f64 to i64
// CHECK-NEXT:      [[V5:%[0-9A-Za-z_]+]] = arith.index_cast [[V4]] : i64 to index
// CHECK-NEXT:      [[C1:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V6:%[0-9A-Za-z_]+]] = arith.maxsi [[V5]], [[C1]] : index
// CHECK-NEXT:      [[C2:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:      [[V7:%[0-9A-Za-z_]+]] = arith.minsi [[V6]], [[C2]] : index
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]], [[V7]]] : tensor<1x2xf32>
// CHECK-NEXT:      te.yield [[R0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<1x4xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<1x2xf32>) -> tensor<1x4xf32> {
  %0 = relay.resize %x {size = array<i64: 1, 4>, coordinate_transformation_mode = "asymmetric", rounding_method = "floor"} : (tensor<1x2xf32>)
  func.return %0 : tensor<1x4xf32>
}

// -----

// A kernel never takes the name of a C library function: `exp` would be the libm
// symbol LLVM calls for llvm.exp.f64.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @exp_1([[ARG0]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @exp_1 {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<4xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) : tensor<4xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]]] : tensor<4xf32>
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = math.exp [[R0]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<4xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.exp %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
