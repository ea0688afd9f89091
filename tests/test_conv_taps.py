"""`conv-dead-taps`: the taps it keeps are exactly those that read some input
(against a brute-force count), and convolutions with dead taps (dilated, on
small maps, any rank) compute what onnx's reference evaluator does."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import lamina
from lamina.transforms.graph.conv_taps import live_taps


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(1, 20), k=st.integers(1, 5), s=st.integers(1, 3), d=st.integers(1, 30),
    pb=st.integers(0, 40), pe=st.integers(0, 40),
)
def test_live_taps_are_those_that_read_input(n: int, k: int, s: int, d: int, pb: int, pe: int) -> None:
    span = (k - 1) * d + 1
    if n + pb + pe < span:
        return
    out = (n + pb + pe - span) // s + 1
    brute = [t for t in range(k) if any(0 <= o * s + t * d - pb < n for o in range(out))]
    assert live_taps(n, out, k, s, d, pb) == ((brute[0], brute[-1]) if brute else None)


# (input spatial shape, kernel, dilation, pads [begin..., end...], strides, groups)
CASES = [
    ((16, 16), (3, 3), (24, 24), (24, 24, 24, 24), (1, 1), 1),  # DeepLabV3's rate 24: the centre only
    ((16, 16), (3, 3), (12, 12), (12, 12, 12, 12), (1, 1), 1),  # rate 12: every tap lives
    ((9, 7), (3, 3), (6, 2), (6, 2, 6, 2), (1, 1), 2),  # one axis pruned, grouped
    ((10,), (5,), (4,), (9, 3), (2,), 1),  # 1-D, asymmetric padding, strided
    ((4, 5, 6), (3, 3, 3), (5, 1, 8), (5, 1, 8, 5, 1, 8), (1, 1, 1), 1),  # 3-D
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{len(c[0])}d_d{c[2][0]}")
def test_convs_with_dead_taps_match_the_reference(case) -> None:
    spatial, kernel, dil, pads, strides, groups = case
    rng = np.random.default_rng(3)
    cin, cout = 4, 6
    w = rng.standard_normal((cout, cin // groups, *kernel)).astype(np.float32)
    node = helper.make_node(
        "Conv", ["x", "w"], ["y"], kernel_shape=list(kernel), dilations=list(dil), pads=list(pads),
        strides=list(strides), group=groups,
    )
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, *spatial])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    x = rng.standard_normal((1, cin, *spatial)).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    got = lamina.compile(model).run(x)[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
