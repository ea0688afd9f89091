"""qnn-fold-qdq: each QDQ chain it rewrites computes the integers of an integer
numpy reference, bit-exact (requantization `clip(rint(f32(acc) * f32(m)) + zp)`,
round half to even; the multiplier `x_scale * w_scale / y_scale` in f32), and
stays within one step of onnxruntime's int8 kernels; what it leaves in float
is counted with its reason and computes what the float QDQ graph computes.

Models are built with onnx.helper: u8/s8 tensors in (graph inputs) and out (the
QuantizeLinear's result), so the reference works on the integers themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

import lamina
from lamina import passes as manager
from tests import ort_int8
from tests.test_onnx_quantize import add_ref, conv_ref, matmul_ref, requant_ref

RNG = np.random.default_rng(20250117)
U8, S8 = np.uint8, np.int8


class QDQ:
    """A QDQ model built node by node (the form quantize_static writes)."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self.count = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self, arr: Any, prefix: str = "c") -> str:
        name = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def input(self, name: str, shape: Sequence[int], dtype: Any) -> str:
        elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
        self.inputs.append(helper.make_tensor_value_info(name, elem, list(shape)))
        return name

    def node(self, op: str, ins: Sequence[str], **attrs: Any) -> str:
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, list(ins), [out], **attrs))
        return out

    def dq(self, q: str, scale: Any, zp: Any, axis: int | None = None) -> str:
        attrs = {} if axis is None else {"axis": axis}
        return self.node("DequantizeLinear", [q, self.const(np.float32(scale) if np.ndim(scale) == 0 else scale), self.const(zp)], **attrs)

    def q(self, x: str, scale: float, zp: Any) -> str:
        return self.node("QuantizeLinear", [x, self.const(np.float32(scale)), self.const(zp)])

    def model(self, outputs: Sequence[str]) -> onnx.ModelProto:
        """The model with `outputs` (their types inferred by onnx)."""
        graph = helper.make_graph(self.nodes, "qdq", self.inputs, [], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(model).graph.value_info}
        model.graph.output.extend(inferred[o] for o in outputs)
        return model


def ints(dtype: Any, shape: Sequence[int], lo: int | None = None, hi: int | None = None) -> np.ndarray:
    info = np.iinfo(dtype)
    return RNG.integers(info.min if lo is None else lo, info.max if hi is None else hi, tuple(shape), endpoint=True).astype(dtype)


def statistics(model: onnx.ModelProto) -> dict[str, int]:
    """The counters qnn-fold-qdq reports on `model`."""
    stats = manager.StatisticsInstrument()
    manager.run_pipeline(lamina.from_onnx(model), "qnn-fold-qdq", manager.PassContext(instruments=[stats]))
    return {k: v for r in stats.records for k, v in r.counters.items() if k.startswith("qnn-fold-qdq.")}


def ort_session(model: onnx.ModelProto, fused: bool = True) -> Any:
    """onnxruntime on `model`: with its int8 fusions (QLinearConv, ...), or
    with none, so that every DequantizeLinear -> op -> QuantizeLinear runs in
    float (the QDQ graph's exact meaning)."""
    ort = pytest.importorskip("onnxruntime")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    if not fused:
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def within_a_step_of_ort(model: onnx.ModelProto, got: np.ndarray, feeds: dict[str, np.ndarray]) -> None:
    """Within a step of onnxruntime's int8 run where its u8 x s8 products are
    exact (`tests.ort_int8`), else of its float run of the QDQ graph."""
    theirs = ort_session(model, fused=ort_int8.EXACT).run(None, feeds)[0]
    assert got.dtype == theirs.dtype and got.shape == theirs.shape
    diff = np.abs(got.astype(np.int64) - theirs.astype(np.int64))
    assert diff.max() <= 1, f"{(diff > 0).sum()} of {diff.size} outputs differ from onnxruntime, up to {diff.max()}"


def f32(*values: Any) -> np.ndarray:
    """The product or quotient chain the pass computes in f32: `a * b / c`."""
    out = np.float32(values[0])
    for v in values[1:]:
        out = out * np.asarray(v, np.float32)
    return np.asarray(out, np.float32)


