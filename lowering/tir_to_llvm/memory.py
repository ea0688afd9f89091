"""The workspace arena of `@main`: where each intermediate buffer lives.

Every `tir.alloc global` of `@main` gets a byte offset into one arena, the
`workspace` argument of the entry point. Buffers whose live ranges do not overlap
share memory; `plan_workspace` places them (greedy first fit, 64-byte aligned) and
`live_range` gives a buffer's range from its uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import Block, Operation, SSAValue

from lamina.abi import BUFFER_ALIGN


@dataclass(frozen=True)
class WorkspacePlan:
    """Byte offsets of the workspace buffers, in the order they were given."""

    offsets: tuple[int, ...]
    size: int
    unshared_size: int


def _align_up(n: int, align: int = BUFFER_ALIGN) -> int:
    return (n + align - 1) // align * align


def plan_workspace(ranges: Sequence[tuple[int, int, int]]) -> WorkspacePlan:
    """Place buffers given as (first use, last use, bytes) into one arena.

    Buffers are placed in order of first use, each at the lowest 64-byte aligned
    offset that does not overlap a buffer still live (greedy first fit); a buffer
    is free after its last use.
    """
    offsets = [0] * len(ranges)
    live: list[tuple[int, int, int]] = []  # (offset, size, last use)
    size = 0
    for i in sorted(range(len(ranges)), key=lambda i: (ranges[i][0], i)):
        start, end, nbytes = ranges[i]
        nbytes = _align_up(nbytes)
        live = [slot for slot in live if slot[2] >= start]
        offset = 0
        for o, s, _ in sorted(live):
            if o - offset >= nbytes:
                break
            offset = max(offset, o + s)
        offsets[i] = offset
        live.append((offset, nbytes, end))
        size = max(size, offset + nbytes)
    unshared = sum(_align_up(r[2]) for r in ranges)
    return WorkspacePlan(tuple(offsets), size, unshared)


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
    uses = [
        position[block.find_ancestor_op_in_block(u.operation) or owner]
        for u in value.uses
    ]
    return (min(uses), max(uses)) if uses else (position[owner], position[owner])


__all__ = ["WorkspacePlan", "live_range", "plan_workspace"]
