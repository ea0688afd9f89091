"""The CPU strategy: which schedule each compute gets on a CPU host (TVM's
`relay/op/strategy/x86.py` with the `topi.x86` schedule templates).

The schedule templates:

- `gemm`: a register-tiled micro-kernel for sum reductions shaped like a matrix
  product (dense, batched matmul, 1x1 convolution);
- `window`: sliding-window reductions (grouped and depthwise convolutions,
  pools), a tile of output rows in vector accumulators;
- `conv_nchwc`: direct convolutions in a blocked channel layout;
- `injective`: elementwise stages, vector lanes along the last axis and the
  outer loops parallel;
- `reduction`: other reductions, the outer output loops parallel.

Each takes its knobs explicitly, a small frozen dataclass (`GemmKnobs`,
`WindowKnobs`, `NchwcKnobs`, `InjectiveKnobs`, `ReductionKnobs`): without one
it uses `default(target, ...)`, the values derived from the host CPU (its vector
width and registers), and logs the call (`lamina.lowering.strategy.dispatch`),
so that a tuning record can supply other knobs from `space(target, ...)`.

The compute library (`lamina.lowering.topi`) asks the `schedule_<op>` pickers
for the schedule of a product's compute and attaches it (`topi.scheduled`);
`lamina.lowering.strategy.defaults` gives every compute that carries none the
template its reads call for (`lower-te-to-tir` calls it). The schedule language itself is
`lamina.lowering.lang.schedule`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from lamina.dialects import relay
from lamina.dialects.shapes import dims
from lamina.dialects.tir import ForKind
from lamina.lowering.lang.schedule import (
    Annotate,
    CacheWrite,
    Fuse,
    Primitive,
    Reorder,
    Schedule,
    Split,
    axis_name,
    fused_name,
    inner_name,
    outer_name,
    reduce_axis_name,
)
from lamina.lowering.strategy import tags
from lamina.lowering.strategy.dispatch import TemplateCall, log_call
from lamina.lowering.strategy.knobs import DEFAULT_GRAIN, GRAINS, Knobs, Space, choices
from lamina.lowering.strategy.registry import (
    DEFAULT_IMPLEMENTATION,
    GENERIC_CPU,
    register_implementation,
    register_schedule,
)
from lamina.passes import current_target
from lamina.symbolic import Dim, Sym
from lamina.target import Target

# The templates' names (a `TemplateCall`'s, and a tuning record's `template`).
GEMM = "gemm"
WINDOW = "window"
INJECTIVE = "injective"
REDUCTION = "reduction"


# ----------------------------------------------------------------- templates
def parallel_outer(
    loops: list[str], extents: list[int], threads_hint: int = DEFAULT_GRAIN
) -> list[Primitive]:
    """Fuse leading loops until there is enough parallel work (`threads_hint`
    iterations), mark it parallel."""
    if not loops:
        return []
    steps: list[Primitive] = []
    # A symbolic extent may be 1 at run time (a batch of one): it counts as 1 here,
    # so the static loops inside it are fused in for the threads' work.
    name, work = loops[0], _sure(extents[0])
    symbolic = isinstance(extents[0], Hinted)
    for nxt, e in zip(loops[1:], extents[1:], strict=False):
        if work >= threads_hint or isinstance(e, Hinted):
            break  # (fusing a symbolic loop in would divide by its size)
        steps.append(Fuse(name, nxt))
        name, work = fused_name(name, nxt), work * _sure(e)
        symbolic |= isinstance(e, Hinted)
    if work < 2 and not symbolic:  # (a symbolic loop may well have the work)
        return steps
    return [*steps, Annotate(ForKind.PARALLEL, name)]


def _parallel_tiles(
    outer: list[str], extents: list[int], grain: int = DEFAULT_GRAIN
) -> list[Primitive]:
    """The outer tile loops parallel (`parallel_outer`), and the accumulators
    cached inside the innermost of them (`cache_write`): at the fused loop when
    fusing took them all, else at the last one."""
    par = parallel_outer(outer, extents, grain)
    fused = sum(isinstance(p, Fuse) for p in par)
    at = fused_name(*outer) if fused + 1 == len(outer) else outer[-1]
    return [*par, CacheWrite(at)]


def _registers_check(target: Target, what: str, accumulators: int, operands: int) -> str | None:
    """Why `accumulators` vector accumulators and `operands` operand vectors do
    not fit in the target's vector registers (None: they fit). Knob defaults and
    spaces both ask it, so that a default is always in its space."""
    regs = target.vector_registers
    if accumulators + operands > regs:
        return (
            f"{what}: {accumulators} accumulators and {operands} operand vectors "
            f"exceed the target's {regs} vector registers"
        )
    return None


def _most_that_fit(target: Target, what: str, most: int, demand: Callable[[int], tuple[int, int]]) -> int:
    """The largest `n <= most` (at least 1) whose register `demand(n)`
    (accumulators, operands) fits the target's registers."""
    return next(
        (n for n in range(most, 0, -1) if _registers_check(target, what, *demand(n)) is None), 1
    )


