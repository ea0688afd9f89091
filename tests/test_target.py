"""The Target: parsing and printing, what it derives, the strategy it selects,
and code generated for another architecture on this machine."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

import lamina
from lamina.codegen.codegen import compile_object, llvm_ir
from lamina.dialects.tir import ForKind
from lamina.errors import LaminaError
from lamina.lowering.lang.schedule import Annotate, Schedule
from lamina.lowering.strategy import registry
from lamina.passes import PassContext, current_target
from lamina.pipelines import lower_to
from lamina.target import KINDS, Target
from lamina.target.description import TargetError

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------- string form
@settings(max_examples=200, deadline=None)
@given(
    arch=st.sampled_from(sorted(KINDS)),
    cpu=st.sampled_from(["generic", "znver4", "cortex-a76", "sifive-x280"]),
    features=st.lists(
        st.tuples(st.sampled_from("+-"), st.sampled_from(["neon", "sve", "v", "avx512f", "simd128"])),
        max_size=4,
    ),
    threads=st.integers(1, 256),
    vector_math=st.booleans(),
)
def test_a_target_prints_and_parses_back(
    arch: str, cpu: str, features: list[tuple[str, str]], threads: int, vector_math: bool
) -> None:
    threads = threads if KINDS[arch].threaded else 1
    text = f"{arch}-linux-gnu -mcpu={cpu} -num-threads={threads}"
    if features:
        text += " -mattr=" + ",".join(sign + name for sign, name in features)
    if vector_math:
        text += " -vector-math"
    target = Target.parse(text)
    assert Target.parse(str(target)) == target
    assert target.num_threads == threads and target.cpu == cpu and target.vector_math == vector_math
    last = {name: sign for sign, name in features}
    assert target.features == tuple(sorted((s + n for n, s in last.items()), key=lambda f: f[1:]))


@pytest.mark.parametrize(
    ("text", "bits", "registers"),
    [
        ("aarch64-linux-gnu", 128, 32),
        ("aarch64-linux-gnu -mattr=+sve", 128, 32),
        ("riscv64-linux-gnu", 0, 32),
        ("riscv64-linux-gnu -mattr=+v", 128, 32),
        ("wasm32", 128, 16),
        ("wasm32 -mattr=-simd128", 0, 16),
        ("x86_64-linux-gnu", 128, 16),
        ("x86_64-linux-gnu -mcpu=znver3", 256, 16),
        ("x86_64-linux-gnu -mcpu=znver4", 512, 32),
        ("x86_64-linux-gnu -mcpu=sapphirerapids -mattr=-avx512f", 256, 16),
        ("x86_64-linux-gnu -mattr=+avx2", 256, 16),
    ],
)
def test_what_a_target_derives(text: str, bits: int, registers: int) -> None:
    target = Target.parse(text)
    assert (target.vector_bits, target.vector_registers) == (bits, registers)
    assert target.lanes(32) == max(1, bits // 32)


def test_cpus_and_features_give_the_kernel_choices() -> None:
    assert Target.parse("x86_64-linux-gnu -mcpu=znver4").has("avx512vnni")
    assert not Target.parse("x86_64-linux-gnu -mcpu=skylake-avx512").has("avx512vnni")
    assert not Target.parse("x86_64-linux-gnu -mcpu=znver4 -mattr=-avx512vnni").has("avx512vnni")
    assert Target.parse("wasm32").num_threads == 1  # WebAssembly: one thread unless asked
    assert Target.parse("aarch64-linux-gnu -caches=65536,2097152,8388608").caches[1] == 2 << 20


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty target"),
        ("sparc-linux-gnu", "unknown target 'sparc-linux-gnu'"),
        ("aarch64-linux-gnu -mfoo=1", "unknown option '-mfoo=1'"),
        ("aarch64-linux-gnu -mattr=neon", "must start with + or -"),
        ("aarch64-linux-gnu -caches=1,x,3", "three byte counts"),
    ],
)
def test_a_bad_target_string_says_what_to_write(text: str, says: str) -> None:
    with pytest.raises(TargetError, match=re.escape(says)):
        Target.parse(text)


def test_the_host_is_the_default_target() -> None:
    host = Target.host()
    assert host.is_host and Target.parse("host") == host
    assert PassContext().target == host and current_target() == host
    assert Target.parse("host -num-threads=1").num_threads == 1
    assert not Target.parse("aarch64-linux-gnu").is_host
    with PassContext(target="aarch64-linux-gnu"):
        assert current_target().arch == "aarch64"


def test_only_the_target_package_reads_the_host() -> None:
    """`lamina.target.host` is imported by the default-target constructor alone."""
    readers = []
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in {"tests", "bench", "examples", "build"} or rel.parts[0].startswith("."):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (
                node.module == "lamina.target.host"
                or (node.module == "lamina.target" and any(a.name == "host" for a in node.names))
            ):
                readers.append(str(rel))
    assert readers == ["target/description.py"]


# ------------------------------------------------------------- strategies
def test_an_architecture_s_rule_wins_over_the_generic_one() -> None:
    tag = "test-only-tag"
    generic = Schedule((Annotate(ForKind.PARALLEL, "i0"),))
    neon = Schedule((Annotate(ForKind.VECTORIZED, "i0"),))
    registry.register_schedule(registry.GENERIC_CPU, tag)(lambda n: generic)
    registry.register_schedule("aarch64", tag, plevel=20)(lambda n: neon if n else None)
    try:
        arm = Target.parse("aarch64-linux-gnu")
        assert registry.schedule_for(tag, 1, target=arm) == neon
        assert registry.schedule_for(tag, 0, target=arm) == generic  # the rule passed
        assert registry.schedule_for(tag, 1, target=Target.parse("riscv64-linux-gnu")) == generic
        assert [i.key for i in registry.implementations(tag, arm)] == ["aarch64", "cpu"]
    finally:
        registry._RULES.pop(tag)


def test_op_implementations_are_the_registry_s_per_target() -> None:
    """The conv2d implementations the tuner measures come from the strategy
    registry, the default first; one registered for an architecture shows only
    on targets of it."""
    conv = "relay.conv2d"
    x86 = Target.parse("x86_64-linux-gnu -mcpu=znver4")
    names = [(i.name, i.variants) for i in registry.op_implementations(conv, x86)]
    assert names == [("direct", ((),)), ("winograd", ((("m", 2),), (("m", 4),)))]
    assert registry.op_implementations(conv, x86)[1].config((("m", 4),)) == {"conv2d-winograd.tile-size": 4}
    registry.register_implementation("aarch64", conv, "test-only", plevel=1)
    try:
        arm = Target.parse("aarch64-linux-gnu")
        assert [i.name for i in registry.op_implementations(conv, arm)] == ["direct", "winograd", "test-only"]
        assert "test-only" not in [i.name for i in registry.op_implementations(conv, x86)]
    finally:
        registry._IMPLEMENTATIONS[conv].pop()


# -------------------------------------------------------- another machine
def _mlp() -> bytes:
    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((64, 48)).astype(np.float32)
    w2 = rng.standard_normal((48, 10)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w1"], ["h"]),
            helper.make_node("Relu", ["h"], ["r"]),
            helper.make_node("MatMul", ["r", "w2"], ["y"]),
        ],
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 10])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


@pytest.mark.parametrize(
    ("text", "triple", "machine"),
    [
        ("aarch64-linux-gnu", "aarch64", 183),  # EM_AARCH64
        ("riscv64-linux-gnu -mattr=+v", "riscv64", 243),  # EM_RISCV
    ],
)
def test_a_model_lowers_for_another_architecture(text: str, triple: str, machine: int) -> None:
    """On this x86 machine: LLVM IR with the target's triple and its 128-bit
    vectors (never the host's wider ones), and object code for its machine."""
    module = lamina.from_onnx(_mlp())
    lower_to(module, "llvm", PassContext(opt_level=3, target=text))
    ir = llvm_ir(module)
    assert f'target triple = "{triple}' in ir
    assert "<4 x float>" in ir and "<8 x float>" not in ir and "<16 x float>" not in ir
    obj = compile_object(module)
    assert obj[:4] == b"\x7fELF" and int.from_bytes(obj[18:20], "little") == machine


def test_a_model_for_another_machine_is_compiled_but_not_run_here() -> None:
    exe = lamina.compile(_mlp(), target="aarch64-linux-gnu")
    assert not exe.runnable and exe.target.startswith("aarch64")
    with pytest.raises(LaminaError, match=r"cannot run in this process.*lamina run"):
        exe.run(np.zeros((4, 64), np.float32))


def test_the_host_target_pinned_by_name_gives_the_same_results() -> None:
    x = np.random.default_rng(1).standard_normal((4, 64)).astype(np.float32)
    (default,) = lamina.compile(_mlp()).run(x)
    (named,) = lamina.compile(_mlp(), target=str(Target.host())).run(x)
    np.testing.assert_array_equal(default, named)


def test_wasm32_runs_on_one_thread() -> None:
    assert Target.parse("wasm32").num_threads == 1
    with pytest.raises(TargetError, match="one thread"):
        Target.parse("wasm32 -num-threads=4")
