"""The CPU strategy: which schedule each compute gets on a CPU host (TVM's
`relay/op/strategy/x86.py` with the `topi.x86` schedule templates).

The schedule templates, all sized from the host's vector width
(`lamina.host.cpu().lanes(bits)`):

- `gemm`: a register-tiled micro-kernel for sum reductions shaped like a matrix
  product (dense, batched matmul, 1x1 convolution);
- `injective`: elementwise stages, vector lanes along the last axis and the
  outer loops parallel;
- `reduction`: other reductions, the outer output loops parallel.

The compute library (`lamina.lowering.topi`) asks the `schedule_<op>` pickers
for the schedule of a product's compute and attaches it (`topi.scheduled`);
`default_for` gives every compute that carries none the template of its class
(`lower-te-to-tir` calls it). The schedule language itself is
`lamina.lowering.schedule`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from lamina import host
from lamina.dialects import relay, te
from lamina.dialects.shapes import dims
from lamina.dialects.tir import ForKind
from lamina.lowering.schedule import (
    Annotate,
    CacheWrite,
    Fuse,
    Primitive,
    Reorder,
    Schedule,
    Split,
)
from lamina.symbolic import Dim, Sym


# ----------------------------------------------------------------- templates
def _parallel_outer(loops: list[str], extents: list[int], threads_hint: int = 16) -> list[Primitive]:
    """Fuse leading loops until there is enough parallel work, mark it parallel."""
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
        name, work = f"{name}.{nxt}", work * _sure(e)
        symbolic |= isinstance(e, Hinted)
    if work < 2 and not symbolic:  # (a symbolic loop may well have the work)
        return steps
    return [*steps, Annotate(ForKind.PARALLEL, name)]


def _parallel_tiles(outer: list[str], extents: list[int]) -> list[Primitive]:
    """The outer tile loops parallel (`_parallel_outer`), and the accumulators
    cached inside the innermost of them (`cache_write`): at the fused loop when
    fusing took them all, else at the last one."""
    par = _parallel_outer(outer, extents)
    fused = sum(isinstance(p, Fuse) for p in par)
    at = ".".join(outer) if fused + 1 == len(outer) else outer[-1]
    return [*par, CacheWrite(at)]


def gemm(
    extents: tuple[int, ...],
    row: int,
    cols: tuple[int, ...],
    elem_bits: int = 32,
    nreduce: int = 1,
    reduce_size: int = 0,
    fuse_batch: bool = False,
) -> Schedule:
    """A register-tiled GEMM micro-kernel for a sum reduction over `r0` whose
    output axes are `batch..., row, cols...` (`cols` are fused into one vector
    axis): MR rows x NR lanes of accumulators, B panels reused across row tiles.

    `fuse_batch` (for a right operand shared by every batch, as a 2-D weight)
    fuses the batch axes into the rows: one GEMM over all the rows, so a batch of
    one-row products (`[197, 1, 768] x [768, N]`) is tiled like `[197, 768] x
    [768, N]`."""
    lanes = host.cpu().lanes(elem_bits)
    steps: list[Primitive] = []
    r = f"i{row}"
    batch = [f"i{d}" for d in range(row)]
    batch_extents = [extents[d] for d in range(row)]
    rows = extents[row]
    if fuse_batch and row > 0:
        r = "i0"
        for d in range(1, row + 1):
            steps.append(Fuse(r, f"i{d}"))
            r = f"{r}.i{d}"
        batch, batch_extents = [], []
        rows = 1
        for d in range(row + 1):
            rows *= extents[d]
        if any(isinstance(extents[d], Hinted) for d in range(row + 1)):
            rows = Hinted(rows)
    col = f"i{cols[0]}"
    ncol = 1
    for c in cols:
        ncol *= extents[c]
    for c in cols[1:]:
        steps.append(Fuse(col, f"i{c}"))
        col = f"{col}.i{c}"
    nr = 2 * lanes if ncol > lanes else lanes
    mr = min(6 if nr == 2 * lanes else 12, rows)
    steps += [Split(r, mr), Split(col, nr)]
    # The larger operand is streamed once: by default each B panel (reduce x NR)
    # is reused across the row tiles; when A (rows x reduce) is the larger, as in
    # a late conv layer (many channels, few pixels), each row panel of A is
    # reused across the column tiles instead.
    row_tiles = -(-rows // mr)
    tiles = [
        (f"{col}.o", -(-ncol // nr)),
        (f"{r}.o", Hinted(row_tiles) if isinstance(rows, Hinted) else row_tiles),
    ]
    if reduce_size and _sure(rows) > ncol:  # (a symbolic row count: the default)
        tiles.reverse()
    outer = [*batch, *(name for name, _ in tiles)]
    reduce = [f"r{d}" for d in range(nreduce)]
    steps.append(Reorder((*outer, *reduce, f"{r}.i", f"{col}.i")))
    outer_extents = batch_extents + [n for _, n in tiles]
    steps += _parallel_tiles(outer, outer_extents)
    steps += [Annotate(ForKind.UNROLLED, f"{r}.i")]
    steps.append(Annotate(ForKind.VECTORIZED, f"{col}.i"))
    return Schedule(tuple(steps))


#: Rows of output vectors a window kernel accumulates at once: enough
#: independent FMAs to cover their latency on hosts with two FMA units.
WINDOW_ROWS = 8


def _row_tile(extent: int, most: int) -> int:
    """A tile of `extent`: its largest divisor up to `most` when that is at least
    half of `most` (no tail), else `most` (a guarded tail)."""
    best = max(d for d in range(1, min(extent, most) + 1) if extent % d == 0)
    return best if best * 2 >= min(extent, most) else min(extent, most)


def window(extents: tuple[int, ...], nreduce: int, elem_bits: int = 32) -> Schedule:
    """A sliding-window reduction (a grouped or depthwise convolution; output axes
    `batch, channel, ..., row, col`): vector lanes along the output columns, a
    tile of rows unrolled, each row one vector accumulator that stays in a
    register across all the window's taps (TVM's depthwise NCHW schedule)."""
    lanes = host.cpu().lanes(elem_bits)
    rank = len(extents)
    rows, cols = extents[-2], extents[-1]
    r, c = f"i{rank - 2}", f"i{rank - 1}"
    v = min(cols, lanes)
    mr = _row_tile(rows, WINDOW_ROWS)
    steps: list[Primitive] = [Split(r, mr), Split(c, v)]
    outer = [*(f"i{d}" for d in range(rank - 2)), f"{r}.o", f"{c}.o"]
    outer_extents = [*extents[:-2], -(-rows // mr), -(-cols // v)]
    reduce = [f"r{d}" for d in range(nreduce)]
    steps.append(Reorder((*outer, *reduce, f"{r}.i", f"{c}.i")))
    steps += _parallel_tiles(outer, outer_extents)
    steps += [Annotate(ForKind.UNROLLED, f"{r}.i")]
    steps.append(Annotate(ForKind.VECTORIZED, f"{c}.i"))
    return Schedule(tuple(steps))


#: Output columns of a blocked-layout convolution's register tile: one vector
#: accumulator each (of the host's 32 or 16 vector registers, most stay free).
NCHWC_COLS = 14


def conv_nchwc(extents: tuple[int, ...], elem_bits: int = 32) -> Schedule:
    """A direct convolution in a blocked channel layout (output axes `n, oc/ob,
    oh, ow, ob`, reduce axes `ic/cb, kh, kw, cb`; TVM's `conv2d_NCHWc`): the output
    channel block in vector lanes, a tile of output columns unrolled, each one
    vector accumulator kept in a register across the whole reduction; per
    reduction step, one weight vector and a broadcast input element per column."""
    n, blocks, rows, cols, _ = extents
    ct = _row_tile(cols, NCHWC_COLS)
    outer = ["i0", "i1", "i2", "i3.o"]
    outer_extents = [n, blocks, rows, -(-cols // ct)]
    steps: list[Primitive] = [Split("i3", ct), Reorder((*outer, "r0", "r1", "r2", "r3", "i3.i", "i4"))]
    steps += _parallel_tiles(outer, outer_extents)
    steps += [Annotate(ForKind.UNROLLED, "i3.i"), Annotate(ForKind.VECTORIZED, "i4")]
    return Schedule(tuple(steps))


def injective(extents: tuple[int, ...], elem_bits: int = 32) -> Schedule:
    """Elementwise/injective stages: vector lanes along the last axis, the outer
    loops parallel when there is enough work."""
    if not extents or 0 in extents:
        return Schedule()
    lanes = host.cpu().lanes(elem_bits)
    names = [f"i{d}" for d in range(len(extents))]
    steps: list[Primitive] = []
    total = 1
    for e in extents:
        total *= e
    last = names[-1]
    outer_names, outer_extents = names[:-1], list(extents[:-1])
    if extents[-1] >= lanes:
        steps += [Split(last, lanes), Annotate(ForKind.VECTORIZED, f"{last}.i")]
        outer_names.append(f"{last}.o")
        outer_extents.append(-(-extents[-1] // lanes))
    if total >= 4096:
        steps += _parallel_outer(outer_names, outer_extents)
    return Schedule(tuple(steps))


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


def default_for(op: te.ComputeOp) -> Schedule:
    """The schedule of a compute that carries none: by its class."""
    elem = op.result.type.get_element_type()  # type: ignore[union-attr]
    bits = getattr(elem, "bitwidth", 32) or 32
    if op.reduce is None:
        return injective(hinted(op.extents), max(bits, 8))
    return reduction(hinted(op.extents), hinted(op.reduce_shape), max(bits, 8))


def reduction(
    extents: tuple[int, ...], reduce_extents: tuple[int, ...], elem_bits: int = 32
) -> Schedule:
    """Reductions: the outer output loops parallel when there is enough work; a
    last reduce axis of at least a vector's lanes (a softmax or norm row) is
    rfactored over them: vector partials, combined at the end."""
    steps: list[Primitive] = []
    lanes = host.cpu().lanes(elem_bits)
    if reduce_extents and reduce_extents[-1] >= lanes:
        last = f"r{len(reduce_extents) - 1}"
        steps += [Split(last, lanes), Annotate(ForKind.VECTORIZED, f"{last}.i")]
    total = 1
    for e in (*extents, *reduce_extents):
        total *= e
    if total >= 4096 and extents:
        names = [f"i{d}" for d in range(len(extents))]
        steps = _parallel_outer(names, list(extents)) + steps
    return Schedule(tuple(steps))


# ------------------------------------------------------------ per-op choices
def _bits(elem: Attribute) -> int:
    return max(getattr(elem, "bitwidth", 32) or 32, 8)


def schedule_dense(op: relay.RelayOp, out: TensorType, kdim: int) -> Schedule | None:
    """`gemm` for a dense whose `b` is not transposed (lanes along n read `b`
    contiguously; alter-op-layout makes it so), else none."""
    if relay.flag_prop(op, "transpose_b"):
        return None
    return gemm(
        hinted(dims(out)), 0, (1,), _bits(out.get_element_type()), reduce_size=kdim
    )


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


def schedule_conv(
    op: relay.ConvOp, out: TensorType, wshape: Sequence[int]
) -> Schedule | None:
    """`gemm` for a convolution that is a GEMM (`is_gemm_conv`), `window` for
    another 2-D one, else none."""
    if not is_gemm_conv(op, wshape, relay.int_prop(op, "groups", 1)):
        if op.SPATIAL != 2:
            return None
        return window(hinted(dims(out)), 3, _bits(out.get_element_type()))
    return gemm(
        hinted(dims(out)),
        1,
        (2, 3),
        _bits(out.get_element_type()),
        nreduce=3,
        reduce_size=wshape[1],
    )


def schedule_pool(out: TensorType, spatial: int) -> Schedule | None:
    """`window` for a 2-D pooling, else none."""
    if spatial != 2:
        return None
    return window(hinted(dims(out)), spatial, _bits(out.get_element_type()))


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
    "NCHWC_COLS",
    "conv_nchwc",
    "default_for",
    "gemm",
    "injective",
    "is_gemm_conv",
    "reduction",
    "schedule_conv",
    "schedule_dense",
    "schedule_matmul",
    "schedule_pool",
    "window",
]
