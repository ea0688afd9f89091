"""Shapes, axes, pads and counts given only when the model runs (TVM's dyn
ops, Relax's tensor_to_shape): each model is compiled once with its structure
input as a graph input, then run over many values against `onnx.reference`
(shapes, dtypes and values). Bad values stop the run with an `InputError`
naming the ONNX node; unbounded sizes grow the runtime's capacity without a
recompile; export/load and the onnx.backend adapter keep all of it."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import lamina
from lamina.tools import onnx_backend

F, I64, I32, F64 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32, TensorProto.DOUBLE
BIG, SMALL = 2**63 - 1, -(2**63)
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _vi(name: str, elem: int, dims: Sequence[int | str] | None) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, dims)


def _model(
    node: onnx.NodeProto | list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto] | int,
    opset: int = 18,
    inits: Sequence[onnx.TensorProto] = (),
) -> onnx.ModelProto:
    """A model of `node`(s); `outputs` an int: that many float outputs of unknown shape."""
    nodes = node if isinstance(node, list) else [node]
    if isinstance(outputs, int):
        outputs = [_vi(n, F, None) for n in nodes[-1].output[:outputs]]
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _check(got: Sequence[np.ndarray], want: Sequence[np.ndarray], feeds: dict[str, np.ndarray]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        w = np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (feeds, g.shape, w.shape, g.dtype, w.dtype)
        if np.issubdtype(w.dtype, np.floating):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=str(feeds))
        else:
            np.testing.assert_array_equal(g, w, err_msg=str(feeds))


def _same(model: onnx.ModelProto, exe: lamina.CompiledModel, feeds: dict[str, np.ndarray]) -> None:
    """`exe` computes what `onnx.reference` does for `feeds`."""
    _check(exe.run(**feeds), ReferenceEvaluator(model).run(None, feeds), feeds)


def _ort(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    """onnxruntime's result, where `onnx.reference` has none (negative pads) or
    deviates from the ONNX spec (see test_slice_negative_step_start_below_the_axis)."""
    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return list(session.run(None, feeds))


def _i64(*v: int) -> np.ndarray:
    return np.array(v, np.int64)


RNG = np.random.default_rng(0)


def _data(shape: Sequence[int], dtype: type | np.dtype) -> np.ndarray:
    if np.dtype(dtype) == np.bool_:
        return RNG.random(shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        return RNG.integers(-50, 50, shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


DTYPES = {np.float32: F, np.int64: I64, np.bool_: TensorProto.BOOL}


# ------------------------------------------------------------------ Reshape
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
@pytest.mark.parametrize("allowzero", [0, 1])
def test_reshape(dtype: type, allowzero: int) -> None:
    elem = DTYPES[dtype]
    model = _model(helper.make_node("Reshape", ["x", "s"], ["y"], allowzero=allowzero),
                   [_vi("x", elem, [2, 3, 4]), _vi("s", I64, [3])], [_vi("y", elem, None)], opset=14)
    exe = lamina.compile(model)
    x = _data((2, 3, 4), dtype)
    shapes = [(4, 3, 2), (24, 1, 1), (1, 1, 24), (-1, 1, 2), (2, -1, 3), (1, 4, -1), (6, 2, 2), (3, 8, 1)]
    if not allowzero:  # a 0 copies x's dim there
        shapes += [(0, 0, 4), (0, -1, 2), (2, 0, -1), (0, 12, 1)]
    for s in shapes:
        _same(model, exe, {"x": x, "s": _i64(*s)})


def test_reshape_zeros_and_ranks() -> None:
    """allowzero keeps a 0 as a 0 (an empty result); a shape of no elements is a scalar."""
    model = _model(helper.make_node("Reshape", ["x", "s"], ["y"], allowzero=1),
                   [_vi("x", F, [0, 3]), _vi("s", I64, [2])], 1, opset=14)
    exe = lamina.compile(model)
    for s in [(3, 0), (0, 5), (0, 0), (-1, 3), (7, 0)]:
        _same(model, exe, {"x": np.zeros((0, 3), np.float32), "s": _i64(*s)})
    with pytest.raises(lamina.InputError, match="not beside a 0"):  # any size: numpy refuses too
        exe.run(x=np.zeros((0, 3), np.float32), s=_i64(0, -1))
    model = _model(helper.make_node("Reshape", ["x", "s"], ["y"]), [_vi("x", F, [1, 1]), _vi("s", I64, [0])], 1)
    _same(model, lamina.compile(model), {"x": np.full((1, 1), 7, np.float32), "s": _i64()})


def test_reshape_of_a_symbolic_input() -> None:
    model = _model(helper.make_node("Reshape", ["x", "s"], ["y"]), [_vi("x", F, ["n", 4]), _vi("s", I64, [2])], 1)
    exe = lamina.compile(model)
    for n, s in [(2, (-1, 2)), (3, (0, 4)), (5, (4, -1)), (1, (2, 2)), (6, (1, -1))]:
        _same(model, exe, {"x": _data((n, 4), np.float32), "s": _i64(*s)})


# ------------------------------------------------------------------ Squeeze, Unsqueeze
def test_squeeze_and_unsqueeze_run_time_axes() -> None:
    sq = _model(helper.make_node("Squeeze", ["x", "a"], ["y"]), [_vi("x", I64, [1, 2, 1, 3, 1]), _vi("a", I64, [2])],
                [_vi("y", I64, None)])
    exe = lamina.compile(sq)
    x = _data((1, 2, 1, 3, 1), np.int64)
    for a in itertools.permutations([0, 2, 4, -1, -3, -5], 2):
        if len({v % 5 for v in a}) == 2:
            _same(sq, exe, {"x": x, "a": _i64(*a)})
    un = _model(helper.make_node("Unsqueeze", ["x", "a"], ["y"]), [_vi("x", F, [2, 3]), _vi("a", I64, [2])], 1)
    exe = lamina.compile(un)
    x = _data((2, 3), np.float32)
    for a in itertools.permutations(range(-4, 4), 2):
        if len({v % 4 for v in a}) == 2:
            _same(un, exe, {"x": x, "a": _i64(*a)})
    every = _model(helper.make_node("Squeeze", ["x", "a"], ["y"]), [_vi("x", F, [1, 1]), _vi("a", I64, [2])], 1)
    exe = lamina.compile(every)  # to a scalar
    for a in [(0, 1), (1, 0), (-1, 0)]:
        _same(every, exe, {"x": np.full((1, 1), 3, np.float32), "a": _i64(*a)})


# ------------------------------------------------------------------ Expand, ConstantOfShape, Tile
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_expand(dtype: type) -> None:
    elem = DTYPES[dtype]
    model = _model(helper.make_node("Expand", ["x", "s"], ["y"]), [_vi("x", elem, [3, 1]), _vi("s", I64, [3])],
                   [_vi("y", elem, None)])
    exe = lamina.compile(model)
    x = _data((3, 1), dtype)
    for s in [(2, 3, 4), (1, 1, 1), (2, 1, 0), (1, 3, 5), (4, 1, 1), (0, 3, 2)]:
        _same(model, exe, {"x": x, "s": _i64(*s)})
    short = _model(helper.make_node("Expand", ["x", "s"], ["y"]), [_vi("x", elem, [2, 3, 1]), _vi("s", I64, [1])],
                   [_vi("y", elem, None)])
    exe = lamina.compile(short)  # a shape shorter than x's rank
    for s in [(1,), (4,), (0,)]:
        _same(short, exe, {"x": _data((2, 3, 1), dtype), "s": _i64(*s)})


def test_expand_a_symbolic_dim_that_is_one_when_the_model_runs() -> None:
    """A dim set by the data (or an input's symbolic dim) may be 1 when the
    model runs: it broadcasts then, as numpy's rules say."""
    nodes = [helper.make_node("Reshape", ["x", "s"], ["q"]), helper.make_node("Expand", ["q", "e"], ["y"])]
    model = _model(nodes, [_vi("x", F, [6]), _vi("s", I64, [2]), _vi("e", I64, [3])], 1)
    exe = lamina.compile(model)
    x = _data((6,), np.float32)
    for s, e in [((2, 3), (4, 2, 3)), ((1, 6), (2, 5, 6)), ((6, 1), (1, 6, 4)), ((1, 6), (1, 1, 1)), ((2, 3), (2, 1, 1))]:
        _same(model, exe, {"x": x, "s": _i64(*s), "e": _i64(*e)})
    sym = _model(helper.make_node("Expand", ["x", "e"], ["y"]), [_vi("x", F, ["n", 1]), _vi("e", I64, [2])], 1)
    exe = lamina.compile(sym)
    for n, e in [(1, (7, 2)), (3, (3, 2)), (3, (1, 4)), (1, (1, 1))]:
        _same(sym, exe, {"x": _data((n, 1), np.float32), "e": _i64(*e)})
    with pytest.raises(lamina.InputError, match="does not broadcast"):
        exe.run(x=_data((3, 1), np.float32), e=_i64(7, 2))


def test_gather_elements_by_indices_of_a_run_time_shape() -> None:
    """GatherElements whose indices are expanded to a shape given when the
    model runs: outside the axis their dims are checked against the data's
    then (more rows than the data has stops the run naming the node)."""
    nodes = [helper.make_node("Expand", ["i", "s"], ["idx"]),
             helper.make_node("GatherElements", ["x", "idx"], ["y"], axis=1)]
    model = _model(nodes, [_vi("x", F, [4, 5]), _vi("i", I64, [1, 3]), _vi("s", I64, [2])], 1)
    exe = lamina.compile(model)
    x, i = _data((4, 5), np.float32), _i64(4, -1, 0).reshape(1, 3)
    for rows in (1, 3, 4):  # onnx.reference wants the dims equal; onnxruntime, not more
        idx = np.broadcast_to(i, (rows, 3))
        (got,) = exe.run(x=x, i=i, s=_i64(rows, 3))
        np.testing.assert_array_equal(got, np.take_along_axis(x[:rows], np.where(idx < 0, idx + 5, idx), 1))
    with pytest.raises(lamina.InputError, match=r"GatherElements.*must not exceed the data's outside axis 1"):
        exe.run(x=x, i=i, s=_i64(5, 3))



@pytest.mark.parametrize(("elem", "value"), [(TensorProto.INT32, 7), (F, 2.5), (I64, -3), (TensorProto.BOOL, True)])
def test_constant_of_shape(elem: int, value: Any) -> None:
    fill = helper.make_tensor("value", elem, [1], [value])
    model = _model(helper.make_node("ConstantOfShape", ["s"], ["y"], value=fill), [_vi("s", I64, [2])],
                   [_vi("y", elem, None)])
    exe = lamina.compile(model)
    for s in [(2, 3), (0, 3), (1, 1), (4, 0), (5, 7), (2, 2)]:
        _same(model, exe, {"s": _i64(*s)})


def test_tile() -> None:
    model = _model(helper.make_node("Tile", ["x", "r"], ["y"]), [_vi("x", I64, [2, 3]), _vi("r", I64, [2])],
                   [_vi("y", I64, None)])
    exe = lamina.compile(model)
    x = _data((2, 3), np.int64)
    for r in [(1, 1), (2, 3), (0, 2), (3, 0), (4, 1), (1, 1)]:
        _same(model, exe, {"x": x, "r": _i64(*r)})


# ------------------------------------------------------------------ Range
RANGES_INT = [(0, 5, 1), (5, 0, -1), (5, 0, -2), (0, 0, 1), (3, 1, 1), (1, 3, -1), (-4, 7, 3), (10, -10, -3), (2, 3, 5)]
RANGES_FLOAT = [(0.5, 3.2, 0.7), (3.0, -1.0, -0.3), (0.0, 1.0, 0.125), (1.0, 1.0, 0.5), (2.0, 1.0, 0.5), (-1.5, -4.0, -1.25)]


@pytest.mark.parametrize(("elem", "dtype"), [(I64, np.int64), (I32, np.int32), (F, np.float32), (F64, np.float64)])
def test_range(elem: int, dtype: type) -> None:
    model = _model(helper.make_node("Range", ["a", "b", "c"], ["y"]), [_vi(n, elem, []) for n in "abc"],
                   [_vi("y", elem, None)])
    exe = lamina.compile(model)
    cases = RANGES_INT + (RANGES_FLOAT if np.issubdtype(dtype, np.floating) else [])
    for a, b, c in cases:
        _same(model, exe, {"a": np.array(a, dtype), "b": np.array(b, dtype), "c": np.array(c, dtype)})


# ------------------------------------------------------------------ Slice
def _slice_model(rank: int, count: int, elem: int = F, dims: Sequence[int | str] | None = None) -> onnx.ModelProto:
    names = ["x", "starts", "ends", "axes", "steps"]
    ins = [_vi("x", elem, list(dims) if dims is not None else [f"d{i}" for i in range(rank)])]
    ins += [_vi(n, I64, [count]) for n in names[1:]]
    return _model(helper.make_node("Slice", names, ["y"]), ins, [_vi("y", elem, None)])


def _spec_starts(x: np.ndarray, starts: Sequence[int], axes: Sequence[int], steps: Sequence[int]) -> list[int]:
    """Starts that onnx.reference (numpy slicing) takes as the ONNX spec says:
    a negative step's start below the axis is clamped to 0 by the spec (element
    0 is taken), where numpy takes nothing (test_slice_negative_step_start_below_the_axis)."""
    return [0 if s < 0 and b < -x.shape[a] else b for b, a, s in zip(starts, axes, steps, strict=True)]


def _slice_same(model: onnx.ModelProto, exe: lamina.CompiledModel, x: np.ndarray, starts: Sequence[int],
                ends: Sequence[int], axes: Sequence[int], steps: Sequence[int]) -> None:
    feeds = {"x": x, "starts": _i64(*starts), "ends": _i64(*ends), "axes": _i64(*axes), "steps": _i64(*steps)}
    spec = {**feeds, "starts": _i64(*_spec_starts(x, starts, axes, steps))}
    _check(exe.run(**feeds), ReferenceEvaluator(model).run(None, spec), feeds)


@pytest.mark.parametrize(("dtype", "elem"), [(np.float32, F), (np.int64, I64), (np.bool_, TensorProto.BOOL)])
def test_slice_bounds_and_steps(dtype: type, elem: int) -> None:
    """Out-of-range and extreme starts and ends, negative and huge steps, empty results."""
    model = _slice_model(2, 2, elem, [5, 6])
    exe = lamina.compile(model)
    x = _data((5, 6), dtype)
    for b, e, s in itertools.product([SMALL, -10, -3, 0, 2, 5, 10, BIG], [SMALL, -10, -2, 0, 3, 10, BIG],
                                     [SMALL, -BIG, -3, -1, 1, 2, BIG]):
        _slice_same(model, exe, x, [b, 1], [e, 5], [0, 1], [s, 1])
    for axes in ([1, 0], [-1, -2], [0, -1]):
        _slice_same(model, exe, x, [4, -2], [-1, 0], axes, [-2, -1])


def test_slice_negative_step_start_below_the_axis() -> None:
    """The spec clamps a negative step's start to [0, dim - 1] (onnxruntime
    agrees); onnx.reference slices with numpy, which takes nothing: lamina
    follows the spec, here as for constant starts."""
    x = np.arange(5, dtype=np.float32)
    model = _slice_model(1, 1, F, [5])
    exe = lamina.compile(model)
    (got,) = exe.run(x=x, starts=_i64(-10), ends=_i64(-10), axes=_i64(0), steps=_i64(-1))
    np.testing.assert_array_equal(got, [0.0])
    (ref,) = ReferenceEvaluator(model).run(None, {"x": x, "starts": _i64(-10), "ends": _i64(-10),
                                                  "axes": _i64(0), "steps": _i64(-1)})
    assert ref.shape == (0,)  # the deviation this test documents
    const = _model(helper.make_node("Slice", ["x", "b", "e", "a", "s"], ["y"]), [_vi("x", F, [5])], 1,
                   inits=[numpy_helper.from_array(_i64(v), n) for n, v in zip("beas", (-10, -10, 0, -1), strict=True)])
    np.testing.assert_array_equal(lamina.compile(const).run(x=x)[0], got)


def test_slice_partial_inputs() -> None:
    """Only starts and ends (every axis in order); constant axes with run-time steps."""
    model = _model(helper.make_node("Slice", ["x", "b", "e"], ["y"]), [_vi("x", F, ["n", 5]), _vi("b", I64, [2]),
                   _vi("e", I64, [2])], 1)
    exe = lamina.compile(model)
    for n, b, e in [(3, (0, 1), (2, 4)), (6, (-2, 0), (100, -1)), (1, (0, 0), (1, 5)), (4, (3, 3), (1, 2))]:
        _same(model, exe, {"x": _data((n, 5), np.float32), "b": _i64(*b), "e": _i64(*e)})
    model = _model(helper.make_node("Slice", ["x", "b", "e", "a", "s"], ["y"]),
                   [_vi("x", I64, [4, 6]), _vi("b", I64, [1]), _vi("e", I64, [1]), _vi("s", I64, [1])],
                   [_vi("y", I64, None)], inits=[numpy_helper.from_array(_i64(-1), "a")])
    exe = lamina.compile(model)
    for b, e, s in [(0, 6, 2), (5, -7, -1), (-1, 0, -4), (2, 2, 1)]:
        _same(model, exe, {"x": _data((4, 6), np.int64), "b": _i64(b), "e": _i64(e), "s": _i64(s)})


@functools.cache
def _slice_exe(rank: int) -> tuple[onnx.ModelProto, lamina.CompiledModel]:
    model = _slice_model(rank, rank)
    return model, lamina.compile(model)


_BOUND = st.one_of(st.integers(-8, 8), st.sampled_from([SMALL, BIG]))
_STEP = st.one_of(st.integers(-4, 4).filter(bool), st.sampled_from([SMALL, -BIG, BIG]))


@FAST
@given(data=st.data(), rank=st.integers(1, 3))
def test_slice_property(data: st.DataObject, rank: int) -> None:
    """Random shapes, starts, ends, steps and axes (in any order, negative too):
    one compiled model per rank."""
    model, exe = _slice_exe(rank)
    shape = data.draw(st.lists(st.integers(1, 6), min_size=rank, max_size=rank))
    order = data.draw(st.permutations(range(rank)))
    axes = [a - rank if data.draw(st.booleans()) else a for a in order]
    starts, ends = (data.draw(st.lists(_BOUND, min_size=rank, max_size=rank)) for _ in range(2))
    steps = data.draw(st.lists(_STEP, min_size=rank, max_size=rank))
    _slice_same(model, exe, _data(shape, np.float32), starts, ends, axes, steps)


# ------------------------------------------------------------------ Split
@pytest.mark.parametrize("opset", [13, 18])
def test_split_run_time_sizes(opset: int) -> None:
    model = _model(helper.make_node("Split", ["x", "s"], ["a", "b", "c"], axis=-1),
                   [_vi("x", I64, [3, 6]), _vi("s", I64, [3])], [_vi(n, I64, None) for n in "abc"], opset=opset)
    exe = lamina.compile(model)
    x = _data((3, 6), np.int64)
    for s in itertools.product(range(7), repeat=3):
        if sum(s) == 6:
            _same(model, exe, {"x": x, "s": _i64(*s)})


# ------------------------------------------------------------------ Pad
PAD_MODES = ["constant", "edge", "reflect", "wrap"]


@pytest.mark.parametrize("mode", PAD_MODES)
def test_pad_modes(mode: str) -> None:
    """Every mode over non-negative pads (reflect past the edge too), and
    crops where the mode's semantics agree with onnxruntime's."""
    model = _model(helper.make_node("Pad", ["x", "p", "v"], ["y"], mode=mode),
                   [_vi("x", F, [3, 4]), _vi("p", I64, [4]), _vi("v", F, [])], 1, opset=19)
    exe = lamina.compile(model)
    x = _data((3, 4), np.float32)
    for p in itertools.product([0, 1, 2, 5], repeat=4):
        _same(model, exe, {"x": x, "p": _i64(*p), "v": np.array(2.5, np.float32)})
    for p in [(-1, 0, 0, -2), (-1, -3, -1, 0), (0, -3, 0, 0), (-2, 0, 0, -1)]:  # crops only
        feeds = {"x": x, "p": _i64(*p), "v": np.array(2.5, np.float32)}
        _check(exe.run(**feeds), _ort(model, feeds), feeds)
    if mode in ("constant", "edge"):  # crop one side, pad the other
        crop_all = [(-3, 0, 1, 0), (-5, 2, 3, 0), (-3, 0, 2, 0)]  # (onnxruntime: no edge of nothing)
        for p in [(2, -1, -2, 3), (-1, 2, 1, -3), (-2, 1, 0, -2)] + (crop_all if mode == "constant" else []):
            feeds = {"x": x, "p": _i64(*p), "v": np.array(-1.0, np.float32)}
            _check(exe.run(**feeds), _ort(model, feeds), feeds)


@pytest.mark.parametrize(("dtype", "elem"), [(np.int64, I64), (np.uint8, TensorProto.UINT8), (np.float16, TensorProto.FLOAT16)])
def test_pad_axes_and_value(dtype: type, elem: int) -> None:
    """Run-time axes (negative, in any order) and value; other dtypes."""
    model = _model(helper.make_node("Pad", ["x", "p", "v", "a"], ["y"]),
                   [_vi("x", elem, [2, 3, 4]), _vi("p", I64, [4]), _vi("v", elem, []), _vi("a", I64, [2])],
                   [_vi("y", elem, None)])
    exe = lamina.compile(model)
    x = np.abs(_data((2, 3, 4), dtype)).astype(dtype)
    for p, a in [((1, 1, 1, 1), (0, 2)), ((0, 2, 1, 0), (-1, 1)), ((2, 0, 0, 1), (1, 0)), ((0, 0, 0, 0), (2, 0))]:
        _same(model, exe, {"x": x, "p": _i64(*p), "v": np.array(9, dtype), "a": _i64(*a)})
    const = _model(helper.make_node("Pad", ["x", "p", "v"], ["y"]), [_vi("x", F, [2, 3]), _vi("v", F, [])], 1,
                   inits=[numpy_helper.from_array(_i64(1, 0, 0, 2), "p")])
    exe = lamina.compile(const)  # only the value is given when the model runs
    for v in (1.5, -2.0):
        _same(const, exe, {"x": _data((2, 3), np.float32), "v": np.array(v, np.float32)})


@functools.cache
def _pad_exe(rank: int, mode: str) -> tuple[onnx.ModelProto, lamina.CompiledModel]:
    dims = [f"d{i}" for i in range(rank)]
    model = _model(helper.make_node("Pad", ["x", "p", "v"], ["y"], mode=mode),
                   [_vi("x", F, dims), _vi("p", I64, [2 * rank]), _vi("v", F, [])], 1, opset=19)
    return model, lamina.compile(model)


@FAST
@given(data=st.data(), rank=st.integers(1, 3), mode=st.sampled_from(PAD_MODES))
def test_pad_property(data: st.DataObject, rank: int, mode: str) -> None:
    """Random shapes and pads (crops too): `onnx.reference` for pads >= 0,
    onnxruntime for crops (reference has none); a crop past the axis stops
    the run naming the node."""
    model, exe = _pad_exe(rank, mode)
    shape = data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank))
    pads = data.draw(st.lists(st.integers(-3, 5), min_size=2 * rank, max_size=2 * rank))
    x = _data(shape, np.float32)
    feeds = {"x": x, "p": _i64(*pads), "v": np.array(data.draw(st.floats(-4, 4, width=32)), np.float32)}
    out = [d + pads[a] + pads[rank + a] for a, d in enumerate(shape)]
    if min(out) < 0:
        with pytest.raises(lamina.InputError, match=r"ONNX node .*Pad.*crop more than axis"):
            exe.run(**feeds)
        return
    if min(pads) >= 0:
        _same(model, exe, feeds)
        return
    kept = [d - max(-pads[a], 0) - max(-pads[rank + a], 0) for a, d in enumerate(shape)]
    if mode != "constant":  # onnxruntime refuses an axis cropped to nothing, or reflecting past it
        assume(min(kept) > 0)
        assume(mode != "reflect" or all(max(pads[a], pads[rank + a]) < k for a, k in enumerate(kept)))
    if mode == "wrap":  # see test_pad_wrap_that_crops_and_pads_one_axis
        assume(not any(min(pads[a], pads[rank + a]) < 0 < max(pads[a], pads[rank + a]) for a in range(rank)))
    _check(exe.run(**feeds), _ort(model, feeds), feeds)


