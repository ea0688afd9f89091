"""A model's shape logic as straight-line Python, generated once per model.

A run of a model with symbolic dims binds its sizes from the inputs' shapes,
checks every other dim and the model's assumptions, and computes its outputs'
shapes. `bind_sizes` does that for any model by walking the record; a model run
token by token (a KV-cache decoder) pays that walk on every step. `ShapeCode`
compiles the same logic for one model into two Python functions, as the C
descriptor of an exported library does (`lamina.codegen.descriptor`), both
built from the dims by `emit_dim`:

- `bind(arrays)`: the sizes, in the order `main` reads them, or None when any
  check fails (the caller then takes the general path, whose error says what is
  wrong);
- `shapes(*sizes)`: the outputs' shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lamina.runtime.record import Assumption, TensorSpec
from lamina.symbolic import Dim, Sym, emit_dim


def py_dim(d: Dim) -> str:
    """Dimension `d` as a Python expression over variables `s_<size>`."""
    return emit_dim(
        d, str, lambda n: f"s_{n}", lambda a, b: f"({a} + {b})",
        lambda a, b: f"({a} * {b})", lambda a, k: f"({a} // {k})",
    )


def _tuple(items: Sequence[str]) -> str:
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


class ShapeCode:
    """`bind` and `shapes` of one model (see the module docstring): generated
    from its inputs, outputs, assumptions and the order of its sizes."""

    def __init__(
        self,
        inputs: Sequence[TensorSpec],
        outputs: Sequence[TensorSpec],
        sizes: Sequence[str],
        assumptions: Sequence[Assumption] = (),
    ):
        lines = ["def bind(arrays):"]
        if inputs:
            lines.append("    " + "".join(f"a{i}, " for i in range(len(inputs))) + "= arrays")
        env: dict[str, Any] = {f"d{i}": spec.dtype for i, spec in enumerate(inputs)}
        for i, spec in enumerate(inputs):
            lines += [f"    if a{i}.dtype != d{i}: return None", f"    x{i} = a{i}.shape",
                      f"    if len(x{i}) != {len(spec.shape)}: return None"]
        bound: set[str] = set()
        checks: list[str] = []
        for i, spec in enumerate(inputs):
            binds_all = True
            for axis, d in enumerate(spec.shape):
                name = d.name if isinstance(d, Sym) else None
                if name is not None and name not in bound:
                    bound.add(name)
                    lines.append(f"    s_{name} = x{i}[{axis}]")
                else:
                    binds_all = False
            if not binds_all:
                checks.append(f"    if x{i} != {_tuple([py_dim(d) for d in spec.shape])}: return None")
        #: Whether the generated code applies: every size the model reads, and
        #: every one its outputs' shapes use, is bound by an input (none is set
        #: by the model itself).
        self.complete = set(sizes) <= bound and all(
            not isinstance(d, Sym) or d.names <= bound for spec in outputs for d in spec.shape
        )
        if not self.complete:
            return
        lines += checks
        if bound:
            lines.append("    if " + " or ".join(f"s_{n} < 1" for n in sorted(bound)) + ": return None")
        for a in assumptions:
            lines.append(f"    if {py_dim(a.expr)} > {int(a.limit)}: return None")
        lines.append(f"    return {_tuple([f's_{n}' for n in sizes]) if sizes else '()'}")
        params = ", ".join(f"s_{n}" for n in sizes)
        out = [_tuple([py_dim(d) for d in spec.shape]) if spec.shape else "()" for spec in outputs]
        lines += [f"def shapes({params}):", f"    return {_tuple(out) if out else '()'}"]
        exec(compile("\n".join(lines), "<lamina shape code>", "exec"), env)
        self.bind: Callable[[Sequence[np.ndarray]], tuple[int, ...] | None] = env["bind"]
        self.shapes: Callable[..., tuple[tuple[int, ...], ...]] = env["shapes"]


__all__ = ["ShapeCode", "py_dim"]
