"""`qnn-legalize`: integer products onto the host's int8 kernels (TVM's
`qnn.transform.Legalize` with x86's `conv2d_NCHWc_int8` and `dense_vnni`), for
the target's vector width.

`requantize(add*(qnn.conv2d(x, w, x_zp, 0), bias))` with a constant s8 weight
whose zero point is 0 (symmetric, as onnxruntime quantizes weights), a u8 input
and one group becomes `qnn.conv2d_nchwc` between layout transforms: the input
blocked by the target's i32 lanes of channels, as a convolution's output is (4
where they do not divide, its channels padded with its zero point), padded spatially with its zero point, the weight packed for
`vpdpbusd` when compiling, and the input's zero point moved into a constant
bias: `sum((x - zx) * w) = sum(x * w) - zx * sum(w)`. `qnn.matmul` over a
constant weight becomes `qnn.dense_packed` the same way. `alter-op-layout`
then moves the transforms between consecutive convolutions and cancels them.

A `qnn.add` of such a convolution's result (read by nothing else) and a
tensor of its shape, per-tensor scales, then becomes `qnn.conv2d_nchwc_add`:
the add in the convolution's write-back (a ResNet block's residual), the other
operand blocked like the result.

What does not fit (a weight zero point, an s8 input, groups, a weight that is
not constant) stays for `qnn-canonicalize`. Counters: `qnn-legalize.conv2d`,
`qnn-legalize.dense`, `qnn-legalize.conv2d-add`, `qnn-legalize.skipped-<reason>`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType, UnitAttr, f32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from lamina.dialects import qnn, relay
from lamina.dialects.qnn.packed import (
    I32,
    S8,
    U8,
    Conv2DNCHWcAddOp,
    Conv2DNCHWcOp,
    DensePackedOp,
)
from lamina.dialects.relay.constant import make_constant
from lamina.passes import current_target, record_statistic
from lamina.passes.registry import register_pass
from lamina.transforms.graph.layout_propagation import (
    blocked_source,
    replace,
    transform,
)
from lamina.transforms.graph.qdq_params import constant_value


def lanes() -> int:
    """Output channels per kernel vector: the host's i32 lanes."""
    return current_target().lanes(32)


def _const(v: SSAValue) -> np.ndarray | None:
    """The value of `v` if only constants feed it (a multiplier computed from
    scales, a reshaped bias)."""
    return constant_value(v)


@dataclass
class _Epilogue:
    """What follows an integer product up to its requantization."""

    requantize: qnn.RequantizeOp
    bias: np.ndarray  # i32, broadcast over the accumulator
    multiplier: np.ndarray  # f32, broadcast over the accumulator
    adds: list[Operation]  # the bias adds, in order

    def erase(self, product: Operation) -> None:
        """Erase the adds and the product, once the requantize is replaced."""
        for op in [*reversed(self.adds), product]:
            op.detach()
            op.erase()


def _epilogue(acc: SSAValue) -> _Epilogue | str:
    """The adds of constant i32 biases and the requantize that consume `acc`
    (each the only user of the one before)."""
    shape = acc.type.get_shape()  # type: ignore[attr-defined]
    bias = np.zeros((), np.int64)
    adds: list[Operation] = []
    v = acc
    while True:
        uses = list(v.uses)
        if len(uses) != 1:
            return "acc-used-twice"
        user = uses[0].operation
        if isinstance(user, relay.AddOp):
            other = user.operands[1 - uses[0].index]
            data = _const(other)
            if data is None or data.dtype != np.int32:
                return "bias-not-constant"
            bias = bias + data.astype(np.int64)
            adds.append(user)
            v = user.results[0]
            continue
        if isinstance(user, qnn.RequantizeOp) and uses[0].index == 0:
            mult, zp = _const(user.multiplier), _const(user.zero_point)
            if mult is None or zp is None or zp.size != 1:
                return "requantize-not-constant"
            try:
                np.broadcast_shapes(bias.shape, shape)
                np.broadcast_shapes(mult.shape, shape)
            except ValueError:
                return "epilogue-shape"
            return _Epilogue(user, bias, mult.astype(np.float32), adds)
        return "no-requantize"


