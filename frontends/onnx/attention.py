"""The converters of transformer attention blocks, as graph ops: Attention
(scaled dot-product attention with masks, causal and sliding windows,
grouped-query heads, softcap, past key/value caches and an external cache's
run-time lengths), RotaryEmbedding and TensorScatter (a KV cache's update at
run-time write positions)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerType, UnitAttr
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.shapes import dims_attr
from lamina.frontends import common
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import (
    _axis,
    _cast,
    _dtype,
    _elem,
    _rank,
    _reshape,
    _scalar,
    _zeros_like,
)
from lamina.frontends.onnx.registry import converter
from lamina.symbolic import Dim

I64 = IntegerType(64)


# ------------------------------------------------------------------ helpers
positions = common.positions


def dim_scalar(ctx: NodeContext, d: Dim) -> SSAValue:
    """The size `d` as an i64 scalar tensor (computed when the model runs if symbolic)."""
    if isinstance(d, int):
        return ctx.constant(np.array(d, np.int64), "size")
    return _reshape(ctx, ctx.emit(relay.DimsOp(dims=dims_attr([d]))), [])


def static_differ(a: Sequence[Dim], b: Sequence[Dim]) -> bool:
    """Whether two shapes differ in rank or in a dim both know statically."""
    return len(a) != len(b) or any(
        x != y for x, y in zip(a, b, strict=True) if isinstance(x, int) and isinstance(y, int)
    )


def _along(rank: int, axis: int, n: Dim) -> list[Dim]:
    """The shape of a vector of `n` laid along `axis` of a rank-`rank` tensor."""
    return [n if a == axis else 1 for a in range(rank)]


def _slice(ctx: NodeContext, x: SSAValue, begin: int, end: int, step: int = 1) -> SSAValue:
    """`x[..., begin:end:step]` (the last axis)."""
    dims = shape(x)
    if (begin, end, step) == (0, dims[-1], 1):
        return x
    n = len(dims)
    return ctx.emit(
        relay.StridedSliceOp(
            x,
            begin=dims_attr([*([0] * (n - 1)), begin]),
            end=dims_attr([*dims[:-1], end]),
            strides=relay.i64_array([*([1] * (n - 1)), step]),
        )
    )


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


def _external_cache_bias(
    ctx: NodeContext,
    lengths: SSAValue,
    q: SSAValue,
    kv_len: Dim,
    causal: bool,
    left: int,
    right: int,
) -> SSAValue:
    """The additive bias `[batch, 1, q, kv]` of an external (static) KV cache
    whose batch entry `b` holds `lengths[b]` valid keys, a run-time value: the
    keys past them are masked, and a causal mask or sliding window is aligned to
    each entry's end (query `i` sits at position `lengths[b] - q_len + i`). A
    row left without keys is zeroed by the caller's fully-masked-row guard."""
    batch, q_len = shape(q)[0], shape(q)[2]
    n = shape(lengths)
    if len(n) != 1 or (isinstance(n[0], int) and isinstance(batch, int) and n[0] != batch):
        raise ctx.error(
            f"nonpad_kv_seqlen must have shape [{batch}] (one length per batch entry), got {list(n)}"
        )
    count = _reshape(ctx, _cast(ctx, lengths, I64), [batch, 1, 1, 1])
    key = _reshape(ctx, positions(ctx, kv_len), [1, 1, 1, kv_len])
    allowed = ctx.emit(relay.LessOp(key, count))
    if causal or left >= 0 or right >= 0:
        first = ctx.emit(relay.SubtractOp(count, dim_scalar(ctx, q_len)))
        query = _reshape(ctx, positions(ctx, q_len), [1, 1, q_len, 1])
        at = ctx.emit(relay.AddOp(query, first))  # each query's position in the cache
        bounds: list[SSAValue] = []
        if causal:
            bounds.append(ctx.emit(relay.LessEqualOp(key, at)))
        if left >= 0:
            lo = ctx.emit(relay.SubtractOp(at, ctx.constant(np.array(left, np.int64), "left")))
            bounds.append(ctx.emit(relay.GreaterEqualOp(key, lo)))
        if right >= 0:
            hi = ctx.emit(relay.AddOp(at, ctx.constant(np.array(right, np.int64), "right")))
            bounds.append(ctx.emit(relay.LessEqualOp(key, hi)))
        for b in bounds:
            allowed = ctx.emit(relay.LogicalAndOp(allowed, b))
    return _mask_bias(ctx, allowed, q)


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
    "qk_matmul_output_mode 0-3, nonpad_kv_seqlen (run-time lengths of an external cache)",
)
def _attention(ctx: NodeContext) -> Sequence[SSAValue]:
    q, k, v = ctx.input(0), ctx.input(1), ctx.input(2)
    mask = ctx.optional_input(3)
    past_k, past_v = ctx.optional_input(4), ctx.optional_input(5)
    lengths = ctx.optional_input(6)
    left, right = int(ctx.attr("left_window_size", -1)), int(ctx.attr("right_window_size", -1))
    if left < -1 or right < -1:
        raise ctx.error("left_window_size and right_window_size must be -1 or nonnegative")
    if (past_k is None) != (past_v is None):
        raise ctx.error("past_key and past_value must be given together")
    if lengths is not None and past_k is not None:
        raise ctx.error(
            "nonpad_kv_seqlen describes an external cache (K and V hold it whole) and "
            "cannot be combined with past_key and past_value"
        )
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
    causal = bool(int(ctx.attr("is_causal", 0)))
    if lengths is not None:  # causal and window masks aligned per batch entry
        c = _external_cache_bias(ctx, lengths, q, kv_len, causal, left, right)
        may_mask_rows = True
        bias = c if bias is None else ctx.emit(relay.AddOp(bias, c))
    elif causal:
        i = np.arange(q_len).reshape(q_len, 1)
        j = np.arange(kv_len).reshape(1, kv_len)
        dtype = numpy_dtype(_elem(q))
        causal = np.where(j <= i + past_len, dtype.type(0), dtype.type(-np.inf)).astype(dtype)
        may_mask_rows |= bool(np.isneginf(causal.max(axis=-1)).any())
        c = ctx.constant(causal, "causal")
        bias = c if bias is None else ctx.emit(relay.AddOp(bias, c))

    if lengths is None and (left >= 0 or right >= 0):  # a window around each query
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


