"""Features of a candidate for the cost model: the loop nest its schedule makes
of the anchor compute and how that nest reads memory (Ansor's loop-nest
features, reduced to what lamina's templates vary).

- **The nest**: sizes, the vector loop and its width, unrolled points, the
  register tile (accumulators against the host's vector registers), the
  parallel loop (its iterations and their work), tails (guards, wasted
  iterations), K blocks, the innermost serial loop.
- **Each read** (the anchor's three largest buffers): its index as a linear
  expression of the loop variables (`lamina.lowering.lang.index.Lin`), flattened
  row-major; from it the element stride along the vector lane (0: a
  broadcast, 1: contiguous, more: a gather) and along the innermost reduce
  loop, the reuse of each element across the register tile, the distinct
  elements the tile reads per reduce step, the footprint of the whole tile's
  reduction against the caches, and whether the loop around the tile walks
  the buffer or reuses it.
- **The micro-kernel**: multiply-adds per element loaded per reduce step
  (arithmetic intensity), bytes loaded per step, the tile's footprint.
- **The knobs** themselves.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from lamina.dialects import te
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.tir import ForKind
from lamina.lowering.lang.index import Lin, Var
from lamina.lowering.lang.schedule import Loop, LoopNest, axis_name, reduce_axis_name
from lamina.lowering.strategy.conv_nchwc import CONV_NCHWC
from lamina.lowering.strategy.cpu import GEMM, INJECTIVE, REDUCTION, WINDOW
from lamina.lowering.strategy.knobs import Knobs
from lamina.lowering.strategy.window_nchwc import WINDOW_NCHWC
from lamina.lowering.strategy.winograd import WINOGRAD_INPUT, WINOGRAD_OUTPUT
from lamina.passes import current_target
from lamina.tuning.tasks import Task

#: The templates named in the one-hot encoding (any other counts as `other`).
TEMPLATES = (
    GEMM, WINDOW, WINDOW_NCHWC, CONV_NCHWC, WINOGRAD_INPUT, WINOGRAD_OUTPUT, INJECTIVE, REDUCTION,
)
#: Knob slots (templates have up to this many knobs).
KNOB_SLOTS = 6
#: Reads described (the anchor's largest buffers first).
READS = 3
#: The cache sizes footprints are compared with (bytes): a core's L1 data
#: cache and L2 on current x86 hosts.
L1, L2 = 32 * 1024, 1024 * 1024

_READ_NAMES = (
    "log2 buffer bytes", "lane stride", "lane irregular", "reduce stride", "log2 tile reuse",
    "log2 elements per step", "log2 tile footprint / L1", "walks along the tile loop",
)
NAMES = (
    *(f"template={t}" for t in (*TEMPLATES, "other")),
    "log2 flops", "log2 output points", "log2 reduce points", "loops",
    "vector lanes / host lanes", "vector loop reduces", "log2 unrolled points",
    "accumulators / registers", "registers in use / registers",
    "log2 parallel iterations", "log2 work per parallel iteration",
    "guards", "tail waste", "cache_write", "log2 K blocks", "log2 innermost serial loop",
    "first reduce loop depth", "log2 multiply-adds per element loaded", "log2 bytes per reduce step",
    "log2 tile footprint / L1", "log2 tile footprint / L2",
    *(f"read {r}: {n}" for r in range(READS) for n in _READ_NAMES),
    *(f"knob {i}" for i in range(KNOB_SLOTS)),
)


def _log2(x: float) -> float:
    return math.log2(max(float(x), 1.0))


# ------------------------------------------------------------ index algebra
Index = Callable[[dict[SSAValue, Lin]], Lin | None]


@dataclass(frozen=True)
class _Read:
    """A read of the anchor's body: the buffer's shape and element bytes, and
    its indices as functions of the body's axes."""

    shape: tuple[int, ...]
    itemsize: int
    indices: tuple[SSAValue, ...]

    @property
    def bytes(self) -> int:
        return math.prod(self.shape) * self.itemsize


