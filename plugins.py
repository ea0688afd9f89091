"""Plugins: packages that extend lamina through Python entry points.

An installed package adds to lamina, without any edit to lamina itself, by
declaring entry points in its `pyproject.toml`:

```toml
[project.entry-points."lamina.dialects"]
mydialect = "my_pkg.dialect:MyDialect"       # an xdsl Dialect (or a function returning one)

[project.entry-points."lamina.passes"]
my-pass = "my_pkg.passes:MyPass"             # a ModulePass class (or a function returning one)

[project.entry-points."lamina.targets"]
mylib = "my_pkg.target:register"             # called once; it calls register_target
```

Dialects join `lamina.ir.lamina_dialects()` (so `lamina.parse`, `lamina-opt`),
passes join `lamina.passes.registry.all_passes()` (so `-p my-pass` and pipelines),
targets are loaded when a BYOC pass or `lamina.compile(targets=[...])` asks for a
target lamina does not know. A plugin that fails to load is reported, never
silently skipped: a pass or target that is used raises a `LaminaError` naming the
entry point and its package; a dialect that cannot load is a `RuntimeWarning`
(so that one broken plugin does not make every IR file unreadable).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from lamina.errors import LaminaError

DIALECTS_GROUP = "lamina.dialects"
PASSES_GROUP = "lamina.passes"
TARGETS_GROUP = "lamina.targets"

_lock = threading.RLock()
_loaded_targets: set[str] = set()


def _entry_points(group: str) -> list[EntryPoint]:
    return sorted(entry_points(group=group), key=lambda ep: ep.name)


def _describe(ep: EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    pkg = f" from package '{dist.name}'" if dist is not None else ""
    return f"entry point '{ep.name} = {ep.value}' (group {ep.group}){pkg}"


def _load(ep: EntryPoint) -> Any:
    try:
        return ep.load()
    except Exception as e:
        raise LaminaError(f"cannot load plugin {_describe(ep)}: {type(e).__name__}: {e}") from e


@cache
def plugin_dialects() -> tuple[Any, ...]:
    """Dialects declared by installed packages (group `lamina.dialects`)."""
    from xdsl.ir import Dialect

    out = []
    for ep in _entry_points(DIALECTS_GROUP):
        try:
            obj = _load(ep)
            if not isinstance(obj, Dialect) and callable(obj):
                obj = obj()
            if not isinstance(obj, Dialect):
                raise LaminaError(f"plugin {_describe(ep)} is not an xdsl Dialect: {obj!r}")
        except Exception as e:
            # A broken plugin must not make all IR unreadable: say so, go on.
            warnings.warn(f"lamina: skipping a dialect plugin: {e}", RuntimeWarning, stacklevel=2)
            continue
        out.append(obj)
    return tuple(out)


@cache
def plugin_passes() -> dict[str, Callable[[], type]]:
    """Pass name -> factory of its class, from group `lamina.passes` (loaded
    lazily, when the pass is used; the entry points are read once)."""
    from xdsl.passes import ModulePass

    def factory(ep: EntryPoint) -> Callable[[], type]:
        def load() -> type:
            obj = _load(ep)
            if not (isinstance(obj, type) and issubclass(obj, ModulePass)) and callable(obj):
                obj = obj()
            if not (isinstance(obj, type) and issubclass(obj, ModulePass)):
                raise LaminaError(f"plugin {_describe(ep)} is not a ModulePass class: {obj!r}")
            if obj.name != ep.name:
                raise LaminaError(
                    f"plugin {_describe(ep)}: the pass class is named '{obj.name}', "
                    f"not '{ep.name}'"
                )
            return obj

        return load

    return {ep.name: factory(ep) for ep in _entry_points(PASSES_GROUP)}


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
            obj = _load(ep)
            if callable(obj):
                try:
                    obj()
                except LaminaError:
                    raise
                except Exception as e:
                    raise LaminaError(
                        f"plugin {_describe(ep)} failed to register: "
                        f"{type(e).__name__}: {e}"
                    ) from e


__all__ = [
    "DIALECTS_GROUP",
    "PASSES_GROUP",
    "TARGETS_GROUP",
    "load_targets",
    "plugin_dialects",
    "plugin_passes",
]
