"""Shapes given as data when the model runs (TVM's `dyn` ops and shape
functions, Relax's `tensor_to_shape`): the run-time halves of Reshape,
Expand, ConstantOfShape, Tile, Range, Slice, Split, Pad, OneHot, ...

A converter whose shape, axes, pads or count input is not a constant builds
the ONNX rules for it (0 and -1 in a Reshape, a Slice's clamping, a Pad's
reflection) out of small graph ops on i64 tensors (`ShapeMath`), names each
resulting size with `relay.dyn_reshape`, `relay.dyn_broadcast_to` or
`relay.dyn_arange`, and checks what the data must satisfy with `relay.check`,
so a shape that does not fit stops the run with the node's name instead of
computing garbage. Index maps over an axis (`remap`) serve every op whose
result reads its input at computed positions: a slice, a pad, a crop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, IntegerType, StringAttr, f64
from xdsl.ir import Attribute, SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.shapes import dims_attr
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import _cast, _elem
from lamina.symbolic import Dim, Sym

I64 = IntegerType(64)
Value = SSAValue | int | float | np.ndarray


class ShapeMath:
    """Arithmetic on small i64 tensors in the graph, for a node's run-time
    shape rules: operands may be Python ints (scalar constants)."""

    def __init__(self, ctx: NodeContext):
        self.ctx = ctx

    def v(self, x: Value, elem: Attribute = I64) -> SSAValue:
        """`x` as a value: a constant of `elem` unless it is one already."""
        if isinstance(x, SSAValue):
            return x
        return self.ctx.constant(np.asarray(x, dtype=numpy_dtype(elem)))

    def i64(self, x: SSAValue) -> SSAValue:
        return _cast(self.ctx, x, I64)

    def _bin(self, cls: type[relay.RelayOp], a: Value, b: Value) -> SSAValue:
        elem = _elem(a) if isinstance(a, SSAValue) else _elem(b) if isinstance(b, SSAValue) else I64
        return self.ctx.emit(cls(self.v(a, elem), self.v(b, elem)))

    def add(self, a: Value, b: Value) -> SSAValue:
        return self._bin(relay.AddOp, a, b)

    def sub(self, a: Value, b: Value) -> SSAValue:
        return self._bin(relay.SubtractOp, a, b)

    def mul(self, a: Value, b: Value) -> SSAValue:
        return self._bin(relay.MultiplyOp, a, b)

    def div(self, a: Value, b: Value) -> SSAValue:
        """Division (of integers: truncating, so floor for non-negatives)."""
        return self._bin(relay.DivideOp, a, b)

    def mod(self, a: Value, b: Value) -> SSAValue:
        """Floor modulo (the result has the sign of `b`)."""
        return self._bin(relay.FloorModOp, a, b)

    def max(self, a: Value, b: Value) -> SSAValue:
        return self._bin(relay.MaximumOp, a, b)

    def min(self, a: Value, b: Value) -> SSAValue:
        return self._bin(relay.MinimumOp, a, b)

    def clamp(self, x: Value, lo: Value, hi: Value) -> SSAValue:
        return self.min(self.max(x, lo), hi)

    def eq(self, a: Value, b: Value) -> SSAValue:
        return self._bin(relay.EqualOp, a, b)

    def ne(self, a: Value, b: Value) -> SSAValue:
        return self._bin(relay.NotEqualOp, a, b)

    def lt(self, a: Value, b: Value) -> SSAValue:
        return self._bin(relay.LessOp, a, b)

    def le(self, a: Value, b: Value) -> SSAValue:
        return self._bin(relay.LessEqualOp, a, b)

    def and_(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.ctx.emit(relay.LogicalAndOp(a, b))

    def or_(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.ctx.emit(relay.LogicalOrOp(a, b))

    def not_(self, a: SSAValue) -> SSAValue:
        return self.ctx.emit(relay.LogicalNotOp(a))

    def where(self, c: SSAValue, a: Value, b: Value) -> SSAValue:
        elem = _elem(a) if isinstance(a, SSAValue) else _elem(b) if isinstance(b, SSAValue) else I64
        return self.ctx.emit(relay.WhereOp(c, self.v(a, elem), self.v(b, elem)))

    def reduce(self, cls: type[relay.ReduceOp], x: SSAValue, axis: int = 0) -> SSAValue:
        return self.ctx.emit(cls(x, axes=relay.i64_array([axis])))

    def all(self, x: SSAValue) -> SSAValue:
        """Whether every element of boolean `x` is true (true for none)."""
        if not shape(x):
            return x
        n: Dim = 1
        for d in shape(x):
            n = n * d
        flat = self.reshape(x, [n]) if len(shape(x)) > 1 else x
        wide = self.ctx.emit(relay.CastOp(flat, dtype=I64))
        return self.eq(self.reduce(relay.ProdOp, wide), 1)

    def element(self, t: SSAValue, i: int) -> SSAValue:
        """`t[i]` of a 1-D tensor, as a scalar."""
        return self.ctx.emit(relay.TakeOp(t, self.v(i), axis=relay.i64_attr(0)))

    def reshape(self, x: SSAValue, dims: Sequence[Dim]) -> SSAValue:
        return self.ctx.emit(relay.ReshapeOp(x, shape=dims_attr(dims)))

    def concat(self, parts: Sequence[SSAValue]) -> SSAValue:
        if len(parts) == 1:
            return parts[0]
        return self.ctx.emit(relay.ConcatenateOp(*parts, axis=relay.i64_attr(0)))

    def stack(self, scalars: Sequence[Value]) -> SSAValue:
        """Scalars (or ints) as a 1-D i64 tensor."""
        if all(isinstance(s, int) for s in scalars):
            return self.ctx.constant(np.array(scalars, np.int64))
        return self.concat([self.reshape(self.v(s), [1]) for s in scalars])

    def dims(self, x: SSAValue) -> SSAValue:
        """`x`'s shape as a 1-D i64 tensor (symbolic dims computed at run time)."""
        return self.ctx.constant(np.array(shape(x) or [], dtype=object if _symbolic(shape(x)) else np.int64))

    def dim(self, d: Dim) -> SSAValue:
        """One dim as an i64 scalar."""
        return self.ctx.constant(np.array(d, dtype=object if isinstance(d, Sym) else np.int64))

    def check(self, x: SSAValue, ok: SSAValue, why: str) -> SSAValue:
        """`x`, once `ok` holds: the run stops with the node's name and `why`."""
        message = f"{self.ctx.where()}: {why}"
        return self.ctx.emit(relay.CheckOp(x, self.all(ok), message=StringAttr(message)))

    def count(self, n: SSAValue, why: str) -> SSAValue:
        """The i64 `n`, once it is not negative (a size computed from values
        given when the model runs): the run stops with the node's name and
        `why` otherwise, not at the size it would set."""
        return self.check(n, self.le(0, n), why)


