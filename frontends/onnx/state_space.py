"""Converters of the stateful sequence mixers of linear-attention and state-space
models (Gated DeltaNet, Mamba, RWKV): LinearAttention, a recurrence over the
sequence, and CausalConvWithState, a depthwise causal convolution that carries
its last inputs from one call to the next.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerType, TensorType, i1
from xdsl.ir import Block, Region, SSAValue

from lamina.dialects import relay
from lamina.dialects.shapes import dims_attr
from lamina.frontends.onnx.attention import dim_scalar, static_differ
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.elementwise import _swish_of
from lamina.frontends.onnx.helpers import _cast, _elem, _rank, _reshape, _scalar
from lamina.frontends.onnx.registry import converter
from lamina.symbolic import Dim

UPDATE_RULES = ("linear", "gated", "delta", "gated_delta")
ACTIVATIONS = ("none", "silu", "swish")


def _zeros(ctx: NodeContext, like: SSAValue, dims: Sequence[Dim]) -> SSAValue:
    """A tensor of zeros of `like`'s element type (a broadcast: `dims` may be symbolic)."""
    return ctx.emit(relay.BroadcastToOp(_scalar(ctx, 0, like), shape=dims_attr(dims)))


# ------------------------------------------------------- linear attention
@dataclasses.dataclass
class _Recurrence:
    """One LinearAttention node's recurrence, its inputs laid out time-major.

    `q` is `[T, B, Hkv, G, dk]` (query head `h` reads key/value head `h // G`),
    scaled; `k` `[T, B, Hkv, dk]`; `v` `[T, B, Hkv, dv]`; `decay` (exp of the
    log-space gate) `[T, B, Hkv, dk or 1]`; `beta` `[T, B, Hkv or 1]`."""

    q: SSAValue
    k: SSAValue
    v: SSAValue
    decay: SSAValue | None
    beta: SSAValue | None

    def sequences(self) -> list[SSAValue]:
        return [x for x in (self.q, self.k, self.v, self.decay, self.beta) if x is not None]

    def step(
        self, ctx: NodeContext, state: SSAValue, rows: Sequence[SSAValue]
    ) -> tuple[SSAValue, SSAValue]:
        """One token: the next state `[B, Hkv, dk, dv]` and the output `[B, Hkv, G, dv]`
        from this step's rows (the sequences without their time axis)."""
        it = iter(rows)
        q, k, v = next(it), next(it), next(it)
        decay = next(it) if self.decay is not None else None
        beta = next(it) if self.beta is not None else None
        b, h, dk, dv = shape(state)
        if decay is not None:  # S *= exp(g), per key dim or per head
            state = ctx.emit(relay.MultiplyOp(state, _reshape(ctx, decay, [*shape(decay), 1])))
        u = _reshape(ctx, v, [b, h, 1, dv])
        if beta is not None:  # delta rule: u = beta * (v - S^T k)
            seen = ctx.emit(relay.MatmulOp(_reshape(ctx, k, [b, h, 1, dk]), state))
            u = ctx.emit(relay.SubtractOp(u, seen))
            u = ctx.emit(relay.MultiplyOp(u, _reshape(ctx, beta, [*shape(beta), 1, 1])))
        outer = ctx.emit(relay.MultiplyOp(_reshape(ctx, k, [b, h, dk, 1]), u))
        state = ctx.emit(relay.AddOp(state, outer))
        return state, ctx.emit(relay.MatmulOp(q, state))


def _time_major(ctx: NodeContext, x: SSAValue, heads: Sequence[Dim]) -> SSAValue:
    """A packed `[B, T, heads * d]` tensor as `[T, B, *heads, d]`."""
    b, t, packed = shape(x)
    d = packed // math.prod(heads)
    x = _reshape(ctx, x, [b, t, *heads, d])
    perm = [1, 0, *range(2, len(heads) + 3)]
    return ctx.emit(relay.TransposeOp(x, perm=relay.i64_array(perm)))


def _run(
    ctx: NodeContext, rec: _Recurrence, state: SSAValue, steps: Dim
) -> tuple[SSAValue, SSAValue]:
    """The recurrence over `steps` tokens from `state`: the final state and the
    outputs stacked time-major, `[T, B, Hkv, G, dv]`."""
    seqs = rec.sequences()
    if steps == 1:  # a decoding step: no loop
        rows = [_reshape(ctx, x, shape(x)[1:]) for x in seqs]
        state, out = rec.step(ctx, state, rows)
        return state, _reshape(ctx, out, [1, *shape(out)])
    scalar_i64, scalar_i1 = TensorType(IntegerType(64), []), TensorType(i1, [])
    block = Block(arg_types=[scalar_i64, scalar_i1, state.type, *(x.type for x in seqs)])
    body = dataclasses.replace(ctx, block=block)
    i, cond, carried, *xs = block.args
    rows = [body.emit(relay.TakeOp(x, i, axis=relay.i64_attr(0))) for x in xs]
    new_state, out = rec.step(body, carried, rows)
    block.add_op(relay.YieldOp(cond, new_state, out))
    trips, always = dim_scalar(ctx, steps), ctx.constant(np.array(True))
    loop = relay.LoopOp(trips, always, [state, *seqs], 1, Region(block), steps)
    final, stacked, _ = ctx.emit_all(loop)
    return final, stacked


