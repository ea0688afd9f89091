// Named pipelines are passes (`-p optimize|lower|default`) and pick their passes by
// --opt-level; the ops CSE/DCE remove and the groups fuse-ops makes show which
// passes ran. `default` leaves fuse-ops out until lowering handles relay.fused.
// RUN: lamina-opt %s -p optimize --opt-level 1 | filecheck %s --check-prefix=O1
// RUN: lamina-opt %s -p optimize --opt-level 2 | filecheck %s --check-prefix=O2
// RUN: lamina-opt %s -p optimize | filecheck %s --check-prefix=O2
// RUN: lamina-opt %s -p optimize --opt-level 2 --disabled-passes fuse-ops | filecheck %s --check-prefix=NOFUSE
// RUN: lamina-opt %s -p optimize --opt-level 2 --disabled-passes cse,fuse-ops | filecheck %s --check-prefix=NOCSE
// RUN: lamina-opt %s -p optimize --opt-level 0 --required-passes cse | filecheck %s --check-prefix=ONLYCSE
// RUN: lamina-opt %s -p default --opt-level 2 | filecheck %s --check-prefix=LLVM
// RUN: lamina-opt %s -p optimize,lower --opt-level 2 --disabled-passes fuse-ops | filecheck %s --check-prefix=LLVM

// O1-LABEL: func.func @main
// O1-COUNT-2: relay.matmul
// O1:         relay.relu
// O1-NEXT:    relay.relu

// O2-LABEL:   func.func @main
// O2-NEXT:      %w = relay.constant
// O2-NEXT:      %0 = relay.fused(%x, %w) ({
// O2-NEXT:      ^bb0(%x_1: tensor<1x4xf32>, %w_1: tensor<4x4xf32>):
// O2-NEXT:        %1 = relay.matmul %x_1, %w_1
// O2-NEXT:        %2 = relay.add %1, %1
// O2-NEXT:        %3 = relay.relu %2
// O2-NEXT:        relay.yield %3
// O2-NEXT:      }) {lamina.primitive, lamina.group = "matmul_add_relu"}
// O2-NEXT:      func.return %0

// NOFUSE-LABEL:   func.func @main
// NOFUSE-NEXT:      %w = relay.constant
// NOFUSE-NEXT:      %0 = relay.matmul %x, %w
// NOFUSE-NEXT:      %1 = relay.add %0, %0
// NOFUSE-NEXT:      %2 = relay.relu %1
// NOFUSE-NEXT:      func.return %2

// NOCSE-LABEL: func.func @main
// NOCSE-COUNT-2: relay.matmul
// NOCSE:         relay.relu
// NOCSE-NOT:     relay.relu

// ONLYCSE-LABEL: func.func @main
// ONLYCSE-COUNT-1: relay.matmul
// ONLYCSE-NOT:     relay.matmul

// LLVM-NOT:  relay.
// LLVM:      llvm.func @main
func.func @main(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %w = relay.constant dense<1.0> : tensor<4x4xf32>
  %w2 = relay.constant dense<1.0> : tensor<4x4xf32>
  %0 = relay.matmul %x, %w : (tensor<1x4xf32>, tensor<4x4xf32>)
  %1 = relay.matmul %x, %w2 : (tensor<1x4xf32>, tensor<4x4xf32>)
  %2 = relay.add %0, %1 : tensor<1x4xf32>
  %3 = relay.relu %2 : tensor<1x4xf32>
  %dead = relay.relu %3 : tensor<1x4xf32>
  func.return %3 : tensor<1x4xf32>
}
