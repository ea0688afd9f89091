"""A compiled model in the process: `CompiledModel.run` on numpy arrays.

The native entry point is `void main(void **args, void **params, char
*workspace)` (`lamina.abi`): `args` holds the input buffers then the output
buffers, `params` the weights (numpy arrays, never printed into LLVM IR) and
`workspace` the planned arena for intermediates. A `CompiledModel` is built from
its `ModelRecord` (`lamina.runtime.record`), its native code and its weights: by
`lamina.compile` (JIT-compiled code, `lamina.codegen.jit`) or `lamina.load` (a
shared library). The runtime does not import the compiler: what `export()` does
is given by whoever built the model (an `Exporter`).
"""

from __future__ import annotations

import ctypes
import math
import os
import sys
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from lamina import system
from lamina.abi import BUFFER_ALIGN, BUFFER_SLACK, ENTRY, REPLAN, SET_NUM_THREADS
from lamina.errors import InputError, LaminaError
from lamina.runtime.dynamic import DynamicPlan, bind_sizes
from lamina.runtime.record import ModelRecord, TensorSpec
from lamina.runtime.shapes import ShapeCode
from lamina.symbolic import evaluate

_ENTRY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
_SET_THREADS = ctypes.CFUNCTYPE(None, ctypes.c_int32)
#: A run plans unbounded sizes at their capacities unless that takes more than
#: twice the memory of the last run's sizes and this much; then at those sizes.
_SLACK_BYTES = 1 << 20
#: The sizes a thread keeps the frame of (`_Frame`): a decoder alternating
#: between a few shapes, or growing one size, finds most of them there.
_FRAMES = 8


