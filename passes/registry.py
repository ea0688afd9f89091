"""Every pass by name: lamina's own, those of plugins, and the xDSL passes lamina
reuses (as xdsl-opt knows them).

A lamina pass registers itself where it is defined:

    @register_pass
    @dataclass(frozen=True)
    class FuseOpsPass(ModulePass):
        name = "fuse-ops"
        opt_level: ClassVar[int] = 2

and a plugin's pass through the entry-point group `lamina.passes` (the entry
point's name is the pass name). A pass declares the lowest opt level it runs at
as a class variable (TVM's `PassInfo.opt_level`); xDSL's passes get theirs from
`EXTERNAL_OPT_LEVELS` (anything else: 0, always runs).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, TypeVar

from xdsl.passes import ModulePass

from lamina.errors import LaminaError
from lamina.registry import Registry

P = TypeVar("P", bound=type[ModulePass])


def _check_pass(name: str, obj: Any) -> type[ModulePass]:
    if not (isinstance(obj, type) and issubclass(obj, ModulePass)) and callable(obj):
        obj = obj()  # a plugin may name a function returning the class
    if not (isinstance(obj, type) and issubclass(obj, ModulePass)):
        raise LaminaError(f"pass '{name}' is not a ModulePass class: {obj!r}")
    if obj.name != name:
        raise LaminaError(f"the pass class is named '{obj.name}', not '{name}'")
    return obj


#: lamina's passes and the plugins' (group `lamina.passes`).
PASSES: Registry[type[ModulePass]] = Registry("pass", "lamina.passes", _check_pass)


def register_pass(cls: P) -> P:
    """Class decorator: register a pass under its `name`."""
    PASSES.register(cls.name, cls)
    return cls


#: Opt levels of the xDSL passes lamina reuses (lamina's own passes declare theirs
#: as a class variable `opt_level`). Any other pass has level 0: it always runs.
EXTERNAL_OPT_LEVELS: dict[str, int] = {"canonicalize": 2, "cse": 2, "dce": 2}


def pass_opt_level(p: ModulePass | type[ModulePass]) -> int:
    """The lowest opt level at which `p` runs."""
    cls = p if isinstance(p, type) else type(p)
    level = cls.__dict__.get("opt_level")
    if level is None:
        for base in cls.__mro__[1:]:
            if isinstance(base.__dict__.get("opt_level"), int):
                level = base.__dict__["opt_level"]
                break
    if isinstance(level, int) and not isinstance(level, bool):
        return level
    return EXTERNAL_OPT_LEVELS.get(cls.name, 0)


@cache
def _xdsl_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    from xdsl.universe import Universe

    return dict(Universe.get_multiverse().all_passes)


def _factory(name: str) -> Callable[[], type[ModulePass]]:
    return lambda: PASSES.get(name)


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory of its class: lamina's, the plugins' (lamina's names
    win) and xDSL's, as `xdsl.passes.PassPipeline.parse_spec` takes them."""
    return {**_xdsl_passes(), **{n: _factory(n) for n in PASSES.names()}}


def lamina_pass_list() -> str:
    """lamina's pass names, for error messages."""
    return ", ".join(PASSES.names()) + " (plus xDSL's: see lamina-opt --help)"


def check_pass_names(what: str, names: Iterable[str] | str) -> tuple[str, ...]:
    """`names` (a list or comma-separated text) if every one is a known pass, else
    a LaminaError for `what` naming the unknown one and the closest known."""
    if isinstance(names, str):
        names = [n for n in names.split(",") if n]
    out = tuple(names)
    known = all_passes()
    for name in out:
        if not isinstance(name, str) or name not in known:
            close = difflib.get_close_matches(str(name), known, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise LaminaError(
                f"{what}: unknown pass '{name}'{hint}; lamina's passes are "
                + lamina_pass_list()
            )
    return out


def pass_class(name: str) -> type[ModulePass]:
    """The class of the pass `name` (lamina's, a plugin's or xDSL's)."""
    known = all_passes()
    if name not in known:
        check_pass_names("pass", [name])
    return known[name]()


__all__ = [
    "EXTERNAL_OPT_LEVELS",
    "PASSES",
    "all_passes",
    "check_pass_names",
    "lamina_pass_list",
    "pass_class",
    "pass_opt_level",
    "register_pass",
]
