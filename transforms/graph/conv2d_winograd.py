"""`conv2d-winograd`: compute the 3x3 convolutions the implementation choice
selects with Winograd's algorithm, F(m x m, 3 x 3) (TVM's `conv2d_winograd`
implementation of `conv2d`, picked per workload by tuning).

An eligible `relay.conv2d` (f32, one group, a constant `[K, C, 3, 3]` weight,
unit strides and dilation, static NCHW data, any padding) becomes

    xb = relay.layout_transform(x)                   NCHW -> NCHW<cb>c
    v  = relay.winograd_input_transform(xb, B^T)     [a*a, P, C]
    mm = relay.matmul(v, U)                          U = G w G^T, [K/kb, a*a, C, kb]
    yb = relay.winograd_output_transform(mm, A^T)    NCHW<kb>c
    y  = relay.layout_transform(yb)                  -> NCHW

with `a = m + 2`, the weight transformed at compile time (in f64, then cast)
and the channel blocks `cb`, `kb` the largest divisors of the channels up to
the host's f32 lanes: the blocked layout `alter-op-layout` gives direct
convolutions, so that its transforms cancel between neighbours as theirs do.
The conv's epilogue (bias, activation, residual add) fuses into the output
transform's kernel.

Which convolutions: those whose workload (`conv_workload`: the conv's shapes
and padding, TVM's workload of a conv task) the dispatch context gives the
implementation `winograd` with its tile size `m` (`lamina.compile` with tuning
records that measured it faster than the direct convolution); or, with
`conv2d-winograd.tile-size` set, every eligible one with that tile size. A
default build rewrites nothing, but on a target without a fused multiply-add
(WebAssembly), where it rewrites every eligible conv no record chose the
direct convolution for, with F(2 x 2, 3 x 3) (`default_tile_size`). With `conv2d-winograd.origins` (task
extraction), every eligible conv, rewritten or not, and the ops it becomes
(but constants and layout transforms) are marked with its workload
(`lamina.origin`: the key, a space and the text).

Counters: `conv2d-winograd.rewritten`.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType, f32
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from lamina.dialects import relay
from lamina.dialects.relay.constant import make_constant, value_data
from lamina.errors import LaminaError
from lamina.lowering.strategy import dispatch
from lamina.lowering.strategy.registry import GENERIC_CPU, register_implementation
from lamina.lowering.topi.winograd import (
    POINTS,
    input_transform,
    output_transform,
    weight_transform,
)
from lamina.passes import PassContext, current_target, record_statistic, register_config
from lamina.passes.registry import register_pass
from lamina.target import Target
from lamina.transforms.graph.fold_constant import register_evaluator
from lamina.transforms.graph.layout_propagation import replace, transform

TILE_SIZE = register_config(
    "conv2d-winograd.tile-size",
    int,
    0,
    "rewrite every eligible 3x3 conv2d with Winograd's F(m x m, 3 x 3) of this tile "
    "size (2, 4 or 6); 0: only those the tuning records choose",
)
ORIGINS = register_config(
    "conv2d-winograd.origins",
    bool,
    False,
    "mark each eligible conv2d and the ops it becomes with its workload "
    "(`lamina.origin`), for task extraction",
)

#: The implementation's name in a dispatch context's choice.
WINOGRAD = "winograd"

#: The tuner measures F(2 x 2, 3 x 3) and F(4 x 4, 3 x 3) (F(6 x 6, 3 x 3) is
#: left out: its dense transforms cost more than its product saves).
register_implementation(
    GENERIC_CPU,
    relay.Conv2DOp.name,
    WINOGRAD,
    plevel=5,
    variants=({"m": 2}, {"m": 4}),
    configure=lambda knobs: {TILE_SIZE.key: knobs["m"]},
)


@dataclass(frozen=True)
class ConvWorkload:
    """An eligible convolution's workload: its shapes and padding (`text`) and
    their hash (`key`, 16 hex digits), by which tuning records choose its
    implementation."""

    key: str
    text: str

    @property
    def origin(self) -> str:
        """What `lamina.origin` holds: the key, a space, the text."""
        return f"{self.key} {self.text}"


def conv_workload(op: relay.Conv2DOp) -> ConvWorkload | None:
    """The workload of a conv Winograd can compute (f32, one group, a constant
    `[K, C, 3, 3]` weight, unit strides and dilation, static 4-D data), else None."""
    x, w = op.operands
    xt, wt = x.type, w.type
    if not (isinstance(xt, TensorType) and isinstance(wt, TensorType)):
        return None
    if xt.get_element_type() != f32 or wt.get_element_type() != f32 or value_data(w) is None:
        return None
    shape, wshape = relay.shape_of(xt), relay.shape_of(wt)
    if len(shape) != 4 or not all(isinstance(d, int) for d in shape):
        return None
    win = relay.Window(op.name, op, 2)
    if (
        op.attrs.groups != 1
        or tuple(wshape[2:]) != (3, 3)
        or tuple(win.strides) != (1, 1)
        or tuple(win.dilation) != (1, 1)
    ):
        return None
    pad = (*win.pad_begin, *win.pad_end)
    text = (
        f"conv2d {'x'.join(map(str, shape))} * {'x'.join(map(str, wshape))} "
        f"padding {','.join(map(str, pad))} f32"
    )
    return ConvWorkload(hashlib.sha256(text.encode()).hexdigest()[:16], text)


def _constant(data: np.ndarray, name: str) -> relay.ConstantOp:
    values = data.astype(np.float32)
    return make_constant(values, relay.tensor(values.shape, f32), name)


def rewrite(op: relay.Conv2DOp, m: int, lanes: int) -> list[Operation]:
    """Replace `op` by its Winograd form with tile size `m`, channel blocks
    dividing into `lanes`; returns the new ops."""
    x, w = op.operands
    _, c, h, width = relay.shape_of(x.type)  # type: ignore[arg-type]
    k = relay.shape_of(w.type)[0]  # type: ignore[arg-type]
    weight = value_data(w)
    assert weight is not None
    win = relay.Window(op.name, op, 2)
    pad = (*win.pad_begin, *win.pad_end)
    out_h, out_w = h + pad[0] + pad[2] - 2, width + pad[1] + pad[3] - 2
    cb, kb = math.gcd(c, lanes), math.gcd(k, lanes)
    name = w.name_hint or "weight"
    new: list[Operation] = [transform(x, "NCHW", f"NCHW{cb}c"), _constant(input_transform(m), f"winograd_bt{m}")]
    padding = {"padding": relay.i64_array(pad)} if any(pad) else {}
    new.append(relay.WinogradInputTransformOp(
        new[0].results[0], new[1].results[0], tile_size=relay.i64_attr(m), **padding,
    ))
    new.append(_constant(weight_transform(weight, m, kb), f"{name}_winograd{m}"))
    new.append(relay.MatmulOp(new[2].results[0], new[3].results[0]))
    new.append(_constant(output_transform(m), f"winograd_at{m}"))
    new.append(relay.WinogradOutputTransformOp(
        new[4].results[0], new[5].results[0], tile_size=relay.i64_attr(m),
        output_size=relay.i64_array([out_h, out_w]),
    ))
    new.append(transform(new[-1].results[0], f"NCHW{kb}c", "NCHW"))
    replace(op, new)
    return new


#: The tile size every eligible conv gets, untuned, on a target whose vector unit
#: has no fused multiply-add: there a product and a sum are two instructions, and
#: Winograd's fewer products pay. ResNet-18 in WebAssembly (node, one thread,
#: SIMD128; onnxruntime-web 151 ms): direct 185 ms, F(2 x 2, 3 x 3) 136 ms with
#: a module of 77 MB, F(4 x 4, 3 x 3) 99 ms but 161 MB (its 6x6 transformed
#: weights are 4x a 3x3 kernel's, and a WebAssembly module is downloaded):
#: F(2 x 2) by default, F(4 x 4) with `conv2d-winograd.tile-size=4`.
NO_FMA_TILE_SIZE = 2


def default_tile_size(target: Target) -> int:
    """The tile size of an eligible conv no tuning record chose an
    implementation for (0: a direct convolution)."""
    return 0 if target.fused_multiply_add else NO_FMA_TILE_SIZE


def _tile_size(workload: ConvWorkload, forced: int, default: int) -> int:
    """The tile size `workload` gets (0: it stays a direct convolution)."""
    if forced:
        return forced
    impl = dispatch.implementation(workload.key)
    if impl is None:
        return default
    return impl.knob("m") if impl.name == WINOGRAD else 0


@register_pass
@dataclass(frozen=True)
class Conv2dWinogradPass(ModulePass):
    """Rewrite the chosen 3x3 convolutions into Winograd's transforms and a
    batched matrix product."""

    name = "conv2d-winograd"
    opt_level: ClassVar[int] = 3

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pctx = PassContext.current()
        forced = int(pctx.get_config(TILE_SIZE.key))
        origins = bool(pctx.get_config(ORIGINS.key))
        if forced and forced not in POINTS:
            raise LaminaError(
                f"conv2d-winograd.tile-size: {forced} is not 0 or one of "
                f"{', '.join(map(str, sorted(POINTS)))}"
            )
        target = current_target()
        lanes = target.lanes(32)
        default = 0 if origins else default_tile_size(target)  # (extraction marks only)
        for conv in [o for o in op.walk() if isinstance(o, relay.Conv2DOp)]:
            workload = conv_workload(conv)
            if workload is None:
                continue
            m = _tile_size(workload, forced, default)
            if m not in POINTS:  # (0, or a tile size this lamina does not have)
                if origins:
                    conv.attributes[dispatch.ORIGIN_ATTR] = StringAttr(workload.origin)
                continue
            made = rewrite(conv, m, lanes)
            record_statistic("conv2d-winograd.rewritten")
            if origins:  # (not the transforms: cse merges them as it would untagged)
                for new in made:
                    if not isinstance(new, relay.ConstantOp | relay.LayoutTransformOp):
                        new.attributes[dispatch.ORIGIN_ATTR] = StringAttr(workload.origin)


# ---------------------------------------------------------------- evaluators
def _tiled(x: np.ndarray, op: Operation) -> tuple[np.ndarray, int, int, int]:
    """The input tiles `[N, C, TH, TW, a, a]` of a blocked input (zero outside)."""
    m = op.attrs.tile_size
    a = m + 2
    n, blocks, h, w, block = x.shape
    data = x.transpose(0, 1, 4, 2, 3).reshape(n, blocks * block, h, w)
    top, left, bottom, right = op.attrs.padding or (0, 0, 0, 0)
    th, tw = relay.winograd_tiles(h + top + bottom - 2, m), relay.winograd_tiles(w + left + right - 2, m)
    padded = np.zeros((n, blocks * block, th * m + 2, tw * m + 2), np.float64)
    rows, cols = min(h, th * m + 2 - top), min(w, tw * m + 2 - left)
    padded[:, :, top : top + rows, left : left + cols] = data[:, :, :rows, :cols]
    tiles = np.lib.stride_tricks.sliding_window_view(padded, (a, a), axis=(2, 3))[:, :, ::m, ::m]
    return tiles, th, tw, a


@register_evaluator("relay.winograd_input_transform")
def _input_transform(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    x, t = args
    tiles, _, _, a = _tiled(x, op)
    n, c, th, tw = tiles.shape[:4]
    bt = t.astype(np.float64)
    v = np.einsum("xi,yj,nchwij->xynhwc", bt, bt, tiles)
    return v.reshape(a * a, n * th * tw, c).astype(x.dtype)


@register_evaluator("relay.winograd_output_transform")
def _output_transform(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    mm, t = args
    m = op.attrs.tile_size
    out_h, out_w = op.attrs.output_size
    th, tw = relay.winograd_tiles(out_h, m), relay.winograd_tiles(out_w, m)
    blocks, _, p, block = mm.shape
    n = p // (th * tw)
    at, a = t.astype(np.float64), t.shape[1]
    y = np.einsum("qx,ry,bxypk->qrbpk", at, at, mm.astype(np.float64).reshape(blocks, a, a, p, block))
    y = y.reshape(m, m, blocks, n, th, tw, block).transpose(3, 2, 4, 0, 5, 1, 6)
    y = y.reshape(n, blocks, th * m, tw * m, block)[:, :, :out_h, :out_w]
    return y.astype(mm.dtype)


__all__ = [
    "NO_FMA_TILE_SIZE",
    "ORIGINS",
    "TILE_SIZE",
    "WINOGRAD",
    "Conv2dWinogradPass",
    "ConvWorkload",
    "conv_workload",
    "default_tile_size",
    "rewrite",
]
