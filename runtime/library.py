"""Loading shared libraries written by `CompiledModel.export` (`lamina.load`).

`load(path)` verifies the library's seal (`lamina.runtime.seal`: a SHA-256 of
the whole file), opens it with ctypes and returns a `CompiledModel` built from
the `ModelRecord` in its metadata, whose weights are read-only numpy views of
the library's embedded data. Exporting a loaded model copies its file.

The metadata (`lamina_metadata`, JSON; `lamina.codegen.export` writes it) is the
header (`format`, `version`, `lamina_version`, `entry`, `triple`), the keys of
`ModelRecord.to_json` and `params`, the weights' layout in `lamina_params`
(offset, nbytes, shape, dtype of each). Version 3 added the model's `name`,
the prefix of its symbols (the entry point is `NAME_main`), and the C runtime
(`lamina.h`); version 1 lacked the record's `param_keys` and
`intermediate_bytes`. Both older versions still load.

A library carries its own copy of lamina's thread pool; the one pool symbol it
exports, `lamina_set_num_threads`, is how `CompiledModel.run` sets each run's
team size (`lamina.runtime.model.pool_threads`). A library exported before the
pool (linked against libgomp) has none and runs on libgomp's default team. A
model that decodes images (`host_functions`) is given the Pillow decoder
(`lamina.runtime.image`) through its `NAME_set_image_decoder`.
"""

from __future__ import annotations

import ctypes
import itertools
import json
import os
import platform
import re
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lamina.abi import BUFFER_ALIGN, ENTRY, IMAGE_DECODE
from lamina.errors import LaminaError
from lamina.fileio import check_writable, write_atomic_with
from lamina.runtime import image
from lamina.runtime.model import CompiledModel
from lamina.runtime.record import ModelRecord
from lamina.runtime.seal import check_seal

#: The metadata's `format`.
FORMAT = "lamina-shared-library"
#: The metadata version export writes, and those `load` reads.
FORMAT_VERSION = 3
FORMAT_VERSIONS = (1, 2, 3)
ALIGN = BUFFER_ALIGN

#: Environment variable: "0" (or "no", "false", "off") turns `load`'s seal check off.
VERIFY_ENV = "LAMINA_LOAD_VERIFY"


@dataclass(eq=False)
class SharedLibrary:
    """An opened lamina library; keeps it loaded while a model uses it."""

    path: Path
    lib: ctypes.CDLL
    #: The symbol of the entry point (`NAME_main`; `main` before format 3).
    entry: str = ENTRY

    def address(self, name: str) -> int:
        """The address of the exported symbol `name` (`ENTRY`: the model's entry)."""
        if name == ENTRY:
            name = self.entry
        try:
            return ctypes.cast(getattr(self.lib, name), ctypes.c_void_p).value or 0
        except AttributeError:
            raise LaminaError(
                f"'{self.path}' has no function '{name}'; it is not a lamina library "
                "or is damaged; export it again"
            ) from None

    def data(self, name: str) -> int:
        try:
            return ctypes.addressof(ctypes.c_char.in_dll(self.lib, name))
        except ValueError:
            raise LaminaError(
                f"'{self.path}' is not a lamina library (no '{name}' symbol); export "
                "a model with `lamina compile MODEL.onnx -o OUT.so`"
            ) from None


#: ELF's e_machine codes of the architectures lamina generates code for.
ELF_MACHINES = {62: "x86_64", 183: "aarch64", 243: "riscv64", 3: "i386"}


def elf_machine(header: bytes | None) -> str:
    """The architecture of an ELF file from its first 20 bytes (None: this process's)."""
    if header is None:
        return platform.machine()
    code = int.from_bytes(header[18:20], "little" if header[5:6] != b"\x02" else "big")
    return ELF_MACHINES.get(code, f"ELF machine {code}")


def library_architecture(path: str | os.PathLike[str]) -> str:
    """The architecture a library file was built for (from its ELF header)."""
    with open(path, "rb") as f:
        header = f.read(20)
    if header[:4] != b"\x7fELF":
        raise LaminaError(f"'{path}' is not a shared library (no ELF header)")
    return elf_machine(header)


