"""Quantization parameters read from the graph, and the integer ops built from
them: the helpers of `qnn-fold-qdq` (`qnn_qdq.py`).

- `constant_value(v)`: `v`'s data when it is computed from constants only (a
  `relay.constant`, relay ops with a numpy evaluator over constants, a
  `qnn.dequantize` of constants): the importer reshapes per-axis scales, so
  they reach the pass as `reshape(constant)`;
- `Quantized`: the integer tensor behind a `qnn.dequantize` (or produced by a
  `qnn.quantize`) with its scale and zero point as numpy arrays;
- `along(p, rank, axis)`: a scale or zero point as a scalar or a vector along
  one axis (None when it varies along another);
- `constant`, `widen`, `rescale`: new ops (unattached; the pattern rewriter
  inserts them): an integer `relay.constant`, `i32(q) - zp`, and one quantized
  tensor brought to another's scale and zero point (`qnn.requantize`, or the
  tensor itself, clipped, when they already agree).

A reason a chain is left in float is a short kebab-case string (`Reason`); the
pass reports it in its statistics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, OpResult, SSAValue

from lamina.dialects import qnn, relay
from lamina.dialects.dtypes import element_type, numpy_dtype
from lamina.dialects.relay.constant import make_constant, value_data
from lamina.transforms.graph.fold_constant import EVALUATORS, NotFoldable

#: Why a chain stays in float, e.g. "scale-not-constant".
Reason: TypeAlias = str
I32 = qnn.I32
#: How many ops deep `constant_value` looks through (reshapes and casts of a
#: scale are one or two).
DEPTH = 6


def constant_value(v: SSAValue, depth: int = DEPTH) -> np.ndarray | None:
    """The data of `v` when only constants feed it, else None."""
    data = value_data(v)
    if data is not None or depth == 0 or not isinstance(v, OpResult):
        return data
    op = v.op
    if isinstance(op, qnn.QnnOp) and not isinstance(op, qnn.DequantizeOp):
        return None
    if not isinstance(op, relay.RelayOp) or len(op.results) != 1 or not op.operands:
        return None
    args = [constant_value(o, depth - 1) for o in op.operands]
    if any(a is None for a in args):
        return None
    if isinstance(op, qnn.DequantizeOp):
        q, scale, zp = args
        diff = (q.astype(np.int64) - zp.astype(np.int64)).astype(scale.dtype)  # type: ignore[union-attr]
        return diff * scale
    evaluator = EVALUATORS.lookup(op.name)
    if evaluator is None:
        return None
    try:
        with np.errstate(all="ignore"):
            out = evaluator(op, args)  # type: ignore[arg-type]
    except NotFoldable:
        return None
    if out is None:
        return None
    return np.asarray(out).astype(numpy_dtype(element(v)), copy=False)


def element(v: SSAValue) -> Attribute:
    """The element type of a tensor value."""
    t = v.type
    assert isinstance(t, TensorType)
    return t.get_element_type()


def shape(v: SSAValue) -> tuple[int, ...]:
    """A static shape (the pass leaves values of symbolic shape alone)."""
    t = v.type
    assert isinstance(t, TensorType)
    return tuple(int(d) for d in t.get_shape())


@dataclass(frozen=True)
class Quantized:
    """An integer tensor `q` and the scale and zero point it is read with:
    `real = (q - zp) * scale` (numpy arrays that broadcast against `q`)."""

    q: SSAValue
    scale: np.ndarray
    zp: np.ndarray

    @property
    def elem(self) -> Attribute:
        return element(self.q)

    @property
    def per_tensor(self) -> bool:
        return self.scale.size == 1 and self.zp.size == 1

    def agrees(self, other: Quantized) -> bool:
        """Whether both read their integers the same way (type, scale, zero point)."""
        return (
            self.elem == other.elem
            and self.per_tensor
            and other.per_tensor
            and float(self.scale.reshape(())) == float(other.scale.reshape(()))
            and int(self.zp.reshape(())) == int(other.zp.reshape(()))
        )


def params(q: SSAValue, scale: SSAValue, zp: SSAValue) -> Quantized | Reason:
    """`q` with its scale and zero point, when both are constants."""
    s, z = constant_value(scale), constant_value(zp)
    if s is None or z is None:
        return "scale-not-constant"
    if element(q) not in qnn.QUANTIZED[:2]:
        return f"{element(q)}-operand"
    if not (np.isfinite(s).all() and (s > 0).all()):
        return "scale-not-positive"
    return Quantized(q, s.astype(np.float32), z.astype(np.int64))


def dequantized(v: SSAValue) -> Quantized | Reason:
    """The u8/s8 tensor behind `v = qnn.dequantize(q, scale, zp)`."""
    if not (isinstance(v, OpResult) and isinstance(v.op, qnn.DequantizeOp)):
        return "operand-not-dequantized"
    return params(*v.op.operands)


def output(op: qnn.QuantizeOp) -> Quantized | Reason:
    """What a `qnn.quantize` produces, when it quantizes per tensor."""
    out = params(op.results[0], op.scale, op.zero_point)
    if isinstance(out, Quantized) and not out.per_tensor:
        return "per-channel-output"
    return out


def along(p: np.ndarray, rank: int, axis: int) -> np.ndarray | None:
    """`p` (broadcasting against a tensor of `rank`) as a scalar, or as a vector
    along `axis`; None when it varies along another axis."""
    if p.size == 1:
        return p.reshape(())
    if p.ndim > rank:
        return None
    full = (1,) * (rank - p.ndim) + p.shape
    if any(d != 1 for a, d in enumerate(full) if a != axis):
        return None
    return p.reshape(-1)


def placed(v: np.ndarray, rank: int, axis: int) -> np.ndarray:
    """A scalar as it is, a vector shaped to broadcast along `axis` of a tensor of
    `rank` (trailing ones only: `[O, 1, 1]` for axis 1 of NCHW)."""
    if v.ndim == 0:
        return v
    return v.reshape([-1] + [1] * (rank - axis - 1))


def constant(arr: np.ndarray, elem: Attribute | None = None, name: str = "qdq") -> SSAValue:
    """A new (unattached) `relay.constant` of `arr`, in `elem` if given."""
    elem = elem if elem is not None else element_type(arr.dtype)
    return make_constant(arr, TensorType(elem, arr.shape), name).result


def widen(q: SSAValue, zp: np.ndarray) -> SSAValue:
    """`i32(q) - zp`: the integers centred on their zero point."""
    wide = relay.CastOp(q, dtype=I32).results[0]
    if not zp.any():
        return wide
    return relay.SubtractOp(wide, constant(zp.astype(np.int32), I32)).results[0]


def clamp_bounds(act: str | None, low: float | None, high: float | None, out: Quantized) -> tuple[int, int]:
    """The integer range of `quantize(act(x))`: quantization is monotone, so a
    relu or a clip after it is a narrower clamp of the integers (exact)."""
    lo, hi = qnn.quantized_range(out.elem)
    zp = int(out.zp.reshape(()))
    s = np.float32(out.scale.reshape(()))
    if act == "relu":
        lo = max(lo, zp)
    if act == "clip":  # each bound quantized as qnn.quantize does: f32 division
        if low is not None:
            lo = max(lo, min(hi, int(np.rint(np.float32(low) / s)) + zp))
        if high is not None:
            hi = min(hi, max(lo, int(np.rint(np.float32(high) / s)) + zp))
    return lo, hi


def requantize(acc: SSAValue, multiplier: np.ndarray, out: Quantized, bounds: tuple[int, int]) -> SSAValue:
    """`qnn.requantize` of an i32 accumulator to `out`'s zero point and type,
    its clamp range `bounds` (set only where narrower than the type's)."""
    lo, hi = bounds
    full = qnn.quantized_range(out.elem)
    props = {}
    if lo != full[0]:
        props["out_min"] = relay.i64_attr(lo)
    if hi != full[1]:
        props["out_max"] = relay.i64_attr(hi)
    zp = constant(out.zp.reshape(()), out.elem)
    op = qnn.RequantizeOp(acc, constant(multiplier.astype(np.float32)), zp, **props)
    return op.results[0]


def rescale(x: Quantized, out: Quantized, bounds: tuple[int, int]) -> SSAValue:
    """`x`'s integers read with `out`'s scale and zero point and clamped to
    `bounds`: `x` itself (clipped if `bounds` is narrower) when they agree, else
    `requantize(i32(q) - zp, s / s_out)`. Monotone, so it commutes with the max
    and the data movement between them."""
    if x.agrees(out):
        if bounds == qnn.quantized_range(out.elem):
            return x.q
        clip = relay.ClipOp(x.q, a_min=relay.f64_attr(bounds[0]), a_max=relay.f64_attr(bounds[1]))
        return clip.results[0]
    multiplier = np.float32(x.scale.reshape(())) / np.float32(out.scale.reshape(()))
    return requantize(widen(x.q, x.zp.reshape(())), np.asarray(multiplier), out, bounds)


__all__ = [
    "Quantized",
    "Reason",
    "along",
    "clamp_bounds",
    "constant",
    "constant_value",
    "dequantized",
    "element",
    "output",
    "params",
    "placed",
    "requantize",
    "rescale",
    "shape",
    "widen",
]