def _symbolic(dims: Sequence[Dim]) -> bool:
    return any(isinstance(d, Sym) for d in dims)


def values(ctx: NodeContext, i: int) -> SSAValue:
    """Input `i` (a shape, axes, pads or a count) as an i64 tensor computed at run time."""
    return ShapeMath(ctx).i64(ctx.input(i))


def fresh(ctx: NodeContext, what: str, n: int) -> list[str]:
    """`n` new size names after the node's first output and `what`."""
    base = f"{ctx.node.output[0]}_{what}" if ctx.node.output and ctx.node.output[0] else what
    return [ctx.fresh_size(f"{base}{i}") for i in range(n)]


def reshape(ctx: NodeContext, x: SSAValue, target: SSAValue, allowzero: bool = False) -> SSAValue:
    """`x` reshaped to the run-time shape `target` (i64 `[k]`) by ONNX's rules:
    a 0 copies `x`'s dim at that position (unless `allowzero`), one -1 takes
    what is left; the element count must stay."""
    m = ShapeMath(ctx)
    (k,) = shape(target)
    assert isinstance(k, int)
    src = shape(x)
    have = m.dims(x)
    out = target
    if not allowzero and src:  # a 0 copies x's dim at its position
        under = ctx.constant(np.array([*src[:k], *[0] * max(k - len(src), 0)], dtype=object))
        out = m.where(m.eq(target, 0), under, target)
    numel = m.reduce(relay.ProdOp, have) if src else m.v(1)
    if k:
        minus = m.eq(out, -1)
        known = m.reduce(relay.ProdOp, m.where(minus, 1, out))
        out = m.where(minus, m.div(numel, m.max(known, 1)), out)
        count = m.reduce(relay.SumOp, ctx.emit(relay.CastOp(minus, dtype=I64)))
        ok = m.and_(m.and_(m.le(count, 1), m.all(m.le(0, out))), m.eq(m.reduce(relay.ProdOp, out), numel))
        ok = m.and_(ok, m.or_(m.eq(count, 0), m.ne(known, 0)))  # a -1 beside a 0 is any size
    else:
        ok = m.eq(numel, 1)
    x = m.check(
        x, ok, "the shape given when the model runs must keep the input's element count "
        "(at most one -1, not beside a 0; no other negative)"
    )
    names = fresh(ctx, "d", k)
    return ctx.emit(relay.DynReshapeOp(x, out, sizes=_names(names), dims=dims_attr([Sym.var(n) for n in names])))


