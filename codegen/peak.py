"""The host's measured floating-point peak, for the performance tables.

`peak_gflops()` JIT-compiles a loop of independent vector FMAs at the host's
vector width (`Target.host().vector_bits`) and times it on the calling
thread: the single-core f32 peak that the FMA units actually deliver here
(two 512-bit FMA units give twice one). Benchmarks print it next to their tables,
so that ratios from hosts of different speeds can be read side by side.
"""

from __future__ import annotations

import ctypes
import time
from functools import cache

import llvmlite.binding as llvm
import numpy as np

from lamina.codegen.codegen import LLVM_LOCK, parse_ir, target_machine
from lamina.target import Target

#: Independent FMA chains: enough to cover the FMA latency of every unit
#: (4-5 cycles x 2 units on current x86 hosts).
CHAINS = 16


def _kernel(lanes: int) -> str:
    vec = f"<{lanes} x float>"
    splat = lambda v: "<" + ", ".join(f"float {v}" for _ in range(lanes)) + ">"  # noqa: E731
    phis = "\n".join(
        f"  %a{k} = phi {vec} [ {splat(float(k + 1) / CHAINS)}, %entry ], [ %b{k}, %loop ]"
        for k in range(CHAINS)
    )
    fmas = "\n".join(
        f"  %b{k} = call {vec} @llvm.fma.v{lanes}f32({vec} %a{k}, {vec} {splat(0.5)}, {vec} {splat(0.25)})"
        for k in range(CHAINS)
    )
    sums = [f"%b{k}" for k in range(CHAINS)]
    adds = []
    while len(sums) > 1:
        a, b, *rest = sums
        name = f"%s{len(adds)}"
        adds.append(f"  {name} = fadd {vec} {a}, {b}")
        sums = [*rest, name]
    return f"""
declare {vec} @llvm.fma.v{lanes}f32({vec}, {vec}, {vec})

define void @peak(i64 %n, ptr %out) {{
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
{phis}
{fmas}
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, %n
  br i1 %more, label %loop, label %exit
exit:
{chr(10).join(adds)}
  store {vec} {sums[0]}, ptr %out, align 4
  ret void
}}
"""


@cache
def peak_gflops(seconds: float = 0.01, repeat: int = 25) -> float:
    """The best of `repeat` timings of about `seconds` each, in GFLOP/s (a
    multiply-add counts two), on the calling thread. Many short timings: on a
    core shared with other processes, some of them run alone."""
    lanes = Target.host().lanes(32)
    tm = target_machine(None, 2, jit=True)
    with LLVM_LOCK:
        mod = parse_ir(_kernel(lanes))
        engine = llvm.create_mcjit_compiler(mod, tm)
        engine.finalize_object()
        fn = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p)(
            engine.get_function_address("peak")
        )
    out = (ctypes.c_float * lanes)()
    flops_per_iter = 2 * CHAINS * lanes
    n = 1000
    while True:  # size the run to about `seconds`
        t = time.perf_counter()
        fn(n, ctypes.addressof(out))
        elapsed = time.perf_counter() - t
        if elapsed > seconds / 4:
            break
        n *= 4
    n = max(1, int(n * seconds / elapsed))
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn(n, ctypes.addressof(out))
        best = min(best, time.perf_counter() - t)
    del engine  # (kept alive until here: `fn` points into its code)
    return n * flops_per_iter / best / 1e9


#: The copy sizes `stream_gbps` measures: within L2, within L3, and memory.
_SPANS = (256 << 10, 4 << 20, 64 << 20)


@cache
def _copy_gbps(nbytes: int) -> float:
    src = np.ones(nbytes // 4, dtype=np.float32)
    dst = np.empty_like(src)
    reps = max(1, (64 << 20) // nbytes)
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(reps):
            np.copyto(dst, src)
        best = min(best, (time.perf_counter() - t) / reps)
    return 2 * nbytes / best / 1e9


def stream_gbps(nbytes: int = _SPANS[-1]) -> float:
    """The bandwidth one thread gets copying data of `nbytes` (STREAM's copy:
    bytes read plus bytes written per second, in GB/s), measured once per size
    class: the smallest of 256 KiB (cache), 4 MiB (last-level cache) and 64 MiB
    (memory) that holds `nbytes`; the best of 5 timings."""
    return _copy_gbps(next((n for n in _SPANS if nbytes <= n), _SPANS[-1]))


def describe_host() -> str:
    """`CPU NAME (vector width, cores), measured f32 peak N GFLOP/s per core`."""
    me = Target.host()
    return (
        f"{me.cpu}, {me.vector_bits}-bit vectors, {me.num_threads} thread(s) "
        f"by default; measured f32 peak {peak_gflops():.0f} GFLOP/s per core"
    )


__all__ = ["CHAINS", "describe_host", "peak_gflops", "stream_gbps"]
