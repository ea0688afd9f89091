"""Running an exported model of any target, without Python computing anything.

`run_library(path, inputs)` builds lamina's runner (`runtime/c/runner.c`, a C
program over the C API in lamina.h) for the library's target with that target's
toolchain, once per machine (kept in lamina's cache folder), and runs it: natively
for this machine's architecture, under qemu-user for another Linux architecture
(Debian's `qemu-user`, with the target's C library from `libc6-<arch>-cross`).
Inputs and outputs travel as .npy files. A WebAssembly module runs in wasmtime
(`run_wasm`, the cross extra), through its flat C API.

The library's metadata (`lamina.codegen.export`) is read from the file's bytes,
so no library of another architecture is ever loaded into this process.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import tempfile
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from lamina.codegen.cache import cache_dir
from lamina.codegen.descriptor import DTYPES, include_dir
from lamina.codegen.toolchain import CROSS_EXTRA, c_compiler, is_cross
from lamina.errors import LaminaError
from lamina.fileio import temporary_folder, write_atomic_with
from lamina.process import run_tool
from lamina.runtime.library import FORMAT
from lamina.runtime.record import ModelRecord
from lamina.target import Target

_MARK = b'{"format":"' + FORMAT.encode() + b'"'
#: Where Debian's cross C libraries put each architecture's loader and libc.
_SYSROOTS = {"aarch64": "/usr/aarch64-linux-gnu", "riscv64": "/usr/riscv64-linux-gnu"}
_DEBIAN_ARCH = {"aarch64": "arm64", "riscv64": "riscv64"}
#: qemu's CPU for each architecture: every extension lamina's targets may use
#: (RVV 1.0 at the 128-bit VLEN `Target` schedules for; SVE in aarch64's `max`).
_QEMU_CPUS = {"aarch64": "max", "riscv64": "rv64,v=true,vext_spec=v1.0,vlen=128,elen=64"}


def library_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The metadata JSON embedded in a library, read from its bytes."""
    data = Path(path).read_bytes()
    at = data.find(_MARK)
    if at < 0:
        raise LaminaError(
            f"'{path}' is not a library lamina exported (no lamina metadata in it)"
        )
    try:
        meta, _ = json.JSONDecoder().raw_decode(data[at:].decode("utf-8", "replace"))
    except ValueError:
        raise LaminaError(f"'{path}': its lamina metadata is damaged; export it again") from None
    if meta.get("version", 0) < 3:
        raise LaminaError(
            f"'{path}' was exported by a lamina without the C runtime (format "
            f"{meta.get('version')}); export the model again to run it outside Python"
        )
    return dict(meta)


def _runner_source() -> bytes:
    folder = include_dir()
    return b"".join((folder / f).read_bytes() for f in ("runner.c", "lamina.h", "npy.h"))


def runner(target: Target) -> Path:
    """lamina's runner built for `target` (cached by its source and the target)."""
    cc = c_compiler(target)
    key = hashlib.sha256(_runner_source() + target.triple.encode() + " ".join(cc[1:]).encode())
    root = cache_dir()
    folder = (root if root is not None else Path(tempfile.mkdtemp(prefix="lamina-"))) / "runners"
    exe = folder / f"lamina-runner-{target.arch}-{key.hexdigest()[:16]}"
    if exe.exists():
        return exe
    folder.mkdir(parents=True, exist_ok=True)

    def build(tmp: Path) -> None:
        proc = run_tool(
            [*cc, "-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-I", str(include_dir()),
             str(include_dir() / "runner.c"), "-o", str(tmp), "-ldl"],
            cwd=folder,
        )
        if proc.returncode != 0:
            detail = (proc.stderr or proc.stdout).strip().splitlines()
            raise LaminaError(
                f"cannot build lamina's runner for {target.triple}: "
                + (detail[0] if detail else f"exit code {proc.returncode}")
            )

    write_atomic_with(exe, build)
    exe.chmod(0o755)
    return exe


@cache
def emulator(arch: str) -> list[str]:
    """How to start a program of `arch` here: nothing for this machine's, else
    qemu-user with the architecture's C library (an error says what to install)."""
    if arch == Target.host().arch:
        return []
    qemu = shutil.which(f"qemu-{arch}")
    sysroot = os.environ.get("QEMU_LD_PREFIX") or _SYSROOTS.get(arch, "")
    debian = _DEBIAN_ARCH.get(arch, arch)
    if qemu is None or not Path(sysroot, "lib").is_dir():
        raise LaminaError(
            f"running a {arch} library on this {Target.host().arch} machine needs "
            f"qemu-user and the {arch} C library: `apt install qemu-user "
            f"libc6-{debian}-cross` (or set QEMU_LD_PREFIX to a {arch} sysroot)"
        )
    cpu = _QEMU_CPUS.get(arch)
    return [qemu, "-L", sysroot, *(["-cpu", cpu] if cpu else [])]


WASM_MAGIC = b"\0asm"
#: lamina.h's `lamina_tensor` in wasm32's layout: name, dtype, rank, shape, data.
_TENSOR = struct.Struct("<IiiII")