def _names(names: Sequence[str]) -> ArrayAttr:
    return ArrayAttr([StringAttr(n) for n in names])


def broadcast(ctx: NodeContext, x: SSAValue, target: SSAValue) -> SSAValue:
    """`x` broadcast against the run-time shape `target` (ONNX Expand: numpy
    broadcasting both ways). A static dim of `x` other than 1 stays, and the
    target's entry there must be 1 or that dim; a symbolic one (which may be 1
    when the model runs) is first read along its axis over a size set by the
    data (`remap`); elsewhere the entry is the result's dim."""
    m = ShapeMath(ctx)
    (k,) = shape(target)
    assert isinstance(k, int)
    x = m.check(x, m.le(0, target), "the shape given when the model runs has a negative dim")
    src = shape(x)
    rank = max(k, len(src))
    lead = [m.dim(d) for d in src[: rank - k]]
    full = m.concat([m.reshape(d, [1]) for d in lead] + [target]) if lead else target
    for a in range(max(rank - k, rank - len(src)), rank):
        xa = a - (rank - len(src))
        xd = src[xa]
        if isinstance(xd, Sym):  # 1 or not, as the model runs: 1 broadcasts
            e, d = m.element(full, a), m.dim(xd)
            one = m.eq(d, 1)
            d = m.check(d, m.or_(one, m.or_(m.eq(e, 1), m.eq(e, d))), _NO_BROADCAST)
            x = remap(ctx, x, xa, m.where(one, e, d), lambda m, i, one=one: (m.where(one, 0, i), None))
    src = shape(x)
    names: list[str] = []
    dims: list[Dim] = []
    checks: list[SSAValue] = []
    for a in range(rank):
        xd: Dim = src[a - (rank - len(src))] if a >= rank - len(src) else 1
        if a < rank - k or isinstance(xd, Sym):  # not in the target, or remapped: x's dim
            names.append("")
            dims.append(xd)
        elif xd == 1:
            known = ctx.known_element(full, a)
            if known is not None and known >= 0:  # a size set before, or a constant
                names.append("")
                dims.append(known)
                continue
            (name,) = fresh(ctx, f"e{a}_", 1)
            names.append(name)
            dims.append(Sym.var(name))
        else:
            names.append("")
            dims.append(xd)
            e = m.element(full, a)
            checks.append(m.or_(m.eq(e, 1), m.eq(e, m.dim(xd))))
    if checks:
        ok = checks[0]
        for c in checks[1:]:
            ok = m.and_(ok, c)
        x = m.check(x, ok, _NO_BROADCAST)
    if not any(names):
        return x if tuple(dims) == src else ctx.emit(relay.BroadcastToOp(x, shape=dims_attr(dims)))
    return ctx.emit(relay.DynBroadcastToOp(x, full, sizes=_names(names), dims=dims_attr(dims)))


