"""Loss converters: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss,
decomposed into one-hot selections and reductions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import _cast, _elem, _rank, _reshape, _zeros_like
from lamina.frontends.onnx.registry import converter


# -------------------------------------------------------------------- losses
def _nll(ctx: NodeContext, logp: SSAValue, target: SSAValue) -> SSAValue:
    """NegativeLogLikelihoodLoss of log-probabilities `logp` [N, C, d...] at
    integer `target` [N, d...], with the node's weight, ignore_index and reduction."""
    s, t = shape(logp), shape(target)
    if len(s) < 2 or t != (s[0], *s[2:]):
        raise ctx.error(f"target {list(t)} does not match input {list(s)}")
    c = s[1]
    reduction = str(ctx.attr("reduction", "mean"))
    if reduction not in ("none", "sum", "mean"):
        raise ctx.unsupported(f'reduction="{reduction}" is not supported')
    iota = np.arange(c).astype(numpy_dtype(_elem(target)))
    iota = ctx.constant(iota.reshape([1, c, *([1] * (len(s) - 2))]), "iota")
    onehot = ctx.emit(relay.EqualOp(_reshape(ctx, target, [s[0], 1, *s[2:]]), iota))
    zero = _zeros_like(ctx, logp)
    picked = ctx.emit(relay.WhereOp(onehot, logp, zero))
    loss = ctx.emit(relay.NegativeOp(ctx.emit(relay.SumOp(picked, axes=relay.i64_array([1])))))
    weight = ctx.optional_input(2)
    w: SSAValue | None = None
    if weight is not None:
        wc = _reshape(ctx, weight, [1, c, *([1] * (len(s) - 2))])
        w = ctx.emit(relay.SumOp(ctx.emit(relay.WhereOp(onehot, wc, zero)), axes=relay.i64_array([1])))
    if ctx.has_attr("ignore_index"):
        ignore = ctx.constant(np.array(int(ctx.attr("ignore_index")), numpy_dtype(_elem(target))))
        keep = _cast(ctx, ctx.emit(relay.NotEqualOp(target, ignore)), _elem(logp))
        w = keep if w is None else ctx.emit(relay.MultiplyOp(w, keep))
    if w is not None:
        loss = ctx.emit(relay.MultiplyOp(loss, w))
    if reduction == "none":
        return loss
    every = relay.i64_array(range(len(t)))
    if reduction == "sum" or (reduction == "mean" and w is not None):
        total = ctx.emit(relay.SumOp(loss, axes=every))
        if reduction == "sum":
            return total
        assert w is not None
        return ctx.emit(relay.DivideOp(total, ctx.emit(relay.SumOp(w, axes=every))))
    return ctx.emit(relay.MeanOp(loss, axes=every))


@converter(
    "NegativeLogLikelihoodLoss",
    emits=("relay.equal", "relay.where", "relay.sum", "relay.mean"),
    notes="weight, ignore_index, every reduction",
)
def _nll_loss(ctx: NodeContext) -> Sequence[SSAValue]:
    return [_nll(ctx, ctx.input(0), ctx.input(1))]


@converter(
    "SoftmaxCrossEntropyLoss",
    emits=("relay.log_softmax", "relay.equal", "relay.where", "relay.sum", "relay.mean"),
    notes="weight, ignore_index, every reduction, log_prob output",
)
def _softmax_ce(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    if _rank(x) < 2:
        raise ctx.error(f"scores must have rank 2 or more, got {list(shape(x))}")
    logp = ctx.emit(relay.LogSoftmaxOp(x, axis=relay.i64_attr(1)))
    loss = _nll(ctx, logp, ctx.input(1))
    return [loss, logp] if ctx.output_used(1) else [loss]
