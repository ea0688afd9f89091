"""`conv-dead-taps`: drop the kernel taps of a convolution that read only padding.

A tap at offset `t` of a spatial axis (input size `n`, stride `s`, dilation
`d`, padding `pb` at the start) reads input `o*s + t*d - pb` for output `o`;
when that is outside `[0, n)` for every output, the tap only ever multiplies
padding zeros. Dilated convolutions on small maps have such taps: DeepLabV3's
atrous rates 24 and 36 on a 16 x 16 feature map leave only the centre tap of
their 3 x 3 kernels, so they are 1 x 1 convolutions computed nine times over.

The live taps of an axis are a contiguous range `[t0, t1]`; an eligible
`relay.conv1d/2d/3d` (a constant weight, static shapes, a dead tap on some
axis) keeps only those: its weight sliced at compile time, its padding at the
start `pb - t0*d` and at the end whatever keeps the output's size. The outputs
are the same sums without the zero terms.

Counters: `conv-dead-taps.rewritten`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass

from lamina.dialects import relay
from lamina.dialects.relay.constant import make_constant, value_data
from lamina.dialects.shapes import is_symbolic
from lamina.passes import record_statistic
from lamina.passes.registry import register_pass
from lamina.transforms.graph.layout_propagation import replace

_CONVS = (relay.Conv1DOp, relay.Conv2DOp, relay.Conv3DOp)


def live_taps(n: int, out: int, k: int, s: int, d: int, pb: int) -> tuple[int, int] | None:
    """The first and last of a kernel's `k` taps that read some input (None:
    none does). Tap `t`'s reads `o*s + t*d - pb` grow with `o`: the first
    output whose read is not before the input decides."""

    def live(shift: int) -> bool:
        first = 0 if shift >= 0 else (-shift + s - 1) // s
        return first < out and shift + first * s < n

    taps = [t for t in range(k) if live(t * d - pb)]
    return (taps[0], taps[-1]) if taps else None


def prune_taps(op: relay.ConvOp) -> bool:
    """Drop `op`'s dead taps (see the module docstring); whether it did."""
    x, wv = op.operands
    xt, wt = x.type, wv.type
    w = value_data(wv)
    if w is None or not isinstance(xt, TensorType) or not isinstance(wt, TensorType) or is_symbolic(xt):
        return False
    nsp = op.SPATIAL
    win = relay.Window(op.name, op, nsp)
    shape = relay.shape_of(xt)[2:]
    out = relay.shape_of(op.results[0].type)[2:]  # type: ignore[arg-type]
    cuts, begins, ends = [], [], []
    for a in range(nsp):
        k, s, d, pb = w.shape[2 + a], win.strides[a], win.dilation[a], win.pad_begin[a]
        taps = live_taps(shape[a], out[a], k, s, d, pb)
        if taps is None:
            return False  # (an all-padding output: left as it is)
        t0, t1 = taps
        begin = pb - t0 * d
        end = (out[a] - 1) * s + (t1 - t0) * d + 1 - shape[a] - begin
        if begin < 0 or end < 0:
            return False
        cuts.append(slice(t0, t1 + 1))
        begins.append(begin)
        ends.append(end)
    if all(c.stop - c.start == w.shape[2 + a] for a, c in enumerate(cuts)):
        return False
    kept = w[(slice(None), slice(None), *cuts)].copy()
    weight = make_constant(kept, relay.tensor(kept.shape, wt.get_element_type()), (wv.name_hint or "weight") + "_live")
    # (an axis left with one tap has no dilation to speak of)
    dilation = [1 if c.stop - c.start == 1 else d for c, d in zip(cuts, win.dilation, strict=True)]
    replace(op, [weight, op.rebuilt(x, weight.results[0], win.strides, dilation, begins, ends)])
    return True


@register_pass
@dataclass(frozen=True)
class ConvDeadTapsPass(ModulePass):
    """Drop the kernel taps of convolutions that read only padding."""

    name = "conv-dead-taps"
    opt_level: ClassVar[int] = 2

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        done = sum(prune_taps(c) for c in list(op.walk()) if isinstance(c, _CONVS))
        record_statistic("conv-dead-taps.rewritten", done)


__all__ = ["ConvDeadTapsPass", "live_taps", "prune_taps"]
