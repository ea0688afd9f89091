"""The machine a process runs on, as the runtime needs it: its thread count, the
cores other processes leave it, and the system libraries compiled code calls into
(found here, never assumed)."""

from __future__ import annotations

import ctypes.util
import logging
import os
import resource
import threading
import time

from lamina.errors import CompileError


def fixed_threads() -> int | None:
    """The thread count `LAMINA_NUM_THREADS` fixes (None: unset, or not a
    positive integer)."""
    env = os.environ.get("LAMINA_NUM_THREADS")
    return int(env) if env and env.isdigit() and int(env) > 0 else None


def _cpus() -> set[int] | None:
    """The CPUs this process may run on (None where that cannot be asked)."""
    try:
        return os.sched_getaffinity(0)
    except AttributeError:  # (not on Linux)
        return None


def default_threads() -> int:
    """`LAMINA_NUM_THREADS`, else the CPUs this process may run on."""
    cpus = _cpus()
    return fixed_threads() or (len(cpus) if cpus else os.cpu_count() or 1)


def _busy_seconds(cpus: set[int], hz: int) -> float | None:
    """CPU seconds the given CPUs have spent busy since boot (/proc/stat), None
    where it cannot be read."""
    try:
        with open("/proc/stat") as f:
            lines = f.readlines()
    except OSError:
        return None
    busy = 0
    for line in lines:
        if not line.startswith("cpu") or line[3] == " ":
            continue
        name, *fields = line.split()
        if int(name[3:]) in cpus:
            # user nice system idle iowait irq softirq steal (guest is in user)
            user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[:8])
            busy += user + nice + system + irq + softirq + steal
    return busy / hz


def _own_seconds() -> float:
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


class CoreShare:
    """The cores other processes leave this one, as a thread count.

    Every `PERIOD` seconds at most, `threads(limit)` compares the time this
    process's CPUs spent busy with the time this process itself ran: the
    difference is other processes' load, in cores. A core counts as taken when
    others keep more than half of it busy. Parallel loops then run on the cores
    left: a thread sharing a core with a busy process runs its chunks slowly and
    its wake-ups late (with libgomp's static split, a background model niced
    beside one busy core ran 40x slower on 2 threads than on 1; lamina's pool
    hands chunks out dynamically, which bounds the loss, but a free core is
    still faster).
    """

    PERIOD = 0.25

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cpus = _cpus()
        self._hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        self._last: tuple[float, float, float] | None = None
        self._next = 0.0
        #: Other processes' load over the last period, in cores (0 until measured).
        self.others = 0.0
        self._noted = False

    def _sample(self, now: float) -> None:
        busy = None if self._cpus is None else _busy_seconds(self._cpus, self._hz)
        if busy is None:
            self._next = float("inf")  # nothing to measure with: keep every core
            return
        own = _own_seconds()
        if self._last is not None:
            then, busy0, own0 = self._last
            self.others = max(0.0, ((busy - busy0) - (own - own0)) / (now - then))
        self._last = (now, busy, own)
        self._next = now + self.PERIOD

    def threads(self, limit: int) -> int:
        """At most `limit` threads, one fewer per core that others keep busy."""
        now = time.monotonic()
        if now >= self._next:
            with self._lock:
                if now >= self._next:
                    self._sample(now)
        taken = int(self.others + 0.5)
        if not taken:
            return limit
        n = max(1, min(limit, len(self._cpus or ()) - taken))
        if n < limit and not self._noted:
            self._noted = True
            logging.getLogger("lamina").warning(
                "lamina: other processes keep %.1f of this process's %d cores busy; "
                "parallel loops run on %d thread%s while they do (num_threads= or "
                "LAMINA_NUM_THREADS sets a fixed count)",
                self.others, len(self._cpus or ()), n, "" if n == 1 else "s",
            )
        return n


#: The process's one measure of the cores others leave it.
CORE_SHARE = CoreShare()


# Shared libraries native code may call into: libm (tanhf, erff, ...; LLVM also emits
# expf and friends). The JIT loads them into the process; exported libraries link
# them. Parallel loops run on lamina's own thread pool (`lamina.codegen.pool`),
# which needs only libc (pthread_create, syscall).
RUNTIME_LIBRARIES = ("m",)
_MVEC = ctypes.util.find_library("mvec")


def has_libmvec() -> bool:
    """Whether glibc's vector math library (libmvec) is there to call."""
    return _MVEC is not None


def runtime_libraries() -> list[str]:
    """Paths (or sonames) of the runtime libraries, for loading or linking
    (libmvec too, when the system has it: vector math calls it)."""
    out = [_MVEC] if _MVEC is not None else []
    for name in RUNTIME_LIBRARIES:
        found = ctypes.util.find_library(name)
        if found is None:
            raise CompileError(
                f"the runtime library lib{name} was not found; install it (on Debian: "
                "`apt install libc6`)"
            )
        out.append(found)
    return out


#: In-process functions JIT-compiled code calls by name (the thread pool, the
#: image decoder, BYOC libraries' entry points, the profiler's clock).
_SYMBOLS: dict[str, int] = {}


def bind_symbol(name: str, address: int) -> None:
    """Make the in-process function at `address` callable by `name` from code
    the JIT links (it hands `bound_symbols()` to each link: ORC's JIT does not
    search LLVM's process-wide symbol table)."""
    import llvmlite.binding as llvm

    llvm.add_symbol(name, address)
    _SYMBOLS[name] = address


def bound_symbols() -> dict[str, int]:
    """Every symbol `bind_symbol` bound, by name."""
    return dict(_SYMBOLS)


__all__ = [
    "CORE_SHARE", "RUNTIME_LIBRARIES", "CoreShare", "bind_symbol", "bound_symbols", "default_threads",
    "fixed_threads", "has_libmvec", "runtime_libraries",
]
