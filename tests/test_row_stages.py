"""Row reductions and the computes around them run row by row (`row_axes` in
lowering/te_buffers.py): softmax, log-softmax and layer norm, on shapes whose
rows are not a whole number of vectors, match numpy; a kernel that reads
another row (a reduction over the first axis) is lowered stage by stage."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

import lamina
from lamina.dialects import te
from lamina.frontends.onnx import from_onnx
from lamina.lowering.te_buffers import row_axes, share_buffers
from lamina.passes import PassContext
from lamina.pipelines import lower_to


def _model(op: str, shape: list[int], **attrs: object) -> bytes:
    inits, ins = [], ["x"]
    if op == "LayerNormalization":
        n = shape[-1]
        inits = [numpy_helper.from_array(np.linspace(0.5, 1.5, n, dtype=np.float32), "g"),
                 numpy_helper.from_array(np.linspace(-1, 1, n, dtype=np.float32), "b")]
        ins = ["x", "g", "b"]
    graph = helper.make_graph(
        [helper.make_node(op, ins, ["y"], **attrs)], "m",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def _reference(op: str, x: np.ndarray) -> np.ndarray:
    x64 = x.astype(np.float64)
    if op == "LayerNormalization":
        n = x.shape[-1]
        g, b = np.linspace(0.5, 1.5, n), np.linspace(-1, 1, n)
        mu = x64.mean(-1, keepdims=True)
        return (x64 - mu) / np.sqrt(((x64 - mu) ** 2).mean(-1, keepdims=True) + 1e-5) * g + b
    z = x64 - x64.max(-1, keepdims=True)
    if op == "LogSoftmax":
        return z - np.log(np.exp(z).sum(-1, keepdims=True))
    return np.exp(z) / np.exp(z).sum(-1, keepdims=True)


@settings(max_examples=12, deadline=None)
@given(
    st.sampled_from(["Softmax", "LogSoftmax", "LayerNormalization"]),
    st.lists(st.integers(1, 9), min_size=0, max_size=2),
    st.integers(1, 70),
    st.integers(0, 2**31 - 1),
)
def test_row_by_row_matches_numpy(op, lead, cols, seed):
    shape = [*lead, 3, cols]
    x = (np.random.default_rng(seed).standard_normal(shape) * 4).astype(np.float32)
    exe = lamina.compile(_model(op, shape, axis=-1), num_threads=2)
    got = exe.run(x)
    got = got[0] if isinstance(got, list | tuple) else got
    np.testing.assert_allclose(got, _reference(op, x), rtol=2e-5, atol=2e-5)


def _kernels(model: bytes) -> list[te.FuncOp]:
    module = lower_to(from_onnx(model), "te", PassContext(opt_level=3))
    return [op for op in module.walk() if isinstance(op, te.FuncOp)]


def _rows(kernel: te.FuncOp) -> int:
    computes = [op for op in kernel.body.block.ops if isinstance(op, te.ComputeOp)]
    outputs = {v: v for v in kernel.output.values}  # the outputs' buffers (any value)
    buffers = dict(outputs)
    with PassContext(opt_level=3):
        return row_axes(computes, buffers, share_buffers(computes, buffers))


def test_softmax_runs_by_rows():
    (kernel,) = _kernels(_model("Softmax", [4, 6, 50], axis=-1))
    assert _rows(kernel) == 2


def test_a_kernel_reading_other_rows_runs_by_stages():
    """x - mean(x, axis 0): each output reads a mean over every row."""
    shape = [6, 50]
    graph = helper.make_graph(
        [helper.make_node("ReduceMean", ["x"], ["m"], axes=[0], keepdims=1),
         helper.make_node("Sub", ["x", "m"], ["y"])], "m",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    assert all(_rows(k) == 0 for k in _kernels(model))
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    got = lamina.compile(model).run(x)
    got = got[0] if isinstance(got, list | tuple) else got
    np.testing.assert_allclose(got, x - x.mean(0, keepdims=True), rtol=1e-5, atol=1e-5)
