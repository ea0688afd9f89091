"""Ops whose output size depends on the data (NonZero, NonMaxSuppression,
Compress, Unique, TopK with a run-time k): each model is compiled once and run
on many inputs, its outputs compared exactly with onnx.reference (or, where
the reference is wrong, with numpy)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from onnx import TensorProto as T
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import lamina
from lamina.symbolic import Sym

vi = helper.make_tensor_value_info
rng = np.random.default_rng(0)

Feeds = dict[str, np.ndarray]


def _model(
    nodes: list[onnx.NodeProto],
    ins: list[onnx.ValueInfoProto],
    outs: list[onnx.ValueInfoProto],
    inits: list[onnx.TensorProto] | None = None,
) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", ins, outs, inits or [])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


class Compiled:
    """A model, compiled once, with its reference evaluator."""

    def __init__(self, model: onnx.ModelProto):
        self.model = model
        self.exe = lamina.compile(model)
        self.ref = ReferenceEvaluator(model)

    def run(self, feeds: Feeds) -> list[np.ndarray]:
        return self.exe.run(**feeds)

    def check(self, feeds: Feeds, tol: float | None = None) -> list[np.ndarray]:
        """The compiled model's outputs equal the reference's (exactly, or
        within `tol`), with the same shapes and dtypes."""
        got = self.run(feeds)
        want = self.ref.run(None, feeds)
        _same(got, want, feeds, tol)
        return got


def _same(got: list[np.ndarray], want: list[Any], feeds: Feeds, tol: float | None = None) -> None:
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        w = np.asarray(w)
        where = f"output {k} for inputs {feeds}: got {g!r}, want {w!r}"
        assert g.shape == w.shape, where
        assert g.dtype == w.dtype, where
        if tol is None:
            np.testing.assert_array_equal(g, w, err_msg=where)
        else:
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=where)


_CACHE: dict[Any, Compiled] = {}


@pytest.fixture(scope="module")
def compiled() -> Iterator[Callable[[Any, Callable[[], onnx.ModelProto]], Compiled]]:
    """`compiled(key, build)`: the model `build()` compiled once per module."""

    def get(key: Any, build: Callable[[], onnx.ModelProto]) -> Compiled:
        if key not in _CACHE:
            _CACHE[key] = Compiled(build())
        return _CACHE[key]

    yield get
    _CACHE.clear()


# ===================================================================== NonZero
ONNX_TYPE = {np.float32: T.FLOAT, np.int64: T.INT64, np.bool_: T.BOOL}
NONZERO_CASES = [
    (shape, dtype)
    for shape in [(1,), (7,), (2, 3), (2, 3, 4), (1, 1, 5)]
    for dtype in (np.float32, np.int64, np.bool_)
]


def _nonzero_model(shape: tuple[int, ...], dtype: type) -> onnx.ModelProto:
    return _model(
        [helper.make_node("NonZero", ["x"], ["y"])],
        [vi("x", ONNX_TYPE[dtype], list(shape))],
        [vi("y", T.INT64, [len(shape), None])],
    )


def _elements(dtype: type) -> st.SearchStrategy[Any]:
    """Mostly zeros, so that every count from 0 to all shows up."""
    if dtype is np.bool_:
        return st.booleans()
    if dtype is np.int64:
        return st.sampled_from([0, 0, 0, 1, -7, 2**40])
    return st.sampled_from([0.0, 0.0, -0.0, 1.5, -2.0, 1e-45, np.inf, np.nan])  # (1e-45: subnormal)


@pytest.mark.parametrize(("shape", "dtype"), NONZERO_CASES, ids=lambda v: getattr(v, "__name__", str(v)))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_nonzero_matches_reference(compiled, shape, dtype, data) -> None:
    c = compiled(("nonzero", shape, dtype), lambda: _nonzero_model(shape, dtype))
    x = data.draw(hnp.arrays(dtype, shape, elements=_elements(dtype)))
    c.check({"x": x})


@pytest.mark.parametrize(("shape", "dtype"), NONZERO_CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_nonzero_none_and_all(compiled, shape, dtype) -> None:
    """Sizes 0 and numel (the bound), and NaN / -0.0 (nonzero / zero)."""
    c = compiled(("nonzero", shape, dtype), lambda: _nonzero_model(shape, dtype))
    (none,) = c.check({"x": np.zeros(shape, dtype)})
    assert none.shape == (len(shape), 0)
    (every,) = c.check({"x": np.ones(shape, dtype)})
    assert every.shape == (len(shape), int(np.prod(shape)))
    if dtype is np.float32:
        x = np.full(shape, -0.0, np.float32)
        x.reshape(-1)[-1] = np.nan
        (last,) = c.check({"x": x})
        assert last.shape == (len(shape), 1)


def test_nonzero_outputs_are_not_overwritten_by_the_next_run(compiled) -> None:
    c = compiled(("nonzero", (2, 3), np.float32), lambda: _nonzero_model((2, 3), np.float32))
    assert c.exe.bounds == [("nonzero", 6)] and c.exe.is_symbolic
    x = np.array([[0, 1, 0], [2, 0, 3]], np.float32)
    (first,) = c.run({"x": x})
    kept = first.copy()
    c.run({"x": np.ones((2, 3), np.float32)})
    c.run({"x": np.zeros((2, 3), np.float32)})
    np.testing.assert_array_equal(first, kept)
    np.testing.assert_array_equal(first, [[0, 1, 1], [1, 0, 2]])


@pytest.mark.parametrize("declared", [None, [0, None]], ids=["undeclared", "declared"])
@pytest.mark.parametrize("dtype", [np.bool_, np.float32], ids=lambda d: d.__name__)
def test_nonzero_of_a_scalar(declared, dtype) -> None:
    """A scalar has no coordinates: `[0, nz]`, nz being 0 or 1 (this once
    came out `[1, nz]`, which the check against ONNX's shapes refused)."""
    m = _model(
        [helper.make_node("NonZero", ["x"], ["y"])],
        [vi("x", ONNX_TYPE[dtype], [])],
        [vi("y", T.INT64, declared)],
    )
    c = Compiled(m)
    for v in (1, 0):
        (y,) = c.check({"x": np.array(v, dtype)})
        assert y.shape == (0, v)


# ========================================================== NonMaxSuppression
NMS_SHAPES = [(1, 1, 5), (2, 3, 6)]  # batches, classes, boxes


def _nms_model(b: int, c: int, n: int, center: int, threshold: bool) -> onnx.ModelProto:
    names = ["boxes", "scores", "max_output", "iou"] + (["score_threshold"] if threshold else [])
    ins = [
        vi("boxes", T.FLOAT, [b, n, 4]),
        vi("scores", T.FLOAT, [b, c, n]),
        vi("max_output", T.INT64, [1]),
        vi("iou", T.FLOAT, [1]),
    ] + ([vi("score_threshold", T.FLOAT, [1])] if threshold else [])
    return _model(
        [helper.make_node("NonMaxSuppression", names, ["selected"], center_point_box=center)],
        ins,
        [vi("selected", T.INT64, [None, 3])],
    )


def _boxes(center: int, shape: tuple[int, ...]) -> st.SearchStrategy[np.ndarray]:
    """Small integer coordinates: overlaps, nesting, equal and empty boxes
    (corners in either order when not `center`)."""
    coords = st.integers(0, 6) if center else st.integers(-3, 3)
    return hnp.arrays(np.float32, shape, elements=coords.map(float))


NMS_CASES = [
    (shape, center, threshold)
    for shape in NMS_SHAPES
    for center in (0, 1)
    for threshold in (True, False)
]


def _nms_id(v: Any) -> str:
    if isinstance(v, tuple):
        return "x".join(map(str, v))
    return str(v)


@pytest.mark.parametrize(("shape", "center", "threshold"), NMS_CASES, ids=_nms_id)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_nms_matches_reference(compiled, shape, center, threshold, data) -> None:
    b, c, n = shape
    exe = compiled(("nms", shape, center, threshold), lambda: _nms_model(b, c, n, center, threshold))
    feeds = {
        "boxes": data.draw(_boxes(center, (b, n, 4))),
        # a coarse grid of scores: ties are the rule
        "scores": data.draw(hnp.arrays(np.float32, (b, c, n), elements=st.sampled_from([0.0, 0.25, 0.5, 0.75]))),
        # (the reference cannot take a negative max_output)
        "max_output": np.array([data.draw(st.integers(0, n + 1))], np.int64),
        "iou": np.array([data.draw(st.sampled_from([0.0, 0.2, 0.5, 0.9, 1.0]))], np.float32),
    }
    if threshold:
        feeds["score_threshold"] = np.array([data.draw(st.sampled_from([-1.0, 0.0, 0.25, 0.6, 1.0]))], np.float32)
    exe.check(feeds)


@pytest.mark.parametrize("center", [0, 1])
def test_nms_max_output_zero_and_ties(compiled, center) -> None:
    b, c, n = 2, 3, 6
    exe = compiled(("nms", (b, c, n), center, True), lambda: _nms_model(b, c, n, center, True))
    if center:  # (x_center, y_center, w, h): 0, 1, 2 overlap; 3 stands apart; 4 repeats 0; 5 is empty
        one = [[1, 1, 2, 2], [1.1, 1, 2, 2], [1, 1.2, 2, 2], [8, 8, 2, 2], [1, 1, 2, 2], [4, 4, 0, 0]]
    else:  # (y1, x1, y2, x2), some with the corners swapped; 4 is 0 swapped; 5 is empty
        one = [[0, 0, 2, 2], [2.2, 2, 0.2, 0], [0, 0.1, 2, 2.1], [7, 7, 9, 9], [2, 2, 0, 0], [4, 4, 4, 5]]
    boxes = np.array([one, one[::-1]], np.float32)
    scores = np.full((b, c, n), 0.5, np.float32)  # every score tied
    scores[1, 2] = [0.9, 0.1, 0.9, 0.1, 0.9, 0.1]
    feeds = {
        "boxes": boxes,
        "scores": scores,
        "max_output": np.array([0], np.int64),
        "iou": np.array([0.5], np.float32),
        "score_threshold": np.array([0.0], np.float32),
    }
    (none,) = exe.check(feeds)
    assert none.shape == (0, 3)
    # a negative max_output selects nothing too (the reference cannot run it)
    (none,) = exe.run({**feeds, "max_output": np.array([-1], np.int64)})
    assert none.shape == (0, 3)
    for k in (1, 2, 6, 100):
        for iou in (0.0, 0.5, 1.0):
            exe.check({**feeds, "max_output": np.array([k], np.int64), "iou": np.array([iou], np.float32)})
    (got,) = exe.check({**feeds, "max_output": np.array([6], np.int64), "score_threshold": np.array([0.95], np.float32)})
    assert got.shape == (0, 3)


@pytest.mark.parametrize("center", [0, 1])
def test_nms_random_float_boxes(compiled, center) -> None:
    """Many boxes of arbitrary float coordinates: IoUs near the threshold are
    decided as the reference decides them (same float32 arithmetic)."""
    b, c, n = 2, 4, 40
    exe = compiled(("nms", (b, c, n), center, True), lambda: _nms_model(b, c, n, center, True))
    for _ in range(25):
        boxes = (rng.random((b, n, 4)) * 10).astype(np.float32)
        if center:
            boxes[..., 2:] /= 2
        exe.check(
            {
                "boxes": boxes,
                "scores": rng.random((b, c, n)).astype(np.float32),
                "max_output": np.array([rng.integers(0, n + 5)], np.int64),
                "iou": np.array([rng.random()], np.float32),
                "score_threshold": np.array([rng.random() * 0.5], np.float32),
            }
        )


def test_nms_over_symbolic_batches_and_boxes() -> None:
    """The bound of the selected rows is a symbolic size, `2*B*N`."""
    m = _model(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores", "mo", "iou", "st"], ["selected"])],
        [
            vi("boxes", T.FLOAT, ["B", "N", 4]),
            vi("scores", T.FLOAT, ["B", 2, "N"]),
            vi("mo", T.INT64, [1]),
            vi("iou", T.FLOAT, [1]),
            vi("st", T.FLOAT, [1]),
        ],
        [vi("selected", T.INT64, [None, 3])],
    )
    c = Compiled(m)
    assert c.exe.bounds == [("selected", Sym.parse("2*B*N"))]
    for batches, n in ((1, 1), (2, 7), (3, 12)):
        corner = rng.integers(0, 5, (batches, n, 2))
        boxes = np.concatenate([corner, corner + rng.integers(1, 3, (batches, n, 2))], axis=2).astype(np.float32)
        for k in (0, 2, n):
            c.check(
                {
                    "boxes": boxes,
                    "scores": rng.random((batches, 2, n)).astype(np.float32),
                    "mo": np.array([k], np.int64),
                    "iou": np.array([0.3], np.float32),
                    "st": np.array([0.1], np.float32),
                }
            )


def test_nms_without_max_output_selects_nothing() -> None:
    """max_output_boxes_per_class defaults to 0 (the reference cannot run it)."""
    m = _model(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores"], ["selected"])],
        [vi("boxes", T.FLOAT, [1, 3, 4]), vi("scores", T.FLOAT, [1, 1, 3])],
        [vi("selected", T.INT64, [None, 3])],
    )
    exe = lamina.compile(m)
    boxes = np.array([[[0, 0, 1, 1], [2, 2, 3, 3], [4, 4, 5, 5]]], np.float32)
    (got,) = exe.run(boxes=boxes, scores=np.ones((1, 1, 3), np.float32))
    assert got.shape == (0, 3) and got.dtype == np.int64


def test_nms_without_score_threshold_keeps_minus_inf_scores(compiled) -> None:
    exe = compiled(("nms", (1, 1, 5), 0, False), lambda: _nms_model(1, 1, 5, 0, False))
    boxes = np.array([[[0, 0, 1, 1], [2, 2, 3, 3], [4, 4, 5, 5], [6, 6, 7, 7], [8, 8, 9, 9]]], np.float32)
    scores = np.array([[[-np.inf, 0.5, -np.inf, 0.25, -np.inf]]], np.float32)
    feeds = {"boxes": boxes, "scores": scores, "max_output": np.array([5], np.int64), "iou": np.array([0.5], np.float32)}
    # want [[0, 0, 1], [0, 0, 3], [0, 0, 0], [0, 0, 2], [0, 0, 4]]
    exe.check(feeds)


# =================================================================== Compress
COMPRESS_CASES = [
    # (data shape, condition length, axis)
    ((3, 4), 12, None),
    ((3, 4), 5, None),  # shorter than the flattened data
    ((3, 4), 3, 0),
    ((3, 4), 2, 1),  # shorter than the axis
    ((2, 3, 4), 4, -1),
    ((2, 3, 4), 1, 1),
]


@pytest.mark.parametrize(("shape", "length", "axis"), COMPRESS_CASES, ids=_nms_id)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_compress_matches_reference(compiled, shape, length, axis, data) -> None:
    def build() -> onnx.ModelProto:
        kw = {} if axis is None else {"axis": axis}
        return _model(
            [helper.make_node("Compress", ["x", "condition"], ["y"], **kw)],
            [vi("x", T.FLOAT, list(shape)), vi("condition", T.BOOL, [length])],
            [vi("y", T.FLOAT, None)],
        )

    exe = compiled(("compress", shape, length, axis), build)
    x = rng.standard_normal(shape).astype(np.float32)
    condition = data.draw(hnp.arrays(np.bool_, (length,)))
    exe.check({"x": x, "condition": condition})
    exe.check({"x": x, "condition": np.zeros(length, bool)})
    exe.check({"x": x, "condition": np.ones(length, bool)})


# ===================================================================== Unique
def _unique_oracle(x: np.ndarray, axis: int | None, is_sorted: bool) -> list[np.ndarray]:
    """ONNX Unique by numpy (the reference is wrong when unsorted over a rank > 1
    input: it takes the first rows along axis 0 whatever the axis)."""
    flat = x.reshape(-1) if axis is None else x
    ax = 0 if axis is None else axis
    y, first, inverse, counts = np.unique(
        flat, return_index=True, return_inverse=True, return_counts=True, axis=axis
    )
    inverse = inverse.reshape(-1)
    if not is_sorted:
        order = np.argsort(first)
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        first, counts, inverse = first[order], counts[order], rank[inverse]
        y = np.take(flat, first, axis=ax)
    return [y, *(a.astype(np.int64) for a in (first, inverse, counts))]


UNIQUE_CASES = [
    # (shape, axis, sorted)
    ((7,), None, 1),
    ((7,), None, 0),
    ((2, 5), None, 1),
    ((2, 5), None, 0),
    ((6, 3), 0, 1),
    ((6, 3), 0, 0),
    ((3, 6), 1, 1),
    ((3, 6), 1, 0),
    ((2, 5, 2), 1, 1),
    ((2, 2, 5), -1, 1),
    ((2, 2, 5), 2, 0),
]


def _unique_model(shape: tuple[int, ...], axis: int | None, is_sorted: int, elem: int, outputs: int = 4) -> onnx.ModelProto:
    kw = {} if axis is None else {"axis": axis}
    names = ["y", "indices", "inverse", "counts"][:outputs]
    return _model(
        [helper.make_node("Unique", ["x"], names, sorted=is_sorted, **kw)],
        [vi("x", elem, list(shape))],
        [vi(n, elem if n == "y" else T.INT64, None) for n in names],
    )


@pytest.mark.parametrize(("shape", "axis", "is_sorted"), UNIQUE_CASES, ids=_nms_id)
@pytest.mark.parametrize("dtype", [np.int64, np.float32], ids=lambda d: d.__name__)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_unique_all_four_outputs(compiled, shape, axis, is_sorted, dtype, data) -> None:
    exe = compiled(("unique", shape, axis, is_sorted, dtype), lambda: _unique_model(shape, axis, is_sorted, ONNX_TYPE[dtype]))
    # few distinct values: many repeats (and, along an axis, repeated slices)
    high = data.draw(st.sampled_from([0, 1, 2, 9]))
    x = data.draw(hnp.arrays(dtype, shape, elements=st.integers(-high, high).map(float if dtype is np.float32 else int)))
    feeds = {"x": x}
    got = exe.run(feeds)
    _same(got, _unique_oracle(x, axis, bool(is_sorted)), feeds)
    if is_sorted or axis == 0 or len(shape) == 1:  # where the reference is right
        _same(got, exe.ref.run(None, feeds), feeds)


def test_unique_values_only(compiled) -> None:
    exe = compiled(("unique1",), lambda: _unique_model((4, 3), None, 1, T.FLOAT, outputs=1))
    for x in (np.zeros((4, 3)), np.arange(12).reshape(4, 3) % 5, -np.arange(12).reshape(4, 3)):
        (y,) = exe.check({"x": x.astype(np.float32)})
        assert y.shape == (len(np.unique(x)),)


def test_unique_rows_over_a_symbolic_size() -> None:
    m = _model(
        [helper.make_node("Unique", ["x"], ["y", "indices", "inverse", "counts"], axis=0, sorted=1)],
        [vi("x", T.INT64, ["n", 2])],
        [vi(name, T.INT64, None) for name in ("y", "indices", "inverse", "counts")],
    )
    c = Compiled(m)
    assert c.exe.bounds == [("unique", Sym.parse("n"))]
    for n in (1, 2, 9, 30):
        c.check({"x": rng.integers(0, 3, (n, 2))})


# ======================================================= TopK with a run-time k
TOPK_CASES = [
    # (shape, axis, largest)
    ((3, 5), -1, 1),
    ((5, 3), 0, 0),
    ((2, 4, 3), 1, 1),
    ((2, 20), 1, 1),  # a long axis (k may exceed the insertion top-k's limit)
    ((20, 2), 0, 0),
]


@pytest.mark.parametrize(("shape", "axis", "largest"), TOPK_CASES, ids=_nms_id)
def test_topk_with_a_runtime_k(compiled, shape, axis, largest) -> None:
    def build() -> onnx.ModelProto:
        return _model(
            [helper.make_node("TopK", ["x", "k"], ["values", "indices"], axis=axis, largest=largest)],
            [vi("x", T.FLOAT, list(shape)), vi("k", T.INT64, [1])],
            [vi("values", T.FLOAT, None), vi("indices", T.INT64, None)],
        )

    exe = compiled(("topk", shape, axis, largest), build)
    n = shape[axis]
    for k in sorted({0, 1, 2, n // 2, n - 1, n}):
        for x in (rng.integers(0, 3, shape), rng.standard_normal(shape)):  # ties, and none
            exe.check({"x": x.astype(np.float32), "k": np.array([k], np.int64)})
    # a k outside 0..n is clamped to it
    x = rng.standard_normal(shape).astype(np.float32)
    big = exe.run({"x": x, "k": np.array([n + 5], np.int64)})
    _same(big, exe.ref.run(None, {"x": x, "k": np.array([n], np.int64)}), {"x": x})
    values, indices = exe.run({"x": x, "k": np.array([-2], np.int64)})
    empty = list(shape)
    empty[axis] = 0
    assert values.shape == indices.shape == tuple(empty)


# =================================================== sizes flowing into more ops
def test_nonzero_then_transpose_cast_add(compiled) -> None:
    def build() -> onnx.ModelProto:
        return _model(
            [
                helper.make_node("NonZero", ["x"], ["nz"]),
                helper.make_node("Transpose", ["nz"], ["t"]),
                helper.make_node("Cast", ["t"], ["f"], to=T.FLOAT),
                helper.make_node("Add", ["f", "c"], ["y"]),
            ],
            [vi("x", T.INT64, [3, 4])],
            [vi("y", T.FLOAT, [None, 2])],
            [numpy_helper.from_array(np.array([10.0, 20.0], np.float32), "c")],
        )

    exe = compiled(("nz-chain",), build)
    for p in (0.0, 0.2, 0.5, 1.0):
        (y,) = exe.check({"x": (rng.random((3, 4)) < p).astype(np.int64)})
        assert y.shape[1] == 2


@pytest.mark.parametrize("options", [{"opt_level": 0}, {"opt_level": 3}, {"num_threads": 4}], ids=str)
def test_nonzero_chain_under_compile_options(options) -> None:
    """Parallel loops and every optimization level over a data-dependent extent."""
    m = _model(
        [
            helper.make_node("NonZero", ["x"], ["nz"]),
            helper.make_node("Transpose", ["nz"], ["t"]),
            helper.make_node("Cast", ["t"], ["f"], to=T.FLOAT),
            helper.make_node("Softmax", ["f"], ["y"], axis=0),
        ],
        [vi("x", T.INT64, [48, 40])],
        [vi("y", T.FLOAT, [None, 2])],
    )
    exe, ref = lamina.compile(m, **options), ReferenceEvaluator(m)
    for p in (0.0, 0.01, 0.5, 1.0):
        feeds = {"x": (rng.random((48, 40)) < p).astype(np.int64)}
        _same(exe.run(**feeds), ref.run(None, feeds), feeds, tol=1e-6)


def test_nonzero_only_inside_the_graph(compiled) -> None:
    """A data-dependent tensor that is only an intermediate: reductions over it
    (an empty one when nothing is nonzero) give static outputs."""

    def build() -> onnx.ModelProto:
        return _model(
            [
                helper.make_node("NonZero", ["x"], ["nz"]),
                helper.make_node("ReduceSum", ["nz"], ["total"], keepdims=0),
                helper.make_node("ReduceMax", ["nz"], ["last"], axes=[0], keepdims=0),
                helper.make_node("Cast", ["nz"], ["f"], to=T.FLOAT),
                helper.make_node("Transpose", ["f"], ["ft"]),
                helper.make_node("MatMul", ["f", "ft"], ["gram"]),
            ],
            [vi("x", T.FLOAT, [3, 4])],
            [vi("total", T.INT64, []), vi("gram", T.FLOAT, [2, 2])],
        )

    exe = compiled(("nz-inner",), build)
    assert exe.exe.outputs[0].shape == () and exe.exe.outputs[1].shape == (2, 2)
    exe.check({"x": np.zeros((3, 4), np.float32)})
    for p in (0.1, 0.5, 1.0):
        exe.check({"x": (rng.random((3, 4)) < p).astype(np.float32)})


def test_gather_boxes_by_nms_selection(compiled) -> None:
    """NMS's selected rows pick boxes (Gather by a data-dependent index list)
    and their scores (GatherND), and count them."""
    n = 8

    def build() -> onnx.ModelProto:
        return _model(
            [
                helper.make_node("NonMaxSuppression", ["boxes", "scores", "mo", "iou", "st"], ["sel"]),
                helper.make_node("Gather", ["sel", "two"], ["which"], axis=1),
                helper.make_node("Reshape", ["boxes", "flat"], ["boxes2d"]),
                helper.make_node("Gather", ["boxes2d", "which"], ["kept"], axis=0),
                helper.make_node("GatherND", ["scores", "sel"], ["kept_scores"]),
            ],
            [vi("boxes", T.FLOAT, [1, n, 4]), vi("scores", T.FLOAT, [1, 2, n])],
            [vi("kept", T.FLOAT, [None, 4]), vi("kept_scores", T.FLOAT, [None])],
            [
                numpy_helper.from_array(np.array(2, np.int64), "two"),
                numpy_helper.from_array(np.array([n, 4], np.int64), "flat"),
                numpy_helper.from_array(np.array([3], np.int64), "mo"),
                numpy_helper.from_array(np.array([0.4], np.float32), "iou"),
                numpy_helper.from_array(np.array([0.2], np.float32), "st"),
            ],
        )

    exe = compiled(("nms-gather",), build)
    for _ in range(10):
        corner = rng.integers(0, 5, (1, n, 2))
        boxes = np.concatenate([corner, corner + rng.integers(1, 4, (1, n, 2))], axis=2).astype(np.float32)
        exe.check({"boxes": boxes, "scores": rng.random((1, 2, n)).astype(np.float32)})
    exe.check({"boxes": boxes, "scores": np.zeros((1, 2, n), np.float32)})  # nothing kept


def test_two_data_dependent_sizes_and_sizes_of_sizes(compiled) -> None:
    """Two NonZeros (two sizes), a NonZero of a NonZero's output (a size whose
    bound is another data-dependent size's bound times two) and Unique of it."""

    def build() -> onnx.ModelProto:
        return _model(
            [
                helper.make_node("NonZero", ["x"], ["a"]),
                helper.make_node("NonZero", ["z"], ["b"]),
                helper.make_node("NonZero", ["a"], ["c"]),
                helper.make_node("Unique", ["a"], ["u"]),
            ],
            [vi("x", T.FLOAT, [3, 4]), vi("z", T.FLOAT, [5])],
            [vi(n, T.INT64, None) for n in "abcu"],
        )

    exe = compiled(("nz-two",), build)
    assert [name for name, _ in exe.exe.bounds] == ["nonzero", "nonzero_1", "nonzero_2", "unique"]
    for p in (0.0, 0.3, 1.0):
        for q in (0.0, 0.6, 1.0):
            exe.check(
                {
                    "x": (rng.random((3, 4)) < p).astype(np.float32),
                    "z": (rng.random(5) < q).astype(np.float32),
                }
            )


def test_runtime_topk_feeding_more_ops(compiled) -> None:
    def build() -> onnx.ModelProto:
        return _model(
            [
                helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1),
                helper.make_node("Softmax", ["v"], ["p"], axis=1),
                helper.make_node("ReduceSum", ["v", "one"], ["s"], keepdims=0),
            ],
            [vi("x", T.FLOAT, [2, 6]), vi("k", T.INT64, [1])],
            [vi("p", T.FLOAT, None), vi("i", T.INT64, None), vi("s", T.FLOAT, [2])],
            [numpy_helper.from_array(np.array([1], np.int64), "one")],
        )

    exe = compiled(("topk-chain",), build)
    for k in range(7):
        exe.check({"x": rng.standard_normal((2, 6)).astype(np.float32), "k": np.array([k], np.int64)}, tol=1e-6)


# ============================================== symbolic input dims, too
def _symbolic_model() -> onnx.ModelProto:
    """`n` given by the input, `compressed`, `nonzero` (bound 4*n) and
    `nonzero_1` set by the model; intermediates planned at the bounds."""
    return _model(
        [
            helper.make_node("Compress", ["x", "condition"], ["y"], axis=1),
            helper.make_node("NonZero", ["x"], ["z"]),
            helper.make_node("Transpose", ["z"], ["zt"]),
            helper.make_node("Cast", ["zt"], ["zf"], to=T.FLOAT),
            helper.make_node("ReduceSum", ["zf", "zero"], ["w"], keepdims=0),
            helper.make_node("Relu", ["x"], ["r"]),
            helper.make_node("NonZero", ["r"], ["rz"]),
            helper.make_node("ReduceSum", ["rz", "one"], ["positives"], keepdims=0),
        ],
        [vi("x", T.FLOAT, ["n", 4]), vi("condition", T.BOOL, [4])],
        [
            vi("y", T.FLOAT, ["n", None]),
            vi("z", T.INT64, [2, None]),
            vi("w", T.FLOAT, [2]),
            vi("positives", T.INT64, [2]),
        ],
        [numpy_helper.from_array(np.array([k], np.int64), name) for k, name in ((0, "zero"), (1, "one"))],
    )


def test_symbolic_input_dim_and_data_dependent_sizes(compiled) -> None:
    exe = compiled(("symbolic",), _symbolic_model)
    assert dict(exe.exe.bounds) == {"compressed": 4, "nonzero": Sym.parse("4*n"), "nonzero_1": Sym.parse("4*n")}
    for n in (1, 3, 9, 2):
        for p in (0.0, 0.5, 1.0):
            x = ((rng.random((n, 4)) < p) * rng.standard_normal((n, 4))).astype(np.float32)
            got = exe.check({"x": x, "condition": rng.random(4) < p}, tol=1e-6)
            assert got[0].shape[0] == n


# ================================================ export, load, the relay text
def test_export_load_round_trip(compiled, tmp_path) -> None:
    exe = compiled(("symbolic",), _symbolic_model)
    path = tmp_path / "dynamic.so"
    exe.exe.export(path)
    loaded = lamina.load(path)
    assert loaded.bounds == exe.exe.bounds and loaded.sizes == exe.exe.sizes
    for n, p in ((1, 0.0), (4, 0.5), (6, 1.0)):
        x = (rng.random((n, 4)) < p) * rng.standard_normal((n, 4))
        feeds = {"x": x.astype(np.float32), "condition": rng.random(4) < p}
        want = exe.run(feeds)
        got = loaded.run(**feeds)
        _same(got, want, feeds)


def test_export_load_nonzero(compiled, tmp_path) -> None:
    c = compiled(("nonzero", (2, 3, 4), np.int64), lambda: _nonzero_model((2, 3, 4), np.int64))
    path = tmp_path / "nonzero.so"
    c.exe.export(path)
    loaded = lamina.load(path)
    assert loaded.bounds == [("nonzero", 24)]
    for p in (0.0, 0.3, 1.0):
        feeds = {"x": (rng.random((2, 3, 4)) < p).astype(np.int64)}
        _same(loaded.run(**feeds), c.ref.run(None, feeds), feeds)


@pytest.mark.parametrize(
    "build",
    [
        lambda: _nonzero_model((2, 3), np.float32),
        _symbolic_model,
        lambda: _nms_model(2, 3, 6, 1, True),
        lambda: _unique_model((2, 2, 5), 2, 0, T.FLOAT),
    ],
    ids=["nonzero", "symbolic", "nms", "unique"],
)
def test_relay_text_round_trips(build) -> None:
    module = lamina.from_onnx(build())
    text = str(module)
    assert "relay.narrow" in text
    again = str(lamina.parse(text))
    assert again == text
    assert str(lamina.parse(again)) == text


def test_data_dependent_sizes_are_named_afresh() -> None:
    """An input dim already named `nonzero`: the data-dependent size is not."""
    m = _model(
        [helper.make_node("NonZero", ["x"], ["y"])],
        [vi("x", T.FLOAT, ["nonzero", 3])],
        [vi("y", T.INT64, [2, None])],
    )
    c = Compiled(m)
    assert c.exe.bounds == [("nonzero_1", Sym.parse("3*nonzero"))]
    for n in (1, 4):
        c.check({"x": (rng.random((n, 3)) < 0.5).astype(np.float32)})


NARROW = """
func.func @main(%x: tensor<2x3xf32>, %y: tensor<?x4xf32, ["n"]>, %k: tensor<i64>) -> (tensor<?x2xf32, ["nz"]>, tensor<?x4xf32, ["k"]>) {
  %0, %1 = relay.nonzero %x : (tensor<2x3xf32>)
  %2 = relay.narrow %0, %1 {axis = 1 : i64, size = "nz"} : (tensor<2x6xi64>, tensor<i64>)
  %3 = relay.transpose %2 {perm = array<i64: 1, 0>} : (tensor<2x?xi64, ["nz"]>)
  %4 = relay.cast %3 {dtype = f32} : (tensor<?x2xi64, ["nz"]>)
  %5 = relay.narrow %y, %k {axis = 0 : i64, size = "k"} : (tensor<?x4xf32, ["n"]>, tensor<i64>)
  %6 = relay.relu %5 : (tensor<?x4xf32, ["k"]>)
  func.return %4, %6 : tensor<?x2xf32, ["nz"]>, tensor<?x4xf32, ["k"]>
}
"""


def test_narrow_of_a_count_given_as_input_is_clamped() -> None:
    """A relay graph: a count the caller gives is clamped to 0..bound (the
    symbolic size `n` of the narrowed axis)."""
    exe = lamina.compile(lamina.parse(NARROW))
    assert exe.bounds == [("nz", 6), ("k", Sym.parse("n"))]
    x = np.array([[0, 1, 0], [2, 0, 3]], np.float32)
    for n in (1, 5):
        y = rng.standard_normal((n, 4)).astype(np.float32)
        for k in (-3, 0, 1, n, n + 4):
            nz, rows = exe.run(x, y, np.array(k, np.int64))
            np.testing.assert_array_equal(nz, [[0, 1], [1, 0], [1, 2]])
            np.testing.assert_array_equal(rows, np.maximum(y[: min(max(k, 0), n)], 0))


@pytest.mark.parametrize("count", ["tensor<1xi64>", "tensor<i32>", "tensor<1x1xi64>", "tensor<f32>"])
def test_narrow_count_must_be_an_i64_scalar(count: str) -> None:
    """@main reads the count as one i64: other counts are refused (an i32 one
    used to be read as 8 bytes, and its size came out wrong)."""
    text = NARROW.replace("%k: tensor<i64>", f"%k: {count}").replace(
        "(tensor<?x4xf32, [\"n\"]>, tensor<i64>)", f"(tensor<?x4xf32, [\"n\"]>, {count})"
    )
    assert count in text.split("relay.narrow %y")[1]
    with pytest.raises(lamina.IRError, match=r"relay.narrow: count must be an i64 scalar"):
        lamina.parse(text)


def test_narrow_naming_an_input_size_is_refused_clearly() -> None:
    text = NARROW.replace('size = "k"', 'size = "n"').replace('["k"]', '["n"]')
    with pytest.raises(lamina.LaminaError) as error:
        lamina.compile(lamina.parse(text))
    assert not isinstance(error.value, lamina.InternalError), error.value
