"""`conv-dead-taps`: the taps it keeps are exactly those that read some input
(against a brute-force count), the regions it splits a convolution into read
exactly the live taps of their outputs, and convolutions with dead taps
(dilated, on small maps, any rank; wholly or partly dead) compute what onnx's
reference evaluator does."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import lamina
from lamina.transforms.graph.conv_taps import live_taps, tap_runs


@st.composite
def windows(draw: st.DrawFn) -> tuple[int, int, int, int, int, int]:
    """An axis's (input size, taps, stride, dilation, padding at the start, outputs)."""
    n, k, s = draw(st.integers(1, 20)), draw(st.integers(1, 5)), draw(st.integers(1, 3))
    d, pb, pe = draw(st.integers(1, 30)), draw(st.integers(0, 40)), draw(st.integers(0, 40))
    span = (k - 1) * d + 1
    assume(n + pb + pe >= span)
    return n, k, s, d, pb, (n + pb + pe - span) // s + 1


@settings(max_examples=300, deadline=None)
@given(windows())
def test_live_taps_are_those_that_read_input(window: tuple[int, int, int, int, int, int]) -> None:
    n, k, s, d, pb, out = window
    brute = [t for t in range(k) if any(0 <= o * s + t * d - pb < n for o in range(out))]
    assert live_taps(n, out, k, s, d, pb) == ((brute[0], brute[-1]) if brute else None)


@settings(max_examples=300, deadline=None)
@given(windows())
def test_tap_runs_cover_the_outputs_with_their_live_taps(window: tuple[int, int, int, int, int, int]) -> None:
    n, k, s, d, pb, out = window
    live = [[t for t in range(k) if 0 <= o * s + t * d - pb < n] for o in range(out)]
    runs = tap_runs(n, out, k, s, d, pb)
    if not all(live):
        assert runs is None
        return
    assert runs is not None and runs[0].o0 == 0 and runs[-1].o1 == out
    for before, after in itertools.pairwise(runs):
        assert before.o1 == after.o0 and (before.t0, before.t1) != (after.t0, after.t1)
    for r in runs:
        for o in range(r.o0, r.o1):
            assert live[o] == list(range(r.t0, r.t1 + 1))
        # the window read: the first output's first tap to the last one's last
        assert (r.lo, r.hi) == (r.o0 * s + r.t0 * d - pb, (r.o1 - 1) * s + r.t1 * d - pb + 1)
        assert 0 <= r.lo < r.hi <= n


# (input spatial shape, kernel, dilation, pads [begin..., end...], strides, groups)
CASES = [
    ((16, 16), (3, 3), (24, 24), (24, 24, 24, 24), (1, 1), 1),  # DeepLabV3's rate 24: the centre only
    ((16, 16), (3, 3), (12, 12), (12, 12, 12, 12), (1, 1), 1),  # rate 12: split in 9 regions
    ((13, 11), (3, 3), (8, 6), (8, 6, 8, 6), (2, 2), 1),  # split, strided
    ((10,), (3,), (8,), (8, 8), (1,), 1),  # 1-D split
    ((6, 6, 6), (3, 3, 3), (5, 5, 5), (5, 5, 5, 5, 5, 5), (1, 1, 1), 1),  # 3-D split in 27
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
