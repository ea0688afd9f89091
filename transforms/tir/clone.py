"""Cloning TIR ops in one pass, for `tir-unroll` and `tir-vectorize`.

xDSL's `Operation.clone` builds every op of a nest without operands, then walks
the nest again to set them (so that a value may be used before it is defined,
as a graph region allows). TIR's regions are single blocks in SSA-dominance
order, so each op's operands are known when it is built: `clone` sets them
once, and falls back to xDSL's for anything else (successors, several blocks).
"""

from __future__ import annotations

from typing import TypeVar

from xdsl.ir import Block, Operation, Region, SSAValue

OpT = TypeVar("OpT", bound=Operation)


def _region(region: Region, mapping: dict[SSAValue, SSAValue]) -> Region:
    """A copy of the single-block (or empty) `region`."""
    if not region.blocks:
        return Region()
    (block,) = region.blocks
    new = Block(arg_types=block.arg_types)
    for old, arg in zip(block.args, new.args, strict=True):
        mapping[old] = arg
        arg.name_hint = old.name_hint
    for op in block.ops:
        new.add_op(clone(op, mapping))
    return Region(new)


def clone(op: OpT, mapping: dict[SSAValue, SSAValue]) -> OpT:
    """`op` with its regions, each value looked up in `mapping` (defined before
    use), which gets the new results; as `op.clone(value_mapper=mapping)`."""
    if op.successors or any(len(r.blocks) > 1 for r in op.regions):
        return op.clone(value_mapper=mapping)  # control flow: xDSL's
    regions = [_region(r, mapping) for r in op.regions]
    new = type(op).create(
        operands=[mapping.get(v, v) for v in op.operands],
        result_types=op.result_types,
        properties=op.properties,
        attributes=op.attributes,
        location=op.location,
        regions=regions,
    )
    for old, result in zip(op.results, new.results, strict=True):
        mapping[old] = result
        result.name_hint = old.name_hint
    return new


__all__ = ["clone"]