@dataclass(frozen=True)
class LibraryCopy:
    """The exporter of a loaded model (`lamina.runtime.model.Exporter`): a copy
    of the library it was loaded from."""

    path: Path
    #: The model's name in the library (None before format 3).
    name: str | None = None

    def __call__(
        self, model: CompiledModel, path: str | os.PathLike[str], name: str | None = None
    ) -> None:
        if name is not None and name != self.name:
            raise LaminaError(
                f"a loaded library is exported as a copy, under its own name "
                f"'{self.name or 'main'}'; to name it '{name}', compile the model again "
                f"(`lamina compile MODEL --name {name} -o ...`)"
            )
        target = check_writable(path)
        write_atomic_with(target, lambda tmp: shutil.copyfile(self.path, tmp))


_loaded: dict[str, tuple[int, int]] = {}
_load_lock = threading.Lock()
_aliases = itertools.count()
_MODE = os.RTLD_NOW | os.RTLD_LOCAL


def _dlopen(path: Path, identity: tuple[int, int] | None = None) -> ctypes.CDLL:
    """dlopen `path`, also when another file was loaded under the same name
    before (the dynamic loader would hand back the old one): then through a
    symlink of a new name, removed once the library is open. `identity`: the
    (st_dev, st_ino) the seal check read; a file replaced since is refused."""
    st = path.stat()
    if identity is not None and (st.st_dev, st.st_ino) != identity:
        raise LaminaError(
            f"cannot load '{path}': the file was replaced while it was being "
            "loaded; load it again"
        )
    key = str(path.resolve())
    with _load_lock:
        seen = _loaded.setdefault(key, (st.st_dev, st.st_ino))
        if seen == (st.st_dev, st.st_ino):
            return ctypes.CDLL(key, mode=_MODE)
        # A name unique in this process (the loader matches loaded objects by
        # name, so a reused name would find the old library).
        folder = Path(tempfile.mkdtemp(prefix=f"lamina-load-{os.getpid()}-{next(_aliases)}-"))
        try:
            alias = folder / path.name
            alias.symlink_to(key)
            return ctypes.CDLL(str(alias), mode=_MODE)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def _verify_default() -> bool:
    return os.environ.get(VERIFY_ENV, "1").strip().lower() not in ("0", "no", "false", "off")


_MISSING = re.compile(r"^(?P<name>[^:]+): cannot open shared object file")


def _open_failure(file: Path, error: str, record: dict[str, Any] | None) -> str:
    """The message for a failed dlopen: a missing dependency named, with what to do."""
    m = _MISSING.match(error)
    if m is None or Path(m["name"]).name == file.name:
        return f"cannot load '{file}': {error}"
    name = m["name"]
    stem = name.split(".so")[0]
    advice = ("install the package that provides it or add its folder to "
              "LD_LIBRARY_PATH, or export the model again on this machine")
    for need in (record or {}).get("needs", []):
        was = str(need.get("library", ""))
        if Path(was).name.split(".so")[0] != stem:
            continue
        package = need.get("package")
        install = (
            f"`pip install {package}` in this environment" if package else "put it back there"
        )
        return (
            f"cannot load '{file}': it needs the shared library {name}, which the "
            f"dynamic loader cannot find (at export it was {was}); {install}, or "
            "add its folder to LD_LIBRARY_PATH, or export the model again here"
        )
    return (
        f"cannot load '{file}': it needs the shared library {name}, which the "
        f"dynamic loader cannot find; {advice}"
    )