# ------------------------------------------------------------------ conv2d
def test_a_depthwise_conv_is_one_batched_integer_matmul():
    """An int8 depthwise convolution (96 groups) canonicalizes to one im2col and
    one matmul batched over the groups, not one of each per group (EfficientNet-B0
    in QDQ form went from 57k graph ops and a compile over 15 minutes to 3.7k and
    21 s); within a step of onnxruntime's int8 run."""
    m = QDQ()
    x = m.dq(m.input("x", (1, 96, 8, 8), U8), np.float32(0.05), np.uint8(128))
    w = m.dq(m.const(ints(S8, (96, 1, 3, 3), -60, 60)), RNG.uniform(0.01, 0.02, 96).astype(np.float32), np.zeros(96, S8), axis=0)
    y = m.q(m.node("Conv", [x, w], group=96, pads=[1, 1, 1, 1]), np.float32(0.1), np.uint8(128))
    model = m.model([y])
    module = lamina.from_onnx(model)
    manager.run_pipeline(module, "qnn-fold-qdq,qnn-legalize,qnn-canonicalize", manager.PassContext())
    names = [op.name for op in module.walk()]
    assert names.count("relay.im2col") == 1 and names.count("relay.matmul") == 1, names
    xq = ints(U8, (1, 96, 8, 8))
    (got,) = lamina.compile(model).run(xq)
    within_a_step_of_ort(model, got, {"x": xq})


CONVS = [  # x type, w shape, attrs, act
    (U8, (6, 4, 3, 3), {"pads": [1, 1, 1, 1]}, "Relu"),
    (U8, (8, 4, 1, 1), {"strides": [2, 2]}, None),
    (S8, (6, 2, 3, 3), {"group": 2, "pads": [0, 1, 2, 1], "dilations": [2, 1]}, "Clip"),
    (U8, (4, 1, 3, 3), {"group": 4, "pads": [1, 1, 1, 1]}, "Relu"),
]


@pytest.mark.parametrize("x_t, w_shape, attrs, act", CONVS)
def test_conv_bias_activation_exact(x_t, w_shape, attrs, act):
    """Conv + i32 bias (onnxruntime's DequantizeLinear at x_scale * w_scale) +
    relu/clip -> qnn.conv2d + i32 add + requantize, the activation as its clamp."""
    o = w_shape[0]
    x_shape = (2, w_shape[1] * attrs.get("group", 1), 7, 6)
    xs, x_zp = np.float32(0.03), np.array(5 if x_t == S8 else 131, x_t)
    ws = RNG.uniform(0.002, 0.02, o).astype(np.float32)
    w = ints(S8, w_shape, -127, 127)
    b_unit = f32(xs, ws)
    bias = ints(np.int32, (o,), -3000, 3000)
    ys, y_zp = np.float32(0.07), np.array(-3 if x_t == S8 else 20, x_t)
    m = QDQ()
    x = m.dq(m.input("x", x_shape, x_t), xs, x_zp)
    y = m.node("Conv", [x, m.dq(m.const(w), ws, np.zeros(o, S8), axis=0), m.dq(m.const(bias), b_unit, np.zeros(o, np.int32), axis=0)], **attrs)
    lo, hi = -0.5, 4.0
    if act == "Relu":
        y = m.node("Relu", [y])
    elif act == "Clip":
        y = m.node("Clip", [y, m.const(np.float32(lo)), m.const(np.float32(hi))])
    model = m.model([m.q(y, ys, y_zp)])
    assert statistics(model) == {"qnn-fold-qdq.conv2d": 1}

    exe = lamina.compile(model)
    pads = attrs.get("pads", [0, 0, 0, 0])
    for _ in range(3):
        xq = ints(x_t, x_shape)
        acc = conv_ref(xq, w, x_zp, 0, (pads[0], pads[1], pads[2], pads[3]), attrs.get("strides", (1, 1)),
                       attrs.get("dilations", (1, 1)), attrs.get("group", 1))
        want = requant_ref(acc + bias.reshape(-1, 1, 1), f32(xs, ws).reshape(-1, 1, 1) / ys, y_zp, x_t)
        floor, ceil = np.iinfo(x_t).min, np.iinfo(x_t).max
        if act == "Relu":
            floor = int(y_zp)
        elif act == "Clip":
            floor, ceil = int(np.rint(np.float32(lo) / ys)) + int(y_zp), int(np.rint(np.float32(hi) / ys)) + int(y_zp)
        want = np.clip(want, floor, ceil).astype(x_t)
        (got,) = exe.run(xq)
        np.testing.assert_array_equal(got, want)
        within_a_step_of_ort(model, got, {"x": xq})