_NO_BROADCAST = "the shape given when the model runs does not broadcast with the input's (each dim must be 1 or equal)"


def arange(ctx: NodeContext, count: Value, what: str = "n") -> SSAValue:
    """`[0, count)` as i64, its length a size set by the data."""
    m = ShapeMath(ctx)
    (name,) = fresh(ctx, what, 1)
    return ctx.emit(relay.DynArangeOp(m.i64(m.v(count)), size=StringAttr(name)))


def remap(
    ctx: NodeContext,
    x: SSAValue,
    axis: int,
    count: Value,
    source: Callable[[ShapeMath, SSAValue], tuple[SSAValue, SSAValue | None]],
    fill: SSAValue | None = None,
) -> SSAValue:
    """`x` with axis `axis` replaced by `count` positions (a size set by the
    data), position `i` reading `x` at `source(m, i)`'s first value; where its
    second (a validity mask, or None) is false, `fill` instead."""
    m = ShapeMath(ctx)
    i = arange(ctx, count, f"a{axis}_")
    src, valid = source(m, i)
    y = ctx.emit(relay.TakeOp(x, src, axis=relay.i64_attr(axis)))
    if valid is None or fill is None:
        return y
    out = shape(y)
    mask = m.reshape(valid, [d if a == axis else 1 for a, d in enumerate(out)]) if len(out) > 1 else valid
    return ctx.emit(relay.WhereOp(mask, y, fill))


# ------------------------------------------------------------ per-op rules
def _iota(m: ShapeMath, n: int) -> SSAValue:
    return m.ctx.constant(np.arange(n, dtype=np.int64))


def _normalized(m: ShapeMath, axes: SSAValue, rank: int) -> SSAValue:
    """Axes with negative ones counted from the end."""
    return m.where(m.lt(axes, 0), m.add(axes, rank), axes)


def _hits(m: ShapeMath, axes: SSAValue, rank: int) -> SSAValue:
    """`[c, rank]`: whether axis entry `i` names axis `j`."""
    (c,) = shape(axes)
    assert isinstance(c, int)
    return m.eq(m.reshape(axes, [c, 1]), m.reshape(_iota(m, rank), [1, rank]))


def _any(m: ShapeMath, hits: SSAValue) -> SSAValue:
    """Per axis (column), 1 if any entry names it, else 0 (i64)."""
    return m.reduce(relay.MaxOp, m.ctx.emit(relay.CastOp(hits, dtype=I64)))


def _axes_ok(m: ShapeMath, axes: SSAValue, named: SSAValue, rank: int) -> SSAValue:
    """The (normalized) axes are in range and none repeats."""
    (c,) = shape(axes)
    in_range = m.all(m.and_(m.le(0, axes), m.lt(axes, rank)))
    return m.and_(in_range, m.eq(m.reduce(relay.SumOp, named), c))


