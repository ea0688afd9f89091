"""Shared-library export of compiled models (`CompiledModel.export` of a model
`lamina.compile` built; `lamina.runtime.library.load` reads the library back),
for the host or any other target (`lamina.codegen.toolchain`).

The library of model NAME (`--name`, by default the file's stem) holds:

- the model's native code, every symbol prefixed `NAME_` and hidden but the
  entry point `NAME_main`, so that models link side by side: object code
  generated from the JIT's optimized LLVM IR, or from the lowered module for a
  target the JIT cannot run;
- lamina's C runtime (`runtime/c/session.c`) and the model's descriptor
  (`lamina.codegen.descriptor`), exporting `NAME_model()` and, for dlopen,
  `lamina_get_model()` (`runtime/c/lamina.h`, the C API);
- `lamina_params`: every weight, each at a 64-byte aligned offset, and
- `lamina_metadata` / `lamina_metadata_size`: JSON, the model's name, entry
  point and record (`ModelRecord.to_json`: inputs, outputs, the entry ABI) and
  the weights' layout (offset, shape, dtype), under the header
  `lamina.runtime.library` checks (`FORMAT`, `FORMAT_VERSION`).

Weights and metadata never go through LLVM: they are written to files that a tiny
assembly file pulls in with `.incbin`, assembled and linked by the target's C
compiler with lamina's thread pool (`lamina.codegen.pool`, compiled for the
model's target; its symbols hidden but the team-size setter the Python runtime
calls, so that two libraries in one program each keep their own pool) against
the runtime libraries: the library needs libc, libm (and libpthread on a C
library before glibc 2.34; libmvec when vector math calls it), nothing else.
Export time therefore does not grow with the model's weights beyond copying them.

Code a BYOC target generated with `lamina.backends.cc.compile_shared` is linked
into the library (its object file, not the cached `.so`), so the library does
not depend on lamina's cache. The libraries that code calls (OpenBLAS from the
scipy-openblas32 wheel, say) stay dynamic dependencies, found through an rpath
to their folder; the seal (`lamina.runtime.seal`) records them, so a load that
cannot find one says which and what to install.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shlex
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from lamina import system
from lamina.abi import BUFFER_ALIGN, BUFFER_SLACK, ENTRY
from lamina.backends.cc import built_library, static_object
from lamina.codegen.cache import cache_get, cache_key, cache_put
from lamina.codegen.codegen import (
    LLVM_LOCK,
    check_opt_level,
    definitions,
    emit_object,
    module_target,
    optimize,
    parse_ir,
    target_machine,
    translate,
)
from lamina.codegen.descriptor import (
    WASM_EXPORTS,
    descriptor_source,
    include_dir,
    model_name,
    name_from_path,
)
from lamina.codegen.kernels import kernel_objects
from lamina.codegen.pool import pool_ir
from lamina.codegen.toolchain import c_compiler, is_cross
from lamina.errors import CompileError
from lamina.fileio import (
    check_writable,
    temporary_folder,
    write_atomic,
    write_atomic_with,
)
from lamina.process import run_tool
from lamina.runtime.library import FORMAT, FORMAT_VERSION
from lamina.runtime.model import CompiledModel
from lamina.runtime.seal import SEAL_RECORD, SEAL_VERSION, seal
from lamina.target import Target
from lamina.version import __version__

ALIGN = BUFFER_ALIGN

def _data_asm(wasm: bool, params_size: int, meta_size: int) -> str:
    """Assembly that pulls the weights (params.bin) and the metadata
    (metadata.json) into the library with `.incbin`, for ELF or WebAssembly."""
    section = '"",@' if wasm else '"a",@progbits'
    lines = []
    for sym, align, body, size in (
        ("lamina_params", ALIGN, '.incbin "params.bin"', params_size),
        ("lamina_metadata", 8, '.incbin "metadata.json"\n\t.byte 0', meta_size + 1),
        ("lamina_metadata_size", 8, f".quad {meta_size}", 8),
    ):
        lines += [
            f"\t.section .rodata.{sym},{section}",
            f"\t.globl {sym}",
            f"\t.type {sym},@object",
            f"\t.p2align {align.bit_length() - 1}",
            f"{sym}:",
            f"\t{body}",
            f"\t.size {sym}, {size}",
        ]
    if not wasm:
        lines.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(lines) + "\n"


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


def _write_params(path: Path, params: list[np.ndarray], layout: list[dict[str, Any]]) -> int:
    """The weights at their offsets, then the readable slack compiled code may
    load past the last one (`BUFFER_SLACK`); the file's size."""
    with path.open("wb") as f:
        for p, entry in zip(params, layout, strict=True):
            f.write(b"\0" * (entry["offset"] - f.tell()))
            f.write(np.ascontiguousarray(p).tobytes(order="C"))
        f.write(b"\0" * BUFFER_SLACK)
        return f.tell()


