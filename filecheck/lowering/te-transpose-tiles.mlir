// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' -p lower-te-to-tir | filecheck %s

// A transpose ([B, S, C] -> [B, C, S]: the last output axis reads the input at
// a stride of C, axis 1 reads its innermost axis) gets the default schedule
// `transpose`: 16 steps of C by 16 lanes of S, so that the 16 cache lines each
// vector reads serve the tile's 16 rows; the tile loops outside, parallel.
te.func @tokens_to_channels {
  %A = te.placeholder "A" : tensor<2x64x32xf32>
  %T = te.compute (%b, %c, %s) : tensor<2x32x64xf32> {
    %a = te.read %A[%b, %s, %c] : tensor<2x64x32xf32>
    te.yield %a : f32
  }
  te.output %T : tensor<2x32x64xf32>
}

// CHECK-LABEL: tir.prim_func @tokens_to_channels(
// CHECK:         tir.for parallel %[[P:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           tir.for serial %[[CI:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             tir.for vectorized %[[SI:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:               tir.load %{{.*}} : memref<2x64x32xf32>
// CHECK:               tir.store %{{.*}} : memref<2x32x64xf32>

// The same through a reshape that the kernel computes first (a transpose, then
// a reshape to NCHW, as a vision transformer's tokens become an image): the
// read of the input is found through the reshape.
te.func @tokens_to_image {
  %A = te.placeholder "A" : tensor<1x256x32xf32>
  %T = te.compute (%b, %c, %s) : tensor<1x32x256xf32> {
    %a = te.read %A[%b, %s, %c] : tensor<1x256x32xf32>
    te.yield %a : f32
  }
  %R = te.compute (%n, %c, %h, %w) : tensor<1x32x16x16xf32> {
    %sixteen = arith.constant 16 : index
    %hw = arith.muli %h, %sixteen : index
    %s = arith.addi %hw, %w : index
    %a = te.read %T[%n, %c, %s] : tensor<1x32x256xf32>
    te.yield %a : f32
  }
  te.output %R : tensor<1x32x16x16xf32>
}

// CHECK-LABEL: tir.prim_func @tokens_to_image(
// CHECK:         tir.for serial %[[CI:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           tir.for vectorized %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             tir.load %{{.*}} : memref<1x256x32xf32>
// CHECK:             tir.store %{{.*}} : memref<1x32x16x16xf32>

// A copy (no transpose) keeps `injective`: the last axis split into vectors,
// no tile of another axis inside.
te.func @copy {
  %A = te.placeholder "A" : tensor<2x32x64xf32>
  %T = te.compute (%b, %c, %s) : tensor<2x32x64xf32> {
    %a = te.read %A[%b, %c, %s] : tensor<2x32x64xf32>
    te.yield %a : f32
  }
  te.output %T : tensor<2x32x64xf32>
}

// CHECK-LABEL: tir.prim_func @copy(
// CHECK:         tir.for parallel
// CHECK-NEXT:      tir.for serial
// CHECK-NEXT:        tir.for vectorized
// CHECK-NOT:         tir.for
// CHECK:             tir.load
