"""Converters of ops with extern kernels (`lamina.dialects.relay.algorithm`):
ScatterND, ScatterElements (and its old name Scatter), TopK, CumSum, CumProd."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerType, StringAttr
from xdsl.ir import Block, SSAValue

from lamina.dialects import relay
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.control import switch
from lamina.frontends.onnx.dynamic import topk_runtime_k
from lamina.frontends.onnx.helpers import _axis, _cast, _ints, _rank, _reshape, _unit
from lamina.frontends.onnx.registry import converter


def _reduction(ctx: NodeContext) -> StringAttr | None:
    reduction = ctx.attr("reduction", "none")
    reduction = reduction.decode() if isinstance(reduction, bytes) else str(reduction)
    if reduction not in relay.SCATTER_REDUCTIONS:
        raise ctx.error(
            f'reduction="{reduction}" is not one of {", ".join(relay.SCATTER_REDUCTIONS)}'
        )
    return None if reduction == "none" else StringAttr(reduction)


@converter("ScatterND", emits=("relay.scatter_nd",), notes="reduction, negative indices")
def _scatter_nd(ctx: NodeContext) -> Sequence[SSAValue]:
    data, indices, updates = ctx.input(0), ctx.input(1), ctx.input(2)
    return [ctx.emit(relay.ScatterNDOp(data, indices, updates, reduction=_reduction(ctx)))]


@converter(
    "ScatterElements", "Scatter", emits=("relay.scatter_elements",), notes="reduction, negative indices"
)
def _scatter_elements(ctx: NodeContext) -> Sequence[SSAValue]:
    data, indices, updates = ctx.input(0), ctx.input(1), ctx.input(2)
    axis = _axis(ctx, int(ctx.attr("axis", 0)), _rank(data))
    op = relay.ScatterElementsOp(
        data, indices, updates, axis=relay.i64_attr(axis), reduction=_reduction(ctx)
    )
    return [ctx.emit(op)]


@converter("TopK", emits=("relay.topk",), notes="largest, sorted (always sorted); k at run time over a static axis")
def _topk(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    rank = _rank(x)
    axis = _axis(ctx, int(ctx.attr("axis", -1)), rank)
    largest = _unit(ctx.attr("largest", 1))
    if ctx.opset >= 10 and not ctx.is_const(1):
        return topk_runtime_k(ctx, x, axis, largest)
    k = _ints(ctx.const_value(1))[0] if ctx.opset >= 10 else int(ctx.attr("k"))
    if not 0 <= k <= shape(x)[axis]:
        raise ctx.error(f"k = {k} is outside 0..{shape(x)[axis]} (the size of axis {axis})")
    op = relay.TopKOp(x, k=relay.i64_attr(k), axis=relay.i64_attr(axis), largest=largest)
    ctx.emit(op)
    return list(op.results)


def _cumulative(ctx: NodeContext, kind: str) -> Sequence[SSAValue]:
    x = ctx.input(0)
    rank = _rank(x)

    def scan(axis: int, block: Block | None = None, args: Sequence[SSAValue] = ()) -> SSAValue:
        op = relay.CumulativeOp(
            args[0] if block is not None else x,
            axis=relay.i64_attr(axis),
            kind=StringAttr(kind),
            exclusive=_unit(ctx.attr("exclusive", 0)),
            reverse=_unit(ctx.attr("reverse", 0)),
        )
        if block is None:
            return ctx.emit(op)
        block.add_op(op)
        return op.output

    if ctx.is_const(1):
        return [scan(_axis(ctx, _ints(ctx.const_value(1))[0], rank))]
    # The axis is a run-time value: one scan per axis, chosen when it runs.
    axis = _cast(ctx, _reshape(ctx, ctx.input(1), []), IntegerType(64))
    cases = [((a, a - rank), a) for a in range(rank)]
    return switch(ctx, axis, cases, [x], lambda a, block, args: [scan(a, block, args)])


@converter("CumSum", emits=("relay.cumulative",), notes="exclusive, reverse")
def _cumsum(ctx: NodeContext) -> Sequence[SSAValue]:
    return _cumulative(ctx, "sum")


@converter("CumProd", emits=("relay.cumulative",), notes="exclusive, reverse")
def _cumprod(ctx: NodeContext) -> Sequence[SSAValue]:
    return _cumulative(ctx, "prod")
