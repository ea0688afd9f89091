"""Extern kernels of the ops of data-dependent size
(`lamina.dialects.relay.dynamic`): each writes its result padded to the bound,
in the bound's layout, and the valid count into an i64 scalar; `relay.narrow`
then copies the valid prefix out once `@main` knows the count.
"""

from __future__ import annotations

from xdsl.dialects.builtin import i1 as I1
from xdsl.ir import Attribute, SSAValue

from lamina.dialects import relay
from lamina.dialects.shapes import dims
from lamina.lowering.lang.tir_builder import TirBuilder
from lamina.lowering.topi.algorithm import (
    I8,
    I64,
    _bump,
    _counter,
    _get,
    _put,
    merge_sort,
    register_extern,
)
from lamina.symbolic import Dim


def _scalar(b: TirBuilder, buf: SSAValue) -> SSAValue:
    """The one element of a scalar-like buffer (`[]` or `[1]`)."""
    return b.load(buf, [b.index(0) for _ in dims(buf.type)])


@register_extern(relay.NonZeroOp)
def _nonzero(b: TirBuilder, op: relay.RelayOp) -> None:
    data, indices, count = b.args
    shape = dims(data.type)
    elem = data.type.get_element_type()  # type: ignore[attr-defined]
    found = _counter(b)
    with b.nest(shape) as ivs, b.then(b.cmp("ne", b.load(data, ivs), b.const(0, elem))):
        j = b.to_index(_get(b, found))
        for axis, i in enumerate(ivs):
            b.store(b.from_index(i, I64), indices, [b.index(axis), j])
        _bump(b, found)
    b.store(_get(b, found), count, [])


def _corners(b: TirBuilder, boxes: SSAValue, at: list[SSAValue], center: bool) -> list[SSAValue]:
    """(x_min, x_max, y_min, y_max) of box `boxes[at..., :]`."""
    c = [b.load(boxes, [*at, b.index(k)]) for k in range(4)]
    if center:  # (x_center, y_center, width, height)
        half = b.const(0.5, c[0].type)
        w, h = b.mul(c[2], half), b.mul(c[3], half)
        return [b.sub(c[0], w), b.add(c[0], w), b.sub(c[1], h), b.add(c[1], h)]
    # (y1, x1, y2, x2), either corner first
    return [b.min(c[1], c[3]), b.max(c[1], c[3]), b.min(c[0], c[2]), b.max(c[0], c[2])]


def _overlaps(b: TirBuilder, p: list[SSAValue], q: list[SSAValue], threshold: SSAValue) -> SSAValue:
    """Whether boxes `p` and `q` overlap by an IoU above `threshold` (boxes of
    no area never do), as ONNX's reference decides it."""
    zero = b.const(0.0, p[0].type)
    iw = b.sub(b.min(p[1], q[1]), b.max(p[0], q[0]))
    ih = b.sub(b.min(p[3], q[3]), b.max(p[2], q[2]))
    inter = b.mul(iw, ih)
    area_p = b.mul(b.sub(p[1], p[0]), b.sub(p[3], p[2]))
    area_q = b.mul(b.sub(q[1], q[0]), b.sub(q[3], q[2]))
    union = b.sub(b.add(area_p, area_q), inter)
    valid = b.all_of(
        [b.cmp("gt", x, zero) for x in (iw, ih, inter, area_p, area_q, union)]
    )
    return b.and_(valid, b.cmp("gt", b.div(inter, union), threshold))


@register_extern(relay.NonMaxSuppressionOp)
def _non_max_suppression(b: TirBuilder, op: relay.RelayOp) -> None:
    """Per (batch, class): the boxes scoring above the threshold, sorted best
    first (a stable merge sort, so equal scores go lowest index first); each is
    kept unless it overlaps one kept before, up to `max_output`. O(m log m + m
    k) for m candidates and k kept."""
    boxes, scores, max_output, iou, score_threshold, selected, count = b.args
    batch, classes, n = dims(scores.type)
    elem: Attribute = scores.type.get_element_type()  # type: ignore[attr-defined]
    center = op.attrs.center_point_box
    unfiltered = op.attrs.unfiltered
    limit = b.max(b.cast(_scalar(b, max_output), I64), b.const(0, I64))
    iou_t, score_t = b.cast(_scalar(b, iou), elem), b.cast(_scalar(b, score_threshold), elem)
    cand_s, cand_i = b.alloc([n], elem), b.alloc([n], I64)
    kept = b.alloc([n], I64)
    total, nkept, found = _counter(b), _counter(b), _counter(b)
    suppressed = b.alloc([1], I8)
    zero = b.index(0)
    with b.loop(batch) as bi, b.loop(classes) as ci:
        _put(b, b.const(0, I64), nkept)
        _put(b, b.const(0, I64), found)
        with b.loop(n) as k:
            s = b.load(scores, [bi, ci, k])
            keep = b.const(1, I1) if unfiltered else b.cmp("gt", s, score_t)
            with b.then(keep):
                m = b.to_index(_get(b, found))
                b.store(s, cand_s, [m])
                b.store(b.from_index(k, I64), cand_i, [m])
                _bump(b, found)
        m = b.to_index(_get(b, found))
        merge_sort(b, m, n, cand_s, [cand_i], descending=True)
        with b.loop(m) as t, b.then(b.cmp("lt", _get(b, nkept), limit)):
            at = b.to_index(b.load(cand_i, [t]))
            mine = _corners(b, boxes, [bi, at], center)
            b.store(b.const(0, I8), suppressed, [zero])
            with b.loop(b.to_index(_get(b, nkept))) as j:
                theirs = _corners(b, boxes, [bi, b.to_index(b.load(kept, [j]))], center)
                with b.then(_overlaps(b, mine, theirs, iou_t)):
                    b.store(b.const(1, I8), suppressed, [zero])
            with b.then(b.cmp("eq", b.load(suppressed, [zero]), b.const(0, I8))):
                b.store(b.from_index(at, I64), kept, [b.to_index(_get(b, nkept))])
                row = b.to_index(_get(b, total))
                for col, v in enumerate((bi, ci, at)):
                    b.store(b.from_index(v, I64), selected, [row, b.index(col)])
                _bump(b, nkept)
                _bump(b, total)
    b.store(_get(b, total), count, [])


