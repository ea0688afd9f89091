"""Neural-network computes: bias_add, pooling (max, average, max with argmax),
batch/layer/instance normalization and local response normalization.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import f32, f64, i64
from xdsl.ir import SSAValue

from lamina.dialects import relay, te
from lamina.dialects.shapes import dims
from lamina.dialects.te import ReduceKind
from lamina.errors import LoweringError
from lamina.lowering.lang.expr import Expr
from lamina.lowering.strategy import tags
from lamina.lowering.topi.base import (
    Kernel,
    _c,
    _shape,
    _tensor,
    _ttype,
    _type,
    _window_input,
    lowest,
    reduction,
    register_compute,
    schedule,
)
from lamina.symbolic import Sym


@register_compute(relay.BiasAddOp)
def bias_add(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    x, bias = ins
    axis = relay.normalize_axis(op.name, op.attrs.axis, len(_shape(x)))
    return k.compute(
        _type(op), lambda e, i: e.add(e.read(x, i), e.read(bias, [i[axis]]))
    )


def _window_count(
    e: Expr, o: SSAValue, axis: int, kernel: int, win: relay.Window, lo: int, hi: int
) -> SSAValue:
    """How many taps `t` of the window at output `o` land in `lo..hi` (input
    coordinates): `ceil((hi - start) / d) - ceil((lo - start) / d)`, clipped to
    `0..kernel`, with `start = o * s - pad_begin`."""
    dilation = win.dilation[axis]
    start = e.ishift(e.iscale(o, win.strides[axis]), -win.pad_begin[axis])

    def taps_below(bound: int) -> SSAValue:
        span = e.ishift(e.isub(e.index(bound), start), dilation - 1)
        if dilation != 1:
            span = e.ifloordiv(span, e.index(dilation))
        return e.clamp(span, 0, kernel)

    return e.isub(taps_below(hi), taps_below(lo))


@register_compute(
    relay.MaxPool1DOp,
    relay.MaxPool2DOp,
    relay.MaxPool3DOp,
    relay.AvgPool1DOp,
    relay.AvgPool2DOp,
    relay.AvgPool3DOp,
)
def pool(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """Max (padding is the lowest value) or sum-then-divide by the number of taps
    inside the input (or the padded input, with count_include_pad)."""
    assert isinstance(op, relay.PoolOp)
    (x,) = ins
    n = op.spatial(_ttype(x))
    win = relay.Window(op.name, op, n)
    kernel = op.attrs.pool_size
    out = _type(op)
    elem = out.get_element_type()
    is_max = isinstance(op, relay.MaxPoolOp)
    if is_max and any(isinstance(d, Sym) for d in dims(_ttype(x))[2:]):
        # Computed wrong values over a symbolic spatial size with padding 2 and a
        # 3x3 window (not understood yet): refused rather than risked.
        raise LoweringError(
            f"{op.name}: max pooling over a symbolic spatial size ({_ttype(x)}) is not "
            "supported yet; fix the spatial sizes with input_shapes="
        )
    # Windows leave the input only through the begin padding or past its end
    # (the end padding, a ceil_mode tail): those axes' reads are checked.
    xshape, oshape = _shape(x), dims(out)
    checked = [False, False] + [
        win.pad_begin[a] > 0 or win.overhang(a, xshape[2 + a], oshape[2 + a], kernel[a]) > 0
        for a in range(n)
    ]
    fill = lowest(elem) if is_max else 0

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        pos = _window_input(e, idx[2 : 2 + n], idx[2 + n :], win)
        return e.read_or(x, [idx[0], idx[1], *pos], fill, checked)

    kind = ReduceKind.MAX if is_max else ReduceKind.SUM
    acc = k.compute(out, body, kind, kernel)
    # (a checked read along the vector lanes vectorizes only at stride 1)
    if not checked[-1] or win.strides[-1] == 1:
        schedule(acc, tags.POOL, out, n)
    if is_max:
        return acc
    xshape = _shape(x)
    include_pad = op.attrs.count_include_pad

    def average(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        count: SSAValue | None = None
        for a in range(n):
            lo = -win.pad_begin[a] if include_pad else 0
            hi = xshape[2 + a] + (win.pad_end[a] if include_pad else 0)
            taps = _window_count(e, idx[2 + a], a, kernel[a], win, lo, hi)
            count = taps if count is None else e.imul(count, taps)
        assert count is not None
        total = e.read(acc, idx)
        return e.div(total, e.from_index(count, elem))

    return k.compute(out, average)


@register_compute(relay.MaxPoolWithArgmaxOp)
def max_pool_with_argmax(
    k: Kernel, op: relay.RelayOp, ins: list[SSAValue]
) -> list[SSAValue]:
    """The maximum, the first window tap (in row-major tap order) holding it, and
    that tap's flat index into the data."""
    assert isinstance(op, relay.MaxPoolWithArgmaxOp)
    (x,) = ins
    xshape = _shape(x)
    n = op.spatial(_ttype(x))
    win = relay.Window(op.name, op, n)
    kernel = op.attrs.pool_size
    values = pool(k, op, ins)
    assert isinstance(values, SSAValue)
    taps = math.prod(kernel)
    checked = [False, False, *(True for _ in range(n))]

    def first_hit(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        out, tap = idx[: 2 + n], idx[2 + n :]
        pos = _window_input(e, out[2:], tap, win)
        inside = e.all_of([e.in_range(p, 0, xshape[2 + a]) for a, p in enumerate(pos)])
        v = e.read_or(x, [out[0], out[1], *pos], 0, checked)
        hit = e.and_(inside, e.cmp("eq", v, e.read(values, out)))
        t = e.from_index(e.linearize(tap, kernel), i64)
        return e.select(hit, t, e.const(taps, i64))

    best = k.compute(_type(op, 1), first_hit, ReduceKind.MIN, kernel)
    column_major = op.attrs.column_major
    spatial = xshape[2:]

    def flat_index(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        t = e.to_index(e.read(best, idx))
        tap = e.delinearize(e.clamp(t, 0, taps - 1), kernel)
        pos = _window_input(e, idx[2:], tap, win)
        if column_major:
            where = e.linearize(pos[::-1], spatial[::-1])
        else:
            where = e.linearize(pos, spatial)
        plane = e.linearize(idx[:2], xshape[:2])
        flat = e.iadd(e.iscale(plane, math.prod(spatial)), where)
        return e.from_index(flat, i64)

    return [values, k.compute(_type(op, 1), flat_index)]


def _channel(idx: Sequence[SSAValue], axis: int) -> list[SSAValue]:
    return [idx[axis]]


@register_compute(relay.BatchNormOp)
def batch_norm(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`gamma * (x - mean) / sqrt(var + epsilon) + beta` (ONNX's order)."""
    x, gamma, beta, mean, var = ins
    axis = relay.normalize_axis(op.name, op.attrs.axis, len(_shape(x)))
    eps = op.attrs.epsilon

    def body(e: Expr, i: Sequence[SSAValue]) -> SSAValue:
        c = _channel(i, axis)
        v = e.read(x, i)
        centered = e.mul(e.read(gamma, c), e.sub(v, e.read(mean, c)))
        std = e.sqrt(e.add(e.read(var, c), _c(e, eps, v)))
        return e.add(e.div(centered, std), e.read(beta, c))

    return k.compute(_type(op), body)


#: Lanes of a variance's partial sums (onnxruntime's: an AVX2 register's), on
#: every host, when the normalized size is a multiple of them.
MOMENT_LANES = 8


def _moments(
    k: Kernel, x: SSAValue, axes: Sequence[int]
) -> tuple[SSAValue, SSAValue, Callable[[Expr, Sequence[SSAValue]], list[SSAValue]]]:
    """Mean and (biased) variance of `x` over `axes`, kept as size-1 axes, and the
    index map from a point of `x` to its statistics. As onnxruntime computes
    them for f32, on any host: the mean summed in f64 and rounded once; the
    variance two-pass, `sum((x - mean)^2)` in `MOMENT_LANES` partial sums of
    fused multiply-adds combined pairwise, over the count."""
    src = _ttype(x)
    elem = src.get_element_type()
    shape = dims(src)
    count = math.prod(shape[a] for a in axes)
    wide = f64 if elem == f32 else elem

    def stat_index(e: Expr, i: Sequence[SSAValue]) -> list[SSAValue]:
        zero = e.index(0)
        return [zero if d in axes else v for d, v in enumerate(i)]

    total = reduction(k, src, axes, True, ReduceKind.SUM, lambda e, i: e.cast(e.read(x, i), wide), wide)
    stats = _tensor([1 if d in axes else n for d, n in enumerate(shape)], elem)
    mean = k.compute(
        stats, lambda e, i: e.cast(e.div(e.read(total, i), _c(e, count, e.read(total, i))), elem)
    )

    def square(e: Expr, i: list[SSAValue]) -> SSAValue:
        d = e.sub(e.read(x, i), e.read(mean, stat_index(e, i)))
        return e.mul(d, d)

    sq = reduction(k, src, axes, True, ReduceKind.SUM, square)
    last = shape[axes[-1]] if axes else 0
    if elem == f32 and isinstance(last, int) and last % MOMENT_LANES == 0:
        owner = sq.owner
        assert isinstance(owner, te.ComputeOp)
        # MOMENT_LANES partial sums, each in index order, combined pairwise
        schedule(sq, tags.ORDERED_LANES, owner.extents, owner.reduce_shape, MOMENT_LANES, ordered=True)
    var = k.compute(
        _ttype(sq), lambda e, i: e.div(e.read(sq, i), _c(e, count, e.read(sq, i)))
    )
    return mean, var, stat_index


@register_compute(relay.LayerNormOp)
def layer_norm(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`(x - mean) * (1 / sqrt(var + epsilon)) * gamma + beta` over the trailing
    axes (ONNX's reference order)."""
    x, gamma = ins[0], ins[1]
    beta = ins[2] if len(ins) > 2 else None
    rank = len(_shape(x))
    axis = relay.normalize_axis(op.name, op.attrs.axis, rank)
    eps = op.attrs.epsilon
    mean, var, stat = _moments(k, x, list(range(axis, rank)))

    def body(e: Expr, i: Sequence[SSAValue]) -> SSAValue:
        v = e.read(x, i)
        s = stat(e, i)
        inv = e.div(_c(e, 1, v), e.sqrt(e.add(e.read(var, s), _c(e, eps, v))))
        y = e.mul(e.mul(e.sub(v, e.read(mean, s)), inv), e.read(gamma, e.broadcast_index(i, _ttype(gamma))))
        if beta is not None:
            y = e.add(y, e.read(beta, e.broadcast_index(i, _ttype(beta))))
        return y

    return k.compute(_type(op), body)


@register_compute(relay.InstanceNormOp)
def instance_norm(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    x, gamma, beta = ins
    rank = len(_shape(x))
    eps = op.attrs.epsilon
    mean, var, stat = _moments(k, x, list(range(2, rank)))

    def body(e: Expr, i: Sequence[SSAValue]) -> SSAValue:
        v = e.read(x, i)
        s, c = stat(e, i), _channel(i, 1)
        centered = e.mul(e.read(gamma, c), e.sub(v, e.read(mean, s)))
        std = e.sqrt(e.add(e.read(var, s), _c(e, eps, v)))
        return e.add(e.div(centered, std), e.read(beta, c))

    return k.compute(_type(op), body)


@register_compute(relay.LRNOp)
def lrn(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    (x,) = ins
    shape = _shape(x)
    axis = relay.normalize_axis(op.name, op.attrs.axis, len(shape))
    size = op.attrs.size
    alpha = op.attrs.alpha
    beta = op.attrs.beta
    bias = op.attrs.bias
    channels = shape[axis]
    if size > 2 * channels - 1 > 0:  # every window covers all channels: same sums,
        alpha *= (2 * channels - 1) / size  # and a loop of 2C-1 steps, not `size`
        size = 2 * channels - 1
    before = (size - 1) // 2
    checked = [d == axis for d in range(len(shape))]

    def square(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        i, t = list(idx[:-1]), idx[-1]
        i[axis] = e.ishift(e.iadd(i[axis], t), -before)
        v = e.read_or(x, i, 0, checked)
        return e.mul(v, v)

    sq = k.compute(_ttype(x), square, ReduceKind.SUM, [size])

    def body(e: Expr, i: Sequence[SSAValue]) -> SSAValue:
        v = e.read(x, i)
        scaled = e.mul(e.read(sq, i), _c(e, alpha / size, v))
        denom = e.math(mathd.PowFOp, e.add(_c(e, bias, v), scaled), _c(e, beta, v))
        return e.div(v, denom)

    return k.compute(_type(op), body)
