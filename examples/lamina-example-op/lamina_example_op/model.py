"""An ONNX model that uses the op: `y = SquarePlus(x @ w, b=1)` (a dense layer with
a SquarePlus activation), with the `com.example` opset imported."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def squareplus_model(n: int = 4, k: int = 16, m: int = 8, b: float = 1.0, seed: int = 0) -> onnx.ModelProto:
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((k, m)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w"], ["h"]),
            helper.make_node("SquarePlus", ["h"], ["y"], domain="com.example", b=b),
        ],
        "squareplus",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, m])],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)],
    )
    model.ir_version = 8
    return model


def reference(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    """The model's output computed with numpy."""
    w = numpy_helper.to_array(model.graph.initializer[0])
    b = next(a.f for a in model.graph.node[1].attribute if a.name == "b")
    h = x @ w
    return (h + np.sqrt(h * h + b)) / 2