def squeeze(ctx: NodeContext, x: SSAValue, axes: SSAValue) -> SSAValue:
    """Squeeze the run-time `axes` (each of size 1) out of `x`."""
    m = ShapeMath(ctx)
    rank, (c,) = len(shape(x)), shape(axes)
    assert isinstance(c, int)
    a = _normalized(m, axes, rank)
    drop = _any(m, _hits(m, a, rank))  # [rank] 0/1
    have = m.dims(x)
    ok = m.and_(_axes_ok(m, a, drop, rank), m.all(m.or_(m.eq(drop, 0), m.eq(have, 1))))
    x = m.check(x, ok, "the axes given when the model runs must be distinct axes of size 1")
    keep = m.sub(1, drop)
    at = m.sub(ctx.emit(relay.CumulativeOp(keep, axis=relay.i64_attr(0), kind=StringAttr("sum"))), 1)
    n = rank - c
    if n <= 0:
        return reshape(ctx, x, ctx.constant(np.zeros(0, np.int64)))
    pick = m.and_(m.eq(m.reshape(at, [1, rank]), m.reshape(_iota(m, n), [n, 1])), m.eq(m.reshape(keep, [1, rank]), 1))
    out = m.reduce(relay.SumOp, m.where(pick, m.reshape(have, [1, rank]), 0), axis=1)
    return reshape(ctx, x, out)


def unsqueeze(ctx: NodeContext, x: SSAValue, axes: SSAValue) -> SSAValue:
    """Insert size-1 axes at the run-time `axes` (of the result)."""
    m = ShapeMath(ctx)
    rank, (c,) = len(shape(x)), shape(axes)
    assert isinstance(c, int)
    out_rank = rank + c
    a = _normalized(m, axes, out_rank)
    new = _any(m, _hits(m, a, out_rank))
    x = m.check(x, _axes_ok(m, a, new, out_rank), "the axes given when the model runs must be distinct and in range")
    ones = m.v(np.ones(out_rank, np.int64))
    if rank:  # the other dims are x's, in order
        before = ctx.emit(relay.CumulativeOp(new, axis=relay.i64_attr(0), kind=StringAttr("sum")))
        src = m.clamp(m.sub(_iota(m, out_rank), before), 0, rank - 1)
        dims = ctx.emit(relay.TakeOp(m.dims(x), src, axis=relay.i64_attr(0)))
        ones = m.where(m.eq(new, 1), 1, dims)
    return reshape(ctx, x, ones)


def tile(ctx: NodeContext, x: SSAValue, repeats: SSAValue) -> SSAValue:
    """`x` repeated along each axis as many times as the run-time `repeats`:
    `[1, d0, 1, d1] -> [r0, d0, r1, d1] -> [r0*d0, r1*d1]`."""
    m = ShapeMath(ctx)
    src = shape(x)
    rank = len(src)
    x = m.check(x, m.le(0, repeats), "the repeats given when the model runs must not be negative")
    spread = m.reshape(x, [d for dim in src for d in (1, dim)])
    both = ctx.emit(relay.ConcatenateOp(m.reshape(repeats, [rank, 1]), m.reshape(m.dims(x), [rank, 1]), axis=relay.i64_attr(1)))
    full = m.reshape(both, [2 * rank])
    names = fresh(ctx, "t", rank)
    dims: list[Dim] = [d for name, dim in zip(names, src, strict=True) for d in (Sym.var(name), dim)]
    sizes = [n for name in names for n in (name, "")]
    wide = ctx.emit(relay.DynBroadcastToOp(spread, full, sizes=_names(sizes), dims=dims_attr(dims)))
    return m.reshape(wide, [Sym.var(name) * dim for name, dim in zip(names, src, strict=True)])


def arange_between(ctx: NodeContext, start: SSAValue, limit: SSAValue, delta: SSAValue) -> SSAValue:
    """ONNX Range over run-time scalars: `start + i * delta` for
    `i < max(ceil((limit - start) / delta), 0)`."""
    m = ShapeMath(ctx)
    elem = _elem(start)
    lo, hi, step = (_cast(ctx, v, f64) for v in (start, limit, delta))
    count = m.max(ctx.emit(relay.CeilOp(m.div(m.sub(hi, lo), step))), m.v(0.0, f64))
    count = m.check(m.i64(count), m.ne(step, m.v(0.0, f64)), "delta is 0")
    i = _cast(ctx, arange(ctx, count, "range"), elem)
    return m.add(m.mul(i, delta), start)