def test_pad_wrap_that_crops_and_pads_one_axis() -> None:
    """Wrap padding on an axis cropped on its other side wraps over the whole
    axis in lamina, for constant and run-time pads alike (onnxruntime wraps
    over the cropped part; onnx.reference has no crops)."""
    x = np.arange(4, dtype=np.float32)
    model = _model(helper.make_node("Pad", ["x", "p"], ["y"], mode="wrap"), [_vi("x", F, [4]), _vi("p", I64, [2])],
                   1, opset=19)
    (got,) = lamina.compile(model).run(x=x, p=_i64(1, -1))
    np.testing.assert_array_equal(got, [3.0, 0.0, 1.0, 2.0])
    const = _model(helper.make_node("Pad", ["x", "p"], ["y"], mode="wrap"), [_vi("x", F, [4])], 1, opset=19,
                   inits=[numpy_helper.from_array(_i64(1, -1), "p")])
    np.testing.assert_array_equal(lamina.compile(const).run(x=x)[0], got)


# ------------------------------------------------------------------ CenterCropPad, OneHot, AffineGrid
def test_center_crop_pad() -> None:
    model = _model(helper.make_node("CenterCropPad", ["x", "s"], ["y"], axes=[0, -1]),
                   [_vi("x", F, [3, 4, 5]), _vi("s", I64, [2])], 1)
    exe = lamina.compile(model)
    x = _data((3, 4, 5), np.float32)
    for s in itertools.product([0, 1, 2, 3, 4, 6, 7], repeat=2):
        _same(model, exe, {"x": x, "s": _i64(*s)})


