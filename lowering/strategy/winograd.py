"""The CPU strategy's templates for Winograd convolution's transforms
(`relay.winograd_input_transform`, `relay.winograd_output_transform`; the
batched product between them is `gemm`'s).

Both transforms are sum reductions over one axis of a tile (`a` steps) whose
terms apply the transform along the other axis, with the matrix entries read
from a constant operand, vectorized along the channel block (the lanes hold
`block` channels of one position). A term is the same for a whole row of the
register tile, which the compiler then computes once (the separable transform):

- `winograd_input`: output axes `s` (the `a*a` transformed positions, `xi * a
  + nu`), `p` (tiles), `c` (channels), reduce axis `j` (the tile's columns); a
  register tile of `rows` positions (whole rows of `a`) x `cols` channel
  vectors;
- `winograd_output`: output axes `n, kb, h, w, kb_i` (the blocked result),
  reduce axis `xi` (the tile's rows of products); a register tile of `rows x
  cols` output tiles of `m x m` points, each point a vector accumulator; the
  conv's epilogue (bias, activation, residual add) runs on the accumulators as
  they are written back.

Their knobs, `WinogradInputKnobs` and `WinogradOutputKnobs`, follow
`lamina.lowering.strategy.cpu`'s: `default(target, ...)` for an untuned build,
`space(target, ...)` for a tuner. The tile size `m` is not one of them: it
changes the graph (`conv2d-winograd`), so the tuner measures each `m` as an
implementation of its own.
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
from lamina.lowering.strategy.cpu import _parallel_tiles, _registers_check, hinted
from lamina.lowering.strategy.dispatch import TemplateCall, log_call
from lamina.lowering.strategy.knobs import DEFAULT_GRAIN, GRAINS, Knobs, Space, choices
from lamina.lowering.strategy.registry import GENERIC_CPU, register_schedule
from lamina.passes import current_target
from lamina.symbolic import Dim
from lamina.target import Target

# The templates' names (a `TemplateCall`'s, and a tuning record's `template`).
WINOGRAD_INPUT = "winograd_input"
WINOGRAD_OUTPUT = "winograd_output"
#: Vector accumulators of a default register tile: enough independent FMAs to
#: cover their latency, with room for the operands on 16-register hosts too.
WINOGRAD_ACCUMULATORS = 12


def _divisors(n: int, at_most: int) -> tuple[int, ...]:
    return tuple(d for d in range(1, min(n, at_most) + 1) if n % d == 0)


def _rows(m: int, at_most: int) -> tuple[int, ...]:
    """Register tiles of whole rows of the `a x a` positions (`a = m + 2`): `a`
    times a divisor of `a`, up to `at_most` positions (at least one row)."""
    a = m + 2
    return tuple(a * d for d in _divisors(a, max(1, at_most // a)))


def _vectors(target: Target, block: int) -> int:
    """Registers one channel block takes."""
    return -(-block // target.lanes(32))


@dataclass(frozen=True)
class WinogradInputKnobs(Knobs):
    """`winograd_input`'s knobs: a register tile of `rows` transformed
    positions (whole rows of `a`, a divisor of `a*a`) x `cols` channel vectors,
    the reduction unrolled (`unroll`), and the parallel granularity."""

    rows: int
    cols: int
    unroll: bool
    grain: int

    @staticmethod
    def default(target: Target, extents: tuple[int, ...], m: int, block: int) -> WinogradInputKnobs:
        """As many whole rows as `WINOGRAD_ACCUMULATORS` positions hold (at
        least one), one vector, the reduction as a loop."""
        per = _vectors(target, block)
        rows = max(_rows(m, max(m + 2, WINOGRAD_ACCUMULATORS // per)))
        return WinogradInputKnobs(rows, 1, False, DEFAULT_GRAIN)

    @staticmethod
    def space(target: Target, extents: tuple[int, ...], m: int, block: int) -> Space[WinogradInputKnobs]:
        d = WinogradInputKnobs.default(target, extents, m, block)
        channels = extents[2]
        per = _vectors(target, block)

        def why(k: WinogradInputKnobs) -> str | None:
            return _registers_check(target, WINOGRAD_INPUT, k.rows * k.cols * per, k.cols * per + 1)

        return Space(WinogradInputKnobs, {
            "rows": _rows(m, target.vector_registers),
            "cols": _divisors(channels // block, 4),
            "unroll": (False, True),
            "grain": choices(*GRAINS, keep=(d.grain,)),
        }, why)


@register_schedule(GENERIC_CPU, tags.WINOGRAD_INPUT)
def _winograd_input(out: Sequence[Dim], m: int, block: int) -> Schedule:
    return winograd_input(hinted(out), m, block)


@register_schedule(GENERIC_CPU, tags.WINOGRAD_OUTPUT)
def _winograd_output(out: Sequence[Dim], m: int) -> Schedule:
    return winograd_output(hinted(out), m)


def winograd_input(
    extents: tuple[int, ...], m: int, block: int, knobs: WinogradInputKnobs | None = None
) -> Schedule:
    """The input transform (output axes `s, p, c`, reduce axis `j`, the tile's
    columns): per tile and channel vectors, `rows` positions accumulate in
    registers over the whole tile; the channel block in the vector lanes."""
    if knobs is None:
        log_call(TemplateCall(WINOGRAD_INPUT, winograd_input, WinogradInputKnobs, (extents, m, block)))
        knobs = WinogradInputKnobs.default(current_target(), extents, m, block)
    positions, tiles, channels = extents
    s, p, c, j = axis_name(0), axis_name(1), axis_name(2), reduce_axis_name(0)
    steps: list[Primitive] = [Split(c, block), Split(s, knobs.rows)]
    chans, inner = outer_name(c), []
    if knobs.cols > 1:
        steps.append(Split(chans, knobs.cols))
        chans, inner = outer_name(chans), [inner_name(chans)]
    outer = [p, chans, outer_name(s)]
    steps.append(Reorder((*outer, j, inner_name(s), *inner, inner_name(c))))
    extents_outer = [tiles, channels // block // knobs.cols, positions // knobs.rows]
    steps += _parallel_tiles(outer, extents_outer, knobs.grain)
    unrolled = [j] if knobs.unroll else []
    steps += [Annotate(ForKind.UNROLLED, name) for name in (*unrolled, inner_name(s), *inner)]
    steps.append(Annotate(ForKind.VECTORIZED, inner_name(c)))
    return Schedule(tuple(steps))


@dataclass(frozen=True)
class WinogradOutputKnobs(Knobs):
    """`winograd_output`'s knobs: a register tile of `rows` x `cols` output
    tiles (each `m x m` vector accumulators), the reduction unrolled
    (`unroll`), and the parallel granularity."""

    rows: int
    cols: int
    unroll: bool
    grain: int

    @staticmethod
    def default(target: Target, extents: tuple[int, ...], m: int) -> WinogradOutputKnobs:
        """As many whole tiles along a row as `WINOGRAD_ACCUMULATORS` (at least
        one), the reduction as a loop."""
        per = m * m * _vectors(target, extents[4])
        cols = max(1, min(WINOGRAD_ACCUMULATORS // per, -(-extents[3] // m)))
        return WinogradOutputKnobs(1, cols, False, DEFAULT_GRAIN)

    @staticmethod
    def space(target: Target, extents: tuple[int, ...], m: int) -> Space[WinogradOutputKnobs]:
        d = WinogradOutputKnobs.default(target, extents, m)
        per = m * m * _vectors(target, extents[4])
        tiles_h, tiles_w = -(-extents[2] // m), -(-extents[3] // m)

        def why(k: WinogradOutputKnobs) -> str | None:
            vectors = _vectors(target, extents[4])
            return _registers_check(target, WINOGRAD_OUTPUT, k.rows * k.cols * per, vectors + 1)

        return Space(WinogradOutputKnobs, {
            "rows": choices(1, 2, 3, 4, at_most=tiles_h, keep=(1,)),
            "cols": choices(1, 2, 3, 4, 5, 6, 7, at_most=tiles_w, keep=(d.cols,)),
            "unroll": (False, True),
            "grain": choices(*GRAINS, keep=(d.grain,)),
        }, why)


def winograd_output(
    extents: tuple[int, ...], m: int, knobs: WinogradOutputKnobs | None = None
) -> Schedule:
    """The output transform (output axes `n, kb, h, w, kb_i`, reduce axis `xi`,
    the tile's rows of products): a tile of `rows x cols` output tiles of `m x
    m` points accumulates in registers over the `a` rows and is written back
    through the epilogue; the channel block in the vector lanes."""
    if knobs is None:
        log_call(TemplateCall(WINOGRAD_OUTPUT, winograd_output, WinogradOutputKnobs, (extents, m)))
        knobs = WinogradOutputKnobs.default(current_target(), extents, m)
    n, blocks, height, width, _ = extents
    rows, cols = m * knobs.rows, m * knobs.cols
    batch, kb, h, w, lanes = map(axis_name, range(5))
    xi = reduce_axis_name(0)
    steps: list[Primitive] = [Split(h, rows), Split(w, cols)]
    outer = [batch, kb, outer_name(h), outer_name(w)]
    steps.append(Reorder((*outer, xi, inner_name(h), inner_name(w), lanes)))
    extents_outer = [n, blocks, -(-height // rows), -(-width // cols)]
    steps += _parallel_tiles(outer, extents_outer, knobs.grain)
    unrolled = [xi] if knobs.unroll else []
    steps += [Annotate(ForKind.UNROLLED, name) for name in (*unrolled, inner_name(h), inner_name(w))]
    steps.append(Annotate(ForKind.VECTORIZED, lanes))
    return Schedule(tuple(steps))


__all__ = [
    "WINOGRAD_ACCUMULATORS",
    "WINOGRAD_INPUT",
    "WINOGRAD_OUTPUT",
    "WinogradInputKnobs",
    "WinogradOutputKnobs",
    "winograd_input",
    "winograd_output",
]