def load(path: str | os.PathLike[str], verify: bool | None = None) -> CompiledModel:
    """Load a library written by `CompiledModel.export` as a `CompiledModel`.

    Before the library is opened, its seal is verified: the SHA-256 that export
    appended to the file must match every byte of it (0.1-0.2 s per 100 MB).
    A truncated or corrupted file (a broken download or copy, a full disk, bit
    rot) is then a `LaminaError` naming the file, instead of a crash inside the
    dynamic loader or silently wrong outputs.

    The check detects damage, not tampering: whoever can write the file can seal
    it again, and opening a library runs its code, so load only libraries you
    trust. The file is checked just before it is opened; a change in between
    goes unnoticed.

    `verify=False` skips the check (also for libraries exported by a lamina
    before the seal), as does `$LAMINA_LOAD_VERIFY=0` when `verify` is not given:
    for callers that verify the file elsewhere.
    """

    file = Path(path)
    if not file.exists():
        raise LaminaError(f"cannot load '{file}': no such file")
    if file.is_dir():
        raise LaminaError(f"cannot load '{file}': it is a directory, not a library")
    with file.open("rb") as f:
        header = f.read(20)
    if header[:4] == b"\0asm":
        raise LaminaError(
            f"cannot load '{file}' into this process: it is a WebAssembly module; run "
            f"it with `lamina run {file} --input NAME=FILE.npy` (wasmtime), or in a "
            "browser or node with the lamina.mjs exported beside it"
        )
    if header[:4] != b"\x7fELF":
        raise LaminaError(
            f"cannot load '{file}': not a shared library; export one with "
            "`lamina compile MODEL.onnx -o OUT.so`"
        )
    record: dict[str, Any] | None = None
    identity = None
    if _verify_default() if verify is None else verify:
        record, identity = check_seal(file)
    machine = elf_machine(header)
    if machine != elf_machine(None):
        raise LaminaError(
            f"cannot load '{file}' into this process: it was built for {machine}, "
            f"this machine is {elf_machine(None)}; run it with `lamina run {file} "
            "--input NAME=FILE.npy` (under qemu-user), or compile the model for this machine"
        )
    try:
        lib = SharedLibrary(file, _dlopen(file, identity))
    except OSError as e:
        raise LaminaError(_open_failure(file, str(e), record)) from None
    size = ctypes.c_uint64.from_address(lib.data("lamina_metadata_size")).value
    try:
        meta = json.loads(ctypes.string_at(lib.data("lamina_metadata"), size))
    except ValueError:
        meta = None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise LaminaError(f"cannot load '{file}': its metadata is not lamina's")
    if meta.get("version") not in FORMAT_VERSIONS:
        raise LaminaError(
            f"cannot load '{file}': library format {meta.get('version')}, this lamina "
            f"reads {', '.join(map(str, FORMAT_VERSIONS))}; export the model again"
        )
    entry = meta.get("entry", ENTRY)
    if not isinstance(entry, str) or not entry.isidentifier():
        raise LaminaError(f"cannot load '{file}': its metadata is damaged (entry {entry!r})")
    lib.entry = entry
    try:
        model_record = ModelRecord.from_json(meta)
    except LaminaError as e:
        raise LaminaError(f"cannot load '{file}': its metadata is damaged: {e}") from None
    base = lib.data("lamina_params")
    if base % ALIGN:
        raise LaminaError(f"cannot load '{file}': its weights are not {ALIGN}-byte aligned")
    params = []
    for entry in meta["params"]:
        dtype, nbytes = np.dtype(entry["dtype"]), entry["nbytes"]
        if nbytes:
            buf = (ctypes.c_char * nbytes).from_address(base + entry["offset"])
            arr = np.frombuffer(buf, dtype=dtype).reshape(entry["shape"])
        else:
            arr = np.empty(entry["shape"], dtype)
        arr.flags.writeable = False
        params.append(arr)

    name = meta.get("name")
    if IMAGE_DECODE in model_record.entry.host_functions:
        _set_image_decoder(lib, name)
    return CompiledModel(
        model_record, lib, params,
        exporter=LibraryCopy(file, name if isinstance(name, str) else None),
    )


def _set_image_decoder(lib: SharedLibrary, name: object) -> None:
    """Give a model that decodes images the Pillow decoder (its C runtime has
    none of its own)."""
    image.require_pillow()
    setter = f"{name}_set_image_decoder"
    if not isinstance(name, str) or not hasattr(lib.lib, setter):
        raise LaminaError(
            f"cannot load '{lib.path}': it decodes images but has no {setter}; export it again"
        )
    _SETTER(lib.address(setter))(image.decoder_address())


_SETTER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

__all__ = [
    "ALIGN",
    "ELF_MACHINES",
    "FORMAT",
    "FORMAT_VERSION",
    "FORMAT_VERSIONS",
    "VERIFY_ENV",
    "LibraryCopy",
    "SharedLibrary",
    "elf_machine",
    "library_architecture",
    "load",
]
