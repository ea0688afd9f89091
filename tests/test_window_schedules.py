"""The window schedule (grouped and depthwise convolutions: lanes along the
output columns, a tile of rows) and the vector reads it relies on (strided
loads, masked loads at padded edges), against onnx's reference evaluator on odd
shapes: primes, tails, 1-sized axes, strides 2 and 3, dilation."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import lamina

RNG = np.random.default_rng(7)


def _model(nodes, x_shape, inits):
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _check(model, x_shape, threads: int = 1) -> None:
    x = RNG.standard_normal(x_shape).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    got = lamina.compile(model, num_threads=threads).run(x)[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


# (channels, groups, height, width, kernel, strides, pads, dilation)
CONVS = [
    (8, 8, 17, 23, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),  # depthwise, prime sizes
    (6, 6, 13, 31, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1)),  # stride 2, a tail
    (5, 5, 11, 19, (5, 5), (1, 1), (2, 2, 2, 2), (1, 1)),  # 5x5
    (4, 4, 7, 7, (7, 7), (1, 1), (3, 3, 3, 3), (1, 1)),  # 7x7 on 7x7
    (3, 3, 29, 37, (3, 3), (3, 3), (0, 1, 2, 0), (1, 1)),  # stride 3, asymmetric
    (4, 4, 15, 21, (3, 3), (1, 1), (2, 2, 2, 2), (2, 2)),  # dilated
    (12, 3, 9, 18, (3, 3), (1, 2), (1, 1, 1, 1), (1, 1)),  # grouped, 4 channels each
    (16, 4, 1, 40, (1, 3), (1, 1), (0, 1, 0, 1), (1, 1)),  # one row
    (6, 2, 10, 1, (3, 1), (1, 1), (1, 0, 1, 0), (1, 1)),  # one column
    (7, 7, 5, 5, (3, 3), (1, 1), (0, 0, 0, 0), (1, 1)),  # unpadded
]


@pytest.mark.parametrize("case", CONVS, ids=lambda c: "x".join(map(str, c[:4])) + f"_k{c[4][0]}s{c[5][0]}")
@pytest.mark.parametrize("threads", [1, 2])
def test_grouped_and_depthwise_convs(case, threads) -> None:
    c, g, h, w, k, s, p, d = case
    weight = RNG.standard_normal((c, c // g, *k)).astype(np.float32)
    bias = RNG.standard_normal(c).astype(np.float32)
    nodes = [
        helper.make_node(
            "Conv", ["x", "w", "b"], ["c"], group=g, strides=list(s), pads=list(p),
            dilations=list(d), kernel_shape=list(k),
        ),
        helper.make_node("Clip", ["c", "lo", "hi"], ["y"]),
    ]
    inits = {"w": weight, "b": bias, "lo": np.float32(-1.5), "hi": np.float32(2.0)}
    _check(_model(nodes, [2, c, h, w], inits), [2, c, h, w], threads)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
@pytest.mark.parametrize("shape", [(2, 3, 5, 37), (1, 1, 1, 3), (1, 2, 9, 16)])
def test_pads_read_masked_vectors(mode, shape) -> None:
    """Pads along the vector axis: their reads are masked loads whose lanes off
    the edge are the padding (constant) or the clamped element (edge)."""
    pads = np.array([0, 0, 1, 2, 0, 0, 2, 3], np.int64)
    if mode == "reflect":
        pads = np.minimum(pads, min(shape[2], shape[3]) - 1)
    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode=mode)
    _check(_model([node], list(shape), {"pads": pads}), list(shape))


@pytest.mark.parametrize("stride", [2, 3])
def test_strided_slices_read_wide_vectors(stride) -> None:
    node = helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])
    inits = {
        "starts": np.array([1], np.int64), "ends": np.array([200], np.int64),
        "axes": np.array([3], np.int64), "steps": np.array([stride], np.int64),
    }
    _check(_model([node], [2, 3, 4, 203], inits), [2, 3, 4, 203])


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMax", "ReduceMin", "ReduceMean", "ReduceProd"])
@pytest.mark.parametrize("shape", [(3, 17), (2, 5, 100), (4, 1), (2, 3, 16), (1, 7, 33)])
def test_row_reductions_are_rfactored(op, shape) -> None:
    """Reductions over the last axis: vector partials over the lanes (tails add
    the identity), combined at the end; also over the last two axes."""
    axes = [-1] if len(shape) < 3 else [-2, -1]
    node = helper.make_node(op, ["x", "axes"], ["y"], keepdims=0)
    model = _model([node], list(shape), {"axes": np.array(axes, np.int64)})
    x = RNG.uniform(0.5, 1.5, shape).astype(np.float32)  # a product stays finite
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    got = lamina.compile(model).run(x)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(2, 3, 37), (1, 12, 16, 197), (5, 1)])
@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
def test_softmax_rows(op, shape) -> None:
    node = helper.make_node(op, ["x"], ["y"], axis=-1)
    _check(_model([node], list(shape), {}), list(shape))


@pytest.mark.parametrize("op", ["Softmax", "ReduceSum"])
def test_reductions_over_a_strided_axis(op) -> None:
    """Rfactored over an axis that is not the innermost in memory (channels of
    NCHW): the lanes' reads are gathers, left to a serial loop, still exact."""
    shape = [2, 19, 3, 5]
    if op == "Softmax":
        node = helper.make_node(op, ["x"], ["y"], axis=1)
        inits = {}
    else:
        node = helper.make_node(op, ["x", "axes"], ["y"], keepdims=1)
        inits = {"axes": np.array([1], np.int64)}
    _check(_model([node], shape, inits), shape)


