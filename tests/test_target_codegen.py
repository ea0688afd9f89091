"""Code for other architectures, read off its assembly: each target's vector
FMAs (NEON `fmla`, RVV `vfmacc`, SIMD128 `f32x4.mul`/`f32x4.add`), no `fmaf`
call per lane on WebAssembly, and no masked access where the target has none
(LLVM would test and branch on every lane): the tails are peeled instead."""

from __future__ import annotations

import re

import llvmlite.binding as llvm
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import lamina
from lamina.codegen import codegen
from lamina.frontends.onnx import from_onnx
from lamina.passes import PassContext
from lamina.pipelines import lower_to
from lamina.target import Target

NEON, RVV, WASM = "aarch64-linux-gnu", "riscv64-linux-gnu -mattr=+v", "wasm32"
#: A 4-lane x86 this machine runs (SSE2: no masked loads or stores).
SSE = "x86_64-unknown-linux-gnu -mcpu=x86-64"


def _conv_mlp(seed: int = 0) -> bytes:
    """A padded 3x3 convolution over 10x10 images (rows of 10: a tail of every
    4 lanes), relu, and a matmul to 10 outputs."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((8, 3, 3, 3)).astype(np.float32)
    fc = rng.standard_normal((800, 10)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["r"]),
            helper.make_node("Flatten", ["r"], ["f"]),
            helper.make_node("MatMul", ["f", "fc"], ["y"]),
        ],
        "conv_mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 10, 10])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(fc, "fc")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def _lower(model: bytes | object, target: str) -> tuple[str, str]:
    """The optimized LLVM IR and the assembly of `model` for `target`: its kernels
    lowered in the module (`lower_to`, no compile-kernels), to read their code."""
    module = lower_to(from_onnx(model), "llvm", PassContext(opt_level=3, target=target))
    tm = codegen.target_machine(codegen.module_target(module), 3)
    with codegen.LLVM_LOCK:
        mod = codegen.parse_ir(str(codegen.translate(module, tm)))
        codegen.optimize(mod, tm, 3)
        return str(mod), tm.emit_assembly(mod)


def _count(pattern: str, text: str) -> int:
    return len(re.findall(pattern, text, re.MULTILINE))


@pytest.fixture
def masked_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every target taken to have masked loads and stores (the tails masked)."""
    monkeypatch.setattr(Target, "masked_memory", lambda self, bits: True)


# ------------------------------------------------------------ the features
def test_llvm_gets_the_kind_s_features() -> None:
    """LLVM implies neither WebAssembly's SIMD nor RISC-V's M/F/D from the
    triple: the target machine gets the kind's features under the explicit ones."""
    assert Target.parse(WASM).llvm_features == "+simd128"
    assert Target.parse("wasm32 -mattr=-simd128").llvm_features == "-simd128"
    assert set(Target.parse(RVV).llvm_features.split(",")) >= {"+m", "+f", "+d", "+v"}
    assert Target.host().llvm_features == Target.host().feature_string


_MASKED_STORE = """
declare void @llvm.masked.store.v4f32.p0(<4 x float>, ptr, i32, <4 x i1>)
define void @f(ptr %p, <4 x float> %v, <4 x i32> %i, i32 %n) {
  %s = insertelement <4 x i32> poison, i32 %n, i32 0
  %b = shufflevector <4 x i32> %s, <4 x i32> poison, <4 x i32> zeroinitializer
  %m = icmp slt <4 x i32> %i, %b
  call void @llvm.masked.store.v4f32.p0(<4 x float> %v, ptr %p, i32 4, <4 x i1> %m)
  ret void
}
"""
#: Conditional branches, per architecture.
_BRANCHES = {
    "aarch64": r"^\s+(tbn?z|cbn?z|b\.\w+)\s",
    "riscv64": r"^\s+(beqz?|bnez?|blt|bge)\w*\s",
    "wasm32": r"^\s+br_if\s",
    "x86_64": r"^\s+j(?!mp)\w+\s",
}


@pytest.mark.parametrize(
    "text",
    [NEON, f"{NEON} -mattr=+sve", "riscv64-linux-gnu", RVV, WASM, SSE,
     "x86_64-unknown-linux-gnu -mcpu=haswell", "x86_64-unknown-linux-gnu -mcpu=znver4"],
)
def test_masked_memory_is_what_llvm_makes_of_a_masked_store(text: str) -> None:
    """`Target.masked_memory(32)` holds exactly where LLVM's code for a masked
    store has no branch (a branch per lane where it has none)."""
    target = Target.parse(text)
    tm = codegen.target_machine(target)
    with codegen.LLVM_LOCK:
        asm = tm.emit_assembly(llvm.parse_assembly(_MASKED_STORE))
    assert target.masked_memory(32) == (_count(_BRANCHES[target.arch], asm) == 0)