@pytest.mark.parametrize(("elem", "dtype"), [(I64, np.int64), (I32, np.int32), (F, np.float32)])
@pytest.mark.parametrize("axis", [-1, 0])
def test_one_hot_run_time_depth(elem: int, dtype: type, axis: int) -> None:
    model = _model(helper.make_node("OneHot", ["i", "d", "v"], ["y"], axis=axis),
                   [_vi("i", elem, [2, 3]), _vi("d", I64, []), _vi("v", F, [2])], 1)
    exe = lamina.compile(model)
    idx = np.array([[0, 2, -1], [5, -3, 1]]).astype(dtype)
    for d in [1, 3, 6, 7, 2]:
        _same(model, exe, {"i": idx, "d": np.array(d, np.int64), "v": np.array([0.5, 3.0], np.float32)})


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")  # onnx.reference, one pixel aligned
@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("r", [2, 3])
def test_affine_grid_run_time_size(align: int, r: int) -> None:
    model = _model(helper.make_node("AffineGrid", ["t", "s"], ["y"], align_corners=align),
                   [_vi("t", F, [2, r, r + 1]), _vi("s", I64, [r + 2])], 1, opset=20)
    exe = lamina.compile(model)
    theta = _data((2, r, r + 1), np.float32)
    for spatial in itertools.product([1, 2, 4], repeat=r):
        _same(model, exe, {"t": theta, "s": _i64(2, 3, *spatial)})


