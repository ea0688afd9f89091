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

import dataclasses
import difflib
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any, TypeVar

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

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


def is_pipeline(cls: type[ModulePass]) -> bool:
    """Whether `cls` is a named pipeline (a `PipelinePass`, which says so with the
    class variable `is_pipeline`) rather than a pass."""
    return getattr(cls, "is_pipeline", False) is True


def lamina_pass_list() -> str:
    """lamina's passes and named pipelines, for error messages (plugins' passes
    are listed without loading them)."""
    own = PASSES.own()
    pipelines = sorted(n for n, cls in own.items() if is_pipeline(cls))
    names = sorted({*own, *PASSES.plugin_names()} - set(pipelines))
    out = "lamina's passes are " + ", ".join(names)
    if pipelines:
        out += "; its pipelines are " + ", ".join(pipelines)
    return out + " (plus xDSL's passes: see lamina-opt --help)"


def _unknown_pass(what: str, name: object, known: Iterable[str]) -> LaminaError:
    close = difflib.get_close_matches(str(name), list(known), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return LaminaError(f"{what}: unknown pass '{name}'{hint}; {lamina_pass_list()}")


def check_pass_names(what: str, names: Iterable[str] | str) -> tuple[str, ...]:
    """`names` (a list or comma-separated text) if every one is a known pass, else
    a LaminaError for `what` (the option or argument that named it) naming the
    unknown one and the closest known."""
    if isinstance(names, str):
        names = [n for n in names.split(",") if n]
    out = tuple(names)
    known = all_passes()
    for name in out:
        if not isinstance(name, str) or name not in known:
            raise _unknown_pass(what, name, known)
    return out


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def pass_options(cls: type[ModulePass]) -> list[str]:
    """The options of a pass as written in a pipeline (kebab case):
    `fuse-ops{max-depth=8}`."""
    if not dataclasses.is_dataclass(cls):
        return []
    return [_kebab(f.name) for f in dataclasses.fields(cls) if f.init and f.name != "name"]


def _pass_from_spec(
    what: str, spec: ArgSpec, factory: Callable[[], type[ModulePass]]
) -> ModulePass:
    """The pass `spec` names, its options checked by their kebab-case names."""
    cls = factory()
    options = pass_options(cls)
    for written in spec.parameters:
        if _kebab(written) not in options:
            close = difflib.get_close_matches(_kebab(written), options, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            valid = (
                "its options are " + ", ".join(options)
                if options
                else "it takes no options"
            )
            raise LaminaError(
                f"{what}: pass '{spec.name}' has no option '{written}'{hint}; {valid}"
            )
    try:
        return cls.from_pass_spec(spec)
    except (ValueError, TypeError) as e:
        message = str(e)
        for field in dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ():
            message = message.replace(f'"{field.name}"', f"'{_kebab(field.name)}'")
        only = list(spec.parameters)
        which = f" option '{only[0]}'" if len(only) == 1 else ""
        raise LaminaError(f"{what}: pass '{spec.name}'{which}: {message}") from None


def parse_passes(
    text: str,
    what: str = "pass pipeline",
    known: Mapping[str, Callable[[], type[ModulePass]]] | None = None,
) -> list[ModulePass]:
    """The passes of pipeline text in xDSL's syntax (`"cse,fuse-ops{max-depth=8}"`);
    bad text, an unknown pass or an unknown option is a one-line LaminaError for
    `what` (the option or argument holding the text) saying what is valid. Named
    pipelines are not expanded."""
    known = all_passes() if known is None else known
    try:
        specs = list(parse_pipeline(text))
    except ArgSpecParseError as e:
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        col = lines[1].rsplit(":", 1)[-1] if len(lines) > 2 else "?"
        raise LaminaError(
            f"{what}: syntax error at column {col}: {lines[-1]}"
        ) from None
    out = []
    for spec in specs:
        if spec.name not in known:
            raise _unknown_pass(what, spec.name, known)
        out.append(_pass_from_spec(what, spec, known[spec.name]))
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
    "is_pipeline",
    "lamina_pass_list",
    "parse_passes",
    "pass_class",
    "pass_opt_level",
    "pass_options",
    "register_pass",
]
