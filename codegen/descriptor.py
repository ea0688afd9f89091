"""The C descriptor of an exported model: its `lamina_model` (lamina.h), as C source.

An exported library carries lamina's C runtime (`runtime/c/session.c`) beside
the model's code. What the runtime needs of one model is generated here from
its `ModelRecord`, as TVM's AOT code generator writes a model's run function:
the input and output tables, the weights' addresses in `lamina_params`, and
straight-line C for everything symbolic (sizes bound from the inputs' shapes
and checked, the model's assumptions, output shapes, the data-dependent sizes'
bounds, the per-shape workspace plan's buffer sizes), from the same `emit_dim`
that builds sizes in every other IR. The library exports `<name>_model()` and,
for dlopen, `lamina_get_model()`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import numpy as np

from lamina.abi import IMAGE_DECODE, REPLAN
from lamina.errors import CompileError
from lamina.runtime.record import ModelRecord, TensorSpec
from lamina.symbolic import Dim, Sym, emit_dim
from lamina.version import __version__

#: The lamina.h dtype codes of numpy dtypes.
DTYPES: dict[str, int] = {
    "float32": 1, "float64": 2, "float16": 3, "bfloat16": 4, "int8": 5, "uint8": 6,
    "int16": 7, "uint16": 8, "int32": 9, "uint32": 10, "int64": 11, "uint64": 12, "bool": 13,
}
#: The C API version descriptors are written for (lamina.h's LAMINA_API_VERSION).
API_VERSION = 1

#: The flat functions of a WebAssembly module (runtime/c/wasm.c), for hosts
#: that call exports rather than C function pointers (JavaScript, wasmtime).
WASM_EXPORTS = (
    "lamina_wasm_metadata",
    "lamina_wasm_alloc",
    "lamina_wasm_free",
    "lamina_wasm_session",
    "lamina_wasm_run",
    "lamina_wasm_output",
    "lamina_wasm_error",
)

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def include_dir() -> Path:
    """The folder of lamina.h (and the runtime sources), for `-I`."""
    return Path(str(resources.files("lamina.runtime") / "c"))


def model_name(name: str) -> str:
    """`name` checked as a model's symbol prefix (a C identifier)."""
    if not _IDENTIFIER.fullmatch(name) or name.startswith("lamina_"):
        raise CompileError(
            f"the model name '{name}' cannot prefix C symbols: use letters, digits "
            "and '_', not starting with a digit or 'lamina_' (e.g. --name resnet18)"
        )
    return name


def name_from_path(path: str | Path) -> str:
    """The default model name: the output file's stem as a C identifier."""
    stem = re.sub(r"[^A-Za-z0-9_]", "_", Path(path).name.split(".")[0]) or "model"
    if stem[0].isdigit():
        stem = "m_" + stem
    return "model_" + stem if stem.startswith("lamina_") else stem


