"""Atomic file output: a failure never leaves a half-written file behind.

`write_atomic(path, data)` writes bytes or text; `write_atomic_with(path, produce)`
lets `produce(tmp)` create the file (a linker, a copy) at a temporary path in the
same folder, which then replaces `path` in one `os.replace`.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from lamina.errors import LaminaError
from lamina.process import interrupts_deferred


def check_writable(path: str | os.PathLike[str]) -> Path:
    """`path` as a Path, or a `LaminaError` if its folder does not exist or it
    names a folder."""
    target = Path(path)
    if not target.parent.is_dir():
        raise LaminaError(
            f"cannot write '{target}': folder '{target.parent}' does not exist"
        )
    if target.is_dir():
        raise LaminaError(f"cannot write '{target}': it is a folder")
    return target


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def temporary_folder(prefix: str) -> tempfile.TemporaryDirectory[str]:
    """A `tempfile.TemporaryDirectory` (use it in a `with`), created while SIGINT
    and SIGTERM wait: one arriving between the folder's creation and its
    cleanup's registration would otherwise leave it behind."""
    with interrupts_deferred():
        return tempfile.TemporaryDirectory(prefix=prefix)


def write_atomic_with(
    path: str | os.PathLike[str], produce: Callable[[Path], None]
) -> None:
    """Call `produce(tmp)` to write a temporary file next to `path`, then move it
    into place; on any failure the temporary file is removed and `path` is left
    as it was."""
    target = check_writable(path)
    # SIGINT and SIGTERM (which the command turns into exceptions) wait while the
    # temporary file is created and named: once it exists, the `except` below
    # knows it and removes it.
    tmp: Path | None = None
    try:
        with interrupts_deferred():
            fd, name = tempfile.mkstemp(
                dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
            )
            tmp = Path(name)
        os.close(fd)
        produce(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600 -> the usual mode
        os.replace(tmp, target)
    except OSError as e:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise LaminaError(f"cannot write '{target}': {e.strerror or e}") from None
    except BaseException:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise


def write_atomic(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write `data` (text is UTF-8 encoded) to `path` atomically."""
    raw = data.encode() if isinstance(data, str) else data

    def produce(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())

    write_atomic_with(path, produce)


__all__ = ["check_writable", "temporary_folder", "write_atomic", "write_atomic_with"]
