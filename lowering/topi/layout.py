"""Layout computes: every output element reads one input element at a
computed index (reshape, transpose, concatenate, split, strided_slice, take,
gather, broadcast_to, tile, pad, trilu), and resize (nearest, or a weighted sum
of neighbours).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import f64, i64
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.shapes import dims
from lamina.lowering.expr import Expr, is_float, is_unsigned
from lamina.lowering.topi.base import (
    Kernel,
    _elem,
    _shape,
    _ttype,
    _type,
    elementwise,
    register_compute,
)
from lamina.symbolic import Dim, Sym, SymbolicError


@register_compute(relay.ReshapeOp)
@register_compute(relay.DynReshapeOp)
def reshape(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """The result's row-major order over the input's (a run-time shape
    operand, `relay.dyn_reshape`'s, is not read: its sizes are)."""
    x = ins[0]
    out = _type(op)
    src = dims(_ttype(x))

    groups = _reshape_groups(src, dims(out))

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        at: list[SSAValue] = []
        for (s0, s1), (o0, o1) in groups:  # each group of axes maps on its own
            flat = e.linearize(idx[o0:o1], dims(out)[o0:o1])
            at += e.delinearize(flat, src[s0:s1])
        return e.read(x, at)

    return k.compute(out, body)


def _reshape_groups(
    src: Sequence[Dim], out: Sequence[Dim]
) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Runs of axes of `src` and `out` with equal products, shortest first: a
    reshape maps each run on its own (`[b, s, 768] -> [b, s, 12, 64]` keeps `b`
    and `s`, and splits only 768), so symbolic sizes never divide an index."""
    groups = []
    i = j = 0
    while i < len(src) or j < len(out):
        i0, j0 = i, j
        a: Dim = src[i] if i < len(src) else 1
        b: Dim = out[j] if j < len(out) else 1
        i, j = min(i + 1, len(src)), min(j + 1, len(out))
        while a != b and (i < len(src) or j < len(out)):
            if j < len(out) and (i >= len(src) or _divides(b, a)):
                b = b * out[j]
                j += 1
            else:
                a = a * src[i]
                i += 1
        if a != b:  # no common split: one group of everything left
            return [*groups, ((i0, len(src)), (j0, len(out)))]
        groups.append(((i0, i), (j0, j)))
    return groups


def _divides(b: Dim, a: Dim) -> bool:
    """Whether `b` is known to be a proper divisor of `a` (grow `b` next)."""
    try:
        return a != b and a % b == 0
    except SymbolicError:
        return False


@register_compute(relay.TransposeOp)
def transpose(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    (x,) = ins
    perm = relay.ints_prop(op, "perm")
    inverse = [perm.index(d) for d in range(len(perm))]
    return k.compute(_type(op), lambda e, i: e.read(x, [i[p] for p in inverse]))




@register_compute(relay.ConcatenateOp)
def concatenate(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """Each point reads the operand whose range along the axis holds it (every
    operand is read at a clamped index and the right value selected)."""
    out = _type(op)
    axis = relay.normalize_axis(op.name, relay.int_prop(op, "axis", 0), out.get_num_dims())
    parts, offset = [], 0
    for x in ins:
        size = _shape(x)[axis]
        if size:
            parts.append((x, offset, size))
        offset += size

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        value: SSAValue | None = None
        for x, start, size in reversed(parts):
            i = list(idx)
            i[axis] = e.clamp(e.ishift(idx[axis], -start), 0, size - 1)
            v = e.read(x, i)
            if value is None:
                value = v
            else:
                inside = e.cmp("lt", idx[axis], e.index(start + size))
                value = e.select(inside, v, value)
        assert value is not None
        return value

    return k.compute(out, body)


@register_compute(relay.SplitOp)
def split(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> list[SSAValue]:
    (x,) = ins
    axis = relay.normalize_axis(op.name, relay.int_prop(op, "axis", 0), len(_shape(x)))
    starts = [0, *relay.ints_prop(op, "indices")]
    outs = []
    for r, start in enumerate(starts):

        def body(e: Expr, idx: Sequence[SSAValue], start: int = start) -> SSAValue:
            i = list(idx)
            i[axis] = e.ishift(i[axis], start)
            return e.read(x, i)

        outs.append(k.compute(_type(op, r), body))
    return outs


@register_compute(relay.StridedSliceOp)
def strided_slice(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    (x,) = ins
    begin = relay.dims_prop(op, "begin", op.name)
    strides = relay.ints_prop(op, "strides") or (1,) * len(begin)

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        i = [
            e.iadd(e.iscale(v, s), e.index(b)) if isinstance(b, Sym) else e.ishift(e.iscale(v, s), b)
            for v, b, s in zip(idx, begin, strides, strict=True)
        ]
        return e.read(x, i)

    return k.compute(_type(op), body)


def _wrap_index(e: Expr, v: SSAValue, extent: int) -> SSAValue:
    """An index read from a tensor: negative counts from the end, then clamped."""
    i = e.to_index(v)
    if not is_unsigned(v.type):
        neg = e.cmp("lt", i, e.index(0))
        i = e.select(neg, e.iadd(i, e.index(extent)), i)
    return e.clamp(i, 0, extent - 1)


@register_compute(relay.TakeOp)
def take(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    x, indices = ins
    shape = _shape(x)
    axis = relay.normalize_axis(op.name, relay.int_prop(op, "axis", 0), len(shape))
    q = len(_shape(indices))

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        where = e.read(indices, idx[axis : axis + q])
        i = _wrap_index(e, where, shape[axis])
        return e.read(x, [*idx[:axis], i, *idx[axis + q :]])

    return k.compute(_type(op), body)


@register_compute(relay.GatherOp)
def gather(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    x, indices = ins
    shape = _shape(x)
    axis = relay.normalize_axis(op.name, relay.int_prop(op, "axis", 0), len(shape))

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        i = list(idx)
        i[axis] = _wrap_index(e, e.read(indices, idx), shape[axis])
        return e.read(x, i)

    return k.compute(_type(op), body)


@register_compute(relay.GatherNDOp)
def gather_nd(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """Output `[*i, *rest]` (i over the indices' leading axes) reads the data at
    `[*i[:batch_dims], indices[*i, 0], ..., indices[*i, m - 1], *rest]`."""
    x, indices = ins
    shape, ishape = _shape(x), _shape(indices)
    b = relay.int_prop(op, "batch_dims", 0)
    q, m = len(ishape), ishape[-1]

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        lead = list(idx[: q - 1])
        where = [
            _wrap_index(e, e.read(indices, [*lead, e.index(j)]), shape[b + j])
            for j in range(m)
        ]
        return e.read(x, [*lead[:b], *where, *idx[q - 1 :]])

    return k.compute(_type(op), body)


@register_compute(relay.ReverseSequenceOp)
def reverse_sequence(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """Time step `t` of batch entry `j` reads step `n - 1 - t` when `t < n`, with
    `n = seq_lengths[j]` clamped to `0..time`; the others read themselves."""
    x, lengths = ins
    shape = _shape(x)
    batch = relay.normalize_axis(op.name, relay.int_prop(op, "batch_axis", 1), len(shape))
    time = relay.normalize_axis(op.name, relay.int_prop(op, "time_axis", 0), len(shape))

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        n = e.to_index(e.read(lengths, [idx[batch]]))
        if not is_unsigned(_elem(lengths)):
            n = e.imax(n, e.index(0))
        n = e.imin(n, e.index(shape[time]))
        t = idx[time]
        flipped = e.isub(e.isub(n, e.index(1)), t)
        i = list(idx)
        i[time] = e.select(e.cmp("lt", t, n), flipped, t)
        return e.read(x, i)

    return k.compute(_type(op), body)


@register_compute(relay.ArangeOp)
def arange(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    out = _type(op)
    elem = out.get_element_type()
    start = op.properties["start"].value.data  # type: ignore[attr-defined]
    step = op.properties["step"].value.data  # type: ignore[attr-defined]

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        i = e.from_index(idx[0], elem)
        return e.add(e.mul(i, e.const(step, elem)), e.const(start, elem))

    return k.compute(out, body)


@register_compute(relay.DimsOp)
def dims_value(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """A shape as data, at run time (a symbolic trip count, say): each entry
    the value of its dim, computed from the kernel's sizes."""
    values = relay.dims_prop(op, "dims", op.name)

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        out = e.from_index(e.index(values[-1]), i64)
        for at in range(len(values) - 2, -1, -1):
            here = e.cmp("eq", idx[0], e.index(at))
            out = e.select(here, e.from_index(e.index(values[at]), i64), out)
        return out

    return k.compute(_type(op), body)


@register_compute(relay.NarrowOp)
def narrow(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """The valid prefix: a copy over the narrowed extent (the count itself is
    read by `@main`, `te.set_size`)."""
    data = ins[0]
    return k.compute(_type(op), lambda e, idx: e.read(data, idx))


@register_compute(relay.BroadcastToOp)
@register_compute(relay.DynBroadcastToOp)
def broadcast_to(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    return elementwise(k, _type(op), ins[:1], lambda e, x: x)


@register_compute(relay.DynArangeOp)
def dyn_arange(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`[0, n)` over the size the count set."""
    return k.compute(_type(op), lambda e, idx: e.from_index(idx[0], i64))


@register_compute(relay.TileOp)
def tile(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    (x,) = ins
    shape = _shape(x)
    reps = relay.ints_prop(op, "reps")

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        return e.read(
            x,
            [
                v if r == 1 else e.irem(v, e.index(d))
                for v, d, r in zip(idx, shape, reps, strict=True)
            ],
        )

    return k.compute(_type(op), body)


@register_compute(relay.PadOp)
def pad(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """constant: read inside, `pad_value` outside; reflect: mirror without the
    edge, period `2 * (n - 1)`; edge: clamp; wrap: modulo."""
    (x,) = ins
    shape = _shape(x)
    n = len(shape)
    pads = relay.ints_prop(op, "pad_width")
    mode = relay.str_prop(op, "pad_mode", "constant")
    value = relay.float_prop(op, "pad_value", 0.0)
    elem = _elem(x)

    def source(e: Expr, v: SSAValue, d: int) -> SSAValue:
        j = e.ishift(v, -pads[d])
        extent = shape[d]
        if mode == "edge":
            return e.clamp(j, 0, extent - 1)
        if mode == "wrap":
            return e.imod(j, extent)
        if mode == "reflect":
            if extent == 1:
                return e.index(0)
            period = 2 * (extent - 1)
            m = e.imod(j, period)
            return e.select(
                e.cmp("lt", m, e.index(extent)), m, e.isub(e.index(period), m)
            )
        return j

    moved = [pads[d] != 0 or pads[n + d] != 0 for d in range(n)]

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        i = [source(e, v, d) if moved[d] else v for d, v in enumerate(idx)]
        if mode != "constant":
            return e.read(x, i)
        return e.read_or(x, i, value if is_float(elem) else int(value), moved)

    return k.compute(_type(op), body)


@register_compute(relay.TriluOp)
def trilu(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """Keep `x[..., i, j]` where `j - i >= k` (upper) or `j - i <= k` (lower)."""
    x = ins[0]
    upper = relay.flag_prop(op, "upper")

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        off = e.isub(idx[-1], idx[-2])
        diag = e.to_index(e.read(ins[1], [])) if len(ins) == 2 else e.index(relay.int_prop(op, "k", 0))
        keep = e.cmp("ge" if upper else "le", off, diag)
        return e.select(keep, e.read(x, idx), e.const(0, _elem(x)))

    return k.compute(_type(op), body)


@dataclass(frozen=True)
class _ResizeAxis:
    """How output indices along one axis map to input coordinates (ONNX Resize's
    formulas, evaluated in f64 as its reference does)."""

    size: int  # input extent
    out: int  # output extent
    scale: float
    mode: str
    roi: tuple[float, float]

    @property
    def identity(self) -> bool:
        return (
            self.out == self.size
            and self.scale == 1.0
            and (self.mode != "tf_crop_and_resize" or self.roi == (0.0, 1.0))
        )

    def coordinate(self, e: Expr, y: SSAValue) -> SSAValue:
        """The input coordinate of output index `y`, as an f64."""
        yf = e.from_index(y, f64)

        def c(v: float) -> SSAValue:
            return e.const(v, f64)

        width = self.scale * self.size  # the unrounded output extent

        def scaled() -> SSAValue:  # (y + 0.5) / scale - 0.5
            return e.sub(e.div(e.add(yf, c(0.5)), c(self.scale)), c(0.5))

        if self.mode == "half_pixel":
            return scaled()
        if self.mode == "half_pixel_symmetric":
            offset = self.size / 2 * (1 - self.out / width)
            return e.sub(e.add(c(offset), e.div(e.add(yf, c(0.5)), c(self.scale))), c(0.5))
        if self.mode == "pytorch_half_pixel":
            return c(-0.5) if width == 1 else scaled()
        if self.mode == "asymmetric":
            return e.div(yf, c(self.scale))
        if self.mode == "align_corners":
            return c(0.0) if width == 1 else e.div(e.mul(yf, c(self.size - 1)), c(width - 1))
        lo, hi = self.roi  # tf_crop_and_resize
        if width == 1:
            x = c((hi - lo) * (self.size - 1) / 2)
        else:
            x = e.div(e.mul(e.mul(yf, c(hi - lo)), c(self.size - 1)), c(width - 1))
        return e.add(x, c(lo * (self.size - 1)))


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


@register_compute(relay.ResizeOp)
def resize(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """Nearest: read the rounded coordinate. Linear and cubic: a weighted sum over
    the 2 or 4 neighbours along every resized axis (indices clamped to the edge,
    weights in f64), with ONNX's `exclude_outside` renormalization; outside the
    roi of `tf_crop_and_resize`, the extrapolation value."""
    (x,) = ins
    shape = _shape(x)
    out = _type(op)
    size = dims(out)
    rank = len(shape)
    scales = relay.floats_prop(op, "scales") or tuple(
        o / i if i else 1.0 for o, i in zip(size, shape, strict=True)
    )
    roi = relay.floats_prop(op, "roi") or (0.0,) * rank + (1.0,) * rank
    mode = relay.str_prop(op, "coordinate_transformation_mode", "half_pixel")
    method = relay.str_prop(op, "method", "nearest_neighbor")
    rounding = relay.str_prop(op, "rounding_method", "round_prefer_floor")
    alpha = relay.float_prop(op, "cubic_alpha", -0.75)
    exclude = relay.flag_prop(op, "cubic_exclude")
    extrapolation = relay.float_prop(op, "extrapolation_value", 0.0)
    axes = [
        _ResizeAxis(shape[a], size[a], scales[a], mode, (roi[a], roi[rank + a]))
        for a in range(rank)
    ]
    elem = out.get_element_type()
    interpolate = method != "nearest_neighbor"
    antialias = relay.flag_prop(op, "antialias")
    support = 1 if method == "linear" else 2

    def taps(ax: _ResizeAxis) -> tuple[float, list[int]]:
        """The kernel's scale along an axis (below 1 when antialiasing a
        downscale) and the neighbour offsets from floor(x) it covers."""
        s = min(ax.scale, 1.0) if antialias else 1.0
        start = math.floor(-support / s) + 1
        return s, list(range(start, 2 - start))

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        outside: list[SSAValue] = []
        # Per axis: (index, weight) pairs; a single pair for identity/nearest.
        choices: list[list[tuple[SSAValue, SSAValue | None]]] = []
        for ax, y in zip(axes, idx, strict=True):
            if ax.identity:
                choices.append([(y, None)])
                continue
            coord = ax.coordinate(e, y)
            if mode == "tf_crop_and_resize":
                outside.append(
                    e.or_(
                        e.cmp("lt", coord, e.const(0.0, f64)),
                        e.cmp("gt", coord, e.const(float(ax.size - 1), f64)),
                    )
                )
            if not interpolate:
                i = e.to_index(_nearest(e, coord, rounding))
                choices.append([(e.clamp(i, 0, ax.size - 1), None)])
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
            choices.append(
                [(e.clamp(p, 0, ax.size - 1), w) for p, w in zip(points, weights, strict=True)]
            )
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
