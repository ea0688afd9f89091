"""A run writes its outputs into the previous run's output memory once the
caller has dropped every array (and view) of it, and into new memory while
any is held: results the caller keeps are never overwritten."""

from __future__ import annotations

import gc

import numpy as np
from onnx import TensorProto, helper

import lamina


def _model() -> lamina.CompiledModel:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Neg", ["x"], ["z"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 300])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 300]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [4, 300])],
    )
    return lamina.compile(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))


def _block(a: np.ndarray) -> int:
    base = a.base if a.base is not None else a
    return base.ctypes.data


def test_dropped_outputs_lend_their_memory_held_ones_do_not() -> None:
    exe = _model()
    x = np.random.default_rng(0).standard_normal((4, 300)).astype(np.float32)
    first = _block(exe.run(x)[0])
    gc.collect()
    assert _block(exe.run(x)[0]) == first  # dropped: the same block again
    kept = exe.run(2 * x)
    part = kept[1][1:3]  # a view keeps the block too
    del kept
    again = exe.run(3 * x)
    assert _block(again[0]) != _block(part)
    np.testing.assert_array_equal(part, -2 * x[1:3])  # not overwritten
    np.testing.assert_array_equal(again[0], np.maximum(3 * x, 0))