def _per_channel(data: np.ndarray, shape: tuple[int, ...], axis: int) -> np.ndarray | None:
    """`data`, broadcast over `shape`, as one value per index of `axis`; None
    if it varies along another axis."""
    full = np.broadcast_to(data.reshape((1,) * (len(shape) - data.ndim) + data.shape), shape)
    moved = np.moveaxis(full, axis, 0).reshape(shape[axis], -1)
    if moved.size and not (moved == moved[:, :1]).all():
        return None
    return moved[:, 0] if moved.size else np.zeros(shape[axis], data.dtype)


def _scalar(value: int, elem: TensorType) -> relay.ConstantOp:
    return make_constant(np.array(value, dtype=np.uint8 if elem == U8 else np.int8), relay.tensor([], elem))


def _conv2d(op: qnn.Conv2DOp) -> str | None:
    """Rewrite `op` and its epilogue onto `qnn.conv2d_nchwc`; why not, else."""
    x, w, x_zp, w_zp = op.operands
    xt = x.type
    assert isinstance(xt, TensorType)
    wdata, zx, zw = _const(w), _const(x_zp), _const(w_zp)
    if xt.get_element_type() != U8 or not all(isinstance(d, int) and d > 0 for d in xt.get_shape()):
        return "not-static-u8"
    if wdata is None or wdata.dtype != np.int8 or zx is None or zx.size != 1:
        return "weight-not-constant"
    if zw is None or np.any(zw):
        return "weight-zero-point"
    if op.attrs.groups != 1:
        return "groups"
    out = _epilogue(op.results[0])
    if isinstance(out, str):
        return out
    c = xt.get_shape()[1]
    o, _, kh, kw = wdata.shape
    ob = lanes()
    acc_shape = tuple(op.results[0].type.get_shape())  # type: ignore[attr-defined]
    bias = _per_channel(out.bias, acc_shape, 1)
    mult = _per_channel(out.multiplier, acc_shape, 1)
    if o % ob or bias is None or mult is None:
        return "channels" if o % ob else "epilogue-not-per-channel"
    # input channels blocked as a producer's output (ob), so that consecutive
    # convolutions' layout transforms cancel; else by quads
    cb = ob if c % ob == 0 else 4
    cp = -(-c // cb) * cb
    zx_v = int(zx.reshape(()))
    win = relay.Window(op.name, op, 2)
    new: list[Operation] = []
    v = x
    if cp != c:  # channels padded with the zero point (their weights are 0)
        new.append(relay.PadOp(v, pad_width=relay.i64_array([0, 0, 0, 0, 0, cp - c, 0, 0]), pad_value=relay.f64_attr(zx_v)))
        v = new[-1].results[0]
    layout = f"NCHW{cb}c"
    new.append(transform(v, "NCHW", layout))
    v = new[-1].results[0]
    if any((*win.pad_begin, *win.pad_end)):
        width = [0, 0, *win.pad_begin, 0, 0, 0, *win.pad_end, 0]
        new.append(relay.PadOp(v, pad_width=relay.i64_array(width), pad_value=relay.f64_attr(zx_v) if zx_v else None))
        v = new[-1].results[0]
    padded = np.zeros((o, cp, kh, kw), np.int8)
    padded[:, :c] = wdata
    packed = padded.reshape(o // ob, ob, cp // cb, cb // 4, 4, kh, kw).transpose(0, 2, 5, 6, 3, 1, 4)
    packed = np.ascontiguousarray(packed.reshape(o // ob, cp // cb, kh, kw, cb // 4, 4 * ob))
    correction = zx_v * wdata.astype(np.int64).sum(axis=(1, 2, 3))
    total = bias.astype(np.int64) - correction
    if np.abs(total).max(initial=0) > np.iinfo(np.int32).max:
        return "bias-out-of-i32"
    req = out.requantize
    zp_elem = req.results[0].type.get_element_type()  # type: ignore[attr-defined]
    consts = [
        make_constant(packed, relay.tensor(packed.shape, S8), (w.name_hint or "weight") + "_vnni"),
        make_constant(total.astype(np.int32).reshape(o // ob, ob), relay.tensor([o // ob, ob], I32), "bias_i32"),
        make_constant(mult.reshape(o // ob, ob), relay.tensor([o // ob, ob], f32), "multiplier"),
        _scalar(int(_const(req.zero_point).reshape(())), zp_elem),  # type: ignore[union-attr]
    ]
    new += consts
    lo, hi = qnn.clamp_range(req, zp_elem)
    window = {k: op.properties[k] for k in ("strides", "dilation") if k in op.properties}
    window.setdefault("strides", relay.i64_array([1, 1]))
    window.setdefault("dilation", relay.i64_array([1, 1]))
    new.append(Conv2DNCHWcOp(v, *(c.results[0] for c in consts), out_min=relay.i64_attr(lo), out_max=relay.i64_attr(hi), **window))
    new.append(transform(new[-1].results[0], f"NCHW{ob}c", "NCHW"))
    replace(req, new)
    out.erase(op)
    return None


def _dense(op: qnn.MatMulOp) -> str | None:
    """Rewrite `a @ w` (a constant `[K, N]` weight) and its epilogue onto
    `qnn.dense_packed`, the batch axes of `a` flattened into its rows."""
    a, w, a_zp, w_zp = op.operands
    at = a.type
    assert isinstance(at, TensorType)
    wdata, za, zw = _const(w), _const(a_zp), _const(w_zp)
    shape = at.get_shape()
    if at.get_element_type() != U8 or not all(isinstance(d, int) and d > 0 for d in shape):
        return "not-static-u8"
    if wdata is None or wdata.dtype != np.int8 or wdata.ndim != 2 or za is None or za.size != 1:
        return "weight-not-constant"
    if zw is None or np.any(zw):
        return "weight-zero-point"
    k, cols = wdata.shape
    nb = lanes()
    out = _epilogue(op.results[0])
    if isinstance(out, str):
        return out
    acc_shape = tuple(op.results[0].type.get_shape())  # type: ignore[attr-defined]
    bias = _per_channel(out.bias, acc_shape, len(acc_shape) - 1)
    mult = _per_channel(out.multiplier, acc_shape, len(acc_shape) - 1)
    if k % 4 or bias is None or mult is None:
        return "reduction-not-quads" if k % 4 else "epilogue-not-per-channel"
    rows = math.prod(shape[:-1])
    padded = -(-cols // nb) * nb  # columns padded to whole vectors (zero weights), sliced off after
    wide = np.zeros((k, padded), np.int8)
    wide[:, :cols] = wdata
    packed = np.ascontiguousarray(wide.T.reshape(padded // nb, nb, k // 4, 4).transpose(0, 2, 1, 3).reshape(padded // nb, k // 4, 4 * nb))
    total = np.zeros(padded, np.int64)
    total[:cols] = bias.astype(np.int64) - int(za.reshape(())) * wdata.astype(np.int64).sum(axis=0)
    mult = np.concatenate([mult.astype(np.float32), np.ones(padded - cols, np.float32)])
    if np.abs(total).max(initial=0) > np.iinfo(np.int32).max:
        return "bias-out-of-i32"
    req = out.requantize
    zp_elem = req.results[0].type.get_element_type()  # type: ignore[attr-defined]
    new: list[Operation] = []
    flat = a
    if len(shape) != 2:
        new.append(relay.ReshapeOp(a, shape=relay.i64_array([rows, k])))
        flat = new[-1].results[0]
    consts = [
        make_constant(packed, relay.tensor(packed.shape, S8), (w.name_hint or "weight") + "_vnni"),
        make_constant(total.astype(np.int32), relay.tensor([padded], I32), "bias_i32"),
        make_constant(mult, relay.tensor([padded], f32), "multiplier"),
        _scalar(int(_const(req.zero_point).reshape(())), zp_elem),  # type: ignore[union-attr]
    ]
    new += consts
    lo, hi = qnn.clamp_range(req, zp_elem)
    new.append(DensePackedOp(flat, *(c.results[0] for c in consts), out_min=relay.i64_attr(lo), out_max=relay.i64_attr(hi)))
    if padded != cols:
        new.append(relay.StridedSliceOp(new[-1].results[0], begin=relay.i64_array([0, 0]), end=relay.i64_array([rows, cols])))
    if len(shape) != 2:
        new.append(relay.ReshapeOp(new[-1].results[0], shape=relay.i64_array([*shape[:-1], cols])))
    replace(req, new)
    out.erase(op)
    return None


def _fusable_conv(v: SSAValue) -> Conv2DNCHWcOp | None:
    """The `qnn.conv2d_nchwc` whose result `v` is (transformed back to NCHW),
    if nothing else reads it."""
    src = blocked_source(v)
    if src is None or not isinstance(src.owner, Conv2DNCHWcOp) or not src.has_one_use() or not v.has_one_use():
        return None
    return src.owner


def _residual_add(op: qnn.AddOp) -> str | None:
    """Fuse `qnn.add` into the write-back of the `qnn.conv2d_nchwc` making one
    of its operands (the left one where both are); why not, else."""
    lhs, rhs = op.lhs, op.rhs
    if lhs.type.get_shape() != rhs.type.get_shape():  # type: ignore[attr-defined]
        return "add-broadcasts"
    scalars = (op.lhs_scale, op.lhs_zero_point, op.rhs_scale, op.rhs_zero_point, op.output_scale, op.output_zero_point)
    if any(v.type.get_shape() for v in scalars):  # type: ignore[attr-defined]
        return "add-per-channel"
    if any(v.type.get_element_type() != f32 for v in (op.lhs_scale, op.rhs_scale, op.output_scale)):  # type: ignore[attr-defined]
        return "add-scale-not-f32"
    why = "add-no-conv"
    operands = ((lhs, op.lhs_scale, op.lhs_zero_point), (rhs, op.rhs_scale, op.rhs_zero_point))
    for side in (0, 1):
        (v, scale, zp), (other, r_scale, r_zp) = operands[side], operands[1 - side]
        conv = _fusable_conv(v)
        if conv is None:
            continue
        zp_value, conv_zp = _const(zp), _const(conv.zero_point)
        if zp_value is None or conv_zp is None or zp_value.reshape(()) != conv_zp.reshape(()):
            why = "add-zero-point"  # (the add reads the convolution's output as quantized)
            continue
        layout = v.owner.attrs.src_layout  # type: ignore[union-attr]
        new: list[Operation] = [transform(other, "NCHW", layout)]
        props = {k: conv.properties[k] for k in ("strides", "dilation", "out_min", "out_max") if k in conv.properties}
        if side == 1:
            props["residual_lhs"] = UnitAttr()
        new.append(Conv2DNCHWcAddOp(*conv.operands, new[0].results[0], scale, r_scale, r_zp, op.output_scale, op.output_zero_point, **props))
        new.append(transform(new[-1].results[0], layout, "NCHW"))
        replace(op, new)  # (and the transform of the convolution's result)
        Rewriter.erase_op(conv)
        return None
    return why


@register_pass
@dataclass(frozen=True)
class QnnLegalizePass(ModulePass):
    """Integer convolutions and matrix products onto the host's int8 kernels."""

    name = "qnn-legalize"
    opt_level: ClassVar[int] = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in list(op.walk()):
            if inner.parent is None:
                continue
            if isinstance(inner, qnn.Conv2DOp):
                why = _conv2d(inner)
                record_statistic(f"qnn-legalize.{'conv2d' if why is None else 'skipped-' + why}")
            elif isinstance(inner, qnn.MatMulOp):
                why = _dense(inner)
                record_statistic(f"qnn-legalize.{'dense' if why is None else 'skipped-' + why}")
        for add in [a for a in op.walk() if isinstance(a, qnn.AddOp)]:
            why = _residual_add(add)
            record_statistic(f"qnn-legalize.{'conv2d-add' if why is None else 'skipped-' + why}")


__all__ = ["QnnLegalizePass"]
