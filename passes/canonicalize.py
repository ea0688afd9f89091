"""`canonicalize`: xDSL's canonicalizer plus relay's algebraic canonical forms.

xDSL's `canonicalize` applies the `HasCanonicalizationPatternsTrait` patterns of
the ops it meets (and folds, and removes dead ops); relay's ops declare none, so
on graph IR it would only clean up the builtin, arith, ... ops around them. This
pass runs xDSL's canonicalizer and then the relay rules that are canonical forms
rather than optimizations, which are `simplify-expr`'s rules (one definition,
`passes/simplify_expr.RULES`, used by both passes):

- `x * 1`, `1 * x`, `x + 0`, `0 + x`, `x - 0`, `x / 1` -> `x` (splat constants,
  only when the result type is `x`'s);
- `transpose(transpose(x))` -> one transpose with the composed permutation, and
  an identity transpose -> `x`;
- `reshape(reshape(x))` -> one reshape, and a reshape to the same shape -> `x`;
- `relu(relu(x))` -> `relu(x)`.

It keeps xDSL's opt level for canonicalize (2, `EXTERNAL_OPT_LEVELS`), so at
opt level 2 the graph gets these rules although `simplify-expr` runs from 3.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.transforms.canonicalize import CanonicalizePass as XdslCanonicalizePass

from lamina.passes.simplify_expr import simplify_expr


@dataclass(frozen=True)
class CanonicalizePass(XdslCanonicalizePass):
    """xDSL's canonicalize, then relay's canonical forms (simplify-expr's rules)."""

    name = "canonicalize"
    opt_level: ClassVar[int] = 2

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        super().apply(ctx, op)  # first: dead ops go before the rules see them
        simplify_expr(op)


__all__ = ["CanonicalizePass"]
