"""The workspace arena of `@main`: where each intermediate buffer lives.

Every `tir.alloc global` of `@main` gets a byte offset into one arena, the
`workspace` argument of the entry point. Buffers whose live ranges do not overlap
share memory (a buffer's range covers its views'); `plan_workspace` places them (greedy first fit, 64-byte aligned;
it lives in `lamina.runtime.workspace`, as the runtime plans a symbolic model's
arena per shape with it) and `live_range` gives a buffer's range from its uses.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.ir import Block, Operation, SSAValue

from lamina.dialects import tir
from lamina.runtime.workspace import WorkspacePlan, plan_workspace


def live_range(
    value: SSAValue, block: Block, position: dict[Operation, int]
) -> tuple[int, int]:
    """(first use, last use) of `value` as positions of ops of `block`.

    The range starts at the first use, not at the `tir.alloc`: nothing touches the
    buffer in between, so allocs hoisted to the top of @main still share memory.
    An unused buffer lives at its definition only.
    """
    owner = value.owner
    assert isinstance(owner, Operation)
    uses = [position[block.find_ancestor_op_in_block(op) or owner] for op in _users(value)]
    return (min(uses), max(uses)) if uses else (position[owner], position[owner])


def _users(value: SSAValue) -> Iterator[Operation]:
    """The ops that use `value`, or a view of it (`tir.view`: the same memory)."""
    for use in value.uses:
        yield use.operation
        if isinstance(use.operation, tir.ViewOp):
            yield from _users(use.operation.result)


__all__ = ["WorkspacePlan", "live_range", "plan_workspace"]
