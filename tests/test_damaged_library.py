"""Damaged exported libraries: `lamina.load` verifies the seal before `dlopen`.

A corpus of damaged copies of one exported model (truncations, byte flips in the
ELF header, program headers, section headers, dynamic section, code, weights and
the seal) is loaded and run in subprocesses, so a signal is a test failure
attributed to its variant, not a crash of pytest: each variant must be refused
with a `LaminaError` naming the file, or run exactly like the intact library.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import lamina
from lamina.runtime.library import VERIFY_ENV
from lamina.runtime.seal import SEAL_MAGIC, SEAL_SIZE
from lamina.tools.demo import mlp_model


def _x() -> np.ndarray:
    return np.linspace(-2, 2, 16, dtype=np.float32).reshape(1, 16)


@pytest.fixture(scope="module")
def exe() -> lamina.CompiledModel:
    return lamina.compile(mlp_model((16, 8, 4)))


@pytest.fixture(scope="module")
def intact(exe, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("intact") / "mlp.so"
    exe.export(path)
    return path


# --------------------------------------------------------------------- corpus
def _sections(data: bytes) -> dict[str, tuple[int, int, int]]:
    """ELF64 sections by name: (file offset, size, offset of the header)."""
    (e_shoff,) = struct.unpack_from("<Q", data, 40)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", data, 58)
    (strtab,) = struct.unpack_from("<Q", data, e_shoff + e_shstrndx * e_shentsize + 24)
    out = {}
    for i in range(e_shnum):
        header = e_shoff + i * e_shentsize
        name, _type, _flags, _addr, offset, size = struct.unpack_from("<IIQQQQ", data, header)
        end = data.index(b"\0", strtab + name)
        out[data[strtab + name : end].decode()] = (offset, size, header)
    return out


def _flip(data: bytes, offset: int, mask: int = 0xFF) -> bytes:
    b = bytearray(data)
    b[offset] ^= mask
    return bytes(b)


def corpus(data: bytes, weights: bytes) -> dict[str, bytes]:
    """Damaged variants of the library `data` whose first weight is `weights`."""
    size = len(data)
    out: dict[str, bytes] = {}
    for pct in (1, 3, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99):
        out[f"truncated-{pct}%"] = data[: size * pct // 100]
    out["truncated-1-byte"] = data[:-1]
    out["seal-cut-off"] = data[:-SEAL_SIZE]
    out["appended-16-bytes"] = data + b"\0" * 16
    for field, offset in {
        "ei_class": 4, "ei_data": 5, "ei_version": 6, "ei_osabi": 7, "e_type": 16,
        "e_machine": 18, "e_version": 20, "e_phoff": 32, "e_phoff-hi": 33, "e_shoff": 40,
        "e_ehsize": 52, "e_phentsize": 54, "e_phnum": 56, "e_shentsize": 58,
        "e_shnum": 60, "e_shstrndx": 62,
    }.items():
        out[f"elf-header-{field}"] = _flip(data, offset)
    (e_phoff,) = struct.unpack_from("<Q", data, 32)
    e_phentsize, e_phnum = struct.unpack_from("<HH", data, 54)
    for i in range(min(e_phnum, 4)):
        ph = e_phoff + i * e_phentsize
        out[f"phdr{i}-p_type"] = _flip(data, ph, 0x01)
        out[f"phdr{i}-p_offset"] = _flip(data, ph + 8 + 1, 0x10)
        out[f"phdr{i}-p_filesz"] = _flip(data, ph + 32 + 2, 0x40)
    sections = _sections(data)
    for name in (".dynsym", ".dynamic", ".text", ".rodata"):
        _, _, header = sections[name]
        out[f"shdr{name}-sh_offset"] = _flip(data, header + 24 + 1, 0x20)
        out[f"shdr{name}-sh_size"] = _flip(data, header + 32 + 1, 0x08)
    for name in (".dynamic", ".dynsym"):
        offset, length, _ = sections[name]
        for k in (1, 2):
            out[f"{name}-byte-{k}"] = _flip(data, offset + length * k // 3, 0x04)
    offset, length, _ = sections[".text"]
    for k in range(1, 9):
        out[f"text-byte-{k}"] = _flip(data, offset + length * k // 9, 1 << (k % 8))
    at = data.find(weights)
    assert at > 0, "the weights are not in the library"
    for k in range(8):
        out[f"weights-byte-{k}"] = _flip(data, at + len(weights) * k // 8, 0x01 << k)
    out["seal-record"] = _flip(data, size - SEAL_SIZE - 3, 0x01)
    out["seal-magic"] = _flip(data, size - SEAL_SIZE, 0x01)
    out["seal-size-field"] = _flip(data, size - SEAL_SIZE + 16, 0x01)
    out["seal-digest"] = _flip(data, size - 1, 0x80)
    return out


RUNNER = r"""
import json, sys
import numpy as np
import lamina

