// Pass instruments on the command line: IR dumps (stderr), the timing table
// (stderr, MLIR's format), pass statistics, and verification naming the pass.
// RUN: lamina-opt %s -p cse,dce --print-ir-after cse 2>&1 >/dev/null | filecheck %s --check-prefix=AFTER
// RUN: lamina-opt %s -p cse,dce --print-ir-before=all 2>&1 >/dev/null | filecheck %s --check-prefix=BEFORE
// RUN: lamina-opt %s -p cse,dce --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=AFTERALL
// RUN: lamina-opt %s -p default --opt-level 2 --time-passes 2>&1 >/dev/null | filecheck %s --check-prefix=TIME
// RUN: lamina-opt %s -p cse,dce --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: lamina-opt %s -p cse --verify-each | filecheck %s --check-prefix=VERIFY
// RUN: lamina-opt %s -p cse,dce --print-between-passes | filecheck %s --check-prefix=BETWEEN
// RUN: not lamina-opt %s -p cse --print-ir-after csee 2>&1 | filecheck %s --check-prefix=BADNAME
// RUN: not lamina-opt %s -p optimze 2>&1 | filecheck %s --check-prefix=BADPASS
// RUN: not lamina-opt %s --pass-config fuse-ops.max-depth=deep 2>&1 | filecheck %s --check-prefix=BADCONFIG

// AFTER:      // -----// IR Dump After cse //----- //
// AFTER-NEXT: builtin.module {
// AFTER:        relay.matmul
// AFTER-NOT:    relay.matmul
// AFTER-NOT:  IR Dump

// BEFORE:     // -----// IR Dump Before cse //----- //
// BEFORE-COUNT-2: relay.matmul
// BEFORE:     // -----// IR Dump Before dce //----- //
// BEFORE-NOT: IR Dump After

// AFTERALL:     IR Dump After cse
// AFTERALL:     IR Dump After dce
// AFTERALL-NOT: IR Dump

// TIME:      ===-------------------------------------------------------------------------===
// TIME-NEXT:   ... Execution time report ...
// TIME-NEXT: ===-------------------------------------------------------------------------===
// TIME-NEXT:   Total Execution Time: {{[0-9]+\.[0-9]+}} seconds
// TIME-EMPTY:
// TIME-NEXT:   ----Wall Time----  ----Name----
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  qnn-fold-qdq
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  qnn-legalize
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  qnn-canonicalize
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  simplify-inference
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  canonicalize
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  fold-constant
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  conv-dead-taps
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  cse
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  dce
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  fuse-ops
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  lower-relay-to-te
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  recall-kernels
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  lower-te-to-tir
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  compile-kernels
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  tir-vectorize
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  tir-cse
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)}}  lower-tir-to-llvm
// TIME-NEXT:  {{ +[0-9]+\.[0-9]{4} \(100\.0%\)}}  Total

// STATS:      ... Pass statistics report ...
// STATS:      cse
// STATS-NEXT:   (S) 9 ops-before - operations before the pass
// STATS-NEXT:   (S) 6 ops-after - operations after the pass
// STATS-NEXT: dce
// STATS-NEXT:   (S) 6 ops-before
// STATS-NEXT:   (S) 6 ops-after

// VERIFY: relay.matmul

// xdsl-opt's --print-between-passes still works: the IR after every pass but the last.
// BETWEEN:     IR after cse:
// BETWEEN-NOT: IR after dce:

// BADNAME: lamina-opt: error: --print-ir-after: unknown pass 'csee' (did you mean 'cse'?)
// BADPASS: lamina-opt: error: -p: unknown pass 'optimze' (did you mean 'optimize'?)
// BADCONFIG: lamina-opt: error: pass config 'fuse-ops.max-depth' expects int, got 'deep'
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
