"""`lamina compile` interrupted: SIGINT exits 130, SIGTERM 143, and neither leaves a
partial output or a temporary file or folder (`lamina-export-*`) behind.

The subprocess tests signal a real `lamina compile` at a few points: after the first
pass and after the lowering to TIR (their `--print-ir-after all` dumps on stderr),
right after the last pass (LLVM code generation, where llvmlite calls back into
Python), and while the export's temporary folder exists (assembling, linking: `cc`
and the linker it runs must not write after the clean-up); TMPDIR is a fresh
folder that must be empty afterwards. (A signal after the command's work is done,
while Python shuts down, is not tested: the output is complete then.)
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import onnx
import pytest

from lamina.codegen import export
from lamina.runtime.seal import check_seal
from lamina.tools import cli
from lamina.tools.demo import mlp_model

LAMINA = Path(sys.executable).parent / "lamina"
EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143}
LAST_LINE = {signal.SIGINT: "lamina: interrupted", signal.SIGTERM: "lamina: terminated"}


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("model") / "mlp.onnx"
    onnx.save(mlp_model(), str(path))  # 784-512-512-10: about a second to compile
    return path


def _reached(phase: str, stderr: Path, tmpdir: Path) -> bool:
    if phase == "export":
        return any(p.name.startswith("lamina-export-") for p in tmpdir.iterdir())
    after = {"passes": "", "lowering": " lower-te-to-tir", "codegen": " lower-tir-to-llvm"}
    return f"IR Dump After{after[phase]}" in stderr.read_text(errors="replace")


def _interrupt(model: Path, tmp: Path, sig: int, phase: str, delay: float, extra=()) -> tuple[int, str, Path, Path]:
    """Run `lamina compile`, send `sig` `delay` s after `phase` began; return the
    exit code, stderr, the output folder and TMPDIR."""
    tmpdir, out = tmp / "tmp", tmp / "out"
    tmpdir.mkdir()
    out.mkdir()
    stderr = tmp / "stderr.txt"
    env = {**os.environ, "TMPDIR": str(tmpdir), "LAMINA_CACHE": "0"}
    argv = [str(LAMINA), "compile", str(model), "--print-ir-after", "all", *extra]
    with stderr.open("w") as err:
        proc = subprocess.Popen(argv, cwd=out, stdout=subprocess.DEVNULL, stderr=err, env=env)
        try:
            deadline = time.monotonic() + 300
            while not _reached(phase, stderr, tmpdir):
                assert proc.poll() is None, f"finished before {phase}: {stderr.read_text()[-2000:]}"
                assert time.monotonic() < deadline, f"{phase} never began"
                time.sleep(0.002)
            time.sleep(delay)
            assert proc.poll() is None, f"finished before the signal ({phase} + {delay} s)"
            proc.send_signal(sig)
            code = proc.wait(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return code, stderr.read_text(errors="replace"), out, tmpdir


@pytest.mark.parametrize(
    ("sig", "phase", "delay", "extra"),
    [
        (signal.SIGINT, "passes", 0.0, ("-o", "m.so")),
        (signal.SIGINT, "lowering", 0.0, ("-o", "m.so")),
        (signal.SIGINT, "codegen", 0.0, ("-o", "m.so")),
        (signal.SIGINT, "export", 0.0, ("-o", "m.so")),
        (signal.SIGINT, "passes", 0.05, ("--emit", "tir", "-o", "m.mlir")),
        (signal.SIGTERM, "passes", 0.1, ("-o", "m.so")),
        (signal.SIGTERM, "lowering", 0.0, ("-o", "m.so")),
        (signal.SIGTERM, "codegen", 0.0, ("-o", "m.so")),
        (signal.SIGTERM, "export", 0.0, ("-o", "m.so")),
        (signal.SIGTERM, "export", 0.02, ("-o", "m.so")),
    ],
    ids=lambda v: v.name if isinstance(v, signal.Signals) else None,
)
def test_a_signal_leaves_nothing_behind(model, tmp_path, sig, phase, delay, extra):
    code, err, out, tmpdir = _interrupt(model, tmp_path, sig, phase, delay, extra)
    assert code == EXIT[sig], err[-2000:]
    assert err.rstrip().splitlines()[-1] == LAST_LINE[sig]
    assert list(tmpdir.iterdir()) == [], "temporary files left behind"
    written = list(out.iterdir())
    if phase == "export" and written:
        # The signal can land after the library was moved into place (on a
        # loaded machine the last steps of an export outrun this test's
        # polling): then the file is whole, never a partial one.
        assert [p.name for p in written] == ["m.so"]
        check_seal(written[0])
    else:
        assert written == [], "a (partial) output was written"


# ------------------------------------------------------------- in the process
@pytest.fixture
def main_thread():
    """In the main thread (where lamina installs its handlers), with a SIGTERM
    handler that fails the test instead of ending pytest if lamina has none."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are only installed in the main thread")

    def unhandled(signum: int, frame: object) -> None:
        raise AssertionError("SIGTERM reached the test: lamina did not handle it")

    previous = signal.signal(signal.SIGTERM, unhandled)
    yield unhandled
    signal.signal(signal.SIGTERM, previous)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_a_signal_swallowed_by_a_c_callback_still_ends_the_command(
    model, tmp_path, monkeypatch, main_thread, sig, capsys
):
    """llvmlite calls back into Python during code generation; an exception raised
    there by a signal is printed and dropped by ctypes. The command still stops
    with the signal's exit code, before writing its output."""
    real = cli.lamina_compile

    def compile_then_signal_in_a_callback(*args, **kwargs):
        exe = real(*args, **kwargs)

        @ctypes.CFUNCTYPE(None)
        def callback() -> None:
            os.kill(os.getpid(), sig)
            time.sleep(0.01)  # the handler runs (and raises) here

        callback()  # ctypes prints "Exception ignored ..." and goes on
        return exe

    monkeypatch.setattr(cli, "lamina_compile", compile_then_signal_in_a_callback)
    out = tmp_path / "m.so"
    assert cli.main(["compile", str(model), "-o", str(out)]) == EXIT[sig]
    assert capsys.readouterr().err.rstrip().splitlines()[-1] == LAST_LINE[sig]
    assert not out.exists()
    assert signal.getsignal(signal.SIGTERM) is main_thread  # handlers restored
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


