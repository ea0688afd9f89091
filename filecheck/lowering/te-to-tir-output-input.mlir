// A te.func whose output is one of its placeholders cannot be scheduled: the pass
// stops with a diagnostic naming the kernel (not a traceback).
// RUN: not lamina-opt %s -p lower-te-to-tir 2>&1 | filecheck %s

// CHECK:     lamina-opt: error: te.func @id outputs its input directly; copy it with a te.compute
// CHECK-NOT: Traceback
te.func @id {
  %A = te.placeholder "A" : tensor<4xf32>
  te.output %A : tensor<4xf32>
}