def _per_axis(
    m: ShapeMath, hits: SSAValue | None, given: SSAValue, default: SSAValue | int, rank: int
) -> SSAValue:
    """`[rank]`: each axis' entry of `given` (one per entry of the axes whose
    `hits` are given), `default` for an axis no entry names."""
    if hits is None:  # one entry per axis, in order
        return given
    (c,) = shape(given)
    col = m.reshape(given, [c, 1])
    picked = m.reduce(relay.SumOp, m.where(hits, col, 0))
    return m.where(m.eq(_any(m, hits), 1), picked, default)


def slice_(
    ctx: NodeContext, x: SSAValue, starts: SSAValue, ends: SSAValue, axes: SSAValue | None,
    steps: SSAValue | None, touched: Sequence[int] | None,
) -> SSAValue:
    """ONNX Slice with run-time starts and ends (and axes, steps): the ONNX
    clamping computed when the model runs, then each sliced axis read at
    `start + i * step`. `touched` lists the axes sliced if they are known."""
    m = ShapeMath(ctx)
    rank = len(shape(x))
    (c,) = shape(starts)
    assert isinstance(c, int)
    a = axes if axes is not None else _iota(m, c)
    a = _normalized(m, a, rank)
    hits = _hits(m, a, rank)
    named = _any(m, hits)
    dim = m.dims(x)
    begin = _per_axis(m, hits, starts, 0, rank)
    end = _per_axis(m, hits, ends, dim, rank)
    step = _per_axis(m, hits, steps, 1, rank) if steps is not None else m.v(np.ones(rank, np.int64))
    ok = m.and_(_axes_ok(m, a, named, rank), m.all(m.ne(step, 0)))
    # A step of 0 stops the run (below); one past the axis' size takes one
    # element at most, so it is clamped there (no overflow in the size).
    reach = m.max(dim, 1)
    step = m.clamp(m.where(m.eq(step, 0), 1, step), m.sub(0, reach), reach)
    begin = m.where(m.lt(begin, 0), m.add(begin, dim), begin)
    end = m.where(m.lt(end, 0), m.add(end, dim), end)
    up = m.lt(0, step)
    begin = m.where(up, m.clamp(begin, 0, dim), m.clamp(begin, 0, m.sub(dim, 1)))
    end = m.where(up, m.clamp(end, 0, dim), m.clamp(end, -1, m.sub(dim, 1)))
    span = m.where(up, m.sub(end, begin), m.sub(begin, end))
    size = m.max(m.div(m.add(span, m.sub(m.where(up, step, m.sub(0, step)), 1)), m.where(up, step, m.sub(0, step))), 0)
    x = m.check(x, ok, "the axes given when the model runs must be distinct and in range, and no step 0")
    for j in range(rank) if touched is None else sorted(set(touched)):
        b, st = m.element(begin, j), m.element(step, j)
        x = remap(ctx, x, j, m.element(size, j), lambda m, i, b=b, st=st: (m.add(b, m.mul(i, st)), None))
    return x


def split(ctx: NodeContext, x: SSAValue, axis: int, parts: SSAValue) -> list[SSAValue]:
    """`x` split along `axis` into pieces of the run-time sizes `parts`."""
    m = ShapeMath(ctx)
    (k,) = shape(parts)
    assert isinstance(k, int)
    starts = ctx.emit(relay.CumulativeOp(parts, axis=relay.i64_attr(0), kind=StringAttr("sum"), exclusive=relay.UnitAttr()))
    ok = m.and_(m.all(m.le(0, parts)), m.eq(m.reduce(relay.SumOp, parts), m.dim(shape(x)[axis])))
    x = m.check(x, ok, f"the split sizes given when the model runs must be non-negative and add up to axis {axis}'s size")
    out = []
    for i in range(k):
        b = m.element(starts, i)
        out.append(remap(ctx, x, axis, m.element(parts, i), lambda m, j, b=b: (m.add(b, j), None)))
    return out