# ------------------------------------------------------------------ windows
@pytest.mark.parametrize("op", ["BlackmanWindow", "HannWindow", "HammingWindow"])
@pytest.mark.parametrize("periodic", [0, 1])
@pytest.mark.parametrize(("out", "elem"), [(1, F), (11, F64)])
def test_windows_run_time_size(op: str, periodic: int, out: int, elem: int) -> None:
    model = _model(helper.make_node(op, ["n"], ["y"], periodic=periodic, output_datatype=out),
                   [_vi("n", I64, [])], [_vi("y", elem, None)], opset=17)
    exe = lamina.compile(model)
    for n in [0, 2, 5, 10, 3, 16] + ([1] if periodic else []):  # (symmetric of 1 point: 0/0)
        _same(model, exe, {"n": np.array(n, np.int64)})
    with pytest.raises(lamina.InputError, match=rf"\({op}, opset 17\): size must be non-negative"):
        exe.run(n=np.array(-1, np.int64))


# ------------------------------------------------------------------ errors
ERRORS = [
    ("Reshape", [_vi("x", F, [2, 3]), _vi("s", I64, [2])], {"x": np.ones((2, 3), np.float32), "s": _i64(5, 2)},
     "must keep the input's element count"),
    ("Reshape", [_vi("x", F, [2, 3]), _vi("s", I64, [2])], {"x": np.ones((2, 3), np.float32), "s": _i64(-1, -1)},
     "at most one -1"),
    ("Reshape", [_vi("x", F, [2, 3]), _vi("s", I64, [2])], {"x": np.ones((2, 3), np.float32), "s": _i64(-2, -3)},
     "no other negative"),
    ("Expand", [_vi("x", F, [3, 1]), _vi("s", I64, [2])], {"x": np.ones((3, 1), np.float32), "s": _i64(4, 2)},
     "does not broadcast"),
    ("Expand", [_vi("x", F, [3, 1]), _vi("s", I64, [2])], {"x": np.ones((3, 1), np.float32), "s": _i64(3, -2)},
     "has a negative dim"),
    ("ConstantOfShape", [_vi("s", I64, [2])], {"s": _i64(2, -1)}, "has a negative dim"),
    ("Tile", [_vi("x", F, [2]), _vi("r", I64, [1])], {"x": np.ones(2, np.float32), "r": _i64(-1)}, "must not be negative"),
    ("Slice", [_vi("x", F, [4]), _vi("b", I64, [1]), _vi("e", I64, [1]), _vi("a", I64, [1]), _vi("s", I64, [1])],
     {"x": np.ones(4, np.float32), "b": _i64(0), "e": _i64(3), "a": _i64(0), "s": _i64(0)}, "no step 0"),
    ("Slice", [_vi("x", F, [4]), _vi("b", I64, [1]), _vi("e", I64, [1]), _vi("a", I64, [1])],
     {"x": np.ones(4, np.float32), "b": _i64(0), "e": _i64(3), "a": _i64(1)}, "distinct and in range"),
    ("Pad", [_vi("x", F, [4]), _vi("p", I64, [2])], {"x": np.ones(4, np.float32), "p": _i64(-3, -2)},
     "crop more than axis 0 holds"),
    ("Range", [_vi("a", F, []), _vi("b", F, []), _vi("c", F, [])],
     {"a": np.array(0, np.float32), "b": np.array(4, np.float32), "c": np.array(0, np.float32)}, "delta is 0"),
    ("Split", [_vi("x", F, [5]), _vi("p", I64, [2])], {"x": np.ones(5, np.float32), "p": _i64(2, 2)},
     "add up to axis 0's size"),
    ("Squeeze", [_vi("x", F, [1, 2]), _vi("a", I64, [1])], {"x": np.ones((1, 2), np.float32), "a": _i64(1)},
     "distinct axes of size 1"),
    ("CenterCropPad", [_vi("x", F, [4]), _vi("s", I64, [1])], {"x": np.ones(4, np.float32), "s": _i64(-1)},
     "negative size for axis 0"),
    ("OneHot", [_vi("i", I64, [2]), _vi("d", I64, []), _vi("v", F, [2])],
     {"i": _i64(0, 1), "d": np.array(0), "v": np.ones(2, np.float32)}, "depth must be positive"),
]


