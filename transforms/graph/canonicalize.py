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
- `relu(relu(x))` -> `relu(x)`;
- a concatenation extending an earlier one reads it (`concat_prefix`).

It keeps xDSL's opt level for canonicalize (2, `EXTERNAL_OPT_LEVELS`), so at
opt level 2 the graph gets these rules although `simplify-expr` runs from 3.

xDSL's greedy driver loops until nothing changes; here it has a budget of
`pattern.max-iterations` rewrites per op of the module (at least 100), beyond which
the pass reports that it does not converge instead of hanging.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern
from xdsl.transforms.canonicalize import CanonicalizePass as XdslCanonicalizePass
from xdsl.transforms.dead_code_elimination import region_dce

from lamina.passes import max_iterations, not_converged, register_pass
from lamina.transforms.graph.simplify_expr import simplify_expr


class _OverBudget(BaseException):
    """Raised through xDSL's walker (which turns Exceptions into diagnostics)."""


@dataclass
class BudgetedPattern(RewritePattern):
    """`pattern`, refusing to rewrite more than `budget` times in all."""

    pattern: RewritePattern
    budget: int
    rewrites: int = 0

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        before = rewriter.has_done_action
        rewriter.has_done_action = False
        self.pattern.match_and_rewrite(op, rewriter)
        if rewriter.has_done_action:
            self.rewrites += 1
            if self.rewrites > self.budget:
                raise _OverBudget(op.name)
        rewriter.has_done_action |= before


def bounded_canonicalize(ctx: Context, module: ModuleOp) -> None:
    """xDSL's canonicalize with a rewrite budget (see the module doc)."""
    cap = max_iterations()
    budget = cap * max(sum(1 for _ in module.walk()), 100)
    pattern = BudgetedPattern(
        GreedyRewritePatternApplier(
            [CanonicalizationRewritePattern()], ctx=ctx, folding_enabled=True
        ),
        budget,
    )
    try:
        PatternRewriteWalker(pattern, post_walk_func=region_dce).rewrite_module(module)
    except _OverBudget as e:
        raise not_converged(
            "xDSL's canonicalization patterns",
            cap,
            f"{budget} rewrites made, the last on {e.args[0]}",
        ) from None


@register_pass
@dataclass(frozen=True)
class CanonicalizePass(XdslCanonicalizePass):
    """xDSL's canonicalize, then relay's canonical forms (simplify-expr's rules)."""

    name = "canonicalize"
    opt_level: ClassVar[int] = 2

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        bounded_canonicalize(ctx, op)  # first: dead ops go before the rules see them
        simplify_expr(op)


__all__ = ["BudgetedPattern", "CanonicalizePass", "bounded_canonicalize"]