def vector_widths(lanes: int, at_most: int, keep: int) -> tuple[int, ...]:
    """Vector tiles a tuner tries: half a register, one, two, three and four,
    up to `at_most` elements (besides `keep`, the default)."""
    half = max(1, lanes // 2)
    return choices(half, lanes, 2 * lanes, 3 * lanes, 4 * lanes, at_most=at_most, keep=(keep,))


@dataclass(frozen=True)
class _GemmGeometry:
    """The GEMM a `gemm` call tiles: the fusions it starts with, the row axis and
    the batch axes outside it, the row count, the (fused) column axis and its
    column count."""

    fusions: tuple[Primitive, ...]
    row: str
    batch: tuple[str, ...]
    batch_extents: tuple[int, ...]
    rows: int
    col: str
    ncol: int

    @staticmethod
    def of(extents: tuple[int, ...], row: int, cols: tuple[int, ...], fuse_batch: bool) -> _GemmGeometry:
        steps: list[Primitive] = []
        r = axis_name(row)
        batch = [axis_name(d) for d in range(row)]
        batch_extents = [extents[d] for d in range(row)]
        rows = extents[row]
        if fuse_batch and row > 0:
            r = axis_name(0)
            for d in range(1, row + 1):
                steps.append(Fuse(r, axis_name(d)))
                r = fused_name(r, axis_name(d))
            batch, batch_extents = [], []
            rows = 1
            for d in range(row + 1):
                rows *= extents[d]
            if any(isinstance(extents[d], Hinted) for d in range(row + 1)):
                rows = Hinted(rows)
        col = axis_name(cols[0])
        ncol = 1
        for c in cols:
            ncol *= extents[c]
        for c in cols[1:]:
            steps.append(Fuse(col, axis_name(c)))
            col = fused_name(col, axis_name(c))
        return _GemmGeometry(tuple(steps), r, tuple(batch), tuple(batch_extents), rows, col, ncol)


def _gemm_registers(mr: int, nr: int, lanes: int) -> tuple[int, int]:
    """A gemm tile's vector registers: `mr` x `nr` accumulators, and a row of
    `nr` of one operand plus a broadcast of the other."""
    vectors = -(-nr // lanes)
    return mr * vectors, vectors + 1


@dataclass(frozen=True)
class GemmKnobs(Knobs):
    """`gemm`'s knobs: a register tile of `mr` rows x `nr` columns (a whole
    number of vectors, each its own register, or less than one), the column
    tiles of a block (`col_block`: the row tiles loop between the blocks and
    the tiles of a block, so 1 streams the rows past each column panel and all
    of them each row panel past every column panel), the reduction in blocks
    of `kc` steps (0: not blocked; the blocks loop inside the outermost tile
    loop, so that a tile's panel of one block stays in cache while the inner
    tile loop streams the other operand's), the innermost reduce loop unrolled
    by `unroll_k` (1: not split) and the parallel granularity."""

    mr: int
    nr: int
    col_block: int
    kc: int
    unroll_k: int
    grain: int

    @staticmethod
    def default(
        target: Target, extents: tuple[int, ...], row: int, cols: tuple[int, ...],
        elem_bits: int = 32, nreduce: int = 1, reduce_size: int = 0, fuse_batch: bool = False,
        panel: int = 0,
    ) -> GemmKnobs:
        """8 rows x 2 vectors (12 x 1 when the columns fit one vector): 16 of
        the FMA chains in flight per reduce step for 10 loads, fewer rows where
        the target has fewer registers (6 x 2 with 16); each column panel
        streamed once past all the row tiles, unless A is the larger operand
        (as in a late conv layer: many channels, few pixels), then each row
        panel past all the column tiles."""
        g = _GemmGeometry.of(extents, row, cols, fuse_batch)
        lanes = target.lanes(elem_bits)
        nr = 2 * lanes if g.ncol > lanes else lanes
        if panel and nr % panel:  # (a vector must not straddle two panels)
            nr = -(-nr // panel) * panel
        vectors = -(-nr // lanes)
        most = min(8 if vectors >= 2 else 12, int(g.rows))
        mr = _most_that_fit(target, GEMM, most, lambda m: _gemm_registers(m, nr, lanes))
        # (a symbolic row count: the default order)
        rows_outer = bool(reduce_size) and _sure(g.rows) > g.ncol
        return GemmKnobs(int(mr), nr, -(-g.ncol // nr) if rows_outer else 1, 0, 1, DEFAULT_GRAIN)

    @staticmethod
    def space(
        target: Target, extents: tuple[int, ...], row: int, cols: tuple[int, ...],
        elem_bits: int = 32, nreduce: int = 1, reduce_size: int = 0, fuse_batch: bool = False,
        panel: int = 0,
    ) -> Space[GemmKnobs]:
        d = GemmKnobs.default(target, extents, row, cols, elem_bits, nreduce, reduce_size, fuse_batch, panel)
        g = _GemmGeometry.of(extents, row, cols, fuse_batch)
        lanes = target.lanes(elem_bits)
        rows = 16 if isinstance(g.rows, Hinted) else g.rows
        unrolls = [u for u in (1, 2, 4, 8) if reduce_size and reduce_size % u == 0] or [1]
        # (multiples of every unroll factor)
        k_blocks = [b for b in (64, 128, 256, 512, 1024) if b < reduce_size and reduce_size % b == 0]
        widths = vector_widths(lanes, -(-g.ncol // lanes) * lanes, d.nr)
        if panel:  # (a vector must not straddle two panels of a packed weight)
            widths = tuple(w for w in widths if w % panel == 0)
        blocks = {b for w in widths for b in _divisors(-(-g.ncol // w))}

        def why(k: GemmKnobs) -> str | None:
            tiles = -(-g.ncol // k.nr)
            if tiles % k.col_block:
                return f"{GEMM}: {k.col_block} column tiles per block do not divide the {tiles} tiles"
            return _registers_check(target, GEMM, *_gemm_registers(k.mr, k.nr, lanes))

        return Space(GemmKnobs, {
            "mr": choices(*range(1, 17), at_most=rows, keep=(d.mr,)),
            "nr": widths,
            "col_block": choices(*blocks, keep=(d.col_block,)),
            "kc": (0, *k_blocks),
            "unroll_k": tuple(unrolls),
            "grain": choices(*GRAINS, keep=(d.grain,)),
        }, why)


def _divisors(n: int) -> tuple[int, ...]:
    """The column-block sizes a tuner tries for `n` tiles: 1, the powers of two
    that divide `n`, and `n` itself."""
    return tuple(sorted({1, n, *(b for b in (2, 4, 8, 16) if n % b == 0)}))


def gemm(
    extents: tuple[int, ...],
    row: int,
    cols: tuple[int, ...],
    elem_bits: int = 32,
    nreduce: int = 1,
    reduce_size: int = 0,
    fuse_batch: bool = False,
    panel: int = 0,
    knobs: GemmKnobs | None = None,
) -> Schedule:
    """A register-tiled GEMM micro-kernel for a sum reduction over `r0` whose
    output axes are `batch..., row, cols...` (`cols` are fused into one column
    axis): MR rows x NR columns of accumulators, one register per vector of
    the host's lanes, for the whole reduction; column tiles in blocks of
    `col_block`, the row tiles looping between the blocks and their tiles.

    `fuse_batch` (for a right operand shared by every batch, as a 2-D weight)
    fuses the batch axes into the rows: one GEMM over all the rows, so a batch of
    one-row products (`[197, 1, 768] x [768, N]`) is tiled like `[197, 768] x
    [768, N]`. `reduce_size` is `r0`'s extent (0: unknown). `panel` is the
    column panel of a packed right operand (`relay.dense_pack`; 0: not packed):
    NR is then a multiple of it. `knobs` default to the host's
    (`GemmKnobs.default`)."""
    args = (extents, row, cols, elem_bits, nreduce, reduce_size, fuse_batch, panel)
    if knobs is None:
        log_call(TemplateCall(GEMM, gemm, GemmKnobs, args))
        knobs = GemmKnobs.default(current_target(), *args)
    g = _GemmGeometry.of(extents, row, cols, fuse_batch)
    r, col, mr, nr = g.row, g.col, knobs.mr, knobs.nr
    lanes = current_target().lanes(elem_bits)
    steps: list[Primitive] = [*g.fusions, Split(r, mr), Split(col, nr)]
    row_tiles = -(-g.rows // mr)
    col_tiles = -(-g.ncol // nr)
    rows_tile = (outer_name(r), Hinted(row_tiles) if isinstance(g.rows, Hinted) else row_tiles)
    block, col_tile = knobs.col_block, outer_name(col)
    if block <= 1:  # each column panel streamed past every row tile
        tiles = [(col_tile, col_tiles), rows_tile]
    elif block >= col_tiles:  # each row panel past every column panel
        tiles = [rows_tile, (col_tile, col_tiles)]
    else:
        steps.append(Split(col_tile, block))
        tiles = [(outer_name(col_tile), col_tiles // block), rows_tile, (inner_name(col_tile), block)]
    outer = [*g.batch, *(name for name, _ in tiles)]
    outer_extents = [*g.batch_extents, *(n for _, n in tiles)]
    reduce = [reduce_axis_name(d) for d in range(nreduce)]
    k_block: list[str] = []
    if knobs.kc:  # the K blocks inside the outermost tile loop
        k = reduce_axis_name(0)
        steps.append(Split(k, knobs.kc))
        k_block, reduce = [outer_name(k)], [inner_name(k), *reduce[1:]]
    unrolled_k: list[str] = []
    if knobs.unroll_k > 1:
        steps.append(Split(reduce[0], knobs.unroll_k))
        unrolled_k = [inner_name(reduce[0])]
        reduce = [outer_name(reduce[0]), *reduce[1:]]
    # One register per vector: a wider tile is split into vectors of the lanes.
    vector = inner_name(col)
    vectors = [vector]
    if nr > lanes:
        steps.append(Split(vector, lanes))
        vectors = [outer_name(vector), inner_name(vector)]
    split_at = len(g.batch) + 1 if k_block else len(outer)
    steps.append(Reorder((*outer[:split_at], *k_block, *outer[split_at:], *reduce, *unrolled_k, inner_name(r), *vectors)))
    if k_block:  # (the parallel loops outside the K blocks, the accumulators inside)
        steps += [*parallel_outer(outer[:split_at], outer_extents[:split_at], knobs.grain), CacheWrite(outer[-1])]
    else:
        steps += _parallel_tiles(outer, outer_extents, knobs.grain)
    steps += [Annotate(ForKind.UNROLLED, name) for name in (*unrolled_k, inner_name(r), *vectors[:-1])]
    steps.append(Annotate(ForKind.VECTORIZED, vectors[-1]))
    return Schedule(tuple(steps))


#: Rows of output vectors a window kernel accumulates at once: enough
#: independent FMAs to cover their latency on hosts with two FMA units.
WINDOW_ROWS = 8


def _row_tile(extent: int, most: int) -> int:
    """A tile of `extent`: its largest divisor up to `most` when that is at least
    half of `most` (no tail), else the most even split into tiles of at most
    `most` (a guarded tail of at most one point per tile: 17 columns are two
    tiles of 9, not 14 and a tail of 3 computed as 14)."""
    best = max(d for d in range(1, min(extent, most) + 1) if extent % d == 0)
    if best * 2 >= min(extent, most):
        return best
    return -(-extent // -(-extent // most))


@dataclass(frozen=True)
class WindowKnobs(Knobs):
    """`window`'s knobs: a tile of `rows` output rows (each a vector accumulator
    of `vector` columns) and the parallel granularity."""

    rows: int
    vector: int
    grain: int

    @staticmethod
    def default(
        target: Target, extents: tuple[int, ...], nreduce: int, elem_bits: int = 32, row: int = -2
    ) -> WindowKnobs:
        """Up to `WINDOW_ROWS` rows (a divisor when one is close), one vector."""
        rows, cols = extents[row], extents[-1]
        return WindowKnobs(int(_row_tile(rows, WINDOW_ROWS)), int(min(cols, target.lanes(elem_bits))), DEFAULT_GRAIN)

    @staticmethod
    def space(
        target: Target, extents: tuple[int, ...], nreduce: int, elem_bits: int = 32, row: int = -2
    ) -> Space[WindowKnobs]:
        d = WindowKnobs.default(target, extents, nreduce, elem_bits, row)
        lanes = target.lanes(elem_bits)
        rows, cols = extents[row], extents[-1]
        widths = {min(cols, w) for w in vector_widths(lanes, 4 * lanes, lanes) if w <= 2 * lanes}

        def why(k: WindowKnobs) -> str | None:
            vectors = -(-k.vector // lanes)
            return _registers_check(target, WINDOW, k.rows * vectors, vectors + 1)

        return Space(WindowKnobs, {
            "rows": choices(*range(1, 17), at_most=16 if isinstance(rows, Hinted) else rows, keep=(d.rows,)),
            "vector": choices(*widths, keep=(d.vector,)),
            "grain": choices(*GRAINS, keep=(d.grain,)),
        }, why)


def window(
    extents: tuple[int, ...], nreduce: int, elem_bits: int = 32, row: int = -2,
    knobs: WindowKnobs | None = None,
) -> Schedule:
    """A sliding-window reduction (a convolution or pooling of any rank; output
    axes `batch, channel, ..., col`): vector lanes along the output columns (the
    last axis), a tile of rows of axis `row` unrolled (the one before the
    columns by default: TVM's depthwise NCHW schedule; the output channels of a
    dense convolution, which then share each input vector), each row one
    vector accumulator that stays in a register across all the window's taps;
    every other output axis outside."""
    if knobs is None:
        log_call(TemplateCall(WINDOW, window, WindowKnobs, (extents, nreduce, elem_bits, row)))
        knobs = WindowKnobs.default(current_target(), extents, nreduce, elem_bits, row)
    rank = len(extents)
    row %= rank
    rows, cols = extents[row], extents[-1]
    r, c = axis_name(row), axis_name(rank - 1)
    mr, v = knobs.rows, knobs.vector
    steps: list[Primitive] = [Split(r, mr), Split(c, v)]
    others = [d for d in range(rank - 1) if d != row]
    outer = [*(axis_name(d) for d in others), outer_name(r), outer_name(c)]
    outer_extents = [*(extents[d] for d in others), -(-rows // mr), -(-cols // v)]
    reduce = [reduce_axis_name(d) for d in range(nreduce)]
    steps.append(Reorder((*outer, *reduce, inner_name(r), inner_name(c))))
    steps += _parallel_tiles(outer, outer_extents, knobs.grain)
    steps += [Annotate(ForKind.UNROLLED, inner_name(r))]
    steps.append(Annotate(ForKind.VECTORIZED, inner_name(c)))
    return Schedule(tuple(steps))


@dataclass(frozen=True)
class InjectiveKnobs(Knobs):
    """`injective`'s knobs: the last axis split into vectors of `vector` lanes
    (0: not vectorized) and the parallel granularity."""

    vector: int
    grain: int

    @staticmethod
    def default(target: Target, extents: tuple[int, ...], elem_bits: int = 32) -> InjectiveKnobs:
        """One register's lanes, when the last axis is that long."""
        lanes = target.lanes(elem_bits)
        return InjectiveKnobs(lanes if extents and extents[-1] >= lanes else 0, DEFAULT_GRAIN)

    @staticmethod
    def space(target: Target, extents: tuple[int, ...], elem_bits: int = 32) -> Space[InjectiveKnobs]:
        d = InjectiveKnobs.default(target, extents, elem_bits)
        last = extents[-1] if extents else 0
        return Space(InjectiveKnobs, {
            "vector": (0, *vector_widths(target.lanes(elem_bits), last, d.vector)) if d.vector else (0,),
            "grain": choices(*GRAINS, keep=(d.grain,)),
        })


def injective(
    extents: tuple[int, ...], elem_bits: int = 32, knobs: InjectiveKnobs | None = None
) -> Schedule:
    """Elementwise/injective stages: vector lanes along the last axis, the outer
    loops parallel when there is enough work."""
    if not extents or 0 in extents:
        return Schedule()
    if knobs is None:
        log_call(TemplateCall(INJECTIVE, injective, InjectiveKnobs, (extents, elem_bits)))
        knobs = InjectiveKnobs.default(current_target(), extents, elem_bits)
    names = [axis_name(d) for d in range(len(extents))]
    steps: list[Primitive] = []
    total = 1
    for e in extents:
        total *= e
    last = names[-1]
    outer_names, outer_extents = names[:-1], list(extents[:-1])
    if knobs.vector:
        steps += [Split(last, knobs.vector), Annotate(ForKind.VECTORIZED, inner_name(last))]
        outer_names.append(outer_name(last))
        outer_extents.append(-(-extents[-1] // knobs.vector))
    if total >= PARALLEL_WORK:
        steps += parallel_outer(outer_names, outer_extents, knobs.grain)
    return Schedule(tuple(steps))


#: The work (output elements, times reduce steps for a reduction) from which a
#: stage's outer loops run on threads.
PARALLEL_WORK = 4096


#: The size a symbolic dim is assumed to have when a template picks its tiles
#: (the schedule then holds for every size: non-dividing splits get guards).
SYMBOLIC_HINT = 64


class Hinted(int):
    """A symbolic extent's assumed size: tiles are picked for it, but the choice
    of parallel loops does not count on it (it may be 1)."""


def _sure(extent: int) -> int:
    """The work an extent surely has: 1 for a symbolic one."""
    return 1 if isinstance(extent, Hinted) else extent


def hinted(extents: Sequence[Dim]) -> tuple[int, ...]:
    """`extents` with every symbolic dim evaluated at `SYMBOLIC_HINT` (`Hinted`)."""
    return tuple(
        Hinted(e.evaluate(dict.fromkeys(e.names, SYMBOLIC_HINT))) if isinstance(e, Sym) else int(e)
        for e in extents
    )


#: Vector registers of partials a long row's reduction keeps: as many
#: independent chains of adds (or max, min) as it takes to hide their latency.
REDUCE_VECTORS = 4


@dataclass(frozen=True)
class ReductionKnobs(Knobs):
    """`reduction`'s knobs: the last reduce axis rfactored over `vector` lanes
    (0: not) and the parallel granularity."""

    vector: int
    grain: int

    @staticmethod
    def default(
        target: Target, extents: tuple[int, ...], reduce_extents: tuple[int, ...], elem_bits: int = 32,
        innermost: bool = True,
    ) -> ReductionKnobs:
        """`REDUCE_VECTORS` registers' lanes when the last reduce axis holds at
        least two such steps (a softmax or norm row), else one register's
        lanes when it is that long."""
        lanes = target.lanes(elem_bits)
        if not innermost:  # lanes along the last output axis: up to REDUCE_VECTORS registers
            cols = _sure(extents[-1]) if extents else 0
            whole = min(REDUCE_VECTORS, cols // lanes) if cols >= lanes else 0
            return ReductionKnobs(whole * lanes, DEFAULT_GRAIN)
        last = reduce_extents[-1] if reduce_extents else 0
        vector = (
            REDUCE_VECTORS * lanes if last >= 2 * REDUCE_VECTORS * lanes
            else lanes if last >= lanes else 0
        )
        return ReductionKnobs(vector, DEFAULT_GRAIN)

    @staticmethod
    def space(
        target: Target, extents: tuple[int, ...], reduce_extents: tuple[int, ...], elem_bits: int = 32,
        innermost: bool = True,
    ) -> Space[ReductionKnobs]:
        d = ReductionKnobs.default(target, extents, reduce_extents, elem_bits, innermost)
        last = reduce_extents[-1] if innermost and reduce_extents else (_sure(extents[-1]) if extents else 0)
        return Space(ReductionKnobs, {
            "vector": (0, *vector_widths(target.lanes(elem_bits), last, d.vector)) if d.vector else (0,),
            "grain": choices(*GRAINS, keep=(d.grain,)),
        })


def reduction_rows(extents: tuple[int, ...], reduce_extents: tuple[int, ...], knobs: ReductionKnobs) -> Schedule:
    """A reduction along an outer axis of its input: the last output axis split
    into `knobs.vector` lanes (several registers: independent accumulators),
    the reduce loops inside the vector loop, the outer loops parallel."""
    names = [axis_name(d) for d in range(len(extents))]
    if not knobs.vector or not names:
        return Schedule(tuple(parallel_outer(names, list(extents), knobs.grain)))
    last = names[-1]
    reduce = [reduce_axis_name(d) for d in range(len(reduce_extents))]
    outer = [*names[:-1], outer_name(last)]
    outer_extents = [*extents[:-1], -(-_sure(extents[-1]) // knobs.vector)]
    steps: list[Primitive] = [Split(last, knobs.vector), Reorder((*outer, *reduce, inner_name(last)))]
    steps += _parallel_tiles(outer, outer_extents, knobs.grain)
    steps.append(Annotate(ForKind.VECTORIZED, inner_name(last)))
    return Schedule(tuple(steps))


#: Outputs of an ordered reduction whose serial chains run interleaved.
ORDERED_ROWS = 8


def ordered_reduction(extents: tuple[int, ...], reduce_extents: tuple[int, ...]) -> Schedule:
    """A reduction whose every output adds its terms in index order (no lane
    partials): `ORDERED_ROWS` outputs of the innermost output axis that many
    divide (a softmax's rows) interleaved inside the reduce loops, their
    accumulators cached, so their serial chains overlap; outer loops parallel."""
    names = [axis_name(d) for d in range(len(extents))]
    threads = math.prod(_sure(e) for e in (*extents, *reduce_extents)) >= PARALLEL_WORK
    axis = next((d for d in reversed(range(len(extents))) if _sure(extents[d]) % ORDERED_ROWS == 0 and not isinstance(extents[d], Hinted)), None)
    if axis is None or not reduce_extents:
        return Schedule(tuple(parallel_outer(names, list(extents)) if threads else ()))
    rows, inner = outer_name(names[axis]), inner_name(names[axis])
    reduce = [reduce_axis_name(d) for d in range(len(reduce_extents))]
    outer = [*names[:axis], rows]
    steps: list[Primitive] = [Split(names[axis], ORDERED_ROWS), Reorder((*outer, *names[axis + 1 :], *reduce, inner))]
    split_extents = [*extents[:axis], extents[axis] // ORDERED_ROWS]
    tiles = _parallel_tiles(outer, split_extents) if threads else [CacheWrite(outer[-1])]
    return Schedule((*steps, *tiles, Annotate(ForKind.UNROLLED, inner)))


def reduction(
    extents: tuple[int, ...],
    reduce_extents: tuple[int, ...],
    elem_bits: int = 32,
    innermost: bool = True,
    knobs: ReductionKnobs | None = None,
) -> Schedule:
    """Reductions: the outer output loops parallel when there is enough work; a
    last reduce axis of at least a vector's lanes (a softmax or norm row) is
    rfactored over them: vector partials, combined at the end. A reduction
    along an outer axis of its input (not `innermost`) gets its lanes along
    the last output axis instead, the reduce loops inside the vector loop:
    each lane an output, its accumulator in a register (`reduction_rows`)."""
    if knobs is None:
        args = (extents, reduce_extents, elem_bits) + (() if innermost else (False,))
        log_call(TemplateCall(REDUCTION, reduction, ReductionKnobs, args))
        knobs = ReductionKnobs.default(current_target(), extents, reduce_extents, elem_bits, innermost)
    if not innermost:
        return reduction_rows(extents, reduce_extents, knobs)
    steps: list[Primitive] = []
    if knobs.vector:
        last = reduce_axis_name(len(reduce_extents) - 1)
        steps += [Split(last, knobs.vector), Annotate(ForKind.VECTORIZED, inner_name(last))]
    total = 1
    for e in (*extents, *reduce_extents):
        total *= e
    if total >= PARALLEL_WORK and extents:
        names = [axis_name(d) for d in range(len(extents))]
        steps = parallel_outer(names, list(extents), knobs.grain) + steps
    return Schedule(tuple(steps))


# ------------------------------------------------------------ per-op choices
def _bits(elem: Attribute) -> int:
    return max(getattr(elem, "bitwidth", 32) or 32, 8)


#: A convolution's default implementation: as it is (other implementations,
#: such as `conv2d-winograd`'s, rewrite it).
register_implementation(GENERIC_CPU, relay.Conv2DOp.name, DEFAULT_IMPLEMENTATION)


@register_schedule(GENERIC_CPU, tags.DENSE)
def schedule_dense(op: relay.RelayOp, out: TensorType, kdim: int) -> Schedule | None:
    """`gemm` for a dense whose `b` is not transposed (lanes along n read `b`
    contiguously; alter-op-layout makes it so), else none."""
    if op.attrs.transpose_b:
        return None
    return gemm(
        hinted(dims(out)), 0, (1,), _bits(out.get_element_type()), reduce_size=kdim
    )


@register_schedule(GENERIC_CPU, tags.DENSE_PACK)
def schedule_dense_pack(out: TensorType, kdim: int, panel: int) -> Schedule:
    """`gemm` over the last two output axes, the batch axes fused into the rows
    (the packed weight is shared by every batch), NR a multiple of the panel."""
    rank = out.get_num_dims()
    return gemm(
        hinted(dims(out)), rank - 2, (rank - 1,), _bits(out.get_element_type()),
        reduce_size=kdim, fuse_batch=True, panel=panel,
    )


@register_schedule(GENERIC_CPU, tags.MATMUL)
def schedule_matmul(
    out: TensorType, a_shape: Sequence[int], b_shape: Sequence[int]
) -> Schedule | None:
    """`gemm` over the last two output axes when neither operand is a vector."""
    if len(a_shape) < 2 or len(b_shape) < 2:
        return None
    rank = out.get_num_dims()
    return gemm(
        hinted(dims(out)),
        rank - 2,
        (rank - 1,),
        _bits(out.get_element_type()),
        reduce_size=hinted([a_shape[-1]])[0],
        # a 2-D right operand is shared by every batch: one GEMM over all rows
        fuse_batch=len(b_shape) == 2 and len(a_shape) == rank,
    )


@register_schedule(GENERIC_CPU, tags.CONV)
def schedule_conv(
    op: relay.ConvOp, out: TensorType, wshape: Sequence[int]
) -> Schedule | None:
    """`gemm` for a convolution that is a GEMM (`is_gemm_conv`), `window` for
    any other, of any rank."""
    if not is_gemm_conv(op, wshape, op.attrs.groups):
        # Rows of output channels share each input vector, unless the channels
        # are grouped (a depthwise one's rows are then output rows); a 2-D one
        # keeps the rows it had (they were tuned that way).
        row = 1 if op.attrs.groups == 1 and op.SPATIAL != 2 else -2
        return window(hinted(dims(out)), op.SPATIAL + 1, _bits(out.get_element_type()), row=row)
    return gemm(
        hinted(dims(out)),
        1,
        (2, 3),
        _bits(out.get_element_type()),
        nreduce=3,
        reduce_size=wshape[1],
    )


@register_schedule(GENERIC_CPU, tags.POOL)
def schedule_pool(out: TensorType, spatial: int) -> Schedule | None:
    """`window` for a pooling of any rank."""
    return window(hinted(dims(out)), spatial, _bits(out.get_element_type()))


@register_schedule(GENERIC_CPU, tags.ORDERED)
def _ordered(extents: Sequence[Dim], reduce_extents: Sequence[Dim]) -> Schedule:
    return ordered_reduction(hinted(extents), hinted(reduce_extents))


@register_schedule(GENERIC_CPU, tags.ORDERED_LANES)
def _ordered_lanes(extents: Sequence[Dim], reduce_extents: Sequence[Dim], lanes: int) -> Schedule:
    """`lanes` partial sums, each in index order, combined pairwise."""
    knobs = ReductionKnobs(lanes, DEFAULT_GRAIN)
    return reduction(hinted(extents), hinted(reduce_extents), 32, knobs=knobs)


def is_gemm_conv(op: relay.ConvOp, wshape: Sequence[int], groups: int) -> bool:
    """A 2-D 1x1 convolution with unit strides and no padding: a GEMM of the
    weight (out x in channels) and the input (in channels x pixels)."""
    win = relay.Window(op.name, op, op.SPATIAL)
    return (
        op.SPATIAL == 2
        and groups == 1
        and tuple(wshape[2:]) == (1, 1)
        and tuple(win.strides) == (1, 1)
        and not any(win.pad_begin + win.pad_end)
    )


__all__ = [
    "GEMM",
    "INJECTIVE",
    "PARALLEL_WORK",
    "REDUCTION",
    "WINDOW",
    "GemmKnobs",
    "InjectiveKnobs",
    "ReductionKnobs",
    "WindowKnobs",
    "gemm",
    "injective",
    "is_gemm_conv",
    "reduction",
    "schedule_conv",
    "schedule_dense",
    "schedule_dense_pack",
    "schedule_matmul",
    "schedule_pool",
    "window",
]
