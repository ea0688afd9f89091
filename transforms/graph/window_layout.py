"""Sliding windows into the blocked channel layout, for `alter-op-layout`
(TVM's `depthwise_conv2d_NCHWc` and blocked pools), and the channel block a
tensor gets.

A `relay.conv2d` whose groups are its input and output channels (one filter per
channel: MobileNet's, EfficientNet's depthwise convolutions) with a constant
weight becomes `relay.depthwise_conv2d_nchwc` over an `NCHW<x>c` input between
`relay.layout_transform`s, the weight re-laid out `[C/x, KH, KW, x]` at compile
time; a `relay.max_pool2d` (float, or an int8 model's integers) becomes
`relay.max_pool2d_nchwc` the same way (a ceil_mode tail as more padding at the
end). Both keep their padding: their
kernels read zeros (-inf) past the borders instead of a padded copy of their
input. `alter-op-layout` rewrites them only next to values already blocked,
where the transforms then cancel: a `1x1 -> depthwise -> 1x1` block, a stem
convolution and its pool, run blocked from end to end.

The block of a tensor is the largest of the host's f32 lanes and half of them
that divides its channels (`channel_block`): 16 on AVX-512 hosts, 8 for the
24, 40, 72 or 88 channels of MobileNet and EfficientNet stages, so that every
producer and consumer of a tensor agree on its layout.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType, TensorType, f32
from xdsl.ir import Attribute, Operation, SSAValue

from lamina.dialects import relay
from lamina.dialects.relay.constant import make_constant, value_data
from lamina.passes import current_target
from lamina.transforms.graph.layout_propagation import replace, transform


def channel_block(channels: int, whole: bool = False) -> int | None:
    """The channel block of a tensor with `channels` channels: the host's f32
    lanes or half of them, whichever divides first; None if neither does. With
    `whole`, fewer channels than half the lanes (an image's 3) are one block."""
    lanes = current_target().lanes(32)
    if whole and channels < lanes // 2:
        return channels
    return next((b for b in (lanes, lanes // 2) if b > 1 and channels % b == 0), None)


def is_depthwise(op: relay.Conv2DOp) -> bool:
    """One filter per channel: groups equal to the input and output channels."""
    x, w = op.operands[0].type, op.operands[1].type
    assert isinstance(x, TensorType) and isinstance(w, TensorType)
    groups = op.attrs.groups
    o, c = w.get_shape()[:2]
    return groups > 1 and x.get_shape()[1] == groups == o and c == 1


def _block_of(x: SSAValue, integers: bool = False) -> int | None:
    """The channel block of f32 `x` (with `integers`, of an integer `x` too;
    None: it has none, or is of another type)."""
    xt = x.type
    assert isinstance(xt, TensorType)
    elem = xt.get_element_type()
    if elem != f32 and not (integers and isinstance(elem, IntegerType)):
        return None
    return channel_block(xt.get_shape()[1])


def _replace_blocked(op: Operation, into: relay.LayoutTransformOp, new: list[Operation]) -> None:
    """Replace `op` by `into` (its input's transform into the blocked layout),
    `new` (the last computing the blocked result) and the transform back."""
    layout = into.attrs.dst_layout
    replace(op, [into, *new, transform(new[-1].results[0], layout, "NCHW")])


def depthwise_nchwc(op: relay.Conv2DOp) -> bool:
    """Rewrite a depthwise f32 conv2d with a constant weight and blockable
    channels into `relay.depthwise_conv2d_nchwc` between layout transforms."""
    x, w = op.operands
    wt = w.type
    assert isinstance(wt, TensorType)
    data = value_data(w)
    block = _block_of(x)
    if data is None or block is None or not is_depthwise(op):
        return False
    c, _, kh, kw = wt.get_shape()
    into = transform(x, "NCHW", f"NCHW{block}c")
    packed = data.reshape(c // block, block, kh, kw).transpose(0, 2, 3, 1)
    weight = make_constant(
        packed, relay.tensor(packed.shape, wt.get_element_type()), (w.name_hint or "weight") + "_nchwc"
    )
    props = {k: op.properties[k] for k in ("strides", "dilation", "padding") if k in op.properties}
    _replace_blocked(op, into, [weight, relay.DepthwiseConv2DNCHWcOp(into.results[0], weight.results[0], **props)])
    return True


def max_pool_nchwc(op: relay.MaxPool2DOp) -> bool:
    """Rewrite a max pool (float or integer) with blockable channels into
    `relay.max_pool2d_nchwc` between layout transforms (a ceil_mode tail
    becomes more padding at the end)."""
    x = op.operands[0]
    xt, out = x.type, op.results[0].type
    assert isinstance(xt, TensorType) and isinstance(out, TensorType)
    block = _block_of(x, integers=True)
    if block is None:
        return False
    into = transform(x, "NCHW", f"NCHW{block}c")
    win = relay.Window(op.name, op, 2)
    kernel = op.attrs.pool_size
    end = [win.overhang(a, xt.get_shape()[2 + a], out.get_shape()[2 + a], kernel[a]) for a in range(2)]
    props: dict[str, Attribute] = {k: op.properties[k] for k in ("pool_size", "strides", "dilation") if k in op.properties}
    props["padding"] = relay.i64_array([*win.pad_begin, *end])
    _replace_blocked(op, into, [relay.MaxPool2DNCHWcOp(into.results[0], **props)])
    return True


__all__ = ["channel_block", "depthwise_nchwc", "is_depthwise", "max_pool_nchwc"]
