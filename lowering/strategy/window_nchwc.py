"""The CPU strategy's template for sliding windows in a blocked channel layout
(`relay.depthwise_conv2d_nchwc`, `relay.max_pool2d_nchwc`; TVM's
`depthwise_conv2d_NCHWc` schedule): a block of channels in the vector lanes, a
tile of output rows x columns unrolled, each point one vector accumulator that
stays in a register across all the window's taps. Per tap, one input vector
per point (and one weight vector per tile); the input vectors of neighbouring
columns overlap when the window's columns are unrolled too (a stride-1 window
reads `cols + KW - 1` vectors per tile row and tap row, not `cols * KW`).

Its knobs, `WindowNchwcKnobs`, follow `lamina.lowering.strategy.cpu`'s:
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
WINDOW_NCHWC = "window_nchwc"
#: Output points (rows x columns) of the default register tile: each a vector
#: accumulator, with room left for the input vectors they read.
WINDOW_NCHWC_POINTS = 8


@dataclass(frozen=True)
class WindowNchwcKnobs(Knobs):
    """`window_nchwc`'s knobs: a register tile of `rows` output rows x `cols`
    output columns (each a vector accumulator of one channel block), the
    window's columns unrolled into the tile (`unroll_kw`), and the parallel
    granularity."""

    cols: int
    rows: int
    unroll_kw: bool
    grain: int

    @staticmethod
    def default(
        target: Target, extents: tuple[int, ...], kernel: tuple[int, int], elem_bits: int = 32
    ) -> WindowNchwcKnobs:
        """Up to `WINDOW_NCHWC_POINTS` columns of one row (a divisor of the
        width when one is close), the window's columns unrolled; fewer columns
        (then no unrolling) where the target's registers do not hold them."""
        vectors = -(-extents[4] // target.lanes(elem_bits))
        cols = int(_row_tile(extents[3], WINDOW_NCHWC_POINTS))
        for unroll in (True, False):
            for c in range(cols, 0, -1):
                knobs = WindowNchwcKnobs(c, 1, unroll, DEFAULT_GRAIN)
                if _registers_check(target, WINDOW_NCHWC, *knobs.registers(kernel, vectors)) is None:
                    return knobs
        return WindowNchwcKnobs(1, 1, False, DEFAULT_GRAIN)

    def registers(self, kernel: tuple[int, int], vectors: int) -> tuple[int, int]:
        """Its vector registers: an accumulator per output point of the tile
        (`vectors` each), and the inputs a tap reads (a row of the tile and the
        window's columns when unrolled, else one) plus the tap's weights."""
        inputs = self.cols + kernel[1] - 1 if self.unroll_kw else 1
        return self.rows * self.cols * vectors, (inputs + 1) * vectors

    @staticmethod
    def space(
        target: Target, extents: tuple[int, ...], kernel: tuple[int, int], elem_bits: int = 32
    ) -> Space[WindowNchwcKnobs]:
        d = WindowNchwcKnobs.default(target, extents, kernel, elem_bits)
        _, _, rows, cols, block = extents
        vectors = -(-block // target.lanes(elem_bits))

        def why(k: WindowNchwcKnobs) -> str | None:
            return _registers_check(target, WINDOW_NCHWC, *k.registers(kernel, vectors))

        return Space(WindowNchwcKnobs, {
            "cols": choices(*range(1, 17), at_most=cols, keep=(d.cols,)),
            "rows": choices(1, 2, 3, 4, at_most=rows, keep=(1,)),
            "unroll_kw": (False, True),
            "grain": choices(*GRAINS, keep=(d.grain,)),
        }, why)


@register_schedule(GENERIC_CPU, tags.WINDOW_NCHWC)
def _window_nchwc(out: Sequence[Dim], kernel: tuple[int, int], elem_bits: int) -> Schedule:
    return window_nchwc(hinted(out), kernel, elem_bits)


def window_nchwc(
    extents: tuple[int, ...],
    kernel: tuple[int, int],
    elem_bits: int = 32,
    knobs: WindowNchwcKnobs | None = None,
) -> Schedule:
    """A sliding-window reduction in a blocked channel layout (output axes `n,
    c/x, oh, ow, x`, reduce axes `kh, kw`): the channel block in vector lanes,
    a tile of output rows x columns unrolled, each point one vector
    accumulator kept in a register across the window."""
    if knobs is None:
        log_call(TemplateCall(WINDOW_NCHWC, window_nchwc, WindowNchwcKnobs, (extents, kernel, elem_bits)))
        knobs = WindowNchwcKnobs.default(current_target(), extents, kernel, elem_bits)
    n, blocks, rows, cols, _ = extents
    batch, block, oh, ow, lanes = map(axis_name, range(5))
    kh, kw = reduce_axis_name(0), reduce_axis_name(1)
    steps: list[Primitive] = [Split(ow, knobs.cols)]
    tile = [inner_name(ow)]
    row = oh
    if knobs.rows > 1:
        steps.append(Split(oh, knobs.rows))
        tile.insert(0, inner_name(oh))
        row = outer_name(oh)
    outer = [batch, block, row, outer_name(ow)]
    outer_extents = [n, blocks, -(-rows // knobs.rows), -(-cols // knobs.cols)]
    taps = [kh] if knobs.unroll_kw else [kh, kw]
    inner = [kw] if knobs.unroll_kw else []
    steps.append(Reorder((*outer, *taps, *inner, *tile, lanes)))
    steps += _parallel_tiles(outer, outer_extents, knobs.grain)
    steps += [Annotate(ForKind.UNROLLED, name) for name in (*inner, *tile)]
    steps.append(Annotate(ForKind.VECTORIZED, lanes))
    return Schedule(tuple(steps))


__all__ = ["WINDOW_NCHWC", "WINDOW_NCHWC_POINTS", "WindowNchwcKnobs", "window_nchwc"]