def test_conv_float_bias_is_quantized_at_the_accumulators_scale():
    """A float bias (Add of a constant) is rounded half to even in units of
    x_scale * w_scale, as onnxruntime quantizes a QDQ bias. With y_scale equal
    to that unit, each unit of the bias is a step of the output."""
    xs, ws, ys = np.float32(0.5), np.float32(0.25), np.float32(0.125)
    w = ints(S8, (4, 2, 1, 1), -5, 5)
    units = np.array([0.5, 1.5, -0.5, 10.7])  # ties to even: 0, 2, -0; 11
    bias = (units * 0.125).astype(np.float32)
    m = QDQ()
    x = m.dq(m.input("x", (1, 2, 3, 3), U8), xs, np.uint8(10))
    y = m.node("Add", [m.node("Conv", [x, m.dq(m.const(w), ws, np.int8(0))]), m.const(bias.reshape(1, 4, 1, 1))])
    model = m.model([m.q(y, ys, np.uint8(100))])
    assert statistics(model) == {"qnn-fold-qdq.conv2d": 1}
    xq = ints(U8, (1, 2, 3, 3), 0, 40)
    acc = conv_ref(xq, w, 10) + np.array([0, 2, 0, 11]).reshape(4, 1, 1)
    (got,) = lamina.compile(model).run(xq)
    np.testing.assert_array_equal(got, np.clip(acc + 100, 0, 255).astype(U8))


# ---------------------------------------------------------------- matmuls
def test_gemm_transposed_per_channel_alpha_beta_exact():
    """Gemm(transB, alpha, beta) with a float bias: qnn.matmul of the transposed
    weight, alpha in the multiplier, beta * bias in units of alpha * x_s * w_s."""
    k, n = 24, 10
    xs, ys = np.float32(0.02), np.float32(0.05)
    ws = RNG.uniform(0.005, 0.02, n).astype(np.float32)
    w = ints(S8, (n, k), -127, 127)
    bias = RNG.uniform(-1, 1, n).astype(np.float32)
    alpha, beta = 0.5, 2.0
    m = QDQ()
    x = m.dq(m.input("x", (5, k), U8), xs, np.uint8(128))
    y = m.node("Gemm", [x, m.dq(m.const(w), ws, np.zeros(n, S8), axis=0), m.const(bias)], transB=1, alpha=alpha, beta=beta)
    model = m.model([m.q(y, ys, np.uint8(128))])
    assert statistics(model) == {"qnn-fold-qdq.dense": 1}
    unit = f32(xs, ws, alpha)
    bias_q = np.rint(bias.astype(np.float64) * beta / unit.astype(np.float64))
    exe = lamina.compile(model)
    for _ in range(3):
        xq = ints(U8, (5, k))
        want = requant_ref(matmul_ref(xq, w.T, 128) + bias_q.astype(np.int32), unit / ys, np.uint8(128), U8)
        (got,) = exe.run(xq)
        np.testing.assert_array_equal(got, want)
        within_a_step_of_ort(model, got, {"x": xq})


@pytest.mark.parametrize("x_t", [U8, S8])
def test_matmul_batched_per_column_and_of_two_activations(x_t):
    """MatMul of a 3-D activation by a weight per column (its last axis), then
    a MatMul of two dequantized activations (attention's Q K^T), both integer."""
    xs, ws, hs, ys = np.float32(0.04), RNG.uniform(0.01, 0.03, 6).astype(np.float32), np.float32(0.3), np.float32(0.9)
    w = ints(S8, (8, 6), -127, 127)
    x_zp = np.array(-7 if x_t == S8 else 120, x_t)
    m = QDQ()
    x = m.dq(m.input("x", (2, 5, 8), x_t), xs, x_zp)
    h = m.q(m.node("MatMul", [x, m.dq(m.const(w), ws, np.zeros(6, S8), axis=1)]), hs, x_zp)
    hd = m.dq(h, hs, x_zp)
    t = m.dq(m.input("t", (2, 6, 4), x_t), xs, x_zp)
    model = m.model([h, m.q(m.node("MatMul", [hd, t]), ys, x_zp)])
    assert statistics(model) == {"qnn-fold-qdq.matmul": 2}
    exe = lamina.compile(model)
    for _ in range(3):
        xq, tq = ints(x_t, (2, 5, 8)), ints(x_t, (2, 6, 4))
        h_want = requant_ref(matmul_ref(xq, w, x_zp), f32(xs, ws) / hs, x_zp, x_t)
        y_want = requant_ref(matmul_ref(h_want, tq, x_zp, x_zp), f32(hs, xs) / ys, x_zp, x_t)
        h_got, y_got = exe.run(xq, tq)
        np.testing.assert_array_equal(h_got, h_want)
        np.testing.assert_array_equal(y_got, y_want)


