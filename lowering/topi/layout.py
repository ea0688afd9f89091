"""Layout computes: every output element reads one input element at a
computed index (reshape, transpose, concatenate, split, strided_slice, take,
gather, broadcast_to, tile, pad, trilu), and resize (nearest, or a weighted sum
of neighbours).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import i64
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.shapes import dims
from lamina.lowering.lang.expr import Expr, is_float, is_unsigned
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
    perm = op.attrs.perm
    inverse = [perm.index(d) for d in range(len(perm))]
    return k.compute(_type(op), lambda e, i: e.read(x, [i[p] for p in inverse]))




@register_compute(relay.ConcatenateOp)
def concatenate(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """Each point reads the operand whose range along the axis holds it (every
    operand is read at a clamped index and the right value selected)."""
    out = _type(op)
    axis = relay.normalize_axis(op.name, op.attrs.axis, out.get_num_dims())
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
    axis = relay.normalize_axis(op.name, op.attrs.axis, len(_shape(x)))
    starts = [0, *op.attrs.indices]
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
    begin = op.attrs.begin
    strides = op.attrs.strides or (1,) * len(begin)

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
    axis = relay.normalize_axis(op.name, op.attrs.axis, len(shape))
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
    axis = relay.normalize_axis(op.name, op.attrs.axis, len(shape))

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
    b = op.attrs.batch_dims
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
    batch = relay.normalize_axis(op.name, op.attrs.batch_axis, len(shape))
    time = relay.normalize_axis(op.name, op.attrs.time_axis, len(shape))

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
    start = op.attrs.start.value.data
    step = op.attrs.step.value.data

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        i = e.from_index(idx[0], elem)
        return e.add(e.mul(i, e.const(step, elem)), e.const(start, elem))

    return k.compute(out, body)


@register_compute(relay.DimsOp)
def dims_value(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """A shape as data, at run time (a symbolic trip count, say): each entry
    the value of its dim, computed from the kernel's sizes."""
    values = op.attrs.dims

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
    reps = op.attrs.reps

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
    pads = op.attrs.pad_width
    mode = op.attrs.pad_mode
    value = op.attrs.pad_value
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
    upper = op.attrs.upper

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        off = e.isub(idx[-1], idx[-2])
        diag = e.to_index(e.read(ins[1], [])) if len(ins) == 2 else e.index(op.attrs.k)
        keep = e.cmp("ge" if upper else "le", off, diag)
        return e.select(keep, e.read(x, idx), e.const(0, _elem(x)))

    return k.compute(_type(op), body)
