"""Running a model compiled with symbolic dims: sizes bound from the inputs, the
workspace planned per shape.

The inputs' shapes give the sizes (`batch`, `seq`): a dim that is a plain name
binds it, any other (`2*seq`) is checked against the bound values. Output shapes
are then computed from theirs. The arena is planned by the same planner as a
static model's (`plan_workspace`), from the buffers' live ranges fixed at
compile time and their byte sizes evaluated for these sizes, once per shape.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from lamina.errors import InputError
from lamina.runtime.workspace import WorkspacePlan, plan_workspace
from lamina.symbolic import Dim, Sym, evaluate, monotone_in


def bind_sizes(
    specs: Sequence[tuple[str, tuple[Dim, ...]]],
    shapes: Sequence[tuple[int, ...]],
    assumptions: Sequence[tuple[Dim, int, str]] = (),
) -> dict[str, int]:
    """The sizes the input `shapes` give to the symbolic dims of `specs`
    (name, dims); an `InputError` says which input and axis disagree, or which
    assumption of the model (`expr <= limit`) the sizes break."""
    env: dict[str, int] = {}
    origin: dict[str, str] = {}
    for (name, want), got in zip(specs, shapes, strict=True):
        if len(want) != len(got):
            raise InputError(
                f"input '{name}': expected {len(want)} dimension(s) "
                f"({', '.join(map(str, want))}), got shape {got}"
            )
        for axis, (d, n) in enumerate(zip(want, got, strict=True)):
            size = d.name if isinstance(d, Sym) else None
            if size is None:
                continue
            if size in env and env[size] != n:
                raise InputError(
                    f"input '{name}' axis {axis} is {n}, but {origin[size]} gave "
                    f"size '{size}' the value {env[size]}"
                )
            if n < 1:
                raise InputError(
                    f"input '{name}' axis {axis} ('{size}') must be at least 1, got {n}"
                )
            env.setdefault(size, n)
            origin.setdefault(size, f"input '{name}' axis {axis}")
    for (name, want), got in zip(specs, shapes, strict=True):
        for axis, (d, n) in enumerate(zip(want, got, strict=True)):
            value = evaluate(d, env) if isinstance(d, Sym) else d
            if value != n:
                raise InputError(
                    f"input '{name}': expected shape ({', '.join(map(str, want))}) = "
                    f"{tuple(evaluate(x, env) for x in want)}, got {got} (axis {axis})"
                )
    for expr, limit, why in assumptions:
        if evaluate(expr, env) > limit:
            sizes = ", ".join(f"{k} = {v}" for k, v in sorted(env.items()))
            raise InputError(
                f"sizes {sizes} are out of the model's range: {why}, so {expr} <= "
                f"{limit} must hold"
            )
    return env


def bucket(n: int) -> int:
    """`n` rounded up to one of 8 steps per power of two (at most 1/8 more):
    the size a plan for `n` is made at, shared by the sizes around it."""
    if n <= 8:
        return n
    step = 1 << (n.bit_length() - 4)
    return -(-n // step) * step


class DynamicPlan:
    """The workspace of a symbolically shaped model, planned once per shape.

    When every buffer's size grows with every size (`monotone_in`, as they do
    but for rare subtractions), a plan made at larger sizes holds the buffers
    of smaller ones at the same offsets. A run then takes the most recent plan
    that covers its sizes (each at least as large), and a miss plans at the
    sizes rounded up (`bucket`), with a size that outgrew the last plan at
    least doubled: a size that grows one by one (a KV cache's `past`) plans
    O(log) times, for at most twice the arena, as ORT's arena and lamina's
    staging buffers grow. A plan that is not shared is made per shape."""

    def __init__(self, ranges: Sequence[tuple[int, int, Dim]], keep: int = 8):
        self.ranges = list(ranges)
        self._cache: OrderedDict[tuple[tuple[str, int], ...], WorkspacePlan] = OrderedDict()
        self._keep = keep
        self.shared = all(
            not isinstance(n, Sym) or all(monotone_in(n, name) for name in n.names)
            for _, _, n in self.ranges
        )

    def plan(self, env: dict[str, int]) -> WorkspacePlan:
        if self.shared:
            for key in reversed(self._cache):
                if all(env[n] <= v for n, v in key):
                    self._cache.move_to_end(key)
                    return self._cache[key]
            last = dict(next(reversed(self._cache))) if self._cache else {}
            env = {k: max(bucket(v), 2 * last[k]) if v > last.get(k, v) else bucket(v) for k, v in env.items()}
        key = tuple(sorted(env.items()))
        hit = self._cache.get(key)
        if hit is None:
            hit = plan_workspace([(a, b, evaluate(n, env)) for a, b, n in self.ranges])
            self._cache[key] = hit
            if len(self._cache) > self._keep:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return hit


__all__ = ["DynamicPlan", "bind_sizes", "bucket"]
