"""The compute library's foundation: the kernel builder, the compute table and
the helpers every op family uses.

A compute takes the kernel being built, the relay op and the TE tensors of its
operands, and returns the TE tensor of its result (a list of them for a
multi-result op such as `relay.split`). Computes are kept in `COMPUTES`, a
`lamina.registry.Registry` keyed by op name (`"relay.add"`): lamina's own
register with `@register_compute(OpClass, ...)`, and an installed plugin adds one
for its own op through the entry-point group `lamina.computes` (the entry
point's name is the op name, its value a compute function), without any edit to
lamina. `compute_for(op)` finds the compute of an op by its name.

The builders `elementwise` (numpy broadcasting) and `reduction` (sum, product,
max or min over some axes) write most computes; `scheduled` attaches a schedule
to a compute (the schedules themselves are chosen in `lamina.lowering.strategy`).

Every read stays in bounds: padding, gathers and windows that may leave a tensor
read it at a clamped index and select the fill value instead (`Expr.read_or`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects.builtin import IntegerType, StringAttr, TensorType, UnitAttr
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.rewriter import InsertPoint

from lamina.dialects import relay, te
from lamina.dialects.shapes import dims, symbolic_tensor
from lamina.dialects.te import ReduceKind
from lamina.errors import LaminaError, LoweringError
from lamina.lowering.lang.expr import Expr, is_float, is_unsigned
from lamina.lowering.lang.schedule import SCHEDULE_ATTR, Schedule
from lamina.lowering.strategy.registry import schedule_for
from lamina.plugins import COMPUTES_GROUP
from lamina.registry import Registry
from lamina.symbolic import Dim, Sym

Body = Callable[[Expr, Sequence[SSAValue]], SSAValue]


class Kernel:
    """Appends `te.compute` ops to a `te.func` body."""

    def __init__(self, block: Block):
        self.builder = Builder(InsertPoint.at_end(block))

    def compute(
        self,
        type: TensorType,
        body: Body,
        reduce: ReduceKind | None = None,
        reduce_extents: Sequence[int] = (),
    ) -> SSAValue:
        """`te.compute(shape, lambda *idx: body)`; with `reduce`, the body's
        indices are the output axes followed by the reduce axes."""
        op = te.ComputeOp.build(type, reduce, reduce_extents)
        e = Expr(op.body.block)
        value = body(e, op.body.block.args)
        e.builder.insert(te.YieldOp(value))
        self.builder.insert(op)
        return op.result


def scheduled(result: SSAValue, sched: Schedule, ordered: bool = False) -> None:
    """Attach `sched` to the `te.compute` that defines `result` (TVM's strategy:
    an op's compute comes with its schedule); `ordered`: its reduction adds in
    the order the schedule gives (`te.ORDERED`)."""
    owner = result.owner
    assert isinstance(owner, te.ComputeOp)
    owner.attributes[SCHEDULE_ATTR] = StringAttr(str(sched))
    if ordered:
        owner.attributes[te.ORDERED] = UnitAttr()


def schedule(result: SSAValue, tag: str, *geometry: Any, ordered: bool = False) -> None:
    """Say what the compute defining `result` is (`tag`, and its `geometry`)
    and give it the schedule the target's strategy has for that
    (`lamina.lowering.strategy.registry`); without one, `lower-te-to-tir` gives
    it the default of its class. `ordered`: its reduction adds in the order the
    schedule gives (`te.ORDERED`)."""
    sched = schedule_for(tag, *geometry)
    if sched is not None:
        scheduled(result, sched, ordered)
    elif ordered:
        owner = result.owner
        assert isinstance(owner, te.ComputeOp)
        owner.attributes[te.ORDERED] = UnitAttr()


# --------------------------------------------------------------- the table
Compute = Callable[
    [Kernel, relay.RelayOp, list[SSAValue]], SSAValue | list[SSAValue]
]




def _check_compute(name: str, obj: Any) -> Compute:
    if not callable(obj):
        raise LaminaError(f"the compute of '{name}' is not a function: {obj!r}")
    return obj


#: Op name -> compute: lamina's own and the plugins' (group `lamina.computes`).
COMPUTES: Registry[Compute] = Registry("TE compute", COMPUTES_GROUP, _check_compute)


def register_compute(*op_types: type[relay.RelayOp]) -> Callable[[Compute], Compute]:
    """Decorator: the compute of the ops `op_types` (registered by their names)."""

    def wrap(fn: Compute) -> Compute:
        for t in op_types:
            COMPUTES.register(t.name, fn)
        return fn

    return wrap


def compute_for(op: relay.RelayOp) -> Compute:
    """The compute of `op`, by its name."""
    fn = COMPUTES.lookup(op.name)
    if fn is None:
        raise LoweringError(
            f"{op.name} has no TE compute definition; register one in "
            "lamina.lowering.topi with @register_compute"
        )
    return fn


# ------------------------------------------------------------------ helpers
def _type(op: relay.RelayOp, i: int = 0) -> TensorType:
    t = op.results[i].type
    assert isinstance(t, TensorType)
    return t


def _ttype(v: SSAValue) -> TensorType:
    assert isinstance(v.type, TensorType)
    return v.type


def _shape(v: SSAValue) -> tuple[int, ...]:
    return tuple(dims(_ttype(v)))


def _elem(v: SSAValue) -> Attribute:
    return _ttype(v).get_element_type()


def _tensor(shape: Sequence[Dim], elem: Attribute) -> TensorType:
    return symbolic_tensor(shape, elem)


def lowest(elem: Attribute) -> float | int:
    """The identity of `max`: -inf, or the smallest integer of the type."""
    if is_float(elem):
        return -math.inf
    assert isinstance(elem, IntegerType)
    bits = elem.width.data
    return 0 if is_unsigned(elem) or bits == 1 else -(2 ** (bits - 1))


def highest(elem: Attribute) -> float | int:
    """The identity of `min`: +inf, or the largest integer of the type."""
    if is_float(elem):
        return math.inf
    assert isinstance(elem, IntegerType)
    bits = elem.width.data
    return 2**bits - 1 if is_unsigned(elem) or bits == 1 else 2 ** (bits - 1) - 1


def elementwise(
    k: Kernel,
    out: TensorType,
    ins: Sequence[SSAValue],
    fn: Callable[..., SSAValue],
) -> SSAValue:
    """`out[i] = fn(e, *(x[i] for x in ins))` with numpy broadcasting."""
    shape = tuple(dims(out))

    def at(e: Expr, x: SSAValue, idx: Sequence[SSAValue]) -> list[SSAValue]:
        return list(idx) if _shape(x) == shape else e.broadcast_index(idx, _ttype(x))

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        return fn(e, *(e.read(x, at(e, x, idx)) for x in ins))

    return k.compute(out, body)


def reduction(
    k: Kernel,
    src: TensorType,
    axes: Sequence[int],
    keepdims: bool,
    kind: ReduceKind,
    value: Callable[[Expr, list[SSAValue]], SSAValue],
    elem: Attribute | None = None,
) -> SSAValue:
    """`kind`-reduce `value(e, index into src)` over `axes` of `src`'s index space;
    reduced axes are dropped, or kept as size 1 with `keepdims`. An empty
    reduction yields the reduction's identity."""
    shape = list(dims(src))
    elem = elem or src.get_element_type()
    axes = sorted(axes)
    kept = [d for d in range(len(shape)) if d not in axes]
    out_shape = [1 if d in axes else n for d, n in enumerate(shape) if keepdims or d in kept]
    out = _tensor(out_shape, elem)
    extents = [shape[a] for a in axes]
    if any(n == 0 for n in extents):
        init = {
            ReduceKind.SUM: 0,
            ReduceKind.PROD: 1,
            ReduceKind.MAX: lowest(elem),
            ReduceKind.MIN: highest(elem),
        }[kind]
        return k.compute(out, lambda e, i: e.const(init, elem))

    def full_index(idx: Sequence[SSAValue]) -> list[SSAValue]:
        outer, inner = idx[: len(out_shape)], idx[len(out_shape) :]
        pos = {d: outer[d if keepdims else j] for j, d in enumerate(kept)}
        pos |= {a: inner[j] for j, a in enumerate(axes)}
        return [pos[d] for d in range(len(shape))]

    if not axes:
        return k.compute(out, lambda e, i: value(e, full_index(i)))
    return k.compute(out, lambda e, i: value(e, full_index(i)), kind, extents)


def _read_at(x: SSAValue) -> Callable[[Expr, list[SSAValue]], SSAValue]:
    return lambda e, i: e.read(x, i)


def _c(e: Expr, value: float | Sym, like: SSAValue) -> SSAValue:
    """A constant of `like`'s type; a symbolic count (a mean over `seq`) is the
    size's value, converted."""
    if isinstance(value, Sym):
        return e.from_index(e.index(value), like.type)
    return e.const(value, like.type)




# ------------------------------------------------------------------ windows
def _window_input(
    e: Expr,
    out_pos: Sequence[SSAValue],
    taps: Sequence[SSAValue],
    win: relay.Window,
) -> list[SSAValue]:
    """Input positions `o * stride + k * dilation - pad_begin` per spatial axis."""
    pos = []
    for a, (o, t) in enumerate(zip(out_pos, taps, strict=True)):
        p = e.iadd(e.iscale(o, win.strides[a]), e.iscale(t, win.dilation[a]))
        pos.append(e.ishift(p, -win.pad_begin[a]))
    return pos


def _padded(win: relay.Window) -> list[bool]:
    return [b > 0 or e > 0 for b, e in zip(win.pad_begin, win.pad_end, strict=True)]
