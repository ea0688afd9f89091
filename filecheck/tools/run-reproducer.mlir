// lamina-opt reproducer: -p canonicalize --opt-level 2
// A crash reproducer is an .mlir file whose first line holds the arguments that
// replay it; `--run-reproducer` runs the file with them.
// RUN: lamina-opt --run-reproducer %s | filecheck %s
// RUN: not lamina-opt --run-reproducer %s.missing 2>&1 | filecheck %s --check-prefix=MISSING

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    func.return %x : tensor<2xf32>
// MISSING: lamina-opt: error: cannot read reproducer '{{.*}}run-reproducer.mlir.missing': no such file

func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %one = relay.constant dense<1.0> : tensor<2xf32>
  %0 = relay.multiply %x, %one : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
