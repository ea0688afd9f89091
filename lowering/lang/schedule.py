"""TE schedules: loop-nest transformations as data, printed and replayed.

A schedule is a list of primitives applied, in order, to the loop nest of one
materialized `te.compute` (TVM's `te.Schedule` for one stage):

    split(i1, 6); split(i2, 32); reorder(i2.o, i1.o, r0, i1.i, i2.i);
    cache_write(i1.o); unroll(i1.i); vectorize(i2.i); parallel(i2.o)

Axes are named `i0, i1, ...` (output dimensions) and `r0, r1, ...` (reduce axes);
`split(x, f)` makes `x.o` and `x.i`, `fuse(a, b)` makes `a.b`. Those names are
spelt only by `axis_name`, `reduce_axis_name`, `outer_name`, `inner_name` and
`fused_name`: the templates build their schedules with them. The primitives:

- `split(x, f)`, `fuse(a, b)` (adjacent, `a` outside `b`), `reorder(x, y, ...)`
  (permutes the named loops among their positions), `tile(x, y, fx, fy)`;
- `vectorize(x)`, `parallel(x)`, `unroll(x)`: the loop's kind (see `tir.for`);
  vectorizing the innermost reduce loop (without `cache_write`) is TVM's
  `rfactor` over the lanes: each lane keeps a partial result, combined at the end;
- `cache_write(x)`: a reduction accumulates in a local buffer, indexed by the
  output loops inside `x`, which is written back (through the elementwise
  epilogue, TVM's `compute_at`) after the reduction loops inside `x` finish;
  reduce loops outside `x` block the reduction (a GEMM's K blocks): each of
  their iterations but the first starts from the partial result written back
  by the one before, and only the last runs the epilogue;
- `compute_inline`: applies to the stages that are not materialized; injective
  intermediates are always inlined into their readers.

A schedule is stored on its `te.compute` as the string attribute `schedule`
(`SCHEDULE_ATTR`), so the TE text shows it, and editing the text replays
another one. The default schedules (the templates and which op gets which, like
TVM's strategies) are in `lamina.lowering.strategy`, one module per target class.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lamina.dialects.tir import ForKind
from lamina.errors import LoweringError
from lamina.lowering.lang.index import Lin, Var
from lamina.symbolic import Dim, Sym

#: The string attribute of a `te.compute` that holds its schedule's text.
SCHEDULE_ATTR = "schedule"


# ---------------------------------------------------------------- loop names
def axis_name(d: int) -> str:
    """The loop of output axis `d`: `i{d}`."""
    return f"i{d}"


def reduce_axis_name(d: int) -> str:
    """The loop of reduce axis `d`: `r{d}`."""
    return f"r{d}"


def outer_name(loop: str) -> str:
    """The outer loop `split(loop, f)` makes: `loop.o`."""
    return f"{loop}.o"


def inner_name(loop: str) -> str:
    """The inner loop `split(loop, f)` makes: `loop.i`."""
    return f"{loop}.i"


def fused_name(*loops: str) -> str:
    """The loop that fusing `loops` (outermost first, each into the fusion of
    those before it) makes: `a.b` for `fuse(a, b)`."""
    return ".".join(loops)


# ---------------------------------------------------------------- primitives
@dataclass(frozen=True)
class Split:
    axis: str
    factor: int

    def __str__(self) -> str:
        return f"split({self.axis}, {self.factor})"


@dataclass(frozen=True)
class Fuse:
    outer: str
    inner: str

    def __str__(self) -> str:
        return f"fuse({self.outer}, {self.inner})"


@dataclass(frozen=True)
class Reorder:
    order: tuple[str, ...]

    def __str__(self) -> str:
        return f"reorder({', '.join(self.order)})"


@dataclass(frozen=True)
class Annotate:
    kind: ForKind
    axis: str

    def __str__(self) -> str:
        verb = {ForKind.VECTORIZED: "vectorize", ForKind.PARALLEL: "parallel"}
        return f"{verb.get(self.kind, 'unroll')}({self.axis})"


@dataclass(frozen=True)
class CacheWrite:
    at: str

    def __str__(self) -> str:
        return f"cache_write({self.at})"


Primitive = Split | Fuse | Reorder | Annotate | CacheWrite
_CALL = re.compile(r"\s*(\w+)\s*\(([^()]*)\)\s*")
_KINDS = {"vectorize": ForKind.VECTORIZED, "parallel": ForKind.PARALLEL, "unroll": ForKind.UNROLLED}


@dataclass(frozen=True)
class Schedule:
    """An ordered list of primitives; `str()` and `Schedule.parse` round-trip."""

    steps: tuple[Primitive, ...] = ()

    def __str__(self) -> str:
        return "; ".join(str(s) for s in self.steps)

    def __add__(self, other: Schedule) -> Schedule:
        return Schedule(self.steps + other.steps)

    @staticmethod
    def parse(text: str) -> Schedule:
        steps: list[Primitive] = []
        for part in filter(None, (p.strip() for p in text.split(";"))):
            m = _CALL.fullmatch(part)
            if m is None:
                raise LoweringError(f"bad schedule step '{part}': expected name(args)")
            verb, args = m.group(1), [a.strip() for a in m.group(2).split(",") if a.strip()]
            try:
                steps.extend(_step(verb, args))
            except (ValueError, IndexError):
                raise LoweringError(
                    f"bad schedule step '{part}': see lamina.lowering.lang.schedule for "
                    "the primitives and their arguments"
                ) from None
        return Schedule(tuple(steps))


def _step(verb: str, args: list[str]) -> list[Primitive]:
    if verb == "split" and len(args) == 2:
        return [Split(args[0], int(args[1]))]
    if verb == "fuse" and len(args) == 2:
        return [Fuse(args[0], args[1])]
    if verb == "reorder" and args:
        return [Reorder(tuple(args))]
    if verb == "tile" and len(args) == 4:
        x, y, fx, fy = args
        return [
            Split(x, int(fx)),
            Split(y, int(fy)),
            Reorder((outer_name(x), outer_name(y), inner_name(x), inner_name(y))),
        ]
    if verb in _KINDS and len(args) == 1:
        return [Annotate(_KINDS[verb], args[0])]
    if verb == "cache_write" and len(args) == 1:
        return [CacheWrite(args[0])]
    raise ValueError(verb)


# ---------------------------------------------------------------- loop nests
@dataclass
class Loop:
    var: Var
    kind: ForKind = ForKind.SERIAL
    reduce: bool = False


@dataclass
class LoopNest:
    """The loops of one stage after a schedule, outermost first.

    `axes` gives each original axis (`i*` then `r*`) as an expression of the loop
    variables; `guards` are the conditions (`expr < extent`) that non-dividing
    splits add; `cache_at` is the loop of `cache_write`, if any.
    """

    loops: list[Loop]
    axes: dict[str, Lin]
    guards: list[tuple[Lin, Dim]] = field(default_factory=list)
    cache_at: str | None = None

    @staticmethod
    def of(extents: tuple[Dim, ...], reduce_extents: tuple[Dim, ...]) -> LoopNest:
        loops = [Loop(Var(axis_name(d), e)) for d, e in enumerate(extents)]
        loops += [Loop(Var(reduce_axis_name(d), e), reduce=True) for d, e in enumerate(reduce_extents)]
        return LoopNest(loops, {lp.var.name: Lin.of(lp.var) for lp in loops})

    @property
    def vector_var(self) -> Var | None:
        """The variable of the vectorized loop (the innermost), if any."""
        if self.loops and self.loops[-1].kind == ForKind.VECTORIZED:
            return self.loops[-1].var
        return None

    def find(self, name: str) -> int:
        for i, lp in enumerate(self.loops):
            if lp.var.name == name:
                return i
        raise LoweringError(
            f"schedule: no loop '{name}'; the loops are "
            + ", ".join(lp.var.name for lp in self.loops)
        )

    def _substitute(self, env: dict[Var, Lin]) -> None:
        self.axes = {k: v.substitute(env) for k, v in self.axes.items()}  # type: ignore[arg-type]
        self.guards = [(g.substitute(env), e) for g, e in self.guards]  # type: ignore[arg-type]

    def apply(self, schedule: Schedule) -> LoopNest:
        for step in schedule.steps:
            if isinstance(step, Split):
                self.split(step.axis, step.factor)
            elif isinstance(step, Fuse):
                self.fuse(step.outer, step.inner)
            elif isinstance(step, Reorder):
                self.reorder(step.order)
            elif isinstance(step, Annotate):
                self.loops[self.find(step.axis)].kind = step.kind
            else:
                self.find(step.at)
                self.cache_at = step.at
        return self

    def split(self, name: str, factor: int) -> None:
        i = self.find(name)
        lp = self.loops[i]
        if factor <= 0:
            raise LoweringError(f"schedule: split({name}, {factor}) needs a positive factor")
        extent = lp.var.extent
        outer = Var(outer_name(name), (extent + factor - 1) // factor)
        inner = Var(inner_name(name), factor if isinstance(extent, Sym) else min(factor, extent))
        value = Lin.of(outer) * factor + inner
        self.loops[i : i + 1] = [Loop(outer, reduce=lp.reduce), Loop(inner, reduce=lp.reduce)]
        self._substitute({lp.var: value})
        if isinstance(extent, Sym):
            if not all(c % factor == 0 for c in extent.terms.values()):
                self.guards.append((value, extent))  # a tail, for some sizes
        elif extent % factor and factor < extent:
            self.guards.append((value, extent))

    def fuse(self, a: str, b: str) -> None:
        i, j = self.find(a), self.find(b)
        if j != i + 1:
            raise LoweringError(f"schedule: fuse({a}, {b}) needs {b} directly inside {a}")
        la, lb = self.loops[i], self.loops[j]
        if la.reduce != lb.reduce:
            raise LoweringError(f"schedule: fuse({a}, {b}) mixes an output and a reduce axis")
        fused = Var(fused_name(a, b), la.var.extent * lb.var.extent)
        f = Lin.of(fused)
        eb = lb.var.extent
        self.loops[i : j + 1] = [Loop(fused, reduce=la.reduce)]
        self._substitute({la.var: f.floordiv(eb), lb.var: f.mod(eb)})

    def reorder(self, order: tuple[str, ...]) -> None:
        positions = sorted(self.find(n) for n in order)
        if len(set(positions)) != len(order):
            raise LoweringError(f"schedule: reorder({', '.join(order)}) names a loop twice")
        picked = [self.loops[self.find(n)] for n in order]
        for pos, lp in zip(positions, picked, strict=True):
            self.loops[pos] = lp

    def check(self) -> None:
        """Reject nests the lowering cannot emit, with a reason."""
        vec = [lp for lp in self.loops if lp.kind == ForKind.VECTORIZED]
        if len(vec) > 1 or (vec and vec[0] is not self.loops[-1]):
            raise LoweringError("schedule: only the innermost loop can be vectorized")
        if vec and vec[0].reduce and self.cache_at is not None:
            raise LoweringError(
                f"schedule: reduce loop {vec[0].var.name} cannot be vectorized with "
                "cache_write; vectorize an output loop"
            )
        if any(lp.kind == ForKind.PARALLEL and lp.reduce for lp in self.loops):
            raise LoweringError("schedule: a reduce loop cannot be parallel")
        if self.cache_at is None:
            seen_reduce = False
            for lp in self.loops:
                if lp.reduce:
                    seen_reduce = True
                elif seen_reduce:
                    raise LoweringError(
                        f"schedule: output loop {lp.var.name} inside a reduce loop needs "
                        "cache_write (the accumulator must outlive the reduce loop)"
                    )
        else:
            at = self.find(self.cache_at)
            if self.loops[at].reduce:
                raise LoweringError(f"schedule: cache_write({self.cache_at}) is at a reduce loop")
            blocks = [lp.var for lp in self.loops[:at] if lp.reduce]
            if any(isinstance(v.extent, Sym) for v in blocks):
                raise LoweringError(
                    f"schedule: reduce loops outside cache_write({self.cache_at}) need static extents"
                )


__all__ = [
    "SCHEDULE_ATTR",
    "Annotate",
    "CacheWrite",
    "Fuse",
    "Loop",
    "LoopNest",
    "Primitive",
    "Reorder",
    "Schedule",
    "Split",
    "axis_name",
    "fused_name",
    "inner_name",
    "outer_name",
    "reduce_axis_name",
]
