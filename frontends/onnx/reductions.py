"""Reduction converters: the Reduce* family (axes as an attribute or an
input, keepdims, noop_with_empty_axes) and ArgMax/ArgMin (CumSum is in
`algorithm`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerType, Signedness, StringAttr, f64
from xdsl.ir import Attribute, Block, Operation, SSAValue

from lamina.dialects import relay
from lamina.frontends.onnx.context import NodeContext, constant, shape
from lamina.frontends.onnx.control import switch
from lamina.frontends.onnx.helpers import _axis, _cast, _elem, _ints, _rank, _unit
from lamina.frontends.onnx.registry import converter

I64 = IntegerType(64)

# ------------------------------------------------------------- reductions
_REDUCE: dict[str, type[relay.ReduceOp]] = {
    "ReduceSum": relay.SumOp,
    "ReduceMean": relay.MeanOp,
    "ReduceMax": relay.MaxOp,
    "ReduceMin": relay.MinOp,
    "ReduceProd": relay.ProdOp,
    "ReduceLogSumExp": relay.LogSumExpOp,
    "ReduceL1": relay.SumOp,
    "ReduceL2": relay.SumOp,
    "ReduceSumSquare": relay.SumOp,
    "ReduceLogSum": relay.SumOp,
}
_REDUCE_EMITS = {
    "ReduceL1": ("relay.abs", "relay.sum"),
    "ReduceL2": ("relay.multiply", "relay.sum", "relay.sqrt"),
    "ReduceSumSquare": ("relay.multiply", "relay.sum"),
    "ReduceLogSum": ("relay.sum", "relay.log"),
}


def _reduce(ctx: NodeContext) -> Sequence[SSAValue]:
    """Axes are an attribute until opset 13 (ReduceSum) or 18 (the others), then
    an optional input; no axes reduce everything, unless noop_with_empty_axes."""
    kind = ctx.node.op_type
    x = ctx.input(0)
    rank = _rank(x)
    since = 13 if kind == "ReduceSum" else 18
    if ctx.opset >= since:
        given = ctx.optional_input(1)
        if given is not None and shape(given) == (0,):  # no axes, whatever the input
            axes = []
        elif given is not None and ctx.at_run_time(1):
            return [_reduce_runtime_axes(ctx, kind, x, given)]
        else:
            const = ctx.optional_const(1)
            axes = None if const is None else _ints(const)
    else:
        axes = ctx.attr("axes")
    if not axes:
        if ctx.attr("noop_with_empty_axes", 0):
            return [_reduce_elementwise(ctx, kind, x)]
        axes = list(range(rank))
    axes = sorted({_axis(ctx, int(a), rank) for a in axes})
    return [_reduce_static(ctx.emit, kind, x, axes, bool(ctx.attr("keepdims", 1)))]


def _reduce_static(
    emit: Callable[[Operation], SSAValue], kind: str, x: SSAValue, axes: Sequence[int], keep: bool
) -> SSAValue:
    """Reduce* over known axes, its ops placed by `emit`."""

    def cast(v: SSAValue, to: Attribute) -> SSAValue:
        return v if _elem(v) == to else emit(relay.CastOp(v, dtype=to))

    keepdims = _unit(keep)
    if relay.is_bool(_elem(x)) and kind in ("ReduceMax", "ReduceMin"):
        # any / all: reduce the booleans as bytes.
        wide = cast(x, IntegerType(8, Signedness.UNSIGNED))
        y = emit(_REDUCE[kind](wide, axes=relay.i64_array(axes), keepdims=keepdims))
        return cast(y, _elem(x))
    if kind == "ReduceL1":
        x = emit(relay.AbsOp(x))
    elif kind in ("ReduceL2", "ReduceSumSquare"):
        x = emit(relay.MultiplyOp(x, x))
    y = emit(_REDUCE[kind](x, axes=relay.i64_array(axes), keepdims=keepdims))
    if kind == "ReduceLogSum":
        y = emit(relay.LogOp(y))
    elif kind == "ReduceL2":
        elem = _elem(y)
        root = emit(relay.SqrtOp(cast(y, f64 if not relay.is_float(elem) else elem)))
        y = cast(root, elem)
    return y


def _reduce_runtime_axes(ctx: NodeContext, kind: str, x: SSAValue, axes: SSAValue) -> SSAValue:
    """Reduce* over axes known only when the model runs. Their count n is
    static, so the candidates are the n-subsets of the axes: each is reduced in
    its own branch (a `relay.if` chain on the axes' bit mask), padded to one
    bound shape, and the output's dims, which the subset decides, become sizes
    set at run time (`relay.narrow`)."""
    dims = list(shape(x))
    rank, (n,) = len(dims), shape(axes)
    if not all(isinstance(d, int) for d in dims) or not isinstance(n, int) or n > rank:
        raise ctx.error(
            "its axes are a run-time input over a symbolic shape (or more axes than "
            "the rank); make the axes an initializer"
        )
    keep = bool(ctx.attr("keepdims", 1))
    subsets = list(itertools.combinations(range(rank), n))
    out_rank = rank if keep else rank - n

    def out_dims(s: Sequence[int]) -> list[int]:
        return [1 if a in s else d for a, d in enumerate(dims)] if keep else [d for a, d in enumerate(dims) if a not in s]

    bound = [max(out_dims(s)[j] for s in subsets) for j in range(out_rank)]
    # the selector: the axes' bits, negative axes counted from the end
    a = _cast(ctx, axes, I64)
    a = ctx.emit(relay.WhereOp(ctx.emit(relay.LessOp(a, ctx.constant(np.array(0, np.int64)))),
                               ctx.emit(relay.AddOp(a, ctx.constant(np.array(rank, np.int64)))), a))
    bits = ctx.emit(relay.LeftShiftOp(ctx.constant(np.array(1, np.int64)), a))
    mask = ctx.emit(relay.SumOp(bits, axes=relay.i64_array([0])))

    def variant(index: int, block: Block, args: list[SSAValue]) -> list[SSAValue]:
        s = subsets[index]

        def emit(op: Operation) -> SSAValue:
            block.add_op(op)
            return op.results[0]

        y = _reduce_static(emit, kind, args[0], s, keep)
        got = out_dims(s)
        if got != bound:
            widths = [0] * out_rank + [b - g for b, g in zip(bound, got, strict=True)]
            y = emit(relay.PadOp(y, pad_width=relay.i64_array(widths)))
        counts = [constant(None, block, np.array(g, np.int64), "dim") for g in got]
        return [y, *counts]

    cases = [((sum(1 << k for k in s),), i) for i, s in enumerate(subsets)]
    padded, *counts = switch(ctx, mask, cases, [x], variant)
    for j, count in enumerate(counts):
        padded = ctx.emit(
            relay.NarrowOp(padded, count, axis=relay.i64_attr(j), size=StringAttr(ctx.fresh_size("reduced")))
        )
    return padded


def _reduce_elementwise(ctx: NodeContext, kind: str, x: SSAValue) -> SSAValue:
    """A reduction over no axes: only its elementwise steps (as onnx.reference
    computes noop_with_empty_axes)."""
    steps: dict[str, tuple[type[relay.RelayOp], ...]] = {
        "ReduceL1": (relay.AbsOp,),
        "ReduceL2": (relay.AbsOp,),
        "ReduceLogSum": (relay.LogOp,),
        "ReduceLogSumExp": (relay.ExpOp, relay.LogOp),
    }
    if kind == "ReduceSumSquare":
        return ctx.emit(relay.MultiplyOp(x, x))
    for op in steps.get(kind, ()):
        x = ctx.emit(op(x))
    return x


for _name, _cls in _REDUCE.items():
    converter(
        _name,
        emits=_REDUCE_EMITS.get(_name, (_cls.name,)),
        notes="axes as attribute or input, keepdims, noop_with_empty_axes",
    )(_reduce)


@converter("ArgMax", emits=("relay.argmax",), notes="keepdims, select_last_index")
@converter("ArgMin", emits=("relay.argmin",), notes="keepdims, select_last_index")
def _arg_reduce(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    op = relay.ArgMaxOp if ctx.node.op_type == "ArgMax" else relay.ArgMinOp
    axis = _axis(ctx, int(ctx.attr("axis", 0)), _rank(x))
    return [
        ctx.emit(
            op(
                x,
                axis=relay.i64_attr(axis),
                keepdims=_unit(ctx.attr("keepdims", 1)),
                select_last_index=_unit(ctx.attr("select_last_index", 0)),
            )
        )
    ]
