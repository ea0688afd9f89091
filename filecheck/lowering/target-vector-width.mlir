// The target, not the host, sizes the vectors: the same relu lowered for
// AArch64 (NEON, 128-bit), an AVX2 CPU (256-bit) and an AVX-512 one (512-bit),
// and stamped on the module for code generation.
// RUN: lamina-opt %s --codegen-target=aarch64-linux-gnu -p lower-relay-to-te,lower-te-to-tir,tir-vectorize | filecheck %s --check-prefix=NEON
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver3' -p lower-relay-to-te,lower-te-to-tir,tir-vectorize | filecheck %s --check-prefix=AVX2
// RUN: lamina-opt %s --codegen-target='x86_64-linux-gnu -mcpu=znver4' -p lower-relay-to-te,lower-te-to-tir,tir-vectorize | filecheck %s --check-prefix=AVX512
// RUN: lamina-opt %s --codegen-target=riscv64-linux-gnu -p lower | filecheck %s --check-prefix=RV
// RUN: not lamina-opt %s --codegen-target=sparc-linux-gnu -p lower 2>&1 | filecheck %s --check-prefix=BAD

// NEON-LABEL: tir.prim_func @relu(
// NEON:         vector<4xf32>
// NEON-NOT:     vector<8xf32>
// AVX2-LABEL:   tir.prim_func @relu(
// AVX2:         vector<8xf32>
// AVX2-NOT:     vector<16xf32>
// AVX512-LABEL: tir.prim_func @relu(
// AVX512:       vector<16xf32>
// RV:           lamina.target_spec = "riscv64-linux-gnu -mcpu=generic-rv64
// BAD:          unknown target 'sparc-linux-gnu'

func.func @main(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = relay.relu %x : tensor<4x64xf32>
  func.return %0 : tensor<4x64xf32>
}