def _lin(v: SSAValue, env: dict[SSAValue, Lin]) -> Lin | None:
    """`v` (index arithmetic over the body's axes) as a `Lin`, None when it is
    not affine enough to say (a value read from memory, a select)."""
    if v in env:
        return env[v]
    op = v.owner
    if isinstance(op, arith.ConstantOp):
        value = getattr(op.value, "value", None)
        return Lin.of(value.data) if value is not None and isinstance(value.data, int) else None
    if isinstance(op, arith.IndexCastOp):
        return _lin(op.input, env)
    if not isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp | arith.DivUIOp | arith.DivSIOp
                      | arith.FloorDivSIOp | arith.RemUIOp | arith.RemSIOp | arith.MinSIOp | arith.MaxSIOp):
        return None
    a, b = (_lin(x, env) for x in op.operands)
    if a is None or b is None:
        return None
    if isinstance(op, arith.AddiOp):
        return a + b
    if isinstance(op, arith.SubiOp):
        return a - b
    if isinstance(op, arith.MuliOp):
        return a * b.const if b.is_const else b * a.const if a.is_const else None
    if not b.is_const or b.const <= 0:
        return None
    if isinstance(op, arith.DivUIOp | arith.DivSIOp | arith.FloorDivSIOp):
        return a.floordiv(b.const)
    if isinstance(op, arith.RemUIOp | arith.RemSIOp):
        return a.mod(b.const)
    return a.clamp(None, b.const) if isinstance(op, arith.MinSIOp) else a.clamp(b.const, None)


_ANCHORS: dict[tuple[str, int], tuple[te.ComputeOp, tuple[_Read, ...]]] = {}


def _anchor(task: Task) -> tuple[te.ComputeOp, tuple[_Read, ...]]:
    """The task's anchor compute and its reads, largest buffer first (kept
    per workload and site)."""
    key = (task.workload, task.site)
    if key in _ANCHORS:
        return _ANCHORS[key]
    computes = [op for op in task.module.walk() if isinstance(op, te.ComputeOp)]
    anchor = computes[task.site]
    reads = []
    for op in anchor.body.block.ops:
        if isinstance(op, te.ReadOp) and isinstance(op.tensor.type, TensorType):
            t = op.tensor.type
            size = numpy_dtype(t.get_element_type()).itemsize
            reads.append(_Read(tuple(int(d) for d in t.get_shape()), size, tuple(op.indices)))
    reads.sort(key=lambda r: -r.bytes)
    _ANCHORS[key] = anchor, tuple(reads)
    return _ANCHORS[key]


def _flat(read: _Read, env: dict[SSAValue, Lin]) -> Lin | None:
    """The read's row-major element offset as a `Lin` of the loop variables."""
    flat, stride = Lin(), 1
    for v, n in zip(reversed(read.indices), reversed(read.shape), strict=True):
        x = _lin(v, env)
        if x is None:
            return None
        flat, stride = flat + x * stride, stride * n
    return flat


def _stride(flat: Lin | None, var: Var | None) -> tuple[float, float]:
    """(|stride| in elements, 1 when `var` enters the offset other than
    linearly) of the offset along `var`."""
    if var is None or flat is None:
        return 0.0, 1.0 if flat is None else 0.0
    if not flat.linear_in(var):
        return 0.0, 1.0
    return float(abs(flat.coeff(var))), 0.0


def _distinct(flat: Lin | None, loops: list[Loop]) -> int:
    """Distinct elements the offset reaches over `loops` (an upper bound: the
    product of the extents of the loops it uses)."""
    used = [lp for lp in loops if flat is None or flat.uses(lp.var)]
    return math.prod(int(lp.var.extent) for lp in used)


