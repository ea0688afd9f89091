"""Structured control flow as a CFG, for `lower-tir-to-llvm`.

Sweep 1 retypes loop induction variables `index` -> `i64` (and demotes an
`unrolled` loop without a constant trip count of at most `tir.MAX_UNROLL_COPIES`
to `serial`). Sweep 4 flattens `tir.for` and `tir.if` regions into the function's
blocks, outermost first, so that every region is still a single block when it is
inlined: a loop becomes preheader -> header -> body -> latch -> header | exit, an
`if` a diamond. An `unrolled` loop's latch branch carries `UNROLL_ATTR`, which
the translation turns into LLVM's `llvm.loop.unroll.full` metadata: LLVM's loop
unroller copies the body, where a TIR pass (`tir-unroll`) would build every copy
in Python.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.builder import Builder
from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, StringAttr, UnitAttr, i64
from xdsl.ir import Block, Operation
from xdsl.rewriter import InsertPoint, Rewriter

from lamina.dialects import tir

#: On a loop's latch branch: LLVM unrolls the loop fully (`llvm.loop.unroll.full`).
UNROLL_ATTR = "lamina.unroll_full"


def _lower_serial_loop(op: tir.ForOp) -> llvm.BrOp:
    """`for` as a CFG: preheader -> header(i) -> body -> latch -> header | exit."""
    pre = op.parent_block()
    assert pre is not None and pre.parent is not None and op.next_op is not None
    region = pre.parent
    exit_block = pre.split_before(op.next_op)
    header = Block(arg_types=[i64])
    region.insert_block_after(header, pre)
    body = op.body.detach_block(op.body.block)
    region.insert_block_after(body, header)
    i = header.args[0]
    i.name_hint = body.args[0].name_hint
    body.args[0].replace_all_uses_with(i)
    body.erase_arg(body.args[0])

    hb = Builder(InsertPoint.at_end(header))
    cond = hb.insert(
        llvm.ICmpOp(i, op.ub, IntegerAttr(llvm.ICmpPredicateFlag("slt").to_int(), i64))
    )
    branch = hb.insert(llvm.CondBrOp(cond.results[0], body, [], exit_block, []))
    if op.kind.data != tir.ForKind.SERIAL:
        branch.attributes["lamina.for_kind"] = StringAttr(op.kind.data.value)

    yield_op = body.last_op
    assert isinstance(yield_op, tir.YieldOp)
    lb = Builder(InsertPoint.before(yield_op))
    nxt = lb.insert(llvm.AddOp(i, op.step))
    latch = lb.insert(llvm.BrOp(header, nxt.res))
    Rewriter.erase_op(yield_op)
    Rewriter.replace_op(op, llvm.BrOp(header, op.lb))
    return latch


def _lower_unrolled_loop(op: tir.ForOp) -> None:
    """A serial loop whose latch asks LLVM to unroll it fully."""
    _lower_serial_loop(op).attributes[UNROLL_ATTR] = UnitAttr()


# How each loop kind is lowered. Every kind is a serial loop for now; the loop's
# intent stays visible as `lamina.for_kind` on its header branch. Threads for
# `parallel`, vector code for `vectorized` and unrolling for `unrolled` plug in
# here, one function per kind.
_LOOP_LOWERINGS: dict[tir.ForKind, Callable[[tir.ForOp], object]] = {
    tir.ForKind.SERIAL: _lower_serial_loop,
    tir.ForKind.PARALLEL: _lower_serial_loop,
    tir.ForKind.VECTORIZED: _lower_serial_loop,
    tir.ForKind.UNROLLED: _lower_unrolled_loop,
}


def _inline_branch(region_block: Block, after: Block, exit_block: Block) -> Block:
    block = region_block.parent.detach_block(region_block)  # pyright: ignore
    after.parent.insert_block_after(block, after)  # pyright: ignore
    yield_op = block.last_op
    assert isinstance(yield_op, tir.YieldOp)
    Rewriter.replace_op(yield_op, llvm.BrOp(exit_block))
    return block


def _lower_if(op: tir.IfOp) -> None:
    """`if` as a diamond: cond_br then | else, both branching to the exit."""
    pre = op.parent_block()
    assert pre is not None and op.next_op is not None
    exit_block = pre.split_before(op.next_op)
    then_block = _inline_branch(op.then_region.block, pre, exit_block)
    else_block = exit_block
    if op.else_region is not None and op.else_region.blocks:
        else_block = _inline_branch(op.else_region.block, then_block, exit_block)
    Rewriter.replace_op(op, llvm.CondBrOp(op.cond, then_block, [], else_block, []))


def flatten_control_flow(fn: Operation) -> None:
    """Sweep 4: outermost first, so each region is one block when inlined."""
    for op in [op for op in fn.walk() if isinstance(op, tir.ForOp | tir.IfOp)]:
        if isinstance(op, tir.ForOp):
            _LOOP_LOWERINGS[op.kind.data](op)
        else:
            _lower_if(op)


def retype_induction_vars(fn: Operation) -> None:
    """Sweep 1: loop counters are i64 from here on; an `unrolled` loop that
    cannot be copied (bounds not constant, too many iterations) is serial."""
    for op in fn.walk():
        if isinstance(op, tir.ForOp):
            if op.kind.data == tir.ForKind.UNROLLED:
                trips = op.constant_trips
                if trips is None or trips > tir.MAX_UNROLL_COPIES:
                    op.set_kind(tir.ForKind.SERIAL)
            Rewriter.replace_value_with_new_type(op.induction_var, i64)


__all__ = ["UNROLL_ATTR", "flatten_control_flow", "retype_induction_vars"]
