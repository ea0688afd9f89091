"""Plugins: packages that extend lamina through Python entry points.

An installed package adds to lamina, without any edit to lamina itself, by
declaring entry points in its `pyproject.toml`. Every group is one registry
(`lamina.registry.Registry`), read once, each entry loaded when it is used:

| group                    | entry point name     | value                                   |
|--------------------------|----------------------|-----------------------------------------|
| `lamina.dialects`        | any                  | an xdsl `Dialect` (or a function returning one) |
| `lamina.passes`          | the pass name        | a `ModulePass` class                    |
| `lamina.targets`         | the target name      | a function (or module) that calls `register_target` |
| `lamina.relay_ops`       | the op name          | a graph-level op class (a `RelayOp`)    |
| `lamina.computes`        | the op name          | its TE compute                          |
| `lamina.evaluators`      | the op name          | its numpy evaluator (fold-constant)     |
| `lamina.onnx_converters` | the ONNX op type     | its converter to graph-level ops        |

Dialects join `lamina.ir.lamina_dialects()` (so `lamina.parse`, `lamina-opt`),
passes join the pass registry (so `-p my-pass` and pipelines), targets are loaded
when a BYOC pass or `lamina.compile(targets=[...])` asks for one lamina does not
know, and an op's entries are found by the importer, the lowering and
fold-constant by name. A plugin that fails to load is reported, never silently
skipped: a pass, target, op, compute or converter that is used raises a
`LaminaError` naming the entry point and its package; a dialect that cannot load
is a `RuntimeWarning` (so that one broken plugin does not make every IR file
unreadable). `docs/adding-an-op.md` and `docs/writing-a-backend.md` walk through
complete plugins.
"""

from __future__ import annotations

import threading
import warnings
from functools import cache
from importlib.metadata import EntryPoint
from typing import Any

from xdsl.ir import Dialect

from lamina.errors import LaminaError
from lamina.registry import describe_entry_point, load_entry_point, plugin_entry_points

DIALECTS_GROUP = "lamina.dialects"
PASSES_GROUP = "lamina.passes"
TARGETS_GROUP = "lamina.targets"
RELAY_OPS_GROUP = "lamina.relay_ops"
COMPUTES_GROUP = "lamina.computes"
EVALUATORS_GROUP = "lamina.evaluators"
ONNX_CONVERTERS_GROUP = "lamina.onnx_converters"

_lock = threading.RLock()
_loaded_targets: set[str] = set()


def _entry_points(group: str) -> list[EntryPoint]:
    return plugin_entry_points(group)


@cache
def plugin_dialects() -> tuple[Dialect, ...]:
    """Dialects declared by installed packages (group `lamina.dialects`)."""
    out = []
    for ep in _entry_points(DIALECTS_GROUP):
        try:
            obj: Any = load_entry_point(ep)
            if not isinstance(obj, Dialect) and callable(obj):
                obj = obj()
            if not isinstance(obj, Dialect):
                raise LaminaError(
                    f"plugin {describe_entry_point(ep)} is not an xdsl Dialect: {obj!r}"
                )
        except Exception as e:
            # A broken plugin must not make all IR unreadable: say so, go on.
            warnings.warn(f"lamina: skipping a dialect plugin: {e}", RuntimeWarning, stacklevel=2)
            continue
        out.append(obj)
    return tuple(out)


def load_targets() -> None:
    """Load every `lamina.targets` entry point not loaded yet: a callable is
    called (it registers its targets), a module is imported (registering at
    import time does it)."""
    with _lock:
        for ep in _entry_points(TARGETS_GROUP):
            key = f"{ep.name}={ep.value}"
            if key in _loaded_targets:
                continue
            _loaded_targets.add(key)
            obj = load_entry_point(ep)
            if callable(obj):
                try:
                    obj()
                except LaminaError:
                    raise
                except Exception as e:
                    raise LaminaError(
                        f"plugin {describe_entry_point(ep)} failed to register: "
                        f"{type(e).__name__}: {e}"
                    ) from e


__all__ = [
    "COMPUTES_GROUP",
    "DIALECTS_GROUP",
    "EVALUATORS_GROUP",
    "ONNX_CONVERTERS_GROUP",
    "PASSES_GROUP",
    "RELAY_OPS_GROUP",
    "TARGETS_GROUP",
    "load_targets",
    "plugin_dialects",
]
