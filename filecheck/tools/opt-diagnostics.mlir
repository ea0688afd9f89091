// Bad input is one line on stderr and exit code 1, never a traceback.
// RUN: not lamina-opt %s 2>&1 | filecheck %s
// RUN: not lamina-opt %s.missing 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not lamina-opt %s -o %t.dir/none/out.mlir 2>&1 | filecheck %s
// RUN: not lamina-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS

// CHECK-NOT:  Traceback
// CHECK:      lamina-opt: error: {{.*}}opt-diagnostics.mlir:16:36: dense literal of 4294967296 elements is too large to write inline (at most 4194304); use a dense_resource blob
// CHECK-NOT:  {{.}}
// MISSING:    lamina-opt: error: cannot read '{{.*}}opt-diagnostics.mlir.missing': no such file
// PASS:       lamina-opt: error: -p: unknown pass 'no-such-pass'; lamina's passes are {{.*}}; its pipelines are default, lower, optimize

func.func @huge_splat() -> tensor<4294967296xf32> {
  // A splat is fine in MLIR; xDSL would expand it into four billion Python floats
  // (MemoryError), so lamina's parser refuses inline literals this large.
  %0 = relay.constant dense<1.0> : tensor<4294967296xf32>
  func.return %0 : tensor<4294967296xf32>
}
