"""Ops with extern kernels (TIR written directly): ScatterND, ScatterElements,
Scatter, TopK, CumSum and CumProd against onnx.reference over shapes, dtypes,
reductions, negative indices and opsets; top-k's order and ties as a property."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from onnx import TensorProto, helper, numpy_helper

import lamina
from tests.test_onnx_ops import RNG, Case, Const, check, rand


def _nd_indices(data_shape: tuple[int, ...], batch: tuple[int, ...], q: int, unique: bool) -> np.ndarray:
    """Index tuples into `data_shape[:q]`, negative half the time; distinct
    positions when `unique` (reduction none: the order of duplicates is the
    reference's loop order, which lamina follows too, but keep it clear)."""
    dims = np.array(data_shape[:q])
    n = int(np.prod(batch))
    if unique:
        flat = RNG.choice(int(np.prod(dims)), size=n, replace=False)
        pos = np.stack(np.unravel_index(flat, tuple(dims)), -1)
    else:
        pos = RNG.integers(0, dims, size=(n, q))
    neg = RNG.random(pos.shape) < 0.5
    return np.where(neg, pos - dims, pos).reshape(*batch, q).astype(np.int64)


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_scatter_nd(reduction):
    cases = []
    for dtype in (np.float32, np.int32, np.float64):
        for data_shape, batch, q in [
            ((7, 3), (2,), 1),
            ((4, 5, 6), (3,), 2),
            ((4, 5, 6), (2, 2), 3),
            ((9,), (4,), 1),
            ((2, 3, 4), (), 1),
            ((1, 1, 5), (1,), 2),
        ]:
            idx = _nd_indices(data_shape, batch, q, unique=reduction == "none")
            updates = rand(*batch, *data_shape[q:], dtype=dtype)
            cases.append(Case("ScatterND", [rand(*data_shape, dtype=dtype), idx, updates], {"reduction": reduction}))
    check(cases, opset=18)


def test_scatter_nd_duplicates_apply_in_order():
    """Without a reduction the last update of one position wins, as in the
    reference's loop."""
    idx = np.array([[1], [3], [1], [1]], np.int64)
    check([Case("ScatterND", [rand(5, 2), idx, rand(4, 2)])], opset=16)


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_scatter_elements(reduction):
    cases = []
    for dtype in (np.float32, np.int64):
        for data_shape, idx_shape, axis in [
            ((5, 4), (3, 4), 0),
            ((5, 4), (5, 2), 1),
            ((5, 4), (2, 3), -1),
            ((3, 4, 5), (3, 2, 5), 1),
            ((6,), (6,), 0),
            ((1, 7), (1, 3), 1),
        ]:
            n = data_shape[axis]
            idx = RNG.integers(-n, n, size=idx_shape).astype(np.int64)
            if reduction == "none":  # one update per position along the axis
                moved = np.moveaxis(np.zeros(idx_shape, np.int64), axis, -1)
                k = moved.shape[-1]
                perm = np.argsort(RNG.random((*moved.shape[:-1], n)), -1)[..., :k]
                idx = np.moveaxis(perm, -1, axis).astype(np.int64)
            cases.append(Case(
                "ScatterElements",
                [rand(*data_shape, dtype=dtype), idx, rand(*idx_shape, dtype=dtype)],
                {"axis": axis, "reduction": reduction},
            ))
    check(cases, opset=18)


def test_scatter_elements_old_opsets_and_scatter():
    idx = np.array([[1, 0, 2], [0, 2, 1]], np.int64)
    for opset in (11, 13):
        check([Case("ScatterElements", [rand(3, 3), idx, rand(2, 3)], {"axis": 0})], opset=opset)
    # onnx.reference has no Scatter (deprecated in opset 11): the loop of its spec.
    data, updates = rand(3, 3), rand(2, 3)
    graph = helper.make_graph(
        [helper.make_node("Scatter", ["d", "i", "u"], ["y"], axis=1)], "g",
        [helper.make_tensor_value_info("d", TensorProto.FLOAT, [3, 3]),
         helper.make_tensor_value_info("u", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(idx, "i")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 10)])
    expected = data.copy()
    for i, j in np.ndindex(idx.shape):
        expected[i, idx[i, j]] = updates[i, j]
    np.testing.assert_array_equal(lamina.compile(model).run(data, updates)[0], expected)


@pytest.mark.parametrize("opset", [1, 10, 11])
def test_topk(opset):
    cases = []
    for dtype in (np.float32, np.int32, np.int64, np.float64):
        for shape, axis, k in [((4, 9), -1, 3), ((4, 9), 0, 4), ((3, 5, 2), 1, 5), ((11,), 0, 1), ((2, 6), 1, 0)]:
            x = rand(*shape, dtype=dtype, low=-2, high=2)  # small range: many ties
            largest = [1] if opset < 11 else [0, 1]
            for lg in largest:
                attrs = {"axis": axis} | ({"largest": lg} if opset >= 11 else {})
                k_in = [] if opset < 10 else [Const(np.array([k], np.int64))]
                if opset < 10:
                    attrs["k"] = k
                cases.append(Case("TopK", [x, *k_in], attrs, outputs=2))
    check(cases, opset=opset)


@settings(max_examples=15, deadline=None)
@given(
    x=hnp.arrays(np.float32, st.tuples(st.integers(1, 4), st.integers(1, 12)),
                 elements=st.integers(-3, 3).map(float)),
    data=st.data(),
)
def test_topk_is_a_stable_sort_prefix(x, data):
    """values are the first k of a stable sort (best first), indices point at
    them, and equal values keep their order: numpy's stable argsort."""
    k = data.draw(st.integers(0, x.shape[1]))
    largest = data.draw(st.booleans())
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1, largest=int(largest))
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("v", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("i", TensorProto.INT64, None)],
        [numpy_helper.from_array(np.array([k], np.int64), "k")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    values, indices = lamina.compile(model).run(x)
    order = np.argsort(-x if largest else x, axis=1, kind="stable")[:, :k]
    np.testing.assert_array_equal(indices, order)
    np.testing.assert_array_equal(values, np.take_along_axis(x, order, 1))


@pytest.mark.parametrize("op", ["CumSum", "CumProd"])
def test_cumulative(op):
    cases = []
    for dtype in (np.float32, np.int32, np.int64, np.float64):
        v = rand(3, 4, 5, dtype=dtype, low=-2, high=2)
        for axis in (0, 1, -1):
            for attrs in ({}, {"exclusive": 1}, {"reverse": 1}, {"exclusive": 1, "reverse": 1}):
                cases.append(Case(op, [v, Const(np.array(axis, np.int64))], attrs))
    cases.append(Case(op, [rand(1, dtype=np.float32), Const(np.array(0, np.int32))]))
    check(cases, opset=26 if op == "CumProd" else 14, rtol=1e-5, atol=1e-5)


def test_cumsum_of_a_long_axis_stays_linear():
    """CumSum used to be a product with an n x n triangle: 2^17 elements would
    have needed a 64 GiB constant. The scan needs nothing."""
    x = np.ones(1 << 17, np.float32)
    graph = helper.make_graph(
        [helper.make_node("CumSum", ["x", "a"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array(0, np.int64), "a")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    (y,) = lamina.compile(model).run(x)
    np.testing.assert_array_equal(y, np.arange(1, x.size + 1, dtype=np.float32))


def test_out_of_range_updates_are_skipped():
    """ONNX leaves an out-of-range index undefined; lamina never writes outside
    the output: the update is dropped."""
    idx = np.array([[7], [1]], np.int64)
    graph = helper.make_graph(
        [helper.make_node("ScatterND", ["d", "i", "u"], ["y"])], "g",
        [helper.make_tensor_value_info("d", TensorProto.FLOAT, [3, 2]),
         helper.make_tensor_value_info("u", TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(idx, "i")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    d, u = np.zeros((3, 2), np.float32), np.ones((2, 2), np.float32)
    (y,) = lamina.compile(model).run(d, u)
    np.testing.assert_array_equal(y, [[0, 0], [1, 1], [0, 0]])


def test_bad_scatter_reports_the_node():
    graph = helper.make_graph(
        [helper.make_node("ScatterND", ["d", "i", "u"], ["y"], name="bad", reduction="mean")], "g",
        [helper.make_tensor_value_info("d", TensorProto.FLOAT, [3, 2]),
         helper.make_tensor_value_info("i", TensorProto.INT64, [2, 1]),
         helper.make_tensor_value_info("u", TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    with pytest.raises(lamina.FrontendError, match=r"'bad'.*reduction=\"mean\" is not one of none, add"):
        lamina.from_onnx(model)
