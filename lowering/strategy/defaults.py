"""The generated default schedules: the template of a compute that carries
none, chosen from what it reads (Ansor's sketch rules, on a small scale).

- An injective compute gets `injective` (vector lanes along the last axis),
  or `transpose` when it transposes: when some read, followed through the
  computes of its kernel, moves along its input's innermost axis with another
  output axis, and along an outer axis with the last one.
- A reduction gets `reduction`: its lanes on the reduce axis when that runs
  along its inputs' innermost axis (a softmax or norm row), else on the last
  output axis (`reduction_rows`: a sum over tokens or channels).

`default_call` names the template call (the tuner's search space is its
knobs'); `default_for` renders its default knobs (`lower-te-to-tir`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from xdsl.ir import OpResult, SSAValue

from lamina.dialects import te
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
)
from lamina.lowering.strategy import tags
from lamina.lowering.strategy.cpu import (
    INJECTIVE,
    PARALLEL_WORK,
    REDUCTION,
    Hinted,
    InjectiveKnobs,
    ReductionKnobs,
    hinted,
    injective,
    parallel_outer,
    reduction,
    vector_widths,
)
from lamina.lowering.strategy.dispatch import TemplateCall, log_call
from lamina.lowering.strategy.knobs import DEFAULT_GRAIN, GRAINS, Knobs, Space, choices
from lamina.lowering.strategy.registry import GENERIC_CPU, register_schedule
from lamina.passes import current_target
from lamina.target import Target

# The template's name (a `TemplateCall`'s, and a tuning record's `template`).
TRANSPOSE = "transpose"


@dataclass(frozen=True)
class TransposeKnobs(Knobs):
    """`transpose`'s knobs: a tile of `tile` steps of the axis that reads the
    input's innermost axis by `vector` lanes of the last axis, and the parallel
    granularity."""

    tile: int
    vector: int
    grain: int

    @staticmethod
    def default(target: Target, extents: tuple[int, ...], across: int, elem_bits: int = 32) -> TransposeKnobs:
        """A square of one register's lanes (fewer steps when the axis is
        shorter): each lane's cache line (read at a stride) serves the tile's
        steps while it is in L1."""
        lanes = target.lanes(elem_bits)
        e = extents[across]
        tile = lanes if isinstance(e, Hinted) or e >= lanes else max(e, 1)
        return TransposeKnobs(tile, lanes if extents[-1] >= lanes else 0, DEFAULT_GRAIN)

    @staticmethod
    def space(target: Target, extents: tuple[int, ...], across: int, elem_bits: int = 32) -> Space[TransposeKnobs]:
        d = TransposeKnobs.default(target, extents, across, elem_bits)
        lanes = target.lanes(elem_bits)
        return Space(TransposeKnobs, {
            "tile": choices(4, 8, lanes, 2 * lanes, keep=(d.tile,)),
            "vector": (0, *vector_widths(lanes, extents[-1], d.vector)) if d.vector else (0,),
            "grain": choices(*GRAINS, keep=(d.grain,)),
        })


def transpose(
    extents: tuple[int, ...], across: int, elem_bits: int = 32, knobs: TransposeKnobs | None = None
) -> Schedule:
    """An injective stage that transposes: its last axis reads the input at a
    stride, and axis `across` reads the input's innermost axis. Vector lanes
    along the last axis, as `injective`, but in tiles of `tile` steps of
    `across`: the lanes' cache lines, each read at a stride, are reused by the
    tile's steps while they are in L1, where an untiled loop reads each of
    them once per row of the output (from memory, a new page every few lanes,
    when the rows are long)."""
    if 0 in extents:
        return Schedule()
    if knobs is None:
        log_call(TemplateCall(TRANSPOSE, transpose, TransposeKnobs, (extents, across, elem_bits)))
        knobs = TransposeKnobs.default(current_target(), extents, across, elem_bits)
    rank = len(extents)
    a, last = axis_name(across), axis_name(rank - 1)
    steps: list[Primitive] = [Split(a, knobs.tile)]
    middle = [axis_name(d) for d in range(across + 1, rank - 1)]
    order = [*(axis_name(d) for d in range(across)), outer_name(a), *middle]
    order_extents = [*extents[:across], -(-extents[across] // knobs.tile), *extents[across + 1 : rank - 1]]
    if knobs.vector:
        steps.append(Split(last, knobs.vector))
        order.append(outer_name(last))
        order_extents.append(-(-extents[-1] // knobs.vector))
        inner = [inner_name(a), inner_name(last)]
    else:
        inner = [inner_name(a), last]
    steps.append(Reorder((*order, *inner)))
    if math.prod(extents) >= PARALLEL_WORK:
        steps += parallel_outer(order, order_extents, knobs.grain)
    if knobs.vector:
        steps.append(Annotate(ForKind.VECTORIZED, inner_name(last)))
    return Schedule(tuple(steps))


def transposed_axis(op: te.ComputeOp) -> int | None:
    """The output axis (not the last) along which an injective compute reads
    some input's innermost axis, while that read moves along another of its
    axes with the output's last axis: a transpose (`[B, S, C] -> [B, C, S]`,
    `NCHW16c -> NCHW`), also through the computes of its kernel that it reads
    (a transpose, then a reshape and a resize). None when no read does so."""
    rank = len(op.axes)
    if rank < 2:
        return None
    env = {axis: frozenset([d]) for d, axis in enumerate(op.axes)}
    for inner, other in _leaf_reads(op, env, 0):
        if rank - 1 not in inner and rank - 1 in other and inner:
            return max(inner)
    return None


#: The axes (by their labels in an environment) each index value depends on.
_Axes = dict[SSAValue, frozenset[int]]


def _axes_of(v: SSAValue, env: _Axes, memo: _Axes) -> frozenset[int]:
    """The labels of the axes (`env`: block arguments to labels) that index `v`
    is computed from; `memo` keeps the values already seen."""
    out = env.get(v)
    if out is None:
        out = memo.get(v)
    if out is None:
        out = memo[v] = (
            frozenset().union(*(_axes_of(u, env, memo) for u in v.op.operands))
            if isinstance(v, OpResult) else frozenset()
        )
    return out


def _leaf_reads(op: te.ComputeOp, env: _Axes, depth: int) -> Iterator[tuple[frozenset[int], frozenset[int]]]:
    """Each read of a tensor that no injective compute produces, reached from
    `op` through the injective computes it reads: the output axes (of the
    compute first asked) its innermost index depends on, and those its other
    indices do. `env`: each of `op`'s axes' output axes."""
    memo: _Axes = {}
    for r in op.body.block.ops:
        if not isinstance(r, te.ReadOp) or not r.indices:
            continue
        index = [_axes_of(v, env, memo) for v in r.indices]
        producer = r.tensor.owner
        if isinstance(producer, te.ComputeOp) and producer.reduce is None and depth < 8:
            yield from _leaf_reads(producer, dict(zip(producer.axes, index, strict=True)), depth + 1)
        elif len(index) >= 2:
            yield index[-1], frozenset().union(*index[:-1])


def default_call(op: te.ComputeOp) -> TemplateCall[Any]:
    """The template call that schedules a compute carrying no schedule: by its
    class, `injective` (`transpose` when it transposes) or `reduction` (told
    whether the reduction runs along its inputs' innermost axis)."""
    elem = op.result.type.get_element_type()  # type: ignore[union-attr]
    bits = max(getattr(elem, "bitwidth", 32) or 32, 8)
    if op.reduce is None:
        across = transposed_axis(op)
        if across is not None:
            return TemplateCall(TRANSPOSE, transpose, TransposeKnobs, (hinted(op.extents), across, bits))
        return TemplateCall(INJECTIVE, injective, InjectiveKnobs, (hinted(op.extents), bits))
    args: tuple[Any, ...] = (hinted(op.extents), hinted(op.reduce_shape), bits)
    if not reduces_innermost(op):
        args = (*args, False)
    return TemplateCall(REDUCTION, reduction, ReductionKnobs, args)


def reduces_innermost(op: te.ComputeOp) -> bool:
    """Whether a reduction's last reduce axis indexes the innermost axis of what
    it reads (a softmax or norm row), or it reads nothing along an output
    axis there. A sum over a middle axis (`[B, S, D] -> [B, D]`) reads its
    input's rows along the last output axis instead: lanes belong there."""
    if not op.reduce_axes or not op.axes:
        return True
    last_out, last_reduce = len(op.axes) - 1, len(op.axes) + len(op.reduce_axes) - 1
    env = {axis: frozenset([d]) for d, axis in enumerate((*op.axes, *op.reduce_axes))}
    memo: _Axes = {}
    inner = [_axes_of(r.indices[-1], env, memo) for r in op.body.block.ops if isinstance(r, te.ReadOp) and r.indices]
    if not inner:
        return True
    return any(last_reduce in axes for axes in inner) or not any(last_out in axes for axes in inner)


def default_for(op: te.ComputeOp) -> Schedule:
    """The schedule of a compute that carries none: by its class."""
    return default_call(op).render()


register_schedule(GENERIC_CPU, tags.DEFAULT)(default_for)

__all__ = [
    "TRANSPOSE",
    "TransposeKnobs",
    "default_call",
    "default_for",
    "reduces_innermost",
    "transpose",
    "transposed_axis",
]