@pytest.mark.parametrize(("op", "inputs", "feeds", "why"), ERRORS, ids=[f"{e[0]}-{e[3][:20]}" for e in ERRORS])
def test_bad_values_stop_the_run_naming_the_node(
    op: str, inputs: list[onnx.ValueInfoProto], feeds: dict[str, np.ndarray], why: str
) -> None:
    """Never a crash or a wrong result: an InputError naming the node, and the
    model still runs good values afterwards."""
    node = helper.make_node(op, [i.name for i in inputs], ["y", "z"][: 2 if op == "Split" else 1], name=f"my_{op}")
    model = _model(node, inputs, 2 if op == "Split" else 1)
    exe = lamina.compile(model)
    with pytest.raises(lamina.InputError, match=rf"the model stopped: ONNX node 'my_{op}' \({op}, opset 18\): .*{why}"):
        exe.run(**feeds)
    good = {"Reshape": {"s": _i64(3, 2)}, "Expand": {"s": _i64(3, 2)}, "ConstantOfShape": {"s": _i64(2, 1)},
            "Tile": {"r": _i64(2)}, "Slice": {"s": _i64(1), "a": _i64(0)}, "Pad": {"p": _i64(1, 2)},
            "Range": {"c": np.array(0.5, np.float32)}, "Split": {"p": _i64(2, 3)}, "Squeeze": {"a": _i64(0)},
            "CenterCropPad": {"s": _i64(6)}, "OneHot": {"d": np.array(3)}}[op]
    _same(model, exe, {**feeds, **{k: v for k, v in good.items() if k in feeds}})


