"""The int8 kernels (`dialects/qnn_packed.py`): micro-kernels written in TIR
around `tir.dot4` (x86's `vpdpbusd`, or its exact plain-vector equivalent).

Both keep a tile of accumulators, one i32 vector of the output's channel
lanes per output column (or row), in a local buffer that LLVM promotes to
registers; per reduction quad they load one packed weight vector (4 bytes per
lane) and, per column, broadcast 4 input bytes into a `tir.dot4`, as oneDNN's
and MLAS's u8s8 kernels do (TVM: `conv2d_NCHWc_int8`, `dense_vnni`). The
write-back is the fused requantization, in f32 as `qnn.requantize`:
`clamp(roundeven(f32(acc + bias) * multiplier) + zp)`; `qnn.conv2d_nchwc_add`
then adds its residual there, in the f32 steps of `qnn.add`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, vector
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import IntegerType, VectorType, f32, i32
from xdsl.ir import Attribute, SSAValue

from lamina.dialects import relay, tir
from lamina.dialects.qnn.packed import (
    Conv2DNCHWcAddOp,
    Conv2DNCHWcOp,
    DensePackedOp,
    PackedOp,
)
from lamina.dialects.shapes import dims, symbolic_tensor
from lamina.dialects.tir import ForKind
from lamina.lowering.lang.tir_builder import TirBuilder
from lamina.lowering.topi.algorithm import register_extern

#: Output columns (conv) or rows (dense) per register tile: one accumulator
#: vector each, with room left for the weight and the broadcast inputs.
TILE = 14
I8 = IntegerType(8)


def _static(v: SSAValue) -> tuple[int, ...]:
    return tuple(int(d) for d in dims(v.type))  # type: ignore[attr-defined]


def _vec(b: TirBuilder, lanes: int, elem: Attribute, value: int | float) -> SSAValue:
    """A constant in every lane."""
    return _splat(b, b.const(value, elem), lanes)


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
    """`clamp(roundeven(f32(acc + bias) * mult) + zp)` lane by lane, still in
    i32 lanes (`bias` i32 and `mult` f32 vectors, `zp` a scalar; `_narrow`
    gives them the zero point's type)."""
    lanes = acc.type.element_count()  # type: ignore[attr-defined]
    wide = b.emit(arith.SIToFPOp(b.emit(arith.AddiOp(acc, bias)), VectorType(f32, [lanes])))
    rounded = b.emit(mathd.RoundEvenOp(b.emit(arith.MulfOp(wide, mult))))
    q = b.emit(arith.FPToSIOp(rounded, VectorType(i32, [lanes])))
    lo, hi = op.clamp()
    q = b.emit(arith.AddiOp(q, _splat(b, b.cast(zp, i32), lanes)))
    return b.emit(arith.MinSIOp(b.emit(arith.MaxSIOp(q, _vec(b, lanes, i32, lo))), _vec(b, lanes, i32, hi)))


def _splat(b: TirBuilder, scalar: SSAValue, lanes: int) -> SSAValue:
    """`scalar` in every lane."""
    return b.emit(vector.BroadcastOp(scalar, VectorType(scalar.type, [lanes])))


def _narrow(b: TirBuilder, q: SSAValue, elem: Attribute) -> SSAValue:
    """i32 lanes (in `elem`'s range) as `elem` (u8 or s8)."""
    lanes = q.type.element_count()  # type: ignore[attr-defined]
    narrow = b.emit(arith.TruncIOp(q, VectorType(I8, [lanes])))
    return narrow if elem == I8 else b.emit(arith.BitcastOp(narrow, VectorType(elem, [lanes])))


def _mul_add(b: TirBuilder, x: SSAValue, y: SSAValue, z: SSAValue) -> SSAValue:
    """`x * y + z` as float ops, which the lowering lets contract into an FMA."""
    return b.emit(arith.AddfOp(b.emit(arith.MulfOp(x, y)), z))


def _float(b: TirBuilder, q: SSAValue) -> SSAValue:
    """u8, s8 or i32 lanes (holding such values) as f32 lanes."""
    lanes = q.type.element_count()  # type: ignore[attr-defined]
    elem = q.type.get_element_type()  # type: ignore[attr-defined]
    ft = VectorType(f32, [lanes])
    if elem in (I8, i32):
        return b.emit(arith.SIToFPOp(q, ft))
    return b.emit(arith.UIToFPOp(b.emit(arith.BitcastOp(q, VectorType(I8, [lanes]))), ft))


class _ResidualAdd:
    """The write-back of `qnn.conv2d_nchwc_add`: the requantized result plus
    the residual as `qnn-canonicalize` writes `qnn.add` (onnxruntime's
    QLinearAdd: `round(lhs * r_lhs + (rhs * r_rhs + k))`), so the two agree bit
    for bit: the offset `k` with one exact FMA, as its compile-time fold; the
    lanes' products and sums as the graph's float ops, which contract into FMAs
    where the target has them (not `math.fma`: WebAssembly would call `fmaf`
    per lane)."""

    def __init__(self, b: TirBuilder, op: Conv2DNCHWcAddOp, zp: SSAValue):
        _, _, _, _, _, self.residual, s, rs, rz, ys, yz, _ = b.args
        self.op = op
        scale, r_scale, y_scale = (b.load(v, []) for v in (s, rs, ys))
        self.r_zp, y_zp = b.load(rz, []), b.load(yz, [])
        mine = (b.emit(arith.DivfOp(scale, y_scale)), zp)
        theirs = (b.emit(arith.DivfOp(r_scale, y_scale)), self.r_zp)
        (self.lhs_ratio, lhs_zp), (self.rhs_ratio, rhs_zp) = (theirs, mine) if op.residual_lhs else (mine, theirs)
        both = b.emit(mathd.FmaOp(self.lhs_ratio, b.cast(lhs_zp, f32), b.emit(arith.MulfOp(self.rhs_ratio, b.cast(rhs_zp, f32)))))
        self.offset = b.emit(arith.SubfOp(b.cast(y_zp, f32), both))
        self.y_zp = y_zp

    def __call__(self, b: TirBuilder, q: SSAValue, at: list[SSAValue]) -> SSAValue:
        """The output vector at `at`, from the convolution's requantized i32
        lanes `q` (exact in f32: no need to narrow them first)."""
        lanes = q.type.element_count()  # type: ignore[attr-defined]
        r = _float(b, b.emit(tir.LoadOp(self.residual, at, VectorType(self.r_zp.type, [lanes]))))
        lhs, rhs = (r, _float(b, q)) if self.op.residual_lhs else (_float(b, q), r)
        inner = _mul_add(b, rhs, _splat(b, self.rhs_ratio, lanes), _splat(b, self.offset, lanes))
        total = _mul_add(b, lhs, _splat(b, self.lhs_ratio, lanes), inner)
        lo, hi = self.op.output_range()
        rounded = b.emit(mathd.RoundEvenOp(total))
        clamped = b.emit(arith.MinnumfOp(b.emit(arith.MaxnumfOp(rounded, _vec(b, lanes, f32, float(lo)))), _vec(b, lanes, f32, float(hi))))
        return _narrow(b, b.emit(arith.FPToSIOp(clamped, VectorType(i32, [lanes]))), self.y_zp.type)


def _row(b: TirBuilder, buf: SSAValue, lead: Sequence[SSAValue], lanes: int, elem: Attribute) -> SSAValue:
    """The vector `buf[*lead, 0:lanes]`."""
    return b.emit(tir.LoadOp(buf, [*lead, b.index(0)], VectorType(elem, [lanes])))


def tile_count(extent: int) -> int:
    """Columns (rows) per register tile along an axis of `extent`."""
    return min(TILE, extent)


@register_extern(Conv2DNCHWcOp, Conv2DNCHWcAddOp)
def _conv2d_nchwc(b: TirBuilder, op: relay.RelayOp) -> None:
    """Per (n, output channel block, output row), tiles of `TILE` output
    columns; per tile, for each input channel block, kernel tap and quad of
    input channels: one weight vector, and per column the 4 input bytes
    broadcast into `tir.dot4`. `qnn.conv2d_nchwc_add` adds its residual as
    each vector is written."""
    assert isinstance(op, Conv2DNCHWcOp | Conv2DNCHWcAddOp)
    x, w, bias, mult, zp_buf = b.args[:5]
    out = b.args[-1]
    cblocks = _static(x)[1]
    oblocks, _, kh, kw, quads, width = _static(w)
    n, _, oh, ow, lanes = _static(out)
    assert width == 4 * lanes
    sh, sw = op.attrs.strides
    dh, dw = op.attrs.dilation
    zp = b.load(zp_buf, [])
    residual = _ResidualAdd(b, op, zp) if isinstance(op, Conv2DNCHWcAddOp) else None
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
                q = _requantize(b, op, tile.get(t), bias_v, mult_v, zp)
                at = [i, o, row, b.ishift(first, t), b.index(0)]
                b.store(_narrow(b, q, zp.type) if residual is None else residual(b, q, at), out, at)

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
                y = _narrow(b, _requantize(b, op, tile.get(t), bias_v, mult_v, zp), zp.type)
                b.store(y, out, [b.ishift(first, t), col])

        full = m // rows
        with b.loop(full) as k:
            block(b.imul(k, b.index(rows)), rows)
        if m % rows:
            block(b.index(full * rows), m % rows)


__all__ = ["TILE", "tile_count"]
