"""Resource limits: the memory budget that bounds every tensor lamina would hold.

`LAMINA_MEMORY_BUDGET` (bytes, with an optional K/M/G/T suffix) sets it; by default
it is `DEFAULT_BUDGET` or half the machine's memory, whichever is smaller. Importers
and the compiler check sizes against it before allocating, so an absurd shape is one
clear error instead of a `MemoryError` (or the machine swapping).
"""

from __future__ import annotations

import numbers
import os
import re
from collections.abc import Sequence

from lamina.errors import LaminaError

#: The default memory budget for one tensor, in bytes.
DEFAULT_BUDGET = 16 << 30
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def memory_budget() -> int:
    """The per-tensor memory budget in bytes (see the module doc)."""
    text = os.environ.get("LAMINA_MEMORY_BUDGET", "").strip()
    if not text:
        try:
            physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            physical = 0
        return min(DEFAULT_BUDGET, physical // 2) if physical > 0 else DEFAULT_BUDGET
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?", text, re.IGNORECASE)
    if m is None:
        raise LaminaError(
            f"LAMINA_MEMORY_BUDGET='{text}' is not a size; use bytes with an optional "
            "K, M, G or T suffix, e.g. 8G"
        )
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def format_bytes(n: int) -> str:
    for unit in ("T", "G", "M", "K"):
        if n >= _UNITS[unit]:
            return f"{n / _UNITS[unit]:.1f} {unit}iB"
    return f"{n} bytes"


def check_size(
    what: str,
    shape: Sequence[int],
    itemsize: int,
    budget: int | None = None,
    error: type[LaminaError] = LaminaError,
) -> None:
    """Raise `error` if a tensor of `shape` exceeds the memory budget (or has a
    negative dimension); `what` says which tensor, and where."""
    if any(d < 0 for d in shape):
        raise error(f"{what} has a negative dimension in shape {list(shape)}")
    limit = memory_budget() if budget is None else budget
    count = 1
    for d in shape:  # a symbolic dim is checked when its size is known
        count *= int(d) if isinstance(d, numbers.Integral) else 1
    size = count * itemsize
    if size > limit:
        raise error(
            f"{what} would take {format_bytes(size)} (shape {list(shape)}), more than "
            f"the memory budget of {format_bytes(limit)}; check the shapes, or raise "
            "LAMINA_MEMORY_BUDGET"
        )


__all__ = ["DEFAULT_BUDGET", "check_size", "format_bytes", "memory_budget"]
