"""`qnn-canonicalize`: the qnn ops as relay integer and float ops (TVM's
`qnn.transform.CanonicalizeOps`), so every later pass and lowering applies.

- `quantize(x, s, zp)`: `cast(clip(round(x / s) + zp, qmin, qmax))`;
- `dequantize(q, s, zp)`: `(float(q) - float(zp)) * s` (an i32 `q - zp` in i64);
- `requantize(acc, m, zp)`: `cast(clip(round(f32(acc) * f32(m)) + zp))`, the
  clip to its clamp range (`out_min`/`out_max`, a folded relu or clip);
- `matmul(a, b, a_zp, b_zp)`: `matmul(i32(a) - a_zp, i32(b) - b_zp)`;
- `conv2d(x, w, x_zp, w_zp)`: the zero-point-corrected operands in i32, then
  `im2col` and a matmul of the flattened weight by the columns (the groups of
  a grouped or depthwise convolution as the matmul's batch);
- `add`: onnxruntime's QLinearAdd, `round(a * ra + (b * rb + k))` with the
  ratios of the scales and an offset (from constant parameters, computed at
  compile time as there), each product contracted into an FMA;
- `mul`: dequantize both, multiply in float, quantize;
- `softmax(x, xs, xz, ys, yz)`: onnxruntime's QLinearSoftmax: the codes' i32
  distance below their max along the axis indexes a 256-entry f32 table of
  exp (`relay.take`; the table built from xs in f64, folded by
  `fold-constant` for a constant scale), summed in index order
  (`relay.sum {ordered}`), then `round(e * floor(1 / ys) / sum)` saturated
  at yz.

A constant weight's correction (`i32(w) - w_zp`) is folded by `fold-constant`,
so it is computed once, at compile time. Counter: `qnn-canonicalize.<op>`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    UnitAttr,
    f32,
    f64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from lamina.dialects import qnn, relay
from lamina.dialects.relay.base import shape_of
from lamina.dialects.relay.constant import make_constant
from lamina.passes import record_statistic
from lamina.passes.registry import register_pass
from lamina.transforms.graph.qdq_params import constant_value

I32 = IntegerType(32)


class _Builder:
    """Relay ops inserted before the op being rewritten."""

    def __init__(self, at: Operation):
        self.at = at

    def __call__(self, op: Operation) -> SSAValue:
        Rewriter.insert_op(op, InsertPoint.before(self.at))
        return op.results[0]

    def cast(self, v: SSAValue, to: Attribute) -> SSAValue:
        return v if _elem(v) == to else self(relay.CastOp(v, dtype=to))

    def saturate(self, v: SSAValue, zp: SSAValue, bounds: tuple[int, int] | None = None) -> SSAValue:
        """Float `v` plus the zero point, rounded values clamped to `bounds` (by
        default the zero point's type's range), then cast to the zero point's type."""
        lo, hi = bounds if bounds is not None else qnn.quantized_range(_elem(zp))
        shifted = self(relay.AddOp(v, self.cast(zp, _elem(v))))
        clipped = self(relay.ClipOp(shifted, a_min=FloatAttr(lo, f64), a_max=FloatAttr(hi, f64)))
        return self.cast(clipped, _elem(zp))


def _elem(v: SSAValue) -> Attribute:
    return v.type.get_element_type()  # type: ignore[attr-defined]


def _quantize(b: _Builder, op: qnn.QuantizeOp) -> SSAValue:
    x, scale, zp = op.operands
    scaled = b(relay.DivideOp(x, b.cast(scale, _elem(x))))
    return b.saturate(b(relay.RoundOp(scaled)), zp)


def _dequantize(b: _Builder, op: qnn.DequantizeOp) -> SSAValue:
    q, scale, zp = op.operands
    ft = _elem(scale)
    if _elem(q) == I32:  # in i64 first: q and zp may not be floats, their difference is
        i64 = IntegerType(64)
        centred = b.cast(b(relay.SubtractOp(b.cast(q, i64), b.cast(zp, i64))), ft)
    else:  # 8 and 16 bits are exact in float
        centred = b(relay.SubtractOp(b.cast(q, ft), b.cast(zp, ft)))
    return b(relay.MultiplyOp(centred, scale))


def _requantize(b: _Builder, op: qnn.RequantizeOp) -> SSAValue:
    acc, multiplier, zp = op.operands
    product = b(relay.MultiplyOp(b.cast(acc, f32), b.cast(multiplier, f32)))
    return b.saturate(b(relay.RoundOp(product)), zp, qnn.clamp_range(op, _elem(zp)))


