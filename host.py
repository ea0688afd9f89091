"""The host CPU: what LLVM knows of it, the schedule knobs derived from it, the
thread count, and the system libraries native code calls.

Everything here is read from the machine the process runs on, never assumed:
the CPU name and features come from LLVM (`llvm.get_host_cpu_name/features`),
and schedules derive their vector width from them. LLVM's native target is
initialized once, lazily.
"""

from __future__ import annotations

import ctypes.util
import os
import threading
from dataclasses import dataclass
from functools import cache

import llvmlite.binding as llvm

from lamina.errors import CompileError

_lock = threading.Lock()
_llvm_ready = False


def init_llvm() -> None:
    """Initialize LLVM's native target and assembly printer (once)."""
    global _llvm_ready
    with _lock:
        if not _llvm_ready:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            _llvm_ready = True


def target_machine(opt_level: int = 3, *, jit: bool = False) -> llvm.TargetMachine:
    """A target machine for the host CPU (its name and features).

    Code is position independent, so objects can go into a shared library; `jit`
    selects the JIT code model (large on 64-bit hosts) instead of the small one.
    """
    host = cpu()  # (initializes LLVM)
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(
        cpu=host.name,
        features=host.features,
        opt=opt_level,
        reloc="pic",
        codemodel="jitdefault" if jit else "default",
        jit=jit,
    )


@dataclass(frozen=True)
class HostCPU:
    """The host as schedules see it."""

    #: LLVM's name for the CPU (e.g. "znver4", "sapphirerapids")
    name: str
    #: the features LLVM enables for it, as "+avx512f,+fma,..."
    features: str
    #: the widest vector register, in bits (512 with AVX-512F, 256 with AVX/AVX2)
    vector_bits: int

    def lanes(self, elem_bits: int) -> int:
        """Elements of `elem_bits` bits in one vector register."""
        return max(1, self.vector_bits // elem_bits)

    @property
    def vector_registers(self) -> int:
        """Vector registers a kernel can keep values in: 32 with AVX-512
        (zmm0-31), else 16."""
        return 32 if self.vector_bits >= 512 else 16

    def has(self, feature: str) -> bool:
        """Whether LLVM enables `feature` (e.g. "avx512vnni") on the host."""
        return f"+{feature}" in self.features.split(",")


@cache
def cpu() -> HostCPU:
    """The host CPU (read once per process)."""
    init_llvm()
    features = llvm.get_host_cpu_features()
    if features.get("avx512f"):
        bits = 512
    elif features.get("avx2") or features.get("avx"):
        bits = 256
    else:
        bits = 128
    return HostCPU(llvm.get_host_cpu_name(), features.flatten(), bits)


def default_threads() -> int:
    """`LAMINA_NUM_THREADS`, else the number of CPUs."""
    env = os.environ.get("LAMINA_NUM_THREADS")
    return int(env) if env and env.isdigit() and int(env) > 0 else (os.cpu_count() or 1)


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


__all__ = [
    "RUNTIME_LIBRARIES",
    "HostCPU",
    "cpu",
    "default_threads",
    "has_libmvec",
    "init_llvm",
    "runtime_libraries",
    "target_machine",
]
