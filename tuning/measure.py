"""Measuring one candidate: build it, check it, time it (inside a worker process).

A job (`MeasureInput`) carries two te-level modules as text: the reference (the
kernel under its default schedule) and the candidate. The worker builds the
reference once per task (`lower` pipeline, JIT) and runs it on random inputs
(seeded); then builds the candidate, runs it on the same inputs and compares:
a different output is `wrong`. A good candidate is timed in batches of calls
(each at least `MIN_BATCH` seconds) until the fastest three of the last
`WINDOW` batches agree within `TOLERANCE`, or `MAX_TIMING` seconds have
passed; the time is their mean per call. Only one worker of a machine times at
once (a lock file), while the others build.

A crash or a hang kills the worker, not the tuner: the runner
(`lamina.tuning.runners`) sees it and reports the candidate as bad.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import hashlib
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType

from lamina.abi import ENTRY
from lamina.codegen.jit import NativeModule, jit_compile, set_num_threads
from lamina.dialects.dtypes import numpy_dtype
from lamina.errors import LaminaError
from lamina.ir import entry_function, parse
from lamina.passes import PassContext, run_pipeline
from lamina.pipelines import LowerPipeline
from lamina.runtime.model import aligned_empty
from lamina.tuning.records import CpuKey

#: Shortest batch of calls timed at once, in seconds.
MIN_BATCH = 0.001
#: Batches whose fastest three must agree, and how closely (relative).
WINDOW, TOLERANCE = 6, 0.02
#: Longest a candidate is timed, in seconds (then its time is taken as it is).
MAX_TIMING = 1.0
#: A candidate's output may differ from the reference's by this much, relative
#: to the reference's largest magnitude (sums reassociate across schedules).
RTOL = 1e-4


@dataclass(frozen=True)
class MeasureInput:
    """One candidate to measure: the reference and candidate modules (text),
    the threads to run on and the seed of the random inputs."""

    reference: str
    candidate: str
    threads: int = 1
    seed: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> MeasureInput:
        return MeasureInput(**data)


@dataclass(frozen=True)
class MeasureResult:
    """What measuring a candidate gave: `ok` with its seconds per call, or why
    it is bad (`crash`, `timeout`, `wrong`, `error`), and the CPU it ran on."""

    status: str
    seconds: float | None = None
    error: str | None = None
    cpu: str = ""
    features: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> MeasureResult:
        return MeasureResult(**data)

    @staticmethod
    def bad(status: str, error: str) -> MeasureResult:
        """A bad result, measured here (for the CPU fields)."""
        target = CpuKey.host()
        return MeasureResult(status, None, error, target.cpu, target.features)


class Kernel:
    """A built module's `main`, with its input and output buffers: one call
    runs the kernel on them."""

    def __init__(self, native: NativeModule, inputs: list[np.ndarray], out_types: list[TensorType]):
        self.native = native  # (keeps the code alive)
        self.inputs = inputs
        self.outputs = [aligned_empty(t.get_shape(), numpy_dtype(t.get_element_type())) for t in out_types]
        slots = [a.ctypes.data for a in (*inputs, *self.outputs)]
        self._args = (ctypes.c_void_p * max(len(slots), 1))(*slots)
        self._params = (ctypes.c_void_p * 1)()
        self._workspace = aligned_empty((max(native.workspace_size, 1),), np.dtype(np.uint8))
        entry = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
        self._fn = entry(native.address(ENTRY))

    def __call__(self) -> None:
        self._fn(ctypes.addressof(self._args), ctypes.addressof(self._params), self._workspace.ctypes.data)

    def time(self, calls: int) -> float:
        """Seconds per call over `calls` calls."""
        fn, args, params, ws = self._fn, ctypes.addressof(self._args), ctypes.addressof(self._params), self._workspace.ctypes.data
        start = time.perf_counter()
        for _ in range(calls):
            fn(args, params, ws)
        return (time.perf_counter() - start) / calls


def _types(text: str) -> tuple[list[TensorType], list[TensorType]]:
    module = parse(text)
    main = entry_function(module)
    if not isinstance(main, func.FuncOp):
        raise LaminaError("the module to measure has no @main")
    ins, outs = list(main.function_type.inputs), list(main.function_type.outputs)
    if not all(isinstance(t, TensorType) for t in (*ins, *outs)):
        raise LaminaError("@main of the module to measure takes and returns tensors only")
    return ins, outs  # type: ignore[return-value]


def build(text: str, inputs: list[np.ndarray]) -> Kernel:
    """Lower a te-level module (the `lower` pipeline at -O3), JIT it and bind it
    to `inputs`."""
    module = parse(text)
    _, outs = _types(text)
    run_pipeline(module, LowerPipeline.name, PassContext(opt_level=3))
    return Kernel(jit_compile(module, opt_level=3), inputs, outs)


def random_inputs(types: list[TensorType], seed: int) -> list[np.ndarray]:
    """Inputs for a kernel: floats from a normal distribution; integers small
    and non-negative (indices stay in range); booleans at random."""
    rng = np.random.default_rng(seed)
    out = []
    for t in types:
        dtype = numpy_dtype(t.get_element_type())
        arr = aligned_empty(t.get_shape(), dtype)
        if dtype.kind == "f":
            arr[...] = rng.standard_normal(arr.shape)
        elif dtype.kind == "b":
            arr[...] = rng.integers(0, 2, arr.shape).astype(bool)
        else:
            arr[...] = rng.integers(0, 4, arr.shape)
        out.append(arr)
    return out


def differs(got: list[np.ndarray], want: list[np.ndarray]) -> str | None:
    """Why `got` is not `want` (None: it is, within `RTOL` for floats)."""
    for i, (a, b) in enumerate(zip(got, want, strict=True)):
        if a.dtype.kind == "f":
            scale = float(np.nanmax(np.abs(b))) if b.size and not np.isnan(b).all() else 0.0
            err = np.abs(a.astype(np.float64) - b.astype(np.float64))
            nan_mismatch = bool((np.isnan(a) != np.isnan(b)).any())
            worst = float(np.nanmax(err)) if err.size and not np.isnan(err).all() else 0.0
            if nan_mismatch or worst > RTOL * max(scale, 1e-6):
                return f"output {i} differs from the default schedule's by {worst:.3g} (largest magnitude {scale:.3g})"
        elif not np.array_equal(a, b):
            return f"output {i} differs from the default schedule's"
    return None


@contextlib.contextmanager
def timing_lock(path: str | None) -> Iterator[None]:
    """Hold the machine's timing lock (a file lock; none: no lock)."""
    if path is None:
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def stable_time(run: Callable[[int], float]) -> float:
    """Seconds per call: batches of calls of at least `MIN_BATCH` seconds,
    until the fastest three of the last `WINDOW` agree within `TOLERANCE` (or
    `MAX_TIMING` has passed); the mean of those three."""
    calls = 1
    while True:
        t = run(calls)
        if t * calls >= MIN_BATCH or calls >= 1 << 20:
            break
        calls = max(calls * 2, int(calls * MIN_BATCH / max(t * calls, 1e-9)))
    samples = [t]
    start = time.perf_counter()
    while True:
        samples.append(run(calls))
        fastest = sorted(samples[-WINDOW:])[:3]
        if len(fastest) == 3 and (fastest[2] - fastest[0]) <= TOLERANCE * fastest[0]:
            break
        if time.perf_counter() - start > MAX_TIMING:
            break
    return sum(fastest) / len(fastest)


