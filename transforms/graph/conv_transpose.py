"""Transposed convolutions as one convolution over the output's phases, for
`alter-op-layout` (the sub-pixel decomposition of a strided transposed
convolution, as in TVM's and cuDNN's deconvolution by phases).

A transposed convolution's output `o = q * s + r` (stride `s`, phase `r`) sums
`x[i] * w[t]` over the taps `t = t0 + j * s` (`t0 = (r + p) mod s`) and inputs
`i = q + c - j` (`c = (r + p) div s`): for each phase, an ordinary stride-1
convolution of `x` by the taps of that phase. The phases read the input at
offsets `c - j` that differ little, so they are one convolution with `s^D x O`
output channels and a kernel covering every phase's offsets (zeros where a
phase has no tap), then a depth-to-space of its result and a crop to the
output's size:

    y = conv(x, w')                [N, s1..sD x O, L1..LD]    stride 1, padded
    y = reshape/transpose/reshape  [N, O, L1 s1, .., LD sD]   the phases interleaved
    y = strided_slice              [N, O, OUT1, .., OUTD]

Grouped, each group's phases are that group's outputs of a grouped
convolution (a depthwise one becomes one with a channel multiplier of s^D).

`w'` is made at compile time. The convolution then takes the fast paths of
every other one (the blocked layout, or a GEMM when the stride equals the
kernel, as U-Net's 2x2 stride-2 upsampling). As a direct sum over every tap
with a test of which ones land on the output, it took 25-220x onnxruntime's
time.

Eligible: a constant f32 weight, static shapes, dilation 1, and padding no
larger than what the phases' kernel covers.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from xdsl.dialects.builtin import TensorType, f32
from xdsl.ir import Operation

from lamina.dialects import relay
from lamina.dialects.relay.constant import make_constant, value_data
from lamina.transforms.graph.layout_propagation import replace


def _phases(size: int, out: int, k: int, s: int, p: int) -> tuple[list[list[int]], int, int, int] | None:
    """Along one axis (input extent `size`, output `out`, kernel `k`, stride
    `s`, leading padding `p`): for each phase and each tap of the merged
    kernel, the original tap it holds (-1: none); the merged kernel's padding
    before and after, and the count of outputs per phase. None if the padding
    is more than the phases' reach (the merged kernel would start inside the
    input)."""
    reach = []  # per phase: (t0, c, taps)
    for r in range(s):
        t0, c = (r + p) % s, (r + p) // s
        reach.append((t0, c, len(range(t0, k, s))))
    used = [(t0, c, n) for t0, c, n in reach if n]
    lo = min(c - n + 1 for _, c, n in used)
    hi = max(c for _, c, _ in used)
    if lo > 0:
        return None
    width = hi - lo + 1
    per_phase = -(-out // s)
    before = -lo
    after = max(0, per_phase - (size + before - width + 1))
    taps = [
        [t0 + (c - lo - m) * s if 0 <= c - lo - m < n else -1 for m in range(width)]
        for t0, c, n in reach
    ]
    return taps, before, after, per_phase


def conv_transpose_phases(op: relay.ConvTransposeOp) -> bool:
    """Rewrite an eligible transposed convolution (see the module's docstring)
    as a convolution over its phases; whether it did."""
    x, w = op.operands
    xt, wt, yt = x.type, w.type, op.results[0].type
    assert isinstance(xt, TensorType) and isinstance(wt, TensorType) and isinstance(yt, TensorType)
    data = value_data(w)
    d = op.SPATIAL
    groups = op.attrs.groups
    if data is None or xt.get_element_type() != f32 or d not in relay.CONV_OPS:
        return False
    shape, out = xt.get_shape(), yt.get_shape()
    if any(v < 0 for v in (*shape, *out)):
        return False
    win = relay.Window(op.name, op, d, negative_padding=True)
    if any(v != 1 for v in win.dilation) or any(v < 0 for v in win.pad_begin):
        return False
    axes = []
    for a in range(d):
        got = _phases(shape[2 + a], out[2 + a], wt.get_shape()[2 + a], win.strides[a], win.pad_begin[a])
        if got is None:
            return False
        axes.append(got)
    c_in, o = wt.get_shape()[:2]  # (o: output channels per group)
    c_group = c_in // groups
    strides = [win.strides[a] for a in range(d)]
    phases = math.prod(strides)
    widths = [len(taps[0]) for taps, *_ in axes]
    # [group, phase, out, in, taps]: each group's phases are its own outputs
    merged = np.zeros((groups, phases, o, c_group, *widths), dtype=data.dtype)
    per_group = data.reshape(groups, c_group, o, *data.shape[2:])
    for rho, phase in enumerate(itertools.product(*(range(s) for s in strides))):
        for m in itertools.product(*(range(n) for n in widths)):
            t = [axes[a][0][phase[a]][m[a]] for a in range(d)]
            if min(t) >= 0:  # every axis has a tap here
                taps = per_group[(slice(None), slice(None), slice(None), *t)]  # [groups, in, out]
                merged[(slice(None), rho, slice(None), slice(None), *m)] = taps.transpose(0, 2, 1)
    merged = merged.reshape(groups * phases * o, c_group, *widths)
    n = shape[0]
    lengths = [shape[2 + a] + axes[a][1] + axes[a][2] - widths[a] + 1 for a in range(d)]
    new: list[Operation] = [make_constant(
        merged, relay.tensor(merged.shape, wt.get_element_type()), (w.name_hint or "weight") + "_phases"
    )]
    padding = [axes[a][1] for a in range(d)] + [axes[a][2] for a in range(d)]
    grouping = {"groups": relay.i64_attr(groups)} if groups > 1 else {}
    new.append(relay.CONV_OPS[d](x, new[-1].results[0], padding=relay.i64_array(padding), **grouping))
    # [N, (groups,) s1..sD, O, L1..LD] -> [N, (groups,) O, L1, s1, .., LD, sD]
    lead = [groups] if groups > 1 else []
    g = len(lead)
    new.append(relay.ReshapeOp(new[-1].results[0], shape=relay.i64_array([n, *lead, *strides, o, *lengths])))
    perm = [*range(1 + g), 1 + g + d, *itertools.chain.from_iterable((2 + g + d + a, 1 + g + a) for a in range(d))]
    new.append(relay.TransposeOp(new[-1].results[0], perm=relay.i64_array(perm)))
    full = [lengths[a] * strides[a] for a in range(d)]
    new.append(relay.ReshapeOp(new[-1].results[0], shape=relay.i64_array([n, groups * o, *full])))
    if full != list(out[2:]):
        new.append(relay.StridedSliceOp(
            new[-1].results[0], begin=relay.i64_array([0] * (2 + d)), end=relay.i64_array([n, groups * o, *out[2:]]),
        ))
    replace(op, new)
    return True


__all__ = ["conv_transpose_phases"]
