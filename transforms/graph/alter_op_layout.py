"""`alter-op-layout`: rewrite ops into the data layouts their fast schedules want
(TVM's AlterOpLayout, opt level 3).

- A `relay.conv2d` with a constant weight and channel counts that divide
  into the host's f32 vector lanes `x` (grouped: each group's input channels
  whole blocks, its output channels one block) becomes `relay.conv2d_nchwc`
  (TVM's `conv2d_NCHWc`) over an `NCHW<x>c` input, between
  `relay.layout_transform`s; the weight is packed `[O/x, C/x, KH, KW, x, x]` at
  compile time, padding becomes a `relay.pad` of the blocked input. The
  transforms are then moved out through elementwise ops until inverse pairs
  cancel (`layout_propagation`): chains of convolutions stay blocked. A 1-D or
  3-D convolution becomes `relay.conv1d_ncwc` over `NCW<x>c` or
  `relay.conv3d_ncdhwc` over `NCDHW<x>c` by the same rules (audio front ends,
  video networks).
- A transposed convolution with a constant weight becomes one convolution
  over its output's phases and a depth-to-space (`conv_transpose`), which the
  rules below then treat as any other convolution.
- A `relay.matmul(x, W)` or `relay.dense(x, W)` with a constant 2-D `W`
  becomes `relay.dense_pack(x, W')` (TVM's `dense_pack`; the module
  `dense_pack`), `W'` packed at compile time in column panels of the host's
  lanes, a dense's bias a `relay.add` after it; where the columns do not
  divide into panels, a `relay.dense(x, W) {transpose_b}` becomes
  `relay.dense(x, W^T)`: the GEMM schedule's vector lanes run along N, so the
  weight is stored K x N.
- Another 2-D `relay.conv2d` with one group that is not already a 1x1, unit-stride,
  unpadded convolution becomes `relay.conv2d(relay.im2col(x), W')` with
  `W' = reshape(W, [O, C*KH*KW, 1, 1])`: a GEMM over the patches, which the
  conv's 1x1 schedule register-tiles (output channels x pixels). A constant
  weight is reshaped at compile time, another gets a `relay.reshape`.
- A depthwise `relay.conv2d` or a 2-D float max pool next to the blocked
  layout becomes `relay.depthwise_conv2d_nchwc` or `relay.max_pool2d_nchwc`
  (`window_layout`), as a 1x1 convolution becomes `relay.conv2d_nchwc` there:
  where its input arrives blocked or its result is transformed into the
  blocked layout. Channels that are not a multiple of the lanes take blocks of
  half of them (`window_layout.channel_block`); an image's few input channels
  are one block.
- Another padded grouped (or depthwise) `relay.conv2d` reads an explicitly
  padded input (`relay.pad`, then the conv with no padding): its window
  schedule then loads whole vectors along the output width, with no bounds
  checks.
- Another 2-D float max pool whose windows leave the input (padding, or a
  ceil_mode tail) reads an input padded with -inf instead, so that its window
  schedule loads whole vectors with no bounds checks.

Counters: `alter-op-layout.conv-transpose-phases`, `alter-op-layout.dense-pack`, `alter-op-layout.dense`,
`alter-op-layout.conv2d-nchwc`, `alter-op-layout.conv1d-ncwc`, `alter-op-layout.conv3d-ncdhwc`, `alter-op-layout.transforms-moved`, `alter-op-layout.conv2d`,
`alter-op-layout.grouped-pad`, `alter-op-layout.max-pool-pad`,
`alter-op-layout.depthwise-nchwc`, `alter-op-layout.max-pool-nchwc`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    IntegerType,
    ModuleOp,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.relay.constant import make_constant, value_data
from lamina.lowering.strategy.cpu import is_gemm_conv
from lamina.passes import record_statistic
from lamina.passes.registry import register_pass
from lamina.transforms.graph.conv_transpose import conv_transpose_phases
from lamina.transforms.graph.dense_pack import pack_product
from lamina.transforms.graph.layout_propagation import (
    blocked_source,
    propagate,
    replace,
    transform,
)
from lamina.transforms.graph.window_layout import (
    channel_block,
    depthwise_nchwc,
    is_depthwise,
    max_pool_nchwc,
)


def _dense(op: relay.DenseOp) -> bool:
    if not op.attrs.transpose_b or op.attrs.transpose_a:
        return False
    w = value_data(op.operands[1])
    if w is None or w.ndim != 2:
        return False
    t = op.operands[1].type
    assert isinstance(t, TensorType)
    wt = make_constant(
        w.T.copy(), relay.tensor(w.T.shape, t.get_element_type()),
        (op.operands[1].name_hint or "weight") + "_t",
    )
    props = {k: v for k, v in op.properties.items() if k != "transpose_b"}
    replace(op, [wt, relay.DenseOp(op.operands[0], wt, *op.operands[2:], **props)])
    return True


def _is_gemm(op: relay.Conv2DOp) -> bool:
    """A convolution that is a GEMM as it is (1x1, unit strides, no padding)."""
    w = op.operands[1].type
    assert isinstance(w, TensorType)
    return is_gemm_conv(op, w.get_shape(), op.attrs.groups)


def _joins(op: relay.Conv2DOp) -> bool:
    """Whether a GEMM or depthwise convolution or a max pool next to the blocked
    layout saves transforms in it (see `AlterOpLayoutPass.apply`)."""
    x, y = op.operands[0], op.results[0]
    if blocked_source(x) is not None:
        return True
    into_blocked = any(
        isinstance(u.operation, relay.LayoutTransformOp)
        and u.operation.attrs.src_layout == "NCHW"  # (2-D windows only join)
        for u in y.uses
    )
    size = math.prod(x.type.get_shape())  # type: ignore[attr-defined]
    return into_blocked and size <= math.prod(y.type.get_shape())  # type: ignore[attr-defined]


def _conv_nchwc(op: relay.ConvOp) -> bool:
    """A convolution of 1, 2 or 3 spatial axes with a constant weight and
    channels (in and out) that have a block (`channel_block`; an image's few
    input channels are one block) becomes `relay.conv1d_ncwc`,
    `relay.conv2d_nchwc` or `relay.conv3d_ncdhwc` between layout transforms;
    the weight is packed at compile time. Grouped, each group's input channels
    must be whole blocks and its output channels one block (RegNetX's groups of
    16): then each output block reads its own group's input blocks."""
    x, w = op.operands
    wt, xt = w.type, x.type
    assert isinstance(wt, TensorType) and isinstance(xt, TensorType)
    data = value_data(w)
    s = op.SPATIAL
    if s not in relay.CONV_NCXC:
        return False
    o, c, *kernel = wt.get_shape()
    groups = op.attrs.groups
    if groups == 1:
        cb, ob = channel_block(c, whole=True), channel_block(o)
    elif is_depthwise(op) or o % groups:
        return False
    else:
        cb, ob = channel_block(c), o // groups
        ob = ob if channel_block(ob) == ob else None
    if data is None or cb is None or ob is None:
        return False
    if xt.get_element_type() != f32:
        return False
    plain = relay.plain_layout(2 + s)
    win = relay.Window(op.name, op, s)
    new: list[Operation] = [transform(x, plain, f"{plain}{cb}c")]
    xc = _padded_input(new[-1].results[0], win, new, inner=1)
    taps = tuple(range(4, 4 + s))
    packed = data.reshape(o // ob, ob, c // cb, cb, *kernel).transpose(0, 2, *taps, 3, 1)
    new.append(make_constant(
        packed, relay.tensor(packed.shape, wt.get_element_type()), (w.name_hint or "weight") + "_nchwc",
    ))
    window = {k: op.properties[k] for k in ("strides", "dilation") if k in op.properties}
    if groups > 1:
        window["groups"] = relay.i64_attr(groups)
    new.append(relay.CONV_NCXC[s](xc, new[-1].results[0], **window))
    new.append(transform(new[-1].results[0], f"{plain}{ob}c", plain))
    replace(op, new)
    return True


def _conv2d(op: relay.Conv2DOp) -> bool:
    x, w = op.operands
    wt = w.type
    assert isinstance(wt, TensorType)
    shape = wt.get_shape()
    win = relay.Window(op.name, op, 2)
    if op.attrs.groups != 1 or _is_gemm(op):
        return False
    cols = shape[1] * shape[2] * shape[3]
    kernel = DenseArrayBase.from_list(i64, list(shape[2:]))
    window = {k: op.properties.get(k) for k in ("strides", "dilation")}
    new: list[Operation] = []
    # Pad first, so the patches are read without bounds checks (and, for unit
    # strides, contiguously).
    x = _padded_input(x, win, new)
    new.append(relay.Im2ColOp(x, kernel_size=kernel, **window))
    xcol = new[-1].results[0]
    data = value_data(w)
    new_shape = [shape[0], cols, 1, 1]
    if data is not None:
        new.append(make_constant(
            data.reshape(new_shape), relay.tensor(new_shape, wt.get_element_type()),
            (w.name_hint or "weight") + "_gemm",
        ))
    else:
        new.append(relay.ReshapeOp(w, shape=DenseArrayBase.from_list(i64, new_shape)))
    new.append(relay.Conv2DOp(xcol, new[-1].results[0]))
    replace(op, new)
    return True


def _padded_input(
    x: SSAValue,
    win: relay.Window,
    new: list[Operation],
    pad_end: Sequence[int] | None = None,
    value: float = 0.0,
    inner: int = 0,
) -> SSAValue:
    """`x` (batch, channels, the window's axes, then `inner` more axes) padded by
    the window's padding (or `pad_end` at the end) with `value` (a `relay.pad`
    appended to `new`), or `x` itself when there is none."""
    end = list(win.pad_end if pad_end is None else pad_end)
    if not any((*win.pad_begin, *end)):
        return x
    width = [0, 0, *win.pad_begin, *[0] * inner, 0, 0, *end, *[0] * inner]
    props: dict[str, Attribute] = {"pad_width": DenseArrayBase.from_list(i64, width)}
    if value != 0.0:
        props["pad_value"] = relay.f64_attr(value)
    new.append(relay.PadOp(x, **props))
    return new[-1].results[0]


def _grouped_pad(op: relay.Conv2DOp) -> bool:
    """A padded grouped conv2d reads an explicitly padded input instead."""
    win = relay.Window(op.name, op, 2)
    if op.attrs.groups == 1 or not any((*win.pad_begin, *win.pad_end)):
        return False
    new: list[Operation] = []
    x = _padded_input(op.operands[0], win, new)
    props = {k: v for k, v in op.properties.items() if k != "padding"}
    new.append(relay.Conv2DOp(x, op.operands[1], **props))
    replace(op, new)
    return True


def _max_pool_pad(op: relay.MaxPoolOp) -> bool:
    """A max pool (of any rank) whose windows leave the input reads an input
    padded with the lowest value (-inf; an integer type's minimum) through the
    ceil_mode tail too, and has no padding itself: its reads need no bounds
    checks, so they vectorize at any stride."""
    x = op.operands[0]
    xt, out = x.type, op.results[0].type
    assert isinstance(xt, TensorType) and isinstance(out, TensorType)
    elem = xt.get_element_type()
    if isinstance(elem, AnyFloat):
        lowest = -math.inf
    elif isinstance(elem, IntegerType) and elem.width.data > 1:
        lowest = float(np.iinfo(numpy_dtype(elem)).min)
    else:
        return False
    n = op.spatial(xt)
    win = relay.Window(op.name, op, n)
    kernel = op.attrs.pool_size
    end = [
        win.overhang(a, xt.get_shape()[2 + a], out.get_shape()[2 + a], kernel[a])
        for a in range(n)
    ]
    if not any((*win.pad_begin, *end)):
        return False
    new: list[Operation] = []
    x = _padded_input(x, win, new, end, lowest)
    drop = ("padding", "ceil_mode")
    props = {k: v for k, v in op.properties.items() if k not in drop}
    new.append(type(op)(x, **props))
    replace(op, new)
    return True


def _joinable(op: Operation) -> bool:
    """A GEMM or depthwise convolution or a max pool next to the blocked layout
    (`_joins`)."""
    if isinstance(op, relay.Conv2DOp):
        return (_is_gemm(op) or is_depthwise(op)) and _joins(op)
    return isinstance(op, relay.MaxPool2DOp) and _joins(op)


def _join(op: Operation) -> str | None:
    """Rewrite joinable `op` into the blocked layout; the counter of what it
    became (None: it could not be)."""
    if isinstance(op, relay.MaxPool2DOp):
        return "max-pool-nchwc" if max_pool_nchwc(op) else None
    assert isinstance(op, relay.Conv2DOp)
    if is_depthwise(op):
        return "depthwise-nchwc" if depthwise_nchwc(op) else None
    return "conv2d-nchwc" if _conv_nchwc(op) else None


#: The counter of a 1-D or 3-D convolution made blocked.
_BLOCKED_COUNTERS = {1: "alter-op-layout.conv1d-ncwc", 3: "alter-op-layout.conv3d-ncdhwc"}


def _sink_constants(loop: relay.LoopOp) -> None:
    """The body of `loop` reads each constant among its read-only inputs (a
    recurrent cell's weights) directly, so the rules below see it: a copy of
    the constant's op (the same data) replaces the input and its argument."""
    block = loop.body.block
    n = loop.num_carried
    for i in reversed(range(n, len(loop.inputs))):
        value, arg = loop.inputs[i], block.args[2 + i]
        if not isinstance(value.owner, relay.ConstantOp):
            continue
        if arg.uses:
            copy = value.owner.clone()
            block.insert_op_before(copy, block.first_op)  # type: ignore[arg-type]
            arg.replace_all_uses_with(copy.results[0])
        block.erase_arg(arg)
        loop.operands = [*loop.operands[: 2 + i], *loop.operands[3 + i :]]
        if not value.uses:
            Rewriter.erase_op(value.owner)


@register_pass
@dataclass(frozen=True)
class AlterOpLayoutPass(ModulePass):
    """Rewrite dense and conv2d into the layouts of their GEMM schedules."""

    name = "alter-op-layout"
    opt_level: ClassVar[int] = 3

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in list(op.walk()):
            if isinstance(inner, relay.LoopOp):
                _sink_constants(inner)
        for inner in list(op.walk()):  # (their convolutions go on through the rules below)
            if isinstance(inner, relay.ConvTransposeOp) and conv_transpose_phases(inner):
                record_statistic("alter-op-layout.conv-transpose-phases")
        for inner in list(op.walk()):
            if isinstance(inner, relay.DenseOp | relay.MatmulOp) and pack_product(inner):
                record_statistic("alter-op-layout.dense-pack")
            elif isinstance(inner, relay.DenseOp) and _dense(inner):
                record_statistic("alter-op-layout.dense")
            elif isinstance(inner, relay.Conv2DOp) and not _is_gemm(inner) and _conv_nchwc(inner):
                record_statistic("alter-op-layout.conv2d-nchwc")
            elif isinstance(inner, relay.Conv1DOp | relay.Conv3DOp) and _conv_nchwc(inner):
                record_statistic(_BLOCKED_COUNTERS[inner.SPATIAL])
            elif isinstance(inner, relay.Conv2DOp) and _conv2d(inner):
                record_statistic("alter-op-layout.conv2d")
            elif isinstance(inner, relay.Conv2DOp) and not is_depthwise(inner) and _grouped_pad(inner):
                record_statistic("alter-op-layout.grouped-pad")
        # A 1x1 convolution is a GEMM already, and a depthwise convolution or a
        # max pool has no reduction over channels to block: they join the blocked
        # layout only where that saves transforms: their input arrives blocked
        # (after the transforms moved), or their result is transformed into the
        # blocked layout and their input is no larger than that result.
        bodies = [b for f in op.walk() if isinstance(f, func.FuncOp) for b in f.body.blocks]
        while True:
            for body in bodies:
                for _ in range(propagate(body)):
                    record_statistic("alter-op-layout.transforms-moved")
            joined = [inner for body in bodies for inner in list(body.ops) if _joinable(inner)]
            converted = [kind for inner in joined if (kind := _join(inner)) is not None]
            if not converted:
                break
            for kind in converted:
                record_statistic(f"alter-op-layout.{kind}")
        # The windows left read an explicitly padded input instead.
        for inner in list(op.walk()):
            if isinstance(inner, relay.Conv2DOp) and _grouped_pad(inner):
                record_statistic("alter-op-layout.grouped-pad")
            elif isinstance(inner, relay.MaxPool1DOp | relay.MaxPool2DOp | relay.MaxPool3DOp) and _max_pool_pad(inner):
                record_statistic("alter-op-layout.max-pool-pad")


__all__ = ["AlterOpLayoutPass"]
