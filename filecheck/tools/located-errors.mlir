// Errors in the input are one line, `file:line:col: message`; a verifier error is
// reported at the failing op, and with --split-input-file lines still count from
// the start of the file (undefined values: see verify-diagnostics.mlir).
// RUN: not lamina-opt %s 2>&1 >/dev/null | filecheck %s --check-prefix=VERIFY
// RUN: not lamina-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=VERIFY
// RUN: not lamina-opt %s -p cse 2>&1 >/dev/null | filecheck %s --check-prefix=VERIFY
// An empty input is an empty module, as in mlir-opt.
// RUN: echo "// no operations" | lamina-opt | filecheck %s --check-prefix=EMPTY

// VERIFY:      lamina-opt: error: {{.*}}located-errors.mlir:21:3: relay.add: shapes 1x4 and 1x5 do not broadcast (dimension 1 of the result would be one of [4, 5])
// VERIFY-NOT:  {{.}}
// EMPTY:       builtin.module {
// EMPTY-NEXT:  }

func.func @valid(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = relay.relu %x : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
// -----
func.func @broadcast(%a: tensor<1x4xf32>, %b: tensor<1x5xf32>) {
  %0 = "relay.add"(%a, %b) : (tensor<1x4xf32>, tensor<1x5xf32>) -> tensor<1x4xf32>
  func.return
}
