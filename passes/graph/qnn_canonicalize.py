"""`qnn-canonicalize`: the qnn ops as relay integer and float ops (TVM's
`qnn.transform.CanonicalizeOps`), so every later pass and lowering applies.

- `quantize(x, s, zp)`: `cast(clip(round(x / s) + zp, qmin, qmax))`;
- `dequantize(q, s, zp)`: `(float(q) - float(zp)) * s` (an i32 `q - zp` in i64);
- `requantize(acc, m, zp)`: `cast(clip(round(f32(acc) * f32(m)) + zp))`, the
  clip to its clamp range (`out_min`/`out_max`, a folded relu or clip);
- `matmul(a, b, a_zp, b_zp)`: `matmul(i32(a) - a_zp, i32(b) - b_zp)`;
- `conv2d(x, w, x_zp, w_zp)`: the zero-point-corrected operands in i32, then
  per group `im2col` and a matmul of the flattened weight by the columns;
- `add`/`mul`: dequantize both, add or multiply in float, quantize.

A constant weight's correction (`i32(w) - w_zp`) is folded by `fold-constant`,
so it is computed once, at compile time. Counter: `qnn-canonicalize.<op>`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import FloatAttr, IntegerType, ModuleOp, f32, f64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from lamina.dialects import qnn, relay
from lamina.dialects.relay.base import int_prop, ints_prop, shape_of
from lamina.passes import record_statistic
from lamina.passes.registry import register_pass

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
    groups = int_prop(op, "groups", 1)
    window = {k: relay.i64_array(ints_prop(op, k)) for k in ("strides", "padding", "dilation") if k in op.properties}
    og = o // groups
    outs = []
    for g in range(groups):
        xg = xc if groups == 1 else _slice(b, xc, 1, g * cg, (g + 1) * cg)
        wg = wc if groups == 1 else _slice(b, wc, 0, g * og, (g + 1) * og)
        cols = b(relay.Im2ColOp(xg, kernel_size=relay.i64_array([kh, kw]), **window))
        cols = b(relay.ReshapeOp(cols, shape=relay.i64_array([n, cg * kh * kw, oh * ow])))
        flat = b(relay.ReshapeOp(wg, shape=relay.i64_array([og, cg * kh * kw])))
        outs.append(b(relay.MatmulOp(flat, cols)))
    y = outs[0] if groups == 1 else b(relay.ConcatenateOp(*outs, axis=relay.i64_attr(1)))
    return b(relay.ReshapeOp(y, shape=relay.i64_array([n, o, oh, ow])))


def _slice(b: _Builder, v: SSAValue, axis: int, start: int, stop: int) -> SSAValue:
    shape = list(shape_of(v.type))
    begin = [0] * len(shape)
    end = list(shape)
    begin[axis], end[axis] = start, stop
    return b(relay.StridedSliceOp(v, begin=relay.i64_array(begin), end=relay.i64_array(end)))


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
    qnn.AddOp: _binary(relay.AddOp),
    qnn.MulOp: _binary(relay.MultiplyOp),
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
