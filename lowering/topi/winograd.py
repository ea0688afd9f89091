"""Winograd convolution, F(m x m, 3 x 3): the transform matrices and the
computes of `relay.winograd_input_transform` and
`relay.winograd_output_transform` (TVM's `topi.nn.winograd_util` and the
transforms of `conv2d_winograd`); the batched product between them is
`relay.matmul`'s compute.

The matrices come from the Cook-Toom construction over the interpolation
points TVM uses (Barabasz et al., "Error Analysis and Improving the Accuracy
of Winograd Convolution for Deep Neural Networks"), plus the point at
infinity: for F(m, r) with `a = m + r - 1` points, `A^T` evaluates the output
polynomial (`[m, a]`), `G` the kernel's, divided by the Lagrange
denominators (`[a, r]`), and `B^T` holds the Lagrange numerators' coefficients
(`[a, a]`), so that `y = A^T ((G g) * (B^T d))` is the correlation of `d`
with `g`. They are computed in f64; the compile casts what it embeds.

Both transforms are sum reductions over one axis of a tile whose terms apply the
transform along the other axis, with the matrix entries read from the
(constant) matrix operand: the CPU strategy's `winograd_input` and
`winograd_output` templates schedule them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.shapes import dims
from lamina.dialects.te import ReduceKind
from lamina.lowering.lang.expr import Expr
from lamina.lowering.strategy import tags
from lamina.lowering.topi.base import Kernel, _shape, _type, register_compute, schedule

#: The interpolation points of F(m, 3) by tile size (TVM's, the point at
#: infinity implied).
POINTS: dict[int, tuple[float, ...]] = {
    2: (0.0, -1.0, 1.0),
    4: (0.0, -1.0, 1.0, 0.5, -2.0),
    6: (0.0, -1.0, 1.0, 0.5, -0.5, 2.0, -2.0),
}


def winograd_matrices(m: int, r: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`(A^T [m, a], B^T [a, a], G [a, r])` of F(m, r) in f64, `a = m + r - 1`
    (the Cook-Toom construction over `POINTS[m]` and infinity)."""
    points = POINTS.get(m)
    if points is None or len(points) != m + r - 2:
        raise ValueError(f"no Winograd points for F({m}, {r}); tile sizes: {sorted(POINTS)}")
    a = m + r - 1
    at, bt, g = np.zeros((m, a)), np.zeros((a, a)), np.zeros((a, r))
    for j, p in enumerate(points):
        others = [q for k, q in enumerate(points) if k != j]
        denominator = math.prod(p - q for q in others)
        at[:, j] = [p**i for i in range(m)]
        g[j] = [p**k / abs(denominator) for k in range(r)]
        # The numerator prod(x - q) in ascending powers; its sign goes with it.
        bt[j, : a - 1] = np.sign(denominator) * np.polynomial.polynomial.polyfromroots(others)
    at[m - 1, a - 1] = 1.0
    g[a - 1, r - 1] = 1.0
    bt[a - 1] = np.polynomial.polynomial.polyfromroots(points)
    return at + 0.0, bt + 0.0, g + 0.0  # (no negative zeros)


def input_transform(m: int) -> np.ndarray:
    """`B^T` (`[a, a]`, f64): the operand of `relay.winograd_input_transform`."""
    return winograd_matrices(m)[1]


def output_transform(m: int) -> np.ndarray:
    """`A^T` (`[m, a]`, f64): the operand of `relay.winograd_output_transform`."""
    return winograd_matrices(m)[0]


