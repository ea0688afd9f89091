"""Products: dense, matmul (batched), dense_pack (a weight in column panels),
convolution, im2col and transposed convolution, each a sum reduction. The
GEMM-shaped ones get the register-tiled schedule the CPU strategy picks for
them (`lamina.lowering.strategy.cpu`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.shapes import dims
from lamina.dialects.te import ReduceKind
from lamina.lowering.lang.expr import Expr
from lamina.lowering.strategy import tags
from lamina.lowering.topi.base import (
    Body,
    Kernel,
    _padded,
    _shape,
    _ttype,
    _type,
    _window_input,
    register_compute,
    schedule,
)


# -------------------------------------------------------------------- matmul
def _matmul_body(
    a: SSAValue,
    b: SSAValue,
    a_index: Callable[[Expr, Sequence[SSAValue], SSAValue], list[SSAValue]],
    b_index: Callable[[Expr, Sequence[SSAValue], SSAValue], list[SSAValue]],
    rank: int,
) -> Body:
    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        out, kk = idx[:rank], idx[rank]
        return e.mul(e.read(a, a_index(e, out, kk)), e.read(b, b_index(e, out, kk)))

    return body


@register_compute(relay.DenseOp)
def dense(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    assert isinstance(op, relay.DenseOp)
    a, b = ins[0], ins[1]
    ta, tb = op.attrs.transpose_a, op.attrs.transpose_b
    kdim = dims(_ttype(a))[0 if ta else 1]

    def a_index(e: Expr, o: Sequence[SSAValue], kk: SSAValue) -> list[SSAValue]:
        return [kk, o[0]] if ta else [o[0], kk]

    def b_index(e: Expr, o: Sequence[SSAValue], kk: SSAValue) -> list[SSAValue]:
        return [o[1], kk] if tb else [kk, o[1]]

    out = _type(op)
    acc = k.compute(
        out, _matmul_body(a, b, a_index, b_index, 2), ReduceKind.SUM, [kdim]
    )
    schedule(acc, tags.DENSE, op, out, kdim)
    alpha = op.attrs.alpha
    beta = op.attrs.beta
    bias = ins[2] if len(ins) > 2 else None
    if alpha == 1.0 and (bias is None or beta == 0.0):
        return acc
    elem = out.get_element_type()

    def epilogue(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        v = e.read(acc, idx)
        if alpha != 1.0:
            v = e.mul(v, e.const(alpha, elem))
        if bias is not None and beta != 0.0:
            c = e.read(bias, e.broadcast_index(idx, _ttype(bias)))
            if beta != 1.0:
                c = e.mul(c, e.const(beta, elem))
            v = e.add(v, c)
        return v

    return k.compute(out, epilogue)


@register_compute(relay.MatmulOp)
def matmul(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    a, b = ins
    sa, sb = dims(_ttype(a)), dims(_ttype(b))
    out = _type(op)
    rank = out.get_num_dims()
    kdim = sa[-1]
    # Output axes: batch..., [m if a is not 1-D], [n if b is not 1-D].
    has_m, has_n = len(sa) > 1, len(sb) > 1
    nbatch = rank - has_m - has_n

    def batch_index(
        e: Expr, o: Sequence[SSAValue], operand_batch: Sequence[int]
    ) -> list[SSAValue]:
        lead = nbatch - len(operand_batch)
        return [
            e.index(0) if d == 1 else o[lead + j] for j, d in enumerate(operand_batch)
        ]

    def a_index(e: Expr, o: Sequence[SSAValue], kk: SSAValue) -> list[SSAValue]:
        if not has_m:
            return [kk]
        return [*batch_index(e, o, sa[:-2]), o[nbatch], kk]

    def b_index(e: Expr, o: Sequence[SSAValue], kk: SSAValue) -> list[SSAValue]:
        if not has_n:
            return [kk]
        return [*batch_index(e, o, sb[:-2]), kk, o[rank - 1]]

    result = k.compute(
        out, _matmul_body(a, b, a_index, b_index, rank), ReduceKind.SUM, [kdim]
    )
    schedule(result, tags.MATMUL, out, sa, sb)
    return result


@register_compute(relay.DensePackOp)
def dense_pack(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`out[..., m, n] = sum(k) a[..., m, k] * w[n / nb, k, n % nb]` (a weight
    packed in column panels of `nb`)."""
    a, w = ins
    out = _type(op)
    rank = out.get_num_dims()
    _, kdim, nb = _shape(w)

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        o, kk = idx[:rank], idx[rank]
        n = o[rank - 1]
        panel = [e.idiv(n, e.index(nb)), kk, e.irem(n, e.index(nb))]
        return e.mul(e.read(a, [*o[:-1], kk]), e.read(w, panel))

    result = k.compute(out, body, ReduceKind.SUM, [kdim])
    schedule(result, tags.DENSE_PACK, out, kdim, nb)
    return result


