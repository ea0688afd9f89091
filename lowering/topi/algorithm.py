"""Extern kernels: graph ops written directly in TIR (TVM's `te.extern` with
`tir.ir_builder`, Relax's `call_tir` to a PrimFunc), for what a compute over an
index space cannot say: scatters, where an element is written by whichever
update names it (in order, the last one winning); top-k selection; cumulative
scans, which carry a running value along an axis; determinants (an LU
factorization per matrix); n-gram counts (a binary search in a sorted pool).

`@register_extern(OpClass)` registers a kernel writer `(b, op) -> None` that
fills a `TirBuilder` whose buffers `b.args` are the op's operands then its
results; `extern_kernel(op, name)` builds the `tir.prim_func`.
`lower-relay-to-te` calls such a kernel from the graph with `te.call` and
`lower-te-to-tir` keeps it as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, f64
from xdsl.ir import SSAValue

from lamina.dialects import relay, tir
from lamina.dialects.shapes import dims
from lamina.errors import LoweringError
from lamina.lowering.lang.tir_builder import TirBuilder
from lamina.registry import Registry
from lamina.symbolic import Dim

Extern = Callable[[TirBuilder, relay.RelayOp], None]

#: Extern kernel writers by op name.
EXTERNS: Registry[Extern] = Registry("extern kernel")


def register_extern(*op_types: type[relay.RelayOp]) -> Callable[[Extern], Extern]:
    """Decorator: the extern kernel of the ops `op_types`."""

    def wrap(fn: Extern) -> Extern:
        for t in op_types:
            EXTERNS.register(t.name, fn)
        return fn

    return wrap


def is_extern(op: relay.RelayOp) -> bool:
    return EXTERNS.lookup(op.name) is not None


def extern_kernel(op: relay.RelayOp, name: str) -> tir.PrimFuncOp:
    """The `tir.prim_func` `name` computing `op` over buffers of its operands
    and results."""
    write = EXTERNS.lookup(op.name)
    if write is None:
        raise LoweringError(f"{op.name} has no extern kernel")
    b = TirBuilder(name, [tir.memref_of(v.type) for v in (*op.operands, *op.results)])
    write(b, op)
    return b.finish()


# ------------------------------------------------------------------ helpers
def _shape(v: SSAValue) -> tuple[int, ...]:
    return tuple(dims(v.type))  # type: ignore[attr-defined]


def _copy(b: TirBuilder, src: SSAValue, dst: SSAValue) -> None:
    with b.nest(_shape(src)) as ivs:
        b.store(b.load(src, ivs), dst, ivs)


def _position(b: TirBuilder, raw: SSAValue, extent: int) -> tuple[SSAValue, SSAValue]:
    """An index read from an indices tensor, negative ones counting from the end,
    and whether it falls inside `0..extent`."""
    i = b.to_index(raw)
    i = b.select(b.cmp("lt", i, b.index(0)), b.iadd(i, b.index(extent)), i)
    return i, b.in_range(i, 0, extent)


def _combine(b: TirBuilder, reduction: str, old: SSAValue, new: SSAValue) -> SSAValue:
    if reduction == "add":
        return b.add(old, new)
    if reduction == "mul":
        return b.mul(old, new)
    if reduction == "max":
        return b.max(old, new)
    if reduction == "min":
        return b.min(old, new)
    return new


def _scatter(b: TirBuilder, reduction: str, out: SSAValue, at: Sequence[SSAValue], update: SSAValue) -> None:
    if reduction != "none":
        update = _combine(b, reduction, b.load(out, at), update)
    b.store(update, out, at)


I64 = IntegerType(64)
I8 = IntegerType(8)
#: Top-k keeps a sorted list of the best k (O(n k)) up to this k, and sorts
#: the whole row (O(n log n)) beyond it.
INSERTION_TOPK = 16


def _counter(b: TirBuilder) -> SSAValue:
    """A local i64 cell, set to 0 where this is called."""
    cell = b.alloc([1], I64)
    b.store(b.const(0, I64), cell, [b.index(0)])
    return cell


def _get(b: TirBuilder, cell: SSAValue) -> SSAValue:
    return b.load(cell, [b.index(0)])


def _put(b: TirBuilder, value: SSAValue, cell: SSAValue) -> None:
    b.store(value, cell, [b.index(0)])


def _bump(b: TirBuilder, cell: SSAValue) -> None:
    _put(b, b.add(_get(b, cell), b.const(1, I64)), cell)


def merge_sort(
    b: TirBuilder, n: SSAValue, capacity: Dim, keys: SSAValue, carried: list[SSAValue], descending: bool = False
) -> None:
    """Sort `keys[0..n]` (1-D buffers of `capacity`), stably, carrying
    `carried[k][0..n]` along: a bottom-up merge sort, O(n log n), through
    scratch buffers of the same size."""
    bufs = [keys, *carried]
    scratch = [b.alloc([capacity], buf.type.get_element_type()) for buf in bufs]  # type: ignore[attr-defined]
    left, right = _counter(b), _counter(b)
    last = b.isub(b.imax(n, b.index(1)), b.index(1))
    if isinstance(capacity, int):  # a pass per doubling, unrolled
        steps = [(b.index(1 << p), b.index(2 << p)) for p in range((capacity - 1).bit_length())]
        for width, span in steps:
            _merge_pass(b, n, last, width, span, keys, bufs, scratch, left, right, descending)
        return
    with b.loop(63) as p:  # symbolic capacity: the passes as a loop
        width = b.emit(arith.ShLIOp(b.index(1), p))
        _merge_pass(b, n, last, width, b.iadd(width, width), keys, bufs, scratch, left, right, descending)


def _merge_pass(
    b: TirBuilder, n: SSAValue, last: SSAValue, width: SSAValue, span: SSAValue, keys: SSAValue,
    bufs: list[SSAValue], scratch: list[SSAValue], left: SSAValue, right: SSAValue, descending: bool,
) -> None:
    """One pass of the merge sort: runs of `width` merged pairwise into runs of
    `span`, through `scratch` and back."""
    with b.then(b.cmp("lt", width, n)):
        blocks = b.idiv(b.iadd(n, b.isub(span, b.index(1))), span)
        with b.loop(blocks) as blk:
            lo = b.imul(blk, span)
            mid = b.imin(b.iadd(lo, width), n)
            hi = b.imin(b.iadd(lo, span), n)
            _put(b, b.from_index(lo, I64), left)
            _put(b, b.from_index(mid, I64), right)
            with b.loop(b.isub(hi, lo)) as step:
                i, j = b.to_index(_get(b, left)), b.to_index(_get(b, right))
                ki, kj = b.load(keys, [b.imin(i, last)]), b.load(keys, [b.imin(j, last)])
                right_first = b.cmp("gt" if descending else "lt", kj, ki)
                take_right = b.or_(
                    b.cmp("ge", i, mid), b.and_(b.cmp("lt", j, hi), right_first)
                )
                src = b.select(take_right, j, i)
                at = b.iadd(lo, step)
                for buf, tmp in zip(bufs, scratch, strict=True):
                    b.store(b.load(buf, [src]), tmp, [at])
                with b.then(take_right):
                    _bump(b, right)
                with b.then(b.not_(take_right)):
                    _bump(b, left)
        with b.loop(n) as k:
            for buf, tmp in zip(bufs, scratch, strict=True):
                b.store(b.load(tmp, [k]), buf, [k])


# ------------------------------------------------------------------ kernels
@register_extern(relay.ScatterNDOp)
def _scatter_nd(b: TirBuilder, op: relay.RelayOp) -> None:
    data, indices, updates, out = b.args
    reduction = op.attrs.reduction
    shape, idx = _shape(data), _shape(indices)
    q = idx[-1]
    _copy(b, data, out)
    with b.nest(idx[:-1]) as batch:
        coords, inside = [], []
        for j in range(q):
            c, ok = _position(b, b.load(indices, [*batch, b.index(j)]), shape[j])
            coords.append(c)
            inside.append(ok)
        with b.then(b.all_of(inside)), b.nest(shape[q:]) as rest:
            _scatter(b, reduction, out, [*coords, *rest], b.load(updates, [*batch, *rest]))


@register_extern(relay.ScatterElementsOp)
def _scatter_elements(b: TirBuilder, op: relay.RelayOp) -> None:
    data, indices, updates, out = b.args
    reduction = op.attrs.reduction
    shape = _shape(data)
    axis = op.attrs.axis % len(shape)
    _copy(b, data, out)
    with b.nest(_shape(indices)) as ivs:
        c, ok = _position(b, b.load(indices, ivs), shape[axis])
        with b.then(ok):
            at = [c if a == axis else i for a, i in enumerate(ivs)]
            _scatter(b, reduction, out, at, b.load(updates, ivs))


@register_extern(relay.TopKOp)
def _topk(b: TirBuilder, op: relay.RelayOp) -> None:
    """Per row, an insertion into the sorted best-k seen so far: O(n k) (a merge
    sort of the row for k > `INSERTION_TOPK`). A new
    element goes after every kept one at least as good, so equal values keep
    the lower index first."""
    data, values, indices = b.args
    shape = _shape(data)
    axis = op.attrs.axis % len(shape)
    k = op.attrs.k
    better_or_equal = "ge" if op.attrs.largest else "le"
    elem = data.type.get_element_type()  # type: ignore[attr-defined]
    i64 = IntegerType(64)
    if k == 0:
        return
    if k > INSERTION_TOPK:
        _topk_sorted(b, op, k, axis)
        return
    kept_v, kept_i = b.alloc([k], elem), b.alloc([k], i64)
    count, pos = b.alloc([1], i64), b.alloc([1], i64)
    zero = [b.index(0)]
    with b.nest([d for a, d in enumerate(shape) if a != axis]) as outer:

        def at(i: SSAValue) -> list[SSAValue]:
            return [*outer[:axis], i, *outer[axis:]]

        b.store(b.const(0, i64), count, zero)
        with b.loop(shape[axis]) as i:
            x = b.load(data, at(i))
            n = b.to_index(b.load(count, zero))
            b.store(b.const(0, i64), pos, zero)
            with b.loop(k) as p:
                ahead = b.and_(b.cmp("lt", p, n), b.cmp(better_or_equal, b.load(kept_v, [p]), x))
                with b.then(ahead):
                    b.store(b.add(b.load(pos, zero), b.const(1, i64)), pos, zero)
            at_pos = b.to_index(b.load(pos, zero))
            with b.then(b.cmp("lt", at_pos, b.index(k))):
                with b.loop(k) as t:  # shift the worse ones down by one, from the end
                    dst = b.isub(b.index(k - 1), t)
                    with b.then(b.and_(b.cmp("gt", dst, at_pos), b.cmp("le", dst, n))):
                        src = [b.isub(dst, b.index(1))]
                        b.store(b.load(kept_v, src), kept_v, [dst])
                        b.store(b.load(kept_i, src), kept_i, [dst])
                b.store(x, kept_v, [at_pos])
                b.store(b.from_index(i, i64), kept_i, [at_pos])
                grown = b.imin(b.iadd(n, b.index(1)), b.index(k))
                b.store(b.from_index(grown, i64), count, zero)
        with b.loop(k) as j:
            b.store(b.load(kept_v, [j]), values, at(j))
            b.store(b.load(kept_i, [j]), indices, at(j))


def _topk_sorted(b: TirBuilder, op: relay.RelayOp, k: int, axis: int) -> None:
    """Top-k by a stable merge sort of each row: O(n log n), for large k."""
    data, values, indices = b.args
    shape = _shape(data)
    n = shape[axis]
    keys = b.alloc([n], data.type.get_element_type())  # type: ignore[attr-defined]
    order = b.alloc([n], I64)
    with b.nest([d for a, d in enumerate(shape) if a != axis]) as outer:

        def at(i: SSAValue) -> list[SSAValue]:
            return [*outer[:axis], i, *outer[axis:]]

        with b.loop(n) as i:
            b.store(b.load(data, at(i)), keys, [i])
            b.store(b.from_index(i, I64), order, [i])
        merge_sort(b, b.index(n), n, keys, [order], descending=op.attrs.largest)
        with b.loop(k) as j:
            b.store(b.load(keys, [j]), values, at(j))
            b.store(b.load(order, [j]), indices, at(j))


@register_extern(relay.CumulativeOp)
def _cumulative(b: TirBuilder, op: relay.RelayOp) -> None:
    data, out = b.args
    shape = _shape(data)
    axis = op.attrs.axis % len(shape)
    product = op.attrs.kind == "prod"
    exclusive, reverse = op.attrs.exclusive, op.attrs.reverse
    elem = data.type.get_element_type()  # type: ignore[attr-defined]
    acc = b.alloc([1], elem)
    zero = [b.index(0)]
    n = shape[axis]
    with b.nest([d for a, d in enumerate(shape) if a != axis]) as outer:
        b.store(b.const(1 if product else 0, elem), acc, zero)
        with b.loop(n) as step:
            i = b.isub(b.index(n - 1), step) if reverse else step
            at = [*outer[:axis], i, *outer[axis:]]
            before = b.load(acc, zero)
            x = b.load(data, at)
            after = b.mul(before, x) if product else b.add(before, x)
            b.store(after, acc, zero)
            b.store(before if exclusive else after, out, at)


@register_extern(relay.DetOp)
def _det(b: TirBuilder, op: relay.RelayOp) -> None:
    """Per matrix, Gaussian elimination with partial pivoting (LU) in an f64
    copy: the determinant is the product of the pivots, negated per row swap.
    A zero pivot makes it 0 and skips the elimination (no division by 0)."""
    data, out = b.args
    shape = _shape(data)
    m = shape[-1]
    elem = data.type.get_element_type()  # type: ignore[attr-defined]
    a = b.alloc([m, m], f64)
    det, pivot_row = b.alloc([1], f64), b.alloc([1], I64)
    with b.nest(shape[:-2]) as batch:
        with b.nest([m, m]) as (i, j):
            b.store(b.cast(b.load(data, [*batch, i, j]), f64), a, [i, j])
        _put(b, b.const(1.0, f64), det)
        with b.loop(m) as k:
            # the pivot: the first row at or below k of the largest |a[., k]|
            _put(b, b.from_index(k, I64), pivot_row)
            with b.loop(b.isub(b.index(m), k)) as t:
                i = b.iadd(k, t)
                best = b.to_index(_get(b, pivot_row))
                larger = b.cmp("gt", b.abs(b.load(a, [i, k])), b.abs(b.load(a, [best, k])))
                with b.then(larger):
                    _put(b, b.from_index(i, I64), pivot_row)
            p = b.to_index(_get(b, pivot_row))
            with b.then(b.cmp("ne", p, k)):
                with b.loop(m) as j:
                    top, low = b.load(a, [k, j]), b.load(a, [p, j])
                    b.store(low, a, [k, j])
                    b.store(top, a, [p, j])
                _put(b, b.neg(_get(b, det)), det)
            pivot = b.load(a, [k, k])
            _put(b, b.mul(_get(b, det), pivot), det)
            rest = b.isub(b.isub(b.index(m), k), b.index(1))
            with b.then(b.cmp("ne", pivot, b.const(0.0, f64))), b.loop(rest) as t:
                i = b.iadd(b.iadd(k, b.index(1)), t)
                factor = b.div(b.load(a, [i, k]), pivot)
                with b.loop(rest) as u:
                    j = b.iadd(b.iadd(k, b.index(1)), u)
                    b.store(b.sub(b.load(a, [i, j]), b.mul(factor, b.load(a, [k, j]))), a, [i, j])
        b.store(b.cast(_get(b, det), elem), out, batch)


def _static(op: relay.RelayOp, what: str, value: Dim) -> int:
    if not isinstance(value, int):
        raise LoweringError(f"{op.name}: {what} must be static, got {value}")
    return value


@register_extern(relay.NgramCountOp)
def _ngram_count(b: TirBuilder, op: relay.RelayOp) -> None:
    """Per row, distance and start, the n-gram read there is looked up in the
    sorted pool by a binary search and counted in its slot: O(L S n log P)
    per row."""
    data, grams, slots, out = b.args
    shape = _shape(data)
    length = shape[-1]
    pool, n = (_static(op, "the pool's shape", d) for d in _shape(grams))
    width = op.attrs.width
    distances = 1 if n == 1 else op.attrs.max_skip + 1
    lo, hi = b.alloc([1], I64), b.alloc([1], I64)
    with b.nest(shape[:-1]) as row:
        with b.loop(width) as j:
            b.store(b.const(0, I64), out, [*row, j])
        with b.loop(distances if pool else 0) as d0:
            d = b.iadd(d0, b.index(1))
            starts = b.imax(b.isub(b.index(length), b.iscale(d, n - 1)), b.index(0))
            with b.loop(starts) as s:
                key = [
                    b.cast(b.load(data, [*row, b.iadd(s, b.iscale(d, k))]), I64) for k in range(n)
                ]
                at = _search(b, grams, pool, key, lo, hi)
                with b.then(b.cmp("lt", at, b.index(pool))):
                    same = [b.cmp("eq", b.load(grams, [at, b.index(k)]), v) for k, v in enumerate(key)]
                    slot = b.to_index(b.load(slots, [at]))
                    with b.then(b.all_of([*same, b.in_range(slot, 0, width)])):
                        count = b.load(out, [*row, slot])
                        b.store(b.add(count, b.const(1, I64)), out, [*row, slot])


def _search(
    b: TirBuilder, grams: SSAValue, pool: int, key: list[SSAValue], lo: SSAValue, hi: SSAValue
) -> SSAValue:
    """The index of the first row of `grams` (`[pool, n]`, sorted) not below
    `key`, by bisection over the i64 cells `lo` and `hi` (`pool` if none);
    rows compare lexicographically, unrolled over the n elements."""
    _put(b, b.const(0, I64), lo)
    _put(b, b.const(pool, I64), hi)
    with b.loop(pool.bit_length()):
        low, high = _get(b, lo), _get(b, hi)
        mid = b.emit(arith.ShRSIOp(b.add(low, high), b.const(1, I64)))
        at = b.to_index(b.min(mid, b.const(pool - 1, I64)))
        below = b.const(0, IntegerType(1))
        for k in reversed(range(len(key))):  # the first difference decides
            g = b.load(grams, [at, b.index(k)])
            below = b.select(b.cmp("ne", g, key[k]), b.cmp("lt", g, key[k]), below)
        active = b.cmp("lt", low, high)
        _put(b, b.select(b.and_(active, below), b.add(mid, b.const(1, I64)), low), lo)
        _put(b, b.select(b.and_(active, b.not_(below)), mid, high), hi)
    return b.to_index(_get(b, lo))


__all__ = ["EXTERNS", "Extern", "extern_kernel", "is_extern", "register_extern"]