# ----------------------------------------------------- kernels per target
#: A test of a mask's lane 1, 2 or 3 (LLVM's scalarized masked access on NEON).
_LANE_TEST = r"^\s+tbn?z\s+w\d+, #[123],"


def test_neon_kernels_fuse_and_peel_their_tails() -> None:
    ir, asm = _lower(_conv_mlp(), NEON)
    assert _count(r"^\s+fmla\s+v\d+\.4s", asm) >= 8
    assert "@llvm.masked." not in ir
    assert _count(_LANE_TEST, asm) == 0


def test_neon_tails_were_masked_before(masked_everywhere: None) -> None:
    """(What the test above guards against: this model's tails as masked
    accesses, a bit test and branch per lane on NEON.)"""
    ir, asm = _lower(_conv_mlp(), NEON)
    assert "@llvm.masked.store" in ir and _count(_LANE_TEST, asm) >= 3


def test_rvv_kernels_use_vector_fmas_and_masked_stores() -> None:
    """RVV masks any access, so its tails stay masked (`v0.t`)."""
    ir, asm = _lower(_conv_mlp(), RVV)
    assert _count(r"^\s+vf(macc|madd)\.v[vf]\s", asm) >= 4
    assert _count(r"^\s+vle32\.v\s", asm) >= 4
    assert "@llvm.masked." in ir and "v0.t" in asm
    assert not re.search(r"\bcall\s+__(u?div|mul)di3", asm)  # +m reached LLVM


def test_wasm_kernels_use_simd128_and_peel_their_tails() -> None:
    ir, asm = _lower(_conv_mlp(), WASM)
    assert _count(r"^\s+f32x4\.mul\s", asm) >= 4 and _count(r"^\s+f32x4\.add\s", asm) >= 4
    assert "@llvm.masked." not in ir
    assert not re.search(r"^\s+call\s+fmaf?\s", asm, re.MULTILINE)


def test_wasm_int8_write_back_calls_no_fmaf_per_lane() -> None:
    """The fused residual add's lanes multiply and add (contracted where there
    are FMAs): no vector `llvm.fma`, which SIMD128 would split into a call of
    `fmaf` per lane; the one exact FMA left is its offset, once per call."""
    from tests.test_int8_kernels import _residual_model

    model, _ = _residual_model(16, 9, True)
    ir, asm = _lower(model, WASM)
    assert not re.search(r"@llvm\.fma\.v\d+f32", ir)
    assert _count(r"^\s+call\s+fmaf\s", asm) <= 1
    assert _count(r"^\s+f32x4\.mul\s", asm) >= 2


# ------------------------------------------------------- the same results
def test_peeled_tails_give_the_masked_results(monkeypatch: pytest.MonkeyPatch) -> None:
    """On this machine, 4 lanes as NEON's: peeled and masked tails agree bit
    for bit."""
    x = np.random.default_rng(1).standard_normal((1, 3, 10, 10)).astype(np.float32)
    (peeled,) = lamina.compile(_conv_mlp(), target=SSE).run(x)
    monkeypatch.setattr(Target, "masked_memory", lambda self, bits: True)
    (masked,) = lamina.compile(_conv_mlp(), target=SSE).run(x)
    np.testing.assert_array_equal(peeled, masked)


_STRIDED = """
define void @scale(ptr noalias %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %j = mul i64 %i, 3
  %p = getelementptr inbounds float, ptr %a, i64 %j
  %v = load float, ptr %p
  %w = fmul float %v, 2.0
  store float %w, ptr %p
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
"""


@pytest.mark.parametrize(("spec", "address"), [
    # LLVM's loop strength reduction: a pointer bumped by 3 floats each iteration
    ("riscv64-linux-gnu", r"addi\s+a\d+, a\d+, 12"),
    # skipped where memory operands index: the address is base + 4 * (3i)
    (SSE, r"\(%r\w+,%r\w+,4\)"),
])
def test_loop_strength_reduction_by_addressing(spec, address):
    """Each module's code generation sets LLVM's (process-wide) strength
    reduction for its own target, whatever the previous one set."""
    other = SSE if spec != SSE else "riscv64-linux-gnu"
    for s in (other, spec):
        tm = codegen.target_machine(Target.parse(s), 3)
        codegen.emit_object(llvm.parse_assembly(_STRIDED), tm)
    assert re.search(address, tm.emit_assembly(llvm.parse_assembly(_STRIDED)))