def _heads(
    ctx: NodeContext, q: SSAValue, k: SSAValue, v: SSAValue
) -> tuple[int, int, int, int]:
    """The query and key/value head counts and the key and value head sizes,
    checked against the packed `[B, T, heads * d]` inputs."""
    if not (ctx.has_attr("q_num_heads") and ctx.has_attr("kv_num_heads")):
        raise ctx.error("q_num_heads and kv_num_heads are required")
    hq, hkv = int(ctx.attr("q_num_heads")), int(ctx.attr("kv_num_heads"))
    if hq <= 0 or hkv <= 0 or hq % hkv:
        raise ctx.error(f"q_num_heads ({hq}) must be a positive multiple of kv_num_heads ({hkv})")
    for name, x, heads in (("query", q, hq), ("key", k, hkv), ("value", v, hkv)):
        if _rank(x) != 3:
            raise ctx.error(f"{name} must be 3-D [batch, seq, heads * dim], got {list(shape(x))}")
        width = shape(x)[2]
        if not isinstance(width, int) or width % heads:
            raise ctx.error(f"the {name}'s last dim ({width}) must be a multiple of {heads} heads")
        if static_differ(shape(x)[:2], shape(q)[:2]):
            raise ctx.error(f"{name} {list(shape(x))} must have the query's batch and sequence")
        if _elem(x) != _elem(q):
            raise ctx.error(f"{name} ({x.type}) must have the query's element type")
    dk, dv = shape(q)[2] // hq, shape(v)[2] // hkv
    if shape(k)[2] != hkv * dk:
        want = f"kv_num_heads * {dk} = {hkv * dk}"
        raise ctx.error(f"the key's last dim must be {want}, got {shape(k)[2]}")
    return hq, hkv, dk, dv


def _gate(
    ctx: NodeContext, x: SSAValue, name: str, like: SSAValue, widths: Sequence[int]
) -> SSAValue:
    """A decay or beta input `[B, T, w]` (`w` one of `widths`), checked, of `like`'s type."""
    b, t, _ = shape(like)
    if _rank(x) != 3 or static_differ(shape(x)[:2], (b, t)) or shape(x)[2] not in widths:
        choices = " or ".join(f"[{b}, {t}, {w}]" for w in widths)
        raise ctx.error(f"{name} must be {choices}, got {list(shape(x))}")
    return _cast(ctx, x, _elem(like))


