"""`merge-compiler-regions`: group annotated ops into one region per target.

Every op annotated `lamina.target = "<t>"` (by annotate-target) starts as a
region of its own; regions of one target joined by a dataflow edge are merged,
visiting ops in order, unless the merged region would not be convex: if a path
leaves it through an op outside it and comes back (the diamond
`a -> x -> d, a -> d` with `x` not offloaded), merging would make the
partitioned call depend on itself, so the two regions stay apart (TVM's
MergeCompilerRegions had to learn this the hard way).

Each final region becomes a `relay.fused` op with `lamina.compiler = "<t>"`:
values computed inside and used outside become its results (never a captured
inner value), values from outside its operands. partition-graph outlines them.
The pass statistics count `regions.<t>` and `merges-refused.<t>` (cycles
avoided).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, OpResult
from xdsl.passes import ModulePass

from lamina.dialects.outline import outline_fused
from lamina.passes import record_statistic
from lamina.passes.registry import register_pass
from lamina.transforms.byoc.regions import (
    COMPILER,
    TARGET,
    graph_blocks,
    str_attr,
)


class _Regions:
    """Union-find over the annotated ops of one block, with convexity checks."""

    def __init__(self, block: Block) -> None:
        self.ops = list(block.ops)
        self.pos = {op: i for i, op in enumerate(self.ops)}
        self.parent: dict[Operation, Operation] = {}
        self.members: dict[Operation, list[Operation]] = {}
        for op in self.ops:
            if str_attr(op, TARGET) is not None:
                self.parent[op] = op
                self.members[op] = [op]

    def find(self, op: Operation) -> Operation:
        root = op
        while self.parent[root] is not root:
            root = self.parent[root]
        while self.parent[op] is not root:
            self.parent[op], op = root, self.parent[op]
        return root

    def convex(self, members: set[Operation]) -> bool:
        """No path leaves `members` through an outside op and comes back."""
        limit = max(self.pos[m] for m in members)
        work = [
            use.operation
            for m in members
            for r in m.results
            for use in r.uses
            if use.operation not in members
        ]
        seen: set[Operation] = set()
        while work:
            op = work.pop()
            op = self._in_block(op)
            if op is None or op in seen or self.pos[op] > limit:
                continue
            seen.add(op)
            for r in op.results:
                for use in r.uses:
                    user = self._in_block(use.operation)
                    if user is None:
                        continue
                    if user in members:
                        return False
                    work.append(user)
        return True

    def _in_block(self, op: Operation) -> Operation | None:
        """`op`, or its ancestor in this block (uses inside nested regions)."""
        while op is not None and op not in self.pos:
            op = op.parent_op()  # type: ignore[assignment]
        return op

    def try_merge(self, a: Operation, b: Operation) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra is rb:
            return True
        union = set(self.members[ra]) | set(self.members[rb])
        if not self.convex(union):
            return False
        self.parent[rb] = ra
        self.members[ra] = self.members[ra] + self.members.pop(rb)
        return True

    def run(self) -> list[list[Operation]]:
        refused: dict[str, int] = {}
        for op in self.ops:
            target = str_attr(op, TARGET)
            if target is None:
                continue
            for v in op.operands:
                if not isinstance(v, OpResult):
                    continue
                producer = v.op
                if (
                    producer in self.parent
                    and str_attr(producer, TARGET) == target
                    and not self.try_merge(producer, op)
                ):
                    refused[target] = refused.get(target, 0) + 1
        for target, n in refused.items():
            record_statistic(f"merges-refused.{target}", n)
        regions = [self.members[r] for r in self.members]
        return sorted(regions, key=lambda ms: min(self.pos[m] for m in ms))


def merge_regions(module: ModuleOp) -> list[Operation]:
    """Wrap the annotated ops of every graph block into `lamina.compiler`
    regions; returns the new region ops."""
    created: list[Operation] = []
    for block in list(graph_blocks(module)):
        for members in _Regions(block).run():
            target = str_attr(members[0], TARGET)
            assert target is not None
            for m in members:
                del m.attributes[TARGET]
            created.append(outline_fused(members, {COMPILER: StringAttr(target)}))
            record_statistic(f"regions.{target}")
    return created


@register_pass
@dataclass(frozen=True)
class MergeCompilerRegionsPass(ModulePass):
    """Merge annotated ops into one `relay.fused` region per target, cycle-free."""

    name = "merge-compiler-regions"
    opt_level: ClassVar[int] = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        merge_regions(op)


__all__ = ["MergeCompilerRegionsPass", "merge_regions"]
