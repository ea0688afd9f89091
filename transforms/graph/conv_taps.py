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

A tap can also be dead for only some outputs: DeepLabV3's atrous rate 12 on a
16 x 16 map reads padding for 3/4 of the side taps' outputs, so three quarters
of the convolution's products are zeros. When the live (output, tap) pairs are
at most `SPLIT_LIVE_FRACTION` of all, the output is cut along each spatial
axis into the runs of outputs that read the same live taps (at most
`SPLIT_MAX_RUNS` of them), and each region is a convolution of its own over
the input window it reads, with only those taps and no padding; the regions
are concatenated back (an axis's runs, then the next axis's). `alter-op-layout` keeps the slices and concatenations in the
blocked layout.

Counters: `conv-dead-taps.rewritten`, `conv-dead-taps.split`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
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


#: Split a convolution into regions when at most this fraction of its
#: (output, tap) products read the input (the rest multiply padding).
SPLIT_LIVE_FRACTION = 0.5
#: At most this many runs of outputs per axis (a border, the middle, a
#: border): more are regions too small to pay for their kernels.
SPLIT_MAX_RUNS = 3


@dataclass(frozen=True)
class Run:
    """Outputs `[o0, o1)` of an axis that read taps `[t0, t1]`, from input
    positions `[lo, hi)`."""

    o0: int
    o1: int
    t0: int
    t1: int
    lo: int
    hi: int


@dataclass(frozen=True)
class _Conv:
    """What the rewrites read of a convolution with a constant weight and
    static shapes."""

    x: SSAValue
    wv: SSAValue
    w: np.ndarray
    wt: TensorType
    win: relay.Window
    shape: tuple[int, ...]  # the input's
    out: tuple[int, ...]  # the output's spatial sizes

    @staticmethod
    def of(op: relay.ConvOp) -> _Conv | None:
        x, wv = op.operands
        xt, wt = x.type, wv.type
        w = value_data(wv)
        if w is None or not isinstance(xt, TensorType) or not isinstance(wt, TensorType) or is_symbolic(xt):
            return None
        out = relay.shape_of(op.results[0].type)[2:]  # type: ignore[arg-type]
        return _Conv(x, wv, w, wt, relay.Window(op.name, op, op.SPATIAL), tuple(relay.shape_of(xt)), tuple(out))


def tap_runs(n: int, out: int, k: int, s: int, d: int, pb: int) -> list[Run] | None:
    """An axis's outputs grouped in runs reading the same live taps (None: an
    output reads no input at all)."""
    runs: list[Run] = []
    for o in range(out):
        taps = [t for t in range(k) if 0 <= o * s + t * d - pb < n]
        if not taps:
            return None
        t0, t1 = taps[0], taps[-1]
        extends = bool(runs) and (runs[-1].t0, runs[-1].t1) == (t0, t1)
        o0 = runs.pop().o0 if extends else o
        runs.append(Run(o0, o + 1, t0, t1, o0 * s + t0 * d - pb, o * s + t1 * d - pb + 1))
    return runs


def split_regions(op: relay.ConvOp) -> bool:
    """Compute `op` as regions of outputs reading the same live taps, when most
    of its products multiply padding (see the module docstring); whether it did."""
    conv = _Conv.of(op)
    if conv is None:
        return False
    x, wv, w, win, nsp = conv.x, conv.wv, conv.w, conv.win, op.SPATIAL
    shape, out, wt = conv.shape, conv.out, conv.wt
    axes: list[list[Run]] = []
    live = 1.0
    for a in range(nsp):
        k = w.shape[2 + a]
        runs = tap_runs(shape[2 + a], out[a], k, win.strides[a], win.dilation[a], win.pad_begin[a])
        if runs is None or len(runs) > SPLIT_MAX_RUNS:
            return False
        axes.append(runs)
        live *= sum((r.o1 - r.o0) * (r.t1 - r.t0 + 1) for r in runs) / (out[a] * k)
    if live > SPLIT_LIVE_FRACTION:
        return False
    new: list[Operation] = []
    name = (wv.name_hint or "weight") + "_region"

    def region(chosen: list[Run]) -> SSAValue:
        data = x
        begin = [0, 0, *(r.lo for r in chosen)]
        end = [shape[0], shape[1], *(r.hi for r in chosen)]
        if end != list(shape) or any(begin):  # (a region may read the whole input)
            new.append(relay.StridedSliceOp(x, begin=relay.i64_array(begin), end=relay.i64_array(end)))
            data = new[-1].results[0]
        taps = w[(slice(None), slice(None), *(slice(r.t0, r.t1 + 1) for r in chosen))].copy()
        weight = make_constant(taps, relay.tensor(taps.shape, wt.get_element_type()), name)
        dilation = [1 if r.t0 == r.t1 else d for r, d in zip(chosen, win.dilation, strict=True)]
        zeros = [0] * nsp
        new.extend([weight, op.rebuilt(data, weight.results[0], win.strides, dilation, zeros, zeros)])
        return new[-1].results[0]

    def joined(prefix: list[Run], a: int) -> SSAValue:
        """The output regions under `prefix` (runs of the axes before `a`),
        concatenated along axis `a` and the ones after it."""
        if a == nsp:
            return region(prefix)
        parts = [joined([*prefix, r], a + 1) for r in axes[a]]
        if len(parts) == 1:
            return parts[0]
        new.append(relay.ConcatenateOp(*parts, axis=relay.i64_attr(2 + a)))
        return new[-1].results[0]

    replace(op, new, joined([], 0))
    return True


def prune_taps(op: relay.ConvOp) -> bool:
    """Drop `op`'s dead taps (see the module docstring); whether it did."""
    conv = _Conv.of(op)
    if conv is None:
        return False
    x, wv, w, win, nsp = conv.x, conv.wv, conv.w, conv.win, op.SPATIAL
    shape, out, wt = conv.shape[2:], conv.out, conv.wt
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
        split = sum(split_regions(c) for c in list(op.walk()) if isinstance(c, _CONVS))
        record_statistic("conv-dead-taps.split", split)


__all__ = ["ConvDeadTapsPass", "Run", "live_taps", "prune_taps", "split_regions", "tap_runs"]
