"""`conv-phases`: a convolution strided along its last axis becomes a unit-stride
one over the phases of its input (space-to-depth along that axis).

The `window` schedule puts a convolution's vector lanes along its output's last
axis; with stride `s` there, each vector reads its input `s` elements apart (a
gather). An eligible `relay.conv1d` or `relay.conv3d` (a constant weight,
static f32 shapes, stride `s > 1` and dilation 1 on the last axis, a kernel of
`K = K' * s` there: wav2vec2's feature encoder, kernel 10 and stride 5) becomes

    xp = relay.pad(x)                    the last axis padded to M * s
    x' = reshape(transpose(reshape(xp))) [N, C * s, ..., M]: x'[c*s + p, m] = xp[c, m*s + p]
    y  = relay.conv(x', w')              stride 1 on the last axis, kernel K'

with `w'[k, c*s + p, t] = w[k, c, t*s + p]` made at compile time and
`M = out + K' - 1`. Every product of the original is made once, as
`sum_{c,p,t} x'[c*s+p, j+t] w'[k, c*s+p, t]` (the same terms: `j*s + t*s + p`
runs over the window of output `j`), now with contiguous vector reads. Channel
groups keep their channels together (`c*s + p` stays in `c`'s group). The
2-D convolutions take the blocked layout of `alter-op-layout` instead, whose
schedules read strided rows well. A 1-D or 3-D convolution strided along its
last axis that is not eligible (a kernel not a multiple of the stride: Whisper's
kernel 3, stride 2) gets its padding as a `relay.pad` before it instead, as
TVM's convolution schedules pad their data: its strided vector reads then need
no masks at the edges.

Counters: `conv-phases.rewritten`, `conv-phases.padded`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from lamina.dialects import relay
from lamina.dialects.relay.constant import make_constant, value_data
from lamina.dialects.shapes import is_symbolic
from lamina.passes import record_statistic
from lamina.passes.registry import register_pass
from lamina.transforms.graph.layout_propagation import replace

_RANKS = (relay.Conv1DOp, relay.Conv3DOp)


def phases_of(op: relay.ConvOp) -> bool:
    """Rewrite `op` onto its input's phases (see the module docstring) when it
    is eligible; whether it did."""
    x, wv = op.operands
    xt, wt = x.type, wv.type
    w = value_data(wv)
    if w is None or not isinstance(xt, TensorType) or not isinstance(wt, TensorType):
        return False
    if is_symbolic(xt) or xt.get_element_type() != f32:
        return False
    n = op.SPATIAL
    win = relay.Window(op.name, op, n)
    s, dil, k = win.strides[-1], win.dilation[-1], w.shape[-1]
    if s <= 1:
        return False
    if dil != 1 or k % s:
        if _pad_apart(op, win):
            record_statistic("conv-phases.padded")
        return False
    shape = relay.shape_of(xt)
    out = relay.shape_of(op.results[0].type)  # type: ignore[arg-type]
    kp = k // s
    m = out[-1] + kp - 1
    begin, length = win.pad_begin[-1], shape[-1]
    pads = [0] * (2 * len(shape))
    pads[len(shape) - 1], pads[-1] = begin, m * s - length - begin  # (negative: crops)
    batch, chans, mid = shape[0], shape[1], list(shape[2:-1])
    new: list[Operation] = [relay.PadOp(x, pad_width=relay.i64_array(pads))] if any(pads) else []
    padded = new[-1].results[0] if new else x
    new.append(relay.ReshapeOp(padded, shape=relay.i64_array([batch, chans, *mid, m, s])))
    last = len(shape)  # (the phase axis)
    perm = [0, 1, last, *range(2, last)]
    new.append(relay.TransposeOp(new[-1].results[0], perm=relay.i64_array(perm)))
    new.append(relay.ReshapeOp(new[-1].results[0], shape=relay.i64_array([batch, chans * s, *mid, m])))
    cout, cg, kmid = w.shape[0], w.shape[1], list(w.shape[2:-1])
    wp = w.reshape(cout, cg, *kmid, kp, s)
    wp = np.moveaxis(wp, -1, 2).reshape(cout, cg * s, *kmid, kp)
    weight = make_constant(
        np.ascontiguousarray(wp), relay.tensor(wp.shape, wt.get_element_type()),
        (wv.name_hint or "weight") + "_phases",
    )
    new.append(weight)
    new.append(op.rebuilt(
        new[-2].results[0], weight.results[0], [*win.strides[:-1], 1], win.dilation,
        [*win.pad_begin[:-1], 0], [*win.pad_end[:-1], 0],
    ))
    replace(op, new)
    return True


def _pad_apart(op: relay.ConvOp, win: relay.Window) -> bool:
    """A convolution strided along its last axis but not rewritten onto phases
    (a kernel not a multiple of the stride: Whisper's kernel 3, stride 2):
    its padding as a `relay.pad` before it, as TVM's conv schedules pad their
    data, so its strided vector reads need no mask at the edges. Whether it
    had padding to move."""
    n = op.SPATIAL
    if not any(win.pad_begin) and not any(win.pad_end):
        return False
    x, w = op.operands
    pad = relay.PadOp(x, pad_width=relay.i64_array([0, 0, *win.pad_begin, 0, 0, *win.pad_end]))
    replace(op, [pad, op.rebuilt(pad.results[0], w, win.strides, win.dilation, [0] * n, [0] * n)])
    return True


@register_pass
@dataclass(frozen=True)
class ConvPhasesPass(ModulePass):
    """Convolutions strided along their last axis as unit-stride ones over their
    input's phases (1-D and 3-D; see the module docstring)."""

    name = "conv-phases"
    opt_level: ClassVar[int] = 3

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        done = sum(phases_of(c) for c in list(op.walk()) if isinstance(c, _RANKS))
        record_statistic("conv-phases.rewritten", done)


__all__ = ["ConvPhasesPass", "phases_of"]