class _Frame:
    """What a run at one set of sizes needs besides the inputs' data, made once
    per sizes and thread: the inputs' staging buffers, the outputs' shapes and
    their offsets in one block, the `args` table (inputs, sizes and the arena's
    offsets filled in; outputs and the exit slot set per run) and the arena's
    size."""

    __slots__ = ("block", "outputs", "spare", "staging", "table", "views", "workspace")

    def __init__(
        self, staging: list[np.ndarray], shapes: Sequence[tuple[int, ...]],
        specs: Sequence[TensorSpec], tail: Sequence[int], workspace: int, exit_slot: bool,
    ):
        self.staging = staging
        self.views: list[tuple[int, tuple[int, ...], np.dtype]] = []
        block = 0
        for shape, spec in zip(shapes, specs, strict=True):
            self.views.append((block, shape, spec.dtype))
            block += -(-math.prod(shape) * spec.dtype.itemsize // BUFFER_ALIGN) * BUFFER_ALIGN
        self.block = block
        slots = [a.ctypes.data for a in staging] + [0] * len(specs) + list(tail)
        self.outputs = len(staging)
        self.table = (ctypes.c_void_p * max(len(slots) + exit_slot, 1))(*slots)
        self.workspace = workspace
        #: The last run's output block, reused once the caller has let go of
        #: every array in it (`outputs_block`).
        self.spare: np.ndarray | None = None

    def outputs_block(self) -> np.ndarray:
        """The memory of this run's outputs: the last run's block again when
        nothing references it but this frame (the caller dropped those outputs
        and every view of them: a view's base is the block), else a new one.
        A loop that runs the model and drops its results then writes into
        memory it has touched before, not into fresh pages."""
        raw = self.spare
        # (references: this frame's, `raw`'s and getrefcount's argument)
        if raw is None or sys.getrefcount(raw) > 3:
            raw = np.empty(self.block + BUFFER_ALIGN + BUFFER_SLACK, dtype=np.uint8)
            self.spare = raw
        return raw


class Native(Protocol):
    """Loaded native code: the address of an exported function."""

    def address(self, name: str) -> int: ...


class Exporter(Protocol):
    """What `CompiledModel.export` does: write the model as a shared library
    `lamina.load` reads (the JIT's exporter generates object code and links it;
    a loaded library's copies its file)."""

    def __call__(
        self, model: CompiledModel, path: str | os.PathLike[str], name: str | None = None
    ) -> None: ...


#: The buffers `aligned_empty` allocated (by id; an entry goes with its buffer).
_ALIGNED_BUFFERS: weakref.WeakValueDictionary[int, np.ndarray] = weakref.WeakValueDictionary()


def aligned_empty(shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
    """An uninitialized C-contiguous array whose data is 64-byte aligned and
    followed by `BUFFER_SLACK` readable bytes (vector tails may load them)."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + BUFFER_ALIGN + BUFFER_SLACK, dtype=np.uint8)
    _ALIGNED_BUFFERS[id(raw)] = raw
    offset = (-raw.ctypes.data) % BUFFER_ALIGN
    return raw[offset : offset + nbytes].view(dtype).reshape(shape)


def _is_aligned(arr: np.ndarray, dtype: np.dtype) -> bool:
    """Whether `arr` is already what `aligned` makes: of `dtype`, C-contiguous,
    64-byte aligned, in a buffer of `aligned_empty`'s with the slack after it."""
    root = arr
    while isinstance(root.base, np.ndarray):
        root = root.base
    if _ALIGNED_BUFFERS.get(id(root)) is not root:
        return False
    end = root.ctypes.data + root.nbytes
    return (
        arr.dtype == dtype
        and arr.flags.c_contiguous
        and arr.ctypes.data % BUFFER_ALIGN == 0
        and arr.ctypes.data + arr.nbytes + BUFFER_SLACK <= end
    )


def aligned(arr: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """`arr` as a C-contiguous, 64-byte aligned array of `dtype`, with the
    readable slack after it that compiled code may rely on (see
    `aligned_empty`): `arr` itself if it is one already, else a copy."""
    if _is_aligned(arr, dtype):
        return arr
    out = aligned_empty(arr.shape, dtype)
    np.copyto(out, arr, casting="no" if arr.dtype == dtype else "unsafe")
    return out


class CompiledModel:
    """A compiled model: call `run(...)` with numpy arrays."""

    def __init__(
        self,
        record: ModelRecord,
        native: Native | None,
        params: Sequence[np.ndarray],
        *,
        num_threads: int | None = None,
        exporter: Exporter | None = None,
        target: str = "",
    ):
        entry = record.entry
        if entry.params and len(entry.params) != len(params):
            raise LaminaError(
                f"the model reads {len(entry.params)} weight(s), {len(params)} given"
            )
        #: What the model is: its interface and entry ABI.
        self.record = record
        self._native = native
        self.inputs = list(record.inputs)
        self.outputs = list(record.outputs)
        #: The symbolic sizes, in the order `main` reads them after the buffers,
        #: and the per-shape workspace plan (None: a static model).
        self.sizes = list(entry.sizes)
        self._plan = None if entry.dynamic_plan is None else DynamicPlan(entry.dynamic_plan)
        #: What the model assumes of its sizes (`expr <= limit`, why), checked per run.
        self.assumptions = list(record.assumptions)
        #: The data-dependent sizes the model sets itself, with their upper
        #: bounds (buffers are planned at the bound; None: unbounded, planned at
        #: a capacity, see `_planned`), in the order it sets them.
        self.bounds = list(entry.bounds)
        #: Per unbounded size, the largest value a completed run needed, and
        #: its value in the last completed run.
        self._capacity: dict[str, int] = {n: 1 for n, b in self.bounds if b is None}
        self._last: dict[str, int] = dict(self._capacity)
        #: The messages `main` may stop with (it writes the number of the one
        #: that failed, from 1, into the last `args` slot).
        self.exits = list(entry.exits)
        self._params = list(params)
        self._param_table = (ctypes.c_void_p * max(len(params), 1))(
            *[p.ctypes.data for p in params]
        )
        self.workspace_size = entry.workspace_size
        #: The sum of every intermediate's size, which the arena (`workspace_size`,
        #: planned by liveness) shares out.
        self.intermediate_bytes = entry.intermediate_bytes
        #: The target the code is for (its string form; "" for this machine).
        self.target = target
        #: Whether the code runs in this process (not when it is another
        #: machine's: such a model can only be exported, `lamina run` runs that).
        self.runnable = native is not None
        self._entry = _ENTRY(native.address(ENTRY)) if native is not None else None
        #: The team-size setter of the pool the code runs on.
        self._pool = pool_threads(native) if native is not None else None
        self._local = threading.local()
        #: The shape logic as generated Python (None: the general path only, for
        #: a model that sets sizes itself).
        code = ShapeCode(self.inputs, self.outputs, self.sizes, self.assumptions)
        self._code = code if code.complete and not self.bounds else None
        self._names = tuple(self.input_names)
        check_num_threads(num_threads)
        self.num_threads = num_threads or system.default_threads()
        #: Whether the team size follows the cores other processes leave free
        #: (`system.CORE_SHARE`): when neither `num_threads` nor
        #: LAMINA_NUM_THREADS fixes it.
        self.adaptive_threads = num_threads is None and system.fixed_threads() is None
        #: What export() does (None: the model cannot be exported).
        self.exporter = exporter

    @property
    def num_threads(self) -> int:
        """The team size of parallel loops, per run (a positive integer; with
        `adaptive_threads`, the most a run uses)."""
        return self._num_threads

    @num_threads.setter
    def num_threads(self, value: int) -> None:
        checked = check_num_threads(value)
        if checked is None:
            raise InputError(
                "num_threads must be a positive integer, got None; omit num_threads "
                "when compiling or loading for the default"
            )
        self._num_threads = checked
        self.adaptive_threads = False

    @property
    def input_names(self) -> list[str]:
        return [s.name for s in self.inputs]

    @property
    def output_names(self) -> list[str]:
        return [s.name for s in self.outputs]

    def _workspace(self, size: int) -> np.ndarray:
        ws = getattr(self._local, "workspace", None)
        if ws is None or ws.size < size:
            ws = aligned_empty((max(size, 1),), np.dtype(np.uint8))
            self._local.workspace = ws
        return ws

    @property
    def is_symbolic(self) -> bool:
        return self.record.is_symbolic

    def _bind(self, args: Sequence[Any], kwargs: dict[str, Any]) -> list[np.ndarray]:
        n = len(self.inputs)
        if len(args) > n:
            raise InputError(f"the model takes {n} input(s), got {len(args)} positional")
        given: dict[str, Any] = {}
        for spec, a in zip(self.inputs, args, strict=False):
            given[spec.name] = a
        for name, a in kwargs.items():
            if name not in self.input_names:
                raise InputError(
                    f"unknown input '{name}'; the model's inputs are "
                    + ", ".join(s.describe() for s in self.inputs)
                )
            if name in given:
                raise InputError(f"input '{name}' given twice")
            given[name] = a
        missing = [s.describe() for s in self.inputs if s.name not in given]
        if missing:
            raise InputError("missing input(s): " + ", ".join(missing))
        arrays = [np.asarray(given[spec.name]) for spec in self.inputs]
        env: dict[str, int] = {}
        if self.is_symbolic:
            env = bind_sizes(
                [(s.name, s.shape) for s in self.inputs], [a.shape for a in arrays], self.assumptions
            )
        bound = []
        if not self.is_symbolic:
            for spec, arr in zip(self.inputs, arrays, strict=True):
                if arr.shape != spec.shape:
                    raise InputError(
                        f"input '{spec.name}': expected shape {spec.shape}, got {arr.shape}"
                    )
        staging = self._staging([a.shape for a in arrays])
        for spec, arr, buf in zip(self.inputs, arrays, staging, strict=True):
            if arr.dtype != spec.dtype:
                raise InputError(
                    f"input '{spec.name}': expected dtype {spec.dtype}, got {arr.dtype}"
                )
            # Into this thread's padded input buffer (aligned, with BUFFER_SLACK).
            np.copyto(buf, arr, casting="no")
            bound.append(buf)
        self._local.env = self._planned(env) if self.bounds else env
        return bound

    def _planned(self, env: dict[str, int]) -> dict[str, int]:
        """`env` with the sizes the model sets at what the run plans with: a
        bounded size at its bound, an unbounded one at its capacity (the
        largest value a run needed), or at its value in the last run when the
        capacities together would take much more memory than that run did
        (sizes that peaked in different runs multiply in a buffer)."""

        def fill(guess: dict[str, int]) -> dict[str, int]:
            out = dict(env)
            for name, limit in self.bounds:
                out[name] = guess[name] if limit is None else evaluate(limit, out)
            return out

        wide = fill(self._capacity)
        if self._capacity == self._last:
            return wide
        last = fill(self._last)
        return wide if self._bytes(wide) <= 2 * self._bytes(last) + _SLACK_BYTES else last

    def _bytes(self, env: dict[str, int]) -> int:
        """The memory a run at sizes `env` allocates: outputs and workspace."""
        outs = sum(math.prod(self._shape(s, env)) * s.dtype.itemsize for s in self.outputs)
        return outs + (self._plan.plan(env).size if self._plan is not None else self.workspace_size)

    def _staging(self, shapes: Sequence[tuple[int, ...]]) -> list[np.ndarray]:
        """This thread's aligned input buffers for inputs of `shapes`: views of
        buffers that grow (at least doubling) when a shape needs more, so a
        model run at growing sizes (a KV cache, one position a step) allocates
        O(log) times, not every run."""
        key = tuple(shapes)
        if getattr(self._local, "inputs_key", None) == key:
            return self._local.inputs
        raw: dict[str, np.ndarray] = getattr(self._local, "input_raw", None) or {}
        bufs = []
        for spec, shape in zip(self.inputs, shapes, strict=True):
            nbytes = math.prod(shape) * spec.dtype.itemsize
            have = raw.get(spec.name)
            if have is None or have.nbytes < nbytes:
                have = aligned_empty((max(nbytes, 2 * (0 if have is None else have.nbytes)),), np.dtype(np.uint8))
                raw[spec.name] = have
            bufs.append(have[:nbytes].view(spec.dtype).reshape(shape))
        self._local.input_raw = raw
        self._local.inputs, self._local.inputs_key = bufs, key
        return bufs

    @staticmethod
    def _shape(spec: TensorSpec, env: dict[str, int]) -> tuple[int, ...]:
        return tuple(evaluate(d, env) for d in spec.shape)

    def run(self, *args: Any, **kwargs: Any) -> list[np.ndarray]:
        """Run on inputs given positionally or by name; returns the outputs."""
        if self._entry is None:
            raise LaminaError(
                f"this model was compiled for {self.target}, not this machine, so it "
                "cannot run in this process: export it (`exe.export('model.so')`, or "
                "`lamina compile MODEL --target ... -o model.so`) and run the library "
                "with `lamina run model.so --input NAME=FILE.npy` (under qemu-user)"
            )
        if self._code is not None:
            outs = self._run_fast(args, kwargs)
            if outs is not None:
                return outs
        ins = self._bind(args, kwargs)
        env: dict[str, int] = self._local.env
        self._set_team()
        for _ in range(64 * len(self.bounds) + 2):  # each stop to replan at least doubles a size
            try:
                outs, table, first_size = self._call(ins, env)
            except MemoryError as e:
                if not self._capacity:
                    raise
                asked = ", ".join(f"{n} = {env[n]}" for n in self._capacity)
                raise InputError(f"the model's data asks for more memory than there is ({asked}): {e}") from None
            status = int(table[len(table) - 1] or 0) if self.exits else 0
            if not status:
                break
            if self.exits[status - 1] != REPLAN:
                raise InputError(f"the model stopped: {self.exits[status - 1]}")
            self._replan(env, table, first_size)
        else:
            raise LaminaError("the model kept asking for more memory than planned")
        if self.bounds:
            self._remember(table, first_size, env)
            return self._actual(outs, env, table, first_size)
        return outs

    def _set_team(self) -> None:
        """Set this run's team size on the pool: `num_threads`, or with
        `adaptive_threads` the cores other processes leave free, up to it."""
        n = self._num_threads
        set_num_threads(
            system.CORE_SHARE.threads(n) if self.adaptive_threads and n > 1 else n, self._pool
        )

    def _run_fast(self, args: Sequence[Any], kwargs: dict[str, Any]) -> list[np.ndarray] | None:
        """`run` through the generated shape code and this thread's frame of the
        sizes; None when the inputs are not arrays the code accepts, all given
        positionally or all by name (the general path then runs, or says what
        is wrong)."""
        code = self._code
        assert code is not None
        if kwargs:
            if args or len(kwargs) != len(self._names):
                return None
            try:
                args = [kwargs[n] for n in self._names]
            except KeyError:
                return None
        elif len(args) != len(self._names):
            return None
        for a in args:
            if type(a) is not np.ndarray:
                return None
        sizes = code.bind(args)
        if sizes is None:
            return None
        frames: dict[tuple[int, ...], _Frame] | None = getattr(self._local, "frames", None)
        if frames is None:
            frames = self._local.frames = {}
        frame = frames.pop(sizes, None) or self._frame(sizes, args)
        frames[sizes] = frame  # (the most recent last)
        if len(frames) > _FRAMES:
            del frames[next(iter(frames))]
        for buf, a in zip(frame.staging, args, strict=True):
            np.copyto(buf, a, casting="no")
        raw = frame.outputs_block()
        base = raw.ctypes.data
        skip = (-base) % BUFFER_ALIGN
        table, first = frame.table, frame.outputs
        outs = []
        for k, (offset, shape, dtype) in enumerate(frame.views):
            start = skip + offset
            outs.append(raw[start : start + math.prod(shape) * dtype.itemsize].view(dtype).reshape(shape))
            table[first + k] = base + start
        if self.exits:
            table[len(table) - 1] = 0
        self._set_team()
        assert self._entry is not None
        self._entry(
            ctypes.addressof(table), ctypes.addressof(self._param_table),
            self._workspace(frame.workspace).ctypes.data,
        )
        status = int(table[len(table) - 1] or 0) if self.exits else 0
        if status:
            raise InputError(f"the model stopped: {self.exits[status - 1]}")
        return outs

    def _frame(self, sizes: tuple[int, ...], args: Sequence[np.ndarray]) -> _Frame:
        """The frame of a run at `sizes` on inputs `args` (see `_Frame`)."""
        env = dict(zip(self.sizes, sizes, strict=True))
        tail: list[int] = list(sizes)
        size = self.workspace_size
        if self._plan is not None:
            plan = self._plan.plan(env)
            tail += plan.offsets
            size = plan.size
        assert self._code is not None
        return _Frame(
            self._staging([a.shape for a in args]), self._code.shapes(*sizes), self.outputs,
            tail, size, bool(self.exits),
        )

    def _call(self, ins: list[np.ndarray], env: dict[str, int]) -> tuple[list[np.ndarray], Any, int]:
        """One native call for sizes `env`: the outputs, the `args` table (the
        sizes the model set are read back from it) and its first size slot."""
        outs = [aligned_empty(self._shape(s, env), s.dtype) for s in self.outputs]
        slots: list[int] = [a.ctypes.data for a in (*ins, *outs)]
        size = self.workspace_size
        first_size = len(slots)
        if self.is_symbolic:
            slots += [env[n] for n in self.sizes]
            if self._plan is not None:
                plan = self._plan.plan(env)
                slots += list(plan.offsets)
                size = plan.size
        if self.exits:
            slots.append(0)  # the exit status
        table = (ctypes.c_void_p * max(len(slots), 1))(*slots)
        ws = self._workspace(size)
        # ctypes releases the GIL for the duration of the native call.
        self._entry(
            ctypes.addressof(table),
            ctypes.addressof(self._param_table),
            ws.ctypes.data,
        )
        return outs, table, first_size

    def _replan(self, env: dict[str, int], table: Any, first_size: int) -> None:
        """After a stop because a size outgrew its capacity: plan again with
        each unbounded size at the value the model wrote into its slot (the
        value it set, or the capacity it was not yet set past), bounds after.
        A size that outgrew its capacity at least doubles it, so that one set
        again and again as it grows (inside a loop) stops O(log) times."""
        for name, limit in self.bounds:
            if limit is None:
                value = int(table[first_size + self.sizes.index(name)] or 0)
                env[name] = max(value, 2 * env[name]) if value > env[name] else value
            else:
                env[name] = evaluate(limit, env)

    def _remember(self, table: Any, first_size: int, env: dict[str, int]) -> None:
        """After a completed run at sizes `env`: the unbounded sizes' last
        values, and capacities that held everything the run set (a size set
        in a loop ends at its last value, not at its peak)."""
        for name in self._capacity:
            value = int(table[first_size + self.sizes.index(name)] or 0)
            self._last[name] = value
            self._capacity[name] = max(self._capacity[name], value, env[name])

    def _actual(
        self, outs: list[np.ndarray], env: dict[str, int], table: Any, first_size: int
    ) -> list[np.ndarray]:
        """Outputs of data-dependent size, allocated at their bounds, as views of
        what the model wrote: the sizes it set are read back from `args`."""
        actual = dict(env)
        for k, name in enumerate(self.sizes):
            if any(name == n for n, _ in self.bounds):
                actual[name] = int(table[first_size + k] or 0)
        views = []
        for spec, out in zip(self.outputs, outs, strict=True):
            shape = self._shape(spec, actual)
            n = int(np.prod(shape, dtype=np.int64))
            views.append(out if shape == out.shape else out.reshape(-1)[:n].reshape(shape))
        return views

    __call__ = run

    def export(self, path: str | os.PathLike[str], name: str | None = None) -> None:
        """Write the model as one shared library for the target it was compiled
        for; `lamina.load(path)` reloads it (on that target), lamina.h's C API
        runs it. `name` prefixes its symbols (default: the file's stem)."""
        if self.exporter is None:
            raise LaminaError(
                "this model cannot be exported: it was built without an exporter; "
                "compile it with lamina.compile"
            )
        self.exporter(self, path, name)


def check_num_threads(value: Any) -> int | None:
    """`num_threads` as an int (None: the default), or an `InputError` saying what
    it must be: a positive integer (0, negative counts, floats and bools are
    refused rather than silently taken as the default or one thread)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise InputError(
            f"num_threads must be a positive integer (or None for the default), got "
            f"{type(value).__name__} {value!r}"
        )
    if value < 1:
        raise InputError(
            f"num_threads must be a positive integer (or None for the default), got "
            f"{value}"
        )
    return int(value)


def pool_threads(native: Native) -> Callable[[int], None] | None:
    """The team-size setter of the thread pool `native` code runs its parallel
    loops on (`lamina_set_num_threads`: the JIT's pool, shared by the process,
    or a library's own copy); None for a library exported before lamina had
    its own pool (it runs on libgomp's default team)."""
    try:
        address = native.address(SET_NUM_THREADS)
    except LaminaError:
        return None
    return _SET_THREADS(address) if address else None


def set_num_threads(n: int, pool: Callable[[int], None] | None) -> None:
    """The team size of the parallel loops `pool` (a `pool_threads` setter) runs,
    from now on (the pool's count is process-wide)."""
    if pool is not None:
        pool(max(1, int(n)))


__all__ = [
    "CompiledModel",
    "Exporter",
    "Native",
    "TensorSpec",
    "aligned",
    "aligned_empty",
    "check_num_threads",
    "pool_threads",
    "set_num_threads",
]
