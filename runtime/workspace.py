"""The workspace planner: where each intermediate buffer of `@main` lives in
the one arena the entry point is given.

Pure arithmetic on (first use, last use, bytes) ranges, shared by the lowering
(a static model's arena, planned at compile time) and the runtime (a symbolic
model's arena, planned per shape from ranges fixed at compile time).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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


__all__ = ["WorkspacePlan", "plan_workspace"]
