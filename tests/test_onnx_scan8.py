"""Scan before opset 9 (a leading batch axis, unrolled; sequence_lens masking
the steps past each entry's length) against onnxruntime: directions, lengths
as constants and at run time, several states and scan outputs."""

from __future__ import annotations

import itertools

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import lamina

F = TensorProto.FLOAT


def _scan8(lens: np.ndarray | None, constant: bool, directions: list[int], batch: int = 3, seq: int = 4) -> onnx.ModelProto:
    """Two states (a running sum, a step counter) over two scan inputs; the
    scan outputs are the sum times the second input, and the first input."""
    body = helper.make_graph(
        [
            helper.make_node("Add", ["s_in", "x_in"], ["s_out"]),
            helper.make_node("Add", ["n_in", "one"], ["n_out"]),
            helper.make_node("Mul", ["s_out", "y_in"], ["o1"]),
            helper.make_node("Identity", ["x_in"], ["o2"]),
        ],
        "body",
        [helper.make_tensor_value_info(n, F, [2]) for n in ("s_in",)]
        + [helper.make_tensor_value_info("n_in", F, [])]
        + [helper.make_tensor_value_info(n, F, [2]) for n in ("x_in", "y_in")],
        [helper.make_tensor_value_info("s_out", F, [2]), helper.make_tensor_value_info("n_out", F, [])]
        + [helper.make_tensor_value_info(n, F, [2]) for n in ("o1", "o2")],
        [numpy_helper.from_array(np.array(1.0, np.float32), "one")],
    )
    node = helper.make_node(
        "Scan", ["" if lens is None else "lens", "s0", "n0", "x", "y"], ["s", "n", "z1", "z2"],
        num_scan_inputs=2, body=body, directions=directions,
    )
    inputs = [
        helper.make_tensor_value_info("s0", F, [batch, 2]),
        helper.make_tensor_value_info("n0", F, [batch]),
        helper.make_tensor_value_info("x", F, [batch, seq, 2]),
        helper.make_tensor_value_info("y", F, [batch, seq, 2]),
    ]
    inits = []
    if lens is not None and constant:
        inits.append(numpy_helper.from_array(lens, "lens"))
    elif lens is not None:
        inputs.insert(0, helper.make_tensor_value_info("lens", TensorProto.INT64, [batch]))
    outputs = [helper.make_tensor_value_info(n, F, None) for n in ("s", "n", "z1", "z2")]
    graph = helper.make_graph([node], "g", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)])
    model.ir_version = 4
    return model


@pytest.mark.parametrize(
    ("lens", "directions"),
    list(itertools.product([None, [4, 2, 1], [4, 4, 4], [1, 3, 4]], [[0, 0], [1, 0], [0, 1], [1, 1]])),
)
def test_against_onnxruntime(lens, directions):
    ort = pytest.importorskip("onnxruntime")
    rng = np.random.default_rng(3)
    values = {
        "s0": rng.standard_normal((3, 2)).astype(np.float32),
        "n0": np.zeros(3, np.float32),
        "x": rng.standard_normal((3, 4, 2)).astype(np.float32),
        "y": rng.standard_normal((3, 4, 2)).astype(np.float32),
    }
    lengths = None if lens is None else np.array(lens, np.int64)
    for constant in (True, False) if lens is not None else (True,):
        model = _scan8(lengths, constant, directions)
        feeds = dict(values) if constant or lengths is None else {"lens": lengths, **values}
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        want = session.run(None, feeds)
        got = lamina.compile(model).run(**feeds)
        for w, g in zip(want, got, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


def test_bad_sequence_lens_and_directions_are_errors():
    model = _scan8(np.array([5, 1, 1], np.int64), True, [0, 0])
    with pytest.raises(lamina.FrontendError, match=r"Scan.*sequence_lens \[5, 1, 1\] must lie in 0\.\.4"):
        lamina.from_onnx(model)
    model = _scan8(None, True, [0])
    with pytest.raises(lamina.FrontendError, match=r"Scan.*directions \[0\] needs one flag per scan input \(2\)"):
        lamina.from_onnx(model)
