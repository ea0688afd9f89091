"""`tir-unroll`: replace each `tir.for unrolled` loop by copies of its body.

The loop's bounds must be constants; each copy sees its induction variable as a
constant, so index arithmetic folds and (after `tir-vectorize`) register tiles
become straight-line code that LLVM keeps in registers. Loops with more than
`max_copies` iterations are demoted to `serial` instead of blowing up code size.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from lamina.dialects import tir
from lamina.dialects.tir import ForKind
from lamina.passes.registry import register_pass
from lamina.transforms.tir.clone import clone

_INDEX = IndexType()


def unroll(loop: tir.ForOp, max_copies: int) -> bool:
    """Unroll `loop` in place; False (loop demoted to serial) when it cannot."""
    trips, bounds = loop.constant_trips, loop.constant_bounds
    if trips is None or bounds is None or trips > max_copies:
        loop.set_kind(ForKind.SERIAL)
        return False
    block = loop.parent_block()
    assert block is not None
    body = loop.body.block
    index = body.args[0]
    ops = [op for op in body.ops if not isinstance(op, tir.YieldOp)]
    *copies, last = range(*bounds) or [None]
    for i in copies:
        c = arith.ConstantOp(IntegerAttr(i, _INDEX))
        mapping: dict[SSAValue, SSAValue] = {index: c.result}
        block.insert_ops_before([c, *(clone(op, mapping) for op in ops)], loop)
    if last is not None:  # the last copy is the body itself, moved out
        c = arith.ConstantOp(IntegerAttr(last, _INDEX))
        index.replace_all_uses_with(c.result)
        for op in ops:
            op.detach()
        block.insert_ops_before([c, *ops], loop)
    loop.detach()
    loop.erase()
    return True


@register_pass
@dataclass(frozen=True)
class TirUnrollPass(ModulePass):
    """Fully unroll `tir.for unrolled` loops with constant bounds."""

    name = "tir-unroll"

    max_copies: int = tir.MAX_UNROLL_COPIES

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        loops: list[Operation] = [
            o for o in op.walk() if isinstance(o, tir.ForOp) and o.kind.data == ForKind.UNROLLED
        ]
        for loop in reversed(loops):  # innermost first
            assert isinstance(loop, tir.ForOp)
            unroll(loop, self.max_copies)


__all__ = ["TirUnrollPass"]