x, want = np.load(sys.argv[1]), np.load(sys.argv[2])
for name, path in json.load(sys.stdin):
    print("BEGIN", name, flush=True)
    try:
        got = lamina.load(path).run(x)[0]
    except lamina.LaminaError as e:
        print("REFUSED", name, json.dumps(str(e)), flush=True)
        continue
    except BaseException as e:
        print("RAISED", name, json.dumps(f"{type(e).__name__}: {e}"), flush=True)
        continue
    print("SAME" if got.tobytes() == want.tobytes() else "WRONG", name, flush=True)
"""


def run_variants(variants: list[tuple[str, str]], x: Path, want: Path) -> dict[str, tuple[str, str]]:
    """Load and run each variant in a subprocess loop: name -> (verdict, detail).
    A process killed by a signal (or hanging) is attributed to the variant it
    had begun, and the loop goes on with the next ones in a fresh process."""
    results: dict[str, tuple[str, str]] = {}
    todo = list(variants)
    while todo:
        proc = subprocess.Popen(
            [sys.executable, "-c", RUNNER, str(x), str(want)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            out, err = proc.communicate(json.dumps(todo), timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        begun = None
        for line in out.splitlines():
            verdict, name, *rest = line.split(" ", 2)
            if verdict == "BEGIN":
                begun = name
            else:
                results[name] = (verdict, json.loads(rest[0]) if rest else "")
                begun = None
        if begun is not None:
            results[begun] = ("CRASHED", f"exit code {proc.returncode}: {err[-500:]}")
        elif proc.returncode != 0 and not any(n in results for n, _ in todo):
            raise AssertionError(f"the runner failed: {err[-2000:]}")
        todo = [(n, p) for n, p in todo if n not in results]
    return results


def test_damaged_libraries_are_refused_or_run_exactly(exe, intact, tmp_path):
    data = intact.read_bytes()
    variants = corpus(data, np.ascontiguousarray(exe._params[0]).tobytes())
    assert len(variants) >= 40
    paths = []
    for i, (name, raw) in enumerate(variants.items()):
        path = tmp_path / f"v{i:03d}.so"
        path.write_bytes(raw)
        paths.append((name, str(path)))
    np.save(tmp_path / "x.npy", _x())
    np.save(tmp_path / "want.npy", lamina.load(intact).run(_x())[0])
    results = run_variants(paths, tmp_path / "x.npy", tmp_path / "want.npy")
    assert set(results) == set(variants)
    bad = {n: r for n, r in results.items() if r[0] not in ("REFUSED", "SAME")}
    assert not bad, f"crashed, wrong or unexpected: {bad}"
    where = dict(paths)
    for name, (verdict, message) in results.items():
        if verdict == "REFUSED":
            assert f"'{where[name]}'" in message and "export" in message, (name, message)
    refused = {n for n, r in results.items() if r[0] == "REFUSED"}
    assert {n for n in variants if n.startswith(("truncated", "weights", "text"))} <= refused


# ---------------------------------------------------------------------- seal
def test_the_seal_is_a_sha256_of_everything_before_it(intact):
    data = intact.read_bytes()
    assert data[-SEAL_SIZE : -SEAL_SIZE + 8] == SEAL_MAGIC
    assert hashlib.sha256(data[:-32]).digest() == data[-32:]
    assert struct.unpack_from("<Q", data, len(data) - SEAL_SIZE + 16)[0] == len(data)


def test_damage_is_a_lamina_error_naming_the_file(intact, tmp_path):
    data = intact.read_bytes()
    cut = tmp_path / "cut.so"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(lamina.LaminaError, match=rf"'{re.escape(str(cut))}'.*not a lamina library.*export"):
        lamina.load(cut)
    flipped = tmp_path / "flipped.so"
    flipped.write_bytes(_flip(data, len(data) // 3, 0x01))
    with pytest.raises(lamina.LaminaError, match=rf"'{re.escape(str(flipped))}': the library is damaged \(its SHA-256"):
        lamina.load(flipped)


def test_verify_false_skips_the_check(intact, tmp_path, monkeypatch):
    data = intact.read_bytes()
    bad_digest = tmp_path / "bad-digest.so"
    bad_digest.write_bytes(_flip(data, len(data) - 1, 0x01))  # the code is intact
    want = lamina.load(intact).run(_x())[0]
    with pytest.raises(lamina.LaminaError, match="damaged"):
        lamina.load(bad_digest)
    np.testing.assert_array_equal(lamina.load(bad_digest, verify=False).run(_x())[0], want)
    monkeypatch.setenv(VERIFY_ENV, "0")
    np.testing.assert_array_equal(lamina.load(bad_digest).run(_x())[0], want)
    with pytest.raises(lamina.LaminaError, match="damaged"):
        lamina.load(bad_digest, verify=True)  # the argument wins over the variable
    unsealed = tmp_path / "unsealed.so"  # as a lamina before the seal wrote it
    record_size = struct.unpack_from("<I", data, len(data) - SEAL_SIZE + 12)[0]
    unsealed.write_bytes(data[: len(data) - SEAL_SIZE - record_size])
    monkeypatch.delenv(VERIFY_ENV)
    with pytest.raises(lamina.LaminaError, match="verify=False"):
        lamina.load(unsealed)
    np.testing.assert_array_equal(lamina.load(unsealed, verify=False).run(_x())[0], want)


def test_a_reexported_library_is_sealed_too(intact, tmp_path):
    again = tmp_path / "again.so"
    lamina.load(intact).export(again)
    data = again.read_bytes()
    assert hashlib.sha256(data[:-32]).digest() == data[-32:]
    lamina.load(again)


def test_the_check_is_fast_on_a_large_library(tmp_path):
    """The seal check reads 100 MB in well under a second (CPU time: other
    processes on a busy machine do not count; about 0.1 s with SHA-NI)."""
    import time

    from lamina.runtime.seal import check_seal, seal

    path = tmp_path / "big.so"
    with path.open("wb") as f:
        f.write(b"\x7fELF")
        f.truncate(100 << 20)
    seal(path, {"format": "lamina-seal", "version": 1, "needs": []})
    start = time.process_time()
    check_seal(path)
    assert time.process_time() - start < 0.8


# ------------------------------------------------------------ temp folders
def test_loading_a_reexported_path_leaves_no_temp_folder(tmp_path, monkeypatch):
    """Loading a path whose file was replaced goes through a symlink in a temp
    folder (the loader would return the old library by name); the folder is
    removed once the library is open."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    path = tmp_path / "m.so"
    a = lamina.compile(mlp_model((16, 8, 4), seed=3))
    b = lamina.compile(mlp_model((16, 8, 4), seed=4))
    a.export(path)
    np.testing.assert_array_equal(lamina.load(path).run(_x())[0], a.run(_x())[0])
    b.export(path)
    np.testing.assert_array_equal(lamina.load(path).run(_x())[0], b.run(_x())[0])
    a.export(path)
    np.testing.assert_array_equal(lamina.load(path).run(_x())[0], a.run(_x())[0])
    assert [p.name for p in temp.iterdir()] == []


def test_a_fresh_process_leaves_no_temp_folder(exe, tmp_path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    path = tmp_path / "m.so"
    code = (
        "import sys, lamina\n"
        "from lamina.tools.demo import mlp_model\n"
        "for seed in (5, 6, 7):\n"
        f"    lamina.compile(mlp_model((16, 8, 4), seed=seed)).export({str(path)!r})\n"
        f"    lamina.load({str(path)!r})\n"
    )
    env = {**os.environ, "TMPDIR": str(temp)}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
    assert [p.name for p in temp.iterdir() if p.name.startswith("lamina-load-")] == []
