"""Sampling computes: grid_sample (every output point reads its grid
coordinates, then the nearest pixel or a weighted sum of its neighbours),
col2im (every image pixel sums the block values that cover it: a gather over the
kernel taps, never a scatter) and deform_im2col (every column entry reads its
tap's offset and interpolates bilinearly); and roi_align's extern kernel, whose
sampling grid is sized at run time by each region.

grid_sample follows ONNX's reference step by step, so that results agree with
it closely: the coordinates are denormalized in the grid's type and kept in f32,
padding moves them into the image (clamped to the border, or reflected), and the
interpolation weights are computed in f32 by the reference's formulas (cubic
weights cancel there, so fused multiply-adds move them by a few f32 ulps); the
separable sum runs innermost axis first, in the data's type (f32 for f16).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import f32, f64, i32, i64
from xdsl.ir import Attribute, SSAValue

from lamina.dialects import relay
from lamina.dialects.shapes import dims
from lamina.dialects.te import ReduceKind
from lamina.lowering.lang.expr import Expr
from lamina.lowering.lang.tir_builder import TirBuilder
from lamina.lowering.topi.algorithm import register_extern
from lamina.lowering.topi.base import Kernel, _shape, _type, lowest, register_compute
from lamina.symbolic import Dim

#: Keys' cubic convolution coefficient of GridSample (PyTorch's).
CUBIC_ALPHA = -0.75

#: One interpolation tap along an axis: the index to read, whether that pixel is
#: inside the image (zeros padding; None otherwise) and its weight.
_Tap = tuple[SSAValue, SSAValue | None, SSAValue]


class _Axis:
    """One spatial axis of grid_sample's input: its extent and how coordinates
    and pixel indices outside it are brought back."""

    def __init__(self, size: int, align: bool, padding: str) -> None:
        self.size = size
        self.align = align
        self.padding = padding
        # The coordinate range that is "inside" (pixel centres or outer edges).
        self.lo, self.hi = (0.0, size - 1.0) if align else (-0.5, size - 0.5)

    def denormalize(self, e: Expr, g: SSAValue) -> SSAValue:
        """Grid value `g` (in [-1, 1]) as a pixel coordinate, in f32."""
        t = g.type
        one, two = e.const(1.0, t), e.const(2.0, t)
        if self.align:  # (g + 1) / 2 * (size - 1)
            x = e.mul(e.div(e.add(g, one), two), e.const(self.size - 1, t))
        else:  # ((g + 1) * size - 1) / 2
            x = e.div(e.sub(e.mul(e.add(g, one), e.const(self.size, t)), one), two)
        return e.cast(x, f32)

    def pad_coordinate(self, e: Expr, x: SSAValue) -> SSAValue:
        """An f32 coordinate outside [lo, hi] clamped into the image (border) or
        reflected into [lo, hi] (reflection); zeros keeps it. Then bounded (NaN
        too) a few pixels around the image, so that it converts to an integer
        safely: every tap that far out reads 0 with zeros."""
        moved = x if self.padding == "zeros" else self._moved(e, x)
        low, high = e.const(self.lo - 8.0, f32), e.const(self.hi + 8.0, f32)
        moved = e.select(e.isnan(moved), low, moved)
        return e.min(e.max(moved, low), high)

    def _moved(self, e: Expr, x: SSAValue) -> SSAValue:
        """Border or reflection padding of an f32 coordinate."""
        outside = e.or_(
            e.cmp("lt", x, e.const(self.lo, f32)), e.cmp("gt", x, e.const(self.hi, f32))
        )
        if self.padding == "border":
            clamped = e.min(e.max(x, e.const(0.0, f32)), e.const(self.size - 1.0, f32))
            return e.select(outside, clamped, x)
        span = self.hi - self.lo
        if span == 0:  # a single pixel with align_corners: everything maps to it
            return e.const(0.0, f32)
        v = e.cast(x, f64)

        def c(value: float) -> SSAValue:
            return e.const(value, f64)

        def fold(dx: SSAValue) -> tuple[SSAValue, SSAValue]:
            """(remainder of dx in the span, whether an even number of spans fit)."""
            n = e.floor(e.div(dx, c(span)))
            r = e.sub(dx, e.mul(n, c(span)))
            half = e.floor(e.mul(n, c(0.5)))
            return r, e.cmp("eq", e.sub(n, e.mul(half, c(2.0))), c(0.0))

        r_lo, even_lo = fold(e.sub(c(self.lo), v))
        below = e.select(even_lo, e.add(c(self.lo), r_lo), e.sub(c(self.hi), r_lo))
        r_hi, even_hi = fold(e.sub(v, c(self.hi)))
        above = e.select(even_hi, e.sub(c(self.hi), r_hi), e.add(c(self.lo), r_hi))
        moved = e.select(e.cmp("lt", v, c(self.lo)), below, above)
        return e.select(outside, e.cast(moved, f32), x)

    def pixel(self, e: Expr, i: SSAValue) -> tuple[SSAValue, SSAValue | None]:
        """The index to read for pixel index `i`, and (zeros) whether `i` is
        inside the image: border clamps, reflection mirrors about the range's
        ends (repeating the edge pixel unless align_corners)."""
        n = self.size
        if self.padding == "zeros":
            return e.clamp(i, 0, n - 1), e.in_range(i, 0, n)
        if self.padding == "border" or n == 1:
            return e.clamp(i, 0, n - 1), None
        if self.align:  # mirror without repeating the edge: period 2 (n - 1)
            period = 2 * (n - 1)
            m = e.imod(i, period)
            return e.select(e.cmp("lt", m, e.index(n)), m, e.isub(e.index(period), m)), None
        m = e.imod(i, 2 * n)  # mirror repeating the edge: period 2 n
        flipped = e.isub(e.index(2 * n - 1), m)
        return e.select(e.cmp("lt", m, e.index(n)), m, flipped), None


def _weights(e: Expr, t: SSAValue, cubic: bool) -> list[SSAValue]:
    """The f32 weights of the taps at offsets 0, 1 (linear) or -1..2 (cubic) from
    floor(x), for the fraction `t = x - floor(x)` (ONNX's reference formulas)."""

    def c(value: float) -> SSAValue:
        return e.const(value, f32)

    one = c(1.0)
    if not cubic:
        return [e.sub(one, t), t]
    a = CUBIC_ALPHA

    def far(d: SSAValue) -> SSAValue:  # ((a d - 5a) d + 8a) d - 4a, for 1 <= d <= 2
        inner = e.add(e.mul(e.sub(e.mul(c(a), d), c(5 * a)), d), c(8 * a))
        return e.sub(e.mul(inner, d), c(4 * a))

    def near(d: SSAValue) -> SSAValue:  # ((a + 2) d - (a + 3)) d d + 1, for d <= 1
        return e.add(e.mul(e.mul(e.sub(e.mul(c(a + 2), d), c(a + 3)), d), d), one)

    # Each distance as the reference writes it: 1 + t, t, 1 - t, 2 - t.
    return [far(e.add(t, one)), near(t), near(e.sub(one, t)), far(e.sub(c(2.0), t))]


@register_compute(relay.GridSampleOp)
def grid_sample(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """Nearest: round the coordinate half to even, bring it inside and read (0
    outside with zeros). Linear and cubic: a weighted sum over 2 or 4 taps per
    axis, each tap read as its padding mode says."""
    x, grid = ins
    shape = _shape(x)
    r = len(shape) - 2
    out = _type(op)
    elem = out.get_element_type()
    method = op.attrs.method
    padding = op.attrs.padding_mode
    align = op.attrs.align_corners
    axes = [_Axis(d, align, padding) for d in shape[2:]]
    acc_t: Attribute = elem if elem in (f32, f64) else f32

    def taps(e: Expr, ax: _Axis, coord: SSAValue) -> list[_Tap]:
        """(index to read, inside-or-None, weight in acc_t) per tap."""
        base = e.floor(coord)
        start = e.to_index(e.cast(base, i64))
        cubic = method == "cubic"
        weights = _weights(e, e.sub(coord, base), cubic)
        result = []
        for off, w in zip((-1, 0, 1, 2) if cubic else (0, 1), weights, strict=True):
            i, inside = ax.pixel(e, e.ishift(start, off))
            result.append((i, inside, e.cast(w, acc_t)))
        return result

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        n, c, pos = idx[0], idx[1], idx[2:]
        coords = []
        for a, ax in enumerate(axes):  # the grid lists x (innermost axis) first
            g = e.read(grid, [n, *pos, e.index(r - 1 - a)])
            coords.append(ax.denormalize(e, g))
        if method == "nearest":
            index, inside = [], []
            for ax, v in zip(axes, coords, strict=True):
                v = ax.pad_coordinate(e, e.math(mathd.RoundEvenOp, v))
                i, ok = ax.pixel(e, e.to_index(e.cast(v, i32)))
                index.append(i)
                inside += [ok] if ok is not None else []
            checked = [False] * (r + 2)
            return e.read_or(x, [n, c, *index], 0, checked, inside)
        per_axis = [
            taps(e, ax, ax.pad_coordinate(e, v)) for ax, v in zip(axes, coords, strict=True)
        ]

        def total(a: int, prefix: list[SSAValue], inside: list[SSAValue]) -> SSAValue:
            """The interpolation over axes a.. at the taps `prefix` of axes ..a."""
            if a == r:
                v = e.read_or(x, [n, c, *prefix], 0.0, [False] * (r + 2), inside)
                return e.cast(v, acc_t)
            acc: SSAValue | None = None
            for i, ok, w in per_axis[a]:
                checks = inside if ok is None else [*inside, ok]
                term = e.mul(w, total(a + 1, [*prefix, i], checks))
                acc = term if acc is None else e.add(acc, term)
            assert acc is not None
            return acc

        return e.cast(total(0, [], []), elem)

    return k.compute(out, body)


@register_compute(relay.Col2ImOp)
def col2im(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`out[n, c, y...]` sums over the kernel taps `t` the column value of the
    block at `(y + pad - t * dilation) / stride` when that is a whole block
    index: a reduction over the taps."""
    (x,) = ins
    out = _type(op)
    image = op.attrs.image_size
    kernel = op.attrs.kernel_size
    nd = len(image)
    win = relay.Window(op.name, op, nd)
    blocks = [win.output_size(op.name, a, image[a], kernel[a]) for a in range(nd)]
    taps = math.prod(kernel)
    zero = 0.0 if relay.is_float(out.get_element_type()) else 0

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        n, c, ys, ts = idx[0], idx[1], idx[2 : 2 + nd], idx[2 + nd :]
        valid, qs = [], []
        for a in range(nd):
            p = e.isub(e.ishift(ys[a], win.pad_begin[a]), e.iscale(ts[a], win.dilation[a]))
            s = win.strides[a]
            q = p if s == 1 else e.ifloordiv(p, e.index(s))
            if s != 1:
                valid.append(e.cmp("eq", e.isub(p, e.iscale(q, s)), e.index(0)))
            valid.append(e.in_range(q, 0, blocks[a]))
            qs.append(e.clamp(q, 0, blocks[a] - 1))
        row = e.iadd(e.iscale(c, taps), e.linearize(ts, kernel))
        col = e.linearize(qs, blocks)
        return e.read_or(x, [n, row, col], zero, [False] * 3, valid)

    return k.compute(out, body, ReduceKind.SUM, kernel)


@register_compute(relay.DeformIm2ColOp)
def deform_im2col(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`out[n, c * K + t, o...]`: the tap's window position plus its offset,
    read bilinearly over the 2^r neighbours (zero outside), times its mask."""
    x, offset = ins[0], ins[1]
    mask = ins[2] if len(ins) == 3 else None
    shape = _shape(x)
    r = len(shape) - 2
    kernel = op.attrs.kernel_size
    taps = math.prod(kernel)
    win = relay.Window(op.name, op, r)
    per_group = shape[1] // op.attrs.offset_groups
    out = _type(op)
    elem = out.get_element_type()

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        n, col, pos = idx[0], idx[1], idx[2:]
        c, tap = e.idiv(col, e.index(taps)), e.irem(col, e.index(taps))
        channel = e.iadd(e.iscale(e.idiv(c, e.index(per_group)), taps), tap)  # g * K + t
        corners: list[tuple[SSAValue | None, list[SSAValue]]] = [(None, [])]
        for a, t in enumerate(e.delinearize(tap, kernel)):
            start = e.iadd(e.iscale(pos[a], win.strides[a]), e.iscale(t, win.dilation[a]))
            base = e.cast(e.from_index(e.ishift(start, -win.pad_begin[a]), i64), elem)
            shift = e.read(offset, [n, e.ishift(e.iscale(channel, r), a), *pos])
            # far outside (or NaN), every neighbour is outside: keep the index conversion safe
            p = _bounded(e, e.add(base, shift), -2.0, e.add(_size(e, shape[2 + a], elem), e.const(1.0, elem)))
            low = e.floor(p)
            frac = e.sub(p, low)
            i = e.to_index(e.cast(low, i64))
            weights = [(i, e.sub(e.const(1.0, elem), frac)), (e.ishift(i, 1), frac)]
            corners = [
                (w if acc is None else e.mul(acc, w), [*at, j])
                for acc, at in corners
                for j, w in weights
            ]
        total: SSAValue | None = None
        for w, at in corners:
            assert w is not None
            term = e.mul(w, e.read_or(x, [n, c, *at], 0.0, [False, False, *([True] * r)]))
            total = term if total is None else e.add(total, term)
        assert total is not None
        return total if mask is None else e.mul(total, e.read(mask, [n, channel, *pos]))

    return k.compute(out, body)


def _bounded(e: Expr, v: SSAValue, lo: float, hi: SSAValue) -> SSAValue:
    """`v` clamped into [lo, hi], NaN to `lo`."""
    low = e.const(lo, v.type)
    return e.min(e.max(e.select(e.isnan(v), low, v), low), hi)


#: The most samples roi_align takes per bin and axis when it sizes its grid
#: from the region (sampling_ratio 0): bounds the loop of an absurd region.
ROI_ALIGN_MAX_GRID = 1 << 20


@register_extern(relay.RoiAlignOp)
def _roi_align(b: TirBuilder, op: relay.RelayOp) -> None:
    """Per region and bin, the samples' bilinear weights and pixels are worked
    out once (in f64) and applied to every channel, accumulating in the output;
    onnxruntime's algorithm (and the ONNX reference's)."""
    data, rois, indices, out = b.args
    images, channels, height, width = dims(data.type)  # type: ignore[arg-type]
    regions = dims(rois.type)[0]  # type: ignore[arg-type]
    oh, ow = op.attrs.output_size
    scale = op.attrs.spatial_scale
    ratio = op.attrs.sampling_ratio
    average = op.attrs.mode == "avg"
    aligned = op.attrs.aligned
    elem = data.type.get_element_type()  # type: ignore[attr-defined]

    def c(v: float) -> SSAValue:
        return b.const(v, f64)

    with b.loop(regions) as r:
        image = b.to_index(b.load(indices, [r]))
        inside = b.in_range(image, 0, images)
        image = b.clamp(image, 0, images - 1)
        x1, y1, x2, y2 = (
            b.sub(b.mul(b.cast(b.load(rois, [r, b.index(k)]), f64), c(scale)), c(0.5 if aligned else 0.0))
            for k in range(4)
        )
        size_w, size_h = b.sub(x2, x1), b.sub(y2, y1)
        if not aligned:  # a malformed region is 1x1
            size_w, size_h = b.max(size_w, c(1.0)), b.max(size_h, c(1.0))
        bin_h, bin_w = b.div(size_h, c(oh)), b.div(size_w, c(ow))
        grid_h, grid_w = (
            (b.index(ratio), b.index(ratio)) if ratio > 0 else (_grid(b, bin_h), _grid(b, bin_w))
        )
        samples = b.imul(grid_h, grid_w)
        count = b.cast(b.from_index(b.imax(samples, b.index(1)), i64), f64)
        with b.loop(oh) as ph, b.loop(ow) as pw:
            with b.loop(channels) as ch:
                b.store(b.const(0.0 if average else lowest(elem), elem), out, [r, ch, ph, pw])
            with b.then(inside), b.loop(grid_h) as iy, b.loop(grid_w) as ix:
                y = _sample(b, y1, ph, bin_h, iy, grid_h)
                x = _sample(b, x1, pw, bin_w, ix, grid_w)
                taps = _bilinear(b, y, x, height, width, elem)
                with b.loop(channels) as ch:
                    terms = [b.mul(w, b.load(data, [image, ch, i, j])) for i, j, w in taps]
                    old = b.load(out, [r, ch, ph, pw])
                    if average:
                        new = b.add(old, b.add(b.add(terms[0], terms[1]), b.add(terms[2], terms[3])))
                    else:
                        new = b.max(old, b.max(b.max(terms[0], terms[1]), b.max(terms[2], terms[3])))
                    b.store(new, out, [r, ch, ph, pw])
            with b.loop(channels) as ch:
                acc = b.load(out, [r, ch, ph, pw])
                if average:
                    done = b.cast(b.div(b.cast(acc, f64), count), elem)
                else:  # no sample (or a bad image index): 0
                    any_sample = b.and_(inside, b.cmp("gt", samples, b.index(0)))
                    done = b.select(any_sample, acc, b.const(0.0, elem))
                b.store(done, out, [r, ch, ph, pw])


def _grid(b: TirBuilder, extent: SSAValue) -> SSAValue:
    """ceil(extent) samples (an f64 bin size), 0 if not positive (or NaN), at
    most `ROI_ALIGN_MAX_GRID`."""
    n = b.emit(mathd.CeilOp(extent))
    ok = b.cmp("ge", n, b.const(1.0, f64))
    n = b.select(ok, b.min(n, b.const(float(ROI_ALIGN_MAX_GRID), f64)), b.const(0.0, f64))
    return b.to_index(b.cast(n, i64))


def _sample(
    b: TirBuilder, start: SSAValue, cell: SSAValue, size: SSAValue, k: SSAValue, grid: SSAValue
) -> SSAValue:
    """The f64 coordinate of sample `k` of `grid` in bin `cell` of `size`:
    `start + cell * size + (k + 0.5) * size / grid`."""

    def f(i: SSAValue) -> SSAValue:
        return b.cast(b.from_index(i, i64), f64)

    half = b.add(f(k), b.const(0.5, f64))
    return b.add(b.add(start, b.mul(f(cell), size)), b.div(b.mul(half, size), f(grid)))


def _size(e: Expr, n: Dim, to: Attribute) -> SSAValue:
    """A (possibly symbolic) size as a scalar of type `to`."""
    return e.const(n, to) if isinstance(n, int) else e.cast(e.from_index(e.index(n), i64), to)


def _bilinear(
    b: TirBuilder, y: SSAValue, x: SSAValue, height: Dim, width: Dim, elem: Attribute
) -> list[tuple[SSAValue, SSAValue, SSAValue]]:
    """The four (row, column, weight) taps of a sample at (y, x), as
    onnxruntime reads them: a sample beyond a pixel outside the map (or NaN)
    has weight 0; one past the last row or column reads it."""
    coords = ((y, height), (x, width))
    near_inside = b.all_of([
        b.and_(b.cmp("ge", v, b.const(-1.0, f64)), b.cmp("le", v, _size(b, n, f64)))
        for v, n in coords
    ])
    axes = []
    for v, n in coords:
        v = b.select(near_inside, b.max(v, b.const(0.0, f64)), b.const(0.0, f64))
        low = b.cast(v, i64)  # v >= 0: truncation is floor
        end = b.sub(_size(b, n, i64), b.const(1, i64))
        last = b.cmp("ge", low, end)
        low = b.select(last, end, low)
        high = b.select(last, low, b.add(low, b.const(1, i64)))
        frac = b.select(last, b.const(0.0, f64), b.sub(v, b.cast(low, f64)))
        axes.append((b.to_index(low), b.to_index(high), frac))
    (y0, y1, ly), (x0, x1, lx) = axes
    zero = b.const(0.0, f64)

    def weight(a: SSAValue, c: SSAValue) -> SSAValue:
        return b.cast(b.select(near_inside, b.mul(a, c), zero), elem)

    hy, hx = b.sub(b.const(1.0, f64), ly), b.sub(b.const(1.0, f64), lx)
    return [(y0, x0, weight(hy, hx)), (y0, x1, weight(hy, lx)), (y1, x0, weight(ly, hx)), (y1, x1, weight(ly, lx))]
