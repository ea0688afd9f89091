"""Inputs an op reads as structure, given only when the model runs: a Reduce's
axes (one branch per candidate subset, the output's dims set at run time), a
CumSum's axis (one branch per axis), a Trilu's diagonal (read by the kernel).
One compile each, many values, against `onnx.reference`."""

from __future__ import annotations

import itertools

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import lamina

F = TensorProto.FLOAT


def _model(node: onnx.NodeProto, inputs: list[onnx.ValueInfoProto], out_rank: int, opset: int = 18) -> onnx.ModelProto:
    out = helper.make_tensor_value_info(node.output[0], F, [f"o{i}" for i in range(out_rank)])
    graph = helper.make_graph([node], "g", inputs, [out])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _same(model: onnx.ModelProto, exe: lamina.CompiledModel, feeds: dict[str, np.ndarray]) -> None:
    (got,) = exe.run(**feeds)
    (want,) = ReferenceEvaluator(model).run(None, feeds)
    assert got.shape == want.shape, (feeds, got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMax", "ReduceL2", "ReduceLogSumExp"])
@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("count", [1, 2])
def test_reduce_over_run_time_axes(op: str, keepdims: int, count: int) -> None:
    shape = (2, 3, 4)
    node = helper.make_node(op, ["x", "axes"], ["y"], keepdims=keepdims)
    model = _model(
        node,
        [helper.make_tensor_value_info("x", F, shape), helper.make_tensor_value_info("axes", TensorProto.INT64, [count])],
        len(shape) if keepdims else len(shape) - count,
    )
    exe = lamina.compile(model)  # once, for every choice of axes
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    for axes in itertools.permutations(range(-3, 3), count):
        if len({a % 3 for a in axes}) == count:
            _same(model, exe, {"x": x, "axes": np.array(axes, np.int64)})


@pytest.mark.parametrize("op", ["CumSum", "CumProd"])
def test_cumulative_over_a_run_time_axis(op: str) -> None:
    node = helper.make_node(op, ["x", "axis"], ["y"], reverse=1)
    model = _model(
        node,
        [helper.make_tensor_value_info("x", F, [2, 3, 4]), helper.make_tensor_value_info("axis", TensorProto.INT32, [])],
        3,
        opset=26 if op == "CumProd" else 18,
    )
    exe = lamina.compile(model)
    x = (np.random.default_rng(1).random((2, 3, 4)) + 0.5).astype(np.float32)
    for axis in range(-3, 3):
        _same(model, exe, {"x": x, "axis": np.array(axis, np.int32)})


@pytest.mark.parametrize("upper", [0, 1])
def test_trilu_with_a_run_time_diagonal(upper: int) -> None:
    node = helper.make_node("Trilu", ["x", "k"], ["y"], upper=upper)
    model = _model(
        node,
        [helper.make_tensor_value_info("x", F, [2, 4, 5]), helper.make_tensor_value_info("k", TensorProto.INT64, [])],
        3,
        opset=14,
    )
    exe = lamina.compile(model)
    x = np.random.default_rng(2).standard_normal((2, 4, 5)).astype(np.float32)
    for k in range(-6, 7):
        _same(model, exe, {"x": x, "k": np.array(k, np.int64)})
