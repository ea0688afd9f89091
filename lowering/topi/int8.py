"""The int8 kernels (`dialects/qnn_packed.py`): micro-kernels written in TIR
around `tir.dot4` (x86's `vpdpbusd`, or its exact plain-vector equivalent).

Both keep a tile of accumulators, one i32 vector of the output's channel
lanes per output column (or row), in a local buffer that LLVM promotes to
registers; per reduction quad they load one packed weight vector (4 bytes per
lane) and, per column, broadcast 4 input bytes into a `tir.dot4`, as oneDNN's
and MLAS's u8s8 kernels do (TVM: `conv2d_NCHWc_int8`, `dense_vnni`). The
write-back is the fused requantization, in f32 as `qnn.requantize`:
`clamp(roundeven(f32(acc + bias) * multiplier) + zp)`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, vector
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import IntegerType, VectorType, f32, i32
from xdsl.ir import Attribute, SSAValue

from lamina.dialects import relay, tir
from lamina.dialects.qnn_packed import Conv2DNCHWcOp, DensePackedOp, PackedOp
from lamina.dialects.shapes import dims, symbolic_tensor
from lamina.dialects.tir import ForKind
from lamina.lowering.tir_builder import TirBuilder
from lamina.lowering.topi.algorithm import register_extern

#: Output columns (conv) or rows (dense) per register tile: one accumulator
#: vector each, with room left for the weight and the broadcast inputs.
TILE = 14
I8 = IntegerType(8)


def _static(v: SSAValue) -> tuple[int, ...]:
    return tuple(int(d) for d in dims(v.type))  # type: ignore[attr-defined]


def _vec(b: TirBuilder, lanes: int, elem: Attribute, value: int | float) -> SSAValue:
    """A constant in every lane."""
    return b.emit(vector.BroadcastOp(b.const(value, elem), VectorType(elem, [lanes])))


class _Tile:
    """Accumulators `acc[t]` (i32 vectors of `lanes`) in a local buffer."""

    def __init__(self, b: TirBuilder, count: int, lanes: int):
        self.b, self.lanes = b, lanes
        # Here (inside the parallel loop), not at the kernel's entry: each
        # thread's outlined body gets its own.
        alloc = tir.AllocOp(tir.memref_of(symbolic_tensor([count, lanes], i32)), tir.AllocScope.LOCAL)
        self.buf = b.emit(alloc)
        self.vt = VectorType(i32, [lanes])

    def zero(self, count: int) -> None:
        zero = _vec(self.b, self.lanes, i32, 0)
        for t in range(count):
            self.b.store(zero, self.buf, [self.b.index(t), self.b.index(0)])

    def dot(self, t: int, quad: SSAValue, weights: SSAValue) -> None:
        at = [self.b.index(t), self.b.index(0)]
        acc = self.b.emit(tir.LoadOp(self.buf, at, self.vt))
        self.b.store(self.b.emit(tir.Dot4Op(acc, quad, weights)), self.buf, at)

    def get(self, t: int) -> SSAValue:
        return self.b.emit(tir.LoadOp(self.buf, [self.b.index(t), self.b.index(0)], self.vt))


def _requantize(
    b: TirBuilder, op: PackedOp, acc: SSAValue, bias: SSAValue, mult: SSAValue, zp: SSAValue
) -> SSAValue:
    """`clamp(roundeven(f32(acc + bias) * mult) + zp)` lane by lane, in the
    zero point's type (`bias` i32 and `mult` f32 vectors, `zp` a scalar)."""
    lanes = acc.type.element_count()  # type: ignore[attr-defined]
    out_elem = zp.type
    wide = b.emit(arith.SIToFPOp(b.emit(arith.AddiOp(acc, bias)), VectorType(f32, [lanes])))
    rounded = b.emit(mathd.RoundEvenOp(b.emit(arith.MulfOp(wide, mult))))
    q = b.emit(arith.FPToSIOp(rounded, VectorType(i32, [lanes])))
    shift = b.emit(vector.BroadcastOp(b.cast(zp, i32), VectorType(i32, [lanes])))
    lo, hi = op.clamp()
    q = b.emit(arith.AddiOp(q, shift))
    q = b.emit(arith.MinSIOp(b.emit(arith.MaxSIOp(q, _vec(b, lanes, i32, lo))), _vec(b, lanes, i32, hi)))
    narrow = b.emit(arith.TruncIOp(q, VectorType(I8, [lanes])))
    if out_elem == I8:
        return narrow
    return b.emit(arith.BitcastOp(narrow, VectorType(out_elem, [lanes])))


def _row(b: TirBuilder, buf: SSAValue, lead: Sequence[SSAValue], lanes: int, elem: Attribute) -> SSAValue:
    """The vector `buf[*lead, 0:lanes]`."""
    return b.emit(tir.LoadOp(buf, [*lead, b.index(0)], VectorType(elem, [lanes])))


