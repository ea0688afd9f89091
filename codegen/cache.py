"""The on-disk cache of compiled object code, keyed by the module's structural hash.

Entries live in `LAMINA_CACHE_DIR`, else `$XDG_CACHE_HOME/lamina` or
`~/.cache/lamina` (`LAMINA_CACHE=0` turns the cache off). The entry `<key>.o` is

    MAGIC               b"lamina-object 3\\n": the format
    key, b"\\n"          the key it was written under
    digest              32 bytes: SHA-256 over MAGIC, key, `identity()` and the code
    code                the object code

where `identity()` names the compiler: lamina's version, llvmlite's, and the host
CPU's name and features. An entry is used only when it was written under this
key, by this compiler, and is intact: anything else (copied onto another key,
written by another lamina, llvmlite or CPU, truncated, damaged) is a miss, as the JIT
would crash or compute garbage with the wrong object code.

A write goes to a hidden temporary (`.<key>.<random>.tmp`) renamed over the entry,
so readers never see half an entry; a failed write removes its temporary. Before
each write the folder is trimmed: temporaries older than `STALE_TEMP_SECONDS`
(left by a killed process) go, and past `CACHE_MAX_ENTRIES` entries the least
recently written half. A cache that cannot be written is noted once per process
on stderr, and compiling goes on without it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm

from lamina import version
from lamina.target import Target

CACHE_MAX_ENTRIES = 2000
#: A temporary this old is left over from a write that died (a killed process).
STALE_TEMP_SECONDS = 600
#: The first bytes of an entry: the format of what follows.
MAGIC = b"lamina-object 3\n"
_DIGEST_BYTES = 32
_TEMP_SUFFIX = ".tmp"
#: Temporaries the cache writes (`.<key>.<random>.tmp`; earlier lamina: no suffix).
_TEMP_NAME = re.compile(r"\.[0-9a-f]{64}\..+")

_noted: set[str] = set()
_noted_lock = threading.Lock()


def cache_dir() -> Path | None:
    """Where compiled objects are cached (`LAMINA_CACHE_DIR`, else
    `~/.cache/lamina`); None when `LAMINA_CACHE=0` turns the cache off."""
    if os.environ.get("LAMINA_CACHE", "1") == "0":
        return None
    root = os.environ.get("LAMINA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "lamina"
    )
    return Path(root)


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """The cache off (`LAMINA_CACHE=0`) for the duration of a `with` block: a
    compile in it is a real compile whatever the environment says (benchmarks
    time cold compiles with it)."""
    old = os.environ.get("LAMINA_CACHE")
    os.environ["LAMINA_CACHE"] = "0"
    try:
        yield
    finally:
        if old is None:
            del os.environ["LAMINA_CACHE"]
        else:
            os.environ["LAMINA_CACHE"] = old


def cache_key(text: str, tm: llvm.TargetMachine, opt_level: int, target: Target) -> str:
    """The structural hash of a module: its LLVM IR, the target and the compiler
    (`identity`)."""
    h = hashlib.sha256()
    for part in (text, str(target), tm.triple, str(tm.target_data), str(opt_level)):
        h.update(part.encode())
        h.update(b"\0")
    h.update(identity())
    return h.hexdigest()


def identity() -> bytes:
    """The compiler an entry must come from: lamina's and llvmlite's versions and
    the host CPU's name and features."""
    me = Target.host()
    parts = ("lamina", version.__version__, "llvmlite", llvmlite.__version__, me.cpu, me.feature_string)
    return "\0".join(parts).encode()


def _header(key: str) -> bytes:
    return MAGIC + key.encode() + b"\n"


def _digest(key: str, data: bytes) -> bytes:
    h = hashlib.sha256(_header(key))
    h.update(identity())
    h.update(b"\0")
    h.update(data)
    return h.digest()


def encode_entry(key: str, data: bytes) -> bytes:
    """The bytes stored for object code `data` under `key`."""
    return _header(key) + _digest(key, data) + data


def decode_entry(key: str, raw: bytes) -> bytes | None:
    """The object code in entry bytes `raw`, or None unless they were written
    under `key` by this compiler and are intact."""
    header = _header(key)
    if not raw.startswith(header):
        return None
    start = len(header) + _DIGEST_BYTES
    digest, data = raw[len(header) : start], raw[start:]
    return data if data and _digest(key, data) == digest else None


def cache_get(key: str) -> bytes | None:
    """The object code stored under `key`, or None (absent, unreadable, damaged,
    or not this key's or this compiler's)."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        raw = (folder / f"{key}.o").read_bytes()
    except OSError:
        return None
    return decode_entry(key, raw)


def _trim_cache(folder: Path) -> None:
    """Keep the cache bounded: remove stale temporaries (older than
    `STALE_TEMP_SECONDS`) and, past `CACHE_MAX_ENTRIES` entries, the least
    recently written half."""
    entries: list[tuple[float, str]] = []
    stale_before = time.time() - STALE_TEMP_SECONDS
    with os.scandir(folder) as it:
        for e in it:
            try:
                if e.name.endswith(".o") and e.is_file(follow_symlinks=False):
                    entries.append((e.stat(follow_symlinks=False).st_mtime, e.path))
                elif (
                    _TEMP_NAME.fullmatch(e.name)
                    and e.is_file(follow_symlinks=False)
                    and e.stat(follow_symlinks=False).st_mtime < stale_before
                ):
                    _unlink(e.path)
            except OSError:  # gone meanwhile (another process trims too)
                continue
    if len(entries) <= CACHE_MAX_ENTRIES:
        return
    entries.sort()
    for _, path in entries[: len(entries) // 2]:
        _unlink(path)


def _unlink(path: str | os.PathLike[str]) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _note_unwritable(folder: Path, err: OSError) -> None:
    """Say once per process (per folder) that the cache cannot be written."""
    with _noted_lock:
        if str(folder) in _noted:
            return
        _noted.add(str(folder))
    reason = os.strerror(err.errno) if err.errno else str(err)
    print(
        f"lamina: the compile cache at {folder} is not writable ({reason}); "
        "compiling without it",
        file=sys.stderr,
    )


def cache_put(key: str, data: bytes) -> None:
    """Store object code atomically. A cache that cannot be written (read-only,
    full, not a folder) is skipped, with one note per process on stderr; a failed
    or interrupted write leaves no temporary behind."""
    folder = cache_dir()
    if folder is None:
        return
    tmp: str | None = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _trim_cache(folder)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{key}.", suffix=_TEMP_SUFFIX)
        with open(fd, "wb") as f:
            f.write(encode_entry(key, data))
        os.replace(tmp, folder / f"{key}.o")
        tmp = None
    except OSError as e:
        _note_unwritable(folder, e)
    finally:  # also on KeyboardInterrupt
        if tmp is not None:
            _unlink(tmp)


__all__ = [
    "CACHE_MAX_ENTRIES",
    "MAGIC",
    "STALE_TEMP_SECONDS",
    "cache_dir",
    "cache_get",
    "cache_key",
    "cache_put",
    "decode_entry",
    "disabled",
    "encode_entry",
    "identity",
]
