"""The compute library: one TE definition per relay op, TOPI-style.

Each entry takes the kernel being built, the relay op and the TE tensors of its
operands, and returns the TE tensor of its result. A new graph op becomes
lowerable by registering its compute here with `@register(OpClass)`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, SSAValue
from xdsl.rewriter import InsertPoint

from lamina.dialects import relay, te
from lamina.dialects.te import ReduceKind
from lamina.errors import LoweringError
from lamina.lowering.expr import Expr

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


Compute = Callable[[Kernel, relay.RelayOp, list[SSAValue]], SSAValue]
COMPUTES: dict[type[relay.RelayOp], Compute] = {}


def register(*op_types: type[relay.RelayOp]) -> Callable[[Compute], Compute]:
    def wrap(fn: Compute) -> Compute:
        for t in op_types:
            COMPUTES[t] = fn
        return fn

    return wrap


def compute_for(op: relay.RelayOp) -> Compute:
    fn = COMPUTES.get(type(op))
    if fn is None:
        raise LoweringError(
            f"{op.name} has no TE compute definition; register one in "
            "lamina.lowering.topi with @register"
        )
    return fn


def _type(op: relay.RelayOp) -> TensorType:
    t = op.results[0].type
    assert isinstance(t, TensorType)
    return t


def _ttype(v: SSAValue) -> TensorType:
    assert isinstance(v.type, TensorType)
    return v.type


# --------------------------------------------------------------- elementwise
_BINARY: dict[type[relay.RelayOp], Callable[[Expr, SSAValue, SSAValue], SSAValue]] = {
    relay.AddOp: Expr.add,
    relay.SubtractOp: Expr.sub,
    relay.MultiplyOp: Expr.mul,
    relay.DivideOp: Expr.div,
}


@register(*_BINARY)
def binary(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    fn = _BINARY[type(op)]
    a, b = ins

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        x = e.read(a, e.broadcast_index(idx, _ttype(a)))
        y = e.read(b, e.broadcast_index(idx, _ttype(b)))
        return fn(e, x, y)

    return k.compute(_type(op), body)


@register(relay.ReluOp)
def relu(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    (x,) = ins
    elem = _ttype(x).get_element_type()
    return k.compute(_type(op), lambda e, i: e.max(e.read(x, i), e.const(0, elem)))


# ------------------------------------------------------------------ products
def _matmul_body(
    a: SSAValue,
    b: SSAValue,
    a_index: Callable[[Expr, Sequence[SSAValue], SSAValue], list[SSAValue]],
    b_index: Callable[[Expr, Sequence[SSAValue], SSAValue], list[SSAValue]],
    rank: int,
) -> Body:
    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        out, kk = idx[:rank], idx[rank]
        return e.mul(e.read(a, a_index(e, out, kk)), e.read(b, b_index(e, out, kk)))

    return body


@register(relay.DenseOp)
def dense(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    assert isinstance(op, relay.DenseOp)
    a, b = ins[0], ins[1]
    ta, tb = relay.flag_prop(op, "transpose_a"), relay.flag_prop(op, "transpose_b")
    kdim = _ttype(a).get_shape()[0 if ta else 1]

    def a_index(e: Expr, o: Sequence[SSAValue], kk: SSAValue) -> list[SSAValue]:
        return [kk, o[0]] if ta else [o[0], kk]

    def b_index(e: Expr, o: Sequence[SSAValue], kk: SSAValue) -> list[SSAValue]:
        return [o[1], kk] if tb else [kk, o[1]]

    out = _type(op)
    acc = k.compute(
        out, _matmul_body(a, b, a_index, b_index, 2), ReduceKind.SUM, [kdim]
    )
    alpha = relay.float_prop(op, "alpha", 1.0)
    beta = relay.float_prop(op, "beta", 1.0)
    bias = ins[2] if len(ins) > 2 else None
    if alpha == 1.0 and (bias is None or beta == 0.0):
        return acc
    elem = out.get_element_type()

    def epilogue(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        v = e.read(acc, idx)
        if alpha != 1.0:
            v = e.mul(v, e.const(alpha, elem))
        if bias is not None and beta != 0.0:
            c = e.read(bias, e.broadcast_index(idx, _ttype(bias)))
            if beta != 1.0:
                c = e.mul(c, e.const(beta, elem))
            v = e.add(v, c)
        return v

    return k.compute(out, epilogue)


@register(relay.MatmulOp)
def matmul(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    a, b = ins
    sa, sb = _ttype(a).get_shape(), _ttype(b).get_shape()
    out = _type(op)
    rank = out.get_num_dims()
    kdim = sa[-1]
    # Output axes: batch..., [m if a is not 1-D], [n if b is not 1-D].
    has_m, has_n = len(sa) > 1, len(sb) > 1
    nbatch = rank - has_m - has_n

    def batch_index(
        e: Expr, o: Sequence[SSAValue], operand_batch: Sequence[int]
    ) -> list[SSAValue]:
        lead = nbatch - len(operand_batch)
        return [
            e.index(0) if d == 1 else o[lead + j] for j, d in enumerate(operand_batch)
        ]

    def a_index(e: Expr, o: Sequence[SSAValue], kk: SSAValue) -> list[SSAValue]:
        if not has_m:
            return [kk]
        return [*batch_index(e, o, sa[:-2]), o[nbatch], kk]

    def b_index(e: Expr, o: Sequence[SSAValue], kk: SSAValue) -> list[SSAValue]:
        if not has_n:
            return [kk]
        return [*batch_index(e, o, sb[:-2]), kk, o[rank - 1]]

    return k.compute(
        out, _matmul_body(a, b, a_index, b_index, rank), ReduceKind.SUM, [kdim]
    )


# ------------------------------------------------------------------------ nn
@register(relay.SoftmaxOp)
def softmax(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    (x,) = ins
    out = _type(op)
    shape = list(out.get_shape())
    axis = relay.normalize_axis(op.name, relay.int_prop(op, "axis", -1), len(shape))
    extent = shape[axis]
    reduced = TensorType(out.get_element_type(), shape[:axis] + shape[axis + 1 :])

    def at(idx: Sequence[SSAValue], r: SSAValue) -> list[SSAValue]:
        return [*idx[:axis], r, *idx[axis:]]

    def drop(idx: Sequence[SSAValue]) -> list[SSAValue]:
        return [*idx[:axis], *idx[axis + 1 :]]

    n = len(shape) - 1
    mx = k.compute(
        reduced, lambda e, i: e.read(x, at(i[:n], i[n])), ReduceKind.MAX, [extent]
    )

    def shifted_exp(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        return e.exp(e.sub(e.read(x, idx), e.read(mx, drop(idx))))

    ex = k.compute(out, shifted_exp)
    sm = k.compute(
        reduced, lambda e, i: e.read(ex, at(i[:n], i[n])), ReduceKind.SUM, [extent]
    )
    return k.compute(out, lambda e, i: e.div(e.read(ex, i), e.read(sm, drop(i))))


# -------------------------------------------------------------------- layout
@register(relay.ReshapeOp)
def reshape(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    (x,) = ins
    out = _type(op)
    src = _ttype(x).get_shape()

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        flat = e.linearize(idx, out.get_shape())
        return e.read(x, e.delinearize(flat, src))

    return k.compute(out, body)


@register(relay.TransposeOp)
def transpose(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    (x,) = ins
    perm = relay.ints_prop(op, "perm")
    inverse = [perm.index(d) for d in range(len(perm))]
    return k.compute(_type(op), lambda e, i: e.read(x, [i[p] for p in inverse]))


def flops(op: relay.RelayOp) -> int:
    """Multiply-adds counted as two flops; other ops one per output element."""
    out = _type(op)
    n = math.prod(out.get_shape())
    if isinstance(op, relay.DenseOp | relay.MatmulOp):
        a = op.operands[0].type
        assert isinstance(a, TensorType)
        kdim = a.get_shape()[0 if relay.flag_prop(op, "transpose_a") else -1]
        return 2 * n * kdim
    return n
