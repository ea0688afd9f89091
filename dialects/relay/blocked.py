"""Ops over blocked channel layouts, NC[D][H]W[x]c (TVM's `conv2d_NCHWc` and
`layout_transform`): a channel axis split into blocks of `x` that come last, so
that a block of channels fills the vector lanes.

`alter-op-layout` rewrites a convolution of 1, 2 or 3 spatial axes into
`relay.conv1d_ncwc`, `relay.conv2d_nchwc` or `relay.conv3d_ncdhwc` between two
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

_BLOCKED = re.compile(r"NC(D?H?W)(\d+)c")
#: The plain layout of a tensor of 1, 2 or 3 spatial axes.
PLAIN_LAYOUTS = ("NCW", "NCHW", "NCDHW")


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


def plain_layout(rank: int) -> str:
    """`NCW`, `NCHW` or `NCDHW`: the layout of a rank-3, 4 or 5 tensor."""
    if not 3 <= rank <= 5:
        raise ValueError(f"no channel layout of rank {rank}")
    return PLAIN_LAYOUTS[rank - 3]


def channel_block(layout: str) -> int | None:
    """The block of a layout `NC[D][H]W<x>c`, None for a plain one (`NCW`,
    `NCHW`, `NCDHW`); ValueError otherwise."""
    if layout in PLAIN_LAYOUTS:
        return None
    m = _BLOCKED.fullmatch(layout)
    if m is None or int(m.group(2)) < 1:
        raise ValueError(layout)
    return int(m.group(2))


def spatial_axes(layout: str) -> int:
    """How many spatial axes a (plain or blocked) layout has; ValueError if it
    is neither."""
    channel_block(layout)
    return len(layout) - 2 if layout in PLAIN_LAYOUTS else len(_BLOCKED.fullmatch(layout).group(1))  # type: ignore[union-attr]


def blocked_shape(shape: tuple[int, ...], block: int) -> tuple[int, ...]:
    """`[N, C, *spatial]` as `[N, C/block, *spatial, block]`."""
    n, c, *spatial = shape
    return (n, c // block, *spatial, block)


@irdl_op_definition
class LayoutTransformOp(RelayOp):
    """Between a plain layout (`NCW`, `NCHW`, `NCDHW`) and its blocked form
    (`NCHW<x>c`: `out[n, c/x, h, w, c%x] = in[n, c, h, w]`), or back; the
    channels must divide into the blocks."""

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
                f"{cls.name}: layout '{e}' is neither NCW, NCHW, NCDHW nor their "
                "blocked NCW<x>c, NCHW<x>c, NCDHW<x>c"
            ) from None
        shape = shape_of(types[0])
        elem = types[0].get_element_type()
        if (blocks[0] is None) == (blocks[1] is None) or spatial_axes(src) != spatial_axes(dst):
            raise VerifyException(
                f"{cls.name}: transforms between a plain layout and its blocked form "
                f"(NCHW and NCHW<x>c), not {src} to {dst}"
            )
        spatial = spatial_axes(src)
        if blocks[0] is None:
            block = blocks[1]
            assert block is not None
            if len(shape) != 2 + spatial or shape[1] % block:
                raise VerifyException(
                    f"{cls.name}: {types[0]} is not {src} with channels divisible by {block}"
                )
            return tensor(blocked_shape(shape, block), elem)
        block = blocks[0]
        if len(shape) != 3 + spatial or shape[-1] != block:
            raise VerifyException(f"{cls.name}: {types[0]} is not {src}")
        n, co, *rest, ci = shape
        return tensor((n, co * ci, *rest), elem)


class ConvNCXcOp(RelayOp):
    """A convolution in blocked channel layouts (TVM's `conv2d_NCHWc`), of
    `SPATIAL` axes: data `[N, C/cb, *S, cb]`, weight `[O/ob, C/(groups cb), *K,
    cb, ob]`, result `[N, O/ob, *OS, ob]`, with strides, dilation and groups
    (each group's channels whole blocks) but no padding (the input comes
    padded). `alter-op-layout` makes it from a convolution, so that its schedule
    keeps a block of output channels in vector lanes."""

    SPATIAL: ClassVar[int] = 2
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
        s = cls.SPATIAL
        letters = PLAIN_LAYOUTS[s - 1][2:]
        if len(x) != 3 + s or len(w) != 4 + s or w[2 + s] != x[2 + s]:
            kernel = ", ".join(f"K{a}" for a in letters)
            raise VerifyException(
                f"{cls.name}: needs data [N, C/cb, {', '.join(letters)}, cb] and weight "
                f"[O/ob, C/cb, {kernel}, cb, ob] with the same input blocking, got "
                f"{types[0]} and {types[1]}"
            )
        if groups < 1 or w[1] * groups != x[1] or w[0] % groups:
            raise VerifyException(
                f"{cls.name}: {groups} group(s) of the data's {x[1]} channel blocks need a "
                f"weight of {x[1] // max(groups, 1)} input blocks and output blocks in "
                f"multiples of {groups}, got {types[1]}"
            )
        win = Window(cls.name, props, s)
        out = [win.output_size(cls.name, i, x[2 + i], w[2 + i]) for i in range(s)]
        return tensor([x[0], w[0], *out, w[3 + s]], elem)


@irdl_op_definition
class Conv1DNCWcOp(ConvNCXcOp):
    """1-D convolution in blocked channel layouts: data `[N, C/cb, W, cb]`,
    weight `[O/ob, C/(groups cb), KW, cb, ob]` (see `ConvNCXcOp`)."""

    name = "relay.conv1d_ncwc"
    SPATIAL: ClassVar[int] = 1
    DEFAULTS: ClassVar[dict[str, Any]] = {"strides": (1,), "dilation": (1,)}


@irdl_op_definition
class Conv2DNCHWcOp(ConvNCXcOp):
    """2-D convolution in blocked channel layouts: data `[N, C/cb, H, W, cb]`,
    weight `[O/ob, C/(groups cb), KH, KW, cb, ob]` (see `ConvNCXcOp`)."""

    name = "relay.conv2d_nchwc"
    SPATIAL: ClassVar[int] = 2
    DEFAULTS: ClassVar[dict[str, Any]] = {"strides": (1, 1), "dilation": (1, 1)}


@irdl_op_definition
class Conv3DNCDHWcOp(ConvNCXcOp):
    """3-D convolution in blocked channel layouts: data `[N, C/cb, D, H, W,
    cb]`, weight `[O/ob, C/(groups cb), KD, KH, KW, cb, ob]` (see `ConvNCXcOp`)."""

    name = "relay.conv3d_ncdhwc"
    SPATIAL: ClassVar[int] = 3
    DEFAULTS: ClassVar[dict[str, Any]] = {"strides": (1, 1, 1), "dilation": (1, 1, 1)}


#: The blocked convolution of each number of spatial axes.
CONV_NCXC: dict[int, type[ConvNCXcOp]] = {1: Conv1DNCWcOp, 2: Conv2DNCHWcOp, 3: Conv3DNCDHWcOp}


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
    "CONV_NCXC",
    "PLAIN_LAYOUTS",
    "Conv1DNCWcOp",
    "Conv2DNCHWcOp",
    "Conv3DNCDHWcOp",
    "ConvNCXcOp",
    "DepthwiseConv2DNCHWcOp",
    "LayoutTransformOp",
    "MaxPool2DNCHWcOp",
    "blocked_shape",
    "channel_block",
    "plain_layout",
    "spatial_axes",
]
