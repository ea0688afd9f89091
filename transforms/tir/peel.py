"""Peeling a vectorized loop's partial vectors, for `tir-vectorize`.

On a target without masked vector loads and stores (NEON, SSE, SIMD128; see
`Target.masked_memory`), LLVM turns each masked access into a test and a branch
per lane. `tir-vectorize` then builds the loop's vector body as if every lane
were inside its masks, with the conditions that make it so, and `peel` puts it
under them: the vector body when they hold (every whole vector), the loop kept
as a serial loop otherwise (the tail).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.ir import Block, Operation, SSAValue

from lamina.dialects import tir
from lamina.dialects.tir import ForKind


class NotHoistable(Exception):
    """A condition depends on something other than index arithmetic."""


def _hoist(v: SSAValue, inside: set[Operation], made: dict[SSAValue, SSAValue], out: list[Operation]) -> SSAValue:
    """`v`, computed before the vector body: values from before the loop as they
    are, arithmetic in the body cloned (loads and the like are not moved)."""
    if v in made:
        return made[v]
    op = v.owner
    if not isinstance(op, Operation) or op not in inside:
        return v
    if op.dialect_name() != "arith" or op.regions:
        raise NotHoistable(op.name)
    mapping = {o: _hoist(o, inside, made, out) for o in op.operands}
    clone = op.clone(value_mapper=mapping)
    out.append(clone)
    made.update(zip(op.results, clone.results, strict=True))
    return made[v]


def peel(
    loop: tir.ForOp, body: Sequence[Operation], conditions: Sequence[SSAValue], serial_tail: bool = True
) -> Block | None:
    """Put `if (all conditions) { body } else { ... }` before `loop`, the
    conditions (i1 values computed in `body`) recomputed before the branch,
    and return the else block: with `serial_tail` it holds the loop itself,
    serial; without, it is empty (its terminator only) and the loop stays
    where it was, for the caller to replace by what the else block gets (the
    loop's masked vector body). None (nothing changed) when a condition
    cannot be recomputed."""
    inside = {o for op in body for o in op.walk()}
    made: dict[SSAValue, SSAValue] = {}
    out: list[Operation] = []
    try:
        hoisted = [_hoist(c, inside, made, out) for c in conditions]
    except NotHoistable:
        for op in reversed(out):
            op.erase(safe_erase=False)
        return None
    guard = hoisted[0]
    for c in hoisted[1:]:
        out.append(arith.AndIOp(guard, c))
        guard = out[-1].results[0]
    block = loop.parent_block()
    assert block is not None
    then = Block(list(body))
    _drop_dead(then)
    then.add_op(tir.YieldOp())
    branch = tir.IfOp(guard, then, Block())
    block.insert_ops_before([*out, branch], loop)
    otherwise = branch.else_region.block  # type: ignore[union-attr]
    if serial_tail:
        loop.detach()
        loop.set_kind(ForKind.SERIAL)
        otherwise.add_op(loop)
    otherwise.add_op(tir.YieldOp())
    return otherwise


def _drop_dead(block: Block) -> None:
    """Erase the body's unused arithmetic (its masks and conditions, made but not
    needed when every lane is inside)."""
    for op in reversed(list(block.ops)):
        pure = op.dialect_name() in ("arith", "vector") or isinstance(op, tir.VectorCmpOp)
        if pure and not op.regions and all(not r.uses for r in op.results):
            block.erase_op(op)


def discard(ops: Sequence[Operation]) -> None:
    """Erase ops built but not used (dropping their uses of other values)."""
    for op in reversed(ops):
        op.erase(safe_erase=False)


__all__ = ["discard", "peel"]
