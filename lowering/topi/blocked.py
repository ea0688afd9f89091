"""Computes over blocked channel layouts (`relay.conv1d_ncwc`,
`relay.conv2d_nchwc`, `relay.conv3d_ncdhwc`,
`relay.depthwise_conv2d_nchwc`, `relay.max_pool2d_nchwc`,
`relay.layout_transform`); the convolution gets the CPU strategy's
`conv_nchwc` schedule, the sliding windows its `window_nchwc` one."""

from __future__ import annotations

from collections.abc import Sequence

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
    _type,
    _window_input,
    lowest,
    register_compute,
    schedule,
)


@register_compute(relay.Conv1DNCWcOp, relay.Conv2DNCHWcOp, relay.Conv3DNCDHWcOp)
def conv_nchwc(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`out[n, o, *op, ob] = sum(c, *k, cb) x[n, c', *(op * s + k * d), cb] *
    w[o, c, *k, cb, ob]` over the spatial axes (the input comes padded), with
    `c'` the input block `c` of output block `o`'s group: `c` itself for one
    group."""
    x, w = ins
    assert isinstance(op, relay.ConvNCXcOp)
    s = op.SPATIAL
    win = relay.Window(op.name, op, s)
    ws = _shape(w)
    out = _type(op)
    groups = op.attrs.groups
    per_group = ws[0] // groups  # output blocks of a group

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        n, o, *at, ob = idx[: 3 + s]
        c, *taps, cb = idx[3 + s :]
        pos = _window_input(e, at, taps, win)
        group = o if per_group == 1 else e.idiv(o, e.index(per_group))
        block = c if groups == 1 else e.iadd(e.iscale(group, ws[1]), c)
        return e.mul(e.read(x, [n, block, *pos, cb]), e.read(w, [o, c, *taps, cb, ob]))

    result = k.compute(out, body, ReduceKind.SUM, [ws[1], *ws[2 : 2 + s], ws[2 + s]])
    bits = getattr(out.get_element_type(), "bitwidth", 32)
    schedule(result, tags.CONV_NCHWC, dims(out), bits)
    return result


@register_compute(relay.DepthwiseConv2DNCHWcOp)
def depthwise_conv2d_nchwc(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`out[n, c, oh, ow, b] = sum(kh, kw) x[n, c, oh * s + kh * d - p, ow * s +
    kw * d - p, b] * w[c, kh, kw, b]`, zero past the input's borders."""
    x, w = ins
    ws = _shape(w)
    win = relay.Window(op.name, op, 2)
    checked = [False, False, *_padded(win), False]

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        n, c, oh, ow, b, kh, kw = idx
        pos = _window_input(e, [oh, ow], [kh, kw], win)
        return e.mul(e.read_or(x, [n, c, *pos, b], 0, checked), e.read(w, [c, kh, kw, b]))

    return _window(k, op, body, ReduceKind.SUM, (ws[1], ws[2]))


@register_compute(relay.MaxPool2DNCHWcOp)
def max_pool2d_nchwc(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`out[n, c, oh, ow, b] = max(kh, kw) x[n, c, oh * s + kh * d - p, ow * s +
    kw * d - p, b]`, -inf past the input's borders."""
    (x,) = ins
    win = relay.Window(op.name, op, 2)
    checked = [False, False, *_padded(win), False]
    fill = lowest(_type(op).get_element_type())

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        n, c, oh, ow, b, kh, kw = idx
        pos = _window_input(e, [oh, ow], [kh, kw], win)
        return e.read_or(x, [n, c, *pos, b], fill, checked)

    kernel = op.attrs.pool_size
    return _window(k, op, body, ReduceKind.MAX, (kernel[0], kernel[1]))


def _window(k: Kernel, op: relay.RelayOp, body: Body, kind: ReduceKind, kernel: tuple[int, int]) -> SSAValue:
    """The reduction `body` over a `kernel` window per output point of `op`,
    with the `window_nchwc` schedule."""
    out = _type(op)
    result = k.compute(out, body, kind, kernel)
    bits = getattr(out.get_element_type(), "bitwidth", 32)
    schedule(result, tags.WINDOW_NCHWC, dims(out), kernel, bits)
    return result


@register_compute(relay.LayoutTransformOp)
def layout_transform(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """To a blocked layout: `out[n, c, *s, b] = in[n, c * x + b, *s]`; back:
    `out[n, c, *s] = in[n, c / x, *s, c % x]`."""
    (x,) = ins
    out = _type(op)

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        if relay.channel_block(op.attrs.src_layout) is None:
            n, c, *at, b = idx
            block = dims(out)[-1]
            return e.read(x, [n, e.iadd(e.iscale(c, block), b), *at])
        n, c, *at = idx
        block = _shape(x)[-1]
        return e.read(x, [n, e.idiv(c, e.index(block)), *at, e.irem(c, e.index(block))])

    return k.compute(out, body)
