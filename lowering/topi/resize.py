"""The computes of `relay.resize` and `relay.dyn_resize` (ONNX Resize).

Each output index maps to an input coordinate by ONNX's formulas, evaluated in
f64 as its reference does; nearest reads the rounded coordinate, linear and
cubic weigh the 2 or 4 neighbours along every resized axis (indices clamped to
the edge), with `exclude_outside`'s renormalization and `antialias`' widened
kernel; outside the roi of `tf_crop_and_resize`, the extrapolation value.

One set of formulas serves both ops: a scale, an extent or a roi bound is a
Python number when it is known while compiling (`relay.resize`: folded, as
before) or a value read when the kernel runs (`relay.dyn_resize`'s `params`
operand, its sizes set by the data).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import TensorType, f64, i64
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.shapes import dims
from lamina.dialects.te import ReduceKind
from lamina.lowering.lang.expr import Expr, is_float
from lamina.lowering.topi.base import Kernel, _shape, _tensor, _type, register_compute
from lamina.symbolic import Dim

#: A scalar known while compiling, or an f64 value computed when the kernel runs.
Scalar = float | SSAValue


class _F:
    """f64 arithmetic on scalars: Python numbers fold, values become ops."""

    def __init__(self, e: Expr):
        self.e = e

    def v(self, x: Scalar) -> SSAValue:
        return x if isinstance(x, SSAValue) else self.e.const(float(x), f64)

    def _op(self, a: Scalar, b: Scalar, py: Callable[[float, float], float], ir: Callable[[SSAValue, SSAValue], SSAValue]) -> Scalar:
        if not isinstance(a, SSAValue) and not isinstance(b, SSAValue):
            return py(a, b)
        return ir(self.v(a), self.v(b))

    def add(self, a: Scalar, b: Scalar) -> Scalar:
        return self._op(a, b, lambda x, y: x + y, self.e.add)

    def sub(self, a: Scalar, b: Scalar) -> Scalar:
        return self._op(a, b, lambda x, y: x - y, self.e.sub)

    def mul(self, a: Scalar, b: Scalar) -> Scalar:
        return self._op(a, b, lambda x, y: x * y, self.e.mul)

    def div(self, a: Scalar, b: Scalar) -> Scalar:
        return self._op(a, b, lambda x, y: x / y, self.e.div)

    def if_one(self, width: Scalar, one: Callable[[], Scalar], other: Callable[[], Scalar]) -> Scalar:
        """`one()` where `width == 1`, else `other()`."""
        if not isinstance(width, SSAValue):
            return one() if width == 1 else other()
        return self.e.select(self.e.cmp("eq", width, self.v(1.0)), self.v(one()), self.v(other()))


@dataclass(frozen=True)
class _ResizeAxis:
    """How output indices along one axis map to input coordinates."""

    size: Dim  # input extent
    out: Dim  # output extent
    scale: Scalar
    mode: str
    roi: tuple[Scalar, Scalar]
    resized: bool = True

    @property
    def identity(self) -> bool:
        return not self.resized or (
            self.out == self.size
            and self.scale == 1.0
            and (self.mode != "tf_crop_and_resize" or self.roi == (0.0, 1.0))
        )

    def coordinate(self, e: Expr, y: SSAValue) -> SSAValue:
        """The input coordinate of output index `y`, as an f64."""
        f = _F(e)
        yf = e.from_index(y, f64)
        size = float(self.size) if isinstance(self.size, int) else e.from_index(e.index(self.size), f64)
        out = float(self.out) if isinstance(self.out, int) else e.from_index(e.index(self.out), f64)
        width = f.mul(self.scale, size)  # the unrounded output extent

        def scaled() -> SSAValue:  # (y + 0.5) / scale - 0.5
            return f.v(f.sub(f.div(f.add(yf, 0.5), self.scale), 0.5))

        if self.mode == "half_pixel":
            return scaled()
        if self.mode == "half_pixel_symmetric":
            offset = f.mul(f.div(size, 2), f.sub(1, f.div(out, width)))
            return f.v(f.sub(f.add(offset, f.div(f.add(yf, 0.5), self.scale)), 0.5))
        if self.mode == "pytorch_half_pixel":
            return f.v(f.if_one(width, lambda: -0.5, scaled))
        if self.mode == "asymmetric":
            return f.v(f.div(yf, self.scale))
        if self.mode == "align_corners":
            return f.v(f.if_one(width, lambda: 0.0, lambda: f.div(f.mul(yf, f.sub(size, 1)), f.sub(width, 1))))
        lo, hi = self.roi  # tf_crop_and_resize
        x = f.if_one(
            width,
            lambda: f.div(f.mul(f.sub(hi, lo), f.sub(size, 1)), 2),
            lambda: f.div(f.mul(f.mul(yf, f.sub(hi, lo)), f.sub(size, 1)), f.sub(width, 1)),
        )
        return f.v(f.add(x, f.mul(lo, f.sub(size, 1))))


def _nearest(e: Expr, x: SSAValue, rounding: str) -> SSAValue:
    """Round an input coordinate (f64) to an i64 index as ONNX's `nearest_mode`:
    ties go down with round_prefer_floor (`ceil(x - 1/2)`), up with
    round_prefer_ceil (`floor(x + 1/2)`)."""
    rounded = {
        "floor": lambda: e.floor(x),
        "ceil": lambda: e.math(mathd.CeilOp, x),
        "round_prefer_floor": lambda: e.math(mathd.CeilOp, e.sub(x, e.const(0.5, f64))),
        "round_prefer_ceil": lambda: e.floor(e.add(x, e.const(0.5, f64))),
    }[rounding]()
    return e.cast(rounded, i64)


def _resize_kernel(e: Expr, method: str, t: SSAValue, alpha: float) -> SSAValue:
    """The interpolation kernel at distance `t` (f64): linear's triangle, or the
    cubic convolution kernel with coefficient `alpha`."""

    def c(v: float) -> SSAValue:
        return e.const(v, f64)

    d = e.abs(t)
    if method == "linear":
        return e.max(e.sub(c(1), d), c(0))
    near = e.add(e.mul(e.mul(e.sub(e.mul(c(alpha + 2), d), c(alpha + 3)), d), d), c(1))
    far = e.sub(
        e.mul(e.add(e.mul(e.sub(e.mul(c(alpha), d), c(5 * alpha)), d), c(8 * alpha)), d),
        c(4 * alpha),
    )
    outer = e.select(e.cmp("lt", d, c(2)), far, c(0))
    return e.select(e.cmp("le", d, c(1)), near, outer)


def _interpolate(
    k: Kernel, op: relay.RelayOp, x: SSAValue, maps: Callable[[Expr], Sequence[_ResizeAxis]], antialias: bool
) -> SSAValue:
    """The resize compute; `maps(e)` gives the per-axis maps inside the body
    (where the scalars a kernel reads when it runs can be read)."""
    out = _type(op)
    mode = op.attrs.coordinate_transformation_mode
    method = op.attrs.method
    rounding = op.attrs.rounding_method
    alpha = op.attrs.cubic_alpha
    exclude = op.attrs.cubic_exclude
    extrapolation = op.attrs.extrapolation_value
    elem = out.get_element_type()
    interpolate = method != "nearest_neighbor"
    support = 1 if method == "linear" else 2

    def taps(ax: _ResizeAxis) -> tuple[float, list[int]]:
        """The kernel's scale along an axis (below 1 when antialiasing a
        downscale) and the neighbour offsets from floor(x) it covers."""
        s = min(float(ax.scale), 1.0) if antialias else 1.0  # (antialias: a known scale)
        start = math.floor(-support / s) + 1
        return s, list(range(start, 2 - start))

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        outside: list[SSAValue] = []
        # Per axis: (index, weight) pairs; a single pair for identity/nearest.
        choices: list[list[tuple[SSAValue, SSAValue | None]]] = []
        for ax, y in zip(maps(e), idx, strict=True):
            if ax.identity:
                choices.append([(y, None)])
                continue
            coord = ax.coordinate(e, y)
            last = ax.size - 1
            if mode == "tf_crop_and_resize":
                top = e.const(float(last), f64) if isinstance(last, int) else e.from_index(e.index(last), f64)
                outside.append(e.or_(e.cmp("lt", coord, e.const(0.0, f64)), e.cmp("gt", coord, top)))
            if not interpolate:
                i = e.to_index(_nearest(e, coord, rounding))
                choices.append([(e.clamp(i, 0, last), None)])
                continue
            base = e.floor(coord)
            start = e.to_index(e.cast(base, i64))
            shrink, offsets = taps(ax)
            points, weights = [], []
            for t in offsets:
                p = e.ishift(start, t)
                dist = e.sub(e.add(base, e.const(float(t), f64)), coord)
                if shrink != 1.0:
                    dist = e.mul(dist, e.const(shrink, f64))
                w = _resize_kernel(e, method, dist, alpha)
                if exclude:
                    w = e.select(e.in_range(p, 0, ax.size), w, e.const(0.0, f64))
                points.append(p)
                weights.append(w)
            if exclude or antialias:
                total = weights[0]
                for w in weights[1:]:
                    total = e.add(total, w)
                weights = [e.div(w, total) for w in weights]
            choices.append([(e.clamp(p, 0, last), w) for p, w in zip(points, weights, strict=True)])
        if not interpolate:
            value = e.read(x, [c[0][0] for c in choices])
        else:
            acc: SSAValue | None = None
            for combo in itertools.product(*choices):
                v = e.cast(e.read(x, [p for p, _ in combo]), f64)
                for _, w in combo:
                    if w is not None:
                        v = e.mul(v, w)
                acc = v if acc is None else e.add(acc, v)
            assert acc is not None
            value = e.cast(acc, elem)
        if outside:
            fill = e.const(extrapolation if is_float(elem) else int(extrapolation), elem)
            value = e.select(e.or_all(outside), fill, value)
        return value

    return k.compute(out, body)


@register_compute(relay.ResizeOp)
def resize(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """Resize to a known size, with known scales and roi."""
    (x,) = ins
    shape = _shape(x)
    size = dims(_type(op))
    rank = len(shape)
    scales = op.attrs.scales or tuple(
        o / i if i else 1.0 for o, i in zip(size, shape, strict=True)
    )
    roi = op.attrs.roi or (0.0,) * rank + (1.0,) * rank
    mode = op.attrs.coordinate_transformation_mode
    axes = [
        _ResizeAxis(shape[a], size[a], scales[a], mode, (roi[a], roi[rank + a]))
        for a in range(rank)
    ]
    return _interpolate(k, op, x, lambda e: axes, op.attrs.antialias)


@register_compute(relay.DynResizeOp)
def dyn_resize(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """Resize to sizes set by the data, the scales and roi read from `params`
    (`[scales, roi begins, roi ends]`) when the kernel runs."""
    x, _, params, *taps = ins
    assert isinstance(op, relay.DynResizeOp)
    shape = _shape(x)
    size = dims(_type(op))
    rank = len(shape)
    mode = op.attrs.coordinate_transformation_mode
    resized = set(op.resized)

    def maps(e: Expr) -> list[_ResizeAxis]:
        def at(i: int) -> SSAValue:
            return e.read(params, [e.index(i)])

        return [
            _ResizeAxis(shape[a], size[a], at(a), mode, (at(rank + a), at(2 * rank + a)), a in resized)
            for a in range(rank)
        ]

    if taps:  # antialias: the taps' count along each resized axis is a size
        return _antialiased(k, op, x, maps, {a: dims(_type_of(t))[0] for a, t in zip(op.resized, taps, strict=True)})
    return _interpolate(k, op, x, maps, antialias=False)


def _type_of(v: SSAValue) -> TensorType:
    assert isinstance(v.type, TensorType)
    return v.type


def _antialiased(
    k: Kernel, op: relay.RelayOp, x: SSAValue, maps: Callable[[Expr], Sequence[_ResizeAxis]], taps: dict[int, Dim]
) -> SSAValue:
    """The antialiased (linear or cubic) resize over scales read when the
    kernel runs: the kernel is widened by `1 / min(scale, 1)` along each
    resized axis, so its taps there are a size (`taps[axis]`) and the value is
    a reduction over them, `sum x[p] * prod_a w_a / prod_a sum_a w_a` (ONNX's
    separable weights, normalized per axis: one reduction per axis for the
    sums, one for the weighted values, in f64, then their quotient)."""
    out = _type(op)
    method = op.attrs.method
    alpha = op.attrs.cubic_alpha
    exclude = op.attrs.cubic_exclude
    support = 1.0 if method == "linear" else 2.0
    resized = sorted(taps)

    def tap(e: Expr, ax: _ResizeAxis, y: SSAValue, t: SSAValue) -> tuple[SSAValue, SSAValue]:
        """Tap `t` of output index `y`: the input index it reads (clamped) and its weight."""
        coord = ax.coordinate(e, y)
        scale = ax.scale if isinstance(ax.scale, SSAValue) else e.const(float(ax.scale), f64)
        shrink = e.min(scale, e.const(1.0, f64))
        first = e.add(e.floor(e.div(e.const(-support, f64), shrink)), e.const(1.0, f64))
        at = e.add(e.add(e.floor(coord), first), e.from_index(t, f64))
        w = _resize_kernel(e, method, e.mul(e.sub(at, coord), shrink), alpha)
        p = e.to_index(e.cast(at, i64))
        if exclude:
            w = e.select(e.in_range(p, 0, ax.size), w, e.const(0.0, f64))
        return e.clamp(p, 0, ax.size - 1), w

    def total(a: int) -> SSAValue:
        def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
            return tap(e, maps(e)[a], idx[0], idx[1])[1]

        return k.compute(_tensor([dims(out)[a]], f64), body, ReduceKind.SUM, [taps[a]])

    sums = {a: total(a) for a in resized}

    def weighted(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        at, ts = list(idx[: len(dims(out))]), dict(zip(resized, idx[len(dims(out)) :], strict=True))
        value_at, weight = list(at), None
        for a, ax in enumerate(maps(e)):
            if a in ts:
                value_at[a], w = tap(e, ax, at[a], ts[a])
                weight = w if weight is None else e.mul(weight, w)
        v = e.cast(e.read(x, value_at), f64)
        return v if weight is None else e.mul(v, weight)

    extents = [taps[a] for a in resized]
    num = k.compute(_tensor(dims(out), f64), weighted, ReduceKind.SUM, extents)
    extrapolation = op.attrs.extrapolation_value
    mode = op.attrs.coordinate_transformation_mode

    def normalized(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        v = e.read(num, idx)
        for a in resized:
            v = e.div(v, e.read(sums[a], [idx[a]]))
        value = e.cast(v, out.get_element_type())
        if mode != "tf_crop_and_resize":
            return value
        outside = []
        for a, ax in enumerate(maps(e)):
            if a in taps:
                coord = ax.coordinate(e, idx[a])
                top = e.from_index(e.index(ax.size - 1), f64)
                outside.append(e.or_(e.cmp("lt", coord, e.const(0.0, f64)), e.cmp("gt", coord, top)))
        fill = e.const(extrapolation if is_float(out.get_element_type()) else int(extrapolation), out.get_element_type())
        return e.select(e.or_all(outside), fill, value)

    return k.compute(out, normalized)


__all__ = ["dyn_resize", "resize"]