def test_matmul_without_quantized_output_is_integer_then_float():
    """A MatMul whose result is not quantized (MatMulIntegerToFloat): the
    integer product times x_scale * w_scale, within float rounding."""
    xs, ws = np.float32(0.04), RNG.uniform(0.01, 0.03, 6).astype(np.float32)
    w = ints(S8, (8, 6), -127, 127)
    m = QDQ()
    x = m.dq(m.input("x", (3, 8), U8), xs, np.uint8(100))
    model = m.model([m.node("Tanh", [m.node("MatMul", [x, m.dq(m.const(w), ws, np.zeros(6, S8), axis=1)])])])
    assert statistics(model) == {"qnn-fold-qdq.matmul-float-out": 1}
    xq = ints(U8, (3, 8))
    (got,) = lamina.compile(model).run(xq)
    want = np.tanh(matmul_ref(xq, w, 100).astype(np.float64) * f32(xs, ws))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------- elementwise and data
@pytest.mark.parametrize("dtype", [U8, S8])
def test_elementwise_chains_become_tables(dtype: type) -> None:
    """Unary float chains between a dequantize and a quantize (a tanh, a
    sigmoid, a scale then an erf) become a table of the 256 codes read by
    relay.take: the codes lamina's float chain gives (O0 runs it), and
    onnxruntime's within a step (its own tanh, sigmoid and erf)."""
    m = QDQ()
    zero = dtype(0) if dtype is S8 else dtype(128)
    x = m.dq(m.input("x", (3, 40), dtype), np.float32(0.04), zero)
    outs = [
        m.q(m.node("Tanh", [x]), np.float32(1 / 127), zero),
        m.q(m.node("Sigmoid", [x]), np.float32(1 / 255), dtype(0) if dtype is U8 else dtype(-128)),
        m.q(m.node("Erf", [m.node("Mul", [x, m.const(np.float32(0.7))])]), np.float32(1 / 127), zero),
    ]
    model = m.model(outs)
    assert statistics(model) == {"qnn-fold-qdq.table": 3}
    exe, ref, sess = lamina.compile(model), lamina.compile(model, opt_level=0), ort_session(model)
    xq = ints(dtype, (3, 40))
    xq.reshape(-1)[:100] = (np.arange(100) * 2 + np.iinfo(dtype).min).astype(dtype)  # (every other code)
    for got, want, theirs in zip(exe.run(xq), ref.run(xq), sess.run(None, {"x": xq}), strict=True):
        np.testing.assert_array_equal(got, want)
        assert np.abs(got.astype(np.int64) - theirs).max() <= 1


def test_add_mul_relu_are_qnn_ops():
    """Add and Mul of dequantized values -> qnn.add / qnn.mul: onnxruntime's
    QLinearAdd arithmetic, the real values' product (f32) quantized; a relu
    after it clips at the zero point."""
    sa, sb, sy = np.float32(0.05), np.float32(0.03), np.float32(0.04)
    m = QDQ()
    a = m.dq(m.input("a", (2, 3, 4), U8), sa, np.uint8(128))
    b = m.dq(m.input("b", (2, 3, 4), U8), sb, np.uint8(50))
    s = m.q(m.node("Relu", [m.node("Add", [a, b])]), sy, np.uint8(60))
    p = m.q(m.node("Mul", [a, b]), np.float32(0.3), np.int8(0))
    model = m.model([s, p])
    assert statistics(model) == {"qnn-fold-qdq.add": 1, "qnn-fold-qdq.multiply": 1}
    exe = lamina.compile(model)
    for _ in range(3):
        aq, bq = ints(U8, (2, 3, 4)), ints(U8, (2, 3, 4))
        ar = ((aq.astype(np.float32) - 128) * sa).astype(np.float32)
        br = ((bq.astype(np.float32) - 50) * sb).astype(np.float32)
        want_s = np.maximum(add_ref(aq, sa, 128, bq, sb, 50, sy, 60, U8), U8(60))  # (onnxruntime's add)
        want_p = np.clip(np.rint((ar * br) / np.float32(0.3)), -128, 127).astype(S8)
        s_got, p_got = exe.run(aq, bq)
        np.testing.assert_array_equal(s_got, want_s)
        np.testing.assert_array_equal(p_got, want_p)
        within_a_step_of_ort(model, s_got, {"a": aq, "b": bq})