# ------------------------------------------------------------------ features
def features(task: Task, knobs: Knobs) -> np.ndarray:
    """The feature vector of `task` under `knobs` (`NAMES` says what each is)."""
    cpu = current_target()
    extents, reduce = task.extents, task.reduce_extents
    nest = LoopNest.of(extents, reduce).apply(task.schedule(knobs))
    loops = nest.loops
    out_points = math.prod(extents)
    red_points = math.prod(reduce)
    work = out_points * red_points
    lanes = cpu.lanes(task.elem_bits)
    vec = loops[-1] if loops and loops[-1].kind == ForKind.VECTORIZED else None
    unrolled = math.prod(int(lp.var.extent) for lp in loops if lp.kind == ForKind.UNROLLED)
    par = next((lp for lp in loops if lp.kind == ForKind.PARALLEL), None)
    par_iters = int(par.var.extent) if par is not None else 1
    iterations = math.prod(int(lp.var.extent) for lp in loops)
    serial = [lp for lp in loops if lp.kind == ForKind.SERIAL]
    first_reduce = next((i for i, lp in enumerate(loops) if lp.reduce), len(loops))
    # The register tile: the output loops inside cache_write (the vector loop alone without it).
    at = nest.find(nest.cache_at) + 1 if nest.cache_at is not None else len(loops) - 1
    inside = loops[at:] if nest.cache_at is not None else loops[-1:]
    tile = [lp for lp in inside if not lp.reduce]
    around = loops[at - 1] if at >= 1 else None  # the loop the tile moves along
    k_blocks = math.prod(int(lp.var.extent) for lp in loops[:at] if lp.reduce) if nest.cache_at else 1
    tile_points = math.prod(int(lp.var.extent) for lp in tile)
    accumulators = -(-tile_points // lanes) if nest.cache_at is not None else 0
    reduce_loops = [lp for lp in loops if lp.reduce]
    innermost_reduce = reduce_loops[-1].var if reduce_loops else None

    anchor, reads = _anchor(task)
    body_axes = list(anchor.body.block.args)
    names = [axis_name(d) for d in range(len(extents))] + [reduce_axis_name(d) for d in range(len(reduce))]
    env = {a: nest.axes[n] for a, n in zip(body_axes, names, strict=True)}
    per_read: list[float] = []
    step_elements = step_bytes = footprint = operands = 0
    for read in reads:
        flat = _flat(read, env)
        per_step = _distinct(flat, tile)
        step_elements += per_step
        step_bytes += per_step * read.itemsize
        foot = _distinct(flat, inside) * read.itemsize
        footprint += foot
        lane, irregular = _stride(flat, vec.var if vec is not None else None)
        operands += -(-per_step // lanes) if lane or irregular else 1
        if len(per_read) < READS * len(_READ_NAMES):
            red, _ = _stride(flat, innermost_reduce)
            walk, _ = _stride(flat, around.var if around is not None else None)
            per_read += [
                _log2(read.bytes), _log2(1 + lane), irregular, _log2(1 + red),
                _log2(tile_points / max(per_step, 1)), _log2(per_step), math.log2(max(foot, 1) / L1),
                1.0 if walk else 0.0,
            ]
    per_read += [0.0] * (READS * len(_READ_NAMES) - len(per_read))
    values = [float(v) for v in dataclasses.astuple(knobs)][:KNOB_SLOTS]
    template = task.template if task.template in TEMPLATES else "other"
    row = [
        *(1.0 if template == t else 0.0 for t in (*TEMPLATES, "other")),
        _log2(task.flops), _log2(out_points), _log2(red_points), float(len(loops)),
        (int(vec.var.extent) / lanes) if vec is not None else 0.0,
        1.0 if vec is not None and vec.reduce else 0.0,
        _log2(unrolled),
        accumulators / cpu.vector_registers,
        (accumulators + (operands if nest.cache_at is not None else 0)) / cpu.vector_registers,
        _log2(par_iters), _log2(work / par_iters),
        float(len(nest.guards)),
        iterations / max(work, 1) - 1.0,
        1.0 if nest.cache_at is not None else 0.0,
        _log2(k_blocks),
        _log2(int(serial[-1].var.extent)) if serial else 0.0,
        first_reduce / max(len(loops), 1),
        _log2(tile_points / max(step_elements, 1) * 4),  # (x4: a ratio below 1 stays above 0)
        _log2(step_bytes),
        math.log2(max(footprint, 1) / L1), math.log2(max(footprint, 1) / L2),
        *per_read,
        *(_log2(1 + v) for v in values),
        *([0.0] * (KNOB_SLOTS - len(values))),
    ]
    return np.asarray(row, dtype=np.float32)


__all__ = ["KNOB_SLOTS", "L1", "L2", "NAMES", "READS", "TEMPLATES", "features"]
