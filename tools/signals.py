"""Signals for the `lamina` command: SIGINT and SIGTERM become exceptions in the
main thread, so `with` blocks (temporary folders, atomic writes) clean up before
the command exits 130 or 143. External tools (`cc` and the linker it starts) run
in their own process group and are killed as a group when the exception passes
through their wait (`lamina.process.run_tool`), so none of them writes a file
after the command removed its temporary files.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like SIGINT's KeyboardInterrupt, so that
    `with` blocks (temporary folders, atomic writes) clean up before the exit."""


_SIGNALLED: list[type[KeyboardInterrupt]] = []  # received under `signals_raise`


def check_signals() -> None:
    """Raise again a signal's exception that could not propagate: raised in Python
    code that C calls back (llvmlite's object cache), it is printed and dropped."""
    if _SIGNALLED:
        raise _SIGNALLED[0]()


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """While the block runs, SIGINT raises KeyboardInterrupt and SIGTERM
    `Terminated`, and both are remembered for `check_signals`; the same signal
    again ends the process at once, as without this. Only in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        exc = Terminated if signum == signal.SIGTERM else KeyboardInterrupt
        if exc in _SIGNALLED:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
        _SIGNALLED.append(exc)
        raise exc

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        _SIGNALLED.clear()


def release(exc: BaseException) -> None:
    """Free the frames a signal's exception `exc` cut short, without the noise of
    their objects' finalizers: an object whose constructor the signal interrupted
    can fail in its finalizer (an llvmlite handle never set), which Python would
    print as "Exception ignored in ..." after the command's last line."""
    hook = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: None
    cut: BaseException | None = exc
    try:  # (no gc.collect(): llvmlite objects in a cycle could be disposed out of order)
        while cut is not None:
            cut.__traceback__ = None
            cut = cut.__context__
    finally:
        sys.unraisablehook = hook


__all__ = ["Terminated", "check_signals", "release", "signals_raise"]
