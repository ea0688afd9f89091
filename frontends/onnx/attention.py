"""The Attention converter (opset 23): scaled dot-product attention as
graph ops, with masks, causal and sliding windows, grouped-query heads, softcap
and past key/value caches."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerType, UnitAttr
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import (
    _cast,
    _dtype,
    _elem,
    _rank,
    _reshape,
    _scalar,
    _zeros_like,
)
from lamina.frontends.onnx.registry import converter


# ---------------------------------------------------------------- attention
def _repeat_heads(ctx: NodeContext, x: SSAValue, reps: int) -> SSAValue:
    """np.repeat(x, reps, axis=1) of a [b, h, s, d] tensor."""
    if reps == 1:
        return x
    b, h, s, d = shape(x)
    x = _reshape(ctx, x, [b, h, 1, s, d])
    x = ctx.emit(relay.BroadcastToOp(x, shape=relay.i64_array([b, h, reps, s, d])))
    return _reshape(ctx, x, [b, h * reps, s, d])


def _mask_bias(ctx: NodeContext, mask: SSAValue, like: SSAValue) -> SSAValue:
    """A boolean mask as an additive bias (0 where true, -inf where false)."""
    if _elem(mask) != IntegerType(1):
        return mask
    return ctx.emit(
        relay.WhereOp(mask, _zeros_like(ctx, like), _scalar(ctx, -np.inf, like))
    )


@converter(
    "Attention",
    emits=(
        "relay.matmul",
        "relay.transpose",
        "relay.reshape",
        "relay.softmax",
        "relay.where",
        "relay.concatenate",
    ),
    notes="3-D/4-D, masks, causal, sliding windows, GQA, softcap, past KV, "
    "qk_matmul_output_mode 0-3; no nonpad_kv_seqlen",
)
def _attention(ctx: NodeContext) -> Sequence[SSAValue]:
    q, k, v = ctx.input(0), ctx.input(1), ctx.input(2)
    mask = ctx.optional_input(3)
    past_k, past_v = ctx.optional_input(4), ctx.optional_input(5)
    if ctx.optional_input(6) is not None:
        raise ctx.unsupported("nonpad_kv_seqlen is not supported")
    left, right = int(ctx.attr("left_window_size", -1)), int(ctx.attr("right_window_size", -1))
    if left < -1 or right < -1:
        raise ctx.error("left_window_size and right_window_size must be -1 or nonnegative")
    if (past_k is None) != (past_v is None):
        raise ctx.error("past_key and past_value must be given together")
    rank = _rank(q)
    if rank not in (3, 4) or _rank(k) != rank or _rank(v) != rank:
        raise ctx.unsupported("Q, K and V must all be 3-D or all 4-D")
    if rank == 3:
        if not (ctx.has_attr("q_num_heads") and ctx.has_attr("kv_num_heads")):
            raise ctx.error("3-D inputs need q_num_heads and kv_num_heads")
        qh, kvh = int(ctx.attr("q_num_heads")), int(ctx.attr("kv_num_heads"))

        def heads(x: SSAValue, n: int) -> SSAValue:
            b, s, hidden = shape(x)
            x = _reshape(ctx, x, [b, s, n, hidden // n])
            return ctx.emit(relay.TransposeOp(x, perm=relay.i64_array([0, 2, 1, 3])))

        q, k, v = heads(q, qh), heads(k, kvh), heads(v, kvh)
    qh, kvh = shape(q)[1], shape(k)[1]
    if shape(v)[1] != kvh or qh % kvh:
        raise ctx.unsupported(f"{qh} query heads do not group over {kvh} key/value heads")
    scale = ctx.attr("scale")
    scale = 1 / math.sqrt(shape(q)[3]) if scale is None else float(scale)
    sc = _scalar(ctx, math.sqrt(scale), q)

    if past_k is not None and past_v is not None:
        k = ctx.emit(relay.ConcatenateOp(past_k, k, axis=relay.i64_attr(2)))
        v = ctx.emit(relay.ConcatenateOp(past_v, v, axis=relay.i64_attr(2)))
    present_k, present_v = k, v
    q_len, kv_len = shape(q)[2], shape(k)[2]
    past_len = shape(past_k)[2] if past_k is not None else 0

    # The additive bias, and whether any of its rows may be fully masked.
    bias: SSAValue | None = None
    may_mask_rows = False
    if mask is not None:
        pad = kv_len - shape(mask)[-1]
        if pad > 0:
            dtype = numpy_dtype(_elem(mask))
            fill = False if dtype == np.bool_ else -np.inf
            value = np.full([*shape(mask)[:-1], pad], fill, dtype)
            last = relay.i64_attr(_rank(mask) - 1)
            mask = ctx.emit(relay.ConcatenateOp(mask, ctx.constant(value, "pad"), axis=last))
        bias = _mask_bias(ctx, mask, q)
        may_mask_rows = True
    if int(ctx.attr("is_causal", 0)):
        i = np.arange(q_len).reshape(q_len, 1)
        j = np.arange(kv_len).reshape(1, kv_len)
        dtype = numpy_dtype(_elem(q))
        causal = np.where(j <= i + past_len, dtype.type(0), dtype.type(-np.inf)).astype(dtype)
        may_mask_rows |= bool(np.isneginf(causal.max(axis=-1)).any())
        c = ctx.constant(causal, "causal")
        bias = c if bias is None else ctx.emit(relay.AddOp(bias, c))

    if left >= 0 or right >= 0:  # a sliding window around each query's position
        diff = np.arange(q_len).reshape(q_len, 1) + past_len - np.arange(kv_len).reshape(1, kv_len)
        allowed = np.ones_like(diff, dtype=np.bool_)
        if left >= 0:
            allowed &= diff <= left
        if right >= 0:
            allowed &= -diff <= right
        dtype = numpy_dtype(_elem(q))
        window = np.where(allowed, dtype.type(0), dtype.type(-np.inf)).astype(dtype)
        may_mask_rows = True
        c = ctx.constant(window, "window")
        bias = c if bias is None else ctx.emit(relay.AddOp(bias, c))

    k = _repeat_heads(ctx, k, qh // kvh)
    v = _repeat_heads(ctx, v, qh // kvh)
    kt = ctx.emit(relay.TransposeOp(k, perm=relay.i64_array([0, 1, 3, 2])))
    qk = ctx.emit(
        relay.MatmulOp(ctx.emit(relay.MultiplyOp(q, sc)), ctx.emit(relay.MultiplyOp(kt, sc)))
    )
    softcap = float(ctx.attr("softcap", 0.0))
    if softcap > 0:
        cap = _scalar(ctx, softcap, qk)
        qk = ctx.emit(relay.TanhOp(ctx.emit(relay.DivideOp(qk, cap))))
        qk = ctx.emit(relay.MultiplyOp(qk, cap))
    with_bias = qk if bias is None else ctx.emit(relay.AddOp(qk, bias))
    mode = int(ctx.attr("qk_matmul_output_mode", 0))
    if mode not in (0, 1, 2, 3):
        raise ctx.unsupported(f"qk_matmul_output_mode={mode} is not supported")
    logits = with_bias
    if ctx.has_attr("softmax_precision"):
        logits = _cast(ctx, logits, _dtype(ctx, int(ctx.attr("softmax_precision"))))
    probs = ctx.emit(relay.SoftmaxOp(logits, axis=relay.i64_attr(3)))
    if bias is not None and may_mask_rows:
        last = relay.i64_array([_rank(bias) - 1])
        row_max = ctx.emit(relay.MaxOp(bias, axes=last, keepdims=UnitAttr()))
        dead = ctx.emit(relay.EqualOp(row_max, _scalar(ctx, -np.inf, bias)))
        probs = ctx.emit(relay.WhereOp(dead, _zeros_like(ctx, probs), probs))
    qk_out = {0: qk, 1: qk, 2: with_bias, 3: probs}[mode]
    probs = _cast(ctx, probs, _elem(q))
    qk_out = _cast(ctx, qk_out, _elem(q))
    y = ctx.emit(relay.MatmulOp(probs, v))
    if rank == 3:
        y = ctx.emit(relay.TransposeOp(y, perm=relay.i64_array([0, 2, 1, 3])))
        b, s, h, d = shape(y)
        y = _reshape(ctx, y, [b, s, h * d])
    return [y, present_k, present_v, qk_out][: max(1, len(ctx.node.output))]
