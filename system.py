"""The machine a process runs on, as the runtime needs it: its thread count and
the system libraries compiled code calls into (found here, never assumed)."""

from __future__ import annotations

import ctypes.util
import os

from lamina.errors import CompileError


def default_threads() -> int:
    """`LAMINA_NUM_THREADS`, else the CPUs this process may run on."""
    env = os.environ.get("LAMINA_NUM_THREADS")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # (not on Linux)
        return os.cpu_count() or 1


# Shared libraries native code may call into: libm (tanhf, erff, ...; LLVM also emits
# expf and friends) and libgomp (`GOMP_parallel` runs parallel loops on its persistent
# thread pool). The JIT loads them into the process; exported libraries link them.
RUNTIME_LIBRARIES = ("m", "gomp")
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
                f"`apt install {'libgomp1' if name == 'gomp' else 'libc6'}`)"
            )
        out.append(found)
    return out


__all__ = ["RUNTIME_LIBRARIES", "default_threads", "has_libmvec", "runtime_libraries"]
