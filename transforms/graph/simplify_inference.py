"""`simplify-inference`: inference-only graph simplifications, TVM's SimplifyInference
followed by the folding of batch-norm scales into the producing layer's weights.

1. `relay.batch_norm(x, gamma, beta, mean, var)` becomes `x * scale + shift` with
   `scale = gamma / sqrt(var + epsilon)` and `shift = beta - mean * scale`, both
   shaped to broadcast along the normalized axis (`C x 1 x 1` for NCHW). When the
   four statistics are constants, `scale` and `shift` are computed with numpy
   (new constants, blobs when large); otherwise they are graph ops
   (`rsqrt`, `multiply`, `subtract`, `reshape`). Dropout needs nothing here: the
   ONNX importer already imports it as the identity and relay has no dropout op.
2. Scale folding, to a fixpoint:
   - `multiply(conv(x, W), S)`, with `W` and `S` constants, `S` one value per
     output channel (or a splat) and the conv used only by the multiply, becomes
     `conv(x, W * S)` (relay.conv1d/2d/3d; the weight's output-channel axis is
     scaled, so grouped and depthwise convs fold too);
   - `multiply(dense(a, W[, bias]), S)` the same for relay.dense, with `S` one value
     per output column (the bias, when present, must be a constant and is scaled);
   - `multiply(bias_add(y, b), S)` / `multiply(add(y, c), S)`, with constants and a
     conv or dense `y`, becomes `bias_add(y * S, b * s)` / `add(y * S, c * S)` so the
     multiply reaches the conv (a conv with a bias followed by a batch norm);
   - `add(add(y, c1), c2)` with constants and an unchanged type becomes
     `add(y, c1 + c2)` (the conv bias and the batch-norm shift become one add).
   The folded weights are new blobs (`lamina.dialects.resources.blobs`); the old
   constants are erased once unused.

Counters: `simplify-inference.batch-norm` (expanded), `.folded-scale`,
`.moved-scale`, `.merged-add`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from lamina.dialects import relay
from lamina.dialects.relay.constant import make_constant, value_data
from lamina.dialects.shapes import dims_attr, is_symbolic
from lamina.passes import max_iterations, not_converged, record_statistic
from lamina.passes.registry import register_pass

# ------------------------------------------------------------------- helpers

def _name(value: SSAValue, default: str) -> str:
    return value.name_hint or default


def _new_constant(array: np.ndarray, like: TensorType, name: str) -> relay.ConstantOp:
    """A constant of `like`'s element type and `array`'s shape."""
    t = relay.tensor(array.shape, like.get_element_type())
    const = make_constant(array, t, name)
    const.result.name_hint = name
    return const


def _single_use(value: SSAValue) -> bool:
    return value.has_one_use()


def _erase_if_dead(values: list[SSAValue]) -> None:
    """Erase the relay ops defining `values` once unused, and theirs in turn."""
    work = list(values)
    while work:
        v = work.pop()
        op = v.op if isinstance(v, OpResult) else None
        if (
            isinstance(op, relay.RelayOp)
            and op.parent is not None
            and not any(r.uses for r in op.results)
        ):
            work += list(op.operands)
            Rewriter.erase_op(op)


def _replace(old: Operation, new_ops: list[Operation], value: SSAValue) -> None:
    """Insert `new_ops` before `old`, use `value` for `old`'s result, erase `old`
    and the operands left unused."""
    block = old.parent
    assert isinstance(block, Block)
    if new_ops:
        block.insert_ops_before(new_ops, old)
    value.name_hint = old.results[0].name_hint
    old.results[0].replace_all_uses_with(value)
    operands = list(old.operands)
    Rewriter.erase_op(old)
    _erase_if_dead(operands)


# ------------------------------------------------------- batch norm expansion
def expand_batch_norm(op: relay.BatchNormOp) -> None:
    """Replace a batch norm by `x * scale + shift`."""
    x, gamma, beta, mean, var = op.operands
    t = x.type
    assert isinstance(t, TensorType)
    rank = t.get_num_dims()
    axis = relay.normalize_axis(op.name, op.attrs.axis, rank)
    eps = op.attrs.epsilon
    channels = relay.shape_of(t)[axis]
    bshape = (channels, *([1] * (rank - 1 - axis)))
    stats = [value_data(v) for v in (gamma, beta, mean, var)]
    base = _name(op.results[0], "bn")
    new_ops: list[Operation] = []
    if all(s is not None for s in stats):
        g, b, m, v = (np.asarray(s, np.float64) for s in stats)  # type: ignore[arg-type]
        scale = g / np.sqrt(v + eps)
        shift = b - m * scale
        sc = _new_constant(scale.reshape(bshape), t, f"{base}_scale")
        sh = _new_constant(shift.reshape(bshape), t, f"{base}_shift")
        new_ops += [sc, sh]
        scale_v, shift_v = sc.result, sh.result
    else:
        eps_c = _new_constant(np.array([eps]), t, f"{base}_eps")
        plus = relay.AddOp(var, eps_c)
        inv = relay.RsqrtOp(plus)
        scale_op = relay.MultiplyOp(gamma, inv)
        scaled_mean = relay.MultiplyOp(mean, scale_op)
        shift_op = relay.SubtractOp(beta, scaled_mean)
        new_ops += [eps_c, plus, inv, scale_op, scaled_mean, shift_op]
        scale_v, shift_v = scale_op.result, shift_op.result
        if len(bshape) > 1:
            shape = dims_attr(bshape)
            rs, rh = relay.ReshapeOp(scale_v, shape=shape), relay.ReshapeOp(shift_v, shape=shape)
            new_ops += [rs, rh]
            scale_v, shift_v = rs.result, rh.result
    mul = relay.MultiplyOp(x, scale_v)
    add = relay.AddOp(mul, shift_v)
    new_ops += [mul, add]
    _replace(op, new_ops, add.result)


# ------------------------------------------------------------- scale folding
def _channel_vector(s: np.ndarray, out_shape: tuple[int, ...], axis: int) -> np.ndarray | None:
    """`s` as one value per index of `axis` of `out_shape`, when `s` broadcasts to
    `out_shape` and varies along that axis only; else None."""
    rank = len(out_shape)
    if s.ndim > rank:
        return None
    full = s.reshape((1,) * (rank - s.ndim) + s.shape)
    for i, (d, o) in enumerate(zip(full.shape, out_shape, strict=True)):
        if d != 1 and (i != axis or d != o):
            return None
    return np.broadcast_to(full.reshape(-1), (out_shape[axis],)) if full.size in (
        1,
        out_shape[axis],
    ) else None


def _out_axis(op: Operation) -> int | None:
    """The axis of `op`'s result that its weight's output axis feeds."""
    if isinstance(op, relay.Conv1DOp | relay.Conv2DOp | relay.Conv3DOp):
        return 1
    if isinstance(op, relay.DenseOp):
        return 1
    return None


def _scaled_producer(op: Operation, s: np.ndarray) -> list[Operation] | None:
    """New ops computing `op`'s result times the per-channel `s` (`op` a conv or a
    dense with constant weights); the last one replaces the product."""
    w_val = op.operands[1]
    w = value_data(w_val)
    if w is None:
        return None
    wt = w_val.type
    assert isinstance(wt, TensorType)
    props = dict(op.properties)
    name = _name(w_val, "weight") + "_folded"
    if isinstance(op, relay.DenseOp):
        transposed = op.attrs.transpose_b
        new_w = w * (s[:, None] if transposed else s[None, :])
        operands: list[SSAValue | Operation] = [op.operands[0]]
        new_ops: list[Operation] = [_new_constant(new_w.astype(w.dtype), wt, name)]
        operands.append(new_ops[0])
        if len(op.operands) == 3:
            bias = value_data(op.operands[2])
            if bias is None:
                return None
            new_bias = (bias * s).astype(bias.dtype)
            if new_bias.shape != bias.shape:
                return None
            bt = op.operands[2].type
            assert isinstance(bt, TensorType)
            new_ops.append(_new_constant(new_bias, bt, _name(op.operands[2], "bias") + "_folded"))
            operands.append(new_ops[-1])
        new_ops.append(relay.DenseOp(*operands, **props))
        return new_ops
    new_w = w * s.reshape((-1,) + (1,) * (w.ndim - 1))
    wc = _new_constant(new_w.astype(w.dtype), wt, name)
    return [wc, type(op)(op.operands[0], wc, **props)]


def _split_const(op: Operation) -> tuple[SSAValue, np.ndarray] | None:
    """(the other operand, the constant's data) of a binary op with one constant."""
    a, b = op.operands
    cb = value_data(b)
    if cb is not None:
        return a, cb
    ca = value_data(a)
    if ca is not None:
        return b, ca
    return None


def _fold_multiply(op: relay.MultiplyOp) -> str | None:
    """Fold or move the scale of `op`; return the counter name when it changed."""
    split = _split_const(op)
    if split is None:
        return None
    y, s = split
    out_t = op.results[0].type
    if y.type != out_t or not isinstance(y, OpResult) or not _single_use(y):
        return None
    assert isinstance(out_t, TensorType)
    if is_symbolic(out_t):  # (constants folded into it are laid out statically)
        return None
    out_shape = tuple(out_t.get_shape())
    producer = y.op
    axis = _out_axis(producer)
    if axis is not None:
        vec = _channel_vector(s, out_shape, axis)
        if vec is None:
            return None
        new_ops = _scaled_producer(producer, vec)
        if new_ops is None:
            return None
        _replace(op, new_ops, new_ops[-1].results[0])
        return "folded-scale"
    # Move the scale above a constant bias so it reaches a conv / dense.
    if not isinstance(producer, relay.AddOp | relay.BiasAddOp):
        return None
    if isinstance(producer, relay.BiasAddOp):
        z, c_or_none = producer.operands[0], value_data(producer.operands[1])
    else:
        inner_split = _split_const(producer)
        if inner_split is None:
            return None
        z, c_or_none = inner_split
    if c_or_none is None:
        return None
    c = c_or_none
    if (
        z.type != out_t
        or not isinstance(z, OpResult)
        or not _single_use(z)
        or _out_axis(z.op) is None
    ):
        return None
    scale_v = op.operands[1] if op.operands[0] is y else op.operands[0]
    if isinstance(producer, relay.BiasAddOp):
        b_axis = relay.normalize_axis(
            producer.name, producer.attrs.axis, len(out_shape)
        )
        vec = _channel_vector(s, out_shape, b_axis)
        if vec is None:
            return None
        name = _name(producer.operands[1], "bias") + "_scaled"
        new_c = _new_constant((c * vec).astype(c.dtype), out_t, name)
        mul = relay.MultiplyOp(z, scale_v)
        new_add: Operation = relay.BiasAddOp(mul, new_c, **dict(producer.properties))
    else:
        new_c_data = c * s
        if np.broadcast_shapes(new_c_data.shape, out_shape) != out_shape:
            return None
        new_c = _new_constant(new_c_data.astype(c.dtype), out_t, "shift_scaled")
        mul = relay.MultiplyOp(z, scale_v)
        new_add = relay.AddOp(mul, new_c)
    if new_add.results[0].type != out_t:
        return None
    _replace(op, [new_c, mul, new_add], new_add.results[0])
    return "moved-scale"


def _merge_adds(op: relay.AddOp) -> str | None:
    """`add(add(y, c1), c2)` -> `add(y, c1 + c2)`."""
    split = _split_const(op)
    if split is None:
        return None
    inner, c2 = split
    if not (isinstance(inner, OpResult) and isinstance(inner.op, relay.AddOp)) or not _single_use(inner):
        return None
    inner_split = _split_const(inner.op)
    if inner_split is None:
        return None
    y, c1 = inner_split
    out_t = op.results[0].type
    if y.type != out_t:
        return None
    assert isinstance(out_t, TensorType)
    total = c1 + c2
    if is_symbolic(out_t):
        return None
    if np.broadcast_shapes(total.shape, tuple(out_t.get_shape())) != tuple(out_t.get_shape()):
        return None
    c = _new_constant(total.astype(c1.dtype), out_t, "shift_merged")
    add = relay.AddOp(y, c)
    if add.results[0].type != out_t:
        return None
    _replace(op, [c, add], add.result)
    return "merged-add"


def _blocks(root: Operation) -> list[Block]:
    return [b for op in root.walk() for r in op.regions for b in r.blocks]


def simplify_inference(root: Operation) -> int:
    """Expand batch norms and fold scales under `root`; return the rewrites made."""
    total = 0
    for block in _blocks(root):
        for op in list(block.ops):
            if isinstance(op, relay.BatchNormOp):
                expand_batch_norm(op)
                record_statistic("simplify-inference.batch-norm")
                total += 1
    cap = max_iterations()
    changed, rounds = True, 0
    while changed:
        if rounds > cap:  # `cap` rounds changed the IR, and so did one more
            raise not_converged("scale folding", cap)
        rounds += 1
        changed = False
        for block in _blocks(root):
            for op in list(block.ops):
                if op.parent is None:
                    continue
                kind = None
                if isinstance(op, relay.MultiplyOp):
                    kind = _fold_multiply(op)
                elif isinstance(op, relay.AddOp):
                    kind = _merge_adds(op)
                if kind is not None:
                    record_statistic(f"simplify-inference.{kind}")
                    total += 1
                    changed = True
    return total


@register_pass
@dataclass(frozen=True)
class SimplifyInferencePass(ModulePass):
    """Batch norm to scale and shift, folded into conv / dense weights."""

    name = "simplify-inference"
    opt_level: ClassVar[int] = 1

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        simplify_inference(op)


__all__ = ["SimplifyInferencePass", "expand_batch_norm", "simplify_inference"]
