"""Per-kernel profiles grouped by op class (`lamina bench --profile`)."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import lamina
from lamina.passes import PassContext
from lamina.tools.profile import by_class, profile


def _model():
    rng = np.random.default_rng(0)

    def w(name, shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["a"], pads=[1, 1, 1, 1]),  # dense conv
        helper.make_node("Relu", ["a"], ["b"]),
        helper.make_node("Conv", ["b", "w2"], ["c"], pads=[1, 1, 1, 1], group=8),  # depthwise
        helper.make_node("Conv", ["c", "w3"], ["d"], group=2),  # grouped
        helper.make_node("MaxPool", ["d"], ["e"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["e"], ["f"]),
        helper.make_node("MatMul", ["f", "w4"], ["g"]),  # a packed weight (relay.dense_pack)
        helper.make_node("Softmax", ["g"], ["y"]),
    ]
    inits = [w("w1", [8, 3, 3, 3]), w("w2", [8, 1, 3, 3]), w("w3", [8, 4, 1, 1]), w("w4", [128, 16])]
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_kernels_are_grouped_by_op_class():
    model = _model()
    x = np.random.default_rng(1).standard_normal((1, 3, 8, 8)).astype(np.float32)

    def build(ctx: PassContext) -> lamina.CompiledModel:
        return lamina.compile(model, pass_context=ctx)

    kernels = profile(build, 3, {"x": x}, 3)
    classes = {k.op_class for k in kernels}
    assert {"conv", "depthwise conv", "grouped conv", "pool", "matmul", "norm/softmax"} <= classes
    assert "other" not in classes
    grouped = by_class(kernels)
    assert {g.name for g in grouped} == classes
    assert sum(g.calls for g in grouped) == sum(k.calls for k in kernels)
    assert np.isclose(sum(g.median_ms for g in grouped), sum(k.median_ms for k in kernels))
    assert [g.median_ms for g in grouped] == sorted((g.median_ms for g in grouped), reverse=True)
