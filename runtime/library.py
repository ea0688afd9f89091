"""Loading shared libraries written by `CompiledModel.export` (`lamina.load`).

`load(path)` opens such a library with ctypes and returns a `CompiledModel` whose
weights are read-only numpy views of the library's embedded data.
"""

from __future__ import annotations

import ctypes
import json
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lamina.errors import LaminaError
from lamina.runtime.export import ALIGN, FORMAT, FORMAT_VERSION
from lamina.runtime.model import CompiledModel, TensorSpec


@dataclass(eq=False)
class SharedLibrary:
    """An opened lamina library; keeps it loaded while a model uses it."""

    path: Path
    lib: ctypes.CDLL

    def address(self, name: str) -> int:
        """The address of the exported symbol `name`."""
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


_loaded: dict[str, tuple[int, int]] = {}
_load_lock = threading.Lock()


def _dlopen(path: Path) -> ctypes.CDLL:
    """dlopen `path`, also when another file was loaded under the same name
    before (the dynamic loader would hand back the old one)."""
    st = path.stat()
    key = str(path.resolve())
    with _load_lock:
        seen = _loaded.setdefault(key, (st.st_dev, st.st_ino))
        if seen == (st.st_dev, st.st_ino):
            return ctypes.CDLL(key, mode=os.RTLD_NOW | os.RTLD_LOCAL)
        alias = Path(tempfile.mkdtemp(prefix="lamina-load-")) / path.name
        alias.symlink_to(key)
        return ctypes.CDLL(str(alias), mode=os.RTLD_NOW | os.RTLD_LOCAL)


def load(path: str | os.PathLike[str]) -> CompiledModel:
    """Load a library written by `CompiledModel.export` as a `CompiledModel`."""

    file = Path(path)
    if not file.exists():
        raise LaminaError(f"cannot load '{file}': no such file")
    if file.is_dir():
        raise LaminaError(f"cannot load '{file}': it is a directory, not a library")
    with file.open("rb") as f:
        if f.read(4) != b"\x7fELF":
            raise LaminaError(
                f"cannot load '{file}': not a shared library; export one with "
                "`lamina compile MODEL.onnx -o OUT.so`"
            )
    try:
        lib = SharedLibrary(file, _dlopen(file))
    except OSError as e:
        raise LaminaError(f"cannot load '{file}': {e}") from None
    size = ctypes.c_uint64.from_address(lib.data("lamina_metadata_size")).value
    try:
        meta = json.loads(ctypes.string_at(lib.data("lamina_metadata"), size))
    except ValueError:
        meta = None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise LaminaError(f"cannot load '{file}': its metadata is not lamina's")
    if meta.get("version") != FORMAT_VERSION:
        raise LaminaError(
            f"cannot load '{file}': library format {meta.get('version')}, this lamina "
            f"reads {FORMAT_VERSION}; export the model again"
        )
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

    def spec(d: dict[str, Any]) -> TensorSpec:
        return TensorSpec(d["name"], tuple(d["shape"]), np.dtype(d["dtype"]))

    model = CompiledModel(
        lib,
        [spec(d) for d in meta["inputs"]],
        [spec(d) for d in meta["outputs"]],
        params,
        int(meta["workspace_size"]),
    )
    model._library_path = file
    return model


__all__ = ["SharedLibrary", "load"]
