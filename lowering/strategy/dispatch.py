"""Which knobs a template call gets: the default, or a tuning record's (TVM's
`DispatchContext`).

While `lower-relay-to-te` builds a kernel, every template call is logged
(`template_log`) as a `TemplateCall`: the template, its geometry and the schedule
it gave. When the kernel is built, the pass hands it, its workload hash and the
log to the current `DispatchContext`, if there is one (`using`): `lamina.compile
(..., tuning_records=...)` sets one that replaces a kernel's schedule with the
one its best record's knobs give (`lamina.lowering.strategy.sites.ApplyBest`),
and the tuner one that collects the kernels as tasks (`lamina.tuning.tasks`).
Contexts are context variables, so concurrent compiles never see each other's.

A graph op that can be computed in more than one way (a 3x3 convolution, as a
direct convolution or with Winograd's algorithm: TVM's implementations of an
op strategy) asks the context which `Implementation` to use for its workload
(`implementation`); the graph pass that builds it marks the ops it makes with
their origin (`ORIGIN_ATTR`, when asked to: task extraction), and while a
kernel is built `source()` is the graph op it is built from, so that a context
can tell which implementation a kernel belongs to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol

from xdsl.ir import Operation

from lamina.dialects import te
from lamina.lowering.lang.schedule import Schedule
from lamina.lowering.strategy.knobs import K, Space
from lamina.passes import current_target
from lamina.target import Target


@dataclass(frozen=True)
class TemplateCall(Generic[K]):
    """One call of a schedule template: enough to call it again with other knobs.

    `args` are the template's geometry (extents, which axes are rows and
    columns, element bits, ...), passed to the template and to its knobs'
    `default` and `space` after the target (the running pass context's, when
    the call was made)."""

    name: str
    template: Callable[..., Schedule]
    knobs: type[K]
    args: tuple[Any, ...]
    target: Target = field(default_factory=current_target)

    def default(self) -> K:
        """The knobs the target gives this call (what an untuned build uses)."""
        return self.knobs.default(self.target, *self.args)  # type: ignore[attr-defined,no-any-return]

    def space(self) -> Space[K]:
        """The candidate knobs of this call on the target."""
        return self.knobs.space(self.target, *self.args)  # type: ignore[attr-defined,no-any-return]

    def render(self, knobs: K | None = None) -> Schedule:
        """The template's schedule for `knobs` (default: the target's)."""
        return self.template(*self.args, knobs=knobs if knobs is not None else self.default())


_LOG: ContextVar[list[TemplateCall[Any]] | None] = ContextVar("lamina_template_log", default=None)


@contextmanager
def template_log() -> Iterator[list[TemplateCall[Any]]]:
    """Log the template calls made inside the block (in order) into the list
    it yields."""
    calls: list[TemplateCall[Any]] = []
    token = _LOG.set(calls)
    try:
        yield calls
    finally:
        _LOG.reset(token)


def log_call(call: TemplateCall[Any]) -> None:
    """Record `call` in the current template log (none: nothing to do)."""
    calls = _LOG.get()
    if calls is not None:
        calls.append(call)


@dataclass(frozen=True)
class Implementation:
    """One way of computing a graph op that has several: its name (`direct`,
    `winograd`) and the graph-level knobs it takes (`(("m", 4),)`, sorted)."""

    name: str
    knobs: tuple[tuple[str, int], ...] = ()

    @staticmethod
    def of(name: str, knobs: Mapping[str, int] | None = None) -> Implementation:
        return Implementation(name, tuple(sorted((knobs or {}).items())))

    def knob(self, name: str, default: int = 0) -> int:
        """The value of knob `name` (`default` if it has none)."""
        return dict(self.knobs).get(name, default)

    def __str__(self) -> str:
        return self.name + "".join(f" {k}={v}" for k, v in self.knobs)


class DispatchContext(Protocol):
    """What sees each kernel `lower-relay-to-te` builds (and may reschedule it),
    and picks the implementation of the graph ops that have several."""

    def kernel_built(self, kernel: te.FuncOp, workload: str, calls: list[TemplateCall[Any]]) -> None:
        """`kernel` was built (its computes carry their default schedules);
        `workload` is its hash, `calls` the template calls that scheduled it."""

    def implementation(self, workload: str) -> Implementation | None:
        """The implementation of the graph op of `workload` (a graph-level
        workload, such as `conv2d-winograd`'s), or None for its default."""


_CURRENT: ContextVar[DispatchContext | None] = ContextVar("lamina_dispatch", default=None)


def current() -> DispatchContext | None:
    """The dispatch context in force, if any."""
    return _CURRENT.get()


@contextmanager
def using(ctx: DispatchContext | None) -> Iterator[None]:
    """Make `ctx` the dispatch context inside the block (None: no context)."""
    token = _CURRENT.set(ctx)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def implementation(workload: str) -> Implementation | None:
    """The implementation the current dispatch context picks for the graph op
    of `workload` (None: the op's default; also without a context, or with one
    that does not pick implementations)."""
    pick = getattr(_CURRENT.get(), "implementation", None)
    return pick(workload) if pick is not None else None


#: The discardable attribute (a string) naming the workload of the graph op an
#: op was made from (see the module's docstring).
ORIGIN_ATTR = "lamina.origin"

_SOURCE: ContextVar[Operation | None] = ContextVar("lamina_dispatch_source", default=None)


def source() -> Operation | None:
    """The graph op whose kernel `lower-relay-to-te` is building (a
    `relay.fused` group or a single op), if any."""
    return _SOURCE.get()


@contextmanager
def building(op: Operation) -> Iterator[None]:
    """Make `op` the graph op whose kernel is built inside the block."""
    token = _SOURCE.set(op)
    try:
        yield
    finally:
        _SOURCE.reset(token)


__all__ = [
    "ORIGIN_ATTR",
    "DispatchContext",
    "Implementation",
    "TemplateCall",
    "building",
    "current",
    "implementation",
    "log_call",
    "source",
    "template_log",
    "using",
]
