"""Whole QDQ models from onnxruntime's quantizer (`quantize_static`, QDQ format,
u8 activations, s8 per-channel weights) through lamina: a small CNN (conv +
bias + relu, max pool, residual add, global average pool, flatten, Gemm), an
MLP (Gemm, MatMul + Add, Clip) and a transformer block (layer norms, Q/K/V
projections, attention with softmax, residuals, an MLP). qnn-fold-qdq turns
every chain with an integer form into integer ops; the outputs are compared
with onnxruntime's int8 run in steps of the output's scale.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import lamina
from tests import ort_int8
from tests.test_qnn_qdq import statistics

ort = pytest.importorskip("onnxruntime")
quantization = pytest.importorskip("onnxruntime.quantization")


class Graph:
    """A float model built with onnx.helper, random weights."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []

    def weight(self, name: str, shape: list[int], scale: float = 0.2) -> str:
        data = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.inits.append(numpy_helper.from_array(data, name))
        return name

    def const(self, name: str, value: Any) -> str:
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def __call__(self, op: str, ins: list[str], out: str, **attrs: Any) -> str:
        self.nodes.append(helper.make_node(op, ins, [out], **attrs))
        return out

    def model(self, x_shape: list[int], y_shape: list[int], y: str) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes, "float", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
            [helper.make_tensor_value_info(y, TensorProto.FLOAT, y_shape)], self.inits,
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        return model


def cnn() -> tuple[onnx.ModelProto, list[int]]:
    g = Graph(1)
    r1 = g("Relu", [g("Conv", ["x", g.weight("w1", [8, 3, 3, 3]), g.weight("b1", [8])], "c1", pads=[1, 1, 1, 1])], "r1")
    p1 = g("MaxPool", [r1], "p1", kernel_shape=[2, 2], strides=[2, 2])
    r2 = g("Relu", [g("Conv", [p1, g.weight("w2", [8, 8, 3, 3]), g.weight("b2", [8])], "c2", pads=[1, 1, 1, 1])], "r2")
    c3 = g("Conv", [r2, g.weight("w3", [8, 8, 3, 3]), g.weight("b3", [8])], "c3", pads=[1, 1, 1, 1])
    r3 = g("Relu", [g("Add", [c3, p1], "a3")], "r3")
    f = g("Flatten", [g("GlobalAveragePool", [r3], "gap")], "f")
    g("Gemm", [f, g.weight("wf", [10, 8]), g.weight("bf", [10])], "y", transB=1)
    return g.model([1, 3, 16, 16], [1, 10], "y"), [1, 3, 16, 16]


def mlp() -> tuple[onnx.ModelProto, list[int]]:
    g = Graph(2)
    r1 = g("Relu", [g("Gemm", ["x", g.weight("w1", [64, 32]), g.weight("b1", [64])], "h1", transB=1)], "r1")
    h2 = g("Add", [g("MatMul", [r1, g.weight("w2", [64, 48])], "m2"), g.weight("b2", [48])], "h2")
    r2 = g("Clip", [h2, g.const("lo", np.float32(0)), g.const("hi", np.float32(6))], "r2")
    g("Gemm", [r2, g.weight("w3", [48, 10]), g.weight("b3", [10])], "y")
    return g.model([4, 32], [4, 10], "y"), [4, 32]


