"""The on-disk cache of compiled object code, keyed by the module's structural hash.

Entries live in `LAMINA_CACHE_DIR`, else `~/.cache/lamina` (`LAMINA_CACHE=0` turns
the cache off). Each entry is the SHA-256 of its object code followed by the code;
a damaged entry is a miss (MCJIT would crash on bad object code). Writes are
atomic; the cache stays bounded (`CACHE_MAX_ENTRIES`).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm

CACHE_MAX_ENTRIES = 2000


def cache_dir() -> Path | None:
    """Where compiled objects are cached (`LAMINA_CACHE_DIR`, else
    `~/.cache/lamina`); None when `LAMINA_CACHE=0` turns the cache off."""
    if os.environ.get("LAMINA_CACHE", "1") == "0":
        return None
    root = os.environ.get("LAMINA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "lamina"
    )
    return Path(root)


def cache_key(text: str, tm: llvm.TargetMachine, opt_level: int) -> str:
    """The structural hash of a module: its LLVM IR, the target and the versions."""
    h = hashlib.sha256()
    for part in (text, tm.triple, llvm.get_host_cpu_name(), tm.target_data and str(tm.target_data),
                 llvm.get_host_cpu_features().flatten(), str(opt_level), llvmlite.__version__, "2"):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def cache_get(key: str) -> bytes | None:
    """The object code stored under `key`, or None (absent, unreadable, damaged)."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        raw = (folder / f"{key}.o").read_bytes()
    except OSError:
        return None
    digest, data = raw[:32], raw[32:]
    return data if hashlib.sha256(data).digest() == digest else None


def _trim_cache(folder: Path) -> None:
    """Keep the cache bounded: past `CACHE_MAX_ENTRIES` objects, drop the least
    recently written half."""
    entries = list(folder.glob("*.o"))
    if len(entries) <= CACHE_MAX_ENTRIES:
        return
    entries.sort(key=lambda p: p.stat().st_mtime)
    for old in entries[: len(entries) // 2]:
        old.unlink(missing_ok=True)


def cache_put(key: str, data: bytes) -> None:
    """Store object code atomically; a cache that cannot be written is skipped."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _trim_cache(folder)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{key}.")
        with os.fdopen(fd, "wb") as f:
            f.write(hashlib.sha256(data).digest() + data)
        os.replace(tmp, folder / f"{key}.o")
    except OSError:
        pass


__all__ = ["CACHE_MAX_ENTRIES", "cache_dir", "cache_get", "cache_key", "cache_put"]