# ---------------------------------------------------------------------- conv
@register_compute(relay.Conv1DOp, relay.Conv2DOp, relay.Conv3DOp)
def conv(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`out[n, f, o...] = sum(c, t...) x[n, g * C + c, o * s + t * d - p] *
    w[f, c, t...]` with `g` the group of output channel `f`."""
    assert isinstance(op, relay.ConvOp)
    x, w = ins
    n = op.SPATIAL
    win = relay.Window(op.name, op, n)
    wshape = _shape(w)
    out = _type(op)
    groups = op.attrs.groups
    cin, per_group = wshape[1], wshape[0] // groups
    checked = [False, False, *_padded(win)]

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        b, f, opos = idx[0], idx[1], idx[2 : 2 + n]
        c, taps = idx[2 + n], idx[3 + n :]
        channel = c
        if groups > 1:
            g = e.idiv(f, e.index(per_group))
            channel = e.iadd(e.iscale(g, cin), c)
        pos = _window_input(e, opos, taps, win)
        v = e.read_or(x, [b, channel, *pos], 0, checked)
        return e.mul(v, e.read(w, [f, c, *taps]))

    result = k.compute(out, body, ReduceKind.SUM, [cin, *wshape[2:]])
    schedule(result, tags.CONV, op, out, wshape)
    return result


@register_compute(relay.Im2ColOp)
def im2col(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`out[n, c*KH*KW + kh*KW + kw, oh, ow] = x[n, c, oh*s + kh*d - p, ...]`."""
    (x,) = ins
    win = relay.Window(op.name, op, 2)
    kh, kw = (int(v) for v in op.kernel_size.get_values())  # type: ignore[attr-defined]
    checked = [False, False, *_padded(win)]

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        b, col, oh, ow = idx
        c = e.idiv(col, e.index(kh * kw))
        tap = e.irem(col, e.index(kh * kw))
        taps = [e.idiv(tap, e.index(kw)), e.irem(tap, e.index(kw))]
        pos = _window_input(e, [oh, ow], taps, win)
        return e.read_or(x, [b, c, *pos], 0, checked)

    return k.compute(_type(op), body)


@register_compute(relay.Conv1DTransposeOp, relay.Conv2DTransposeOp, relay.Conv3DTransposeOp)
def conv_transpose(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """The gradient of `conv`: `out[n, f, o...] = sum(c, t...) x[n, g * C + c, i]
    * w[g * C + c, f % F, t...]` over the `i = (o + p - t * d) / s` that are
    whole and inside the input."""
    assert isinstance(op, relay.ConvTransposeOp)
    x, w = ins
    n = op.SPATIAL
    win = relay.Window(op.name, op, n, negative_padding=True)
    xshape, wshape = _shape(x), _shape(w)
    groups = op.attrs.groups
    cin, per_group = xshape[1] // groups, wshape[1]

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        b, f, opos = idx[0], idx[1], idx[2 : 2 + n]
        c, taps = idx[2 + n], idx[3 + n :]
        channel, fw = c, f
        if groups > 1:
            g = e.idiv(f, e.index(per_group))
            channel = e.iadd(e.iscale(g, cin), c)
            fw = e.irem(f, e.index(per_group))
        pos, valid = [], []
        for a, (o, t) in enumerate(zip(opos, taps, strict=True)):
            num = e.isub(e.ishift(o, win.pad_begin[a]), e.iscale(t, win.dilation[a]))
            s = win.strides[a]
            if s > 1:
                rem = e.isrem(num, e.index(s))
                valid.append(e.cmp("eq", rem, e.index(0)))
                num = e.ifloordiv(num, e.index(s))
            pos.append(num)
        v = e.read_or(x, [b, channel, *pos], 0, [False, False] + [True] * n, valid)
        return e.mul(v, e.read(w, [channel, fw, *taps]))

    return k.compute(_type(op), body, ReduceKind.SUM, [cin, *wshape[2:]])
