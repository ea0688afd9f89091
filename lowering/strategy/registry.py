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

A graph op that can be computed in more than one way (a 3x3 convolution: a
direct convolution, or Winograd's algorithm per tile size) registers each
implementation (`register_implementation`), with its variants' knobs and the
pass configuration that builds a model with every eligible op in that variant.
The tuner measures every variant the target's list holds (`op_implementations`,
the default first) and records which is fastest per workload.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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


#: The name of an op's default implementation (the one a build without tuning
#: records uses).
DEFAULT_IMPLEMENTATION = "direct"


@dataclass(frozen=True)
class OpImplementationRule:
    """One registered implementation of graph op `op` for targets of `key`:
    its variants' knobs (`(("m", 4),)`, sorted) and, per variant, the pass
    configuration that builds every eligible op that way."""

    key: str
    op: str
    name: str
    plevel: int
    variants: tuple[tuple[tuple[str, int], ...], ...]
    configure: Callable[[Mapping[str, int]], Mapping[str, Any]]

    def config(self, knobs: Sequence[tuple[str, int]]) -> dict[str, Any]:
        """The pass configuration of the variant `knobs`."""
        return dict(self.configure(dict(knobs)))


_IMPLEMENTATIONS: dict[str, list[OpImplementationRule]] = {}


def register_implementation(
    key: str,
    op: str,
    name: str,
    *,
    plevel: int = 10,
    variants: Sequence[Mapping[str, int]] = ({},),
    configure: Callable[[Mapping[str, int]], Mapping[str, Any]] = lambda _: {},
) -> None:
    """Register implementation `name` of graph op `op` on targets of `key`,
    with its `variants` (knob values) and the pass configuration building each."""
    rule = OpImplementationRule(
        key, op, name, plevel, tuple(tuple(sorted(v.items())) for v in variants), configure
    )
    _IMPLEMENTATIONS.setdefault(op, []).append(rule)


def op_implementations(op: str, target: Target | None = None) -> list[OpImplementationRule]:
    """The implementations of graph op `op` on `target` (default: the running
    pass context's), highest priority (the default) first."""
    target = target if target is not None else current_target()
    keys = (target.arch, GENERIC_CPU)
    found = [i for i in _IMPLEMENTATIONS.get(op, ()) if i.key in keys]
    return sorted(found, key=lambda i: (-i.plevel, keys.index(i.key)))


__all__ = [
    "DEFAULT_IMPLEMENTATION",
    "GENERIC_CPU",
    "OpImplementationRule",
    "ScheduleRule",
    "StrategyRule",
    "implementations",
    "op_implementations",
    "register_implementation",
    "register_schedule",
    "schedule_for",
]
