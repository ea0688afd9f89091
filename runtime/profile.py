"""Per-kernel times: each `tir.call` of `@main`, timed on its own.

`profile_kernels(module)` takes a module at the TIR level (after `lower-te-to-tir`
and the TIR passes), compiles it, and calls every kernel that `@main` calls with
buffers of the right shapes (floats random, integers zero, so index inputs stay in
bounds), the way `@main` would. Times are medians over `repeat` calls; a kernel
called from several places is reported once per call site.
"""

from __future__ import annotations

import ctypes
import time
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp

from lamina.dialects import tir
from lamina.runtime.dtypes import numpy_dtype


@dataclass(frozen=True)
class KernelTime:
    name: str
    ms: float
    shapes: tuple[tuple[int, ...], ...]


def _buffer(t: MemRefType, rng: np.random.Generator) -> np.ndarray:
    from lamina.runtime.executor import aligned_empty

    dt = numpy_dtype(t.get_element_type())
    out = aligned_empty(tuple(t.get_shape()), dt)
    if np.issubdtype(dt, np.floating):
        out[...] = rng.standard_normal(out.shape)
    else:
        out[...] = 0
    return out


def profile_kernels(module: ModuleOp, repeat: int = 20, num_threads: int = 1) -> list[KernelTime]:
    """Time every kernel `@main` calls (see the module docstring)."""
    from lamina.lowering.tir_to_llvm import lower_module
    from lamina.runtime.executor import set_num_threads
    from lamina.runtime.jit import jit_compile

    main = next(
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main"
    )
    calls = [
        (op.callee.string_value(), [a.type for a in op.args])
        for op in main.walk()
        if isinstance(op, tir.CallOp)
    ]
    lowered = module.clone()
    lower_module(lowered)
    native = jit_compile(lowered)
    rng = np.random.default_rng(0)
    set_num_threads(num_threads)
    out: list[KernelTime] = []
    for name, types in calls:
        fn = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * len(types))(native.address(name))
        bufs = [_buffer(t, rng) for t in types]  # type: ignore[arg-type]
        ptrs = [b.ctypes.data for b in bufs]
        fn(*ptrs)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn(*ptrs)
            times.append(time.perf_counter() - t0)
        shapes = tuple(tuple(t.get_shape()) for t in types)  # type: ignore[union-attr]
        out.append(KernelTime(name, float(np.median(times)) * 1e3, shapes))
    return out


__all__ = ["KernelTime", "profile_kernels"]