class _Handle:
    """Like an llvmlite object: its finalizer needs what the constructor sets last."""

    def __init__(self, sig: int) -> None:
        os.kill(os.getpid(), sig)
        time.sleep(0.01)  # the handler raises here, before the handle is set
        self.handle = 1

    def __del__(self) -> None:
        del self.handle


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_a_signal_in_a_constructor_ends_quietly(model, tmp_path, monkeypatch, main_thread, sig, capsys):
    """An object whose constructor the signal cut short fails in its finalizer; the
    command's last line is still the signal's, with no "Exception ignored" after it."""
    ignored = []
    monkeypatch.setattr(sys, "unraisablehook", ignored.append)

    def interrupted(*args, **kwargs):
        _Handle(sig)

    monkeypatch.setattr(cli, "lamina_compile", interrupted)
    assert cli.main(["compile", str(model), "-o", str(tmp_path / "m.so")]) == EXIT[sig]
    assert ignored == []
    assert capsys.readouterr().err.rstrip().splitlines()[-1] == LAST_LINE[sig]


def test_sigterm_during_export_removes_its_temporary_folder(
    model, tmp_path, monkeypatch, main_thread, capsys
):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(tmpdir))
    seen = []

    def link_interrupted(cmd, cwd, what):
        seen.append(Path(cwd))
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.01)

    monkeypatch.setattr(export, "_run", link_interrupted)
    out = tmp_path / "m.so"
    assert cli.main(["compile", str(model), "-o", str(out)]) == 143
    assert seen and seen[0].name.startswith("lamina-export-")
    assert list(tmpdir.iterdir()) == [] and not out.exists()


SLOW_CC = """#!/bin/sh
# cc whose work runs in a grandchild a moment later, as gcc runs collect2 and ld;
# the grandchild says when it links
sh -c 'case " $* " in *" -shared "*) touch "$LINK_MARK";; esac
       sleep 0.5; exec cc "$@"' sh "$@"
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_the_processes_cc_runs_end_with_the_command(model, tmp_path, sig):
    """Killing `cc` alone would leave its linker running, to write the library's
    temporary file after the command removed it: the signal is passed on."""
    cc = tmp_path / "slow-cc"
    cc.write_text(SLOW_CC)
    cc.chmod(0o755)
    tmpdir, out, mark = tmp_path / "tmp", tmp_path / "out", tmp_path / "linking"
    tmpdir.mkdir()
    out.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir), "LAMINA_CACHE": "0", "CC": str(cc), "LINK_MARK": str(mark)}
    proc = subprocess.Popen(
        [str(LAMINA), "compile", str(model), "-o", "m.so"],
        cwd=out, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 300
    while not mark.exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.005)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == EXIT[sig], err
    time.sleep(1.0)  # longer than the linker would have waited
    assert list(out.iterdir()) == [] and list(tmpdir.iterdir()) == []
