// A fused group becomes one kernel; the elementwise tail of a reduction runs in
// the reduction's output loop, in place (no intermediate buffer).
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' -p fuse-ops,lower-relay-to-te | filecheck %s --check-prefix=TE
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' -p fuse-ops,lower-relay-to-te,lower-te-to-tir | filecheck %s

func.func @main(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = relay.dense %x, %w {transpose_b} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %1 = relay.add %0, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = relay.relu %1 : tensor<4x16xf32>
  func.return %2 : tensor<4x16xf32>
}

// TE:      %{{.*}} = te.call @fused_dense_add_relu(%x, %w, %b)
// TE:      te.func @fused_dense_add_relu {
// TE-COUNT-3: te.placeholder
// TE:      te.compute ({{.*}}) reduce sum ({{.*}}) [8] : tensor<4x16xf32>
// TE:      te.compute ({{.*}}) : tensor<4x16xf32>
// TE:      te.compute ({{.*}}) : tensor<4x16xf32>
// TE:      te.output

// CHECK:       tir.call @fused_dense_add_relu(
// CHECK-LABEL: tir.prim_func @fused_dense_add_relu(
// CHECK-SAME:    [[X:%[0-9]+]]: memref<4x8xf32>, [[W:%[0-9]+]]: memref<16x8xf32>, [[B:%[0-9]+]]: memref<16xf32>, [[Y:%[0-9]+]]: memref<4x16xf32>)
// CHECK-NOT:     tir.alloc
// CHECK:         tir.for serial [[I:%[0-9]+]] =
// CHECK-NEXT:      tir.for serial [[J:%[0-9]+]] =
// CHECK-NEXT:        [[ZERO:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        tir.store [[ZERO]], [[Y]]{{\[}}[[I]], [[J]]]
// CHECK-NEXT:        tir.for serial [[K:%[0-9]+]] =
// CHECK:               arith.mulf
// CHECK:               tir.store {{.*}}, [[Y]]{{\[}}[[I]], [[J]]]
// CHECK-NEXT:        }
// CHECK-NEXT:        [[ACC:%[0-9]+]] = tir.load [[Y]]{{\[}}[[I]], [[J]]]
// CHECK-NEXT:        [[BIAS:%[0-9]+]] = tir.load [[B]]{{\[}}[[J]]]
// CHECK-NEXT:        [[SUM:%[0-9]+]] = arith.addf [[ACC]], [[BIAS]] : f32
// CHECK-NEXT:        [[Z:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        [[R:%[0-9]+]] = arith.maximumf [[SUM]], [[Z]] : f32
// CHECK-NEXT:        tir.store [[R]], [[Y]]{{\[}}[[I]], [[J]]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.return
