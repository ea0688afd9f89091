"""Kernels that move data between layouts inside a fused group: a reshape whose
index divides a flat position (a group norm's groups, a pixel or channel
shuffle), vectorized where the lanes share one quotient; and transposes,
scheduled in tiles (`transpose`). Against onnxruntime, at extents that fill
the lanes, leave a tail, or cross a divisor within a vector."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import lamina
from lamina.dialects import te
from lamina.lowering.strategy import defaults

RNG = np.random.default_rng(11)


def _model(nodes: list[onnx.NodeProto], shape: tuple[int, ...], inits: list[onnx.TensorProto], opset: int = 21) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _check(model: onnx.ModelProto, shape: tuple[int, ...]) -> None:
    x = RNG.standard_normal(shape).astype(np.float32)
    (got,) = lamina.compile(model).run(x)
    (want,) = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    ("shape", "groups"), [((1, 256, 16, 16), 32), ((2, 64, 7, 9), 8), ((1, 30, 5, 33), 3), ((1, 512, 100), 32)]
)
def test_group_norm(shape: tuple[int, ...], groups: int) -> None:
    c = shape[1]
    inits = [
        numpy_helper.from_array(RNG.standard_normal(c).astype(np.float32), "s"),
        numpy_helper.from_array(RNG.standard_normal(c).astype(np.float32), "b"),
    ]
    node = helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=groups)
    _check(_model([node], shape, inits), shape)


@pytest.mark.parametrize(("shape", "block"), [((1, 64, 16, 16), 2), ((1, 36, 5, 7), 3), ((2, 32, 8, 24), 4)])
@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_depth_to_space(shape: tuple[int, ...], block: int, mode: str) -> None:
    node = helper.make_node("DepthToSpace", ["x"], ["t"], blocksize=block, mode=mode)
    relu = helper.make_node("Relu", ["t"], ["y"])
    _check(_model([node, relu], shape, []), shape)


@pytest.mark.parametrize("shape", [(1, 116, 28, 28), (2, 48, 9, 17)])
def test_channel_shuffle(shape: tuple[int, ...]) -> None:
    """ShuffleNet's: reshape to [N, 2, C/2, H, W], swap the two channel axes, back."""
    n, c, h, w = shape
    inits = [
        numpy_helper.from_array(np.array([n, 2, c // 2, h, w], np.int64), "s5"),
        numpy_helper.from_array(np.array(shape, np.int64), "s4"),
    ]
    nodes = [
        helper.make_node("Reshape", ["x", "s5"], ["a"]),
        helper.make_node("Transpose", ["a"], ["b"], perm=[0, 2, 1, 3, 4]),
        helper.make_node("Reshape", ["b", "s4"], ["t"]),
        helper.make_node("Sigmoid", ["t"], ["y"]),
    ]
    _check(_model(nodes, shape, inits), shape)


@pytest.mark.parametrize(("shape", "perm"), [((2, 300, 40), [0, 2, 1]), ((1, 64, 33, 20), [0, 3, 1, 2]), ((3, 17, 5), [2, 0, 1])])
def test_transpose(shape: tuple[int, ...], perm: list[int]) -> None:
    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=perm), helper.make_node("Neg", ["t"], ["y"])]
    _check(_model(nodes, shape, []), shape)


def _computes(model: onnx.ModelProto) -> list[te.ComputeOp]:
    module = lamina.from_onnx(model)
    ctx = lamina.PassContext(opt_level=3)
    lamina.run_pipeline(module, "optimize", ctx)
    lamina.run_pipeline(module, "lower-relay-to-te", ctx)
    return [op for op in module.walk() if isinstance(op, te.ComputeOp)]


def test_transposes_are_found_through_the_kernel() -> None:
    """A transpose then a reshape (tokens to an image) is a transpose along the
    channels; an elementwise op is not."""
    shape = (1, 256, 64)
    inits = [numpy_helper.from_array(np.array([1, 64, 16, 16], np.int64), "s")]
    nodes = [
        helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1]),
        helper.make_node("Reshape", ["t", "s"], ["y"]),
    ]
    (last,) = [op for op in _computes(_model(nodes, shape, inits)) if len(op.axes) == 4]
    assert defaults.transposed_axis(last) == 1
    assert defaults.default_call(last).name == defaults.TRANSPOSE
    (relu,) = _computes(_model([helper.make_node("Relu", ["x"], ["y"])], shape, []))
    assert defaults.transposed_axis(relu) is None
