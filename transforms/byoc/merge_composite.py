"""`merge-composite`: wrap each target's composite patterns into regions.

For every target (`targets=blas,c`, else the `byoc.targets` pass config), in
order, and every pattern of its table, in order, each accepted match becomes a
`relay.fused` op with `lamina.composite = "<target>.<pattern>"` (TVM's
MergeComposite, with `lamina.pattern.partition`'s policies):

- overlapping matches: an earlier pattern of the table wins; within a pattern,
  the larger then the earlier match;
- a match whose inner value is also used outside it is left alone (a composite
  is one call with one result);
- the pattern's check function vetoes a match; its reason is counted in the
  pass statistics (`rejected.<target>.<pattern>`) and printed with
  `explain=true`.

```mlir
%0 = relay.fused(%x, %y) ({...}) {lamina.composite = "c.add_relu", ...}
```
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from lamina.backends.registry import configured_targets, get_target, run_check
from lamina.passes import record_statistic
from lamina.passes.registry import register_pass
from lamina.pattern import Match, partition
from lamina.transforms.byoc.regions import COMPOSITE, graph_functions, location


@register_pass
@dataclass(frozen=True)
class MergeCompositePass(ModulePass):
    """Wrap matches of the targets' composite patterns into `relay.fused` regions."""

    name = "merge-composite"
    opt_level: ClassVar[int] = 0
    targets: tuple[str, ...] = ()
    explain: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for tname in configured_targets(self.targets):
            target = get_target(tname)
            for cp in target.patterns:
                full = f"{tname}.{cp.name}"

                def check(m: Match, cp=cp, full=full) -> bool:
                    reason = run_check(cp.check, m, full)
                    if reason is None:
                        return True
                    record_statistic(f"rejected.{full}")
                    if self.explain:
                        root = m.op
                        where = location(root) if root is not None else "a match"
                        print(f"merge-composite: {full} rejected at {where}: {reason}", file=sys.stderr)
                    return False

                count = 0
                for fn in graph_functions(op):
                    count += len(partition(cp.pattern, fn, {COMPOSITE: full}, check))
                record_statistic(f"composites.{full}", count)


__all__ = ["MergeCompositePass"]