# (channels, height, width, kernel, strides, pads, ceil_mode, dilation)
POOLS = [
    (3, 17, 23, (3, 3), (2, 2), (1, 1, 1, 1), 0, (1, 1)),
    (5, 14, 14, (3, 3), (2, 2), (0, 0, 0, 0), 1, (1, 1)),  # a ceil_mode tail
    (4, 13, 29, (3, 3), (1, 1), (1, 1, 1, 1), 0, (1, 1)),  # (the reference evaluator
    # miscounts ceil_mode outputs at stride 1: ceil_mode is tested at stride 2)
    (2, 9, 40, (2, 5), (3, 2), (0, 2, 1, 2), 0, (1, 1)),  # stride 3, asymmetric
    (3, 11, 11, (3, 3), (1, 1), (2, 2, 2, 2), 0, (2, 2)),  # dilated
    (2, 1, 7, (1, 7), (1, 1), (0, 0, 0, 0), 0, (1, 1)),  # one row, unpadded
]


@pytest.mark.parametrize("case", POOLS, ids=lambda c: "x".join(map(str, c[:3])) + f"_s{c[4][0]}c{c[6]}")
@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
def test_pools(case, op) -> None:
    """Max pools read an input padded with -inf (alter-op-layout); both get the
    window schedule."""
    c, h, w, k, s, p, ceil, d = case
    attrs = {"kernel_shape": list(k), "strides": list(s), "pads": list(p), "ceil_mode": ceil}
    if op == "MaxPool":
        attrs["dilations"] = list(d)
    elif d != (1, 1):
        pytest.skip("AveragePool takes no dilations before opset 19")
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    _check(_model([node], [2, c, h, w], {}), [2, c, h, w])


# 1-D and 3-D convolutions and poolings take the window schedule too (rows of
# output channels for a dense convolution, of output rows for a grouped one):
# (channels in, out, groups, spatial shape, kernel, strides, dilation)
RANKED = [
    (5, 7, 1, (37,), (3,), (1,), (1,)),  # 1-D, dense: rows of 7 output channels
    (4, 9, 1, (50,), (10,), (5,), (1,)),  # wav2vec2's feature conv: kernel 10, stride 5
    (6, 6, 3, (41,), (5,), (2,), (2,)),  # grouped, strided, dilated
    (3, 5, 1, (4, 9, 11), (3, 3, 3), (1, 1, 1), (1, 1, 1)),  # 3-D, dense
    (4, 4, 4, (5, 7, 6), (3, 1, 3), (2, 1, 1), (1, 1, 1)),  # 3-D, depthwise, strided
    (4, 6, 2, (3, 6, 21), (3, 3, 4), (1, 2, 2), (1, 1, 1)),  # 3-D, grouped, conv-phases
    (3, 5, 1, (64,), (6,), (3,), (1,)),  # 1-D, conv-phases with the padding cropped
    (5, 7, 1, (33,), (3,), (2,), (1,)),  # Whisper's kernel 3, stride 2: the padding apart
]


@pytest.mark.parametrize("case", RANKED, ids=lambda c: f"{len(c[3])}d_c{c[0]}k{c[1]}g{c[2]}s{c[5][0]}")
def test_convs_and_pools_of_other_ranks(case) -> None:
    cin, cout, g, spatial, k, s, d = case
    pads = [x // 2 for x in k] * 2
    weight = RNG.standard_normal((cout, cin // g, *k)).astype(np.float32)
    nodes = [
        helper.make_node(
            "Conv", ["x", "w"], ["c"], group=g, strides=list(s), pads=pads, dilations=list(d),
            kernel_shape=list(k),
        ),
        helper.make_node("MaxPool", ["c"], ["y"], kernel_shape=[2] * len(k), strides=[2] * len(k)),
    ]
    model = _model(nodes, [1, cin, *spatial], {"w": weight})
    _check(model, [1, cin, *spatial])


def test_a_dense_3d_convolution_tiles_output_channels() -> None:
    """Its schedule tiles the output channels (axis 1) over the lanes of the
    last axis, so every input vector is read once for the whole tile."""
    from lamina.lowering.strategy.cpu import window

    sched = str(window((1, 64, 8, 28, 28), 4, 32, row=1))
    assert "split(i1, 8)" in sched and "unroll(i1.i)" in sched and "vectorize(i4.i)" in sched
    assert sched.index("reorder(i0, i2, i3, i1.o, i4.o, r0, r1, r2, r3, i1.i, i4.i)") > 0
