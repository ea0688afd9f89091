"""The compute library: one TE definition per relay op, TOPI-style.

Each entry takes the kernel being built, the relay op and the TE tensors of its
operands, and returns the TE tensor of its result (a list of them for a
multi-result op such as `relay.split`). A new graph op becomes lowerable by
registering its compute here with `@register(OpClass)`.

Every read stays in bounds: padding, gathers and windows that may leave a tensor
read it at a clamped index and select the fill value instead (`Expr.read_or`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import IntegerType, StringAttr, TensorType, f64, i64
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.rewriter import InsertPoint

from lamina.dialects import relay, te
from lamina.dialects.te import ReduceKind
from lamina.errors import LoweringError
from lamina.lowering import schedule
from lamina.lowering.expr import Expr, is_float, is_unsigned

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


def scheduled(result: SSAValue, sched: schedule.Schedule) -> None:
    """Attach `sched` to the `te.compute` that defines `result` (TVM's strategy:
    an op's compute comes with its schedule)."""
    owner = result.owner
    assert isinstance(owner, te.ComputeOp)
    owner.attributes["schedule"] = StringAttr(str(sched))


def _bits(elem: Attribute) -> int:
    return max(getattr(elem, "bitwidth", 32) or 32, 8)


Compute = Callable[
    [Kernel, relay.RelayOp, list[SSAValue]], SSAValue | list[SSAValue]
]
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


def _type(op: relay.RelayOp, i: int = 0) -> TensorType:
    t = op.results[i].type
    assert isinstance(t, TensorType)
    return t


def _ttype(v: SSAValue) -> TensorType:
    assert isinstance(v.type, TensorType)
    return v.type


def _shape(v: SSAValue) -> tuple[int, ...]:
    return tuple(_ttype(v).get_shape())


def _elem(v: SSAValue) -> Attribute:
    return _ttype(v).get_element_type()


def _tensor(shape: Sequence[int], elem: Attribute) -> TensorType:
    return TensorType(elem, list(shape))


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
    shape = tuple(out.get_shape())

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
    shape = list(src.get_shape())
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


# --------------------------------------------------------------- elementwise
def _safe_divisor(e: Expr, b: SSAValue) -> tuple[SSAValue, SSAValue | None, SSAValue]:
    """Integer division traps on `b == 0` (and on `MIN / -1`): a divisor of 1
    there instead, and the tests `b == 0` and (signed) `b == -1` for the caller
    to fix the result up."""
    zero = e.cmp("eq", b, e.const(0, b.type))
    if is_unsigned(b.type):
        return zero, None, e.select(zero, e.const(1, b.type), b)
    minus_one = e.cmp("eq", b, e.const(-1, b.type))
    safe = e.select(e.or_(zero, minus_one), e.const(1, b.type), b)
    return zero, minus_one, safe


def divide(e: Expr, a: SSAValue, b: SSAValue) -> SSAValue:
    """Float division, or integer division truncated toward zero where `x / 0`
    is 0 and `x / -1` is `-x` (wrapping), as numpy computes them."""
    if is_float(a.type):
        return e.div(a, b)
    zero, minus_one, safe = _safe_divisor(e, b)
    q = e.div(a, safe)
    if minus_one is not None:
        q = e.select(minus_one, e.neg(a), q)
    return e.select(zero, e.const(0, a.type), q)


def trunc_mod(e: Expr, a: SSAValue, b: SSAValue) -> SSAValue:
    """C's `%` / `fmod` (sign of the dividend); integer `x % 0` and `x % -1` are 0."""
    if is_float(a.type):
        return _fmod(e, a, b)
    zero, minus_one, safe = _safe_divisor(e, b)
    bad = zero if minus_one is None else e.or_(zero, minus_one)
    return e.select(bad, e.const(0, a.type), e.rem(a, safe))


def _fmod(e: Expr, a: SSAValue, b: SSAValue) -> SSAValue:
    """`fmod(a, b)` as `a - trunc(a / b) * b` in one fused multiply-add, in f64
    (exact while the quotient fits 53 bits), moved by `b` when the rounded quotient
    was one off; NaN for `b = 0` or infinite `a`, `a` for infinite `b`."""
    if a.type != f64:
        return e.cast(_fmod(e, e.cast(a, f64), e.cast(b, f64)), a.type)
    q = e.math(mathd.TruncOp, e.div(a, b))
    r = e.math(mathd.FmaOp, e.neg(q), b, a)
    zero = _c(e, 0, a)
    size = e.abs(b)
    # |r| must be below |b| with the sign of a: fix a quotient rounded one off.
    too_far = e.and_(e.cmp("ne", r, zero), e.cmp("ne", e.cmp("lt", r, zero), e.cmp("lt", a, zero)))
    r = e.select(too_far, e.add(r, e.select(e.cmp("lt", a, zero), e.neg(size), size)), r)
    r = e.select(e.cmp("ge", e.abs(r), size), e.sub(r, e.select(e.cmp("lt", a, zero), e.neg(size), size)), r)
    a_finite = e.cmp("lt", e.abs(a), _c(e, math.inf, a))
    b_inf = e.cmp("eq", size, _c(e, math.inf, a))
    return e.select(e.and_(a_finite, b_inf), a, r)


def floor_mod(e: Expr, a: SSAValue, b: SSAValue) -> SSAValue:
    """Python's `%` / numpy's `mod` (sign of the divisor); integer `x % 0` is 0."""
    r = trunc_mod(e, a, b)
    if is_unsigned(a.type):
        return r
    zero = e.const(0, a.type)
    fix = e.and_(
        e.cmp("ne", r, zero), e.cmp("ne", e.cmp("lt", r, zero), e.cmp("lt", b, zero))
    )
    return e.select(fix, e.add(r, b), r)


def power(e: Expr, a: SSAValue, b: SSAValue) -> SSAValue:
    if is_float(a.type):
        return e.math(mathd.PowFOp, a, b)
    wide = e.math(mathd.PowFOp, e.cast(a, f64), e.cast(b, f64))
    return e.cast(wide, a.type)


_BINARY: dict[type[relay.RelayOp], Callable[[Expr, SSAValue, SSAValue], SSAValue]] = {
    relay.AddOp: Expr.add,
    relay.SubtractOp: Expr.sub,
    relay.MultiplyOp: Expr.mul,
    relay.DivideOp: divide,
    relay.PowerOp: power,
    relay.MaximumOp: Expr.max,
    relay.MinimumOp: Expr.min,
    relay.FloorModOp: floor_mod,
    relay.TruncModOp: trunc_mod,
    relay.LogicalAndOp: Expr.and_,
    relay.LogicalOrOp: Expr.or_,
    relay.LogicalXorOp: Expr.xor,
    relay.BitwiseAndOp: Expr.and_,
    relay.BitwiseOrOp: Expr.or_,
    relay.BitwiseXorOp: Expr.xor,
    relay.LeftShiftOp: lambda e, a, b: shift(e, a, b, left=True),
    relay.RightShiftOp: lambda e, a, b: shift(e, a, b, left=False),
    relay.EqualOp: lambda e, a, b: e.cmp("eq", a, b),
    relay.NotEqualOp: lambda e, a, b: e.cmp("ne", a, b),
    relay.LessOp: lambda e, a, b: e.cmp("lt", a, b),
    relay.LessEqualOp: lambda e, a, b: e.cmp("le", a, b),
    relay.GreaterOp: lambda e, a, b: e.cmp("gt", a, b),
    relay.GreaterEqualOp: lambda e, a, b: e.cmp("ge", a, b),
    relay.PReluOp: lambda e, x, a: e.select(
        e.cmp("lt", x, e.const(0, x.type)), e.mul(x, a), x
    ),
}


def shift(e: Expr, a: SSAValue, b: SSAValue, *, left: bool) -> SSAValue:
    """numpy's shifts: by the bit width or more, 0 (-1 for negative signed values
    shifted right) instead of LLVM's poison."""
    assert isinstance(a.type, IntegerType)
    width = a.type.width.data
    big = e.cmp("ge", b, _c(e, width, b))
    if not is_unsigned(b.type):
        big = e.or_(big, e.cmp("lt", b, _c(e, 0, b)))
    if left:
        return e.select(big, _c(e, 0, a), e.emit(arith.ShLIOp(a, b)))
    if is_unsigned(a.type):
        return e.select(big, _c(e, 0, a), e.emit(arith.ShRUIOp(a, b)))
    return e.emit(arith.ShRSIOp(a, e.select(big, _c(e, width - 1, b), b)))


@register(*_BINARY)
def binary(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    return elementwise(k, _type(op), ins, _BINARY[type(op)])


@register(relay.WhereOp)
def where(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    return elementwise(k, _type(op), ins, Expr.select)


def _c(e: Expr, value: float, like: SSAValue) -> SSAValue:
    return e.const(value, like.type)


def sigmoid(e: Expr, x: SSAValue) -> SSAValue:
    one = _c(e, 1, x)
    return e.div(one, e.add(one, e.exp(e.neg(x))))


def softplus(e: Expr, x: SSAValue) -> SSAValue:
    """`log(1 + exp(x))` as `max(x, 0) + log1p(exp(-|x|))` (numpy's logaddexp)."""
    tail = e.math(mathd.Log1pOp, e.exp(e.neg(e.abs(x))))
    return e.add(e.max(x, _c(e, 0, x)), tail)


def sign(e: Expr, x: SSAValue) -> SSAValue:
    zero = _c(e, 0, x)
    neg = e.select(e.cmp("lt", x, zero), _c(e, -1, x), x if is_float(x.type) else zero)
    return e.select(e.cmp("gt", x, zero), _c(e, 1, x), neg)


def _expm1_scaled(e: Expr, x: SSAValue, alpha: float) -> SSAValue:
    """`alpha * exp(x) - alpha`, as ONNX's reference computes Elu and Selu."""
    return e.sub(e.mul(e.exp(x), _c(e, alpha, x)), _c(e, alpha, x))


def gelu(e: Expr, x: SSAValue, approximate: str) -> SSAValue:
    half = e.mul(_c(e, 0.5, x), x)
    if approximate == "tanh":
        cube = e.mul(e.mul(x, x), x)
        inner = e.add(x, e.mul(_c(e, 0.044715, x), cube))
        t = e.math(mathd.TanhOp, e.mul(_c(e, math.sqrt(2 / math.pi), x), inner))
    else:
        t = e.math(mathd.ErfOp, e.mul(x, _c(e, 1 / math.sqrt(2), x)))
    return e.mul(half, e.add(_c(e, 1, x), t))


def hard_sigmoid(e: Expr, x: SSAValue, alpha: float, beta: float) -> SSAValue:
    v = e.add(e.mul(x, _c(e, alpha, x)), _c(e, beta, x))
    return e.min(e.max(v, _c(e, 0, x)), _c(e, 1, x))


def clip(e: Expr, x: SSAValue, lo: float | None, hi: float | None) -> SSAValue:
    if lo is not None:
        x = e.max(x, _c(e, lo if is_float(x.type) else math.ceil(lo), x))
    if hi is not None:
        x = e.min(x, _c(e, hi if is_float(x.type) else math.floor(hi), x))
    return x


def _attr(op: relay.RelayOp, name: str, default: float) -> float:
    return relay.float_prop(op, name, default)


def _opt(op: relay.RelayOp, name: str) -> float | None:
    return relay.float_prop(op, name, 0.0) if name in op.properties else None


Unary = Callable[[Expr, SSAValue, relay.RelayOp], SSAValue]
_UNARY: dict[type[relay.RelayOp], Unary] = {
    relay.ReluOp: lambda e, x, op: e.max(x, _c(e, 0, x)),
    relay.NegativeOp: lambda e, x, op: e.neg(x),
    relay.AbsOp: lambda e, x, op: e.abs(x),
    relay.SignOp: lambda e, x, op: sign(e, x),
    relay.LogicalNotOp: lambda e, x, op: e.not_(x),
    relay.BitwiseNotOp: lambda e, x, op: e.xor(x, _c(e, -1, x)),
    relay.ExpOp: lambda e, x, op: e.exp(x),
    relay.LogOp: lambda e, x, op: e.log(x),
    relay.SqrtOp: lambda e, x, op: e.sqrt(x),
    relay.RsqrtOp: lambda e, x, op: e.div(_c(e, 1, x), e.sqrt(x)),
    relay.ReciprocalOp: lambda e, x, op: e.div(_c(e, 1, x), x),
    relay.FloorOp: lambda e, x, op: e.floor(x),
    relay.CeilOp: lambda e, x, op: e.math(mathd.CeilOp, x),
    relay.RoundOp: lambda e, x, op: e.math(mathd.RoundEvenOp, x),
    relay.SinOp: lambda e, x, op: e.math(mathd.SinOp, x),
    relay.CosOp: lambda e, x, op: e.math(mathd.CosOp, x),
    relay.TanOp: lambda e, x, op: e.math(mathd.TanOp, x),
    relay.TanhOp: lambda e, x, op: e.math(mathd.TanhOp, x),
    relay.ErfOp: lambda e, x, op: e.math(mathd.ErfOp, x),
    relay.AsinOp: lambda e, x, op: e.math(mathd.AsinOp, x),
    relay.AcosOp: lambda e, x, op: e.math(mathd.AcosOp, x),
    relay.AtanOp: lambda e, x, op: e.math(mathd.AtanOp, x),
    relay.SinhOp: lambda e, x, op: e.math(mathd.SinhOp, x),
    relay.CoshOp: lambda e, x, op: e.math(mathd.CoshOp, x),
    relay.AsinhOp: lambda e, x, op: e.math(mathd.AsinhOp, x),
    relay.AcoshOp: lambda e, x, op: e.math(mathd.AcoshOp, x),
    relay.AtanhOp: lambda e, x, op: e.math(mathd.AtanhOp, x),
    relay.SigmoidOp: lambda e, x, op: sigmoid(e, x),
    relay.SoftplusOp: lambda e, x, op: softplus(e, x),
    relay.SoftsignOp: lambda e, x, op: e.div(x, e.add(_c(e, 1, x), e.abs(x))),
    relay.HardSwishOp: lambda e, x, op: e.mul(x, hard_sigmoid(e, x, 1 / 6, 0.5)),
    relay.LeakyReluOp: lambda e, x, op: e.select(
        e.cmp("lt", x, _c(e, 0, x)), e.mul(x, _c(e, _attr(op, "alpha", 0.01), x)), x
    ),
    relay.EluOp: lambda e, x, op: e.select(
        e.cmp("lt", x, _c(e, 0, x)), _expm1_scaled(e, x, _attr(op, "alpha", 1.0)), x
    ),
    relay.SeluOp: lambda e, x, op: e.mul(
        e.select(
            e.cmp("gt", x, _c(e, 0, x)),
            x,
            _expm1_scaled(e, x, _attr(op, "alpha", SELU_ALPHA)),
        ),
        _c(e, _attr(op, "gamma", SELU_GAMMA), x),
    ),
    relay.HardSigmoidOp: lambda e, x, op: hard_sigmoid(
        e, x, _attr(op, "alpha", 0.2), _attr(op, "beta", 0.5)
    ),
    relay.GeluOp: lambda e, x, op: gelu(e, x, relay.str_prop(op, "approximate", "none")),
    relay.ClipOp: lambda e, x, op: clip(e, x, _opt(op, "a_min"), _opt(op, "a_max")),
    relay.CastOp: lambda e, x, op: e.cast(x, _type(op).get_element_type()),
}

#: ONNX Selu's default constants.
SELU_ALPHA = 1.67326319217681884765625
SELU_GAMMA = 1.05070102214813232421875


@register(*_UNARY)
def unary(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    fn = _UNARY[type(op)]
    return elementwise(k, _type(op), ins, lambda e, x: fn(e, x, op))


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
    if not tb:  # lanes along n read b contiguously (alter-op-layout makes it so)
        scheduled(acc, schedule.gemm(
            tuple(out.get_shape()), 0, (1,), _bits(out.get_element_type()), reduce_size=kdim
        ))
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

    result = k.compute(
        out, _matmul_body(a, b, a_index, b_index, rank), ReduceKind.SUM, [kdim]
    )
    if has_m and has_n:
        elem = out.get_element_type()
        scheduled(result, schedule.gemm(
            tuple(out.get_shape()), rank - 2, (rank - 1,), _bits(elem), reduce_size=kdim
        ))
    return result


# ---------------------------------------------------------------- reductions
_REDUCE_KIND = {
    relay.SumOp: ReduceKind.SUM,
    relay.MeanOp: ReduceKind.SUM,
    relay.MaxOp: ReduceKind.MAX,
    relay.MinOp: ReduceKind.MIN,
    relay.ProdOp: ReduceKind.PROD,
}


@register(*_REDUCE_KIND)
def reduce(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    (x,) = ins
    src = _ttype(x)
    axes = relay.reduce_axes(op.name, op, src.get_num_dims())
    keep = relay.flag_prop(op, "keepdims")
    out = reduction(k, src, axes, keep, _REDUCE_KIND[type(op)], _read_at(x))
    if not isinstance(op, relay.MeanOp) or not axes:
        return out
    count = math.prod(src.get_shape()[a] for a in axes)
    return k.compute(
        _type(op), lambda e, i: divide(e, e.read(out, i), _c(e, count, e.read(out, i)))
    )


@register(relay.LogSumExpOp)
def logsumexp(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`m + log(sum(exp(x - m)))` with `m` the maximum (0 where it is not finite,
    so that all -inf gives -inf and +inf or NaN propagate)."""
    (x,) = ins
    src = _ttype(x)
    axes = relay.reduce_axes(op.name, op, src.get_num_dims())
    rank = src.get_num_dims()
    mx = reduction(k, src, axes, True, ReduceKind.MAX, _read_at(x))

    def shift(e: Expr, i: Sequence[SSAValue]) -> SSAValue:
        m = e.read(mx, i)
        finite = e.cmp("lt", e.abs(m), _c(e, math.inf, m))
        return e.select(finite, m, _c(e, 0, m))

    safe = k.compute(_ttype(mx), shift)

    def at_max(i: Sequence[SSAValue], e: Expr) -> list[SSAValue]:
        zero = e.index(0)
        return [zero if d in axes else i[d] for d in range(rank)]

    total = reduction(
        k,
        src,
        axes,
        relay.flag_prop(op, "keepdims"),
        ReduceKind.SUM,
        lambda e, i: e.exp(e.sub(e.read(x, i), e.read(safe, at_max(i, e)))),
    )
    keep = relay.flag_prop(op, "keepdims")
    kept = [d for d in range(rank) if d not in axes]

    def finish(e: Expr, i: Sequence[SSAValue]) -> SSAValue:
        if keep:
            m_idx = [e.index(0) if d in axes else i[d] for d in range(rank)]
        else:
            pos = dict(zip(kept, i, strict=True))
            m_idx = [pos[d] if d in pos else e.index(0) for d in range(rank)]
        return e.add(e.log(e.read(total, i)), e.read(safe, m_idx))

    return k.compute(_type(op), finish)


@register(relay.ArgMaxOp, relay.ArgMinOp)
def arg_reduce(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """The extreme value along the axis, then the first (or last) index holding it
    (or holding NaN, which is the extreme when present)."""
    (x,) = ins
    src = _ttype(x)
    rank = src.get_num_dims()
    axis = relay.normalize_axis(op.name, relay.int_prop(op, "axis", 0), rank)
    extreme = ReduceKind.MAX if isinstance(op, relay.ArgMaxOp) else ReduceKind.MIN
    best = reduction(k, src, [axis], True, extreme, _read_at(x))
    last = relay.flag_prop(op, "select_last_index")
    extent = src.get_shape()[axis]

    def candidate(e: Expr, i: list[SSAValue]) -> SSAValue:
        v = e.read(x, i)
        b = e.read(best, [e.index(0) if d == axis else i[d] for d in range(rank)])
        hit = e.cmp("eq", v, b)
        if is_float(v.type):
            hit = e.or_(hit, e.isnan(v))
        miss = e.const(-1 if last else extent, i64)
        return e.select(hit, e.from_index(i[axis], i64), miss)

    kind = ReduceKind.MAX if last else ReduceKind.MIN
    return reduction(
        k, src, [axis], relay.flag_prop(op, "keepdims"), kind, candidate, elem=i64
    )


# ------------------------------------------------------------------------ nn
@register(relay.SoftmaxOp, relay.LogSoftmaxOp)
def softmax(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """softmax: max-reduce, shifted exp, sum-reduce, divide; log_softmax:
    `x - max - log(sum)`."""
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

    def shifted(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        return e.sub(e.read(x, idx), e.read(mx, drop(idx)))

    if isinstance(op, relay.LogSoftmaxOp):
        sm = k.compute(
            reduced,
            lambda e, i: e.exp(shifted(e, at(i[:n], i[n]))),
            ReduceKind.SUM,
            [extent],
        )
        return k.compute(
            out, lambda e, i: e.sub(shifted(e, i), e.log(e.read(sm, drop(i))))
        )
    ex = k.compute(out, lambda e, i: e.exp(shifted(e, i)))
    sm = k.compute(
        reduced, lambda e, i: e.read(ex, at(i[:n], i[n])), ReduceKind.SUM, [extent]
    )
    return k.compute(out, lambda e, i: e.div(e.read(ex, i), e.read(sm, drop(i))))


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


@register(relay.Conv1DOp, relay.Conv2DOp, relay.Conv3DOp)
def conv(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`out[n, f, o...] = sum(c, t...) x[n, g * C + c, o * s + t * d - p] *
    w[f, c, t...]` with `g` the group of output channel `f`."""
    assert isinstance(op, relay.ConvOp)
    x, w = ins
    n = op.SPATIAL
    win = relay.Window(op.name, op, n)
    wshape = _shape(w)
    out = _type(op)
    groups = relay.int_prop(op, "groups", 1)
    cin, per_group = wshape[1], wshape[0] // groups
    checked = [False, False, *_padded(win)]

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        b, f, opos = idx[0], idx[1], idx[2 : 2 + n]
        c, taps = idx[2 + n], idx[3 + n :]
        channel = c
        if groups > 1:
            g = e.idiv(f, e.index(per_group))
            channel = e.iadd(e.iscale(g, cin), c)
        pos = _window_input(e, opos, taps, win)
        v = e.read_or(x, [b, channel, *pos], 0, checked)
        return e.mul(v, e.read(w, [f, c, *taps]))

    result = k.compute(out, body, ReduceKind.SUM, [cin, *wshape[2:]])
    if _is_gemm_conv(op, wshape, groups):
        shape = tuple(out.get_shape())
        scheduled(result, schedule.gemm(
            shape, 1, (2, 3), _bits(out.get_element_type()), 3, reduce_size=cin
        ))
    return result


def _is_gemm_conv(op: relay.ConvOp, wshape: Sequence[int], groups: int) -> bool:
    """A 2-D 1x1 convolution with unit strides and no padding: a GEMM of the
    weight (out x in channels) and the input (in channels x pixels)."""
    win = relay.Window(op.name, op, op.SPATIAL)
    return (
        op.SPATIAL == 2
        and groups == 1
        and tuple(wshape[2:]) == (1, 1)
        and tuple(win.strides) == (1, 1)
        and not any(win.pad_begin + win.pad_end)
    )


@register(relay.Im2ColOp)
def im2col(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`out[n, c*KH*KW + kh*KW + kw, oh, ow] = x[n, c, oh*s + kh*d - p, ...]`."""
    (x,) = ins
    win = relay.Window(op.name, op, 2)
    kh, kw = (int(v) for v in op.kernel_size.get_values())  # type: ignore[attr-defined]
    checked = [False, False, *_padded(win)]

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        b, col, oh, ow = idx
        c = e.idiv(col, e.index(kh * kw))
        tap = e.irem(col, e.index(kh * kw))
        taps = [e.idiv(tap, e.index(kw)), e.irem(tap, e.index(kw))]
        pos = _window_input(e, [oh, ow], taps, win)
        return e.read_or(x, [b, c, *pos], 0, checked)

    return k.compute(_type(op), body)


@register(relay.Conv1DTransposeOp, relay.Conv2DTransposeOp, relay.Conv3DTransposeOp)
def conv_transpose(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """The gradient of `conv`: `out[n, f, o...] = sum(c, t...) x[n, g * C + c, i]
    * w[g * C + c, f % F, t...]` over the `i = (o + p - t * d) / s` that are
    whole and inside the input."""
    assert isinstance(op, relay.ConvTransposeOp)
    x, w = ins
    n = op.SPATIAL
    win = relay.Window(op.name, op, n, negative_padding=True)
    xshape, wshape = _shape(x), _shape(w)
    groups = relay.int_prop(op, "groups", 1)
    cin, per_group = xshape[1] // groups, wshape[1]

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        b, f, opos = idx[0], idx[1], idx[2 : 2 + n]
        c, taps = idx[2 + n], idx[3 + n :]
        channel, fw = c, f
        if groups > 1:
            g = e.idiv(f, e.index(per_group))
            channel = e.iadd(e.iscale(g, cin), c)
            fw = e.irem(f, e.index(per_group))
        pos, valid = [], []
        for a, (o, t) in enumerate(zip(opos, taps, strict=True)):
            num = e.isub(e.ishift(o, win.pad_begin[a]), e.iscale(t, win.dilation[a]))
            s = win.strides[a]
            if s > 1:
                rem = e.isrem(num, e.index(s))
                valid.append(e.cmp("eq", rem, e.index(0)))
                num = e.ifloordiv(num, e.index(s))
            pos.append(num)
        v = e.read_or(x, [b, channel, *pos], 0, [False, False] + [True] * n, valid)
        return e.mul(v, e.read(w, [channel, fw, *taps]))

    return k.compute(_type(op), body, ReduceKind.SUM, [cin, *wshape[2:]])


@register(relay.BiasAddOp)
def bias_add(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    x, bias = ins
    axis = relay.normalize_axis(op.name, relay.int_prop(op, "axis", 1), len(_shape(x)))
    return k.compute(
        _type(op), lambda e, i: e.add(e.read(x, i), e.read(bias, [i[axis]]))
    )


def _window_count(
    e: Expr, o: SSAValue, axis: int, kernel: int, win: relay.Window, lo: int, hi: int
) -> SSAValue:
    """How many taps `t` of the window at output `o` land in `lo..hi` (input
    coordinates): `ceil((hi - start) / d) - ceil((lo - start) / d)`, clipped to
    `0..kernel`, with `start = o * s - pad_begin`."""
    dilation = win.dilation[axis]
    start = e.ishift(e.iscale(o, win.strides[axis]), -win.pad_begin[axis])

    def taps_below(bound: int) -> SSAValue:
        span = e.ishift(e.isub(e.index(bound), start), dilation - 1)
        if dilation != 1:
            span = e.ifloordiv(span, e.index(dilation))
        return e.clamp(span, 0, kernel)

    return e.isub(taps_below(hi), taps_below(lo))


@register(
    relay.MaxPool1DOp,
    relay.MaxPool2DOp,
    relay.MaxPool3DOp,
    relay.AvgPool1DOp,
    relay.AvgPool2DOp,
    relay.AvgPool3DOp,
)
def pool(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """Max (padding is the lowest value) or sum-then-divide by the number of taps
    inside the input (or the padded input, with count_include_pad)."""
    assert isinstance(op, relay.PoolOp)
    (x,) = ins
    n = op.spatial(_ttype(x))
    win = relay.Window(op.name, op, n)
    kernel = relay.ints_prop(op, "pool_size")
    out = _type(op)
    elem = out.get_element_type()
    is_max = isinstance(op, relay.MaxPoolOp)
    # Windows leave the input only through padding or the ceil_mode tail.
    ceil = relay.flag_prop(op, "ceil_mode")
    checked = [False, False, *(ceil or p for p in _padded(win))]
    fill = lowest(elem) if is_max else 0

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        pos = _window_input(e, idx[2 : 2 + n], idx[2 + n :], win)
        return e.read_or(x, [idx[0], idx[1], *pos], fill, checked)

    kind = ReduceKind.MAX if is_max else ReduceKind.SUM
    acc = k.compute(out, body, kind, kernel)
    if is_max:
        return acc
    xshape = _shape(x)
    include_pad = relay.flag_prop(op, "count_include_pad")

    def average(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        count: SSAValue | None = None
        for a in range(n):
            lo = -win.pad_begin[a] if include_pad else 0
            hi = xshape[2 + a] + (win.pad_end[a] if include_pad else 0)
            taps = _window_count(e, idx[2 + a], a, kernel[a], win, lo, hi)
            count = taps if count is None else e.imul(count, taps)
        assert count is not None
        total = e.read(acc, idx)
        return e.div(total, e.from_index(count, elem))

    return k.compute(out, average)


@register(relay.MaxPoolWithArgmaxOp)
def max_pool_with_argmax(
    k: Kernel, op: relay.RelayOp, ins: list[SSAValue]
) -> list[SSAValue]:
    """The maximum, the first window tap (in row-major tap order) holding it, and
    that tap's flat index into the data."""
    assert isinstance(op, relay.MaxPoolWithArgmaxOp)
    (x,) = ins
    xshape = _shape(x)
    n = op.spatial(_ttype(x))
    win = relay.Window(op.name, op, n)
    kernel = relay.ints_prop(op, "pool_size")
    values = pool(k, op, ins)
    assert isinstance(values, SSAValue)
    taps = math.prod(kernel)
    checked = [False, False, *(True for _ in range(n))]

    def first_hit(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        out, tap = idx[: 2 + n], idx[2 + n :]
        pos = _window_input(e, out[2:], tap, win)
        inside = e.all_of([e.in_range(p, 0, xshape[2 + a]) for a, p in enumerate(pos)])
        v = e.read_or(x, [out[0], out[1], *pos], 0, checked)
        hit = e.and_(inside, e.cmp("eq", v, e.read(values, out)))
        t = e.from_index(e.linearize(tap, kernel), i64)
        return e.select(hit, t, e.const(taps, i64))

    best = k.compute(_type(op, 1), first_hit, ReduceKind.MIN, kernel)
    column_major = relay.flag_prop(op, "column_major")
    spatial = xshape[2:]

    def flat_index(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        t = e.to_index(e.read(best, idx))
        tap = e.delinearize(e.clamp(t, 0, taps - 1), kernel)
        pos = _window_input(e, idx[2:], tap, win)
        if column_major:
            where = e.linearize(pos[::-1], spatial[::-1])
        else:
            where = e.linearize(pos, spatial)
        plane = e.linearize(idx[:2], xshape[:2])
        flat = e.iadd(e.iscale(plane, math.prod(spatial)), where)
        return e.from_index(flat, i64)

    return [values, k.compute(_type(op, 1), flat_index)]


def _channel(idx: Sequence[SSAValue], axis: int) -> list[SSAValue]:
    return [idx[axis]]


@register(relay.BatchNormOp)
def batch_norm(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`gamma * (x - mean) / sqrt(var + epsilon) + beta` (ONNX's order)."""
    x, gamma, beta, mean, var = ins
    axis = relay.normalize_axis(op.name, relay.int_prop(op, "axis", 1), len(_shape(x)))
    eps = relay.float_prop(op, "epsilon", 1e-5)

    def body(e: Expr, i: Sequence[SSAValue]) -> SSAValue:
        c = _channel(i, axis)
        v = e.read(x, i)
        centered = e.mul(e.read(gamma, c), e.sub(v, e.read(mean, c)))
        std = e.sqrt(e.add(e.read(var, c), _c(e, eps, v)))
        return e.add(e.div(centered, std), e.read(beta, c))

    return k.compute(_type(op), body)


def _moments(
    k: Kernel, x: SSAValue, axes: Sequence[int]
) -> tuple[SSAValue, SSAValue, Callable[[Expr, Sequence[SSAValue]], list[SSAValue]]]:
    """Mean and (biased) variance of `x` over `axes`, kept as size-1 axes, and the
    index map from a point of `x` to its statistics."""
    src = _ttype(x)
    count = math.prod(src.get_shape()[a] for a in axes)

    def stat_index(e: Expr, i: Sequence[SSAValue]) -> list[SSAValue]:
        zero = e.index(0)
        return [zero if d in axes else v for d, v in enumerate(i)]

    total = reduction(k, src, axes, True, ReduceKind.SUM, _read_at(x))
    mean = k.compute(
        _ttype(total), lambda e, i: e.div(e.read(total, i), _c(e, count, e.read(total, i)))
    )

    def square(e: Expr, i: list[SSAValue]) -> SSAValue:
        d = e.sub(e.read(x, i), e.read(mean, stat_index(e, i)))
        return e.mul(d, d)

    sq = reduction(k, src, axes, True, ReduceKind.SUM, square)
    var = k.compute(
        _ttype(sq), lambda e, i: e.div(e.read(sq, i), _c(e, count, e.read(sq, i)))
    )
    return mean, var, stat_index


@register(relay.LayerNormOp)
def layer_norm(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """`(x - mean) * (1 / sqrt(var + epsilon)) * gamma + beta` over the trailing
    axes (ONNX's reference order)."""
    x, gamma = ins[0], ins[1]
    beta = ins[2] if len(ins) > 2 else None
    rank = len(_shape(x))
    axis = relay.normalize_axis(op.name, relay.int_prop(op, "axis", -1), rank)
    eps = relay.float_prop(op, "epsilon", 1e-5)
    mean, var, stat = _moments(k, x, list(range(axis, rank)))

    def body(e: Expr, i: Sequence[SSAValue]) -> SSAValue:
        v = e.read(x, i)
        s = stat(e, i)
        inv = e.div(_c(e, 1, v), e.sqrt(e.add(e.read(var, s), _c(e, eps, v))))
        y = e.mul(e.mul(e.sub(v, e.read(mean, s)), inv), e.read(gamma, e.broadcast_index(i, _ttype(gamma))))
        if beta is not None:
            y = e.add(y, e.read(beta, e.broadcast_index(i, _ttype(beta))))
        return y

    return k.compute(_type(op), body)


@register(relay.InstanceNormOp)
def instance_norm(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    x, gamma, beta = ins
    rank = len(_shape(x))
    eps = relay.float_prop(op, "epsilon", 1e-5)
    mean, var, stat = _moments(k, x, list(range(2, rank)))

    def body(e: Expr, i: Sequence[SSAValue]) -> SSAValue:
        v = e.read(x, i)
        s, c = stat(e, i), _channel(i, 1)
        centered = e.mul(e.read(gamma, c), e.sub(v, e.read(mean, s)))
        std = e.sqrt(e.add(e.read(var, s), _c(e, eps, v)))
        return e.add(e.div(centered, std), e.read(beta, c))

    return k.compute(_type(op), body)


@register(relay.LRNOp)
def lrn(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    (x,) = ins
    shape = _shape(x)
    axis = relay.normalize_axis(op.name, relay.int_prop(op, "axis", 1), len(shape))
    size = relay.int_prop(op, "size", 1)
    alpha = relay.float_prop(op, "alpha", 1e-4)
    beta = relay.float_prop(op, "beta", 0.75)
    bias = relay.float_prop(op, "bias", 1.0)
    channels = shape[axis]
    if size > 2 * channels - 1 > 0:  # every window covers all channels: same sums,
        alpha *= (2 * channels - 1) / size  # and a loop of 2C-1 steps, not `size`
        size = 2 * channels - 1
    before = (size - 1) // 2
    checked = [d == axis for d in range(len(shape))]

    def square(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        i, t = list(idx[:-1]), idx[-1]
        i[axis] = e.ishift(e.iadd(i[axis], t), -before)
        v = e.read_or(x, i, 0, checked)
        return e.mul(v, v)

    sq = k.compute(_ttype(x), square, ReduceKind.SUM, [size])

    def body(e: Expr, i: Sequence[SSAValue]) -> SSAValue:
        v = e.read(x, i)
        scaled = e.mul(e.read(sq, i), _c(e, alpha / size, v))
        denom = e.math(mathd.PowFOp, e.add(_c(e, bias, v), scaled), _c(e, beta, v))
        return e.div(v, denom)

    return k.compute(_type(op), body)


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




@register(relay.ConcatenateOp)
def concatenate(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """Each point reads the operand whose range along the axis holds it (every
    operand is read at a clamped index and the right value selected)."""
    out = _type(op)
    axis = relay.normalize_axis(op.name, relay.int_prop(op, "axis", 0), out.get_num_dims())
    parts, offset = [], 0
    for x in ins:
        size = _shape(x)[axis]
        if size:
            parts.append((x, offset, size))
        offset += size

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        value: SSAValue | None = None
        for x, start, size in reversed(parts):
            i = list(idx)
            i[axis] = e.clamp(e.ishift(idx[axis], -start), 0, size - 1)
            v = e.read(x, i)
            if value is None:
                value = v
            else:
                inside = e.cmp("lt", idx[axis], e.index(start + size))
                value = e.select(inside, v, value)
        assert value is not None
        return value

    return k.compute(out, body)


@register(relay.SplitOp)
def split(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> list[SSAValue]:
    (x,) = ins
    axis = relay.normalize_axis(op.name, relay.int_prop(op, "axis", 0), len(_shape(x)))
    starts = [0, *relay.ints_prop(op, "indices")]
    outs = []
    for r, start in enumerate(starts):

        def body(e: Expr, idx: Sequence[SSAValue], start: int = start) -> SSAValue:
            i = list(idx)
            i[axis] = e.ishift(i[axis], start)
            return e.read(x, i)

        outs.append(k.compute(_type(op, r), body))
    return outs


@register(relay.StridedSliceOp)
def strided_slice(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    (x,) = ins
    begin = relay.ints_prop(op, "begin")
    strides = relay.ints_prop(op, "strides") or (1,) * len(begin)

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        i = [
            e.ishift(e.iscale(v, s), b)
            for v, b, s in zip(idx, begin, strides, strict=True)
        ]
        return e.read(x, i)

    return k.compute(_type(op), body)


def _wrap_index(e: Expr, v: SSAValue, extent: int) -> SSAValue:
    """An index read from a tensor: negative counts from the end, then clamped."""
    i = e.to_index(v)
    if not is_unsigned(v.type):
        neg = e.cmp("lt", i, e.index(0))
        i = e.select(neg, e.iadd(i, e.index(extent)), i)
    return e.clamp(i, 0, extent - 1)


@register(relay.TakeOp)
def take(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    x, indices = ins
    shape = _shape(x)
    axis = relay.normalize_axis(op.name, relay.int_prop(op, "axis", 0), len(shape))
    q = len(_shape(indices))

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        where = e.read(indices, idx[axis : axis + q])
        i = _wrap_index(e, where, shape[axis])
        return e.read(x, [*idx[:axis], i, *idx[axis + q :]])

    return k.compute(_type(op), body)


@register(relay.GatherOp)
def gather(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    x, indices = ins
    shape = _shape(x)
    axis = relay.normalize_axis(op.name, relay.int_prop(op, "axis", 0), len(shape))

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        i = list(idx)
        i[axis] = _wrap_index(e, e.read(indices, idx), shape[axis])
        return e.read(x, i)

    return k.compute(_type(op), body)


@register(relay.BroadcastToOp)
def broadcast_to(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    return elementwise(k, _type(op), ins, lambda e, x: x)


@register(relay.TileOp)
def tile(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    (x,) = ins
    shape = _shape(x)
    reps = relay.ints_prop(op, "reps")

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        return e.read(
            x,
            [
                v if r == 1 else e.irem(v, e.index(d))
                for v, d, r in zip(idx, shape, reps, strict=True)
            ],
        )

    return k.compute(_type(op), body)


@register(relay.PadOp)
def pad(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """constant: read inside, `pad_value` outside; reflect: mirror without the
    edge, period `2 * (n - 1)`; edge: clamp; wrap: modulo."""
    (x,) = ins
    shape = _shape(x)
    n = len(shape)
    pads = relay.ints_prop(op, "pad_width")
    mode = relay.str_prop(op, "pad_mode", "constant")
    value = relay.float_prop(op, "pad_value", 0.0)
    elem = _elem(x)

    def source(e: Expr, v: SSAValue, d: int) -> SSAValue:
        j = e.ishift(v, -pads[d])
        extent = shape[d]
        if mode == "edge":
            return e.clamp(j, 0, extent - 1)
        if mode == "wrap":
            return e.imod(j, extent)
        if mode == "reflect":
            if extent == 1:
                return e.index(0)
            period = 2 * (extent - 1)
            m = e.imod(j, period)
            return e.select(
                e.cmp("lt", m, e.index(extent)), m, e.isub(e.index(period), m)
            )
        return j

    moved = [pads[d] != 0 or pads[n + d] != 0 for d in range(n)]

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        i = [source(e, v, d) if moved[d] else v for d, v in enumerate(idx)]
        if mode != "constant":
            return e.read(x, i)
        return e.read_or(x, i, value if is_float(elem) else int(value), moved)

    return k.compute(_type(op), body)


@register(relay.TriluOp)
def trilu(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """Keep `x[..., i, j]` where `j - i >= k` (upper) or `j - i <= k` (lower)."""
    (x,) = ins
    diag = relay.int_prop(op, "k", 0)
    upper = relay.flag_prop(op, "upper")

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        off = e.isub(idx[-1], idx[-2])
        keep = e.cmp("ge" if upper else "le", off, e.index(diag))
        return e.select(keep, e.read(x, idx), e.const(0, _elem(x)))

    return k.compute(_type(op), body)


@dataclass(frozen=True)
class _ResizeAxis:
    """How output indices along one axis map to input coordinates (ONNX Resize's
    formulas, evaluated in f64 as its reference does)."""

    size: int  # input extent
    out: int  # output extent
    scale: float
    mode: str
    roi: tuple[float, float]

    @property
    def identity(self) -> bool:
        return (
            self.out == self.size
            and self.scale == 1.0
            and (self.mode != "tf_crop_and_resize" or self.roi == (0.0, 1.0))
        )

    def coordinate(self, e: Expr, y: SSAValue) -> SSAValue:
        """The input coordinate of output index `y`, as an f64."""
        yf = e.from_index(y, f64)

        def c(v: float) -> SSAValue:
            return e.const(v, f64)

        width = self.scale * self.size  # the unrounded output extent

        def scaled() -> SSAValue:  # (y + 0.5) / scale - 0.5
            return e.sub(e.div(e.add(yf, c(0.5)), c(self.scale)), c(0.5))

        if self.mode == "half_pixel":
            return scaled()
        if self.mode == "half_pixel_symmetric":
            offset = self.size / 2 * (1 - self.out / width)
            return e.sub(e.add(c(offset), e.div(e.add(yf, c(0.5)), c(self.scale))), c(0.5))
        if self.mode == "pytorch_half_pixel":
            return c(-0.5) if width == 1 else scaled()
        if self.mode == "asymmetric":
            return e.div(yf, c(self.scale))
        if self.mode == "align_corners":
            return c(0.0) if width == 1 else e.div(e.mul(yf, c(self.size - 1)), c(width - 1))
        lo, hi = self.roi  # tf_crop_and_resize
        if width == 1:
            x = c((hi - lo) * (self.size - 1) / 2)
        else:
            x = e.div(e.mul(e.mul(yf, c(hi - lo)), c(self.size - 1)), c(width - 1))
        return e.add(x, c(lo * (self.size - 1)))


def _nearest(e: Expr, x: SSAValue, rounding: str) -> SSAValue:
    """Round an input coordinate (f64) to an i64 index as ONNX's `nearest_mode`:
    ties go down with round_prefer_floor (`ceil(x - 1/2)`), up with
    round_prefer_ceil (`floor(x + 1/2)`)."""
    rounded = {
        "floor": lambda: e.floor(x),
        "ceil": lambda: e.math(mathd.CeilOp, x),
        "round_prefer_floor": lambda: e.math(mathd.CeilOp, e.sub(x, e.const(0.5, f64))),
        "round_prefer_ceil": lambda: e.floor(e.add(x, e.const(0.5, f64))),
    }[rounding]()
    return e.cast(rounded, i64)


def _resize_kernel(e: Expr, method: str, t: SSAValue, alpha: float) -> SSAValue:
    """The interpolation kernel at distance `t` (f64): linear's triangle, or the
    cubic convolution kernel with coefficient `alpha`."""

    def c(v: float) -> SSAValue:
        return e.const(v, f64)

    d = e.abs(t)
    if method == "linear":
        return e.max(e.sub(c(1), d), c(0))
    near = e.add(e.mul(e.mul(e.sub(e.mul(c(alpha + 2), d), c(alpha + 3)), d), d), c(1))
    far = e.sub(
        e.mul(e.add(e.mul(e.sub(e.mul(c(alpha), d), c(5 * alpha)), d), c(8 * alpha)), d),
        c(4 * alpha),
    )
    outer = e.select(e.cmp("lt", d, c(2)), far, c(0))
    return e.select(e.cmp("le", d, c(1)), near, outer)


@register(relay.ResizeOp)
def resize(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    """Nearest: read the rounded coordinate. Linear and cubic: a weighted sum over
    the 2 or 4 neighbours along every resized axis (indices clamped to the edge,
    weights in f64), with ONNX's `exclude_outside` renormalization; outside the
    roi of `tf_crop_and_resize`, the extrapolation value."""
    (x,) = ins
    shape = _shape(x)
    out = _type(op)
    size = out.get_shape()
    rank = len(shape)
    scales = relay.floats_prop(op, "scales") or tuple(
        o / i if i else 1.0 for o, i in zip(size, shape, strict=True)
    )
    roi = relay.floats_prop(op, "roi") or (0.0,) * rank + (1.0,) * rank
    mode = relay.str_prop(op, "coordinate_transformation_mode", "half_pixel")
    method = relay.str_prop(op, "method", "nearest_neighbor")
    rounding = relay.str_prop(op, "rounding_method", "round_prefer_floor")
    alpha = relay.float_prop(op, "cubic_alpha", -0.75)
    exclude = relay.flag_prop(op, "cubic_exclude")
    extrapolation = relay.float_prop(op, "extrapolation_value", 0.0)
    axes = [
        _ResizeAxis(shape[a], size[a], scales[a], mode, (roi[a], roi[rank + a]))
        for a in range(rank)
    ]
    elem = out.get_element_type()
    interpolate = method != "nearest_neighbor"
    antialias = relay.flag_prop(op, "antialias")
    support = 1 if method == "linear" else 2

    def taps(ax: _ResizeAxis) -> tuple[float, list[int]]:
        """The kernel's scale along an axis (below 1 when antialiasing a
        downscale) and the neighbour offsets from floor(x) it covers."""
        s = min(ax.scale, 1.0) if antialias else 1.0
        start = math.floor(-support / s) + 1
        return s, list(range(start, 2 - start))

    def body(e: Expr, idx: Sequence[SSAValue]) -> SSAValue:
        outside: list[SSAValue] = []
        # Per axis: (index, weight) pairs; a single pair for identity/nearest.
        choices: list[list[tuple[SSAValue, SSAValue | None]]] = []
        for ax, y in zip(axes, idx, strict=True):
            if ax.identity:
                choices.append([(y, None)])
                continue
            coord = ax.coordinate(e, y)
            if mode == "tf_crop_and_resize":
                outside.append(
                    e.or_(
                        e.cmp("lt", coord, e.const(0.0, f64)),
                        e.cmp("gt", coord, e.const(float(ax.size - 1), f64)),
                    )
                )
            if not interpolate:
                i = e.to_index(_nearest(e, coord, rounding))
                choices.append([(e.clamp(i, 0, ax.size - 1), None)])
                continue
            base = e.floor(coord)
            start = e.to_index(e.cast(base, i64))
            shrink, offsets = taps(ax)
            points, weights = [], []
            for t in offsets:
                p = e.ishift(start, t)
                dist = e.sub(e.add(base, e.const(float(t), f64)), coord)
                if shrink != 1.0:
                    dist = e.mul(dist, e.const(shrink, f64))
                w = _resize_kernel(e, method, dist, alpha)
                if exclude:
                    w = e.select(e.in_range(p, 0, ax.size), w, e.const(0.0, f64))
                points.append(p)
                weights.append(w)
            if exclude or antialias:
                total = weights[0]
                for w in weights[1:]:
                    total = e.add(total, w)
                weights = [e.div(w, total) for w in weights]
            choices.append(
                [(e.clamp(p, 0, ax.size - 1), w) for p, w in zip(points, weights, strict=True)]
            )
        if not interpolate:
            value = e.read(x, [c[0][0] for c in choices])
        else:
            acc: SSAValue | None = None
            for combo in itertools.product(*choices):
                v = e.cast(e.read(x, [p for p, _ in combo]), f64)
                for _, w in combo:
                    if w is not None:
                        v = e.mul(v, w)
                acc = v if acc is None else e.add(acc, v)
            assert acc is not None
            value = e.cast(acc, elem)
        if outside:
            fill = e.const(extrapolation if is_float(elem) else int(extrapolation), elem)
            value = e.select(e.or_all(outside), fill, value)
        return value

    return k.compute(out, body)


def flops(op: relay.RelayOp) -> int:
    """Multiply-adds counted as two flops; other ops one per output element."""
    out = _type(op)
    n = math.prod(out.get_shape())
    if isinstance(op, relay.DenseOp | relay.MatmulOp):
        a = op.operands[0].type
        assert isinstance(a, TensorType)
        kdim = a.get_shape()[0 if relay.flag_prop(op, "transpose_a") else -1]
        return 2 * n * kdim
    if isinstance(op, relay.ConvOp):
        w = op.operands[1].type
        assert isinstance(w, TensorType)
        return 2 * n * math.prod(w.get_shape()[1:])
    return n
