"""Normalization converters: BatchNormalization (inference and training),
InstanceNormalization, LayerNormalization, LRN, and those decomposed into
reductions (RMSNormalization, MeanVarianceNormalization, LpNormalization,
GroupNormalization).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.frontends.common import layer_norm
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import _axis, _rank, _reshape, _scalar, _zeros_like
from lamina.frontends.onnx.registry import converter


# ----------------------------------------------------------- normalization
@converter(
    "BatchNormalization",
    emits=("relay.batch_norm", "relay.mean"),
    notes="inference; training mode via batch statistics",
)
def _batch_norm(ctx: NodeContext) -> Sequence[SSAValue]:
    """Inference normalizes with the given statistics. Training (training_mode=1
    since opset 14, more than one output before) normalizes with the batch's mean
    and biased variance and also returns the updated running statistics (and,
    before opset 14, the batch's own)."""
    if ctx.opset < 9 and not ctx.attr("spatial", 1):
        raise ctx.unsupported("spatial=0 is not supported")
    x, scale, bias, mean, var = (ctx.input(i) for i in range(5))
    eps = relay.f64_attr(float(ctx.attr("epsilon", 1e-5)))
    training = (
        bool(ctx.attr("training_mode", 0))
        if ctx.opset >= 14
        else any(ctx.output_used(i) for i in range(1, ctx.num_outputs))
    )
    if not training:
        return [ctx.emit(relay.BatchNormOp(x, scale, bias, mean, var, epsilon=eps))]
    axes = relay.i64_array([a for a in range(_rank(x)) if a != 1])
    channels = [shape(x)[1]]
    batch_mean = ctx.emit(relay.MeanOp(x, axes=axes, keepdims=UnitAttr()))
    centered = ctx.emit(relay.SubtractOp(x, batch_mean))
    squares = ctx.emit(relay.MultiplyOp(centered, centered))
    batch_var = _reshape(ctx, ctx.emit(relay.MeanOp(squares, axes=axes)), channels)
    batch_mean = _reshape(ctx, batch_mean, channels)
    y = ctx.emit(relay.BatchNormOp(x, scale, bias, batch_mean, batch_var, epsilon=eps))
    momentum = float(ctx.attr("momentum", 0.9))

    def running(stat: SSAValue, batch: SSAValue) -> SSAValue:
        old = ctx.emit(relay.MultiplyOp(stat, _scalar(ctx, momentum, stat)))
        new = ctx.emit(relay.MultiplyOp(batch, _scalar(ctx, 1 - momentum, batch)))
        return ctx.emit(relay.AddOp(old, new))

    return [y, running(mean, batch_mean), running(var, batch_var), batch_mean, batch_var]


@converter("InstanceNormalization", emits=("relay.instance_norm",))
def _instance_norm(ctx: NodeContext) -> Sequence[SSAValue]:
    eps = relay.f64_attr(float(ctx.attr("epsilon", 1e-5)))
    ins = [ctx.input(i) for i in range(3)]
    return [ctx.emit(relay.InstanceNormOp(*ins, epsilon=eps))]


@converter(
    "LayerNormalization",
    emits=("relay.layer_norm", "relay.mean", "relay.rsqrt"),
    notes="Mean and InvStdDev outputs via reductions",
)
def _layer_norm(ctx: NodeContext) -> Sequence[SSAValue]:
    x, scale, bias = ctx.input(0), ctx.input(1), ctx.optional_input(2)
    rank = _rank(x)
    axis = _axis(ctx, int(ctx.attr("axis", -1)), rank)
    eps = float(ctx.attr("epsilon", 1e-5))
    stats = ctx.output_used(1) or ctx.output_used(2)
    return layer_norm(ctx, x, scale, bias, axis, eps, stats=stats)


@converter("LRN", emits=("relay.lrn",))
def _lrn(ctx: NodeContext) -> Sequence[SSAValue]:
    size, alpha = int(ctx.attr("size")), float(ctx.attr("alpha", 1e-4))
    channels = shape(ctx.input(0))[1] if len(shape(ctx.input(0))) > 1 else 1
    if size > 2 * channels - 1 > 0:
        # Every window already covers all channels: the same sums with a window of
        # 2C-1 (the kernel loops over the window; size can be any int64).
        alpha *= (2 * channels - 1) / size
        size = 2 * channels - 1
    return [
        ctx.emit(
            relay.LRNOp(
                ctx.input(0),
                size=relay.i64_attr(size),
                alpha=relay.f64_attr(alpha),
                beta=relay.f64_attr(float(ctx.attr("beta", 0.75))),
                bias=relay.f64_attr(float(ctx.attr("bias", 1.0))),
            )
        )
    ]


# --------------------------------------------------- decomposed normalizations
@converter("RMSNormalization", emits=("relay.mean", "relay.rsqrt", "relay.multiply"))
def _rms_norm(ctx: NodeContext) -> Sequence[SSAValue]:
    x, scale = ctx.input(0), ctx.input(1)
    rank = _rank(x)
    axis = _axis(ctx, int(ctx.attr("axis", -1)), rank)
    eps = float(ctx.attr("epsilon", 1e-5))
    if int(ctx.attr("stash_type", 1)) != 1:
        raise ctx.unsupported("stash_type other than 1 (float) is not supported")
    axes = relay.i64_array(range(axis, rank))
    sq = ctx.emit(relay.MeanOp(ctx.emit(relay.MultiplyOp(x, x)), axes=axes, keepdims=UnitAttr()))
    rms = ctx.emit(relay.SqrtOp(ctx.emit(relay.AddOp(sq, _scalar(ctx, eps, sq)))))
    y = ctx.emit(relay.MultiplyOp(x, ctx.emit(relay.ReciprocalOp(rms))))
    return [ctx.emit(relay.MultiplyOp(y, scale))]


@converter("MeanVarianceNormalization", emits=("relay.mean", "relay.sqrt", "relay.divide"))
def _mvn(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    rank = _rank(x)
    axes_list = sorted(_axis(ctx, int(a), rank) for a in ctx.attr("axes", [0, 2, 3]))
    axes = relay.i64_array(axes_list)
    mean = ctx.emit(relay.MeanOp(x, axes=axes, keepdims=UnitAttr()))
    ex2 = ctx.emit(relay.MeanOp(ctx.emit(relay.MultiplyOp(x, x)), axes=axes, keepdims=UnitAttr()))
    var = ctx.emit(relay.SubtractOp(ex2, ctx.emit(relay.MultiplyOp(mean, mean))))
    std = ctx.emit(relay.AddOp(ctx.emit(relay.SqrtOp(var)), _scalar(ctx, 1e-9, var)))
    return [ctx.emit(relay.DivideOp(ctx.emit(relay.SubtractOp(x, mean)), std))]


@converter("LpNormalization", emits=("relay.sum", "relay.divide", "relay.where"), notes="p=1, 2")
def _lp_norm(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    axis = _axis(ctx, int(ctx.attr("axis", -1)), _rank(x))
    p = int(ctx.attr("p", 2))
    if p not in (1, 2):
        raise ctx.unsupported(f"p={p} is not supported (1 and 2 are)")
    axes = relay.i64_array([axis])
    if p == 1:
        norm = ctx.emit(relay.SumOp(ctx.emit(relay.AbsOp(x)), axes=axes, keepdims=UnitAttr()))
    else:
        sq = ctx.emit(relay.SumOp(ctx.emit(relay.MultiplyOp(x, x)), axes=axes, keepdims=UnitAttr()))
        norm = ctx.emit(relay.SqrtOp(sq))
    zero = _zeros_like(ctx, x)
    is_zero = ctx.emit(relay.EqualOp(norm, zero))
    return [ctx.emit(relay.WhereOp(is_zero, zero, ctx.emit(relay.DivideOp(x, norm))))]


@converter(
    "GroupNormalization",
    emits=("relay.mean", "relay.sqrt", "relay.divide"),
    notes="per-group (opset 18) and per-channel scale",
)
def _group_norm(ctx: NodeContext) -> Sequence[SSAValue]:
    x, scale, bias = ctx.input(0), ctx.input(1), ctx.input(2)
    s = shape(x)
    groups = int(ctx.attr("num_groups"))
    eps = float(ctx.attr("epsilon", 1e-5))
    if len(s) < 2 or s[1] % groups:
        raise ctx.error(f"{groups} groups do not divide the channels of {list(s)}")
    c = s[1]
    g = _reshape(ctx, x, [s[0], groups, math.prod(s[1:]) // groups])
    axes = relay.i64_array([2])
    mean = ctx.emit(relay.MeanOp(g, axes=axes, keepdims=UnitAttr()))
    centered = ctx.emit(relay.SubtractOp(g, mean))
    var = ctx.emit(
        relay.MeanOp(ctx.emit(relay.MultiplyOp(centered, centered)), axes=axes, keepdims=UnitAttr())
    )
    std = ctx.emit(relay.SqrtOp(ctx.emit(relay.AddOp(var, _scalar(ctx, eps, var)))))
    y = _reshape(ctx, ctx.emit(relay.DivideOp(centered, std)), s)

    def per_channel(p: SSAValue) -> SSAValue:
        n = shape(p)[0]
        if n != c:  # one value per group
            p = _reshape(ctx, p, [n, 1])
            p = ctx.emit(relay.BroadcastToOp(p, shape=relay.i64_array([n, c // n])))
        return _reshape(ctx, p, [c, *([1] * (len(s) - 2))])

    y = ctx.emit(relay.MultiplyOp(per_channel(scale), y))
    return [ctx.emit(relay.AddOp(y, per_channel(bias)))]