# ------------------------------------------------------------------ capacity
def _expand_model() -> onnx.ModelProto:
    return _model(helper.make_node("Expand", ["x", "s"], ["y"]), [_vi("x", F, [1, 1]), _vi("s", I64, [2])], 1)


def test_capacity_grows_with_the_data_and_shrinking_stays_right() -> None:
    model = _expand_model()
    exe = lamina.compile(model)
    x = np.full((1, 1), 3.0, np.float32)
    assert list(exe._capacity.values()) == [1, 1]
    seen: list[list[int]] = []
    for s in [(2, 3), (5, 4), (1, 1), (7, 2), (0, 9), (3, 3)]:
        _same(model, exe, {"x": x, "s": _i64(*s)})
        seen.append(list(exe._capacity.values()))  # (the sizes of dims 0 and 1, in order)
    # a size that outgrows its capacity takes its value or twice the capacity, the larger
    assert seen == [[2, 3], [5, 6], [5, 6], [10, 6], [10, 12], [10, 12]]


def test_sizes_that_peak_in_different_runs_do_not_multiply() -> None:
    """[n, 1] then [1, n]: each size's capacity is n, but no run plans n * n."""
    exe = lamina.compile(_expand_model())
    x = np.full((1, 1), 2.0, np.float32)
    n = 1 << 20
    for s in [(n, 1), (1, n), (2, 2), (n, 1), (3, 1)]:
        (y,) = exe.run(x=x, s=_i64(*s))
        assert y.shape == s and np.all(y == 2.0)
        assert exe._bytes(exe._local.env) <= 16 * n  # 4n bytes for the output, not 4n^2
    assert sorted(exe._capacity.values()) == [n, n]


