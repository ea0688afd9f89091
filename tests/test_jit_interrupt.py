"""An interrupt (or any exception) while the JIT stores its object code reaches
the caller. (The store was once a ctypes callback from LLVM's object cache,
where an exception was printed, "Exception ignored on calling ctypes callback
function", and swallowed, so the compile went on and nothing was stored; the
JIT now stores `@main`'s object from Python, and these keep it that way.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import lamina
from lamina.codegen import cache, jit

TEXT = """
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x12xf32>) -> tensor<4x12xf32> {
  %0 = relay.matmul %a, %b : (tensor<4x8xf32>, tensor<8x12xf32>) -> tensor<4x12xf32>
  func.return %0 : tensor<4x12xf32>
}
"""


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache: compiling calls the store callback."""
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("LAMINA_CACHE", raising=False)
    return tmp_path


def _compile() -> lamina.CompiledModel:
    return lamina.compile(lamina.parse(TEXT), num_threads=1)


def _check(exe: lamina.CompiledModel) -> None:
    a = np.ones((4, 8), np.float32)
    b = np.ones((8, 12), np.float32)
    np.testing.assert_allclose(exe.run(a, b)[0], np.full((4, 12), 8.0))


@pytest.mark.parametrize("error", [KeyboardInterrupt, MemoryError, ValueError])
def test_an_exception_in_the_store_propagates(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], error: type[BaseException]
) -> None:
    def put(key: str, data: bytes) -> None:
        raise error("raised while storing")

    monkeypatch.setattr(jit, "cache_put", put)
    with pytest.raises(error, match="raised while storing"):
        _compile()
    assert "Exception ignored" not in capfd.readouterr().err
    monkeypatch.undo()
    _check(_compile())  # the JIT is usable afterwards


def test_sigint_during_the_store_interrupts_and_stores_nothing(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], fresh_cache: Path
) -> None:
    """A real SIGINT while the object is being stored: KeyboardInterrupt reaches
    the caller, no half-written entry is left, and the next compile stores it."""
    calls = []

    def put(key: str, data: bytes) -> None:
        calls.append(key)
        signal.raise_signal(signal.SIGINT)
        cache.cache_put(key, data)

    monkeypatch.setattr(jit, "cache_put", put)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        _compile()
    assert len(calls) == 1 and cache.cache_get(calls[0]) is None
    assert "Exception ignored" not in capfd.readouterr().err
    monkeypatch.undo()
    _check(_compile())
    assert cache.cache_get(calls[0]) is not None


def test_a_custom_sigint_handler_runs_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[int] = []
    monkeypatch.setattr(jit, "cache_put", lambda key, data: signal.raise_signal(signal.SIGINT))
    handler = lambda signum, _frame: seen.append(signum)  # noqa: E731
    previous = signal.signal(signal.SIGINT, handler)
    try:
        exe = _compile()  # the handler does not raise: compiling goes on
        assert seen == [signal.SIGINT]
        assert signal.getsignal(signal.SIGINT) is handler
    finally:
        signal.signal(signal.SIGINT, previous)
    _check(exe)


def test_an_interrupted_compile_exits_nonzero(tmp_path: Path) -> None:
    """The process that was interrupted while storing does not exit 0."""
    script = f"""
import signal
import lamina
from lamina.codegen import jit
jit.cache_put = lambda key, data: signal.raise_signal(signal.SIGINT)
lamina.compile(lamina.parse({TEXT!r}))
print("compiled")
"""
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
        env={**{k: v for k, v in os.environ.items() if k != "LAMINA_CACHE"},
             "LAMINA_CACHE_DIR": str(tmp_path)},
    )
    assert proc.returncode != 0
    assert "compiled" not in proc.stdout
    assert "KeyboardInterrupt" in proc.stderr
    assert "Exception ignored" not in proc.stderr
