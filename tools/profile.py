"""Per-kernel times for `lamina bench --profile`.

The model is compiled once more with a tick between kernel calls: before
`lower-tir-to-llvm`, an instrument inserts `tir.call @lamina_profile_tick()` at the
start of `@main` and after every `tir.call` in it. The tick is an external function
bound (with `lamina.system.bind_symbol`) to a ctypes callback that records
`time.perf_counter_ns()`, so the k-th interval of a run is the k-th kernel call.
Nothing in the lowering changes; each tick costs about a microsecond (a Python
callback), which is included in the figures.

Each kernel's work is read from its computes at the TE level (`kernel_cost`):
the flops of its reductions (a multiply-add of a sum counts two) and the bytes
of its inputs and outputs. With the time, they give its GFLOP/s, and with the
host's measured peak and memory bandwidth its roofline (the most its arithmetic
intensity allows: `min(peak, flops / bytes x bandwidth)`, the bandwidth measured
for data of a call's size: cache, last-level cache or memory), so a profile says
which kernel is far below what it could run at, not only which is slow.
"""

from __future__ import annotations

import ctypes
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block
from xdsl.rewriter import InsertPoint, Rewriter

from lamina.dialects import qnn, relay, te, tir
from lamina.dialects.qnn import packed as qnn_packed
from lamina.dialects.relay_region import FusedOp
from lamina.ir import entry_function
from lamina.lowering.concat_slices import in_place
from lamina.passes import PassContext, PassInfo, PassInstrument
from lamina.system import bind_symbol

TICK = "lamina_profile_tick"
_TICK_TYPE = ctypes.CFUNCTYPE(None)


class _Clock:
    """The process-wide tick callback; records into the active profile's list."""

    def __init__(self) -> None:
        self.stamps: list[int] = []
        self.callback = _TICK_TYPE(self._tick)
        self.bound = False

    def _tick(self) -> None:
        self.stamps.append(time.perf_counter_ns())

    def bind(self) -> None:
        if not self.bound:
            addr = ctypes.cast(self.callback, ctypes.c_void_p).value
            bind_symbol(TICK, addr)  # type: ignore[arg-type]
            self.bound = True


_clock = _Clock()


# --------------------------------------------------------------- op classes
_NORMS = (relay.SoftmaxBase, relay.LayerNormOp, relay.InstanceNormOp, relay.BatchNormOp, relay.LRNOp)


def op_class(op: relay.RelayOp) -> str:
    """The kernel class of one graph op, for profiles grouped by what the time
    is spent on: conv (dense, grouped, depthwise), matmul, pool, norm/softmax,
    reduce, layout/copy, elementwise; int8 products count as their float
    kind's."""
    if isinstance(op, relay.ConvNCXcOp | qnn_packed.Conv2DNCHWcOp | qnn_packed.Conv2DNCHWcAddOp):
        return "conv"
    if isinstance(op, relay.DepthwiseConv2DNCHWcOp):
        return "depthwise conv"
    if isinstance(op, relay.ConvOp | relay.ConvTransposeOp | qnn.Conv2DOp):
        groups = op.attrs.groups
        wshape = op.operands[1].type.get_shape()  # type: ignore[attr-defined]
        if groups == 1:
            return "conv"
        return "depthwise conv" if wshape[1] == 1 else "grouped conv"
    if isinstance(op, relay.MatmulOp | relay.DenseOp | relay.DensePackOp | qnn.MatMulOp | qnn_packed.DensePackedOp):
        return "matmul"
    if isinstance(op, relay.PoolOp):
        return "pool"
    if isinstance(op, _NORMS):
        return "norm/softmax"
    if op.PATTERN == relay.OpPattern.COMM_REDUCE:
        return "reduce"
    if op.PATTERN in (relay.OpPattern.ELEMWISE, relay.OpPattern.BROADCAST):
        return "elementwise"
    return "layout/copy"


_RANK = ["conv", "depthwise conv", "grouped conv", "matmul", "pool", "norm/softmax", "reduce", "layout/copy", "elementwise"]


def kernel_class(op: relay.RelayOp | FusedOp) -> str:
    """The class of a kernel: of its heaviest op (a product over a pool over a
    reduction over data movement over elementwise steps)."""
    if not isinstance(op, FusedOp):
        return op_class(op)
    classes = [
        op_class(o)
        for o in op.body.block.ops
        if isinstance(o, relay.RelayOp) and not isinstance(o, relay.ConstantOp)
    ]
    return min(classes, key=_RANK.index, default="elementwise")


def _main_block(module: ModuleOp) -> Block | None:
    main = entry_function(module)
    return main.body.block if main is not None and main.body.blocks else None


