"""Shared-library export of compiled models, and loading them back.

`CompiledModel.export(path)` writes one shared library holding:

- the model's native code with the entry point `main`: object code generated from
  the JIT's optimized LLVM IR (or `lamina.runtime.jit.compile_object` of the
  lowered module);
- `lamina_params`: every weight, each at a 64-byte aligned offset, and
- `lamina_metadata` / `lamina_metadata_size`: JSON describing the inputs, outputs,
  weights (offset, shape, dtype) and the workspace size.

Weights and metadata never go through LLVM: they are written to files that a tiny
assembly file pulls in with `.incbin`, assembled and linked by the system C
compiler (`cc`, or `$CC`) against the runtime libraries (libm, libgomp). Export time
therefore does not grow with the model's weights beyond copying them.

`lamina.runtime.library.load(path)` opens such a library again.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr

from lamina import host
from lamina.abi import BUFFER_ALIGN, BUFFER_SLACK, ENTRY, EXTERNAL_LIBRARIES_ATTR
from lamina.errors import CompileError, LaminaError
from lamina.fileio import check_writable, write_atomic_with
from lamina.target.codegen import compile_object, object_from_ir
from lamina.version import __version__

FORMAT = "lamina-shared-library"
FORMAT_VERSION = 1
ALIGN = BUFFER_ALIGN


class Spec(Protocol):
    """A model input or output as the library's metadata records it."""

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype


class Exportable(Protocol):
    """What export reads of a compiled model (`lamina.runtime.model.CompiledModel`)."""

    inputs: list[Any]
    outputs: list[Any]
    workspace_size: int
    _native: Any
    _params: list[np.ndarray]
    _lowered: ModuleOp | None
    _opt_level: int
    _library_path: str | os.PathLike[str] | None

_ASM = """\
\t.section .rodata.lamina,"a",@progbits
\t.globl lamina_params
\t.type lamina_params,@object
\t.balign {align}
lamina_params:
\t.incbin "params.bin"
\t.size lamina_params, . - lamina_params
\t.globl lamina_metadata
\t.type lamina_metadata,@object
\t.balign 8
lamina_metadata:
\t.incbin "metadata.json"
\t.byte 0
\t.size lamina_metadata, . - lamina_metadata
\t.globl lamina_metadata_size
\t.type lamina_metadata_size,@object
\t.balign 8
lamina_metadata_size:
\t.quad {meta_size}
\t.size lamina_metadata_size, 8
\t.section .note.GNU-stack,"",@progbits
"""


def c_compiler() -> list[str]:
    """The C compiler driver used to assemble and link (`$CC`, else `cc`)."""
    cmd = shlex.split(os.environ.get("CC", "cc")) or ["cc"]
    if shutil.which(cmd[0]) is None:
        raise CompileError(
            f"cannot export a shared library: the C compiler '{cmd[0]}' was not "
            "found; install one (on Debian: `apt install gcc`) or set $CC"
        )
    return cmd


def _run(cmd: list[str], cwd: Path, what: str) -> None:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    except OSError as e:
        raise CompileError(f"cannot {what}: running '{cmd[0]}' failed: {e}") from None
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        missing = sorted(
            {line.split("`")[1].rstrip("'") for line in detail if "undefined reference to `" in line}
        )
        if missing:
            raise CompileError(
                f"cannot {what}: the model calls {', '.join(missing)}, which no "
                "linked library defines (a function bound only inside this process?); "
                "compile without that BYOC target to export"
            )
        raise CompileError(
            f"cannot {what}: `{shlex.join(cmd)}` failed: "
            + (detail[0] if detail else f"exit code {proc.returncode}")
        )


def _spec_json(spec: Spec) -> dict[str, Any]:
    return {"name": spec.name, "shape": list(spec.shape), "dtype": spec.dtype.str}


