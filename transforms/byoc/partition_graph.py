"""`partition-graph`: outline each compiler region as a function of its target.

Each `relay.fused` op with `lamina.compiler = "<t>"` (from
merge-compiler-regions; an op still carrying only `lamina.target` is first made
a region of its own) becomes

```mlir
func.func private @<t>_<n>(...) -> (...) attributes {lamina.compiler = "<t>"}
```

called from the graph with `func.call`. Symbol names are stable: regions are
numbered per target in program order (`blas_0`, `blas_1`, ...), skipping names
already taken. Weights (every constant but splats, which codegens inline) are
hoisted out of the regions and composites: they reach the outlined function as
arguments, so they stay parameters and never become code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from lamina.dialects.outline import outline_fused
from lamina.dialects.relay_region import FusedOp, YieldOp
from lamina.passes import record_statistic
from lamina.passes.registry import register_pass
from lamina.transforms.byoc.regions import (
    COMPILER,
    TARGET,
    graph_functions,
    hoist_constants,
    str_attr,
)


def outline(module: ModuleOp) -> list[func.FuncOp]:
    used = {
        op.properties["sym_name"].data  # type: ignore[union-attr]  # any symbol op
        for op in module.ops
        if "sym_name" in op.properties  # any symbol op
    }
    counters: dict[str, int] = {}
    created: list[func.FuncOp] = []
    for fn in list(graph_functions(module)):
        anchor = fn
        for block in fn.body.blocks:
            for op in list(block.ops):
                if TARGET in op.attributes and COMPILER not in op.attributes:
                    target = str_attr(op, TARGET)
                    del op.attributes[TARGET]
                    op = outline_fused([op], {COMPILER: StringAttr(target or "")})
            for op in list(block.ops):
                target = str_attr(op, COMPILER)
                if not isinstance(op, FusedOp) or target is None:
                    continue
                hoist_constants(op)
                n = counters.get(target, 0)
                while f"{target}_{n}" in used:
                    n += 1
                counters[target] = n + 1
                name = f"{target}_{n}"
                used.add(name)
                body = op.body.block
                ftype = FunctionType.from_lists(
                    [a.type for a in body.args], [r.type for r in op.results]
                )
                region = Rewriter.move_region_contents_to_new_regions(op.body)
                yield_op = region.block.last_op
                assert isinstance(yield_op, YieldOp)
                Rewriter.replace_op(yield_op, func.ReturnOp(*yield_op.operands))
                outlined = func.FuncOp(name, ftype, region, visibility="private")
                outlined.attributes[COMPILER] = StringAttr(target)
                module.body.block.insert_op_after(outlined, anchor)
                anchor = outlined
                call = func.CallOp(name, list(op.operands), [r.type for r in op.results])
                Rewriter.replace_op(op, call)
                created.append(outlined)
                record_statistic(f"functions.{target}")
    return created


@register_pass
@dataclass(frozen=True)
class PartitionGraphPass(ModulePass):
    """Outline `lamina.compiler` regions as private functions called from the graph."""

    name = "partition-graph"
    opt_level: ClassVar[int] = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        outline(op)


__all__ = ["PartitionGraphPass", "outline"]
