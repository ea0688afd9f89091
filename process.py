"""Running external tools (the C compiler and the linker it starts) so that an
interrupt leaves nothing running.

`run_tool` runs a command in its own process group and, if anything interrupts
the wait (Ctrl-C, SIGTERM turned into an exception, a timeout), kills the whole
group and reaps it before the exception goes on: no linker keeps writing into a
temporary folder that is being removed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path


def _end_group(proc: subprocess.Popen[str], wait: float = 5.0) -> None:
    """Kill the command's process group and wait until every member is gone (a
    member may finish a system call, such as creating a file, before it dies)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.005)


def run_tool(
    cmd: list[str], cwd: str | Path | None = None, timeout: float | None = None
) -> subprocess.CompletedProcess[str]:
    """`subprocess.run(cmd, capture_output=True, text=True)`, with the command and
    its children killed as a group when the wait is interrupted."""
    proc = subprocess.Popen(
        cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        _end_group(proc)
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


__all__ = ["run_tool"]
