"""Running external tools (the C compiler and the linker it starts) so that an
interrupt leaves nothing running.

`run_tool` runs a command in its own process group and, if anything interrupts
the wait (Ctrl-C, SIGTERM turned into an exception, a timeout), kills the whole
group (`end_group`, which also ends a tuning worker) and reaps it before the
exception goes on: no linker keeps writing into a temporary folder that is
being removed, and the tool's own TMPDIR (a folder of its own) goes with
whatever it left there. `interrupts_deferred` holds SIGINT and
SIGTERM back over the few steps that must not be cut in two (starting a child,
creating and naming a temporary file).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_DEFERRED = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM that arrive during the block are delivered when it ends,
    to whatever handlers were installed before (so an exception they raise comes
    from the end of the block, never from inside it). Child processes started in
    the block see the usual signal mask and handlers. Main thread only (Python
    runs signal handlers nowhere else); elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def remember(signum: int, frame: object) -> None:
        pending.append(signum)

    previous = {s: signal.signal(s, remember) for s in _DEFERRED}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        for s in dict.fromkeys(pending):
            signal.raise_signal(s)


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)


def _group_running(pgid: int) -> bool:
    """Whether a process of group `pgid` still runs. Zombies do not count: a
    member whose parent died is reparented to PID 1, which may never reap it."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    for stat in proc.glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue  # it ended while we looked
        state, _ppid, group = text[text.rfind(")") + 2 :].split()[:3]
        if int(group) == pgid and state not in "ZXx":
            return True
    return False


def _wait_ended(pgid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _group_running(pgid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.005)
    return True


def end_group(proc: subprocess.Popen[Any], grace: float = 1.0, wait: float = 5.0) -> None:
    """End the command's process group and wait until no member runs (a member
    may finish a system call, such as creating a file, before it dies).

    SIGTERM first: `cc`, `collect2` and `ld` remove their own temporary files
    (`/tmp/cc*.res`, ...) on it; SIGKILL for whatever still runs after `grace`."""
    _signal_group(proc.pid, signal.SIGTERM)
    if not _wait_ended(proc.pid, grace):
        _signal_group(proc.pid, signal.SIGKILL)
        _wait_ended(proc.pid, wait)
    proc.wait()


def run_tool(
    cmd: list[str], cwd: str | Path | None = None, timeout: float | None = None
) -> subprocess.CompletedProcess[str]:
    """`subprocess.run(cmd, capture_output=True, text=True)`, with the command and
    its children killed as a group when the wait is interrupted.

    The command gets a TMPDIR of its own, removed when it has ended: what a tool
    killed mid-way leaves there (`collect2`'s `cc*.res`, written by `ld` after
    `collect2` cleaned up) goes with it."""
    proc: subprocess.Popen[str] | None = None
    scratch: str | None = None
    try:
        # An interrupt inside mkdtemp or Popen (it waits for the exec) would lose
        # the folder or the child.
        with interrupts_deferred():
            scratch = tempfile.mkdtemp(prefix="lamina-tool-")
            proc = subprocess.Popen(
                cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, start_new_session=True, env={**os.environ, "TMPDIR": scratch},
            )
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        if proc is not None:
            end_group(proc)
        raise
    finally:
        if scratch is not None:
            with interrupts_deferred():  # (removed whole, even if interrupted)
                shutil.rmtree(scratch, ignore_errors=True)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


__all__ = ["end_group", "interrupts_deferred", "run_tool"]
