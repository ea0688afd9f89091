"""Per-kernel times for `lamina bench --profile`.

The model is compiled once more with a tick between kernel calls: before
`lower-tir-to-llvm`, an instrument inserts `tir.call @lamina_profile_tick()` at the
start of `@main` and after every `tir.call` in it. The tick is an external function
bound (with `llvmlite.binding.add_symbol`) to a ctypes callback that records
`time.perf_counter_ns()`, so the k-th interval of a run is the k-th kernel call.
Nothing in the lowering changes; each tick costs about a microsecond (a Python
callback), which is included in the figures.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.rewriter import InsertPoint, Rewriter

from lamina.dialects import tir
from lamina.passes import PassContext, PassInfo, PassInstrument

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
            import llvmlite.binding as llvm

            addr = ctypes.cast(self.callback, ctypes.c_void_p).value
            llvm.add_symbol(TICK, addr)
            self.bound = True


_clock = _Clock()


class TickInstrument(PassInstrument):
    """Before `lower-tir-to-llvm`, time every kernel call of `@main`; `calls`
    lists the callees in call order."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def run_before_pass(self, module: ModuleOp, info: PassInfo) -> None:
        if info.name != "lower-tir-to-llvm":
            return
        main = next(
            (
                op
                for op in module.ops
                if isinstance(op, func.FuncOp) and op.sym_name.data == "main"
            ),
            None,
        )
        if main is None or not main.body.blocks:
            return
        block = main.body.block
        calls = [op for op in block.ops if isinstance(op, tir.CallOp)]
        if not calls:
            return
        Rewriter.insert_op(tir.CallOp(TICK, []), InsertPoint.at_start(block))
        for call in calls:
            self.calls.append(call.callee.root_reference.data)
            Rewriter.insert_op(tir.CallOp(TICK, []), InsertPoint.after(call))


@dataclass(frozen=True)
class KernelTime:
    """Median time per inference spent in one kernel (summed over its calls)."""

    name: str
    calls: int
    median_ms: float
    share: float


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
    out = [
        KernelTime(name, len(v), sum(v), sum(v) / whole) for name, v in totals.items()
    ]
    return sorted(out, key=lambda k: -k.median_ms)


def top(kernels: Sequence[KernelTime], limit: int) -> list[KernelTime]:
    """The `limit` slowest kernels (all when `limit` <= 0)."""
    return list(kernels[:limit] if limit > 0 else kernels)


__all__ = ["KernelTime", "TickInstrument", "profile", "top"]
