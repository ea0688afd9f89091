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

// Integer division is signed and truncating; float division is divf.
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
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.divsi [[R0]], [[R1]] : i32
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
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) reduce sum ([[I2:%[0-9A-Za-z_]+]]) [3] : tensor<2x4xf32> {
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
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]], [[I2:%[0-9A-Za-z_]+]], [[I3:%[0-9A-Za-z_]+]]) reduce sum ([[I4:%[0-9A-Za-z_]+]]) [4] : tensor<2x5x3x6xf32> {
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
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) reduce sum ([[I2:%[0-9A-Za-z_]+]]) [3] : tensor<2x4xf32> {
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
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) reduce sum ([[I2:%[0-9A-Za-z_]+]]) [3] : tensor<2x4xf32> {
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
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) reduce sum ([[I2:%[0-9A-Za-z_]+]]) [3] : tensor<2x4xf32> {
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

// softmax: max-reduce, shifted exp, sum-reduce, divide.
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
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.divf [[R4]], [[R5]] : f32
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
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.divf [[R4]], [[R5]] : f32
// CHECK-NEXT:      te.yield [[V2]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T3]] : tensor<2x3xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = relay.softmax %x {axis = 0 : i64} : tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// reshape: linearize the output index, delinearize into the input shape.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<2x3xf32>) -> tensor<3x2xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @reshape([[ARG0]]) : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    func.return [[CALL0]] : tensor<3x2xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: te.func @reshape {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<2x3xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]], [[I1:%[0-9A-Za-z_]+]]) : tensor<3x2xf32> {
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[C1:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.muli [[C0]], [[C1]] : index
// CHECK-NEXT:      [[V1:%[0-9A-Za-z_]+]] = arith.addi [[V0]], [[I0]] : index
// CHECK-NEXT:      [[C2:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:      [[V2:%[0-9A-Za-z_]+]] = arith.muli [[V1]], [[C2]] : index
// CHECK-NEXT:      [[V3:%[0-9A-Za-z_]+]] = arith.addi [[V2]], [[I1]] : index
// CHECK-NEXT:      [[C3:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:      [[V4:%[0-9A-Za-z_]+]] = arith.remui [[V3]], [[C3]] : index
// CHECK-NEXT:      [[V5:%[0-9A-Za-z_]+]] = arith.divui [[V3]], [[C3]] : index
// CHECK-NEXT:      [[C4:%[0-9A-Za-z_]+]] = arith.constant 2 : index
// CHECK-NEXT:      [[V6:%[0-9A-Za-z_]+]] = arith.remui [[V5]], [[C4]] : index
// CHECK-NEXT:      [[V7:%[0-9A-Za-z_]+]] = arith.divui [[V5]], [[C4]] : index
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[V6]], [[V4]]] : tensor<2x3xf32>
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

// Two uses of one op kind get unique kernel names; non-graph functions are kept.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    [[CALL0:%[0-9A-Za-z_]+]] = te.call @relu_1([[ARG0]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    [[CALL1:%[0-9A-Za-z_]+]] = te.call @relu_2([[CALL0]]) : (tensor<4xf32>) -> tensor<4xf32>
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
// CHECK-LABEL: te.func @relu_2 {
// CHECK-NEXT:    [[IN0:%[0-9A-Za-z_]+]] = te.placeholder "in0" : tensor<4xf32>
// CHECK-NEXT:    [[T0:%[0-9A-Za-z_]+]] = te.compute ([[I0:%[0-9A-Za-z_]+]]) : tensor<4xf32> {
// CHECK-NEXT:      [[R0:%[0-9A-Za-z_]+]] = te.read [[IN0]]{{\[}}[[I0]]] : tensor<4xf32>
// CHECK-NEXT:      [[C0:%[0-9A-Za-z_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      [[V0:%[0-9A-Za-z_]+]] = arith.maximumf [[R0]], [[C0]] : f32
// CHECK-NEXT:      te.yield [[V0]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    te.output [[T0]] : tensor<4xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.relu %x : tensor<4xf32>
  %1 = relay.relu %0 : tensor<4xf32>
  func.return %1 : tensor<4xf32>
}
te.func @relu {
  %A = te.placeholder "A" : tensor<4xf32>
  te.output %A : tensor<4xf32>
}