class References:
    """The reference kernels a worker built, by their text's hash: their inputs
    and outputs (the latest few)."""

    def __init__(self, keep: int = 8):
        self.keep = keep
        self._kernels: dict[str, Kernel] = {}

    def get(self, text: str, seed: int) -> Kernel:
        key = hashlib.sha256(f"{seed}:{text}".encode()).hexdigest()
        kernel = self._kernels.pop(key, None)
        if kernel is None:
            ins, _ = _types(text)
            kernel = build(text, random_inputs(ins, seed))
            kernel()
        self._kernels[key] = kernel  # (the most recent last)
        while len(self._kernels) > self.keep:
            self._kernels.pop(next(iter(self._kernels)))
        return kernel


def measure(job: MeasureInput, references: References, lock: str | None = None) -> MeasureResult:
    """Build, check and time `job`'s candidate (in this process: a crash or a
    hang here is the caller's to survive)."""
    target = CpuKey.host()

    def result(status: str, seconds: float | None = None, error: str | None = None) -> MeasureResult:
        return MeasureResult(status, seconds, error, target.cpu, target.features)

    set_num_threads(job.threads)
    try:
        ref = references.get(job.reference, job.seed)
    except Exception as e:
        return result("error", error=f"the default schedule did not build: {type(e).__name__}: {e}")
    try:
        kernel = ref if job.candidate == job.reference else build(job.candidate, ref.inputs)
    except Exception as e:
        return result("error", error=f"{type(e).__name__}: {e}")
    kernel()
    why = differs(kernel.outputs, ref.outputs) if kernel is not ref else None
    if why is not None:
        return result("wrong", error=why)
    with timing_lock(lock):
        seconds = stable_time(kernel.time)
    return result("ok", seconds)


def default_lock_path() -> str:
    """The machine's timing lock file (one per user)."""
    return str(Path(tempfile.gettempdir()) / f"lamina-tune-timing-{os.getuid()}.lock")


__all__ = [
    "MAX_TIMING",
    "MIN_BATCH",
    "RTOL",
    "Kernel",
    "MeasureInput",
    "MeasureResult",
    "References",
    "build",
    "default_lock_path",
    "differs",
    "measure",
    "random_inputs",
    "stable_time",
]
