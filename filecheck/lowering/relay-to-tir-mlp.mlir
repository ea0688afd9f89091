// The full chain on a small MLP: lower-relay-to-te then lower-te-to-tir.
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' -p lower-relay-to-te,lower-te-to-tir | filecheck %s

// A two-layer MLP through both lowerings: graph -> TE kernels -> TIR loop nests.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<1x4xf32> {lamina.name = "in0"}, [[ARG1:%[0-9A-Za-z_]+]]: memref<1x3xf32> {lamina.name = "out0"}) {
// CHECK-NEXT:    [[W0:%[0-9A-Za-z_]+]] = tir.constant dense_resource<fc1_w> : memref<8x4xf32>
// CHECK-NEXT:    [[W1:%[0-9A-Za-z_]+]] = tir.constant dense_resource<fc1_b> : memref<8xf32>
// CHECK-NEXT:    [[W2:%[0-9A-Za-z_]+]] = tir.constant dense_resource<fc2_w> : memref<3x8xf32>
// CHECK-NEXT:    [[W3:%[0-9A-Za-z_]+]] = tir.constant dense_resource<cst> : memref<3xf32>
// CHECK-NEXT:    [[BUF0:%[0-9A-Za-z_]+]] = tir.alloc global : memref<1x8xf32>
// CHECK-NEXT:    tir.call @dense([[ARG0]], [[W0]], [[W1]], [[BUF0]]) : memref<1x4xf32>, memref<8x4xf32>, memref<8xf32>, memref<1x8xf32>
// CHECK-NEXT:    [[BUF1:%[0-9A-Za-z_]+]] = tir.alloc global : memref<1x8xf32>
// CHECK-NEXT:    tir.call @relu([[BUF0]], [[BUF1]]) : memref<1x8xf32>, memref<1x8xf32>
// CHECK-NEXT:    [[BUF2:%[0-9A-Za-z_]+]] = tir.alloc global : memref<1x3xf32>
// CHECK-NEXT:    tir.call @dense_1([[BUF1]], [[W2]], [[W3]], [[BUF2]]) : memref<1x8xf32>, memref<3x8xf32>, memref<3xf32>, memref<1x3xf32>
// CHECK-NEXT:    tir.call @softmax([[BUF2]], [[ARG1]]) : memref<1x3xf32>, memref<1x3xf32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-LABEL: tir.prim_func @dense(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<1x4xf32>, [[ARG1:%[0-9A-Za-z_]+]]: memref<8x4xf32>, [[ARG2:%[0-9A-Za-z_]+]]: memref<8xf32>, [[ARG3:%[0-9A-Za-z_]+]]: memref<1x8xf32>) {
// CHECK-NEXT:    [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C1:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[C2:%[0-9A-Za-z_]+]] = arith.constant 8 : index
// CHECK-NEXT:    [[C3:%[0-9A-Za-z_]+]] = arith.constant 4 : index
// CHECK-NEXT:    tir.for serial [[IV0:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C1]] {
// CHECK-NEXT:      tir.for serial [[IV1:%[0-9A-Za-z_]+]] = [[C0]] to [[C2]] step [[C1]] {
// CHECK-NEXT:        [[C4:%[0-9A-Za-z_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        tir.store [[C4]], [[ARG3]]{{\[}}[[IV0]], [[IV1]]] : memref<1x8xf32>
// CHECK-NEXT:        tir.for serial [[IV2:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C1]] {
// CHECK-NEXT:          [[LD0:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV0]], [[IV2]]] : memref<1x4xf32>
// CHECK-NEXT:          [[LD1:%[0-9A-Za-z_]+]] = tir.load [[ARG1]]{{\[}}[[IV1]], [[IV2]]] : memref<8x4xf32>
// CHECK-NEXT:          [[V0:%[0-9A-Za-z_]+]] = arith.mulf [[LD0]], [[LD1]] : f32
// CHECK-NEXT:          [[LD2:%[0-9A-Za-z_]+]] = tir.load [[ARG3]]{{\[}}[[IV0]], [[IV1]]] : memref<1x8xf32>
// CHECK-NEXT:          [[V1:%[0-9A-Za-z_]+]] = arith.addf [[LD2]], [[V0]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:          tir.store [[V1]], [[ARG3]]{{\[}}[[IV0]], [[IV1]]] : memref<1x8xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:        [[LD3:%[0-9A-Za-z_]+]] = tir.load [[ARG3]]{{\[}}[[IV0]], [[IV1]]] : memref<1x8xf32>
// CHECK-NEXT:        [[LD4:%[0-9A-Za-z_]+]] = tir.load [[ARG2]]{{\[}}[[IV1]]] : memref<8xf32>
// CHECK-NEXT:        [[V2:%[0-9A-Za-z_]+]] = arith.addf [[LD3]], [[LD4]] : f32
// CHECK-NEXT:        tir.store [[V2]], [[ARG3]]{{\[}}[[IV0]], [[IV1]]] : memref<1x8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
// CHECK-LABEL: tir.prim_func @relu(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<1x8xf32>, [[ARG1:%[0-9A-Za-z_]+]]: memref<1x8xf32>) {
// CHECK-NEXT:    [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C1:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[C2:%[0-9A-Za-z_]+]] = arith.constant 8 : index
// CHECK-NEXT:    tir.for serial [[IV0:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C1]] {
// CHECK-NEXT:      tir.for serial [[IV1:%[0-9A-Za-z_]+]] = [[C0]] to [[C2]] step [[C1]] {
// CHECK-NEXT:        [[LD0:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV0]], [[IV1]]] : memref<1x8xf32>
// CHECK-NEXT:        [[C3:%[0-9A-Za-z_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        [[V0:%[0-9A-Za-z_]+]] = arith.maximumf [[LD0]], [[C3]] : f32
// CHECK-NEXT:        tir.store [[V0]], [[ARG1]]{{\[}}[[IV0]], [[IV1]]] : memref<1x8xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
// CHECK-LABEL: tir.prim_func @dense_1(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<1x8xf32>, [[ARG1:%[0-9A-Za-z_]+]]: memref<3x8xf32>, [[ARG2:%[0-9A-Za-z_]+]]: memref<3xf32>, [[ARG3:%[0-9A-Za-z_]+]]: memref<1x3xf32>) {
// CHECK-NEXT:    [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C1:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[C2:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:    [[C3:%[0-9A-Za-z_]+]] = arith.constant 8 : index
// CHECK-NEXT:    tir.for serial [[IV0:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C1]] {
// CHECK-NEXT:      tir.for serial [[IV1:%[0-9A-Za-z_]+]] = [[C0]] to [[C2]] step [[C1]] {
// CHECK-NEXT:        [[C4:%[0-9A-Za-z_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        tir.store [[C4]], [[ARG3]]{{\[}}[[IV0]], [[IV1]]] : memref<1x3xf32>
// CHECK-NEXT:        tir.for serial [[IV2:%[0-9A-Za-z_]+]] = [[C0]] to [[C3]] step [[C1]] {
// CHECK-NEXT:          [[LD0:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV0]], [[IV2]]] : memref<1x8xf32>
// CHECK-NEXT:          [[LD1:%[0-9A-Za-z_]+]] = tir.load [[ARG1]]{{\[}}[[IV1]], [[IV2]]] : memref<3x8xf32>
// CHECK-NEXT:          [[V0:%[0-9A-Za-z_]+]] = arith.mulf [[LD0]], [[LD1]] : f32
// CHECK-NEXT:          [[LD2:%[0-9A-Za-z_]+]] = tir.load [[ARG3]]{{\[}}[[IV0]], [[IV1]]] : memref<1x3xf32>
// CHECK-NEXT:          [[V1:%[0-9A-Za-z_]+]] = arith.addf [[LD2]], [[V0]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:          tir.store [[V1]], [[ARG3]]{{\[}}[[IV0]], [[IV1]]] : memref<1x3xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:        [[LD3:%[0-9A-Za-z_]+]] = tir.load [[ARG3]]{{\[}}[[IV0]], [[IV1]]] : memref<1x3xf32>
// CHECK-NEXT:        [[LD4:%[0-9A-Za-z_]+]] = tir.load [[ARG2]]{{\[}}[[IV1]]] : memref<3xf32>
// CHECK-NEXT:        [[V2:%[0-9A-Za-z_]+]] = arith.addf [[LD3]], [[LD4]] : f32
// CHECK-NEXT:        tir.store [[V2]], [[ARG3]]{{\[}}[[IV0]], [[IV1]]] : memref<1x3xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
// CHECK-LABEL: tir.prim_func @softmax(
// CHECK-SAME:  [[ARG0:%[0-9A-Za-z_]+]]: memref<1x3xf32>, [[ARG1:%[0-9A-Za-z_]+]]: memref<1x3xf32>) {
// CHECK-NEXT:    [[BUF0:%[0-9A-Za-z_]+]] = tir.alloc local : memref<1xf32>
// CHECK-NEXT:    [[C0:%[0-9A-Za-z_]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C1:%[0-9A-Za-z_]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[C2:%[0-9A-Za-z_]+]] = arith.constant 3 : index
// CHECK-NEXT:    [[BUF1:%[0-9A-Za-z_]+]] = tir.alloc local : memref<1xf32>
// CHECK-NEXT:    tir.for serial [[IV0:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C1]] {
// CHECK-NEXT:      [[C3:%[0-9A-Za-z_]+]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:      tir.store [[C3]], [[BUF0]]{{\[}}[[IV0]]] : memref<1xf32>
// CHECK-NEXT:      tir.for serial [[IV1:%[0-9A-Za-z_]+]] = [[C0]] to [[C2]] step [[C1]] {
// CHECK-NEXT:        [[LD0:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV0]], [[IV1]]] : memref<1x3xf32>
// CHECK-NEXT:        [[LD1:%[0-9A-Za-z_]+]] = tir.load [[BUF0]]{{\[}}[[IV0]]] : memref<1xf32>
// CHECK-NEXT:        [[V0:%[0-9A-Za-z_]+]] = arith.maximumf [[LD1]], [[LD0]] : f32
// CHECK-NEXT:        tir.store [[V0]], [[BUF0]]{{\[}}[[IV0]]] : memref<1xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.for serial [[IV2:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C1]] {
// CHECK-NEXT:      tir.for serial [[IV3:%[0-9A-Za-z_]+]] = [[C0]] to [[C2]] step [[C1]] {
// CHECK-NEXT:        [[LD2:%[0-9A-Za-z_]+]] = tir.load [[ARG0]]{{\[}}[[IV2]], [[IV3]]] : memref<1x3xf32>
// CHECK-NEXT:        [[LD3:%[0-9A-Za-z_]+]] = tir.load [[BUF0]]{{\[}}[[IV2]]] : memref<1xf32>
// CHECK-NEXT:        [[V1:%[0-9A-Za-z_]+]] = arith.subf [[LD2]], [[LD3]] : f32
// CHECK-NEXT:        [[V2:%[0-9A-Za-z_]+]] = math.exp [[V1]] : f32
// CHECK-NEXT:        tir.store [[V2]], [[ARG1]]{{\[}}[[IV2]], [[IV3]]] : memref<1x3xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.for serial [[IV4:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C1]] {
// CHECK-NEXT:      [[C4:%[0-9A-Za-z_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      tir.store [[C4]], [[BUF1]]{{\[}}[[IV4]]] : memref<1xf32>
// CHECK-NEXT:      tir.for serial [[IV5:%[0-9A-Za-z_]+]] = [[C0]] to [[C2]] step [[C1]] {
// CHECK-NEXT:        [[LD4:%[0-9A-Za-z_]+]] = tir.load [[ARG1]]{{\[}}[[IV4]], [[IV5]]] : memref<1x3xf32>
// CHECK-NEXT:        [[LD5:%[0-9A-Za-z_]+]] = tir.load [[BUF1]]{{\[}}[[IV4]]] : memref<1xf32>
// CHECK-NEXT:        [[V3:%[0-9A-Za-z_]+]] = arith.addf [[LD5]], [[LD4]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:        tir.store [[V3]], [[BUF1]]{{\[}}[[IV4]]] : memref<1xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.for serial [[IV6:%[0-9A-Za-z_]+]] = [[C0]] to [[C1]] step [[C1]] {
// CHECK-NEXT:      tir.for serial [[IV7:%[0-9A-Za-z_]+]] = [[C0]] to [[C2]] step [[C1]] {
// CHECK-NEXT:        [[LD6:%[0-9A-Za-z_]+]] = tir.load [[ARG1]]{{\[}}[[IV6]], [[IV7]]] : memref<1x3xf32>
// CHECK-NEXT:        [[LD7:%[0-9A-Za-z_]+]] = tir.load [[BUF1]]{{\[}}[[IV6]]] : memref<1xf32>
// CHECK-NEXT:        [[ONE:%[0-9A-Za-z_]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:        [[INV:%[0-9A-Za-z_]+]] = arith.divf [[ONE]], [[LD7]] : f32
// CHECK-NEXT:        [[V4:%[0-9A-Za-z_]+]] = arith.mulf [[LD6]], [[INV]] : f32
// CHECK-NEXT:        tir.store [[V4]], [[ARG1]]{{\[}}[[IV6]], [[IV7]]] : memref<1x3xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
// CHECK-NEXT:  }
// CHECK:       {-#
// CHECK-NEXT:  dialect_resources: {
// CHECK-NEXT:    builtin: {
// CHECK-NEXT:      cst: "0x04000000CDCCCC3DCDCC4C3E9A99993E"
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  #-}
func.func @main(%x: tensor<1x4xf32>) -> tensor<1x3xf32> {
  %w1 = relay.constant dense_resource<fc1_w> : tensor<8x4xf32>
  %b1 = relay.constant dense_resource<fc1_b> : tensor<8xf32>
  %w2 = relay.constant dense_resource<fc2_w> : tensor<3x8xf32>
  %b2 = relay.constant dense<[0.1, 0.2, 0.3]> : tensor<3xf32>
  %0 = relay.dense %x, %w1, %b1 {transpose_b} : (tensor<1x4xf32>, tensor<8x4xf32>, tensor<8xf32>)
  %1 = relay.relu %0 : tensor<1x8xf32>
  %2 = relay.dense %1, %w2, %b2 {transpose_b} : (tensor<1x8xf32>, tensor<3x8xf32>, tensor<3xf32>)
  %3 = relay.softmax %2 {axis = -1 : i64} : tensor<1x3xf32>
  func.return %3 : tensor<1x3xf32>
}
