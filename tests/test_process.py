"""`lamina.process`: external tools end with an interrupt, wherever it lands, and
`interrupts_deferred` holds SIGINT/SIGTERM back over steps that must not be cut."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from lamina import process


class Interrupted(Exception):
    pass


@pytest.fixture
def raising_sigterm():
    """SIGTERM raises `Interrupted` (in the main thread, where handlers run)."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers only run in the main thread")

    def handler(signum: int, frame: object) -> None:
        raise Interrupted

    previous = signal.signal(signal.SIGTERM, handler)
    yield handler
    signal.signal(signal.SIGTERM, previous)


def test_a_deferred_signal_arrives_when_the_block_ends(raising_sigterm):
    reached = []
    with pytest.raises(Interrupted), process.interrupts_deferred():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)  # a handler would run here
        reached.append("end of block")
    assert reached == ["end of block"]
    assert signal.getsignal(signal.SIGTERM) is raising_sigterm


def test_nothing_is_delivered_when_no_signal_came(raising_sigterm):
    with process.interrupts_deferred():
        pass
    assert signal.getsignal(signal.SIGTERM) is raising_sigterm


def test_a_child_started_in_the_block_sees_the_usual_signal_mask(raising_sigterm):
    probe = "import signal; print(sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])))"
    with process.interrupts_deferred():
        out = process.run_tool([sys.executable, "-c", probe]).stdout
    assert out.strip() == "[]"


def test_an_interrupt_while_the_tool_starts_ends_the_tool(raising_sigterm, tmp_path, monkeypatch):
    """A signal while `Popen` waits for the exec (here: right after the child is
    created) must not leave the tool running unseen, to write a file later."""
    mark = tmp_path / "written-after-the-interrupt"

    class SignalledPopen(subprocess.Popen):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.01)

    monkeypatch.setattr(process.subprocess, "Popen", SignalledPopen)
    with pytest.raises(Interrupted):
        process.run_tool(["sh", "-c", f"sleep 0.3; touch '{mark}'"])
    time.sleep(0.6)
    assert not mark.exists()


def test_a_timeout_ends_the_tool_and_its_children(tmp_path):
    mark = tmp_path / "written-by-a-grandchild"
    with pytest.raises(subprocess.TimeoutExpired):
        process.run_tool(["sh", "-c", f"(sleep 0.3; touch '{mark}') & wait"], timeout=0.05)
    time.sleep(0.6)
    assert not mark.exists()


def test_a_tools_temporary_files_go_with_it(tmp_path, monkeypatch):
    """The tool runs with a TMPDIR of its own, removed when it ends: nothing it
    leaves there (a linker's `cc*.res`) survives it."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    tempfile.tempdir = None  # (read TMPDIR again)
    try:
        done = process.run_tool(["sh", "-c", 'touch "$TMPDIR/cc1.res"; echo "$TMPDIR"'])
    finally:
        tempfile.tempdir = None
    scratch = Path(done.stdout.strip())
    assert scratch.parent == tmp_path and not scratch.exists()
    assert list(tmp_path.iterdir()) == []
