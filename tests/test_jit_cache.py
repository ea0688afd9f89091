"""The object-code disk cache: keyed by the module, bounded, and optional."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import lamina
from lamina.runtime import cache

TEXT = """
func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x24xf32>) -> tensor<8x24xf32> {
  %0 = relay.matmul %a, %b : (tensor<8x16xf32>, tensor<16x24xf32>) -> tensor<8x24xf32>
  %1 = relay.relu %0 : tensor<8x24xf32>
  func.return %1 : tensor<8x24xf32>
}
"""


def _run(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((8, 16)).astype(np.float32)
    b = rng.standard_normal((16, 24)).astype(np.float32)
    out = lamina.compile(lamina.parse(TEXT), num_threads=1).run(a, b)[0]
    return out, np.maximum(a @ b, 0)


def test_a_second_compile_hits_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("LAMINA_CACHE", raising=False)
    out, want = _run()
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    objects = list(tmp_path.glob("*.o"))
    assert len(objects) == 1
    stamp = objects[0].stat().st_mtime_ns
    out2, want2 = _run(seed=1)  # same module, other data: served from the cache
    np.testing.assert_allclose(out2, want2, rtol=1e-5, atol=1e-5)
    assert [p.stat().st_mtime_ns for p in tmp_path.glob("*.o")] == [stamp]


def test_cache_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("LAMINA_CACHE", "0")
    out, want = _run()
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    assert not list(tmp_path.glob("*.o"))


def test_cache_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "CACHE_MAX_ENTRIES", 4)
    for i in range(6):
        entry = tmp_path / f"{i:02d}.o"
        entry.write_bytes(b"x")
        os.utime(entry, ns=(i * 10**9, i * 10**9))
    cache._trim_cache(tmp_path)
    assert sorted(p.name for p in tmp_path.glob("*.o")) == ["03.o", "04.o", "05.o"]


def test_a_damaged_entry_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("LAMINA_CACHE", raising=False)
    _run()
    (entry,) = tmp_path.glob("*.o")
    entry.write_bytes(entry.read_bytes()[:100] + b"garbage")
    out, want = _run(seed=2)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_an_unusable_cache_folder_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache folder that cannot be made is skipped; compiling still works."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(blocker))
    monkeypatch.delenv("LAMINA_CACHE", raising=False)
    out, want = _run()
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
