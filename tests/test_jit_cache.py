"""The object-code disk cache: keyed by the module, bounded, and optional."""

from __future__ import annotations

import dataclasses
import errno
import os
import time
from pathlib import Path

import numpy as np
import pytest

import lamina
import lamina.version
from lamina.codegen import cache

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
    # one entry per kernel (compile-kernels), one for how it was lowered from
    # TE (recall-kernels), and one for @main's module
    stamps = {p.name: p.stat().st_mtime_ns for p in tmp_path.glob("*.o")}
    assert len(stamps) == 3
    out2, want2 = _run(seed=1)  # same module, other data: served from the cache
    np.testing.assert_allclose(out2, want2, rtol=1e-5, atol=1e-5)
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.glob("*.o")} == stamps


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
    for entry in tmp_path.glob("*.o"):  # the kernel's and @main's
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


# ------------------------------------------------- entries bound to key and compiler
def _text(n: int) -> str:
    """A module of its own (its own cache key) for each `n`."""
    return TEXT.replace("8x", f"{n}x")


def _compile_and_check(n: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, 16)).astype(np.float32)
    b = rng.standard_normal((16, 24)).astype(np.float32)
    out = lamina.compile(lamina.parse(_text(n)), num_threads=1).run(a, b)[0]
    np.testing.assert_allclose(out, np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder in use, and no note said yet in this process."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(folder))
    monkeypatch.delenv("LAMINA_CACHE", raising=False)
    monkeypatch.setattr(cache, "_noted", set())
    return folder


def _notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("lamina: the compile cache")]


def _leftovers(folder: Path) -> list[str]:
    """Files in the cache folder that are not entries (temporaries above all)."""
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith(".o")) if folder.exists() else []


def test_an_entry_copied_onto_another_key_is_a_miss(fresh_cache: Path) -> None:
    _compile_and_check(8)
    first = set(fresh_cache.glob("*.o"))  # its kernel's, its lowering's and its @main's
    _compile_and_check(9)
    second = set(fresh_cache.glob("*.o")) - first
    assert len(second) == 3
    donor = next(iter(first)).read_bytes()
    for entry in second:
        entry.write_bytes(donor)  # the other module's code, intact
    assert all(cache.cache_get(p.stem) is None for p in second)
    _compile_and_check(9, seed=1)  # misses: compiled again, right values (no NaN)
    assert all(cache.cache_get(p.stem) is not None for p in first | second)  # stored again


def test_an_entry_binds_key_and_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    key, other = "a" * 64, "b" * 64
    raw = cache.encode_entry(key, b"object code")
    assert raw.startswith(cache.MAGIC + key.encode() + b"\n")
    assert cache.decode_entry(key, raw) == b"object code"
    assert cache.decode_entry(other, raw) is None  # another key
    assert cache.decode_entry(other, raw.replace(key.encode(), other.encode())) is None
    assert cache.decode_entry(key, raw[:-1]) is None  # truncated
    assert cache.decode_entry(key, raw[:-1] + b"X") is None  # damaged
    assert cache.decode_entry(key, b"\0" * 32 + b"object code") is None  # the old format
    monkeypatch.setattr(lamina.version, "__version__", "0.0.0-other")
    assert cache.decode_entry(key, raw) is None  # another lamina
    monkeypatch.undo()
    monkeypatch.setattr(cache.llvmlite, "__version__", "0.0.0-other")
    assert cache.decode_entry(key, raw) is None  # another llvmlite
    monkeypatch.undo()
    me = cache.Target.host()
    other = dataclasses.replace(me, features=(*me.features, "+other"))
    monkeypatch.setattr(cache.Target, "host", staticmethod(lambda: other))
    assert cache.decode_entry(key, raw) is None  # another CPU
    monkeypatch.undo()
    assert cache.decode_entry(key, raw) == b"object code"


# ------------------------------------------------------------- failed writes
def _full_disk(monkeypatch: pytest.MonkeyPatch, folder: Path, capacity: int) -> None:
    """Make the cache's writes see a disk of `capacity` bytes holding `folder`:
    a write past it writes what fits, then fails with ENOSPC (as a real one)."""

    class Writer:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data: bytes) -> int:
            self.f.flush()
            used = sum(p.stat().st_size for p in folder.iterdir() if p.is_file())
            room = max(capacity - used, 0)
            if len(data) > room:
                self.f.write(data[:room])
                self.f.flush()
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return self.f.write(data)

    def open_(*a, **k) -> Writer:
        return Writer(open(*a, **k))  # Writer.__exit__ closes it

    monkeypatch.setattr(cache, "open", open_, raising=False)


