"""BYOC targets (bring your own codegen) and their registry.

    from lamina.backends import register_target, CompositePattern, ExternalFunction

See `lamina.backends.registry` for the registration API and the C ABI of
external functions, `lamina.backends.blas` (OpenBLAS) and `lamina.backends.c`
(C source through the system compiler) for two complete targets, and
`examples/lamina-example-plugin` for a target shipped as a separate package.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping

import llvmlite.binding as llvm
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr

from lamina.abi import EXTERNAL_LIBRARIES_ATTR
from lamina.backends.registry import (
    CompositePattern,
    ExternalFunction,
    Target,
    available_targets,
    get_target,
    parse_targets,
    register_target,
    stable_symbol,
    unregister_target,
)
from lamina.errors import CompileError
from lamina.system import bind_symbol

_lock = threading.Lock()
_loaded: set[str] = set()


def load_libraries(paths: Iterable[str]) -> None:
    """Load shared libraries into the process so that JIT-compiled code can call
    their symbols (`llvm.load_library_permanently`, once per path)."""
    with _lock:
        for path in paths:
            if path in _loaded:
                continue
            try:
                llvm.load_library_permanently(path)
            except RuntimeError as e:
                raise CompileError(f"cannot load the BYOC library {path}: {e}") from e
            _loaded.add(path)


def add_symbols(symbols: Mapping[str, int]) -> None:
    """Make in-process addresses callable from JIT-compiled code by name."""
    for name, address in symbols.items():
        bind_symbol(name, address)


def load_external(module: object, targets: Iterable[str] = (), num_threads: int | None = None) -> None:
    """Before JIT-compiling a module that went through external-codegen: load
    the libraries it lists and configure the targets (e.g. BLAS threads)."""
    if isinstance(module, ModuleOp):
        libs = module.attributes.get(EXTERNAL_LIBRARIES_ATTR)
        if isinstance(libs, ArrayAttr):
            load_libraries(a.data for a in libs.data if isinstance(a, StringAttr))
    for name in targets:
        target = get_target(name)
        if target.configure is not None:
            target.configure(num_threads=num_threads)


__all__ = [
    "CompositePattern",
    "ExternalFunction",
    "Target",
    "add_symbols",
    "available_targets",
    "get_target",
    "load_external",
    "load_libraries",
    "parse_targets",
    "register_target",
    "stable_symbol",
    "unregister_target",
]
