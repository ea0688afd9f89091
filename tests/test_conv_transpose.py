"""Transposed convolutions with constant weights, rewritten by `alter-op-layout`
into one convolution over the output's phases and a depth-to-space
(`transforms/graph/conv_transpose.py`), against onnxruntime (onnx.reference
1.23 disagrees with it and with lamina on a grouped one): 1-D, 2-D and
3-D, strides above, equal to and below the kernel, symmetric and asymmetric
padding, output padding and output shapes, groups; and the ones left as
they are (dilation)."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

import lamina
from lamina.dialects import relay

RNG = np.random.default_rng(11)


def _model(x_shape: tuple[int, ...], w: np.ndarray, attrs: dict[str, object], bias: bool = True) -> onnx.ModelProto:
    inits = [numpy_helper.from_array(w.astype(np.float32), "w")]
    inputs = ["x", "w"]
    if bias:
        inits.append(numpy_helper.from_array(RNG.standard_normal(w.shape[1] * attrs.get("group", 1)).astype(np.float32), "b"))  # type: ignore[operator]
        inputs.append("b")
    graph = helper.make_graph(
        [helper.make_node("ConvTranspose", inputs, ["t"], **attrs), helper.make_node("Relu", ["t"], ["y"])],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _ops(model: onnx.ModelProto) -> list[str]:
    module = lamina.from_onnx(model)
    lamina.run_pipeline(module, "optimize", lamina.PassContext(opt_level=3))
    return [op.name for op in module.walk() if isinstance(op, relay.RelayOp)]


def _reference(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": x})[0]


def _check(model: onnx.ModelProto, x_shape: tuple[int, ...], rewritten: bool = True) -> None:
    ops = _ops(model)
    assert (not any("transpose" in n and "conv" in n for n in ops)) == rewritten, ops
    x = RNG.standard_normal(x_shape).astype(np.float32)
    (got,) = lamina.compile(model).run(x)
    np.testing.assert_allclose(got, _reference(model, x), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "attrs"),
    [
        ((1, 16, 7, 7), (16, 8, 2, 2), {"strides": [2, 2]}),  # U-Net's upsampling: a GEMM
        ((1, 8, 6, 5), (8, 16, 4, 4), {"strides": [2, 2], "pads": [1, 1, 1, 1]}),  # DCGAN's
        ((2, 8, 5, 6), (8, 4, 3, 3), {"strides": [2, 2], "pads": [1, 1, 1, 1], "output_padding": [1, 1]}),
        ((1, 4, 4, 5), (4, 6, 3, 2), {"strides": [2, 3], "pads": [1, 0, 0, 1]}),  # asymmetric
        ((1, 4, 5, 5), (4, 4, 1, 1), {"strides": [2, 2]}),  # kernel below the stride: zero phases
        ((1, 4, 5, 5), (4, 4, 3, 3), {}),  # stride 1
        ((1, 4, 3, 4), (4, 4, 3, 3), {"strides": [2, 2], "output_shape": [8, 10]}),
        ((1, 8, 30), (8, 4, 16), {"strides": [8], "pads": [4, 4]}),  # a vocoder's upsampling
        ((1, 4, 3, 4, 4), (4, 8, 2, 4, 4), {"strides": [2, 2, 2], "pads": [0, 1, 1, 0, 1, 1]}),
    ],
)
def test_phases_match_the_reference(x_shape, w_shape, attrs):
    w = RNG.standard_normal(w_shape) * 0.2
    _check(_model(x_shape, w, attrs), x_shape)


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "attrs"),
    [
        ((1, 16, 6, 6), (16, 1, 4, 4), {"strides": [2, 2], "pads": [1, 1, 1, 1], "group": 16}),  # depthwise
        ((1, 8, 5, 5), (8, 3, 3, 3), {"strides": [2, 2], "group": 4, "output_padding": [1, 1]}),
        ((2, 6, 20), (6, 2, 8), {"strides": [4], "pads": [2, 2], "group": 3}),
    ],
)
def test_grouped_phases_match_the_reference(x_shape, w_shape, attrs):
    """Each group's phases are that group's outputs of a grouped convolution."""
    w = RNG.standard_normal(w_shape) * 0.2
    _check(_model(x_shape, w, attrs), x_shape)


def test_dilation_keeps_the_direct_sum():
    x_shape = (1, 4, 5, 5)
    _check(_model(x_shape, RNG.standard_normal((4, 2, 2, 2)), {"dilations": [2, 2]}), x_shape, rewritten=False)


@settings(max_examples=12, deadline=None)
@given(
    size=st.integers(1, 7), k=st.integers(1, 5), s=st.integers(1, 4), pad=st.data(),
    extra=st.data(), cin=st.sampled_from([1, 3, 8]), cout=st.sampled_from([1, 5, 16]),
)
def test_any_1d_transposed_convolution(size, k, s, pad, extra, cin, cout):
    """Every stride, kernel and padding (below the kernel) of a 1-D one."""
    p0 = pad.draw(st.integers(0, k - 1))
    p1 = pad.draw(st.integers(0, k - 1))
    op = extra.draw(st.integers(0, s - 1))
    if s * (size - 1) + op + k - p0 - p1 < 1:
        return
    x_shape = (1, cin, size)
    model = _model(x_shape, RNG.standard_normal((cin, cout, k)) * 0.3, {"strides": [s], "pads": [p0, p1], "output_padding": [op]}, bias=False)
    x = RNG.standard_normal(x_shape).astype(np.float32)
    (got,) = lamina.compile(model).run(x)
    np.testing.assert_allclose(got, _reference(model, x), rtol=1e-4, atol=1e-4)
