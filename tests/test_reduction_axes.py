"""Reductions along every axis, scheduled by where they run in memory: along
the innermost axis, vector partials of the reduce axis (`reduction`); along
an outer one, the lanes on the last output axis with the reduce loop inside
(`reduction_rows`). Against numpy, at extents that fill the lanes, leave a
tail, or have none."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import lamina
from lamina.dialects import te
from lamina.lowering.strategy import cpu, defaults

RNG = np.random.default_rng(5)
NUMPY = {"ReduceSum": np.sum, "ReduceMean": np.mean, "ReduceMax": np.max, "ReduceMin": np.min}


def _model(op: str, shape: tuple[int, ...], axes: list[int], keepdims: int) -> onnx.ModelProto:
    axes_init = helper.make_tensor("axes", TensorProto.INT64, [len(axes)], axes)
    graph = helper.make_graph(
        [helper.make_node(op, ["x", "axes"], ["y"], keepdims=keepdims)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [axes_init],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("op", list(NUMPY))
@pytest.mark.parametrize(
    ("shape", "axes"),
    [((8, 196, 768), [1]), ((3, 50, 40), [1]), ((300, 17), [0]), ((2, 33, 70, 5), [1, 2]), ((4, 9, 200), [2]), ((6, 100, 3), [0, 2])],
)
def test_every_axis_matches_numpy(op: str, shape: tuple[int, ...], axes: list[int]) -> None:
    x = RNG.standard_normal(shape).astype(np.float32)
    for keepdims in (0, 1):
        (got,) = lamina.compile(_model(op, shape, axes, keepdims)).run(x)
        want = NUMPY[op](x, axis=tuple(axes), keepdims=bool(keepdims))
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


def _reductions(model: onnx.ModelProto) -> list[te.ComputeOp]:
    module = lamina.from_onnx(model)
    ctx = lamina.PassContext(opt_level=3)
    lamina.run_pipeline(module, "optimize", ctx)
    lamina.run_pipeline(module, "lower-relay-to-te", ctx)
    return [op for op in module.walk() if isinstance(op, te.ComputeOp) and op.reduce is not None]


def test_the_schedule_follows_the_innermost_axis() -> None:
    """A mean over tokens (`[B, S, D] -> [B, D]`) puts its lanes on D; a row
    reduction (over D) keeps its vector partials."""
    (over_tokens,) = _reductions(_model("ReduceMean", (8, 196, 768), [1], 0))
    assert not defaults.reduces_innermost(over_tokens)
    call = defaults.default_call(over_tokens)
    lanes = call.target.lanes(32)
    assert call.args[-1] is False
    assert call.default().vector == min(cpu.REDUCE_VECTORS, 768 // lanes) * lanes  # independent chains
    (over_rows,) = _reductions(_model("ReduceMean", (8, 196, 768), [2], 0))
    assert defaults.reduces_innermost(over_rows)
    assert len(defaults.default_call(over_rows).args) == 3