def _layout(params: list[np.ndarray]) -> tuple[list[dict[str, Any]], int]:
    """Offsets (64-byte aligned) of each weight in the params blob, and its size."""
    out, offset = [], 0
    for p in params:
        offset = -(-offset // ALIGN) * ALIGN
        out.append(
            {
                "offset": offset,
                "nbytes": int(p.nbytes),
                "shape": list(p.shape),
                "dtype": p.dtype.str,
            }
        )
        offset += int(p.nbytes)
    return out, offset


def _write_params(path: Path, params: list[np.ndarray], layout: list[dict[str, Any]]) -> None:
    """The weights at their offsets, then the readable slack compiled code may
    load past the last one (`BUFFER_SLACK`)."""
    with path.open("wb") as f:
        for p, entry in zip(params, layout, strict=True):
            f.write(b"\0" * (entry["offset"] - f.tell()))
            f.write(np.ascontiguousarray(p).tobytes(order="C"))
        f.write(b"\0" * BUFFER_SLACK)


def metadata(model: Exportable, layout: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON description of `model` embedded in its library."""
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "lamina_version": __version__,
        "entry": ENTRY,
        "triple": host.target_machine().triple,
        "inputs": [_spec_json(s) for s in model.inputs],
        "outputs": [_spec_json(s) for s in model.outputs],
        "params": layout,
        "workspace_size": int(model.workspace_size),
    }


def object_code(model: Exportable, lowered: ModuleOp) -> bytes:
    """Object code of the model for the host. The JIT's already optimized LLVM IR
    only needs code generation (about 5x faster than `compile_object`, which
    translates and optimizes the lowered module again); without it, that."""
    optimized = getattr(model._native, "optimized_ir", None)
    if not isinstance(optimized, str) or not optimized:
        return compile_object(lowered, opt_level=model._opt_level)
    return object_from_ir(optimized, model._opt_level)


def export_library(model: Exportable, path: str | os.PathLike[str]) -> None:
    """Write `model` as one shared library at `path` (atomically)."""
    target = check_writable(path)
    source, lowered = model._library_path, model._lowered
    if lowered is None:
        if source is None:
            raise LaminaError(
                "this model cannot be exported: it holds no lowered module; compile "
                "it with lamina.compile"
            )
        write_atomic_with(target, lambda tmp: shutil.copyfile(source, tmp))
        return
    cc = c_compiler()
    libs = host.runtime_libraries()
    obj = object_code(model, lowered)
    layout, _ = _layout(model._params)
    meta = json.dumps(metadata(model, layout), separators=(",", ":")).encode()
    with tempfile.TemporaryDirectory(prefix="lamina-export-") as tmpdir:
        work = Path(tmpdir)
        (work / "model.o").write_bytes(obj)
        _write_params(work / "params.bin", model._params, layout)
        (work / "metadata.json").write_bytes(meta)
        (work / "data.s").write_text(_ASM.format(align=ALIGN, meta_size=len(meta)))
        _run([*cc, "-c", "data.s", "-o", "data.o"], work, "assemble the weights")
        link = [f"-l:{lib}" if "/" not in lib else lib for lib in libs]
        link += _external_link_args(lowered)

        def produce(tmp: Path) -> None:
            _run(
                [
                    *cc,
                    "-shared",
                    "-Wl,-Bsymbolic",
                    "-Wl,--no-undefined",
                    "model.o",
                    "data.o",
                    "-o",
                    str(tmp),
                    *link,
                ],
                work,
                f"link '{target}'",
            )

        write_atomic_with(target, produce)


def _external_link_args(lowered: ModuleOp) -> list[str]:
    """Linker arguments for the libraries BYOC code generation produced (listed in
    the module attribute `lamina.external_libraries`): each by path, with an rpath
    to its folder, so a fresh process finds them."""
    attr = lowered.attributes.get(EXTERNAL_LIBRARIES_ATTR)
    if not isinstance(attr, ArrayAttr):
        return []
    paths = [Path(a.data) for a in attr.data if isinstance(a, StringAttr)]
    dirs = dict.fromkeys(str(p.parent.resolve()) for p in paths)
    return [*(str(p) for p in paths), *(f"-Wl,-rpath,{d}" for d in dirs)]


__all__ = [
    "ALIGN",
    "FORMAT",
    "FORMAT_VERSION",
    "Exportable",
    "c_compiler",
    "export_library",
    "metadata",
    "object_code",
]
