"""The machine the compiler runs on, read once: the one place lamina looks at it.

`Target.host()` (the default target) is built from what this module reads: the
CPU's name and features as LLVM sees them, the triple, the cache sizes (Linux
sysfs); the thread count and the system libraries are `lamina.system`'s. Nothing
is assumed.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_SYSFS_CACHE = Path("/sys/devices/system/cpu/cpu0/cache")


@cache
def _llvm() -> object:
    import llvmlite.binding as llvm  # (LLVM is loaded only when the host is asked about)

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm


def triple() -> str:
    """LLVM's triple for this machine (`x86_64-unknown-linux-gnu`)."""
    return str(_llvm().get_process_triple())  # type: ignore[attr-defined]


def cpu_name() -> str:
    """LLVM's name for the host CPU (`znver4`, `sapphirerapids`)."""
    return str(_llvm().get_host_cpu_name())  # type: ignore[attr-defined]


def cpu_features() -> tuple[str, ...]:
    """Every feature LLVM knows of, `+name` when the host has it, else `-name`,
    sorted by name."""
    flat = _llvm().get_host_cpu_features().flatten()  # type: ignore[attr-defined]
    return tuple(sorted((f for f in flat.split(",") if f), key=lambda f: f[1:]))


def caches() -> tuple[int, int, int] | None:
    """Bytes of L1 data, L2 and last-level cache of one core (None: unknown)."""
    sizes: dict[int, int] = {}
    try:
        for index in sorted(_SYSFS_CACHE.glob("index*")):
            kind = (index / "type").read_text().strip()
            if kind == "Instruction":
                continue
            level = int((index / "level").read_text())
            text = (index / "size").read_text().strip().upper()
            scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
            sizes[level] = int(text.rstrip("KMG")) * scale
    except (OSError, ValueError):
        return None
    if 1 not in sizes or 2 not in sizes:
        return None
    return sizes[1], sizes[2], sizes.get(3, sizes[2])


__all__ = ["caches", "cpu_features", "cpu_name", "triple"]
