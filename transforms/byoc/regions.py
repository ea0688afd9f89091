"""Helpers shared by the BYOC passes: graph functions, annotations, regions.

Conventions (all visible in the IR, so each pass can run alone in lamina-opt):

- `merge-composite` wraps pattern matches into `relay.fused` ops with
  `lamina.composite = "<target>.<pattern>"`;
- `annotate-target` puts `lamina.target = "<target>"` on each op (or composite)
  a target takes;
- `merge-compiler-regions` wraps annotated ops into `relay.fused` ops with
  `lamina.compiler = "<target>"` (several results when several values are used
  outside);
- `partition-graph` outlines those into `func.func private @<target>_<n>`
  with `lamina.compiler = "<target>"`, called from the graph with `func.call`.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects import func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Operation

from lamina.dialects import relay
from lamina.dialects.relay_region import FusedOp

TARGET = "lamina.target"
COMPOSITE = "lamina.composite"
COMPILER = "lamina.compiler"
REJECTED = "lamina.rejected"


def str_attr(op: Operation, name: str) -> str | None:
    attr = op.attributes.get(name)
    return attr.data if isinstance(attr, StringAttr) else None


def is_outlined(fn: func.FuncOp) -> bool:
    """An outlined BYOC function (it belongs to its target, not to lamina)."""
    return COMPILER in fn.attributes


def graph_functions(module: ModuleOp) -> Iterator[func.FuncOp]:
    """The module's graph functions with bodies, outlined BYOC functions excluded."""
    for op in list(module.ops):
        if isinstance(op, func.FuncOp) and op.body.blocks and not is_outlined(op):
            yield op


def graph_blocks(module: ModuleOp) -> Iterator[Block]:
    for fn in graph_functions(module):
        yield from fn.body.blocks


def is_splat_constant(op: Operation) -> bool:
    """An inline constant of one repeated value: cheap, kept inside regions."""
    if not isinstance(op, relay.ConstantOp):
        return False
    value = op.value
    if not isinstance(value, DenseIntOrFPElementsAttr):
        return False
    return len(set(value.get_values())) <= 1


def hoist_constants(group: FusedOp, keep_splats: bool = True) -> None:
    """Move the constants of a `relay.fused` body (and of the composites in it)
    out to operands: weights are inputs, never code. Splat constants stay when
    `keep_splats` (a codegen inlines them)."""
    block = group.body.block
    for inner in list(block.ops):
        if isinstance(inner, FusedOp):
            hoist_constants(inner, keep_splats)
    for const in [o for o in block.ops if isinstance(o, relay.ConstantOp)]:
        if keep_splats and is_splat_constant(const):
            continue
        const.detach()
        parent = group.parent_block()
        assert parent is not None
        parent.insert_op_before(const, group)
        arg = block.insert_arg(const.output.type, len(block.args))
        const.output.replace_all_uses_with(arg)
        group.operands = [*group.operands, const.output]


def location(op: Operation) -> str:
    """Where an op is, for messages: `relay.conv2d #3 in @main` (its position)."""
    fn = op.parent_op()
    while fn is not None and not isinstance(fn, func.FuncOp):
        fn = fn.parent_op()
    block = op.parent_block()
    index = next((i for i, o in enumerate(block.ops) if o is op), 0) if block else 0
    where = f" in @{fn.sym_name.data}" if isinstance(fn, func.FuncOp) else ""
    return f"{op.name} (op #{index}{where})"


__all__ = [
    "COMPILER",
    "COMPOSITE",
    "REJECTED",
    "TARGET",
    "graph_blocks",
    "graph_functions",
    "hoist_constants",
    "is_outlined",
    "is_splat_constant",
    "location",
    "str_attr",
]
