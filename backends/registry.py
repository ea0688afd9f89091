"""BYOC targets: one registration per target, found by name.

A target says which graph ops it takes (each with an optional check function),
which composite patterns it knows (lamina's pattern language, each with an
optional check), and how to turn an outlined function into native code that the
compiled `main` can call (its codegen). The BYOC passes (`merge-composite`,
`annotate-target`, `merge-compiler-regions`, `partition-graph`,
`external-codegen`) and `lamina.compile(..., targets=[...])` read targets from
here:

    from lamina.backends import register_target, CompositePattern
    from lamina.pattern import is_op, wildcard

    register_target(
        "mylib",
        ops={"relay.relu": None, "relay.add": check_add},   # check(op) -> bool | str
        patterns=[CompositePattern("add_relu", is_op("relu")(is_op("add")(wildcard(), wildcard())))],
        codegen=my_codegen,           # func.func -> ExternalFunction
        runtime_libraries=["/path/libmylib.so"],
    )

A check function returns True (or None) to accept, False or a string (the
reason, shown by `annotate-target{explain=true}` and in pass statistics) to
reject.

The external-function ABI: the codegen returns an `ExternalFunction` naming a C
symbol `void sym(void *in0, ..., void *inN, void *out0, ..., void *outM)`: one
pointer per input of the outlined function, then one per result, each a
contiguous row-major buffer of the tensor's type, 64-byte aligned, outputs
written by the function (destination-passing style, exactly how `main` calls
lamina's own kernels). The symbol is found in `libraries` (shared objects the
JIT loads with `llvm.load_library_permanently`) or in `symbols` (name -> address,
registered with `llvm.add_symbol`). Symbols are process-global: name them after
a hash of what they compute (see `stable_symbol`).

`CompiledModel.export` links the libraries built by
`lamina.backends.cc.compile_shared` into the exported library (their object
files), and any other library by path with an rpath (a dynamic dependency the
model needs wherever it runs); symbols given as addresses cannot be exported.

Targets are found, in order, among the registered ones, lamina's built-in ones
(`blas`, `c`) and the `lamina.targets` entry points of installed packages
(`lamina.plugins`).
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import func
from xdsl.ir import Operation

from lamina.dialects.shapes import is_symbolic
from lamina.errors import LaminaError
from lamina.passes import PassContext, register_config
from lamina.plugins import load_targets

register_config(
    "byoc.targets",
    str,
    "",
    "BYOC targets, comma-separated, that merge-composite, annotate-target and "
    "the other BYOC passes offload to when not given `targets=`; "
    "lamina.compile(targets=[...]) sets it",
)
register_config(
    "byoc.num-threads",
    int,
    0,
    "threads a BYOC target's library may use in the compiled model (0: the "
    "library's own setting); lamina.compile(num_threads=...) sets it",
)

#: check(op) / check(match): True or None accepts; False or a reason string rejects.
Check = Callable[[Any], "bool | str | None"]


@dataclass(frozen=True)
class CompositePattern:
    """A composite: `pattern` (lamina.pattern) whose matches become one
    `relay.fused` region named `<target>.<name>` when `check(match)` accepts."""

    name: str
    pattern: Any
    check: Check | None = None


@dataclass(frozen=True)
class ExternalFunction:
    """What a codegen returns: the C symbol `main` calls (see the module ABI),
    where to find it, and anything worth showing (`source`)."""

    symbol: str
    libraries: tuple[str, ...] = ()
    symbols: Mapping[str, int] = field(default_factory=dict)
    source: str | None = None


Codegen = Callable[[func.FuncOp], ExternalFunction]


@dataclass
class Target:
    """A registered BYOC target."""

    name: str
    ops: dict[str, Check | None]
    patterns: list[CompositePattern]
    codegen: Codegen
    runtime_libraries: Callable[[], Sequence[str]] | Sequence[str] = ()
    configure: Callable[..., None] | None = None
    description: str = ""
    #: Whether its codegen handles symbolic dims; if not, ops over them stay in lamina.
    symbolic: bool = False

    def composite(self, name: str) -> CompositePattern | None:
        for p in self.patterns:
            if p.name == name:
                return p
        return None

    def libraries(self) -> list[str]:
        libs = self.runtime_libraries
        return list(libs() if callable(libs) else libs)

    def check_op(self, op: Operation) -> str | None:
        """None if this target takes `op`, else why not."""
        if op.name not in self.ops:
            return f"{self.name} does not support {op.name}"
        if not self.symbolic and has_symbolic_types(op):
            return f"{self.name} compiles static shapes only, and {op.name} has symbolic dims"
        return run_check(self.ops[op.name], op, f"{self.name}: {op.name}")


def has_symbolic_types(op: Operation) -> bool:
    """Whether an operand or result of `op` has symbolic dims."""
    return any(is_symbolic(v.type) for v in (*op.operands, *op.results))


def run_check(check: Check | None, subject: Any, what: str) -> str | None:
    """Run a check function: None if it accepts, else the reason."""
    if check is None:
        return None
    try:
        verdict = check(subject)
    except Exception as e:  # a broken check rejects, and says so
        return f"{what}: the check function raised {type(e).__name__}: {e}"
    if verdict is None or verdict is True:
        return None
    if isinstance(verdict, str):
        return verdict
    name = getattr(check, "__name__", repr(check))
    return f"{what}: rejected by check function {name}"


_lock = threading.RLock()
_TARGETS: dict[str, Target] = {}
#: lamina's own targets, imported when first asked for.
BUILTIN_TARGETS: dict[str, str] = {
    "blas": "lamina.backends.blas",
    "c": "lamina.backends.c",
}


def _normalize_op(name: str) -> str:
    return name if "." in name else f"relay.{name}"


def register_target(
    name: str,
    *,
    ops: Mapping[str, Check | None] | Iterable[str] = (),
    patterns: Sequence[CompositePattern | tuple] = (),
    codegen: Codegen,
    runtime_libraries: Callable[[], Sequence[str]] | Sequence[str] = (),
    configure: Callable[..., None] | None = None,
    description: str = "",
    override: bool = False,
    symbolic: bool = False,
) -> Target:
    """Register a BYOC target (see the module docstring); returns it.

    `ops`: op names (`"relay.dense"` or `"dense"`) -> check function or None.
    `patterns`: `CompositePattern`s or `(name, pattern[, check])` tuples, in
    priority order (an earlier pattern wins an overlap). `codegen`: outlined
    `func.func` -> `ExternalFunction`. `runtime_libraries`: shared libraries to
    load before running (or a function returning them). `configure(num_threads=)`
    is called by `lamina.compile`."""
    if not name or not name.replace("_", "").isalnum():
        raise LaminaError(
            f"BYOC target name '{name}' must be letters, digits and underscores "
            "(it names symbols and composites)"
        )
    if not callable(codegen):
        raise LaminaError(f"BYOC target '{name}': codegen must be callable")
    op_table = (
        {_normalize_op(k): v for k, v in ops.items()}
        if isinstance(ops, Mapping)
        else {_normalize_op(k): None for k in ops}
    )
    pats: list[CompositePattern] = []
    for p in patterns:
        cp = p if isinstance(p, CompositePattern) else CompositePattern(*p)
        if any(q.name == cp.name for q in pats):
            raise LaminaError(f"BYOC target '{name}': two composite patterns named '{cp.name}'")
        pats.append(cp)
    target = Target(
        name, op_table, pats, codegen, runtime_libraries, configure, description, symbolic
    )
    with _lock:
        if name in _TARGETS and not override:
            raise LaminaError(
                f"BYOC target '{name}' is already registered; pass override=True to "
                "replace it"
            )
        _TARGETS[name] = target
    return target


def unregister_target(name: str) -> None:
    with _lock:
        _TARGETS.pop(name, None)


def _load_plugins() -> None:
    load_targets()


def get_target(name: str) -> Target:
    """The target `name`: registered, built in, or from a plugin package."""
    with _lock:
        if name in _TARGETS:
            return _TARGETS[name]
        if name in BUILTIN_TARGETS:
            importlib.import_module(BUILTIN_TARGETS[name])
            if name in _TARGETS:
                return _TARGETS[name]
        _load_plugins()
        if name in _TARGETS:
            return _TARGETS[name]
    known = sorted(set(_TARGETS) | set(BUILTIN_TARGETS))
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    raise LaminaError(
        f"unknown BYOC target '{name}'{hint}; known targets: {', '.join(known)}. "
        "Register one with lamina.backends.register_target or install a plugin "
        "package with a 'lamina.targets' entry point"
    )


def available_targets() -> list[str]:
    """Names of every target that can be loaded (built-in, registered, plugins)."""
    with _lock:
        _load_plugins()
        return sorted(set(_TARGETS) | set(BUILTIN_TARGETS))


def parse_targets(targets: str | Iterable[str]) -> list[str]:
    """Target names from `"blas,c"` or a list, duplicates dropped, checked."""
    names = targets.split(",") if isinstance(targets, str) else list(targets)
    out: list[str] = []
    for n in names:
        n = n.strip()
        if n and n not in out:
            get_target(n)
            out.append(n)
    return out


def configured_targets(option: Sequence[str]) -> list[str]:
    """The targets a BYOC pass works for: its `targets` option, else the
    `byoc.targets` pass config (what `lamina.compile(targets=...)` sets)."""
    if option:
        return parse_targets(option)
    return parse_targets(str(PassContext.current().get_config("byoc.targets")))


def stable_symbol(prefix: str, *parts: str) -> str:
    """`<prefix>_<hash>`: a symbol named after what it computes, so that equal
    code gets equal names and different code never collides in the process."""
    h = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]
    return f"{prefix}_{h}"


__all__ = [
    "BUILTIN_TARGETS",
    "Check",
    "Codegen",
    "CompositePattern",
    "ExternalFunction",
    "Target",
    "available_targets",
    "configured_targets",
    "get_target",
    "parse_targets",
    "register_target",
    "run_check",
    "stable_symbol",
    "unregister_target",
]
