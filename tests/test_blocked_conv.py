"""Convolutions in blocked channel layouts (`relay.conv2d_nchwc`, and the 1-D
and 3-D `relay.conv1d_ncwc` and `relay.conv3d_ncdhwc`, from
`alter-op-layout`) against onnx.reference: kernel sizes, strides, dilations,
asymmetric padding, prime and 1-sized spatial extents; chains with biases,
activations and residual additions that stay blocked; and layouts that must not
be lifted (ops over axes, channels that do not divide into the lanes)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import lamina
from lamina.dialects import relay
from lamina.target import Target

LANES = Target.host().lanes(32)
RNG = np.random.default_rng(7)


def _model(nodes: list[onnx.NodeProto], x_shape: tuple[int, ...], inits: dict[str, np.ndarray]) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(v.astype(np.float32), k) for k, v in inits.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _compare(model: onnx.ModelProto, x: np.ndarray) -> lamina.CompiledModel:
    exe = lamina.compile(model)
    (want,) = ReferenceEvaluator(model).run(None, {"x": x})
    (got,) = exe.run(x)
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4)
    return exe


def _ops(model: onnx.ModelProto) -> list[str]:
    """The graph ops after the graph passes (alter-op-layout included)."""
    module = lamina.from_onnx(model)
    lamina.run_pipeline(module, "optimize", lamina.PassContext(opt_level=3))
    return [op.name for op in module.walk() if isinstance(op, relay.RelayOp)]


@pytest.mark.parametrize(
    ("c", "o", "hw", "kernel", "attrs"),
    [
        (LANES, LANES, (7, 7), (3, 3), {"pads": [1, 1, 1, 1]}),
        (2 * LANES, LANES, (13, 11), (3, 3), {"pads": [0, 1, 2, 0]}),
        (LANES, 3 * LANES, (9, 9), (1, 1), {"strides": [2, 2]}),
        (LANES, LANES, (11, 17), (3, 5), {"dilations": [2, 1], "pads": [2, 2, 2, 2]}),
        (2 * LANES, 2 * LANES, (1, 1), (1, 1), {}),
        (LANES, LANES, (15, 15), (7, 7), {"strides": [2, 2], "pads": [3, 3, 3, 3]}),
        (LANES, 2 * LANES, (5, 29), (3, 3), {"strides": [1, 2]}),
    ],
)
def test_conv_shapes(c, o, hw, kernel, attrs):
    w, b = RNG.standard_normal((o, c, *kernel)), RNG.standard_normal(o)
    model = _model([helper.make_node("Conv", ["x", "w", "b"], ["y"], **attrs)], (2, c, *hw), {"w": w, "b": b})
    gemm = kernel == (1, 1) and not attrs  # a GEMM as it is: blocked only in a chain
    assert ("relay.conv2d_nchwc" in _ops(model)) != gemm
    _compare(model, RNG.standard_normal((2, c, *hw)).astype(np.float32))


def test_a_residual_block_stays_blocked():
    """1x1 conv-relu-3x3 conv-bias-relu-3x3 conv-scale-add(x)-relu: one transform
    in, one out; the 1x1 GEMM joins the blocked layout (its result would
    otherwise be transformed), the skip input is brought in once."""
    c = 2 * LANES
    inits = {
        "w0": RNG.standard_normal((c, c, 1, 1)) * 0.1,
        "w1": RNG.standard_normal((c, c, 3, 3)) * 0.1, "b1": RNG.standard_normal(c),
        "w2": RNG.standard_normal((c, c, 3, 3)) * 0.1, "s": RNG.standard_normal((c, 1, 1)),
    }
    nodes = [
        helper.make_node("Conv", ["x", "w0"], ["g"]),
        helper.make_node("Relu", ["g"], ["gr"]),
        helper.make_node("Conv", ["gr", "w1", "b1"], ["a"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["a"], ["r"]),
        helper.make_node("Conv", ["r", "w2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Mul", ["c2", "s"], ["m"]),  # a per-channel scale
        helper.make_node("Add", ["m", "x"], ["sum"]),
        helper.make_node("Relu", ["sum"], ["y"]),
    ]
    model = _model(nodes, (1, c, 10, 10), inits)
    ops = _ops(model)
    assert ops.count("relay.conv2d_nchwc") == 3
    assert ops.count("relay.layout_transform") == 2, ops  # x in (shared by cse), y out
    _compare(model, RNG.standard_normal((1, c, 10, 10)).astype(np.float32))


def test_ops_over_axes_and_undivided_channels_keep_nchw():
    c = LANES
    inits = {"w": RNG.standard_normal((c, c, 3, 3)), "w3": RNG.standard_normal((c + 3, c, 1, 1))}
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["a"], pads=[1, 1, 1, 1]),
        helper.make_node("Softmax", ["a"], ["s"], axis=1),
        helper.make_node("Conv", ["s", "w3"], ["y"]),  # c + 3 output channels: GEMM path
    ]
    model = _model(nodes, (1, c, 6, 6), inits)
    ops = _ops(model)
    assert ops.count("relay.conv2d_nchwc") == 1
    _compare(model, RNG.standard_normal((1, c, 6, 6)).astype(np.float32))


def test_a_pool_between_convs():
    """A max pool reads NCHW: the transform back comes before it, and the next
    convolution brings its input in again."""
    c = LANES
    inits = {"w1": RNG.standard_normal((c, c, 3, 3)), "w2": RNG.standard_normal((c, c, 3, 3))}
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["a"], pads=[1, 1, 1, 1]),
        helper.make_node("MaxPool", ["a"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p", "w2"], ["y"], pads=[1, 1, 1, 1]),
    ]
    model = _model(nodes, (1, c, 8, 8), inits)
    _compare(model, RNG.standard_normal((1, c, 8, 8)).astype(np.float32))


@pytest.mark.parametrize(
    ("c", "o", "size", "kernel", "attrs"),
    [
        (1, LANES, (160,), (10,), {"strides": [5]}),  # an audio model's first layer
        (LANES, 2 * LANES, (37,), (3,), {"strides": [2], "pads": [1, 1]}),
        (2 * LANES, LANES, (29,), (5,), {"dilations": [2], "pads": [0, 3]}),
        (LANES, LANES, (1,), (1,), {}),
        (3, LANES, (3, 13, 13), (3, 7, 7), {"strides": [1, 2, 2], "pads": [1, 3, 3, 1, 3, 3]}),
        (LANES, 2 * LANES, (4, 9, 9), (1, 3, 3), {"pads": [0, 1, 1, 0, 1, 1]}),
        (2 * LANES, LANES, (5, 6, 7), (3, 1, 1), {"pads": [1, 0, 0, 1, 0, 0]}),
        (LANES, LANES, (5, 7, 7), (3, 3, 3), {"strides": [2, 2, 2], "pads": [1, 1, 1, 1, 1, 1]}),
        (LANES, LANES, (6, 5, 5), (2, 2, 2), {"dilations": [2, 1, 2], "pads": [0, 1, 0, 1, 0, 1]}),
    ],
)
def test_conv_1d_and_3d_shapes(c, o, size, kernel, attrs):
    """1-D (NCW<x>c) and 3-D (NCDHW<x>c) convolutions: kernel sizes, strides,
    dilations, asymmetric padding, a few input channels as one block."""
    w, b = RNG.standard_normal((o, c, *kernel)) * 0.2, RNG.standard_normal(o)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["a"], **attrs),
        helper.make_node("Relu", ["a"], ["y"]),
    ]
    model = _model(nodes, (2, c, *size), {"w": w, "b": b})
    ops = _ops(model)
    assert ("relay.conv1d_ncwc" if len(size) == 1 else "relay.conv3d_ncdhwc") in ops, ops
    _compare(model, RNG.standard_normal((2, c, *size)).astype(np.float32))


def test_a_video_block_stays_blocked():
    """R(2+1)D's block: (1, 3, 3) conv-relu-(3, 1, 1) conv-add(x)-relu, then a
    global average pool: one transform in, one out after the pool."""
    c = LANES
    inits = {
        "w1": RNG.standard_normal((2 * c, c, 1, 3, 3)) * 0.1, "b1": RNG.standard_normal(2 * c),
        "w2": RNG.standard_normal((c, 2 * c, 3, 1, 1)) * 0.1,
    }
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["a"], pads=[0, 1, 1, 0, 1, 1]),
        helper.make_node("Relu", ["a"], ["r"]),
        helper.make_node("Conv", ["r", "w2"], ["c2"], pads=[1, 0, 0, 1, 0, 0]),
        helper.make_node("Add", ["c2", "x"], ["sum"]),
        helper.make_node("Relu", ["sum"], ["s"]),
        helper.make_node("ReduceMean", ["s"], ["y"], axes=[2, 3, 4], keepdims=1),
    ]
    model = _model(nodes, (1, c, 4, 6, 6), inits)
    ops = _ops(model)
    assert ops.count("relay.conv3d_ncdhwc") == 2
    assert ops.count("relay.layout_transform") == 2, ops  # x in (shared by cse), the pooled y out
    _compare(model, RNG.standard_normal((1, c, 4, 6, 6)).astype(np.float32))