def pad(
    ctx: NodeContext, x: SSAValue, pads: SSAValue, axes: SSAValue | None, touched: Sequence[int] | None,
    mode: str, value: SSAValue,
) -> SSAValue:
    """ONNX Pad with run-time pads (and axes): each padded axis read through
    its index map (constant: the value outside; edge: clamped; reflect: mirrored
    without the edge; wrap: modulo). Negative pads crop."""
    m = ShapeMath(ctx)
    rank = len(shape(x))
    (p,) = shape(pads)
    assert isinstance(p, int)
    c = p // 2
    a = _normalized(m, axes if axes is not None else _iota(m, c), rank)
    hits = _hits(m, a, rank)
    x = m.check(x, _axes_ok(m, a, _any(m, hits), rank), "the axes given when the model runs must be distinct and in range")
    dim = m.dims(x)
    head = m.ctx.emit(relay.StridedSliceOp(pads, begin=dims_attr([0]), end=dims_attr([c]), strides=relay.i64_array([1])))
    tail = m.ctx.emit(relay.StridedSliceOp(pads, begin=dims_attr([c]), end=dims_attr([p]), strides=relay.i64_array([1])))
    before, after = (_per_axis(m, hits, v, 0, rank) for v in (head, tail))
    for j in range(rank) if touched is None else sorted(set(touched)):
        d, lo = m.element(dim, j), m.element(before, j)
        count = m.count(
            m.add(m.add(d, lo), m.element(after, j)),
            f"the pads given when the model runs crop more than axis {j} holds",
        )

        def source(m: ShapeMath, i: SSAValue, d: SSAValue = d, lo: SSAValue = lo) -> tuple[SSAValue, SSAValue | None]:
            at = m.sub(i, lo)
            if mode == "edge":
                return m.clamp(at, 0, m.sub(d, 1)), None
            if mode == "wrap":
                return m.mod(at, m.max(d, 1)), None
            if mode == "reflect":
                period = m.mul(m.sub(d, 1), 2)
                t = m.mod(at, m.max(period, 1))
                return m.where(m.lt(t, d), t, m.sub(period, t)), None
            return m.clamp(at, 0, m.sub(d, 1)), m.and_(m.le(0, at), m.lt(at, d))

        x = remap(ctx, x, j, count, source, value)
    return x


def center_crop_pad(ctx: NodeContext, x: SSAValue, target: SSAValue, axes: Sequence[int]) -> SSAValue:
    """ONNX CenterCropPad to a run-time shape: each axis cropped or
    zero-padded about its center (an odd difference: the extra element at the
    end)."""
    m = ShapeMath(ctx)
    dim = m.dims(x)
    zero = m.v(0, _elem(x))
    for k, j in enumerate(axes):
        d = m.element(dim, j)
        t = m.count(m.element(target, k), f"the shape given when the model runs has a negative size for axis {j}")
        offset = m.where(m.lt(t, d), m.div(m.sub(d, t), 2), m.sub(0, m.div(m.sub(t, d), 2)))

        def source(m: ShapeMath, i: SSAValue, d: SSAValue = d, off: SSAValue = offset) -> tuple[SSAValue, SSAValue | None]:
            at = m.add(i, off)
            return m.clamp(at, 0, m.sub(d, 1)), m.and_(m.le(0, at), m.lt(at, d))

        x = remap(ctx, x, j, t, source, zero)
    return x


__all__ = [
    "ShapeMath",
    "arange",
    "arange_between",
    "broadcast",
    "center_crop_pad",
    "fresh",
    "pad",
    "remap",
    "reshape",
    "slice_",
    "split",
    "squeeze",
    "tile",
    "unsqueeze",
    "values",
]