def kernel_cost(kernel: te.FuncOp) -> tuple[int, int]:
    """One call's (flops, bytes) of a TE kernel: its reductions' flops (a
    multiply-add of a sum counts two, any other reduce step one) and the bytes
    of its inputs and outputs; (0, 0) when a size is symbolic."""
    flops = 0
    for op in kernel.body.block.ops:
        if isinstance(op, te.ComputeOp) and op.reduce is not None:
            points = (*op.extents, *op.reduce_shape)
            if not all(isinstance(n, int) for n in points):
                return 0, 0
            flops += math.prod(points) * (2 if op.reduce.data == te.ReduceKind.SUM else 1)  # type: ignore[arg-type]
    nbytes = 0
    for t in [p.result.type for p in kernel.placeholders] + [v.type for v in kernel.output.values]:
        if not isinstance(t, TensorType) or not all(n >= 0 for n in t.get_shape()):
            return 0, 0
        nbytes += math.prod(t.get_shape()) * max(1, t.get_element_type().bitwidth // 8)  # type: ignore[attr-defined]
    return flops, nbytes


class TickInstrument(PassInstrument):
    """Before `lower-tir-to-llvm`, time every kernel call of `@main`; `calls`
    lists the callees in call order, `classes` each callee's kernel class
    (read from the graph before `lower-relay-to-te`) and `costs` its
    (flops, bytes) per call (`kernel_cost`, read after it)."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.classes: dict[str, str] = {}
        self.costs: dict[str, tuple[int, int]] = {}
        self._pending: list[str] = []

    def run_before_pass(self, module: ModuleOp, info: PassInfo) -> None:
        if info.name == "lower-relay-to-te":
            block = _main_block(module)
            self._pending = [
                kernel_class(op)
                for op in (block.ops if block is not None else ())
                if isinstance(op, FusedOp)
                or (isinstance(op, relay.RelayOp) and not isinstance(op, relay.ConstantOp) and not in_place(op))
            ]
        if info.name != "lower-tir-to-llvm":
            return
        block = _main_block(module)
        if block is None:
            return
        calls = [op for op in block.ops if isinstance(op, tir.CallOp)]
        if not calls:
            return
        Rewriter.insert_op(tir.CallOp(TICK, []), InsertPoint.at_start(block))
        for call in calls:
            self.calls.append(call.callee.root_reference.data)
            Rewriter.insert_op(tir.CallOp(TICK, []), InsertPoint.after(call))

    def run_after_pass(self, module: ModuleOp, info: PassInfo) -> None:
        if info.name != "lower-relay-to-te":
            return
        block = _main_block(module)
        calls = [op for op in (block.ops if block is not None else ()) if isinstance(op, te.CallOp)]
        if len(calls) == len(self._pending):
            for call, cls in zip(calls, self._pending, strict=True):
                self.classes.setdefault(call.callee.root_reference.data, cls)
        for op in module.body.block.ops:
            if isinstance(op, te.FuncOp):
                self.costs[op.sym_name.data] = kernel_cost(op)


@dataclass(frozen=True)
class KernelTime:
    """Median time per inference spent in one kernel (summed over its calls)."""

    name: str
    calls: int
    median_ms: float
    share: float
    op_class: str = "other"
    #: Per inference (summed over the calls); 0 when unknown (a symbolic size).
    flops: int = 0
    bytes: int = 0

    @property
    def gflops(self) -> float:
        return self.flops / self.median_ms / 1e6 if self.flops and self.median_ms else 0.0

    def roofline(self, peak: float, bandwidth: Callable[[int], float]) -> float:
        """The GFLOP/s its arithmetic intensity allows on a host of `peak`
        GFLOP/s whose bandwidth for data of n bytes is `bandwidth(n)` GB/s (0
        when its work is unknown); a call's bytes choose the bandwidth."""
        if not self.flops or not self.bytes:
            return 0.0
        return min(peak, self.flops / self.bytes * bandwidth(self.bytes // max(self.calls, 1)))


def profile(
    compile_fn: Callable[[PassContext], Any],
    opt_level: int,
    inputs: dict[str, np.ndarray],
    runs: int,
) -> list[KernelTime]:
    """Compile through `compile_fn(pass_context)` with ticks, run `runs` times on
    `inputs` and return each kernel's median time, slowest first."""
    _clock.bind()
    ticks = TickInstrument()
    exe = compile_fn(PassContext(opt_level=opt_level, instruments=[ticks]))
    n = len(ticks.calls)
    exe.run(**inputs)  # warm-up
    per_run: list[np.ndarray] = []
    for _ in range(max(runs, 1)):
        _clock.stamps.clear()
        exe.run(**inputs)
        stamps = np.array(_clock.stamps, dtype=np.int64)
        if len(stamps) == n + 1:
            per_run.append(np.diff(stamps) / 1e6)
    if not per_run or n == 0:
        return []
    med = np.median(np.stack(per_run), axis=0)
    totals: dict[str, list[float]] = {}
    for name, ms in zip(ticks.calls, med, strict=True):
        totals.setdefault(name, []).append(float(ms))
    whole = float(med.sum()) or 1.0
    out = []
    for name, v in totals.items():
        flops, nbytes = ticks.costs.get(name, (0, 0))
        out.append(KernelTime(
            name, len(v), sum(v), sum(v) / whole, ticks.classes.get(name, "other"),
            flops * len(v), nbytes * len(v),
        ))
    return sorted(out, key=lambda k: -k.median_ms)


def by_class(kernels: Sequence[KernelTime]) -> list[KernelTime]:
    """The kernels summed per op class (`name` is the class), slowest first."""
    groups: dict[str, list[KernelTime]] = {}
    for k in kernels:
        groups.setdefault(k.op_class, []).append(k)
    out = [
        KernelTime(
            cls, sum(k.calls for k in ks), sum(k.median_ms for k in ks),
            sum(k.share for k in ks), cls,
            # (work only when every kernel's is known: else GFLOP/s would mislead)
            sum(k.flops for k in ks) if all(k.flops for k in ks) else 0,
            sum(k.bytes for k in ks) if all(k.flops for k in ks) else 0,
        )
        for cls, ks in groups.items()
    ]
    return sorted(out, key=lambda k: -k.median_ms)


def top(kernels: Sequence[KernelTime], limit: int) -> list[KernelTime]:
    """The `limit` slowest kernels (all when `limit` <= 0)."""
    return list(kernels[:limit] if limit > 0 else kernels)


__all__ = [
    "KernelTime", "TickInstrument", "by_class", "kernel_class", "kernel_cost", "op_class", "profile", "top",
]