def weight_transform(weight: np.ndarray, m: int, block: int) -> np.ndarray:
    """`U[k / kb, s, c, k % kb] = (G w[k, c] G^T)[s]` (f64) of a `[K, C, 3, 3]`
    weight, in panels of `kb = block` output channels: the right operand of
    the batched product, `[K/kb, a*a, C, kb]`."""
    _, _, g = winograd_matrices(m)
    a = g.shape[0]
    k, c = weight.shape[:2]
    u = np.einsum("ai,kcij,bj->abck", g, weight.astype(np.float64), g)
    return np.ascontiguousarray(u.reshape(a * a, c, k // block, block).transpose(2, 0, 1, 3))


def _padding(op: relay.RelayOp) -> tuple[int, int, int, int]:
    pad = op.attrs.padding or (0, 0, 0, 0)
    top, left, bottom, right = pad
    return top, left, bottom, right


@register_compute(relay.WinogradInputTransformOp)
def winograd_input_transform(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`out[xi * a + nu, p, c] = sum(j) B[nu, j] * (sum(i) B[xi, i] * x[n, c / cb,
    th * m - pt + i, tw * m - pl + j, c % cb])` (zero outside `x`), `p = (n *
    TH + th) * TW + tw`: a reduction over the tile's columns, each term the
    column's transform along the rows, which is the same for every `nu` of a
    row `xi` (the template's register tile holds whole rows, so that the
    compiler computes it once for them: separable, `2 a` products per output
    instead of `a * a`)."""
    x, t = ins
    m = op.attrs.tile_size
    a = m + relay.WINOGRAD_KERNEL - 1
    _, _, h, w, block = _shape(x)
    top, left, bottom, right = _padding(op)
    out_h, out_w = h + top + bottom - a + m, w + left + right - a + m
    th, tw = relay.winograd_tiles(out_h, m), relay.winograd_tiles(out_w, m)
    # Reads leave x where there is padding or the last tile overhangs its end.
    check_rows, check_cols = top > 0 or th * m + a - m > h + top, left > 0 or tw * m + a - m > w + left
    out = _type(op)

    def inside(e: Expr, i: SSAValue, extent: int, check: bool) -> tuple[SSAValue | None, SSAValue]:
        """Whether index `i` is inside `0..extent` (None: surely) and `i` clamped into it."""
        return (e.in_range(i, 0, extent), e.clamp(i, 0, extent - 1)) if check else (None, i)

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        s, p, c, j = idx
        per_image, ai, cb = e.index(th * tw), e.index(a), e.index(block)
        xi, nu = e.idiv(s, ai), e.irem(s, ai)
        tile = e.irem(p, per_image)
        row0 = e.ishift(e.iscale(e.idiv(tile, e.index(tw)), m), -top)
        col = e.ishift(e.iadd(e.iscale(e.irem(tile, e.index(tw)), m), j), -left)
        image, channels, lane = e.idiv(p, per_image), e.idiv(c, cb), e.irem(c, cb)
        col_in, col = inside(e, col, w, check_cols)
        zero = e.const(0.0, out.get_element_type())
        column: SSAValue | None = None
        for i in range(a):  # (the column's checks once, each row's once)
            row_in, row = inside(e, e.ishift(row0, i), h, check_rows)
            v = e.read(x, [image, channels, row, col, lane])
            valid = [ok for ok in (row_in, col_in) if ok is not None]
            if valid:
                v = e.select(e.all_of(valid), v, zero)
            term = e.mul(e.read(t, [xi, e.index(i)]), v)
            column = term if column is None else e.add(column, term)
        assert column is not None
        return e.mul(e.read(t, [nu, j]), column)

    result = k.compute(out, body, ReduceKind.SUM, [a])
    schedule(result, tags.WINOGRAD_INPUT, dims(out), m, block)
    return result


@register_compute(relay.WinogradOutputTransformOp)
def winograd_output_transform(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`out[n, kb, h, w, ki] = sum(xi) A[h % m, xi] * (sum(nu) A[w % m, nu] *
    M[kb, xi * a + nu, (n * TH + h / m) * TW + w / m, ki])`: a reduction over the
    tile's rows of products, each term the row's transform along the columns,
    which is the same for every `h` of a tile (the template's register tile
    holds whole tiles: separable, as the input transform)."""
    mm, t = ins
    m = op.attrs.tile_size
    a = m + relay.WINOGRAD_KERNEL - 1
    out = _type(op)
    _, _, out_h, out_w, _ = _shape(op.results[0])
    th, tw = relay.winograd_tiles(out_h, m), relay.winograd_tiles(out_w, m)

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        n, kb, oh, ow, ki, xi = idx
        mi = e.index(m)
        tile = e.iadd(e.iscale(e.iadd(e.iscale(n, th), e.idiv(oh, mi)), tw), e.idiv(ow, mi))
        col = e.irem(ow, mi)
        row: SSAValue | None = None
        for nu in range(a):
            v = e.read(mm, [kb, e.iadd(e.iscale(xi, a), e.index(nu)), tile, ki])
            term = e.mul(e.read(t, [col, e.index(nu)]), v)
            row = term if row is None else e.add(row, term)
        assert row is not None
        return e.mul(e.read(t, [e.irem(oh, mi), xi]), row)

    result = k.compute(out, body, ReduceKind.SUM, [a])
    schedule(result, tags.WINOGRAD_OUTPUT, dims(out), m)
    return result


__all__ = [
    "POINTS",
    "input_transform",
    "output_transform",
    "weight_transform",
    "winograd_input_transform",
    "winograd_matrices",
    "winograd_output_transform",
]
