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

Code a BYOC target generated with `lamina.backends.cc.compile_shared` is linked
into the library (its object file, not the cached `.so`), so the library does
not depend on lamina's cache. The libraries that code calls (OpenBLAS from the
scipy-openblas32 wheel, say) stay dynamic dependencies, found through an rpath
to their folder; the seal records them, so a load that cannot find one says
which and what to install.

The seal: after linking, export appends a trailer to the file (the dynamic
loader ignores bytes after what the ELF headers map):

    [ELF library][record: JSON][footer: 32 bytes][SHA-256: 32 bytes]

footer = `<8sIIQQ` (little-endian): `SEAL_MAGIC`, `SEAL_VERSION`, the record's
length, the whole file's size, zero. The SHA-256 covers every byte before it
(library, record, footer): `head -c -32 m.so | sha256sum` reproduces it.
`lamina.load` checks it before `dlopen` (`check_seal`), so a truncated or
corrupted file is an error instead of a crash or wrong results. It detects
damage, not tampering: anyone who can change the file can seal it again, and
loading a library runs its code.

`lamina.runtime.library.load(path)` opens such a library again.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shlex
import shutil
import struct
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr

from lamina import system
from lamina.abi import BUFFER_ALIGN, BUFFER_SLACK, ENTRY, EXTERNAL_LIBRARIES_ATTR
from lamina.backends.cc import built_library, static_object
from lamina.codegen.codegen import compile_object, module_target, object_from_ir
from lamina.errors import CompileError, LaminaError
from lamina.fileio import check_writable, temporary_folder, write_atomic_with
from lamina.process import run_tool
from lamina.symbolic import Dim
from lamina.target import Target
from lamina.version import __version__

FORMAT = "lamina-shared-library"
FORMAT_VERSION = 1
ALIGN = BUFFER_ALIGN

#: The seal's footer: magic, version, record length, file size, reserved zero.
SEAL_MAGIC = b"LMNSEAL\x00"
SEAL_VERSION = 1
_FOOTER = struct.Struct("<8sIIQQ")
_DIGEST_SIZE = 32
#: Bytes the seal ends every exported library with (footer + SHA-256).
SEAL_SIZE = _FOOTER.size + _DIGEST_SIZE
SEAL_RECORD = "lamina-seal"


class Spec(Protocol):
    """A model input or output as the library's metadata records it."""

    name: str
    shape: tuple[Dim, ...]
    dtype: np.dtype


class Exportable(Protocol):
    """What export reads of a compiled model (`lamina.runtime.model.CompiledModel`)."""

    inputs: list[Any]
    outputs: list[Any]
    workspace_size: int
    sizes: list[str]
    assumptions: list[Any]
    bounds: list[Any]
    exits: list[str]
    _plan: Any
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
        proc = run_tool(cmd, cwd=cwd)
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
    shape = [d if isinstance(d, int) else str(d) for d in spec.shape]  # symbolic: text
    return {"name": spec.name, "shape": shape, "dtype": spec.dtype.str}


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
        "triple": Target.host().triple if model._lowered is None else module_target(model._lowered).triple,
        "inputs": [_spec_json(s) for s in model.inputs],
        "outputs": [_spec_json(s) for s in model.outputs],
        "params": layout,
        "workspace_size": int(model.workspace_size),
        "sizes": list(model.sizes),
        "assumptions": [[str(e), n, why] for e, n, why in model.assumptions],
        "bounds": [[n, None if b is None else str(b)] for n, b in model.bounds],
        "exits": list(model.exits),
        "dynamic_plan": None
        if model._plan is None
        else [[a, b, str(n)] for a, b, n in model._plan.ranges],
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
    libs = system.runtime_libraries()
    obj = object_code(model, lowered)
    layout, _ = _layout(model._params)
    meta = json.dumps(metadata(model, layout), separators=(",", ":")).encode()
    with temporary_folder("lamina-export-") as tmpdir:
        work = Path(tmpdir)
        (work / "model.o").write_bytes(obj)
        _write_params(work / "params.bin", model._params, layout)
        (work / "metadata.json").write_bytes(meta)
        (work / "data.s").write_text(_ASM.format(align=ALIGN, meta_size=len(meta)))
        _run([*cc, "-c", "data.s", "-o", "data.o"], work, "assemble the weights")
        link = [f"-l:{lib}" if "/" not in lib else lib for lib in libs]
        external, needs = _external_link_args(lowered, work)
        link += external
        record = {"format": SEAL_RECORD, "version": SEAL_VERSION, "needs": needs}

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
            seal(tmp, record)

        write_atomic_with(target, produce)


