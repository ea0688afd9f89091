"""Which computes of a `te.func` write into another's buffer, for
`lower-te-to-tir` (TVM's `compute_at` and `compute_inline` decisions, made by
rule): every other compute that is not an output or a reduction is inlined into
its readers.

- A reduction whose value only flows, point for point, into an output of its
  type becomes that output's producer, the output's computation its epilogue,
  run in the reduction's output loop.
- An elementwise compute with transcendental math that a reduction reads and an
  output of its type reads point for point, after every other reader (softmax's
  exp), is computed once, into that output's buffer, which the output then
  finishes in place; inlined, it would be computed in each reader.
- Row reductions and the computes around them (softmax, layer norm: reductions
  over the last axes, read and finished row by row) run row by row
  (`row_axes`): every stage of a row while the row is in cache, rather than
  each stage sweeping the whole tensor through memory.
"""

from __future__ import annotations

import math

from xdsl.ir import SSAValue

from lamina.dialects import te
from lamina.dialects.dtypes import numpy_dtype
from lamina.passes import current_target

#: Math ops worth computing once rather than in every reader.
TRANSCENDENTAL = frozenset(
    f"math.{n}"
    for n in ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "tanh", "erf", "powf", "sin", "cos", "atan", "atan2")
)


def share_buffers(
    computes: list[te.ComputeOp], buffers: dict[SSAValue, SSAValue]
) -> dict[te.ComputeOp, te.ComputeOp]:
    """Give the computes that write into an output's buffer that buffer in
    `buffers` (value -> buffer, the outputs' already there); return each
    output that is a reduction's epilogue, mapped to that reduction."""
    outputs = [op for op in computes if op.result in buffers]
    epilogue_of: dict[te.ComputeOp, te.ComputeOp] = {}
    for op in computes:
        if op.reduce is None or op.result in buffers:
            continue
        for out in outputs:
            if (
                out.reduce is None
                and out not in epilogue_of
                and out.result.type == op.result.type  # shares its buffer
                and _flows_pointwise(op, out, buffers)
            ):
                epilogue_of[out] = op
                buffers[op.result] = buffers[out.result]
                break
    for op, out in _computed_once(computes, outputs, epilogue_of, buffers).items():
        buffers[op.result] = buffers[out.result]
    return epilogue_of


def row_axes(
    computes: list[te.ComputeOp],
    buffers: dict[SSAValue, SSAValue],
    epilogue_of: dict[te.ComputeOp, te.ComputeOp],
) -> int:
    """How many leading axes (the rows) the kernel's stored computes run
    together over, 0 for none: every reduction's output axes are the rows, every
    other stored compute has the rows then more axes, every read of a compute is
    of the reader's own row, the sizes are static, and the computes' rows fit
    in half the L2 cache."""
    stored = [op for op in computes if op.result in buffers or op.reduce is not None]
    reductions = [op for op in stored if op.reduce is not None]
    if epilogue_of or not reductions or len(reductions) == len(stored):
        return 0
    rows = tuple(reductions[0].extents)
    k = len(rows)
    static = all(isinstance(e, int) for op in stored for e in (*op.extents, *op.reduce_shape))
    if not static or math.prod(rows) < 2:
        return 0
    for op in stored:
        shape = tuple(op.extents)
        if (op.reduce is not None and shape != rows) or (
            op.reduce is None and (len(shape) <= k or shape[:k] != rows)
        ):
            return 0
    for op in computes:
        for inner in op.walk():
            if not (isinstance(inner, te.ReadOp) and isinstance(inner.tensor.owner, te.ComputeOp)):
                continue
            if tuple(op.extents)[:k] != rows or tuple(inner.indices)[:k] != tuple(op.axes)[:k]:
                return 0
    row = sum(math.prod(op.extents) // math.prod(rows) for op in stored)
    widest = max(numpy_dtype(op.result.type.get_element_type()).itemsize for op in computes)  # type: ignore[union-attr]
    return k if row * widest <= current_target().caches[1] // 2 else 0


def _transcendental(op: te.ComputeOp) -> bool:
    return any(inner.name in TRANSCENDENTAL for inner in op.walk())


def _computed_once(
    computes: list[te.ComputeOp],
    outputs: list[te.ComputeOp],
    epilogue_of: dict[te.ComputeOp, te.ComputeOp],
    buffers: dict[SSAValue, SSAValue],
) -> dict[te.ComputeOp, te.ComputeOp]:
    """The elementwise computes to compute once, each with the output whose
    buffer it writes (see the module's docstring)."""
    order = {op: i for i, op in enumerate(computes)}
    found: dict[te.ComputeOp, te.ComputeOp] = {}
    for op in computes:
        if op.reduce is not None or op.result in buffers or not _transcendental(op):
            continue
        reads = [use.operation for use in op.result.uses]
        owners = [read.parent_op() for read in reads]
        for out in outputs:
            if (
                out.reduce is not None
                or out in epilogue_of
                or out in found.values()
                or out.result.type != op.result.type
                or out.extents != op.extents
                or out not in owners
            ):
                continue
            pointwise = all(
                isinstance(read, te.ReadOp) and tuple(read.indices) == tuple(out.axes)
                for read, owner in zip(reads, owners, strict=True)
                if owner is out
            )
            # every other reader a reduction computed before the output
            before = all(
                isinstance(owner, te.ComputeOp)
                and owner.reduce is not None
                and owner not in epilogue_of.values()
                and order[owner] < order[out]
                for owner in owners
                if owner is not out
            )
            if pointwise and before and any(owner is not out for owner in owners):
                found[op] = out
                break
    return found


def _flows_pointwise(
    src: te.ComputeOp, out: te.ComputeOp, buffers: dict[SSAValue, SSAValue]
) -> bool:
    """Whether every read of `src` is at its reader's own index point, in a
    chain of inlined elementwise computes that ends in `out`."""
    for use in src.result.uses:
        read = use.operation
        reader = read.parent_op()
        if not (
            isinstance(read, te.ReadOp)
            and isinstance(reader, te.ComputeOp)
            and reader.reduce is None
            and reader.extents == src.extents
            and tuple(read.indices) == tuple(reader.axes)
        ):
            return False
        if reader is out:
            continue
        if reader.result in buffers or not _flows_pointwise(reader, out, buffers):
            return False
    return bool(src.result.uses)


__all__ = ["TRANSCENDENTAL", "row_axes", "share_buffers"]
