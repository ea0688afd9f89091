"""Ops over blocked channel layouts, NCHW[x]c (TVM's `conv2d_NCHWc` and
`layout_transform`): a channel axis split into blocks of `x` that come last, so
that a block of channels fills the vector lanes.

`alter-op-layout` rewrites a convolution into `relay.conv2d_nchwc` between two
`relay.layout_transform`s, then moves the transforms out through elementwise
ops until inverse pairs meet and cancel: a chain of convolutions stays blocked.
Depthwise convolutions and max pools next to blocked values become
`relay.depthwise_conv2d_nchwc` (TVM's `depthwise_conv2d_NCHWc`) and
`relay.max_pool2d_nchwc`, so that a MobileNet's 1x1 -> depthwise -> 1x1 chain and
a ResNet's stem and pool stay blocked too.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from lamina.dialects.relay.base import (
    IntField,
    IntsField,
    OpAttrs,
    OpPattern,
    RelayOp,
    StrField,
    Window,
    WindowAttrs,
    _same_element_type,
    require_element,
    shape_of,
    tensor,
)

_BLOCKED = re.compile(r"NCHW(\d+)c")


class LayoutTransformAttrs(OpAttrs):
    src_layout = StrField("")
    dst_layout = StrField("")


class StridedAttrs(OpAttrs):
    strides = IntsField(None)
    dilation = IntsField(None)


class BlockedConvAttrs(StridedAttrs):
    groups = IntField(1)


class BlockedPoolAttrs(WindowAttrs):
    pool_size = IntsField()


def channel_block(layout: str) -> int | None:
    """The block of a layout `NCHW<x>c`, None for `NCHW`; ValueError otherwise."""
    if layout == "NCHW":
        return None
    m = _BLOCKED.fullmatch(layout)
    if m is None or int(m.group(1)) < 1:
        raise ValueError(layout)
    return int(m.group(1))


def blocked_shape(shape: tuple[int, ...], block: int) -> tuple[int, ...]:
    """`[N, C, H, W]` as `[N, C/block, H, W, block]`."""
    n, c, h, w = shape
    return (n, c // block, h, w, block)


@irdl_op_definition
class LayoutTransformOp(RelayOp):
    """Between `NCHW` and a blocked `NCHW<x>c` (`out[n, c/x, h, w, c%x] = in[n, c,
    h, w]`, or back); the channels must divide into the blocks."""

    name = "relay.layout_transform"
    data = operand_def(TensorType)
    src_layout = prop_def(StringAttr)
    dst_layout = prop_def(StringAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    ATTRS: ClassVar[type[OpAttrs]] = LayoutTransformAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        attrs = cls.attrs_of(props)
        src, dst = attrs.src_layout, attrs.dst_layout
        try:
            blocks = channel_block(src), channel_block(dst)
        except ValueError as e:
            raise VerifyException(
                f"{cls.name}: layout '{e}' is neither NCHW nor NCHW<x>c"
            ) from None
        shape = shape_of(types[0])
        elem = types[0].get_element_type()
        if (blocks[0] is None) == (blocks[1] is None):
            raise VerifyException(
                f"{cls.name}: transforms between NCHW and a blocked NCHW<x>c, not "
                f"{src} to {dst}"
            )
        if blocks[0] is None:
            block = blocks[1]
            assert block is not None
            if len(shape) != 4 or shape[1] % block:
                raise VerifyException(
                    f"{cls.name}: {types[0]} is not NCHW with channels divisible by {block}"
                )
            return tensor(blocked_shape(shape, block), elem)
        block = blocks[0]
        if len(shape) != 5 or shape[4] != block:
            raise VerifyException(f"{cls.name}: {types[0]} is not {src}")
        n, co, h, w, ci = shape
        return tensor((n, co * ci, h, w), elem)


@irdl_op_definition
class Conv2DNCHWcOp(RelayOp):
    """2-D convolution in blocked channel layouts (TVM's `conv2d_NCHWc`): data
    `[N, C/cb, H, W, cb]`, weight `[O/ob, C/(groups cb), KH, KW, cb, ob]`, result
    `[N, O/ob, OH, OW, ob]`, with strides, dilation and groups (each group's
    channels whole blocks) but no padding (the input comes padded).
    `alter-op-layout` makes it from `relay.conv2d`, so that its schedule keeps a
    block of output channels in vector lanes."""

    name = "relay.conv2d_nchwc"
    DEFAULTS: ClassVar[dict[str, Any]] = {"strides": (1, 1), "dilation": (1, 1)}
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    strides = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    groups = opt_prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    ATTRS: ClassVar[type[OpAttrs]] = BlockedConvAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        require_element(cls.name, types[0], floating=True)
        x, w = shape_of(types[0]), shape_of(types[1])
        groups = cls.attrs_of(props).groups
        if len(x) != 5 or len(w) != 6 or w[4] != x[4]:
            raise VerifyException(
                f"{cls.name}: needs data [N, C/cb, H, W, cb] and weight [O/ob, C/cb, KH, "
                f"KW, cb, ob] with the same input blocking, got {types[0]} and {types[1]}"
            )
        if groups < 1 or w[1] * groups != x[1] or w[0] % groups:
            raise VerifyException(
                f"{cls.name}: {groups} group(s) of the data's {x[1]} channel blocks need a "
                f"weight of {x[1] // max(groups, 1)} input blocks and output blocks in "
                f"multiples of {groups}, got {types[1]}"
            )
        win = Window(cls.name, props, 2)
        out = [win.output_size(cls.name, i, x[2 + i], w[2 + i]) for i in range(2)]
        return tensor([x[0], w[0], *out, w[5]], elem)


@irdl_op_definition
class DepthwiseConv2DNCHWcOp(RelayOp):
    """2-D depthwise convolution (one filter per channel) in a blocked channel
    layout (TVM's `depthwise_conv2d_NCHWc`): data `[N, C/x, H, W, x]`, weight
    `[C/x, KH, KW, x]`, result `[N, C/x, OH, OW, x]`, with strides, dilation and
    padding (zeros read past the input's borders)."""

    name = "relay.depthwise_conv2d_nchwc"
    DEFAULTS: ClassVar[dict[str, Any]] = {"strides": (1, 1), "dilation": (1, 1), "padding": (0, 0, 0, 0)}
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    strides = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    ATTRS: ClassVar[type[OpAttrs]] = WindowAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        require_element(cls.name, types[0], floating=True)
        x, w = shape_of(types[0]), shape_of(types[1])
        if len(x) != 5 or len(w) != 4 or w[0] != x[1] or w[3] != x[4]:
            raise VerifyException(
                f"{cls.name}: needs data [N, C/x, H, W, x] and weight [C/x, KH, KW, x] "
                f"with the same blocking, got {types[0]} and {types[1]}"
            )
        win = Window(cls.name, props, 2)
        out = [win.output_size(cls.name, i, x[2 + i], w[1 + i]) for i in range(2)]
        return tensor([x[0], x[1], *out, x[4]], elem)


@irdl_op_definition
class MaxPool2DNCHWcOp(RelayOp):
    """2-D max pooling in a blocked channel layout: data `[N, C/x, H, W, x]`,
    result `[N, C/x, OH, OW, x]`, with strides, dilation and padding (which
    never wins: it is -inf, or the integer type's least value)."""

    name = "relay.max_pool2d_nchwc"
    DEFAULTS: ClassVar[dict[str, Any]] = {"strides": (1, 1), "dilation": (1, 1), "padding": (0, 0, 0, 0)}
    data = operand_def(TensorType)
    pool_size = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    ATTRS: ClassVar[type[OpAttrs]] = BlockedPoolAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        require_element(cls.name, types[0], floating=True, integer=True)
        x = shape_of(types[0])
        if len(x) != 5:
            raise VerifyException(f"{cls.name}: needs data [N, C/x, H, W, x], got {types[0]}")
        kernel = cls.attrs_of(props).pool_size
        if len(kernel) != 2 or min(kernel) < 1:
            raise VerifyException(f"{cls.name}: pool_size {list(kernel)} must be 2 positive sizes")
        win = Window(cls.name, props, 2)
        out = [win.output_size(cls.name, i, x[2 + i], kernel[i]) for i in range(2)]
        return tensor([x[0], x[1], *out, x[4]], types[0].get_element_type())


__all__ = [
    "Conv2DNCHWcOp",
    "DepthwiseConv2DNCHWcOp",
    "LayoutTransformOp",
    "MaxPool2DNCHWcOp",
    "blocked_shape",
    "channel_block",
]