def c_string(text: str) -> str:
    """`text` as a C string literal (UTF-8, everything unusual escaped in octal)."""
    out = []
    for byte in text.encode():
        ch = chr(byte)
        if ch in '"\\' or not 32 <= byte < 127 or ch == "?":
            out.append(f"\\{byte:03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _dtype_code(dtype: np.dtype, what: str) -> int:
    code = DTYPES.get(np.dtype(dtype).name)
    if code is None:
        raise CompileError(f"{what} has element type {dtype}, which lamina.h does not name")
    return code


class _Names:
    """The env slots of the sizes: the entry's `sizes` first (main reads them
    in that order), then any other name a shape mentions."""

    def __init__(self, sizes: Sequence[str]):
        self.index = {n: i for i, n in enumerate(sizes)}

    def slot(self, name: str) -> int:
        return self.index.setdefault(name, len(self.index))

    def expr(self, d: Dim) -> str:
        return emit_dim(
            d,
            const=lambda k: f"INT64_C({k})",
            size=lambda n: f"env[{self.slot(n)}]",
            add=lambda a, b: f"({a} + {b})",
            mul=lambda a, b: f"({a} * {b})",
            floordiv=lambda a, k: f"floordiv({a}, INT64_C({k}))",
        )


def _table(kind: str, specs: Sequence[TensorSpec]) -> list[str]:
    lines = []
    for i, s in enumerate(specs):
        dims = [d if isinstance(d, int) else -1 for d in s.shape]
        lines.append(f"static const int64_t {kind}_SHAPE_{i}[] = {{{', '.join(map(str, dims)) or '0'}}};")
        texts = ", ".join(c_string(str(d)) for d in s.shape) or "0"
        lines.append(f"static const char *const {kind}_DIMS_{i}[] = {{{texts}}};")
    rows = [
        f"    {{{c_string(s.name)}, (lamina_dtype){_dtype_code(s.dtype, f'{kind.lower()[:-1]} {s.name!r}')}, "
        f"{len(s.shape)}, {kind}_SHAPE_{i}, {kind}_DIMS_{i}}},"
        for i, s in enumerate(specs)
    ]
    lines.append(f"static const lamina_tensor_info {kind}[] = {{")
    lines += rows or ["    {0, (lamina_dtype)0, 0, 0, 0},"]
    lines.append("};")
    return lines


def _bind(record: ModelRecord, names: _Names) -> list[str]:
    """`bind_sizes`: the sizes the inputs' shapes give, every symbolic input dim
    and assumption checked; messages as the Python runtime's."""
    body: list[str] = []
    origin: dict[str, tuple[str, int]] = {}

    def error(fmt: str, *args: str) -> None:
        extra = "".join(f", {a}" for a in args)
        body.append(f"        snprintf(err, n, {c_string(fmt)}{extra});")
        body.append("        return 0;")
        body.append("    }")

    for i, spec in enumerate(record.inputs):
        for axis, d in enumerate(spec.shape):
            name = d.name if isinstance(d, Sym) else None
            if name is None:
                continue
            got = f"shapes[{i}][{axis}]"
            k = names.slot(name)
            if name not in origin:
                origin[name] = (spec.name, axis)
                body.append(f"    env[{k}] = {got};")
                body.append(f"    if (env[{k}] < 1) {{")
                error(
                    f"input '{spec.name}' axis {axis} ('{name}') must be at least 1, got %lld",
                    f"(long long){got}",
                )
            else:
                first, first_axis = origin[name]
                body.append(f"    if ({got} != env[{k}]) {{")
                error(
                    f"input '{spec.name}' axis {axis} is %lld, but input '{first}' axis "
                    f"{first_axis} gave size '{name}' the value %lld",
                    f"(long long){got}", f"(long long)env[{k}]",
                )
    for i, spec in enumerate(record.inputs):
        for axis, d in enumerate(spec.shape):
            if not isinstance(d, Sym) or d.name is not None:
                continue
            got = f"shapes[{i}][{axis}]"
            body.append(f"    if ({got} != {names.expr(d)}) {{")
            error(
                f"input '{spec.name}': axis {axis} is %lld, expected {d} = %lld",
                f"(long long){got}", f"(long long){names.expr(d)}",
            )
    for a in record.assumptions:
        body.append(f"    if ({names.expr(a.expr)} > INT64_C({a.limit})) {{")
        error(f"the sizes are out of the model's range: {a.why}, so {a.expr} <= {a.limit} must hold")
    return [
        "static int bind_sizes(int64_t *env, const int64_t *const *shapes, char *err, size_t n) {",
        "    (void)env; (void)shapes; (void)err; (void)n;",
        *body,
        "    return 1;",
        "}",
    ]


def _sizes(record: ModelRecord, names: _Names) -> list[str]:
    """`plan_sizes` and `replan_sizes`: the data-dependent sizes at their bound or
    capacity, and after a stop to plan again (`CompiledModel._replan`)."""
    plan, replan = [], []
    for b in record.entry.bounds:
        k = names.slot(b.name)
        if b.limit is None:
            plan.append(f"    env[{k}] = capacity[{k}];")
            replan.append(
                f"    {{ int64_t v = (int64_t)slots[{k}]; "
                f"env[{k}] = v > env[{k}] ? (v > 2 * env[{k}] ? v : 2 * env[{k}]) : v; }}"
            )
        else:
            plan.append(f"    env[{k}] = {names.expr(b.limit)};")
            replan.append(f"    env[{k}] = {names.expr(b.limit)};")
    return [
        "static void plan_sizes(int64_t *env, const int64_t *capacity) {",
        "    (void)env; (void)capacity;",
        *plan,
        "}",
        "static void replan_sizes(int64_t *env, const uint64_t *slots) {",
        "    (void)env; (void)slots;",
        *replan,
        "}",
    ]


def _shapes(record: ModelRecord, names: _Names) -> list[str]:
    lines = [
        "static void output_shape(int32_t k, const int64_t *env, int64_t *shape) {",
        "    (void)env; (void)shape;",
        "    switch (k) {",
    ]
    for i, spec in enumerate(record.outputs):
        dims = " ".join(f"shape[{a}] = {names.expr(d)};" for a, d in enumerate(spec.shape))
        lines.append(f"    case {i}: {dims} break;")
    lines += ["    }", "}"]
    ranges = record.entry.dynamic_plan or ()
    lines.append("static void range_bytes(const int64_t *env, int64_t *bytes) {")
    lines.append("    (void)env; (void)bytes;")
    lines += [f"    bytes[{j}] = {names.expr(r.nbytes)};" for j, r in enumerate(ranges)]
    lines.append("}")
    return lines


def descriptor_source(
    record: ModelRecord,
    name: str,
    target: str,
    param_offsets: Sequence[int],
    *,
    wasm: bool = False,
) -> str:
    """The C source of model `name`'s descriptor (compiled with `include_dir()`
    on the include path, linked beside the model's object code and weights);
    `wasm` adds the flat functions a WebAssembly host calls (`WASM_EXPORTS`)."""
    e = record.entry
    names = _Names(e.sizes)
    generated = [
        *_bind(record, names), *_sizes(record, names), *_shapes(record, names),
    ]
    kinds = [
        0 if not any(b.name == n for b in e.bounds)
        else 1 if next(b for b in e.bounds if b.name == n).limit is not None else 2
        for n in e.sizes
    ]
    ranges = e.dynamic_plan or ()
    replan = e.exits.index(REPLAN) + 1 if REPLAN in e.exits else 0
    params = ", ".join(f"(void *)(lamina_params + {o})" for o in param_offsets) or "0"
    exits = ", ".join(c_string(m) for m in e.exits) or "0"
    image = IMAGE_DECODE in e.host_functions  # the C runtime forwards it to a registered decoder
    return "\n".join(
        [
            f"/* The descriptor of model '{name}', generated by lamina {__version__}. */",
            "#include <stdint.h>",
            "#include <stdio.h>",
            '#include "lamina.h"',
            "",
            f"#define NUM_INPUTS {len(record.inputs)}",
            f"#define NUM_OUTPUTS {len(record.outputs)}",
            f"#define NUM_SIZES {len(e.sizes)}",
            f"#define NUM_NAMES {max(len(names.index), 1)}",
            f"#define NUM_RANGES {len(ranges)}",
            f"#define NUM_EXITS {len(e.exits)}",
            f"#define REPLAN_EXIT {replan}",
            f"#define WORKSPACE_SIZE INT64_C({e.workspace_size})",
            f"#define LAMINA_ENTRY {name}_main",
            f"#define LAMINA_IMAGE_DECODER {int(image)}",
            "",
            "static int64_t floordiv(int64_t a, int64_t b);",
            "extern const unsigned char lamina_params[];",
            f"static void *const PARAMS[] = {{{params}}};",
            f"static const char *const EXITS[] = {{{exits}}};",
            f"static const uint8_t SIZE_KIND[] = {{{', '.join(map(str, kinds)) or '0'}}};",
            f"static const int32_t RANGE_FIRST[] = {{{', '.join(str(r.first) for r in ranges) or '0'}}};",
            f"static const int32_t RANGE_LAST[] = {{{', '.join(str(r.last) for r in ranges) or '0'}}};",
            *_table("INPUTS", record.inputs),
            *_table("OUTPUTS", record.outputs),
            *generated,
            "",
            '#include "session.c"',
            "",
            f"static const lamina_model MODEL = {{{API_VERSION}, {c_string(name)}, "
            f"{c_string(target)}, {c_string(__version__)}, NUM_INPUTS, NUM_OUTPUTS, "
            "INPUTS, OUTPUTS, session_create, session_destroy, run, session_output, "
            "session_error, set_num_threads};",
            "",
            "#define LAMINA_EXPORT __attribute__((visibility(\"default\"), used))",
            f"LAMINA_EXPORT const lamina_model *{name}_model(void) {{ return &MODEL; }}",
            "LAMINA_EXPORT __attribute__((weak)) const lamina_model *lamina_get_model(void) "
            "{ return &MODEL; }",
            *(
                [
                    f"LAMINA_EXPORT void {name}_set_image_decoder(lamina_image_decoder decoder) "
                    "{ set_image_decoder(decoder); }",
                    "LAMINA_EXPORT __attribute__((weak)) void "
                    "lamina_set_image_decoder(lamina_image_decoder decoder) { set_image_decoder(decoder); }",
                ]
                if image
                else []
            ),
            *(['#include "wasm.c"'] if wasm else []),
            "",
        ]
    )


__all__ = [
    "API_VERSION",
    "DTYPES",
    "WASM_EXPORTS",
    "c_string",
    "descriptor_source",
    "include_dir",
    "model_name",
    "name_from_path",
]