def test_a_full_2mb_cache_survives_20_compiles(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    capacity = 2 * 2**20
    fresh_cache.mkdir()
    # The rest of the 2 MB disk is taken: a few entries fit, then writes fail.
    (fresh_cache / "other-data").write_bytes(b"\0" * (capacity - 40_000))
    _full_disk(monkeypatch, fresh_cache, capacity)
    for n in range(1, 21):
        _compile_and_check(n)
        assert _leftovers(fresh_cache) == ["other-data"]
    stored = list(fresh_cache.glob("*.o"))
    assert 0 < len(stored) < 2 * 20  # of a kernel's and an @main's entry per compile
    assert sum(p.stat().st_size for p in fresh_cache.iterdir()) <= capacity
    (note,) = _notes(capsys.readouterr().err)
    assert note == (
        f"lamina: the compile cache at {fresh_cache} is not writable "
        "(No space left on device); compiling without it"
    )
    for p in stored:  # what was stored is whole
        assert cache.cache_get(p.stem) is not None


def test_an_entry_path_that_is_a_folder(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    key = "c" * 64
    (fresh_cache / f"{key}.o").mkdir(parents=True)
    monkeypatch.setattr("lamina.codegen.jit.cache_key", lambda *a: key)
    for seed in range(3):
        _compile_and_check(8, seed)
    assert _leftovers(fresh_cache) == []
    assert (fresh_cache / f"{key}.o").is_dir()
    assert len(_notes(capsys.readouterr().err)) == 1


def test_an_unusable_cache_folder_is_noted_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(blocker))
    monkeypatch.delenv("LAMINA_CACHE", raising=False)
    monkeypatch.setattr(cache, "_noted", set())
    _compile_and_check(8)
    _compile_and_check(9)
    (note,) = _notes(capsys.readouterr().err)
    assert note.startswith(f"lamina: the compile cache at {blocker} is not writable (")
    assert note.endswith("); compiling without it")


def test_a_read_only_cache_folder(
    fresh_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fresh_cache.mkdir()
    fresh_cache.chmod(0o555)
    try:
        probe = fresh_cache / "probe"
        try:
            probe.write_text("")
        except PermissionError:
            pass
        else:
            probe.unlink()
            pytest.skip("chmod does not stop this user from writing (root)")
        for n in (8, 9, 10):
            _compile_and_check(n)
        assert list(fresh_cache.iterdir()) == []
        (note,) = _notes(capsys.readouterr().err)
        assert "(Permission denied)" in note
    finally:
        fresh_cache.chmod(0o755)


@pytest.mark.parametrize("error", [OSError(errno.EIO, "I/O error"), KeyboardInterrupt()])
def test_a_failed_write_removes_its_temporary(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    def fail(*_a: object) -> None:
        raise error

    monkeypatch.setattr(cache.os, "replace", fail)
    if isinstance(error, OSError):
        cache.cache_put("d" * 64, b"code")
    else:
        with pytest.raises(KeyboardInterrupt):
            cache.cache_put("d" * 64, b"code")
    assert list(fresh_cache.iterdir()) == []


def test_trimming_removes_stale_temporaries(tmp_path: Path) -> None:
    old = time.time() - cache.STALE_TEMP_SECONDS - 60
    names = {
        "stale": f".{'e' * 64}.x1y2.tmp",
        "stale-legacy": f".{'f' * 64}.abc123",  # earlier lamina: no suffix
        "fresh": f".{'0' * 64}.zz.tmp",  # a write under way in another process
        "foreign": ".hidden",
        "entry": f"{'1' * 64}.o",
    }
    for what, name in names.items():
        (tmp_path / name).write_bytes(b"x")
        if what != "fresh":
            os.utime(tmp_path / name, (old, old))
    cache._trim_cache(tmp_path)
    left = {p.name for p in tmp_path.iterdir()}
    assert left == {names["fresh"], names["foreign"], names["entry"]}


def test_cache_put_trims_stale_temporaries(fresh_cache: Path) -> None:
    fresh_cache.mkdir()
    stale = fresh_cache / f".{'e' * 64}.x1y2.tmp"
    stale.write_bytes(b"half an entry")
    old = time.time() - cache.STALE_TEMP_SECONDS - 60
    os.utime(stale, (old, old))
    _compile_and_check(8)
    assert not stale.exists()
    assert _leftovers(fresh_cache) == []


def test_a_read_only_cache_folder_simulated(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As the chmod test, for any user: creating a file in the folder fails."""

    def denied(*_a: object, **_k: object) -> tuple[int, str]:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    fresh_cache.mkdir()
    monkeypatch.setattr(cache.tempfile, "mkstemp", denied)
    for n in (8, 9):
        _compile_and_check(n)
    assert list(fresh_cache.iterdir()) == []
    (note,) = _notes(capsys.readouterr().err)
    assert "(Permission denied); compiling without it" in note
