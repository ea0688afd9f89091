"""Reductions: sum/mean/max/min/prod over axes, logsumexp, argmax/argmin, and
softmax/log_softmax (a max and a sum reduction around the elementwise steps).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import i64
from xdsl.ir import SSAValue

from lamina.dialects import relay, te
from lamina.dialects.shapes import dims
from lamina.dialects.te import ReduceKind
from lamina.lowering.lang.expr import Expr, is_float
from lamina.lowering.strategy import tags
from lamina.lowering.topi.base import (
    Kernel,
    _c,
    _read_at,
    _tensor,
    _ttype,
    _type,
    reduction,
    register_compute,
    schedule,
)
from lamina.lowering.topi.elemwise import divide

_REDUCE_KIND = {
    relay.SumOp: ReduceKind.SUM,
    relay.MeanOp: ReduceKind.SUM,
    relay.MaxOp: ReduceKind.MAX,
    relay.MinOp: ReduceKind.MIN,
    relay.ProdOp: ReduceKind.PROD,
}


@register_compute(*_REDUCE_KIND)
def reduce(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    (x,) = ins
    src = _ttype(x)
    axes = relay.reduce_axes(op.name, op, src.get_num_dims())
    keep = op.attrs.keepdims
    out = reduction(k, src, axes, keep, _REDUCE_KIND[type(op)], _read_at(x))
    if isinstance(op, relay.SumOp) and op.attrs.ordered and isinstance(out.owner, te.ComputeOp) and out.owner.reduce is not None:
        compute = out.owner  # in index order: no reassociation, no lane partials
        schedule(out, tags.ORDERED, compute.extents, compute.reduce_shape, ordered=True)
    if not isinstance(op, relay.MeanOp) or not axes:
        return out
    count = math.prod(dims(src)[a] for a in axes)
    return k.compute(
        _type(op), lambda e, i: divide(e, e.read(out, i), _c(e, count, e.read(out, i)))
    )


@register_compute(relay.LogSumExpOp)
def logsumexp(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`m + log(sum(exp(x - m)))` with `m` the maximum (0 where it is not finite,
    so that all -inf gives -inf and +inf or NaN propagate)."""
    (x,) = ins
    src = _ttype(x)
    axes = relay.reduce_axes(op.name, op, src.get_num_dims())
    rank = src.get_num_dims()
    mx = reduction(k, src, axes, True, ReduceKind.MAX, _read_at(x))

    def shift(e: Expr, i: Sequence[SSAValue]) -> SSAValue:
        m = e.read(mx, i)
        finite = e.cmp("lt", e.abs(m), _c(e, math.inf, m))
        return e.select(finite, m, _c(e, 0, m))

    safe = k.compute(_ttype(mx), shift)

    def at_max(i: Sequence[SSAValue], e: Expr) -> list[SSAValue]:
        zero = e.index(0)
        return [zero if d in axes else i[d] for d in range(rank)]

    total = reduction(
        k,
        src,
        axes,
        op.attrs.keepdims,
        ReduceKind.SUM,
        lambda e, i: e.exp(e.sub(e.read(x, i), e.read(safe, at_max(i, e)))),
    )
    keep = op.attrs.keepdims
    kept = [d for d in range(rank) if d not in axes]

    def finish(e: Expr, i: Sequence[SSAValue]) -> SSAValue:
        if keep:
            m_idx = [e.index(0) if d in axes else i[d] for d in range(rank)]
        else:
            pos = dict(zip(kept, i, strict=True))
            m_idx = [pos[d] if d in pos else e.index(0) for d in range(rank)]
        return e.add(e.log(e.read(total, i)), e.read(safe, m_idx))

    return k.compute(_type(op), finish)


@register_compute(relay.ArgMaxOp, relay.ArgMinOp)
def arg_reduce(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """The extreme value along the axis, then the first (or last) index holding it
    (or holding NaN, which is the extreme when present)."""
    (x,) = ins
    src = _ttype(x)
    rank = src.get_num_dims()
    axis = relay.normalize_axis(op.name, op.attrs.axis, rank)
    extreme = ReduceKind.MAX if isinstance(op, relay.ArgMaxOp) else ReduceKind.MIN
    best = reduction(k, src, [axis], True, extreme, _read_at(x))
    last = op.attrs.select_last_index
    extent = dims(src)[axis]

    def candidate(e: Expr, i: list[SSAValue]) -> SSAValue:
        v = e.read(x, i)
        b = e.read(best, [e.index(0) if d == axis else i[d] for d in range(rank)])
        hit = e.cmp("eq", v, b)
        if is_float(v.type):
            hit = e.or_(hit, e.isnan(v))
        miss = e.const(-1 if last else extent, i64)
        return e.select(hit, e.from_index(i[axis], i64), miss)

    kind = ReduceKind.MAX if last else ReduceKind.MIN
    return reduction(
        k, src, [axis], op.attrs.keepdims, kind, candidate, elem=i64
    )


# ------------------------------------------------------------------- softmax
@register_compute(relay.SoftmaxOp, relay.LogSoftmaxOp)
def softmax(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """softmax: max-reduce, shifted exp, sum-reduce, scale by the sum's
    reciprocal (`safe`: a slice
    of -inf gives zeros); log_softmax: `x - max - log(sum)`."""
    (x,) = ins
    out = _type(op)
    shape = list(dims(out))
    axis = relay.normalize_axis(op.name, op.attrs.axis, len(shape))
    extent = shape[axis]
    reduced = _tensor(shape[:axis] + shape[axis + 1 :], out.get_element_type())

    def at(idx: Sequence[SSAValue], r: SSAValue) -> list[SSAValue]:
        return [*idx[:axis], r, *idx[axis:]]

    def drop(idx: Sequence[SSAValue]) -> list[SSAValue]:
        return [*idx[:axis], *idx[axis + 1 :]]

    n = len(shape) - 1
    mx = k.compute(
        reduced, lambda e, i: e.read(x, at(i[:n], i[n])), ReduceKind.MAX, [extent]
    )

    safe = isinstance(op, relay.SoftmaxOp) and op.attrs.safe
    elem = out.get_element_type()

    def shifted(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        v, m = e.read(x, idx), e.read(mx, drop(idx))
        if safe:  # a slice of -inf: shift by 0, so that every exp is 0 (not NaN)
            m = e.select(e.cmp("eq", m, e.const(float("-inf"), elem)), e.const(0.0, elem), m)
        return e.sub(v, m)

    if isinstance(op, relay.LogSoftmaxOp):
        sm = k.compute(
            reduced,
            lambda e, i: e.exp(shifted(e, at(i[:n], i[n]))),
            ReduceKind.SUM,
            [extent],
        )
        return k.compute(
            out, lambda e, i: e.sub(shifted(e, i), e.log(e.read(sm, drop(i))))
        )
    ex = k.compute(out, lambda e, i: e.exp(shifted(e, i)))
    sm = k.compute(
        reduced, lambda e, i: e.read(ex, at(i[:n], i[n])), ReduceKind.SUM, [extent]
    )
    def normalized(e: Expr, i: Sequence[SSAValue]) -> SSAValue:
        # times the reciprocal (one division per row, hoisted out of its loop)
        v, total = e.read(ex, i), e.read(sm, drop(i))
        q = e.mul(v, e.div(e.const(1.0, elem), total))
        if safe:  # the sum of a slice of -inf is 0: zeros
            q = e.select(e.cmp("eq", total, e.const(0.0, elem)), e.const(0.0, elem), q)
        return q

    return k.compute(out, normalized)