def _centred(b: _Builder, v: SSAValue, zp: SSAValue) -> SSAValue:
    return b(relay.SubtractOp(b.cast(v, I32), b.cast(zp, I32)))


def _matmul(b: _Builder, op: qnn.MatMulOp) -> SSAValue:
    a, w, a_zp, w_zp = op.operands
    return b(relay.MatmulOp(_centred(b, a, a_zp), _centred(b, w, w_zp)))


def _conv2d(b: _Builder, op: qnn.Conv2DOp) -> SSAValue:
    x, w, x_zp, w_zp = op.operands
    xc, wc = _centred(b, x, x_zp), _centred(b, w, w_zp)
    n = shape_of(x.type)[0]
    o, cg, kh, kw = shape_of(w.type)
    _, _, oh, ow = shape_of(op.results[0].type)
    groups = op.attrs.groups
    a = op.attrs
    given = {"strides": a.strides, "padding": a.padding, "dilation": a.dilation}
    window = {k: relay.i64_array(v) for k, v in given.items() if v is not None}
    depth = cg * kh * kw
    cols = b(relay.Im2ColOp(xc, kernel_size=relay.i64_array([kh, kw]), **window))
    if groups == 1:
        cols = b(relay.ReshapeOp(cols, shape=relay.i64_array([n, depth, oh * ow])))
        flat = b(relay.ReshapeOp(wc, shape=relay.i64_array([o, depth])))
    else:  # the groups as a batch: [groups, O/groups, depth] x [n, groups, depth, OH*OW]
        cols = b(relay.ReshapeOp(cols, shape=relay.i64_array([n, groups, depth, oh * ow])))
        flat = b(relay.ReshapeOp(wc, shape=relay.i64_array([groups, o // groups, depth])))
    y = b(relay.MatmulOp(flat, cols))
    return b(relay.ReshapeOp(y, shape=relay.i64_array([n, o, oh, ow])))


def _softmax(b: _Builder, op: qnn.SoftmaxOp) -> SSAValue:
    x, x_scale, _, y_scale, y_zp = op.operands
    shape = shape_of(x.type)
    axis = op.attrs.axis % len(shape)
    along = {"axes": relay.i64_array([axis]), "keepdims": UnitAttr()}
    codes = b.cast(x, I32)
    below = b(relay.SubtractOp(codes, b(relay.MaxOp(codes, **along))))
    index = b(relay.AddOp(below, _constant(b, np.int32(255), I32)))
    e = b(relay.TakeOp(_exp_table(b, x_scale, int(shape[axis])), index, axis=relay.i64_attr(0)))
    inverse = b(relay.DivideOp(_constant(b, np.float32(1), f32), b.cast(y_scale, f32)))
    scaled = b(relay.MultiplyOp(e, b(relay.FloorOp(inverse))))
    return b.saturate(b(relay.RoundOp(b(relay.DivideOp(scaled, b(relay.SumOp(e, **along, ordered=UnitAttr())))))), y_zp)


def _exp_table(b: _Builder, x_scale: SSAValue, size: int) -> SSAValue:
    """`T[k] = f32(exp((k - 255 + c / xs) * xs))` for k in 0..255, in f64, with
    onnxruntime's headroom `c` against overflowing a sum of `size` terms."""
    ln = np.float32(math.log(np.float32(np.finfo(np.float32).max) / np.float32(size)))  # a float log, as there
    headroom = max(0.0, float(ln) - 5.0)
    xs = b(relay.ReshapeOp(b.cast(x_scale, f64), shape=relay.i64_array([])))
    shift = b(relay.DivideOp(_constant(b, np.float64(headroom), f64), xs))
    steps = b(relay.AddOp(_constant(b, np.arange(-255.0, 1.0), f64), shift))
    return b.cast(b(relay.ExpOp(b(relay.MultiplyOp(steps, xs)))), f32)


def _constant(b: _Builder, arr: np.ndarray | np.generic, elem: Attribute) -> SSAValue:
    data = np.asarray(arr)
    return b(make_constant(data, TensorType(elem, data.shape), "qnn"))


def _add(b: _Builder, op: qnn.AddOp) -> SSAValue:
    """onnxruntime's QLinearAdd (MLAS): `round(a * ra + (b * rb + k))` in f32,
    the ratios `ra = a_s / y_s`, `rb = b_s / y_s` and the offset
    `k = y_zp - (ra * a_zp + rb * b_zp)`, each product fused into its sum."""
    a, w, a_s, a_zp, w_s, w_zp, y_s, y_zp = op.operands
    ratios = [b(relay.DivideOp(b.cast(s, f32), b.cast(y_s, f32))) for s in (a_s, w_s)]
    params = [constant_value(v) for v in (a_s, a_zp, w_s, w_zp, y_s, y_zp)]
    if all(p is not None for p in params):
        offset = _constant(b, add_offset(*params), f32)  # type: ignore[arg-type]
    else:  # (the products contract into an FMA as there: the first one)
        zps = [b.cast(z, f32) for z in (a_zp, w_zp)]
        both = b(relay.AddOp(b(relay.MultiplyOp(ratios[0], zps[0])), b(relay.MultiplyOp(ratios[1], zps[1]))))
        offset = b(relay.SubtractOp(b.cast(y_zp, f32), both))
    inner = b(relay.AddOp(b(relay.MultiplyOp(b.cast(w, f32), ratios[1])), offset))
    total = b(relay.AddOp(b(relay.MultiplyOp(b.cast(a, f32), ratios[0])), inner))
    lo, hi = qnn.quantized_range(_elem(y_zp))
    clipped = b(relay.ClipOp(b(relay.RoundOp(total)), a_min=FloatAttr(lo, f64), a_max=FloatAttr(hi, f64)))
    return b.cast(clipped, _elem(y_zp))


def _fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """`a * b + c` of f32 arrays rounded once to f32 (the products and the sum
    are exact in extended precision for these operands)."""
    wide = np.longdouble
    return (a.astype(wide) * b.astype(wide) + c.astype(wide)).astype(np.float32)


def add_offset(
    a_s: np.ndarray, a_zp: np.ndarray, b_s: np.ndarray, b_zp: np.ndarray, y_s: np.ndarray, y_zp: np.ndarray
) -> np.ndarray:
    """`qnn.add`'s offset `y_zp - fma(ra, a_zp, rb * b_zp)` in f32, as
    onnxruntime's kernel computes it."""
    f = np.float32
    ra, rb = a_s.astype(f) / y_s.astype(f), b_s.astype(f) / y_s.astype(f)
    return (y_zp.astype(f) - _fma32(ra, a_zp.astype(f), rb * b_zp.astype(f))).astype(f)


def _binary(kind: type[relay.RelayOp]) -> Callable[[_Builder, Operation], SSAValue]:
    def rewrite(b: _Builder, op: Operation) -> SSAValue:
        a, w, a_s, a_zp, w_s, w_zp, y_s, y_zp = op.operands
        real = b(kind(b(qnn.DequantizeOp(a, a_s, a_zp)), b(qnn.DequantizeOp(w, w_s, w_zp))))
        return b(qnn.QuantizeOp(real, y_s, y_zp))

    return rewrite


REWRITES: dict[type[Operation], Callable[[_Builder, Operation], SSAValue]] = {
    qnn.QuantizeOp: _quantize,  # type: ignore[dict-item]
    qnn.DequantizeOp: _dequantize,  # type: ignore[dict-item]
    qnn.RequantizeOp: _requantize,  # type: ignore[dict-item]
    qnn.MatMulOp: _matmul,  # type: ignore[dict-item]
    qnn.Conv2DOp: _conv2d,  # type: ignore[dict-item]
    qnn.AddOp: _add,  # type: ignore[dict-item]
    qnn.MulOp: _binary(relay.MultiplyOp),
    qnn.SoftmaxOp: _softmax,  # type: ignore[dict-item]
}


def canonicalize_qnn(root: Operation) -> int:
    """Rewrite every qnn op under `root` into relay ops; the number rewritten."""
    total = 0
    while True:
        ops = [op for op in root.walk() if type(op) in REWRITES]
        if not ops:
            return total
        for op in ops:
            value = REWRITES[type(op)](_Builder(op), op)
            op.results[0].replace_all_uses_with(value)
            Rewriter.erase_op(op)
            record_statistic(f"qnn-canonicalize.{op.name.split('.')[1]}")
            total += 1


@register_pass
@dataclass(frozen=True)
class QnnCanonicalizePass(ModulePass):
    """qnn ops to relay integer and float ops."""

    name = "qnn-canonicalize"
    opt_level: ClassVar[int] = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        canonicalize_qnn(op)


__all__ = ["REWRITES", "QnnCanonicalizePass", "canonicalize_qnn"]
