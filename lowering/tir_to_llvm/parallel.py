"""Parallel loops, outlined for threads (the glue is `lamina.codegen.parallel`).

`outline_parallel_loops` (run by `lower-tir-to-llvm` first) moves the body of each
top-level `tir.for parallel` of a kernel into a kernel of its own,
`<kernel>_par<n>(buffers..., range)`, that runs iterations `range[0] ..
range[1]` serially, and replaces the loop by a call of `<kernel>_par<n>_launch
(buffers...)`. The loop is recorded in the module attribute `lamina.parallel`.

When the module is translated to LLVM IR, `lamina.codegen.parallel` defines each
launcher on lamina's thread pool (`lamina.codegen.pool`). In a kernel over symbolic sizes, the body also takes the
kernel's sizes (after `range`), recomputes the index arithmetic on them it uses,
and a bound that is a size expression is passed to the launcher at run time. A
loop that captures anything else stays serial, and so does a small one of a
kernel the graph calls in a loop (`LOOP_SERIAL_WORK`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import Rewriter

from lamina.dialects import tir
from lamina.dialects.tir import AllocScope, ForKind

ATTR = "lamina.parallel"

#: A kernel the graph calls inside a loop (a relay.loop's body: a recurrent
#: cell's step) runs once per iteration, and each run of a parallel loop is a
#: fork and a join of the threads (a few microseconds). A parallel loop of such
#: a kernel doing fewer operation instances than this (a few microseconds of
#: work at most) runs serially: splitting it costs more than it saves (2
#: threads ran a 2-layer bidirectional LSTM(32, 64) over 50 steps 2x slower
#: than 1).
LOOP_SERIAL_WORK = 1 << 16


@dataclass(frozen=True)
class ParallelLoop:
    """An outlined loop: `launch(buffers..., [ub], sizes...)` runs `body(buffers...,
    range, sizes...)` on chunks of `lb .. ub` (`ub` None: given at run time, as the
    launcher's argument after the buffers)."""

    launch: str
    body: str
    buffers: int
    lb: int
    ub: int | None
    step: int
    sizes: int = 0

    def to_attr(self) -> ArrayAttr:
        ub = -1 if self.ub is None else self.ub
        return ArrayAttr([
            StringAttr(self.launch), StringAttr(self.body),
            *(IntAttr(v) for v in (self.buffers, self.lb, ub, self.step, self.sizes)),
        ])

    @staticmethod
    def from_attr(a: ArrayAttr) -> ParallelLoop:
        launch, body, *ints = a.data
        assert isinstance(launch, StringAttr) and isinstance(body, StringAttr)
        n, lb, ub, step, sizes = (i.data for i in ints)  # type: ignore[attr-defined]
        return ParallelLoop(launch.data, body.data, n, lb, None if ub < 0 else ub, step, sizes)


def _captures(loop: tir.ForOp, sizes: set[SSAValue]) -> list[SSAValue] | None:
    """Values the loop uses from outside, in first-use order; None if one of them
    is not a buffer, a constant, a size or index arithmetic on those."""
    inside = {id(op) for op in loop.walk()}
    out: list[SSAValue] = []
    for op in loop.walk():
        for v in op.operands:
            owner = v.owner
            if isinstance(owner, Operation) and id(owner) in inside:
                continue
            if isinstance(owner, Block) and any(id(o) in inside for o in [owner.parent_op()] if o):
                continue
            if v in out:
                continue
            if isinstance(v.type, MemRefType) or _recomputable(v, sizes):
                out.append(v)
            else:
                return None
    return out


def _recomputable(v: SSAValue, sizes: set[SSAValue]) -> bool:
    """Whether `v` is a size, or pure index arithmetic on sizes and constants
    (which the outlined body recomputes)."""
    if v in sizes or isinstance(v.owner, arith.ConstantOp):
        return True
    op = v.owner
    return (
        isinstance(op, Operation)
        and op.dialect_name() == "arith"
        and isinstance(v.type, IndexType)
        and all(_recomputable(o, sizes) for o in op.operands)
    )


def _clone_into(v: SSAValue, entry: Block, mapping: dict[SSAValue, SSAValue]) -> SSAValue:
    """`v` recomputed at the end of `entry` (its operands first)."""
    if v in mapping:
        return mapping[v]
    op = v.owner
    assert isinstance(op, Operation)
    for o in op.operands:
        _clone_into(o, entry, mapping)
    c = op.clone(value_mapper=mapping)
    entry.add_op(c)
    for old, new in zip(op.results, c.results, strict=True):
        mapping[old] = new
    return mapping[v]


def _rebind(mapping: dict[SSAValue, SSAValue], inside: set[int], loop: tir.ForOp) -> None:
    """Make the ops inside `loop` (not `loop` itself) use `mapping`'s values, so
    its body can move into the outlined function rather than be cloned there."""
    for old, new in mapping.items():
        for use in tuple(old.uses):
            if use.operation is not loop and id(use.operation) in inside:
                use.operation.operands[use.index] = new


def _outline(kernel: tir.PrimFuncOp, loop: tir.ForOp, n: int) -> ParallelLoop | None:
    sizes = kernel.size_args()
    lb, step = (tir.ForOp.constant_index(v) for v in (loop.lb, loop.step))
    ub = tir.ForOp.constant_index(loop.ub)
    captured = _captures(loop, set(sizes.values()))
    if lb is None or step is None or step <= 0 or captured is None:
        return None
    if ub is None and not _recomputable(loop.ub, set(sizes.values())):
        return None
    inside = {id(op) for op in loop.walk()}
    # Local buffers used only by the loop become per-thread buffers of the body.
    moved: list[SSAValue] = []
    for v in captured:
        owner = v.owner
        if (
            isinstance(owner, tir.AllocOp)
            and owner.scope.data == AllocScope.LOCAL
            and all(id(u.operation) in inside for u in v.uses)
        ):
            moved.append(v)
    buffers = [v for v in captured if isinstance(v.type, MemRefType) and v not in moved]
    scalars = [v for v in captured if not isinstance(v.type, MemRefType)]
    name = f"{kernel.sym_name.data}_par{n}"
    index = IndexType()
    names = list(sizes)
    fn = tir.PrimFuncOp(
        name, [v.type for v in buffers] + [MemRefType(index, [2])] + [index] * len(names)
    )
    if names:
        fn.attributes["sizes"] = ArrayAttr([StringAttr(s) for s in names])
    entry = fn.body.block
    mapping: dict[SSAValue, SSAValue] = dict(zip(buffers, entry.args, strict=False))
    mapping.update(zip(sizes.values(), entry.args[len(buffers) + 1 :], strict=True))
    for v in scalars:
        _clone_into(v, entry, mapping)
    for v in moved:  # (a symbolic local buffer is sized by the body's own sizes)
        a = v.owner.clone()  # type: ignore[union-attr]
        entry.add_op(a)
        mapping[v] = a.results[0]
    zero = arith.ConstantOp.from_int_and_width(0, index)
    one = arith.ConstantOp.from_int_and_width(1, index)
    entry.add_ops([zero, one])
    rng = entry.args[len(buffers)]
    start = tir.LoadOp(rng, [zero.result])
    end = tir.LoadOp(rng, [one.result])
    step_c = arith.ConstantOp.from_int_and_width(step, index)
    entry.add_ops([start, end, step_c])
    _rebind(mapping, inside, loop)
    body = Rewriter.move_region_contents_to_new_regions(loop.body)
    for inner in body.walk():  # nested parallel loops run serially in a thread
        if isinstance(inner, tir.ForOp) and inner.kind.data == ForKind.PARALLEL:
            inner.set_kind(ForKind.SERIAL)
    serial = tir.ForOp(start.result, end.result, step_c.result, body, ForKind.SERIAL)
    entry.add_ops([serial, tir.ReturnOp()])
    launch = f"{name}_launch"
    args = [*buffers, *([] if ub is not None else [loop.ub]), *sizes.values()]
    loop.parent_block().insert_op_before(tir.CallOp(launch, args), loop)  # type: ignore[union-attr]
    loop.detach()
    loop.erase()
    for v in moved:
        if not v.uses:
            owner = v.owner
            assert isinstance(owner, Operation)
            owner.detach()
            owner.erase()
    kernel.parent_block().insert_op_after(fn, kernel)  # type: ignore[union-attr]
    return ParallelLoop(launch, name, len(buffers), lb, ub, step, len(names))


def _inside(op: Operation, kernel: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and parent is not kernel:
        parent = parent.parent_op()
    return parent is kernel


def _work(ops: Sequence[Operation] | Block, times: int = 1) -> int | None:
    """Operation instances the ops run: each op times the static trip counts
    of the loops around it (inside `ops`); None when a trip count is not static."""
    total = 0
    for op in ops.ops if isinstance(ops, Block) else ops:
        total += times
        if isinstance(op, tir.ForOp):
            bounds = op.constant_bounds
            if bounds is None:
                return None
            lb, ub, step = bounds
            inner = _work(op.body.block, times * max(0, -(-(ub - lb) // step)))
        elif op.regions:
            parts = [_work(r.block, times) for r in op.regions if r.blocks]
            inner = None if None in parts else sum(p for p in parts if p is not None)
        else:
            continue
        if inner is None:
            return None
        total += inner
    return total


def _called_in_loops(module: ModuleOp) -> set[str]:
    """The kernels the graph function calls inside a `tir.for` (a relay.loop's
    body): called once per iteration."""
    names: set[str] = set()
    for fn in module.ops:
        if isinstance(fn, tir.PrimFuncOp):
            continue
        for op in fn.walk():
            if isinstance(op, tir.CallOp) and _in_for(op, fn):
                names.add(op.callee.string_value())
    return names


def _in_for(op: Operation, top: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and parent is not top:
        if isinstance(parent, tir.ForOp):
            return True
        parent = parent.parent_op()
    return False


def outline_parallel_loops(module: ModuleOp) -> list[ParallelLoop]:
    """Outline every top-level parallel loop of every kernel (see the module doc);
    nested parallel loops become serial, and so do those of a kernel called in
    a loop whose work is below `LOOP_SERIAL_WORK`."""
    found: list[ParallelLoop] = []
    in_loops = _called_in_loops(module)
    for kernel in [op for op in module.ops if isinstance(op, tir.PrimFuncOp)]:
        n = 0
        for op in list(kernel.walk()):
            if not isinstance(op, tir.ForOp) or op.kind.data != ForKind.PARALLEL:
                continue
            if not _inside(op, kernel):  # in a loop outlined already
                continue
            top = op.parent_op() is kernel
            if top and kernel.sym_name.data in in_loops:
                work = _work([op])
                top = work is None or work >= LOOP_SERIAL_WORK
            out = _outline(kernel, op, n) if top else None
            if out is None:
                op.set_kind(ForKind.SERIAL)
                continue
            found.append(out)
            n += 1
    if found:
        module.attributes[ATTR] = ArrayAttr([p.to_attr() for p in found])
    return found


def parallel_loops(module: ModuleOp) -> list[ParallelLoop]:
    attr = module.attributes.get(ATTR)
    if not isinstance(attr, ArrayAttr):
        return []
    return [ParallelLoop.from_attr(a) for a in attr.data]  # type: ignore[arg-type]


__all__ = ["ParallelLoop", "outline_parallel_loops", "parallel_loops"]
