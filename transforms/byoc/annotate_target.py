"""`annotate-target`: mark each op, and each composite, with the target taking it.

For each op of a graph function (not the weights, not outlined functions), the
first target (`targets=blas,c`, else the `byoc.targets` pass config) whose op
table lists the op and whose check function accepts it wins:
`lamina.target = "<target>"`. A composite `relay.fused` op
(`lamina.composite = "<target>.<pattern>"`, from merge-composite) goes to its
target when that target is among the targets; a composite naming a pattern its
target does not have is an error that names both (TVM's "Unknown composite
function", made actionable).

Why an op was rejected is never hidden: every rejection is counted in the pass
statistics (`rejected.<target>.<op>`, `lamina-opt --pass-statistics`), and with
`explain=true` the reasons are printed to stderr and attached to the op as
`lamina.rejected = "blas: ...; c: ..."` (only for ops some target lists).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from lamina.backends.registry import (
    Target,
    configured_targets,
    get_target,
    has_symbolic_types,
)
from lamina.dialects import relay
from lamina.dialects.relay_region import FusedOp
from lamina.errors import LaminaError
from lamina.passes import record_statistic
from lamina.passes.registry import register_pass
from lamina.transforms.byoc.regions import (
    COMPILER,
    COMPOSITE,
    REJECTED,
    TARGET,
    graph_blocks,
    location,
    str_attr,
)


def composite_target(op: FusedOp, targets: dict[str, Target]) -> str | None:
    """The target of a composite region, if it is among `targets`; an unknown
    pattern of a known target is an error."""
    name = str_attr(op, COMPOSITE)
    if name is None:
        return None
    tname, dot, pattern = name.partition(".")
    if not dot:
        raise LaminaError(
            f"{location(op)}: composite '{name}' is not named '<target>.<pattern>'"
        )
    target = targets.get(tname)
    if target is None or (not target.symbolic and has_symbolic_types(op)):
        return None
    if target.composite(pattern) is None:
        known = ", ".join(p.name for p in target.patterns) or "none"
        raise LaminaError(
            f"{location(op)}: composite '{name}': target '{tname}' has no composite "
            f"pattern '{pattern}' (its patterns: {known}); register it in the "
            f"target's pattern table or run merge-composite with that target's table"
        )
    return tname


def annotate(module: ModuleOp, names: list[str], explain: bool = False) -> dict[str, int]:
    """Annotate `module` for `names`; returns ops annotated per target."""
    targets = {n: get_target(n) for n in names}
    counts = dict.fromkeys(names, 0)
    for block in graph_blocks(module):
        for op in block.ops:
            if TARGET in op.attributes or COMPILER in op.attributes:
                continue
            chosen: str | None = None
            reasons: list[tuple[str, str]] = []
            if isinstance(op, FusedOp):
                chosen = composite_target(op, targets)
            elif isinstance(op, relay.RelayOp) and not isinstance(op, relay.ConstantOp):
                chosen, reasons = _choose(op, targets)
            if chosen is not None:
                op.attributes[TARGET] = StringAttr(chosen)
                counts[chosen] += 1
                record_statistic(f"annotated.{chosen}")
            elif reasons:
                _report(op, reasons, explain)
    return counts


def _choose(
    op: Operation, targets: dict[str, Target]
) -> tuple[str | None, list[tuple[str, str]]]:
    """The first target that takes `op`, or None and each refusing target's reason."""
    reasons: list[tuple[str, str]] = []
    for tname, target in targets.items():
        if op.name not in target.ops:
            continue
        reason = target.check_op(op)
        if reason is None:
            return tname, []
        reasons.append((tname, reason))
    return None, reasons


def _report(op: Operation, reasons: list[tuple[str, str]], explain: bool) -> None:
    short = op.name.removeprefix("relay.")
    for tname, _ in reasons:
        record_statistic(f"rejected.{tname}.{short}")
    if explain:
        text = "; ".join(f"{t}: {r}" for t, r in reasons)
        op.attributes[REJECTED] = StringAttr(text)
        print(f"annotate-target: {location(op)} not offloaded: {text}", file=sys.stderr)


@register_pass
@dataclass(frozen=True)
class AnnotateTargetPass(ModulePass):
    """Mark ops and composites with `lamina.target` (see the module docstring)."""

    name = "annotate-target"
    opt_level: ClassVar[int] = 0
    targets: tuple[str, ...] = ()
    explain: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        names = configured_targets(self.targets)
        if names:
            annotate(op, names, self.explain)


__all__ = ["AnnotateTargetPass", "annotate", "composite_target"]