def test_more_memory_than_there_is_does_not_poison_the_model() -> None:
    exe = lamina.compile(_expand_model())
    x = np.full((1, 1), 1.0, np.float32)
    exe.run(x=x, s=_i64(2, 3))
    with pytest.raises(lamina.InputError, match="asks for more memory than there is"):
        exe.run(x=x, s=_i64(1 << 48, 1))
    assert sorted(exe._capacity.values()) == [2, 3]
    (y,) = exe.run(x=x, s=_i64(3, 2))
    assert y.shape == (3, 2)


# ------------------------------------------------------------------ export, backend
def test_export_and_load_keep_growing_and_checking(tmp_path: Path) -> None:
    nodes = [helper.make_node("Reshape", ["x", "s"], ["r"], name="rs"), helper.make_node("Range", ["a", "n", "d"], ["y"])]
    model = _model(nodes, [_vi("x", F, [2, 3, 4]), _vi("s", I64, [2]), _vi("a", I64, []), _vi("n", I64, []),
                           _vi("d", I64, [])], [_vi("r", F, None), _vi("y", I64, None)])
    exe = lamina.compile(model)
    exe.export(tmp_path / "m.so")
    loaded = lamina.load(tmp_path / "m.so")
    assert loaded.exits == exe.exits and loaded.bounds == exe.bounds
    assert all(b is None for _, b in loaded.bounds)
    x = _data((2, 3, 4), np.float32)
    for s, (a, n, d) in [((4, 6), (0, 3, 1)), ((24, 1), (10, 0, -2)), ((-1, 2), (0, 40, 3)), ((1, 24), (0, 0, 1))]:
        feeds = {"x": x, "s": _i64(*s), "a": np.array(a), "n": np.array(n), "d": np.array(d)}
        _check(loaded.run(**feeds), ReferenceEvaluator(model).run(None, feeds), feeds)
    assert loaded._capacity["y_range0"] == 14
    with pytest.raises(lamina.InputError, match=r"ONNX node 'rs' \(Reshape, opset 18\): .*element count"):
        loaded.run(x=x, s=_i64(5, 5), a=np.array(0), n=np.array(1), d=np.array(1))
    with pytest.raises(lamina.InputError, match=r"\(Range, opset 18\): delta is 0"):
        loaded.run(x=x, s=_i64(4, 6), a=np.array(0), n=np.array(1), d=np.array(0))


def test_onnx_backend_compiles_once_or_binds_values() -> None:
    node = helper.make_node("Slice", ["x", "b", "e"], ["y"])
    model = _model(node, [_vi("x", F, [6, 4]), _vi("b", I64, [1]), _vi("e", I64, [1])], [_vi("y", F, ["a", 4])])
    x = _data((6, 4), np.float32)
    values = [(0, 3), (-2, 100), (4, 1), (1, 6), (0, 3)]
    rep = onnx_backend.prepare(model)
    for b, e in values:
        (y,) = rep.run([x, _i64(b), _i64(e)])
        np.testing.assert_array_equal(y, x[b:e])
    assert rep.frozen == [] and len(rep._cache) == 1
    rep = onnx_backend.prepare(model, specialize=True)
    for b, e in values:
        (y,) = rep.run([x, _i64(b), _i64(e)])
        np.testing.assert_array_equal(y, x[b:e])
    assert rep.frozen == ["b", "e"] and len(rep._cache) == len(set(values))
