"""The CPU strategy's template for direct convolutions in a blocked channel
layout (`relay.conv1d_ncwc`, `relay.conv2d_nchwc`, `relay.conv3d_ncdhwc`;
TVM's `conv2d_NCHWc` schedule): the output
channel block in the vector lanes, a tile of output columns (and rows, and
output blocks) unrolled, each point one vector accumulator kept in a register
across the whole reduction.

Its knobs, `NchwcKnobs`, follow `lamina.lowering.strategy.cpu`'s:
`default(target, ...)` for an untuned build, `space(target, ...)` for a tuner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lamina.dialects.tir import ForKind
from lamina.lowering.lang.schedule import (
    Annotate,
    Primitive,
    Reorder,
    Schedule,
    Split,
    axis_name,
    inner_name,
    outer_name,
    reduce_axis_name,
)
from lamina.lowering.strategy import tags
from lamina.lowering.strategy.cpu import (
    _most_that_fit,
    _parallel_tiles,
    _registers_check,
    _row_tile,
    hinted,
)
from lamina.lowering.strategy.dispatch import TemplateCall, log_call
from lamina.lowering.strategy.knobs import DEFAULT_GRAIN, GRAINS, Knobs, Space, choices
from lamina.lowering.strategy.registry import GENERIC_CPU, register_schedule
from lamina.passes import current_target
from lamina.symbolic import Dim
from lamina.target import Target

#: The template's name (a `TemplateCall`'s, and a tuning record's `template`).
CONV_NCHWC = "conv_nchwc"
#: Output columns of a blocked-layout convolution's register tile: one vector
#: accumulator each (of the host's 32 or 16 vector registers, most stay free).
NCHWC_COLS = 14
#: Output-channel blocks a blocked convolution's register tile may hold, and
#: the accumulators of the default tile of narrow blocks.
NCHWC_BLOCKS, NCHWC_NARROW_POINTS = 5, 21


def _nchwc_registers(oc: int, rows: int, cols: int, vectors: int) -> tuple[int, int]:
    """A blocked conv tile's vector registers: an accumulator per output block,
    row and column (`vectors` per block), and the weights of the `oc` blocks
    plus a broadcast input."""
    return oc * rows * cols * vectors, oc * vectors + 1


@dataclass(frozen=True)
class NchwcKnobs(Knobs):
    """`conv_nchwc`'s knobs: a register tile of `oc` output-channel blocks x
    `rows` output rows x `cols` output columns (each a vector accumulator of
    one block), the reduction's order (`kernel_outer`: the window's taps
    outside the input-channel blocks) and the parallel granularity."""

    cols: int
    rows: int
    oc: int
    kernel_outer: bool
    grain: int

    @staticmethod
    def default(target: Target, extents: tuple[int, ...], elem_bits: int = 32) -> NchwcKnobs:
        """Up to `NCHWC_COLS` columns (a divisor when one is close) of one row
        and one block; input-channel blocks outside the taps. Blocks narrower
        than a vector (8 of 16 lanes: 24 or 40 channels) are tiled by up to
        `NCHWC_BLOCKS` at once (a divisor of their count) over fewer columns,
        so that each broadcast input feeds as many lanes."""
        blocks, cols, block = extents[1], extents[-2], extents[-1]
        oc = 1
        if block < target.lanes(elem_bits):
            oc = max(o for o in range(1, NCHWC_BLOCKS + 1) if blocks % o == 0)
        most = NCHWC_COLS if oc == 1 else NCHWC_NARROW_POINTS // oc
        vectors = -(-block // target.lanes(elem_bits))
        most = _most_that_fit(target, CONV_NCHWC, most, lambda c: _nchwc_registers(oc, 1, c, vectors))
        return NchwcKnobs(int(_row_tile(cols, most)), 1, oc, False, DEFAULT_GRAIN)

    @staticmethod
    def space(target: Target, extents: tuple[int, ...], elem_bits: int = 32) -> Space[NchwcKnobs]:
        d = NchwcKnobs.default(target, extents, elem_bits)
        blocks, cols, block = extents[1], extents[-2], extents[-1]
        rows = extents[-3] if len(extents) > 4 else 1  # (a 1-D convolution has none)
        vectors = -(-block // target.lanes(elem_bits))

        def why(k: NchwcKnobs) -> str | None:
            return _registers_check(target, CONV_NCHWC, *_nchwc_registers(k.oc, k.rows, k.cols, vectors))

        return Space(NchwcKnobs, {
            "cols": choices(*range(1, 29), at_most=cols, keep=(d.cols,)),
            "rows": choices(1, 2, 3, 4, at_most=rows, keep=(1,)),
            "oc": tuple(o for o in range(1, NCHWC_BLOCKS + 1) if blocks % o == 0),
            "kernel_outer": (False, True),
            "grain": choices(*GRAINS, keep=(d.grain,)),
        }, why)


def conv_nchwc(
    extents: tuple[int, ...], elem_bits: int = 32, knobs: NchwcKnobs | None = None
) -> Schedule:
    """A direct convolution in a blocked channel layout (output axes `n, oc/ob,
    [od,] [oh,] ow, ob`, reduce axes `ic/cb, [kd,] [kh,] kw, cb`; TVM's
    `conv2d_NCHWc`): the output channel block in vector lanes, a tile of output
    columns (and rows, and output blocks) unrolled, each one vector accumulator
    kept in a register across the whole reduction; per reduction step, one
    weight vector and a broadcast input element per column. A 3-D one runs
    its output rows outside its output-channel blocks and depth: the input rows
    of one output row, in every depth plane, stay in cache while every block
    and depth reads them. With the depth outside the rows, the taps of a
    temporal kernel (`(7, 1, 1)`, S3D's) read as many planes each a plane
    apart, once per output depth, from memory: 41% of peak, 89% so."""
    if knobs is None:
        log_call(TemplateCall(CONV_NCHWC, conv_nchwc, NchwcKnobs, (extents, elem_bits)))
        knobs = NchwcKnobs.default(current_target(), extents, elem_bits)
    n, blocks, *spatial, _ = extents
    names = [axis_name(d) for d in range(len(extents))]
    batch, ocb, ob = names[0], names[1], names[-1]
    *depth, ow = names[2:-1]
    oh = depth.pop() if depth else None  # (a 1-D convolution has no rows)
    rows, cols = (spatial[-2] if oh else 1), spatial[-1]
    ct, rt, oc = knobs.cols, (knobs.rows if oh else 1), knobs.oc
    reduce_names = [reduce_axis_name(d) for d in range(len(spatial) + 2)]
    icb, taps, cb = reduce_names[0], reduce_names[1:-1], reduce_names[-1]
    steps: list[Primitive] = [Split(ow, ct)]
    tile = [inner_name(ow)]
    if oc > 1:
        steps.append(Split(ocb, oc))
    if rt > 1:
        assert oh is not None
        steps.append(Split(oh, rt))
        tile.insert(0, inner_name(oh))
    if oc > 1:
        tile.insert(0, inner_name(ocb))
    outer = [batch, outer_name(ocb) if oc > 1 else ocb, *depth]
    outer_extents = [n, -(-blocks // oc), *spatial[: len(depth)]]
    if oh is not None:
        row, row_extent = (outer_name(oh) if rt > 1 else oh), -(-rows // rt)
        if depth:  # rows outside the channel blocks and the depth (see the docstring)
            outer.insert(1, row)
            outer_extents.insert(1, row_extent)
        else:
            outer.append(row)
            outer_extents.append(row_extent)
    outer.append(outer_name(ow))
    outer_extents.append(-(-cols // ct))
    reduce = (*taps, icb, cb) if knobs.kernel_outer else (icb, *taps, cb)
    steps.append(Reorder((*outer, *reduce, *tile, ob)))
    steps += _parallel_tiles(outer, outer_extents, knobs.grain)
    steps += [Annotate(ForKind.UNROLLED, name) for name in tile]
    steps.append(Annotate(ForKind.VECTORIZED, ob))
    return Schedule(tuple(steps))


@register_schedule(GENERIC_CPU, tags.CONV_NCHWC)
def _conv_nchwc(out: Sequence[Dim], elem_bits: int) -> Schedule:
    return conv_nchwc(hinted(out), elem_bits)


__all__ = ["CONV_NCHWC", "NCHWC_BLOCKS", "NCHWC_COLS", "NCHWC_NARROW_POINTS", "NchwcKnobs", "conv_nchwc"]
