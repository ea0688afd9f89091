"""Features of a candidate for the cost model: its template, its knobs and the
loop nest its schedule makes of the anchor compute (Ansor's loop-nest
features, reduced to what lamina's templates vary): sizes, the vector and
unrolled loops, the register tile, the parallel loop, tails and their waste."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from lamina import host
from lamina.dialects.tir import ForKind
from lamina.lowering.schedule import LoopNest
from lamina.lowering.strategy.knobs import Knobs
from lamina.tuning.tasks import Task

TEMPLATES = ("gemm", "window", "conv_nchwc", "injective", "reduction")
#: Knob slots (templates have up to this many knobs).
KNOB_SLOTS = 6
NAMES = (
    *(f"template={t}" for t in TEMPLATES),
    "log2 work", "log2 output points", "log2 reduce points", "log2 flops", "loops",
    "vector lanes / host lanes", "vector loop reduces", "log2 unrolled points",
    "register tile / registers", "log2 parallel iterations", "log2 work per parallel iteration",
    "guards", "tail waste", "cache_write", "log2 innermost serial loop", "first reduce loop depth",
    *(f"knob {i}" for i in range(KNOB_SLOTS)),
)


def _log2(x: float) -> float:
    return math.log2(max(float(x), 1.0))


def features(task: Task, knobs: Knobs) -> np.ndarray:
    """The feature vector of `task` under `knobs` (`NAMES` says what each is)."""
    extents, reduce = task.extents, task.reduce_extents
    nest = LoopNest.of(extents, reduce).apply(task.schedule(knobs))
    loops = nest.loops
    out_points = math.prod(extents)
    red_points = math.prod(reduce)
    work = out_points * red_points
    lanes = host.cpu().lanes(task.elem_bits)
    vec = loops[-1] if loops and loops[-1].kind == ForKind.VECTORIZED else None
    unrolled = math.prod(int(lp.var.extent) for lp in loops if lp.kind == ForKind.UNROLLED)
    vectors = -(-int(vec.var.extent) // lanes) if vec is not None else 1
    tile = unrolled * vectors if nest.cache_at is not None else 0
    par = next((lp for lp in loops if lp.kind == ForKind.PARALLEL), None)
    par_iters = int(par.var.extent) if par is not None else 1
    iterations = math.prod(int(lp.var.extent) for lp in loops)
    serial = [lp for lp in loops if lp.kind == ForKind.SERIAL]
    first_reduce = next((i for i, lp in enumerate(loops) if lp.reduce), len(loops))
    values = [float(v) for v in dataclasses.astuple(knobs)][:KNOB_SLOTS]
    row = [
        *(1.0 if task.template == t else 0.0 for t in TEMPLATES),
        _log2(work), _log2(out_points), _log2(red_points), _log2(task.flops), float(len(loops)),
        (int(vec.var.extent) / lanes) if vec is not None else 0.0,
        1.0 if vec is not None and vec.reduce else 0.0,
        _log2(unrolled),
        tile / host.cpu().vector_registers,
        _log2(par_iters), _log2(work / par_iters),
        float(len(nest.guards)),
        iterations / max(work, 1),
        1.0 if nest.cache_at is not None else 0.0,
        _log2(int(serial[-1].var.extent)) if serial else 0.0,
        first_reduce / max(len(loops), 1),
        *(_log2(1 + v) for v in values),
        *([0.0] * (KNOB_SLOTS - len(values))),
    ]
    return np.asarray(row, dtype=np.float32)


__all__ = ["KNOB_SLOTS", "NAMES", "TEMPLATES", "features"]
