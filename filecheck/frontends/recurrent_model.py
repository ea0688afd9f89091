"""Write a one-node RNN/GRU/LSTM ONNX model for the FileCheck tests beside it.

    python recurrent_model.py OP DIRECTION OUT.onnx [--lens] [ATTR=INT ...]

The node runs over `x [seq, 2, 3]` (`seq` symbolic) with hidden size 4; its
weights and biases are initializers, `sequence_lens` (with `--lens`) a graph
input; integer attributes such as `linear_before_reset=1` are passed on.
"""

from __future__ import annotations

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def main(argv: list[str]) -> None:
    op, direction, out, *rest = argv
    lens = "--lens" in rest
    attrs = {k: int(v) for k, v in (a.split("=") for a in rest if "=" in a)}
    dirs, g, hidden = (2 if direction == "bidirectional" else 1), GATES[op], 4
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(rng.uniform(-1, 1, dims).astype(np.float32), name)
        for name, dims in (("w", (dirs, g * hidden, 3)), ("r", (dirs, g * hidden, hidden)), ("b", (dirs, 2 * g * hidden)))
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["seq", 2, 3])]
    if lens:
        inputs.append(helper.make_tensor_value_info("lens", TensorProto.INT32, [2]))
    outs = ["y", "y_h"] + (["y_c"] if op == "LSTM" else [])
    node = helper.make_node(
        op, ["x", "w", "r", "b", "lens" if lens else ""], outs, hidden_size=hidden, direction=direction, **attrs
    )
    graph = helper.make_graph(
        [node], "g", inputs, [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs], inits
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]), out)


if __name__ == "__main__":
    main(sys.argv[1:])
