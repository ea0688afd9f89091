"""Parallel loops, outlined for threads (the glue is `lamina.target.parallel`).

`outline_parallel_loops` (run by `lower-tir-to-llvm` first) moves the body of each
top-level `tir.for parallel` of a kernel into a kernel of its own,
`<kernel>_par<n>(buffers..., range)`, that runs iterations `range[0] ..
range[1]` serially, and replaces the loop by a call of `<kernel>_par<n>_launch
(buffers...)`. The loop is recorded in the module attribute `lamina.parallel`.

When the module is translated to LLVM IR, `lamina.target.parallel` defines each
launcher on libgomp. A loop that captures anything but buffers and constants
stays serial.
"""

from __future__ import annotations

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
from xdsl.ir import Block, Operation, Region, SSAValue

from lamina.dialects import tir
from lamina.dialects.tir import AllocScope, ForKind
from lamina.passes.tir.unroll import loop_bounds, set_kind

ATTR = "lamina.parallel"


@dataclass(frozen=True)
class ParallelLoop:
    launch: str
    body: str
    buffers: int
    lb: int
    ub: int
    step: int

    def to_attr(self) -> ArrayAttr:
        return ArrayAttr([
            StringAttr(self.launch), StringAttr(self.body),
            *(IntAttr(v) for v in (self.buffers, self.lb, self.ub, self.step)),
        ])

    @staticmethod
    def from_attr(a: ArrayAttr) -> ParallelLoop:
        launch, body, *ints = a.data
        assert isinstance(launch, StringAttr) and isinstance(body, StringAttr)
        n, lb, ub, step = (i.data for i in ints)  # type: ignore[attr-defined]
        return ParallelLoop(launch.data, body.data, n, lb, ub, step)


def _captures(loop: tir.ForOp) -> list[SSAValue] | None:
    """Values the loop uses from outside, in first-use order; None if one of them
    is not a static buffer or a constant."""
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
            if isinstance(owner, arith.ConstantOp) or (
                isinstance(v.type, MemRefType) and not isinstance(v.type.layout, tir.SizesAttr)
            ):
                out.append(v)
            else:  # a size, or a buffer whose addressing needs sizes
                return None
    return out


def _outline(kernel: tir.PrimFuncOp, loop: tir.ForOp, n: int) -> ParallelLoop | None:
    bounds = loop_bounds(loop)
    captured = _captures(loop)
    if bounds is None or bounds[2] <= 0 or captured is None:
        return None
    lb, ub, step = bounds
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
    consts = [v for v in captured if not isinstance(v.type, MemRefType)]
    name = f"{kernel.sym_name.data}_par{n}"
    index = IndexType()
    fn = tir.PrimFuncOp(name, [v.type for v in buffers] + [MemRefType(index, [2])])
    entry = fn.body.block
    mapping: dict[SSAValue, SSAValue] = dict(zip(buffers, entry.args, strict=False))
    for v in consts:
        c = v.owner.clone()  # type: ignore[union-attr]
        entry.add_op(c)
        mapping[v] = c.results[0]
    for v in moved:
        a = v.owner.clone()  # type: ignore[union-attr]
        entry.add_op(a)
        mapping[v] = a.results[0]
    zero = arith.ConstantOp.from_int_and_width(0, index)
    one = arith.ConstantOp.from_int_and_width(1, index)
    entry.add_ops([zero, one])
    rng = entry.args[-1]
    start = tir.LoadOp(rng, [zero.result])
    end = tir.LoadOp(rng, [one.result])
    step_c = arith.ConstantOp.from_int_and_width(step, index)
    entry.add_ops([start, end, step_c])
    body = Region()
    loop.body.clone_into(body, value_mapper=mapping)
    for inner in body.walk():  # nested parallel loops run serially in a thread
        if isinstance(inner, tir.ForOp) and inner.kind.data == ForKind.PARALLEL:
            set_kind(inner, ForKind.SERIAL)
    serial = tir.ForOp(start.result, end.result, step_c.result, body, ForKind.SERIAL)
    entry.add_ops([serial, tir.ReturnOp()])
    launch = f"{name}_launch"
    loop.parent_block().insert_op_before(tir.CallOp(launch, buffers), loop)  # type: ignore[union-attr]
    loop.detach()
    loop.erase()
    for v in moved:
        if not v.uses:
            owner = v.owner
            assert isinstance(owner, Operation)
            owner.detach()
            owner.erase()
    kernel.parent_block().insert_op_after(fn, kernel)  # type: ignore[union-attr]
    return ParallelLoop(launch, name, len(buffers), lb, ub, step)


def _inside(op: Operation, kernel: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and parent is not kernel:
        parent = parent.parent_op()
    return parent is kernel


def outline_parallel_loops(module: ModuleOp) -> list[ParallelLoop]:
    """Outline every top-level parallel loop of every kernel (see the module doc);
    nested parallel loops become serial."""
    found: list[ParallelLoop] = []
    for kernel in [op for op in module.ops if isinstance(op, tir.PrimFuncOp)]:
        n = 0
        for op in list(kernel.walk()):
            if not isinstance(op, tir.ForOp) or op.kind.data != ForKind.PARALLEL:
                continue
            if not _inside(op, kernel):  # in a loop outlined already
                continue
            top = op.parent_op() is kernel
            out = _outline(kernel, op, n) if top else None
            if out is None:
                set_kind(op, ForKind.SERIAL)
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