# ------------------------------------------------------- rotary embedding
@converter(
    "RotaryEmbedding",
    emits=("relay.take", "relay.strided_slice", "relay.multiply", "relay.concatenate"),
    notes="3-D and 4-D input, interleaved, partial rotation (rotary_embedding_dim), "
    "with or without position_ids",
)
def _rotary_embedding(ctx: NodeContext) -> Sequence[SSAValue]:
    """RoPE: each pair `(x1, x2)` of a head's first `rotary_embedding_dim`
    features (its halves, or neighbours when interleaved) turns by its position's
    angle, `(x1 cos - x2 sin, x1 sin + x2 cos)`; the rest passes through.
    Slices, products and concatenations, which fusion makes one kernel. The caches
    are read at `position_ids` (`relay.take`, run-time data) or given per token."""
    x, cos, sin = ctx.input(0), ctx.input(1), ctx.input(2)
    ids = ctx.optional_input(3)
    rank = _rank(x)
    if rank == 4:  # [batch, heads, seq, head]
        batch, _, seq, head = shape(x)
        xs = x
    elif rank == 3:  # [batch, seq, heads * head]
        heads = int(ctx.attr("num_heads", 0))
        batch, seq, hidden = shape(x)
        if heads <= 0 or not isinstance(hidden, int) or hidden % heads:
            raise ctx.error(
                f"a 3-D input needs num_heads > 0 dividing its hidden size {hidden}, got {heads}"
            )
        head = hidden // heads
        xs = _reshape(ctx, x, [batch, seq, heads, head])
    else:
        raise ctx.error(f"the input must be 3-D or 4-D, got {list(shape(x))}")
    if not isinstance(head, int):
        raise ctx.unsupported(f"a symbolic head size ({head}) is not supported")
    dim = int(ctx.attr("rotary_embedding_dim", 0)) or head
    if dim % 2 or not 0 < dim <= head:
        raise ctx.error(f"rotary_embedding_dim {dim} must be even and at most the head size {head}")
    half = dim // 2
    if ids is not None:  # caches [max_position + 1, half] read per token
        if _rank(cos) != 2 or _rank(sin) != 2 or _rank(ids) != 2:
            raise ctx.error(
                "with position_ids ([batch, seq]) the caches must be 2-D [positions, dim / 2]"
            )
        cos = ctx.emit(relay.TakeOp(cos, ids, axis=relay.i64_attr(0)))
        sin = ctx.emit(relay.TakeOp(sin, ids, axis=relay.i64_attr(0)))
    for name, c in (("cos_cache", cos), ("sin_cache", sin)):
        if _rank(c) != 3 or shape(c)[-1] != half:
            raise ctx.error(
                f"{name} must end in rotary_embedding_dim / 2 = {half} and be [batch, seq, "
                f"{half}] (or 2-D, read at position_ids), got {list(shape(c))}"
            )
    # The caches broadcast over the heads: [batch, 1, seq, half] or [batch, seq, 1, half].
    per_token = [batch, 1, seq, half] if rank == 4 else [batch, seq, 1, half]
    cos, sin = _reshape(ctx, cos, per_token), _reshape(ctx, sin, per_token)
    if int(ctx.attr("interleaved", 0)):
        x1, x2 = _slice(ctx, xs, 0, dim, 2), _slice(ctx, xs, 1, dim, 2)
    else:
        x1, x2 = _slice(ctx, xs, 0, half), _slice(ctx, xs, half, dim)

    def mul(a: SSAValue, b: SSAValue) -> SSAValue:
        return ctx.emit(relay.MultiplyOp(a, b))

    real = ctx.emit(relay.SubtractOp(mul(cos, x1), mul(sin, x2)))
    imag = ctx.emit(relay.AddOp(mul(sin, x1), mul(cos, x2)))
    last = relay.i64_attr(3)
    if int(ctx.attr("interleaved", 0)):  # (real, imag) pairs side by side
        pair = [*shape(real), 1]
        real, imag = _reshape(ctx, real, pair), _reshape(ctx, imag, pair)
        both = ctx.emit(relay.ConcatenateOp(real, imag, axis=relay.i64_attr(4)))
        rotated = _reshape(ctx, both, [*shape(xs)[:3], dim])
    else:
        rotated = ctx.emit(relay.ConcatenateOp(real, imag, axis=last))
    if dim < head:
        rotated = ctx.emit(relay.ConcatenateOp(rotated, _slice(ctx, xs, dim, head), axis=last))
    return [_reshape(ctx, rotated, shape(x))]


