"""Elementwise computes: the binary ops (arithmetic with numpy's integer
semantics, comparisons, logic, shifts), `where`, and the unary ops (math
functions and activations), all with numpy broadcasting (`base.elementwise`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import IntegerType, f64
from xdsl.ir import Attribute, SSAValue

from lamina.dialects import relay
from lamina.lowering.lang.expr import Expr, is_float, is_unsigned
from lamina.lowering.topi.base import Kernel, _c, _type, elementwise, register_compute


# -------------------------------------------------------------------- binary
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


@register_compute(*_BINARY)
def binary(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    return elementwise(k, _type(op), ins, _BINARY[type(op)])


@register_compute(relay.WhereOp)
def where(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    return elementwise(k, _type(op), ins, Expr.select)


# --------------------------------------------------------------------- unary
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
        e.cmp("lt", x, _c(e, 0, x)), e.mul(x, _c(e, op.attrs.alpha, x)), x
    ),
    relay.EluOp: lambda e, x, op: e.select(
        e.cmp("lt", x, _c(e, 0, x)), _expm1_scaled(e, x, op.attrs.alpha), x
    ),
    relay.SeluOp: lambda e, x, op: e.mul(
        e.select(
            e.cmp("gt", x, _c(e, 0, x)),
            x,
            _expm1_scaled(e, x, op.attrs.alpha),
        ),
        _c(e, op.attrs.gamma, x),
    ),
    relay.HardSigmoidOp: lambda e, x, op: hard_sigmoid(
        e, x, op.attrs.alpha, op.attrs.beta
    ),
    relay.GeluOp: lambda e, x, op: gelu(e, x, op.attrs.approximate),
    relay.ClipOp: lambda e, x, op: clip(e, x, op.attrs.a_min, op.attrs.a_max),
    relay.CastOp: lambda e, x, op: e.cast(x, _type(op).get_element_type()),
}


@register_compute(*_UNARY)
def unary(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    fn = _UNARY[type(op)]
    return elementwise(k, _type(op), ins, lambda e, x: fn(e, x, op))


def bitcast(e: Expr, x: SSAValue, to: Attribute) -> SSAValue:
    """`x`'s bits as type `to` (of the same width): a bool, stored as a byte,
    is 0 or 1 and a byte as a bool `!= 0`; integers differing in signedness
    only, and floats and integers, reinterpret their bits."""
    src = x.type
    if isinstance(src, IntegerType) and isinstance(to, IntegerType):
        return e.cast(x, to)
    return e.emit(arith.BitcastOp(x, to))


@register_compute(relay.BitcastOp)
def bitcast_op(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    to = _type(op).get_element_type()
    return elementwise(k, _type(op), ins, lambda e, x: bitcast(e, x, to))