def tile_count(extent: int) -> int:
    """Columns (rows) per register tile along an axis of `extent`."""
    return min(TILE, extent)


@register_extern(Conv2DNCHWcOp)
def _conv2d_nchwc(b: TirBuilder, op: relay.RelayOp) -> None:
    """Per (n, output channel block, output row), tiles of `TILE` output
    columns; per tile, for each input channel block, kernel tap and quad of
    input channels: one weight vector, and per column the 4 input bytes
    broadcast into `tir.dot4`."""
    assert isinstance(op, Conv2DNCHWcOp)
    x, w, bias, mult, zp_buf, out = b.args
    cblocks = _static(x)[1]
    oblocks, _, kh, kw, quads, width = _static(w)
    n, _, oh, ow, lanes = _static(out)
    assert width == 4 * lanes
    sh, sw = relay.ints_prop(op, "strides")
    dh, dw = relay.ints_prop(op, "dilation")
    zp = b.load(zp_buf, [])
    u8 = x.type.get_element_type()  # type: ignore[attr-defined]
    s8 = w.type.get_element_type()  # type: ignore[attr-defined]
    with b.loop(n * oblocks * oh, ForKind.PARALLEL) as flat:
        tile = _Tile(b, tile_count(ow), lanes)
        row = b.irem(flat, b.index(oh))
        rest = b.idiv(flat, b.index(oh))
        o = b.irem(rest, b.index(oblocks))
        i = b.idiv(rest, b.index(oblocks))
        bias_v = _row(b, bias, [o], lanes, i32)
        mult_v = _row(b, mult, [o], lanes, f32)

        def columns(first: SSAValue, count: int) -> None:
            tile.zero(count)
            base_h = b.imul(row, b.index(sh))
            with b.loop(cblocks) as c, b.loop(kh) as r, b.loop(kw) as s:
                ih = b.iadd(base_h, b.iscale(r, dh))
                iw0 = b.iadd(b.iscale(first, sw), b.iscale(s, dw))
                for q in range(quads):
                    wv = b.emit(tir.LoadOp(w, [o, c, r, s, b.index(q), b.index(0)], VectorType(s8, [width])))
                    for t in range(count):
                        iw = b.ishift(iw0, t * sw)
                        quad = b.emit(tir.LoadOp(x, [i, c, ih, iw, b.index(4 * q)], VectorType(u8, [4])))
                        tile.dot(t, quad, wv)
            for t in range(count):
                y = _requantize(b, op, tile.get(t), bias_v, mult_v, zp)
                b.store(y, out, [i, o, row, b.ishift(first, t), b.index(0)])

        cols = tile_count(ow)
        with b.loop(ow // cols) as k:
            columns(b.iscale(k, cols), cols)
        if ow % cols:
            columns(b.index(ow // cols * cols), ow % cols)


@register_extern(DensePackedOp)
def _dense_packed(b: TirBuilder, op: relay.RelayOp) -> None:
    """Per block of `nb` output columns (parallel), tiles of `TILE` rows of `a`;
    per quad of the reduction, one weight vector and per row 4 bytes of `a`
    broadcast into `tir.dot4`."""
    assert isinstance(op, DensePackedOp)
    a, w, bias, mult, zp_buf, out = b.args
    m, _ = _static(a)
    nblocks, quads, width = _static(w)
    lanes = width // 4
    zp = b.load(zp_buf, [])
    u8 = a.type.get_element_type()  # type: ignore[attr-defined]
    s8 = w.type.get_element_type()  # type: ignore[attr-defined]
    rows = tile_count(m)
    with b.loop(nblocks, ForKind.PARALLEL) as j:
        tile = _Tile(b, rows, lanes)
        col = b.iscale(j, lanes)
        bias_v = b.emit(tir.LoadOp(bias, [col], VectorType(i32, [lanes])))
        mult_v = b.emit(tir.LoadOp(mult, [col], VectorType(f32, [lanes])))

        def block(first: SSAValue, count: int) -> None:
            tile.zero(count)
            with b.loop(quads) as q:
                wv = b.emit(tir.LoadOp(w, [j, q, b.index(0)], VectorType(s8, [width])))
                k = b.iscale(q, 4)
                for t in range(count):
                    quad = b.emit(tir.LoadOp(a, [b.ishift(first, t), k], VectorType(u8, [4])))
                    tile.dot(t, quad, wv)
            for t in range(count):
                y = _requantize(b, op, tile.get(t), bias_v, mult_v, zp)
                b.store(y, out, [b.ishift(first, t), col])

        full = m // rows
        with b.loop(full) as k:
            block(b.imul(k, b.index(rows)), rows)
        if m % rows:
            block(b.index(full * rows), m % rows)


__all__ = ["TILE", "tile_count"]