def test_concat_pool_and_data_movement_on_integers():
    """Concat of two scales (one requantized), max pool, transpose, reshape and
    flatten between a dequantize and a quantize run on the integers; a scale
    change after them is one requantize."""
    s1, s2 = np.float32(0.1), np.float32(0.0625)
    m = QDQ()
    a = m.dq(m.input("a", (1, 3, 4, 4), U8), s1, np.uint8(128))
    b = m.dq(m.input("b", (1, 2, 4, 4), U8), s2, np.uint8(3))
    cat = m.q(m.node("Concat", [a, b], axis=1), s1, np.uint8(128))
    pool = m.q(m.node("MaxPool", [m.dq(cat, s1, np.uint8(128))], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]), s1, np.uint8(128))
    moved = m.node("Flatten", [m.node("Transpose", [m.dq(pool, s1, np.uint8(128))], perm=[0, 2, 3, 1])], axis=1)
    model = m.model([cat, pool, m.q(moved, s2, np.uint8(7))])
    assert statistics(model) == {
        "qnn-fold-qdq.concatenate": 1, "qnn-fold-qdq.max_pool2d": 1, "qnn-fold-qdq.transpose": 1,
        "qnn-fold-qdq.reshape": 1,
    }
    exe = lamina.compile(model)
    for _ in range(3):
        aq, bq = ints(U8, (1, 3, 4, 4)), ints(U8, (1, 2, 4, 4))
        b_at_s1 = requant_ref(bq.astype(np.int32) - 3, f32(s2) / s1, np.uint8(128), U8)
        cat_want = np.concatenate([aq, b_at_s1], axis=1)
        padded = np.pad(cat_want.astype(np.int32), ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-1)
        pool_want = np.max([padded[:, :, i:i + 4, j:j + 4] for i in range(3) for j in range(3)], axis=0).astype(U8)
        flat = pool_want.transpose(0, 2, 3, 1).reshape(1, -1)
        moved_want = requant_ref(flat.astype(np.int32) - 128, f32(s1) / s2, np.uint8(7), U8)
        for got, want in zip(exe.run(aq, bq), [cat_want, pool_want, moved_want], strict=True):
            np.testing.assert_array_equal(got, want)


