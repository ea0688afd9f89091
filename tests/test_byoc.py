"""BYOC: the registry, the four passes, and targets `blas` and `c` end to end."""

from __future__ import annotations

import ctypes
import os
import shutil

import numpy as np
import onnxruntime as ort
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lamina
from lamina.backends import (
    CompositePattern,
    ExternalFunction,
    get_target,
    register_target,
    unregister_target,
)
from lamina.backends.cc import compile_shared
from lamina.pattern import is_op, wildcard
from lamina.pipelines import standard_pipeline
from lamina.tools.demo import mlp_model

# The targets `blas` and `c` (and the example plugin) build C with the system compiler.
needs_cc = pytest.mark.skipif(
    not (os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")),
    reason="no C compiler (cc) to build BYOC code with",
)
pytestmark = needs_cc


def rand(*shape, seed=0):
    return np.random.default_rng(seed + len(shape)).standard_normal(shape).astype(np.float32)


def run_both(text, args, targets):
    mod = lamina.parse(text)
    ref = lamina.compile(mod).run(*args)
    got = lamina.compile(mod, targets=targets).run(*args)
    return got, ref


def ort_run(model, feeds):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


# ----------------------------------------------------------------- blas
def test_matmul_blas_matches_numpy():
    text = """
func.func @main(%a: tensor<64x48xf32>, %b: tensor<48x32xf32>) -> tensor<64x32xf32> {
  %0 = relay.matmul %a, %b : (tensor<64x48xf32>, tensor<48x32xf32>) -> tensor<64x32xf32>
  func.return %0 : tensor<64x32xf32>
}"""
    a, b = rand(64, 48), rand(48, 32, seed=1)
    (y,), _ = run_both(text, [a, b], ["blas"])
    np.testing.assert_allclose(y, a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    ("sa", "sb"),
    [((3, 5, 8), (8, 4)), ((3, 5, 8), (3, 8, 4)), ((2, 1, 5, 8), (3, 8, 4)), ((8,), (2, 8, 4)),
     ((2, 5, 8), (8,))],
)
def test_batch_matmul_blas(sa, sb):
    a, b = rand(*sa), rand(*sb, seed=3)
    out = np.matmul(a, b)
    ty = lambda s: "tensor<" + "x".join(map(str, s)) + "xf32>"  # noqa: E731
    text = f"""
func.func @main(%a: {ty(sa)}, %b: {ty(sb)}) -> {ty(out.shape)} {{
  %0 = relay.matmul %a, %b : ({ty(sa)}, {ty(sb)}) -> {ty(out.shape)}
  func.return %0 : {ty(out.shape)}
}}"""
    (y,), _ = run_both(text, [a, b], ["blas"])
    np.testing.assert_allclose(y, out, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("attrs", ["{transpose_b}", "{transpose_a, alpha = 0.5 : f32}", "{beta = 2.0 : f32}"])
def test_dense_blas(attrs):
    ta, tb = "transpose_a" in attrs, "transpose_b" in attrs
    sa, sb = ((6, 4) if ta else (4, 6)), ((5, 6) if tb else (6, 5))
    text = f"""
func.func @main(%a: tensor<{sa[0]}x{sa[1]}xf32>, %b: tensor<{sb[0]}x{sb[1]}xf32>, %c: tensor<5xf32>) -> tensor<4x5xf32> {{
  %0 = relay.dense %a, %b, %c {attrs} : (tensor<{sa[0]}x{sa[1]}xf32>, tensor<{sb[0]}x{sb[1]}xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  func.return %0 : tensor<4x5xf32>
}}"""
    args = [rand(*sa), rand(*sb, seed=1), rand(5, seed=2)]
    (y,), (r,) = run_both(text, args, ["blas"])
    np.testing.assert_allclose(y, r, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("strides", "padding", "dilation", "groups"),
    [((1, 1), (1, 1, 1, 1), (1, 1), 1), ((2, 2), (3, 2, 1, 0), (1, 1), 1),
     ((1, 2), (2, 2, 2, 2), (2, 2), 1), ((1, 1), (1, 1, 1, 1), (1, 1), 2),
     ((3, 3), (0, 0, 4, 5), (1, 1), 1)],  # taps landing only in the end padding
)
def test_conv2d_blas_im2col(strides, padding, dilation, groups):
    x, w = rand(2, 8, 9, 10), rand(6, 8 // groups, 3, 3, seed=1)
    oh = (9 + padding[0] + padding[2] - dilation[0] * 2 - 1) // strides[0] + 1
    ow = (10 + padding[1] + padding[3] - dilation[1] * 2 - 1) // strides[1] + 1
    arr = lambda v: "array<i64: " + ", ".join(map(str, v)) + ">"  # noqa: E731
    wt, ot = f"tensor<6x{8 // groups}x3x3xf32>", f"tensor<2x6x{oh}x{ow}xf32>"
    text = f"""
func.func @main(%x: tensor<2x8x9x10xf32>, %w: {wt}) -> {ot} {{
  %0 = relay.conv2d %x, %w {{strides = {arr(strides)}, padding = {arr(padding)}, dilation = {arr(dilation)}, groups = {groups} : i64}} : (tensor<2x8x9x10xf32>, {wt}) -> {ot}
  func.return %0 : {ot}
}}"""
    (y,), (r,) = run_both(text, [x, w], ["blas"])
    np.testing.assert_allclose(y, r, rtol=1e-4, atol=1e-4)


def test_conv2d_1x1_direct_gemm():
    x, w = rand(1, 16, 5, 5), rand(8, 16, 1, 1, seed=1)
    text = """
func.func @main(%x: tensor<1x16x5x5xf32>, %w: tensor<8x16x1x1xf32>) -> tensor<1x8x5x5xf32> {
  %0 = relay.conv2d %x, %w : (tensor<1x16x5x5xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x5x5xf32>
  func.return %0 : tensor<1x8x5x5xf32>
}"""
    (y,), (r,) = run_both(text, [x, w], ["blas"])
    np.testing.assert_allclose(y, r, rtol=1e-4, atol=1e-4)


def test_mlp_blas_matches_onnxruntime():
    model = mlp_model((64, 32, 32, 10))
    x = rand(1, 64)
    exe = lamina.compile(model, targets=["blas"])
    np.testing.assert_allclose(exe.run(x)[0], ort_run(model, {"input": x})[0], rtol=1e-5, atol=1e-6)


def test_mlp_blas_epilogues_stay_in_lamina():
    """The blas regions hold only the Gemms; bias and ReLU are fused by lamina."""
    mod = lamina.from_onnx(mlp_model((64, 32, 32, 10)))
    ctx = lamina.PassContext(opt_level=3, config={"byoc.targets": "blas"})
    lamina.run_pipeline(mod, "optimize", ctx)
    calls = [o for o in mod.walk() if o.name == "te.call"]
    assert len(calls) == 3
    assert all(c.callee.string_value().startswith("lamina_blas_") for c in calls)
    # ONNX Gemm's bias is part of the gemm call (beta = 1); the ReLUs stay lamina's
    assert sum(o.name == "relay.relu" for o in mod.walk()) == 2


def test_conv_bias_relu_epilogue_is_fused_by_lamina():
    from lamina.tools.models import resnet18

    mod = lamina.from_onnx(resnet18(batch=1, image_size=32))
    ctx = lamina.PassContext(opt_level=3, config={"byoc.targets": "blas"})
    lamina.run_pipeline(mod, "optimize", ctx)
    blas_calls = [o for o in mod.walk() if o.name == "te.call"]
    assert len(blas_calls) == 21  # 20 convolutions and the classifier
    groups = [o.attributes["lamina.group"].data for o in mod.walk() if "lamina.group" in o.attributes]
    # each conv's bias (the folded batch norm) and ReLU, or residual add and ReLU
    assert sum(g.startswith("add") and "relu" in g for g in groups) == 17


def test_resnet18_blas_matches_onnxruntime():
    from lamina.tools.models import resnet18

    model = resnet18(batch=1, image_size=32)
    x = rand(1, 3, 32, 32)
    exe = lamina.compile(model, targets=["blas"], num_threads=1)
    y = exe.run(x)[0]
    r = ort_run(model, {"input": x})[0]
    np.testing.assert_allclose(y, r, rtol=1e-3, atol=1e-3 * np.abs(r).max())


def test_blas_num_threads_per_model():
    """OpenBLAS's thread count is process-wide: each model sets its own."""
    from lamina.backends import blas

    model = mlp_model((16, 8, 4))
    x = rand(1, 16)
    one = lamina.compile(model, targets=["blas"], num_threads=1)
    two = lamina.compile(model, targets=["blas"], num_threads=2)
    lib = ctypes.CDLL(blas.openblas_library())
    one.run(x)
    assert lib.scipy_openblas_get_num_threads() == 1
    two.run(x)
    assert lib.scipy_openblas_get_num_threads() == 2
    one.run(x)
    assert lib.scipy_openblas_get_num_threads() == 1


# -------------------------------------------------------------------- c
C_MODEL = """
func.func @main(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %z: tensor<4x1xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %c = relay.constant dense<2.0> : tensor<1xf32>
  %0 = relay.add %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = relay.relu %0 : tensor<4x8xf32>
  %2 = relay.multiply %1, %c : (tensor<4x8xf32>, tensor<1xf32>) -> tensor<4x8xf32>
  %3 = relay.add %2, %z : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %4 = relay.softmax %3 {axis = 1 : i64} : tensor<4x8xf32>
  %5 = relay.sigmoid %4 : tensor<4x8xf32>
  %6 = relay.multiply %4, %5 : tensor<4x8xf32>
  %7 = relay.exp %6 : tensor<4x8xf32>
  %8 = relay.maximum %7, %3 : tensor<4x8xf32>
  func.return %8, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}"""


@pytest.mark.parametrize("targets", [["c"], ["blas", "c"]])
def test_c_target_composites_and_broadcasting(targets):
    args = [rand(4, 8), rand(8, seed=1), rand(4, 1, seed=2)]
    got, ref = run_both(C_MODEL, args, targets)
    for g, r in zip(got, ref, strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)


def test_c_target_does_not_use_lamina_kernels():
    mod = lamina.parse(C_MODEL)
    ctx = lamina.PassContext(opt_level=3, config={"byoc.targets": "c"})
    lamina.run_pipeline(mod, "optimize", ctx)
    calls = [o.callee.string_value() for o in mod.walk() if o.name == "te.call"]
    assert sum(c.startswith("lamina_c_") for c in calls) == 2  # before and after softmax
    assert not any(o.name == "relay.add" for o in mod.walk())


UNARY = ["relu", "exp", "tanh", "sigmoid", "negative", "abs"]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum"]


@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([*UNARY, *BINARY, "softmax"]), st.integers(0, 50), st.integers(0, 50)), min_size=2, max_size=9))
def test_random_graphs_partition_without_cycles(ops):
    """Random DAGs of c-supported ops and softmax (not supported: it splits
    regions and makes diamonds): partitioned = not partitioned."""
    lines, values = [], ["%x", "%y"]
    for i, (name, a, b) in enumerate(ops):
        va, vb = values[a % len(values)], values[b % len(values)]
        if name in BINARY:
            lines.append(f"  %v{i} = relay.{name} {va}, {vb} : tensor<3x4xf32>")
        elif name == "softmax":
            lines.append(f"  %v{i} = relay.softmax {va} {{axis = 1 : i64}} : tensor<3x4xf32>")
        else:
            lines.append(f"  %v{i} = relay.{name} {va} : tensor<3x4xf32>")
        values.append(f"%v{i}")
    outs = values[-2:]
    text = (
        "func.func @main(%x: tensor<3x4xf32>, %y: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {\n"
        + "\n".join(lines)
        + f"\n  func.return {outs[0]}, {outs[1]} : tensor<3x4xf32>, tensor<3x4xf32>\n}}"
    )
    args = [rand(3, 4), rand(3, 4, seed=1)]
    mod = lamina.parse(text)
    ctx = lamina.PassContext(opt_level=0, config={"byoc.targets": "c"})
    lamina.run_pipeline(mod, "merge-composite,annotate-target,merge-compiler-regions,partition-graph", ctx)
    mod.verify()
    got, ref = run_both(text, args, ["c"])
    for g, r in zip(got, ref, strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------ registry, errors
def test_unknown_target_is_a_clear_error():
    with pytest.raises(lamina.LaminaError, match=r"unknown BYOC target 'blsa' \(did you mean 'blas'\?\)"):
        lamina.compile(mlp_model((4, 2)), targets=["blsa"])


def test_pipeline_has_byoc_passes_only_with_targets():
    assert "annotate-target" not in standard_pipeline(3)
    ctx = lamina.PassContext(opt_level=0, config={"byoc.targets": "blas"})
    names = standard_pipeline(ctx)
    assert names.index("partition-graph") < names.index("external-codegen")
    assert "fuse-ops" not in names


def test_register_target_in_python():
    """A target registered from Python: a check function that rejects, a
    composite pattern and a codegen compiling its own C."""
    seen = []

    def codegen(fn):
        seen.append(fn.sym_name.data)
        n = int(np.prod(fn.function_type.inputs.data[0].get_shape()))
        src = f"void my_neg_relu(float *x, float *y) {{ for (long i = 0; i < {n}; i++) y[i] = x[i] < 0 ? -x[i] : 0; }}"
        return ExternalFunction("my_neg_relu", (compile_shared(src, name="test"),))

    def small_only(op):
        return "too big" if op.results[0].type.get_shape()[0] > 100 else True

    pattern = is_op("relay.relu")(is_op("relay.negative")(wildcard()))
    register_target(
        "negrelu",
        ops={"relay.exp": small_only},
        patterns=[CompositePattern("neg_relu", pattern)],
        codegen=codegen,
        override=True,
    )
    try:
        text = """
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = relay.negative %x : tensor<8xf32>
  %1 = relay.relu %0 : tensor<8xf32>
  func.return %1 : tensor<8xf32>
}"""
        x = rand(8)
        (y,) = lamina.compile(lamina.parse(text), targets=["negrelu"]).run(x)
        np.testing.assert_allclose(y, np.maximum(-x, 0))
        assert seen == ["negrelu_0"]
        assert get_target("negrelu").check_op(
            lamina.parse("""
func.func @f(%x: tensor<200xf32>) -> tensor<200xf32> {
  %0 = relay.exp %x : tensor<200xf32>
  func.return %0 : tensor<200xf32>
}""").body.block.first_op.body.block.first_op
        ) == "too big"
    finally:
        unregister_target("negrelu")


def test_failing_codegen_names_target_and_function():
    def codegen(fn):
        raise RuntimeError("boom")

    register_target("broken", ops=["relay.relu"], codegen=codegen, override=True)
    try:
        text = """
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = relay.relu %x : tensor<8xf32>
  func.return %0 : tensor<8xf32>
}"""
        with pytest.raises(lamina.LaminaError, match=r"target 'broken': its codegen failed on @broken_0 \(RuntimeError: boom\)"):
            lamina.compile(lamina.parse(text), targets=["broken"])
    finally:
        unregister_target("broken")


def test_exported_library_keeps_the_external_code(tmp_path):
    args = [rand(4, 8), rand(8, seed=1), rand(4, 1, seed=2)]
    exe = lamina.compile(lamina.parse(C_MODEL), targets=["blas", "c"])
    path = tmp_path / "model.so"
    exe.export(path)
    for got, want in zip(lamina.load(path).run(*args), exe.run(*args), strict=True):
        np.testing.assert_allclose(got, want)


def test_lamina_opt_lists_the_byoc_passes():
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "lamina.tools.opt", "--help"], capture_output=True, text=True, check=True
    ).stdout
    out = "".join(out.split())  # argparse wraps the list of passes
    for name in ("merge-composite", "annotate-target", "merge-compiler-regions", "partition-graph", "external-codegen"):
        assert name in out


def test_conv2d_blas_im2col_in_row_blocks(monkeypatch):
    """Huge patch matrices are built and multiplied a block of rows at a time."""
    from lamina.backends import blas

    monkeypatch.setattr(blas, "IM2COL_BLOCK", 200)  # 2 output rows per block
    x, w = rand(1, 4, 11, 9), rand(5, 4, 3, 3, seed=1)
    text = """
func.func @main(%x: tensor<1x4x11x9xf32>, %w: tensor<5x4x3x3xf32>) -> tensor<1x5x6x9xf32> {
  %0 = relay.conv2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x11x9xf32>, tensor<5x4x3x3xf32>) -> tensor<1x5x6x9xf32>
  func.return %0 : tensor<1x5x6x9xf32>
}"""
    (y,), (r,) = run_both(text, [x, w], ["blas"])
    np.testing.assert_allclose(y, r, rtol=1e-4, atol=1e-4)
