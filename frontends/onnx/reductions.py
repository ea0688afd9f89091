"""Reduction converters: the Reduce* family (axes as an attribute or an
input, keepdims, noop_with_empty_axes) and ArgMax/ArgMin (CumSum is in
`algorithm`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerType, Signedness, f64
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.frontends.onnx.context import NodeContext
from lamina.frontends.onnx.helpers import _axis, _cast, _elem, _ints, _rank, _unit
from lamina.frontends.onnx.registry import converter

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
        given = ctx.optional_const(1)
        axes = None if given is None else _ints(given)
    else:
        axes = ctx.attr("axes")
    if not axes:
        if ctx.attr("noop_with_empty_axes", 0):
            return [_reduce_elementwise(ctx, kind, x)]
        axes = list(range(rank))
    axes = sorted({_axis(ctx, int(a), rank) for a in axes})
    keep = _unit(ctx.attr("keepdims", 1))
    if relay.is_bool(_elem(x)) and kind in ("ReduceMax", "ReduceMin"):
        # any / all: reduce the booleans as bytes.
        wide = _cast(ctx, x, IntegerType(8, Signedness.UNSIGNED))
        y = ctx.emit(_REDUCE[kind](wide, axes=relay.i64_array(axes), keepdims=keep))
        return [_cast(ctx, y, _elem(x))]
    if kind == "ReduceL1":
        x = ctx.emit(relay.AbsOp(x))
    elif kind in ("ReduceL2", "ReduceSumSquare"):
        x = ctx.emit(relay.MultiplyOp(x, x))
    y = ctx.emit(_REDUCE[kind](x, axes=relay.i64_array(axes), keepdims=keep))
    if kind == "ReduceLogSum":
        y = ctx.emit(relay.LogOp(y))
    elif kind == "ReduceL2":
        elem = _elem(y)
        root = ctx.emit(relay.SqrtOp(_cast(ctx, y, f64 if not relay.is_float(elem) else elem)))
        y = _cast(ctx, root, elem)
    return [y]


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