def metadata(
    model: CompiledModel, layout: list[dict[str, Any]], target: Target, name: str
) -> dict[str, Any]:
    """The JSON description of `model` embedded in its library: the header, the
    model's name and entry point, the target, the model's record and the
    weights' layout."""
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "lamina_version": __version__,
        "name": name,
        "entry": f"{name}_{ENTRY}",
        "triple": target.triple,
        "target": str(target),
        **model.record.to_json(),
        "params": layout,
    }


def _llvm_module(model: CompiledModel, text: str, tm: Any, opt_level: int) -> Any:
    """The model's optimized LLVM module: the JIT's already optimized IR when
    there is one (code generation is then all that is left, about 5x faster),
    else `text` (the lowered module's IR for `tm`) optimized."""
    optimized = getattr(model._native, "optimized_ir", None)
    if isinstance(optimized, str) and optimized:
        return parse_ir(optimized)
    mod = parse_ir(text)
    optimize(mod, tm, opt_level)
    return mod


def _prefix_symbols(mod: Any, name: str) -> None:
    """Prefix every symbol the model defines with `name_`, so that models link
    side by side, and hide all but the entry point (the pool's functions, which
    it declares, keep their names)."""
    for value in definitions(mod):
        entry = value.name == ENTRY
        value.name = f"{name}_{value.name}"
        if not entry:
            value.visibility = "hidden"


def object_code(
    model: CompiledModel, lowered: ModuleOp, opt_level: int, name: str
) -> bytes:
    """Object code of the model for the target it was lowered for, its symbols
    prefixed with `name` (`_prefix_symbols`). It is kept in the object cache
    (`lamina.codegen.cache`) under the lowered IR, the target and the name, so
    exporting an unchanged model again skips LLVM."""
    check_opt_level(opt_level)
    target = module_target(lowered)
    tm = target_machine(target, opt_level)
    with LLVM_LOCK:
        text = str(translate(lowered, tm))
        key = cache_key(f"{text}\n; lamina export as '{name}'", tm, opt_level, target)
        cached = cache_get(key)
        if cached is not None:
            return cached
        mod = _llvm_module(model, text, tm, opt_level)
        _prefix_symbols(mod, name)
        obj = emit_object(mod, tm)
    cache_put(key, obj)
    return obj


def pool_object(target: Target, opt_level: int = 3) -> bytes:
    """Object code of the thread pool for `target`, its symbols hidden but for
    the team-size setter (an exported library's own copy)."""
    tm = target_machine(target, opt_level)
    with LLVM_LOCK:
        mod = parse_ir(pool_ir(target, str(tm.target_data), hidden=True))
        optimize(mod, tm, opt_level)
        return emit_object(mod, tm)


def _runtime_link_args(target: Target) -> list[str]:
    """The runtime libraries, linked only where the code calls them (libmvec)."""
    if is_cross(target):
        return ["-Wl,--as-needed", "-lm", "-pthread"]
    libs = system.runtime_libraries()
    return [
        "-Wl,--as-needed",
        *(f"-l:{lib}" if "/" not in lib else lib for lib in libs),
        "-pthread",
    ]