@converter(
    "LinearAttention",
    emits=("relay.loop", "relay.take", "relay.matmul", "relay.multiply", "relay.exp"),
    notes="update rules linear, gated, delta, gated_delta; GQA; past_state; "
    "per-key-dim or per-head decay; a loop over the sequence (none for one token)",
)
def _linear_attention(ctx: NodeContext) -> Sequence[SSAValue]:
    """The recurrence `S_t = exp(g_t) S_{t-1} + k_t (x) u_t`, `o_t = scale q_t^T S_t`
    (`u_t = v_t`, or `beta_t (v_t - exp(g_t) S_{t-1}^T k_t)` under a delta rule)
    over the sequence, one step at a time as the spec defines it.

    The steps are a `relay.loop` over the sequence (its trip count the sequence
    length, which may be symbolic; each step's outputs stacked as scan rows): the
    graph stays one step's size whatever the length, where unrolling would grow
    it, and the compile time, with every prefill token. One token (decoding) is
    that step alone, without a loop. Everything that does not depend on the
    state (the scale, exp of the decay, the time-major layouts) is computed once,
    outside the loop. The chunk-parallel forms the spec allows are a speed-up
    for accelerators, not a different result."""
    q, k, v = ctx.input(0), ctx.input(1), ctx.input(2)
    past, decay, beta = ctx.optional_input(3), ctx.optional_input(4), ctx.optional_input(5)
    rule = str(ctx.attr("update_rule", "gated_delta"))
    if rule not in UPDATE_RULES:
        raise ctx.error(f'update_rule "{rule}" is not one of {", ".join(UPDATE_RULES)}')
    gated, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    for name, given, wanted in (("decay", decay, gated), ("beta", beta, delta)):
        if (given is not None) != wanted:
            need = "needs the" if wanted else "takes no"
            raise ctx.error(f'update_rule "{rule}" {need} {name} input')
    hq, hkv, dk, dv = _heads(ctx, q, k, v)
    b, t, _ = shape(q)
    scale = float(ctx.attr("scale", 0.0)) or 1 / math.sqrt(dk)
    rec = _Recurrence(
        q=_time_major(ctx, ctx.emit(relay.MultiplyOp(q, _scalar(ctx, scale, q))), [hkv, hq // hkv]),
        k=_time_major(ctx, k, [hkv]),
        v=_time_major(ctx, v, [hkv]),
        decay=None,
        beta=None,
    )
    if decay is not None:
        g = ctx.emit(relay.ExpOp(_gate(ctx, decay, "decay", q, [hkv, hkv * dk])))
        rec.decay = _time_major(ctx, g, [hkv])
    if beta is not None:
        rate = _gate(ctx, beta, "beta", q, [hkv, 1])
        rec.beta = ctx.emit(relay.TransposeOp(rate, perm=relay.i64_array([1, 0, 2])))

    state_dims = [b, hkv, dk, dv]
    if past is None:
        state = _zeros(ctx, q, state_dims)
    elif static_differ(shape(past), state_dims):
        want = f"{state_dims} [batch, kv heads, dk, dv]"
        raise ctx.error(f"past_state must be {want}, got {list(shape(past))}")
    else:
        state = _cast(ctx, past, _elem(q))
    final, stacked = _run(ctx, rec, state, t)
    # [T, B, Hkv, G, dv] -> [B, T, Hq * dv]
    y = ctx.emit(relay.TransposeOp(stacked, perm=relay.i64_array([1, 0, 2, 3, 4])))
    present = final if past is None else _cast(ctx, final, _elem(past))
    return [_reshape(ctx, y, [b, t, hq * dv]), present]


# --------------------------------------------------------- causal convolution
@converter(
    "CausalConvWithState",
    emits=("relay.conv1d", "relay.concatenate", "relay.pad", "relay.strided_slice", "relay.sigmoid"),
    notes="bias, past_state, activation none, silu and swish",
)
def _causal_conv_with_state(ctx: NodeContext) -> Sequence[SSAValue]:
    """Not a recurrence over the sequence: the state is only the last `k - 1`
    inputs, so the op is a depthwise `relay.conv1d` (groups = channels) over the
    past state and the input, or over the input zero-padded on the left when
    there is no past state, and the new state is the last `k - 1` positions of
    that padded sequence. Every length, symbolic ones included, is one
    convolution."""
    x, w = ctx.input(0), ctx.input(1)
    bias, past = ctx.optional_input(2), ctx.optional_input(3)
    activation = str(ctx.attr("activation", "none"))
    if activation not in ACTIVATIONS:
        raise ctx.error(f'activation "{activation}" is not one of {", ".join(ACTIVATIONS)}')
    if _rank(x) != 3:
        raise ctx.error(f"input must be 3-D [batch, channels, length], got {list(shape(x))}")
    batch, channels, length = shape(x)
    if _rank(w) != 3 or shape(w)[1] != 1 or static_differ(shape(w)[:1], [channels]):
        raise ctx.error(f"weight must be [{channels}, 1, k] (depthwise), got {list(shape(w))}")
    k = shape(w)[2]
    if not isinstance(k, int) or k < 1:
        raise ctx.unsupported(f"the kernel size must be static, got {k}")
    carry = k - 1
    if past is not None and static_differ(shape(past), [batch, channels, carry]):
        want = f"[{batch}, {channels}, {carry}]"
        raise ctx.error(f"past_state must be {want} (k - 1 positions), got {list(shape(past))}")
    if not isinstance(channels, int):
        raise ctx.unsupported(f"a symbolic channel count ({channels}) is not supported")
    groups = relay.i64_attr(channels)

    if past is not None and carry:  # the left context is the past state
        padded = ctx.emit(relay.ConcatenateOp(past, x, axis=relay.i64_attr(2)))
        y = ctx.emit(relay.Conv1DOp(padded, w, groups=groups))
    else:  # zeros: the convolution's own padding
        padded = x
        if carry:
            padded = ctx.emit(relay.PadOp(x, pad_width=relay.i64_array([0, 0, carry, 0, 0, 0])))
        y = ctx.emit(relay.Conv1DOp(x, w, padding=relay.i64_array([carry, 0]), groups=groups))
    if bias is not None:
        y = ctx.emit(relay.BiasAddOp(y, bias))
    if activation != "none":
        y = _swish_of(ctx, y, 1.0)
    end = [batch, channels, length + carry]
    present = relay.StridedSliceOp(padded, begin=dims_attr([0, 0, length]), end=dims_attr(end))
    return [y, ctx.emit(present)]
