"""One registry shape for everything lamina looks up by name.

Passes, ONNX converters, op computes, fold-constant evaluators, graph ops and BYOC
targets are each a `Registry`: lamina's own entries register themselves when
their module is imported (`@PASSES.register("fuse-ops")`), and installed plugin
packages add theirs through the Python entry-point group the registry names,
without any edit to lamina (see `lamina.plugins` for the groups). Plugin entries
are read once, on the first lookup, and each is loaded only when it is used;
lamina's own names win over a plugin's.
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, TypeVar, overload

from lamina.errors import LaminaError

T = TypeVar("T")
_MISSING: Any = object()


def describe_entry_point(ep: EntryPoint) -> str:
    """`entry point 'name = module:attr' (group g) from package 'p'`."""
    dist = getattr(ep, "dist", None)
    pkg = f" from package '{dist.name}'" if dist is not None else ""
    return f"entry point '{ep.name} = {ep.value}' (group {ep.group}){pkg}"


def load_entry_point(ep: EntryPoint) -> Any:
    """The object an entry point names; a failure is a LaminaError naming it."""
    try:
        return ep.load()
    except Exception as e:
        raise LaminaError(
            f"cannot load plugin {describe_entry_point(ep)}: {type(e).__name__}: {e}"
        ) from e


def plugin_entry_points(group: str) -> list[EntryPoint]:
    """The installed entry points of `group`, by name."""
    return sorted(entry_points(group=group), key=lambda ep: ep.name)


class Registry(Generic[T]):
    """Name -> object, from `register` and from the entry points of `group`;
    readable (and, for tests, writable: `monkeypatch.setitem`) like a dict.

    `check(name, obj)` validates (and may convert) an entry as it is registered
    or loaded from a plugin; it raises `LaminaError` saying what is wrong."""

    def __init__(
        self,
        what: str,
        group: str | None = None,
        check: Callable[[str, Any], T] | None = None,
    ) -> None:
        self.what = what
        self.group = group
        self._check = check
        self._own: dict[str, T] = {}
        self._plugins: dict[str, EntryPoint] | None = None
        self._loaded: dict[str, T] = {}
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {len(self._own)} entries, group={self.group!r})"

    # --- filling -----------------------------------------------------------
    @overload
    def register(self, name: str) -> Callable[[T], T]: ...
    @overload
    def register(self, name: str, obj: T, *, replace: bool = False) -> T: ...

    def register(self, name: str, obj: Any = None, *, replace: bool = False) -> Any:
        """Register `obj` under `name`; without `obj`, a decorator that does."""
        if obj is None:
            return lambda o: self.register(name, o, replace=replace)
        checked = self._check(name, obj) if self._check else obj
        with self._lock:
            old = self._own.get(name)
            if old is not None and old is not checked and not replace:
                raise LaminaError(f"{self.what} '{name}' is already registered ({old!r})")
            self._own[name] = checked
        return obj

    @contextmanager
    def scoped(self, name: str, obj: T) -> Iterator[T]:
        """Register `obj` under `name` for the duration of a `with` block (the
        previous entry, if any, comes back after it)."""
        with self._lock:
            old = self._own.get(name)
            self.register(name, obj, replace=True)
        try:
            yield obj
        finally:
            with self._lock:
                if old is None:
                    self._own.pop(name, None)
                else:
                    self._own[name] = old

    def unregister(self, name: str) -> None:
        """Forget `name` (a no-op when it is not registered)."""
        with self._lock:
            self._own.pop(name, None)
            self._loaded.pop(name, None)

    # --- plugins -----------------------------------------------------------
    def _plugin_eps(self) -> dict[str, EntryPoint]:
        with self._lock:
            if self._plugins is None:
                eps = plugin_entry_points(self.group) if self.group else []
                self._plugins = {ep.name: ep for ep in eps}
            return self._plugins

    def reload_plugins(self) -> None:
        """Read the entry points again (after installing a plugin in-process)."""
        with self._lock:
            self._plugins = None
            self._loaded.clear()

    def _load_plugin(self, name: str) -> T | None:
        ep = self._plugin_eps().get(name)
        if ep is None:
            return None
        with self._lock:
            if name not in self._loaded:
                obj = load_entry_point(ep)
                try:
                    self._loaded[name] = self._check(name, obj) if self._check else obj
                except LaminaError as e:
                    raise LaminaError(f"plugin {describe_entry_point(ep)}: {e}") from None
            return self._loaded[name]

    # --- lookup ------------------------------------------------------------
    def lookup(self, name: str) -> T | None:
        """The entry for `name`, or None."""
        own = self._own.get(name)
        return own if own is not None else self._load_plugin(name)

    def get(self, name: str, default: Any = _MISSING) -> Any:
        """The entry for `name`; an unknown name is `default` when one is given,
        else a LaminaError listing the close matches."""
        found = self.lookup(name)
        if found is None:
            if default is not _MISSING:
                return default
            close = difflib.get_close_matches(name, self.names(), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise LaminaError(f"unknown {self.what} '{name}'{hint}")
        return found

    def __getitem__(self, name: str) -> T:
        found = self.lookup(name)
        if found is None:
            raise KeyError(name)
        return found

    def __setitem__(self, name: str, obj: T) -> None:
        self.register(name, obj, replace=True)

    def __delitem__(self, name: str) -> None:
        if name not in self._own:
            raise KeyError(name)
        self.unregister(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (
            name in self._own or name in self._plugin_eps()
        )

    def names(self) -> list[str]:
        """Every name, lamina's own and the plugins', sorted."""
        return sorted({*self._own, *self._plugin_eps()})

    def own(self) -> dict[str, T]:
        """lamina's own entries (no plugin is loaded)."""
        return dict(self._own)

    def plugin_names(self) -> list[str]:
        """Names that plugins provide (and lamina does not)."""
        return sorted(n for n in self._plugin_eps() if n not in self._own)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())


__all__ = [
    "Registry",
    "describe_entry_point",
    "load_entry_point",
    "plugin_entry_points",
]