def export_library(
    model: CompiledModel,
    path: str | os.PathLike[str],
    lowered: ModuleOp,
    opt_level: int = 3,
    name: str | None = None,
) -> None:
    """Write `model`, compiled from `lowered` at `opt_level`, as one shared
    library at `path` (atomically) for the target it was lowered for, with
    lamina's C runtime: its symbols prefixed with `name` (default: the file's
    stem, `name_from_path`), its descriptor `<name>_model()` (lamina.h). For
    wasm32 the file is a WebAssembly module (a WASI reactor), with the
    JavaScript loader `lamina.mjs` written beside it."""
    out = check_writable(path)
    target = module_target(lowered)
    name = model_name(name) if name is not None else name_from_path(out)
    cc = c_compiler(target)
    if is_cross(target) and model.record.entry.external_libraries:
        raise CompileError(
            f"cannot export for {target.triple}: BYOC code ("
            + ", ".join(Path(p).name for p in model.record.entry.external_libraries)
            + ") is built for this machine only; compile without --byoc"
        )
    obj = object_code(model, lowered, opt_level, name)
    layout, _ = _layout(model._params)
    meta = json.dumps(metadata(model, layout, target, name), separators=(",", ":")).encode()
    wasm = target.arch == "wasm32"
    descriptor = descriptor_source(
        model.record, name, target.describe(), [p["offset"] for p in layout], wasm=wasm
    )
    with temporary_folder("lamina-export-") as tmpdir:
        work = Path(tmpdir)
        (work / "model.o").write_bytes(obj)
        kernels = []  # compile-kernels' kernels: their bitcode, made position independent
        for i, code in enumerate(kernel_objects(lowered, target_machine(target, opt_level))):
            kernels.append(f"kernel{i}.o")
            (work / kernels[-1]).write_bytes(code)
        (work / "pool.o").write_bytes(pool_object(target, opt_level))
        params_size = _write_params(work / "params.bin", model._params, layout)
        (work / "metadata.json").write_bytes(meta)
        (work / "data.s").write_text(_data_asm(wasm, params_size, len(meta)))
        (work / "descriptor.c").write_text(descriptor)
        _run([*cc, "-c", "data.s", "-o", "data.o"], work, "assemble the weights")
        _run(
            [*cc, "-c", "-O2", *([] if wasm else ["-fPIC"]), "-fvisibility=hidden",
             "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-I", str(include_dir()),
             "descriptor.c", "-o", "descriptor.o"],
            work,
            "compile the model's C runtime",
        )
        # the BYOC code's objects first, then the libraries they and the model call
        external, needs = _external_link_args(model.record.entry.external_libraries, work)
        link = [*external, *_runtime_link_args(target)]
        record = {"format": SEAL_RECORD, "version": SEAL_VERSION, "needs": needs}

        def produce(tmp: Path) -> None:
            if wasm:
                _run([*cc, *wasm_link_args(name), "model.o", *kernels, "descriptor.o", "pool.o",
                      "data.o", "-o", str(tmp), "-lm"], work, f"link '{out}'")
                seal(tmp, record, wasm=True)
                return
            _run(
                [
                    *cc,
                    "-shared",
                    "-Wl,-Bsymbolic",
                    "-Wl,--no-undefined",
                    "model.o",
                    *kernels,
                    "descriptor.o",
                    "pool.o",
                    "data.o",
                    "-o",
                    str(tmp),
                    *link,
                ],
                work,
                f"link '{out}'",
            )
            seal(tmp, record)

        write_atomic_with(out, produce)
    if wasm:  # the module's JavaScript loader, beside it
        write_atomic(out.parent / JS_LOADER, js_loader())


#: The JavaScript loader of WebAssembly models (`runtime/js/lamina.mjs`).
JS_LOADER = "lamina.mjs"


def js_loader() -> str:
    """The source of lamina.mjs, which runs a WebAssembly model in a browser or node."""
    return (include_dir().parent / "js" / JS_LOADER).read_text()


#: The WebAssembly module's stack (kernels keep tiles and the runtime its tables there).
WASM_STACK_BYTES = 8 << 20


def wasm_link_args(name: str) -> list[str]:
    """Link flags of a model's WebAssembly module: a WASI reactor (call
    `_initialize` once, then the exports) exporting the C API's descriptor and
    the flat functions JavaScript calls (`runtime/c/wasm.c`)."""
    exports = [f"{name}_model", "lamina_get_model", *WASM_EXPORTS]
    return [
        "-O2",
        "-mexec-model=reactor",
        f"-Wl,-z,stack-size={WASM_STACK_BYTES}",
        *(f"-Wl,--export={e}" for e in exports),
    ]


@dataclass(frozen=True, eq=False)
class ModuleExporter:
    """The exporter of a compiled model (`lamina.runtime.model.Exporter`): the
    lowered module it was compiled from, and the opt level."""

    module: ModuleOp
    opt_level: int = 3

    def __call__(
        self, model: CompiledModel, path: str | os.PathLike[str], name: str | None = None
    ) -> None:
        export_library(model, path, self.module, self.opt_level, name)


def _external_link_args(
    libraries: tuple[str, ...], work: Path
) -> tuple[list[str], list[dict[str, Any]]]:
    """Linker arguments for the libraries BYOC code generation produced (the
    record's `external_libraries`), and the seal's record of the dynamic
    dependencies they add.

    A library this process built with `compile_shared` is linked in as its
    object file (and what it links against is visited in turn); any other one
    is linked by path, with an rpath to its folder, so a fresh process finds it."""
    pending = list(libraries)
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


__all__ = [
    "ALIGN",
    "JS_LOADER",
    "ModuleExporter",
    "export_library",
    "js_loader",
    "metadata",
    "object_code",
    "pool_object",
]
