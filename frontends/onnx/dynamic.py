"""Converters of ops whose output size depends on the data
(`lamina.dialects.relay.dynamic`): NonZero, NonMaxSuppression, Compress,
Unique, and TopK with a run-time `k`. Each output's data-dependent dim is a new
size (`ctx.fresh_size`), set from the count its producer computes
(`relay.narrow`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerType, StringAttr, UnitAttr
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import _axis, _cast, _elem, _rank, _reshape, _unit
from lamina.frontends.onnx.registry import converter
from lamina.symbolic import Dim, Sym

I64 = IntegerType(64)


def _narrow(ctx: NodeContext, size: str, count: SSAValue, axis: int, *values: SSAValue) -> list[SSAValue]:
    return [
        ctx.emit(relay.NarrowOp(v, count, axis=relay.i64_attr(axis), size=StringAttr(size)))
        for v in values
    ]


def _nonzero(ctx: NodeContext, x: SSAValue, hint: str) -> SSAValue:
    """`[rank, nz]` indices of `x`'s nonzero elements."""
    scalar = _rank(x) == 0
    if scalar:
        x = _reshape(ctx, x, [1])
    indices, count = ctx.emit_all(relay.NonZeroOp(x))
    if scalar:  # a scalar has no coordinates: [0, nz], as ONNX says
        indices = ctx.emit(
            relay.StridedSliceOp(indices, begin=relay.i64_array([0, 0]), end=relay.i64_array([0, 1]))
        )
    return _narrow(ctx, ctx.fresh_size(hint), count, 1, indices)[0]


@converter("NonZero", emits=("relay.nonzero", "relay.narrow"), notes="output size set at run time")
def _nonzero_op(ctx: NodeContext) -> Sequence[SSAValue]:
    return [_nonzero(ctx, ctx.input(0), "nonzero")]


@converter(
    "Compress",
    emits=("relay.nonzero", "relay.narrow", "relay.take"),
    notes="output size set at run time",
)
def _compress(ctx: NodeContext) -> Sequence[SSAValue]:
    x, condition = ctx.input(0), ctx.input(1)
    if ctx.has_attr("axis"):
        axis = _axis(ctx, int(ctx.attr("axis")), _rank(x))
    else:
        x, axis = _reshape(ctx, x, [_numel(shape(x))]), 0
    if _rank(condition) != 1:
        raise ctx.error(f"condition must be 1-D, got shape {list(shape(condition))}")
    length, extent = shape(condition)[0], shape(x)[axis]
    if isinstance(length, int) and isinstance(extent, int) and length > extent:
        # numpy keeps at most the axis' worth; entries beyond it select nothing
        condition = ctx.emit(
            relay.StridedSliceOp(condition, begin=relay.i64_array([0]), end=relay.i64_array([extent]))
        )
    where = _nonzero(ctx, _cast(ctx, condition, IntegerType(1)), "compressed")
    (count,) = shape(where)[1:]
    indices = _reshape(ctx, where, [count])
    return [ctx.emit(relay.TakeOp(x, indices, axis=relay.i64_attr(axis)))]


@converter(
    "NonMaxSuppression",
    emits=("relay.non_max_suppression", "relay.narrow"),
    notes="output size set at run time",
)
def _non_max_suppression(ctx: NodeContext) -> Sequence[SSAValue]:
    boxes, scores = ctx.input(0), ctx.input(1)
    ftype = numpy_dtype(_elem(boxes))
    max_output = ctx.optional_input(2) or ctx.constant(np.array(0, np.int64))
    iou = ctx.optional_input(3) or ctx.constant(np.array(0.0, ftype))
    score_in = ctx.optional_input(4)  # none: every box is a candidate
    score = score_in or ctx.constant(np.array(0.0, ftype))
    op = relay.NonMaxSuppressionOp(
        boxes,
        scores,
        max_output,
        _cast(ctx, iou, _elem(boxes)),
        _cast(ctx, score, _elem(boxes)),
        center_point_box=_unit(int(ctx.attr("center_point_box", 0))),
        unfiltered=_unit(score_in is None),
    )
    selected, count = ctx.emit_all(op)
    return _narrow(ctx, ctx.fresh_size("selected"), count, 0, selected)


@converter("Unique", emits=("relay.unique", "relay.narrow"), notes="output size set at run time")
def _unique(ctx: NodeContext) -> Sequence[SSAValue]:
    """Elements (no axis) or slices along an axis, as the rows of a 2-D tensor."""
    x = ctx.input(0)
    dims = list(shape(x))
    if ctx.has_attr("axis"):
        axis = _axis(ctx, int(ctx.attr("axis")), len(dims))
        order = [axis, *(a for a in range(len(dims)) if a != axis)]
        if order != sorted(order):
            x = ctx.emit(relay.TransposeOp(x, perm=relay.i64_array(order)))
        rest = [dims[a] for a in order[1:]]
    else:
        axis, order, rest = 0, [0], []
    m = 1
    for d in rest:
        m = m * d
    rows = _reshape(ctx, x, [shape(x)[0] if ctx.has_attr("axis") else _numel(dims), m])
    op = relay.UniqueOp(rows, sorted=_unit(int(ctx.attr("sorted", 1))))
    values, first, inverse, counts, count = ctx.emit_all(op)
    y, first, counts = _narrow(ctx, ctx.fresh_size("unique"), count, 0, values, first, counts)
    y = _reshape(ctx, y, [shape(y)[0], *rest])
    if order != sorted(order):
        back = [order.index(a) for a in range(len(order))]
        y = ctx.emit(relay.TransposeOp(y, perm=relay.i64_array(back)))
    return [y, first, inverse, counts][: ctx.num_outputs]


def _numel(dims: Sequence[Dim]) -> Dim:
    n: Dim = 1
    for d in dims:
        n = n * d
    return n


def topk_runtime_k(ctx: NodeContext, x: SSAValue, axis: int, largest: UnitAttr | None) -> list[SSAValue]:
    """TopK whose `k` is known only at run time: the whole axis sorted, then
    its first `k` entries (a size set from `k`)."""
    n = shape(x)[axis]
    if isinstance(n, Sym):
        raise ctx.error(
            f"k is a run-time value and axis {axis} has the symbolic size {n}: "
            "make k a constant, or fix the size with input_shapes="
        )
    op = relay.TopKOp(x, k=relay.i64_attr(n), axis=relay.i64_attr(axis), largest=largest)
    values, indices = ctx.emit_all(op)
    k = _cast(ctx, _reshape(ctx, ctx.input(1), []), I64)
    return _narrow(ctx, ctx.fresh_size("k"), k, axis, values, indices)