def test_average_pools_sum_on_integers():
    """GlobalAveragePool and AveragePool (padding counted): an i32 sum of q - zp
    requantized by scale / (y_scale * count)."""
    s, ys = np.float32(0.05), np.float32(0.02)
    m = QDQ()
    x = m.dq(m.input("x", (2, 3, 5, 5), U8), s, np.uint8(100))
    g = m.q(m.node("GlobalAveragePool", [x]), ys, np.uint8(128))
    a = m.q(m.node("AveragePool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1), s, np.uint8(100))
    model = m.model([g, a])
    assert statistics(model) == {"qnn-fold-qdq.mean": 1, "qnn-fold-qdq.avg_pool2d": 1}
    exe = lamina.compile(model)
    for _ in range(3):
        xq = ints(U8, (2, 3, 5, 5))
        c = xq.astype(np.int32) - 100
        g_want = requant_ref(c.sum(axis=(2, 3), keepdims=True), np.float32(np.float64(s) / (np.float64(ys) * 25)), np.uint8(128), U8)
        p = np.pad(c, ((0, 0), (0, 0), (1, 1), (1, 1)))
        sums = sum(p[:, :, i:i + 5:2, j:j + 5:2] for i in range(3) for j in range(3))
        a_want = requant_ref(sums, np.float32(1 / 9), np.uint8(100), U8)
        g_got, a_got = exe.run(xq)
        np.testing.assert_array_equal(g_got, g_want)
        np.testing.assert_array_equal(a_got, a_want)
        within_a_step_of_ort(model, g_got, {"x": xq})


# -------------------------------------------------------------- left in float
def test_chains_without_an_integer_form_stay_float_and_are_counted():
    """A softmax of 16-bit codes, a weight scaled along its input channels, an
    average pool that does not count its padding and a per-channel activation stay in float,
    each counted with its reason, and compute what the float QDQ graph does."""
    m = QDQ()
    x = m.dq(m.input("x", (1, 4, 4, 4), U8), np.float32(0.05), np.uint8(128))
    w = m.dq(m.const(ints(S8, (4, 4, 1, 1), -50, 50)), RNG.uniform(0.01, 0.02, 4).astype(np.float32), np.zeros(4, S8), axis=1)
    conv = m.q(m.node("Conv", [x, w]), np.float32(0.1), np.uint8(128))
    pool = m.q(m.node("AveragePool", [x], kernel_shape=[3, 3], pads=[1, 1, 1, 1]), np.float32(0.05), np.uint8(128))
    xc = m.dq(m.input("xc", (1, 4, 4, 4), U8), np.full(4, 0.05, np.float32), np.full(4, 128, U8), axis=1)
    relu = m.q(m.node("Relu", [xc]), np.float32(0.05), np.uint8(128))
    x16 = m.dq(m.input("x16", (1, 4, 4, 4), np.int16), np.float32(0.001), np.int16(0))
    soft = m.q(m.node("Softmax", [x16], axis=1), np.float32(1 / 256), np.uint8(0))
    model = m.model([soft, conv, pool, relu])
    assert statistics(model) == {
        "qnn-fold-qdq.left.softmax.i16-operand": 1,
        "qnn-fold-qdq.left.conv2d.weight-scale-not-per-output-channel": 1,
        "qnn-fold-qdq.left.avg_pool2d.padding-not-counted": 1,
        "qnn-fold-qdq.left.relu.per-channel-activation": 1,
    }
    xq, xcq, x16q = ints(U8, (1, 4, 4, 4)), ints(U8, (1, 4, 4, 4)), ints(np.int16, (1, 4, 4, 4), -3000, 3000)
    ins = (xq, xcq, x16q)
    for got, want in zip(lamina.compile(model).run(*ins), lamina.compile(model, opt_level=0).run(*ins), strict=True):
        np.testing.assert_array_equal(got, want)


def test_shared_intermediate_is_left_and_the_product_still_integer():
    """A conv whose float result also feeds another op keeps its chain in float
    (reason counted), but the product itself runs on the integers."""
    m = QDQ()
    x = m.dq(m.input("x", (1, 2, 3, 3), U8), np.float32(0.05), np.uint8(128))
    c = m.node("Conv", [x, m.dq(m.const(ints(S8, (2, 2, 1, 1), -9, 9)), np.float32(0.01), np.int8(0))])
    model = m.model([m.q(m.node("Relu", [c]), np.float32(0.01), np.uint8(0)), m.node("Sigmoid", [c])])
    assert statistics(model) == {"qnn-fold-qdq.conv2d-float-out": 1}
    xq = ints(U8, (1, 2, 3, 3))
    got = lamina.compile(model).run(xq)
    want = lamina.compile(model, opt_level=0).run(xq)
    # O0 convolves the dequantized floats, O3 the integers then scales the sum:
    # a result that lands on a rounding boundary may quantize a step apart
    assert np.abs(got[0].astype(np.int64) - want[0]).max() <= 1
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)


def test_a_chain_given_up_leaves_no_op_behind():
    """A conv whose bias is not a constant: the full chain is given up (its
    ops checked before any is built), the product alone runs integer; the
    quantized input ends with exactly one user, the integer conv."""
    module = lamina.parse("""
func.func @main(%q: tensor<1x2x3x3xui8>, %bias: tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xui8> {
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<128> : tensor<ui8>
  %w = relay.constant dense<3> : tensor<2x2x1x1xi8>
  %zw = relay.constant dense<0> : tensor<i8>
  %x = qnn.dequantize %q, %s, %z : (tensor<1x2x3x3xui8>, tensor<f32>, tensor<ui8>)
  %wd = qnn.dequantize %w, %s, %zw : (tensor<2x2x1x1xi8>, tensor<f32>, tensor<i8>)
  %c = relay.conv2d %x, %wd : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %b = relay.add %c, %bias : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %y = qnn.quantize %b, %s, %z : (tensor<1x2x3x3xf32>, tensor<f32>, tensor<ui8>)
  func.return %y : tensor<1x2x3x3xui8>
}
""")
    stats = manager.StatisticsInstrument()
    manager.run_pipeline(module, "qnn-fold-qdq", manager.PassContext(instruments=[stats]))
    counters = {k: v for r in stats.records for k, v in r.counters.items() if k.startswith("qnn-fold-qdq.")}
    assert counters == {"qnn-fold-qdq.conv2d-float-out": 1}
    main = next(op for op in module.walk() if op.name == "func.func")
    q = main.regions[0].blocks.first.args[0]
    assert [u.operation.name for u in q.uses] == ["qnn.conv2d"]
