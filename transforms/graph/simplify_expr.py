"""`simplify-expr`: algebraic simplifications written in the pattern language.

TVM's `SimplifyExpr`, as `lamina.pattern.rewrite` callbacks:

- `x + 0`, `0 + x`, `x - 0`, `x * 1`, `1 * x`, `x / 1` -> `x` (0 and 1 are
  constants whose every element is 0 or 1), when the result has `x`'s type (a
  broadcasting identity still changes the shape and is kept);
- `reshape(reshape(x))` -> `reshape(x)`; a reshape to the operand's own shape -> `x`;
- `transpose(transpose(x))` -> one transpose with the composed permutation, or `x`
  when it is the identity; an identity transpose -> `x`;
- `relu(relu(x))` -> `relu(x)`;
- `f(reshape(x))` -> `reshape(f(x))` for an elementwise `f` of one operand
  (PyTorch's `linear` views its input as a matrix and its result back: the
  activation between two linears then lands next to the GEMM, whose epilogue
  fusion makes it, and the two views cancel);
- a constant operand of an elementwise or broadcasting op whose elements are
  all one value -> that value as a rank-0 constant, when the result keeps its
  type (PyTorch's safe softmax selects from a `full_like` of the scores: a
  scalar then, not a buffer of their size read on every call);
- `power(x, k)` for a constant k of 2, 3 or 4 -> products of `x` (GPT-2's
  tanh-GELU has `x ** 3`: a libm `pow` per element otherwise), when that keeps
  the type;
- a concatenation whose first operands are an earlier one's reads that one
  instead (`concat_prefix`: DenseNet's growing concatenations).

Each rule is a `PatternCallback` in `RULES`; the pass reports how often each fired
(`rewrite.<Rule>` in `--pass-statistics`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

from lamina.dialects import relay
from lamina.dialects.relay.base import OpPattern
from lamina.dialects.relay.constant import make_constant, value_data
from lamina.passes import record_statistic
from lamina.passes.registry import register_pass
from lamina.pattern import (
    Match,
    Pattern,
    PatternCallback,
    is_expr,
    is_op,
    rewrite,
    wildcard,
)
from lamina.transforms.graph.concat_prefix import reuse_concat_prefixes


class _Identity(PatternCallback):
    """`op(x, neutral)` -> `x`, when that keeps the type."""

    def __init__(self, build) -> None:  # type: ignore[no-untyped-def]
        self.x = wildcard()
        super().__init__(build(self.x))

    def callback(self, match: Match) -> SSAValue | None:
        x = match[self.x]
        return x if x.type == match.root.type else None


class AddZero(_Identity):
    def __init__(self) -> None:
        super().__init__(lambda x: is_op("add")(x, is_expr(0)))  # commutative


class SubtractZero(_Identity):
    def __init__(self) -> None:
        super().__init__(lambda x: is_op("subtract")(x, is_expr(0)))


class MultiplyOne(_Identity):
    def __init__(self) -> None:
        super().__init__(lambda x: is_op("multiply")(x, is_expr(1)))  # commutative


class DivideOne(_Identity):
    def __init__(self) -> None:
        super().__init__(lambda x: is_op("divide")(x, is_expr(1)))


class ReshapeChain(PatternCallback):
    """`reshape(reshape(x))` -> `reshape(x)`; a reshape to `x`'s shape -> `x`."""

    def __init__(self) -> None:
        self.x = wildcard()
        super().__init__(is_op("reshape")(is_op("reshape")(self.x)) | is_op("reshape")(self.x))

    def callback(self, match: Match) -> SSAValue | Operation | None:
        x = match[self.x]
        if x.type == match.root.type:
            return x
        inner = match.root.op.operands[0]  # type: ignore[union-attr]
        if inner is x:  # a lone reshape that changes the shape
            return None
        shape = match.root.op.shape  # type: ignore[union-attr]
        return relay.ReshapeOp(x, shape=shape)


class TransposeChain(PatternCallback):
    """`transpose(transpose(x))` -> one transpose, or `x`; identity -> `x`."""

    def __init__(self) -> None:
        self.x = wildcard()
        self.inner = is_op("transpose")(self.x)
        pattern: Pattern = is_op("transpose")(self.inner) | is_op("transpose")(self.x)
        super().__init__(pattern)

    def callback(self, match: Match) -> SSAValue | Operation | None:
        x = match[self.x]
        outer = match.root.op
        assert outer is not None
        perm = list(outer.attrs.perm)
        if self.inner in match:
            inner_perm = match[self.inner].op.attrs.perm  # type: ignore[arg-type]
            perm = [inner_perm[p] for p in perm]
        if perm == list(range(len(perm))):
            return x
        if self.inner not in match:
            return None
        return relay.TransposeOp(x, perm=relay.i64_array(perm))