def transformer() -> tuple[onnx.ModelProto, list[int]]:
    d, heads, s, ff = 32, 4, 8, 64
    g = Graph(3)
    ln1 = g("LayerNormalization", ["x", g.weight("g1", [d], 1), g.weight("be1", [d], 0.1)], "ln1", axis=-1)
    proj = {
        k: g("Add", [g("MatMul", [ln1, g.weight(f"w{k}", [d, d])], f"{k}0"), g.weight(f"b{k}", [d])], k)
        for k in "qkv"
    }
    shape = g.const("heads", np.array([1, s, heads, d // heads], np.int64))
    perms = {"q": [0, 2, 1, 3], "k": [0, 2, 3, 1], "v": [0, 2, 1, 3]}
    hv = {k: g("Transpose", [g("Reshape", [v, shape], f"{k}_r")], f"{k}_t", perm=perms[k]) for k, v in proj.items()}
    scores = g("Mul", [g("MatMul", [hv["q"], hv["k"]], "qk"), g.const("scale", np.float32(1 / np.sqrt(d // heads)))], "qks")
    att = g("MatMul", [g("Softmax", [scores], "p", axis=-1), hv["v"]], "o")
    att = g("Reshape", [g("Transpose", [att], "o_t", perm=[0, 2, 1, 3]), g.const("flat", np.array([1, s, d], np.int64))], "o_r")
    r1 = g("Add", ["x", g("Add", [g("MatMul", [att, g.weight("wo", [d, d])], "o1"), g.weight("bo", [d])], "o2")], "r1")
    ln2 = g("LayerNormalization", [r1, g.weight("g2", [d], 1), g.weight("be2", [d], 0.1)], "ln2", axis=-1)
    h = g("Relu", [g("Add", [g("MatMul", [ln2, g.weight("wf1", [d, ff])], "h0"), g.weight("bf1", [ff])], "h1")], "h")
    h = g("Add", [g("MatMul", [h, g.weight("wf2", [ff, d])], "h2"), g.weight("bf2", [d])], "h3")
    g("Add", [r1, h], "y")
    return g.model([1, s, d], [1, s, d], "y"), [1, s, d]


@pytest.fixture(scope="module")
def quantized(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., tuple[onnx.ModelProto, list[int]]]:
    """`quantized(name, fmt="QDQ")`: the model quantized by onnxruntime (QDQ,
    or QOperator: QLinearConv, QLinearAdd, QGemm, ...), calibrated on 16
    random inputs; cached for the module."""
    cache: dict[tuple[str, str], tuple[onnx.ModelProto, list[int]]] = {}
    builders = {"cnn": cnn, "mlp": mlp, "transformer": transformer}

    def get(name: str, fmt: str = "QDQ") -> tuple[onnx.ModelProto, list[int]]:
        if (name, fmt) not in cache:
            model, shape = builders[name]()
            folder: Path = tmp_path_factory.mktemp(f"{name}-{fmt}")
            src, out = folder / "float.onnx", folder / "qdq.onnx"
            onnx.save(model, src)
            rng = np.random.default_rng(7)
            feeds = iter([{"x": rng.standard_normal(shape).astype(np.float32)} for _ in range(16)])

            class Reader(quantization.CalibrationDataReader):
                def get_next(self) -> dict[str, np.ndarray] | None:
                    return next(feeds, None)

            quantization.quantize_static(
                str(src), str(out), Reader(), quant_format=getattr(quantization.QuantFormat, fmt), per_channel=True,
                activation_type=quantization.QuantType.QUInt8, weight_type=quantization.QuantType.QInt8,
            )
            cache[name, fmt] = (onnx.load(str(out)), shape)
        return cache[name, fmt]

    return get


def session(model: onnx.ModelProto, optimized: bool | None = None) -> Any:
    """onnxruntime at one thread; `optimized=False` runs the QDQ graph node by
    node, in float (no QDQ fusion into its int8 kernels). By default, its int8
    run where its u8 x s8 products are exact, else the float one
    (`tests.ort_int8`)."""
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    if optimized is None:
        optimized = ort_int8.EXACT
    if not optimized:
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def output_scale(model: onnx.ModelProto) -> float:
    """The scale of the model's last QuantizeLinear: a step of its output."""
    last = [n for n in model.graph.node if n.op_type == "QuantizeLinear"][-1]
    return float(numpy_helper.to_array(next(i for i in model.graph.initializer if i.name == last.input[1])))


def steps(
    model: onnx.ModelProto, shape: list[int], sessions: list[Any], inputs: int = 20, top1: bool = True
) -> list[float]:
    """The largest difference of lamina's output from each session's, in steps
    of the output's scale (the last QuantizeLinear's), over random inputs; and
    lamina's top-1 must equal the first session's on every input (`top1`)."""
    scale = output_scale(model)
    exe = lamina.compile(model)
    worst = [0.0] * len(sessions)
    for i in range(inputs):
        x = np.random.default_rng(100 + i).standard_normal(shape).astype(np.float32)
        (ours,) = exe.run(x)
        for k, sess in enumerate(sessions):
            theirs = sess.run(None, {"x": x})[0]
            worst[k] = max(worst[k], float(np.abs(ours - theirs).max()) / scale)
            if k == 0 and top1:
                assert (ours.reshape(-1, ours.shape[-1]).argmax(-1) == theirs.reshape(-1, theirs.shape[-1]).argmax(-1)).all()
    return worst


def test_cnn_every_chain_is_integer_and_matches_onnxruntime(quantized):
    model, shape = quantized("cnn")
    stats = statistics(model)
    assert not any(".left." in k for k in stats), stats
    assert stats == {
        "qnn-fold-qdq.conv2d": 3, "qnn-fold-qdq.max_pool2d": 1, "qnn-fold-qdq.add": 1,
        "qnn-fold-qdq.mean": 1, "qnn-fold-qdq.reshape": 1, "qnn-fold-qdq.dense": 1,
    }
    (to_int8,) = steps(model, shape, [session(model)])
    assert to_int8 <= 1.0 + 1e-4, f"{to_int8} steps from onnxruntime's int8 output"


def test_mlp_matches_onnxruntime(quantized):
    model, shape = quantized("mlp")
    stats = statistics(model)
    assert stats == {"qnn-fold-qdq.dense": 2, "qnn-fold-qdq.matmul": 1, "qnn-fold-qdq.add": 1}, stats
    (to_int8,) = steps(model, shape, [session(model)])
    assert to_int8 <= 1.0 + 1e-4, f"{to_int8} steps from onnxruntime's int8 output"


def test_transformer_block_is_integer_but_its_layer_norms(quantized):
    """The projections, attention products, bias and residual adds, the scale
    multiply, the softmax and the head reshapes/transposes are integer; the
    layer norms stay in float. lamina computes what onnxruntime's int8 run
    does (its QLinearAdd and QLinearSoftmax arithmetic): the same top-1 and
    within a step (the float layer norms may put a value across a rounding
    boundary), here equal. The QDQ graph run in float is a few steps away from
    both: QLinearSoftmax scales by floor(1 / y_scale) = 254 instead of 255."""
    model, shape = quantized("transformer")
    stats = statistics(model)
    assert stats == {
        "qnn-fold-qdq.matmul": 8, "qnn-fold-qdq.add": 8, "qnn-fold-qdq.multiply": 1,
        "qnn-fold-qdq.reshape": 4, "qnn-fold-qdq.transpose": 4,
        "qnn-fold-qdq.left.layer_norm.no-integer-form": 2, "qnn-fold-qdq.softmax": 1,
    }, stats
    if not ort_int8.EXACT:  # onnxruntime's int8 matmuls saturate here: its float run decides
        # (no top-1 check: the float run's softmax scales by 255, not 254, and
        # moves near ties)
        (to_float_qdq,) = steps(model, shape, [session(model, optimized=False)], top1=False)
        assert to_float_qdq <= 4.0 + 1e-4, f"{to_float_qdq} steps from the QDQ graph run in float"
        return
    to_int8, to_float_qdq = steps(model, shape, [session(model), session(model, optimized=False)])
    assert to_int8 <= 1.0 + 1e-4, f"{to_int8} steps from onnxruntime's int8 output"
    assert to_float_qdq <= 4.0 + 1e-4, f"{to_float_qdq} steps from the QDQ graph run in float"


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_symbolic_batch(quantized, name):
    """A batch given at run time: the matmuls stay integer; a conv over a
    symbolic size stays float for now (qnn-canonicalize's conv2d needs static
    sizes), counted; both within a step of onnxruntime at batch 1 and 3."""
    model, shape = quantized(name)
    model = onnx.ModelProto.FromString(model.SerializeToString())
    for value in (model.graph.input[0], model.graph.output[0]):
        value.type.tensor_type.shape.dim[0].dim_param = "N"
    stats = statistics(model)
    if name == "mlp":
        assert stats == {"qnn-fold-qdq.dense": 2, "qnn-fold-qdq.matmul": 1, "qnn-fold-qdq.add": 1}, stats
    else:
        assert stats["qnn-fold-qdq.left.conv2d.symbolic-shape"] == 3, stats
    exe, sess, scale = lamina.compile(model), session(model), output_scale(model)
    for batch in (1, 3):
        x = np.random.default_rng(batch).standard_normal([batch, *shape[1:]]).astype(np.float32)
        (ours,) = exe.run(x)
        assert np.abs(ours - sess.run(None, {"x": x})[0]).max() <= scale * (1 + 1e-4)


@pytest.mark.parametrize("name", ["cnn", "mlp"])
def test_qoperator_models_match_onnxruntime(quantized, name):
    """The QOperator format of the same models (QLinearConv, QLinearAdd,
    QLinearGlobalAveragePool, QGemm, QLinearMatMul, u8 max pools): within a
    step of onnxruntime's int8 run, the same top-1."""
    model, shape = quantized(name, "QOperator")
    ops = {n.op_type for n in model.graph.node}
    assert "QuantizeLinear" in ops and ops & {"QLinearConv", "QGemm", "QLinearMatMul"}, ops
    last = next(n for n in reversed(model.graph.node) if n.op_type == "DequantizeLinear")
    scale = float(numpy_helper.to_array(next(i for i in model.graph.initializer if i.name == last.input[1])))
    # (where onnxruntime's QLinear* kernels saturate, its float run of the
    # same quantization in the QDQ format is the reference)
    exe = lamina.compile(model)
    sess = session(model) if ort_int8.EXACT else session(quantized(name, "QDQ")[0], optimized=False)
    for i in range(10):
        x = np.random.default_rng(200 + i).standard_normal(shape).astype(np.float32)
        (ours,), (theirs,) = exe.run(x), sess.run(None, {"x": x})
        assert np.abs(ours - theirs).max() <= scale * (1 + 1e-4)
        assert (ours.reshape(-1, ours.shape[-1]).argmax(-1) == theirs.reshape(-1, theirs.shape[-1]).argmax(-1)).all()
