"""Outlining: wrap a convex set of graph ops into a `relay.fused` region op.

One helper behind every pass that groups graph ops: `partition` (the pattern
language's, and so `merge-composite`), `fuse-ops`, `merge-compiler-regions` and
`partition-graph`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.rewriter import Rewriter
from xdsl.traits import is_side_effect_free

from lamina.dialects.relay_region import FusedOp, YieldOp


def _in_block_order(ops: Sequence[Operation], block: Block) -> list[Operation]:
    """`ops` (ops of `block`) in block order: one walk from `ops[0]` when it is
    the first of them (callers usually pass them in order), else of the block."""
    wanted = set(ops)
    found: list[Operation] = []
    op: Operation | None = ops[0]
    while op is not None and len(found) < len(wanted):
        if op in wanted:
            found.append(op)
        op = op.next_op
    if len(found) == len(wanted):
        return found
    return [op for op in block.ops if op in wanted]


def outline_fused(
    ops: Sequence[Operation],
    attrs: Mapping[str, Attribute],
    *,
    outputs: Literal["escaping", "last"] = "escaping",
    constants: Sequence[Operation] = (),
    input_order: Sequence[SSAValue] = (),
) -> FusedOp:
    """Wrap `ops` (ops of one block, in any order, a convex set: no path leaves
    it and comes back) into a `relay.fused` op carrying `attrs`, which takes the
    place of the last of them (in block order). Ops in between that are not in
    the set and depend on it move right after the region.

    Every value from outside becomes an operand, in order of first use (in block
    order), except that those listed in `input_order` come first, in its order
    (the pattern partitioner's leaf order; values it lists that are not inputs are
    ignored); `constants` (constant ops outside the set) are cloned into the region
    instead, and the originals erased if nothing else uses them. The results are,
    with `outputs`:

    - `"escaping"`: every result of the ops that is used outside the set, in
      block order;
    - `"last"`: the results of the last op (the group's root), used or not; the
      other ops' results must be used only inside the set.
    """
    block = ops[0].parent_block()
    assert block is not None
    members = _in_block_order(ops, block)
    member_set = set(members)
    first, last = members[0], members[-1]
    # Non-members between first and last that depend on the region move after it.
    moved: list[Operation] = []
    dependent = set(member_set)
    op = first.next_op if first is not last else None
    while op is not None and op is not last:
        if op not in member_set and any(
            isinstance(v, OpResult) and v.op in dependent for v in op.operands
        ):
            moved.append(op)
            dependent.add(op)
        op = op.next_op
    inside = member_set | set(constants)
    used: dict[SSAValue, None] = {}
    for m in members:
        for v in m.operands:
            if not (isinstance(v, OpResult) and v.op in inside):
                used[v] = None
    inputs = {v: None for v in input_order if v in used}
    inputs.update(used)
    if outputs == "last":
        results: list[SSAValue] = list(last.results)
    else:
        results = [
            r
            for m in members
            for r in m.results
            if any(use.operation not in member_set for use in r.uses)
        ]
    body = Block(arg_types=[v.type for v in inputs])
    for arg, v in zip(body.args, inputs, strict=True):
        arg.name_hint = v.name_hint
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, body.args, strict=True))
    for c in constants:
        clone = c.clone()
        body.add_op(clone)
        mapping.update(zip(c.results, clone.results, strict=True))
    fused = FusedOp(list(inputs), Region(body), [r.type for r in results], attrs)
    block.insert_op_before(fused, last)
    for old, new in zip(results, fused.results, strict=True):
        old.replace_uses_with_if(new, lambda use: use.operation not in member_set)
        new.name_hint = old.name_hint
    for m in members:
        m.detach()
        body.add_op(m)
        for i, v in enumerate(m.operands):
            if v in mapping:
                m.operands[i] = mapping[v]
    body.add_op(YieldOp(*results))
    anchor: Operation = fused
    for m in moved:
        m.detach()
        block.insert_op_after(m, anchor)
        anchor = m
    for c in reversed(constants):
        if (
            c.parent is not None
            and not any(r.uses for r in c.results)
            and is_side_effect_free(c)
        ):
            Rewriter.erase_op(c)
    return fused


__all__ = ["outline_fused"]
