// annotate-target: every op (and composite) a target takes gets
// lamina.target; the first target that accepts wins. Check functions reject
// ops with a reason: explain=true attaches it (lamina.rejected) and prints it,
// and --pass-statistics counts it. A composite naming a pattern its target does
// not have is an error naming both.
// RUN: lamina-opt %s --split-input-file -p 'annotate-target{targets=blas,c}' | filecheck %s
// RUN: lamina-opt %s --split-input-file -p 'annotate-target{targets=blas,c explain=true}' 2>/dev/null | filecheck %s --check-prefix=EXPLAIN
// RUN: lamina-opt %s --split-input-file -p 'annotate-target{targets=blas,c explain=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=STDERR
// RUN: lamina-opt %s --split-input-file -p 'annotate-target{targets=c}' --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: not lamina-opt %s --split-input-file -p 'annotate-target{targets=nosuch}' 2>&1 | filecheck %s --check-prefix=UNKNOWN

// CHECK-LABEL: func.func @mixed(
// CHECK-NEXT:    %w = relay.constant dense<5.000000e-01> : tensor<8x8xf32>
// CHECK-NEXT:    %0 = relay.matmul %x, %w {lamina.target = "blas"}
// CHECK-NEXT:    %1 = relay.add %0, %b {lamina.target = "c"}
// CHECK-NEXT:    %2 = relay.softmax %1 {axis = 1 : i64} : tensor<1x8xf32>
// CHECK-NEXT:    %3 = relay.conv2d %img, %dw {groups = 8 : i64} : (
// CHECK-NEXT:    %4 = relay.conv2d %img, %k {lamina.target = "blas"} : (
// CHECK-NEXT:    %5 = relay.add %i, %i : tensor<4xi32>
// CHECK-NEXT:    func.return
// EXPLAIN-LABEL: func.func @mixed(
// EXPLAIN:         relay.conv2d %img, %dw {groups = 8 : i64, lamina.rejected = "blas: relay.conv2d: groups=8 with 1 input channel(s) per group (depthwise) is no GEMM; lamina's own kernel is faster"}
// EXPLAIN:         relay.add %i, %i {lamina.rejected = "c: relay.add: tensor<4xi32> is not a float32/float64 tensor"}
// STDERR: annotate-target: relay.conv2d (op #4 in @mixed) not offloaded: blas: relay.conv2d: groups=8
// STDERR: annotate-target: relay.add (op #6 in @mixed) not offloaded: c: relay.add: tensor<4xi32>
// STATS:      annotate-target
// STATS:        (S) 1 annotated.c - reported by the pass
// STATS-NEXT:   (S) 1 rejected.c.add - reported by the pass
// UNKNOWN: unknown BYOC target 'nosuch'; known targets: blas, c
func.func @mixed(%x: tensor<1x8xf32>, %b: tensor<8xf32>, %img: tensor<1x8x6x6xf32>, %dw: tensor<8x1x3x3xf32>, %k: tensor<4x8x3x3xf32>, %i: tensor<4xi32>) -> (tensor<1x8xf32>, tensor<1x8x4x4xf32>, tensor<1x4x4x4xf32>, tensor<4xi32>) {
  %w = relay.constant dense<0.5> : tensor<8x8xf32>
  %0 = relay.matmul %x, %w : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
  %1 = relay.add %0, %b : (tensor<1x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  %2 = relay.softmax %1 {axis = 1 : i64} : tensor<1x8xf32>
  %3 = relay.conv2d %img, %dw {groups = 8 : i64} : (tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x4x4xf32>
  %4 = relay.conv2d %img, %k : (tensor<1x8x6x6xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x4x4xf32>
  %5 = relay.add %i, %i : tensor<4xi32>
  func.return %2, %3, %4, %5 : tensor<1x8xf32>, tensor<1x8x4x4xf32>, tensor<1x4x4x4xf32>, tensor<4xi32>
}

// -----

// Composites go to their target as one unit.
// CHECK-LABEL: func.func @composite(
// CHECK:         }) {lamina.composite = "c.add_relu", lamina.target = "c"}
func.func @composite(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.fused(%a, %b) ({
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %1 = relay.add %x, %y : tensor<4xf32>
    %2 = relay.relu %1 : tensor<4xf32>
    relay.yield %2 : tensor<4xf32>
  }) {lamina.composite = "c.add_relu"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