def is_wasm(path: str | os.PathLike[str]) -> bool:
    """Whether the file at `path` is a WebAssembly module."""
    with open(path, "rb") as f:
        return f.read(4) == WASM_MAGIC


def _wasmtime() -> Any:
    try:
        import wasmtime  # an optional dependency (the cross extra)
    except ImportError:
        raise LaminaError(
            "running a WebAssembly model needs wasmtime: install lamina's cross "
            f"extra, `pip install '{CROSS_EXTRA}'`"
        ) from None
    return wasmtime


def run_wasm(path: str | os.PathLike[str], inputs: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    """Run the WebAssembly model at `path` in wasmtime on `inputs` by name: the
    module's own code computes (its flat C API, `runtime/c/wasm.c`); this only
    copies the arrays in and out of its memory."""
    wasmtime = _wasmtime()
    meta = library_metadata(path)
    record = ModelRecord.from_json(meta)
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    store.set_wasi(wasmtime.WasiConfig())
    try:
        instance = linker.instantiate(store, wasmtime.Module.from_file(engine, str(path)))
    except wasmtime.WasmtimeError as e:
        raise LaminaError(f"cannot instantiate '{path}': {e}") from None
    ex = instance.exports(store)
    memory = ex["memory"]
    ex["_initialize"](store)

    def put(data: bytes) -> int:
        at = int(ex["lamina_wasm_alloc"](store, max(len(data), 1)))
        if not at:
            raise LaminaError(f"'{path}' ran out of memory for its inputs")
        memory.write(store, data, at)
        return at

    def c_string(at: int) -> str:
        raw = memory.read(store, at, min(at + 4096, memory.data_len(store)))
        return bytes(raw[: raw.index(0)]).decode("utf-8", "replace")

    tensors = b""
    for name, arr in inputs.items():
        arr = np.ascontiguousarray(arr)
        code = DTYPES.get(arr.dtype.name, 0)
        shape = np.asarray(arr.shape, "<i8").tobytes()
        tensors += _TENSOR.pack(put(name.encode() + b"\0"), code, arr.ndim, put(shape), put(arr.tobytes()))
    session = ex["lamina_wasm_session"](store)
    status = ex["lamina_wasm_run"](store, session, put(tensors), len(inputs))
    if status:
        raise LaminaError(f"running '{path}' (wasm32, in wasmtime) failed: {c_string(ex['lamina_wasm_error'](store, session))}")
    outs = []
    for i, spec in enumerate(record.outputs):
        at = ex["lamina_wasm_output"](store, session, i)
        _, _, rank, shape_at, data_at = _TENSOR.unpack(memory.read(store, at, at + _TENSOR.size))
        shape = tuple(np.frombuffer(memory.read(store, shape_at, shape_at + 8 * rank), "<i8").tolist())
        nbytes = int(np.prod(shape, dtype=np.int64)) * spec.dtype.itemsize
        data = bytes(memory.read(store, data_at, data_at + nbytes))
        outs.append(np.frombuffer(data, spec.dtype).reshape(shape).copy())
    return outs


def run_artifact(
    path: str | os.PathLike[str],
    inputs: Mapping[str, np.ndarray],
    threads: int | None = None,
) -> list[np.ndarray]:
    """Run an exported model of any target (`run_library` or `run_wasm`)."""
    return run_wasm(path, inputs) if is_wasm(path) else run_library(path, inputs, threads)


def run_library(
    path: str | os.PathLike[str],
    inputs: Mapping[str, np.ndarray],
    threads: int | None = None,
) -> list[np.ndarray]:
    """Run the library at `path` (any Linux target) on `inputs` by name, in a
    process of its own; the outputs, in the model's order."""
    meta = library_metadata(path)
    target = Target.parse(meta["target"])
    record = ModelRecord.from_json(meta)
    command = [*emulator(target.arch), str(runner(target)), str(Path(path).resolve())]
    with temporary_folder("lamina-run-") as tmp:
        work = Path(tmp)
        command.append(str(work))
        if threads:
            command += ["--threads", str(threads)]
        for k, (name, arr) in enumerate(inputs.items()):
            file = work / f"input{k}.npy"
            np.save(file, np.ascontiguousarray(arr), allow_pickle=False)
            command.append(f"{name}={file}")
        proc = run_tool(command, cwd=work)
        if proc.returncode != 0:
            detail = (proc.stderr or proc.stdout or "").strip()
            detail = detail.removeprefix("lamina-runner: ")
            raise LaminaError(
                f"running '{path}' ({target.triple}"
                + (f" under {Path(command[0]).name}" if is_cross(target) else "")
                + f") failed: {detail or f'exit code {proc.returncode}'}"
            )
        return [np.load(work / f"{i}.npy") for i in range(len(record.outputs))]


__all__ = [
    "WASM_MAGIC",
    "emulator",
    "is_wasm",
    "library_metadata",
    "run_artifact",
    "run_library",
    "run_wasm",
    "runner",
]