def _external_link_args(lowered: ModuleOp, work: Path) -> tuple[list[str], list[dict[str, Any]]]:
    """Linker arguments for the libraries BYOC code generation produced (listed in
    the module attribute `lamina.external_libraries`), and the seal's record of
    the dynamic dependencies they add.

    A library this process built with `compile_shared` is linked in as its
    object file (and what it links against is visited in turn); any other one
    is linked by path, with an rpath to its folder, so a fresh process finds it."""
    attr = lowered.attributes.get(EXTERNAL_LIBRARIES_ATTR)
    if not isinstance(attr, ArrayAttr):
        return [], []
    pending = [a.data for a in attr.data if isinstance(a, StringAttr)]
    objects: list[str] = []
    dynamic: list[str] = []
    flags: list[str] = []
    seen: set[str] = set()
    while pending:
        lib = pending.pop(0)
        if lib in seen:
            continue
        seen.add(lib)
        built = built_library(lib)
        if built is None:
            dynamic.append(lib)
            continue
        objects.append(static_object(built, work))
        flags += [f for f in built.ldflags if f not in flags]
        pending += built.link
    dirs = dict.fromkeys(str(Path(p).parent.resolve()) for p in dynamic)
    args = [*objects, *dynamic, *flags, *(f"-Wl,-rpath,{d}" for d in dirs)]
    needs = [{"library": str(Path(p).resolve()), "package": _package_of(p)} for p in dynamic]
    return args, needs


@cache
def _distributions() -> dict[str, list[str]]:
    try:
        return dict(importlib.metadata.packages_distributions())
    except Exception:  # a broken installed distribution must not stop an export
        return {}


def _package_of(library: str) -> str | None:
    """The Python distribution whose files hold `library` (site-packages/<top>/...),
    to name in the advice when a load cannot find it."""
    parts = Path(library).resolve().parts
    for i, part in enumerate(parts[:-2]):
        if part in ("site-packages", "dist-packages"):
            top = parts[i + 1]
            return (_distributions().get(top) or [top])[0]
    return None


# ------------------------------------------------------------------------ seal
def _sha256(f: BinaryIO, length: int) -> bytes:
    """SHA-256 of the first `length` bytes of `f` (from its start)."""
    h = hashlib.sha256()
    f.seek(0)
    buf = bytearray(1 << 20)
    view = memoryview(buf)
    while length > 0:
        n = f.readinto(view[: min(length, len(buf))])
        if not n:
            break
        h.update(view[:n])
        length -= n
    return h.digest()


def seal(path: Path, record: dict[str, Any]) -> None:
    """Append the seal (record, footer, SHA-256 of all before it) to the linked
    library at `path`."""
    raw = json.dumps(record, separators=(",", ":"), sort_keys=True).encode()
    with path.open("r+b") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell() + len(raw) + SEAL_SIZE
        f.write(raw)
        f.write(_FOOTER.pack(SEAL_MAGIC, SEAL_VERSION, len(raw), size, 0))
        f.flush()
        digest = _sha256(f, size - _DIGEST_SIZE)
        f.seek(0, os.SEEK_END)
        f.write(digest)


def check_seal(path: Path) -> tuple[dict[str, Any], tuple[int, int]]:
    """Verify the seal of the library at `path` without loading it: its record
    and the (st_dev, st_ino) of the file checked, or a `LaminaError` naming the
    file. Reads the whole file once (SHA-256: about 0.1 s per 100 MB)."""

    def damaged(why: str) -> LaminaError:
        return LaminaError(
            f"cannot load '{path}': the library is damaged ({why}); it was not "
            "opened, so none of its code ran; export the model again"
        )

    try:
        f = path.open("rb")
    except OSError as e:
        raise LaminaError(f"cannot load '{path}': {e.strerror or e}") from None
    with f:
        st = os.fstat(f.fileno())
        size = st.st_size
        if size >= SEAL_SIZE:
            f.seek(size - SEAL_SIZE)
            tail = f.read(SEAL_SIZE)
        else:
            tail = b""
        if len(tail) != SEAL_SIZE or tail[:8] != SEAL_MAGIC:
            raise LaminaError(
                f"cannot load '{path}': it does not end with a lamina seal, so it is "
                "not a lamina library, or it is damaged (truncated?), or a lamina "
                "before the seal exported it; export the model again (or load it "
                "with verify=False to skip the check)"
            )
        _, version, record_size, sealed_size, _ = _FOOTER.unpack(tail[: _FOOTER.size])
        if version != SEAL_VERSION:
            raise LaminaError(
                f"cannot load '{path}': its seal has version {version}, this lamina "
                f"reads {SEAL_VERSION}; export the model again with this lamina "
                "(or load it with verify=False)"
            )
        if sealed_size != size:
            raise damaged(
                f"{size} bytes where export wrote {sealed_size}: truncated or appended to"
            )
        if record_size > size - SEAL_SIZE:
            raise damaged("its seal is corrupt")
        if _sha256(f, size - _DIGEST_SIZE) != tail[_FOOTER.size :]:
            raise damaged("its SHA-256 digest does not match its bytes")
        f.seek(size - SEAL_SIZE - record_size)
        try:
            record = json.loads(f.read(record_size))
        except ValueError:
            record = None
    if not isinstance(record, dict) or record.get("format") != SEAL_RECORD:
        raise damaged("its seal record is not lamina's")
    return record, (st.st_dev, st.st_ino)


__all__ = [
    "ALIGN",
    "FORMAT",
    "FORMAT_VERSION",
    "SEAL_MAGIC",
    "SEAL_SIZE",
    "SEAL_VERSION",
    "Exportable",
    "c_compiler",
    "check_seal",
    "export_library",
    "metadata",
    "object_code",
    "seal",
]