@register_extern(relay.UniqueOp)
def _unique(b: TirBuilder, op: relay.RelayOp) -> None:
    """Distinct rows: first occurrences in order, found by a scan of the rows
    kept so far; then, if `sorted`, an insertion sort of the kept rows
    (lexicographic) carrying their first index and count; a final scan gives
    each row its position. O(n u m) for n rows of m elements, u distinct."""
    data, values, indices, inverse, counts, count = b.args
    n, m = dims(data.type)
    found, where = _counter(b), _counter(b)
    with b.loop(n) as i:
        _put(b, b.const(-1, I64), where)
        kept = b.to_index(_get(b, found))
        with b.loop(kept) as j, b.then(_rows_equal(b, values, j, data, i, m)):
            _put(b, b.from_index(j, I64), where)
        with b.then(b.cmp("lt", _get(b, where), b.const(0, I64))):
            u = b.to_index(_get(b, found))
            with b.loop(m) as k:
                b.store(b.load(data, [i, k]), values, [u, k])
            b.store(b.from_index(i, I64), indices, [u])
            b.store(b.const(0, I64), counts, [u])
            _put(b, _get(b, found), where)
            _bump(b, found)
        at = b.to_index(_get(b, where))
        b.store(b.add(b.load(counts, [at]), b.const(1, I64)), counts, [at])
    u = b.to_index(_get(b, found))
    if op.attrs.sorted:
        _sort_rows(b, u, m, values, [indices, counts])
    with b.loop(n) as i, b.loop(u) as j, b.then(_rows_equal(b, values, j, data, i, m)):
        b.store(b.from_index(j, I64), inverse, [i])
    b.store(_get(b, found), count, [])


def _rows_equal(b: TirBuilder, x: SSAValue, i: SSAValue, y: SSAValue, j: SSAValue, m: Dim) -> SSAValue:
    """Whether row `x[i]` equals row `y[j]` (m elements)."""
    if m == 1:
        return b.cmp("eq", b.load(x, [i, b.index(0)]), b.load(y, [j, b.index(0)]))
    same = b.alloc([1], I8)
    b.store(b.const(1, I8), same, [b.index(0)])
    with b.loop(m) as k, b.then(b.cmp("ne", b.load(x, [i, k]), b.load(y, [j, k]))):
        b.store(b.const(0, I8), same, [b.index(0)])
    return b.cmp("ne", b.load(same, [b.index(0)]), b.const(0, I8))


def _row_greater(b: TirBuilder, x: SSAValue, i: SSAValue, j: SSAValue, m: Dim) -> SSAValue:
    """Whether row `x[i]` comes after row `x[j]` lexicographically."""
    if m == 1:
        return b.cmp("gt", b.load(x, [i, b.index(0)]), b.load(x, [j, b.index(0)]))
    order = b.alloc([1], I8)  # 0 undecided, 1 greater, 2 less
    b.store(b.const(0, I8), order, [b.index(0)])
    with b.loop(m) as k:
        p, q = b.load(x, [i, k]), b.load(x, [j, k])
        undecided = b.cmp("eq", b.load(order, [b.index(0)]), b.const(0, I8))
        with b.then(b.and_(undecided, b.cmp("ne", p, q))):
            verdict = b.select(b.cmp("gt", p, q), b.const(1, I8), b.const(2, I8))
            b.store(verdict, order, [b.index(0)])
    return b.cmp("eq", b.load(order, [b.index(0)]), b.const(1, I8))


def _sort_rows(b: TirBuilder, n: SSAValue, m: Dim, rows: SSAValue, carried: list[SSAValue]) -> None:
    """Sort rows `rows[0..n]` ascending (stable insertion sort), moving
    `carried[k][...]` along: each row moves down while its left neighbour is
    greater."""
    moving = b.alloc([1], I8)
    with b.loop(n) as i:
        b.store(b.const(1, I8), moving, [b.index(0)])
        with b.loop(i) as step:
            j = b.isub(i, step)  # i, i-1, ..., 1
            left = b.isub(j, b.index(1))
            still = b.cmp("ne", b.load(moving, [b.index(0)]), b.const(0, I8))
            with b.then(still):
                go = _row_greater(b, rows, left, j, m)
                with b.then(go):
                    with b.loop(m) as k:
                        _swap(b, rows, [left, k], [j, k])
                    for buf in carried:
                        _swap(b, buf, [left], [j])
                with b.then(b.not_(go)):
                    b.store(b.const(0, I8), moving, [b.index(0)])


def _swap(b: TirBuilder, buf: SSAValue, p: list[SSAValue], q: list[SSAValue]) -> None:
    a, c = b.load(buf, p), b.load(buf, q)
    b.store(c, buf, p)
    b.store(a, buf, q)


__all__: list[str] = []