class ReluRelu(PatternCallback):
    def __init__(self) -> None:
        self.inner = is_op("relu")(wildcard())
        super().__init__(is_op("relu")(self.inner))

    def callback(self, match: Match) -> SSAValue:
        return match[self.inner]


class ElementwiseOverReshape(PatternCallback):
    """`f(reshape(x))` -> `reshape(f(x))` for an elementwise op `f` of one operand."""

    def __init__(self) -> None:
        self.x = wildcard()
        self.reshape = is_op("reshape")(self.x)
        super().__init__(wildcard().has_attr({"PATTERN": OpPattern.ELEMWISE})(self.reshape))

    def callback(self, match: Match) -> Operation | None:
        op = match.root.op
        if op is None or len(op.operands) != 1 or len(op.results) != 1:
            return None
        moved = type(op)(match[self.x], **op.properties)
        if moved.results[0].type.get_element_type() != match.root.type.get_element_type():  # type: ignore[attr-defined]
            return None
        shape = match[self.reshape].op.shape  # type: ignore[union-attr]
        return relay.ReshapeOp(moved, shape=shape)


class SplatOperand(PatternCallback):
    """A splat constant operand of an elementwise/broadcast op -> a rank-0 one."""

    def __init__(self) -> None:
        kinds = [wildcard().has_attr({"PATTERN": k}) for k in (OpPattern.ELEMWISE, OpPattern.BROADCAST)]
        super().__init__(kinds[0] | kinds[1])

    def callback(self, match: Match) -> Operation | None:
        op = match.root.op
        if op is None or len(op.results) != 1 or isinstance(op, relay.ConstantOp):
            return None
        operands: list[SSAValue] = []
        changed = False
        for v in op.operands:
            data = value_data(v) if relay.shape_of(v.type) else None  # type: ignore[arg-type]
            if data is not None and data.size > 1 and _splat(data):
                scalar = relay.tensor([], v.type.get_element_type())  # type: ignore[attr-defined]
                v = make_constant(data.reshape(-1)[:1], scalar, "splat").result
                changed = True
            operands.append(v)
        if not changed:
            return None
        try:
            new = type(op)(*operands, **op.properties)
        except VerifyException:  # an op that wants the operand's shape (bias_add)
            return None
        return new if new.results[0].type == match.root.type else None


def _splat(data: np.ndarray) -> bool:
    first = data.reshape(-1)[0]
    return bool(np.all(data == first)) or bool(np.all(np.isnan(data)) and np.isnan(first))


class SmallPower(PatternCallback):
    """`x ** 2` -> `x * x`, `x ** 3` -> `x * x * x`, `x ** 4` -> `(x * x) ** 2`."""

    EXPONENTS = (2, 3, 4)

    def __init__(self) -> None:
        self.x = wildcard()
        exponent = is_expr(self.EXPONENTS[0])
        for k in self.EXPONENTS[1:]:
            exponent = exponent | is_expr(k)
        super().__init__(is_op("power")(self.x, exponent))

    def callback(self, match: Match) -> Operation | None:
        x = match[self.x]
        if x.type != match.root.type:
            return None
        data = value_data(match.root.op.operands[1])  # type: ignore[union-attr]
        k = int(np.asarray(data).flat[0])
        square = relay.MultiplyOp(x, x)
        if k == 2:
            return square
        if k == 3:
            return relay.MultiplyOp(square, x)
        return relay.MultiplyOp(square, square)


RULES: tuple[type[PatternCallback], ...] = (
    AddZero,
    SubtractZero,
    MultiplyOne,
    DivideOne,
    ReshapeChain,
    TransposeChain,
    ReluRelu,
    ElementwiseOverReshape,
    SplatOperand,
    SmallPower,
)


def simplify_expr(module: Operation) -> int:
    """Apply `RULES` to a fixpoint, then `reuse_concat_prefixes`; return the
    number of rewrites."""
    count = rewrite([rule() for rule in RULES], module)
    concats = reuse_concat_prefixes(module)
    if concats:
        record_statistic("rewrite.ConcatPrefix", concats)
    return count + concats


@register_pass
@dataclass(frozen=True)
class SimplifyExprPass(ModulePass):
    """Algebraic simplifications (TVM's SimplifyExpr)."""

    name = "simplify-expr"
    opt_level: ClassVar[int] = 3

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        simplify_expr(op)


__all__ = ["RULES", "SimplifyExprPass", "simplify_expr"]