# ------------------------------------------------------------ KV cache update
@converter(
    "TensorScatter",
    emits=("relay.scatter_elements", "relay.floor_mod", "relay.strided_slice", "relay.concatenate"),
    notes="linear and circular; write_indices at run time",
)
def _tensor_scatter(ctx: NodeContext) -> Sequence[SSAValue]:
    """A KV cache's functional update: batch entry `b`'s update rows land at
    `write_indices[b] + i` along `axis` (modulo the cache's length when
    circular). That is a ScatterElements along `axis` whose indices are those
    positions, computed from the run-time write indices; a write past the
    cache's end (out of contract in linear mode) is skipped. Without write
    indices it is the update followed by the rest of the cache."""
    past, update = ctx.input(0), ctx.input(1)
    starts = ctx.optional_input(2)
    mode = str(ctx.attr("mode", "linear"))
    if mode not in ("linear", "circular"):
        raise ctx.error(f'mode must be "linear" or "circular", got "{mode}"')
    rank = _rank(past)
    axis = _axis(ctx, int(ctx.attr("axis", -2)), rank)
    if axis == 0:
        raise ctx.error("axis must not be 0 (the batch axis)")
    cache, rows = shape(past), shape(update)
    if _elem(update) != _elem(past) or static_differ(
        [d for a, d in enumerate(cache) if a != axis], [d for a, d in enumerate(rows) if a != axis]
    ):
        raise ctx.error(
            f"the update {update.type} must be the cache {past.type} but for axis {axis}"
        )
    length, count = cache[axis], rows[axis]
    if isinstance(count, int) and isinstance(length, int) and count > length:
        raise ctx.error(f"the update's {count} rows along axis {axis} overflow the cache's {length}")
    ctx.assume(count - length, 0, f"needs the update's rows along axis {axis} to fit the cache")
    if starts is None:  # every entry writes at 0
        begin = [count if a == axis else 0 for a in range(rank)]
        rest = ctx.emit(relay.StridedSliceOp(past, begin=dims_attr(begin), end=dims_attr(cache)))
        return [ctx.emit(relay.ConcatenateOp(update, rest, axis=relay.i64_attr(axis)))]
    if static_differ(shape(starts), cache[:1]):
        raise ctx.error(
            f"write_indices must be [{cache[0]}] (one per batch entry), got {list(shape(starts))}"
        )
    first = _reshape(ctx, _cast(ctx, starts, I64), [cache[0], *([1] * (rank - 1))])
    step = _reshape(ctx, positions(ctx, count), _along(rank, axis, count))
    at = ctx.emit(relay.AddOp(first, step))
    if mode == "circular":
        at = ctx.emit(relay.FloorModOp(at, dim_scalar(ctx, length)))
    at = ctx.emit(relay.BroadcastToOp(at, shape=dims_attr(rows)))
    return [ctx.emit(relay.ScatterElementsOp(past, at, update, axis=relay.i64_attr(axis)))]
