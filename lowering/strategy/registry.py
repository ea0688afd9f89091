"""The strategy registry: which schedule a compute gets on a target (TVM's
`OpStrategy`, `add_implementation(compute, schedule, name, plevel)`).

The compute library (`lamina.lowering.topi`) is target-neutral: a compute says
what it is with a tag and its geometry (`topi.schedule(result, "dense", op,
out, k)`), and never names a schedule. A strategy registers, per target key
and tag, the rules that give a schedule for that geometry:

    @register_schedule("cpu", "dense", plevel=10)
    def _dense(op, out, kdim) -> Schedule | None: ...

A target key is an architecture (`x86_64`, `aarch64`, `riscv64`, `wasm32`) or
`cpu`, the generic CPU strategy every architecture falls back to. Rules are
tried in order of priority (higher first; an architecture's own before the
generic ones at equal priority) until one gives a schedule; a rule returns
None to pass. Adding a target means registering its rules here, with no edit
to the computes. The tag `default` gives the schedule of every compute that
carries none (`lower-te-to-tir`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lamina.lowering.lang.schedule import Schedule
from lamina.passes import current_target
from lamina.target import Target

#: The key of the strategy every CPU architecture falls back to.
GENERIC_CPU = "cpu"

ScheduleRule = Callable[..., Schedule | None]


@dataclass(frozen=True)
class StrategyRule:
    """One registered rule: for targets of `key`, computes tagged `tag`."""

    key: str
    tag: str
    name: str
    plevel: int
    rule: ScheduleRule


_RULES: dict[str, list[StrategyRule]] = {}


def register_schedule(
    key: str, tag: str, *, name: str | None = None, plevel: int = 10
) -> Callable[[ScheduleRule], ScheduleRule]:
    """Decorator: `rule` schedules computes tagged `tag` on targets of `key` (an
    architecture, or `cpu` for every CPU)."""

    def add(rule: ScheduleRule) -> ScheduleRule:
        impl = StrategyRule(key, tag, name or rule.__name__.strip("_"), plevel, rule)
        _RULES.setdefault(tag, []).append(impl)
        return rule

    return add


def implementations(tag: str, target: Target | None = None) -> list[StrategyRule]:
    """The rules for `tag` on `target` (default: the running pass context's),
    in the order they are tried."""
    target = target if target is not None else current_target()
    keys = (target.arch, GENERIC_CPU)
    found = [i for i in _RULES.get(tag, ()) if i.key in keys]
    return sorted(found, key=lambda i: (-i.plevel, keys.index(i.key)))


def schedule_for(tag: str, *args: Any, target: Target | None = None) -> Schedule | None:
    """The schedule the first applicable rule gives a compute tagged `tag` with
    geometry `args` (None: no rule applies)."""
    for impl in implementations(tag, target):
        sched = impl.rule(*args)
        if sched is not None:
            return sched
    return None


__all__ = [
    "GENERIC_CPU",
    "ScheduleRule",
    "StrategyRule",
    "implementations",
    "register_schedule",
    "schedule_for",
]
