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
from lamina.symbolic import Dim, Sym, evaluate


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


class DynamicPlan:
    """The workspace of a symbolically shaped model, planned once per shape."""

    def __init__(self, ranges: Sequence[tuple[int, int, Dim]], keep: int = 8):
        self.ranges = list(ranges)
        self._cache: OrderedDict[tuple[tuple[str, int], ...], WorkspacePlan] = OrderedDict()
        self._keep = keep

    def plan(self, env: dict[str, int]) -> WorkspacePlan:
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


__all__ = ["DynamicPlan", "bind_sizes"]
