"""Elementwise ATen ops: arithmetic and comparisons (tensor and scalar
operands, with torch's type promotion), unary math and activations, where,
clamps, casts and the identities (clone, alias, detach)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, SSAValue

from lamina.dialects import relay
from lamina.frontends.common import cast, elem, scalar
from lamina.frontends.torch.context import NodeContext, elem_of
from lamina.frontends.torch.registry import converter


def promoted(ctx: NodeContext, *args: Any) -> Attribute:
    """The element type torch computes `args` (tensors and numbers) in."""
    import torch  # lazy: torch is optional (the torch extra)

    def dummy(a: Any) -> Any:
        val = getattr(a, "meta", {}).get("val")
        if val is None:
            return a
        return torch.empty((1,) * val.dim(), dtype=val.dtype) if val.dim() else torch.empty((), dtype=val.dtype)

    dummies = [dummy(a) for a in args]
    out = dummies[0]
    for d in dummies[1:]:
        out = torch.empty((), dtype=torch.result_type(out, d)) if isinstance(out, torch.Tensor) else d
    return elem_of(out.dtype if isinstance(out, torch.Tensor) else torch.tensor(out).dtype)


def operands(ctx: NodeContext, to: Attribute, *args: Any) -> list[SSAValue]:
    """Tensor or number arguments as SSA values of element type `to`."""
    return [cast(ctx, ctx.tensor(a, to), to) for a in args]


_ARITH: dict[str, type[relay.RelayOp]] = {
    "add": relay.AddOp,
    "sub": relay.SubtractOp,
    "rsub": relay.SubtractOp,
    "mul": relay.MultiplyOp,
    "div": relay.DivideOp,
    "pow": relay.PowerOp,
    "maximum": relay.MaximumOp,
    "minimum": relay.MinimumOp,
    "remainder": relay.FloorModOp,
    "fmod": relay.TruncModOp,
}


@converter(
    *(f"aten.{op}.{k}" for op in ("add", "sub", "mul", "div") for k in ("Tensor", "Scalar")),
    "aten.rsub.Tensor", "aten.rsub.Scalar", "aten.pow.Tensor_Scalar", "aten.pow.Tensor_Tensor",
    "aten.pow.Scalar", "aten.maximum.default", "aten.minimum.default",
    "aten.remainder.Tensor", "aten.remainder.Scalar", "aten.fmod.Tensor", "aten.fmod.Scalar",
)
def _arith(ctx: NodeContext) -> Sequence[SSAValue]:
    name = ctx.op.split(".")[1]
    a, b = ctx.arg(0), ctx.arg(1)
    if name == "rsub":
        a, b = b, a
    to = ctx.out_elem()
    if name == "pow" and isinstance(b, int | float) and not isinstance(b, bool):
        x = cast(ctx, ctx.tensor(a), to)
        if b == 2:
            return [ctx.emit(relay.MultiplyOp(x, x))]
        if b == 0.5:
            return [ctx.emit(relay.SqrtOp(x))]
        if b == 1:
            return [x]
    x, y = operands(ctx, to, a, b)
    alpha = ctx.node.kwargs.get("alpha", 1)
    if alpha != 1 and name in ("add", "sub", "rsub"):
        y = ctx.emit(relay.MultiplyOp(y, scalar(ctx, alpha, y)))
    return [ctx.emit(_ARITH[name](x, y))]


@converter("aten.div.Tensor_mode", "aten.div.Scalar_mode")
def _div_mode(ctx: NodeContext) -> Sequence[SSAValue]:
    to = ctx.out_elem()
    mode = ctx.node.kwargs.get("rounding_mode", ctx.arg(2))
    x, y = operands(ctx, to, ctx.arg(0), ctx.arg(1))
    if mode is None:
        return [ctx.emit(relay.DivideOp(x, y))]
    if not relay.is_float(to):
        if mode == "trunc":  # integer division truncates toward zero
            return [ctx.emit(relay.DivideOp(x, y))]
        r = ctx.emit(relay.FloorModOp(x, y))
        return [ctx.emit(relay.DivideOp(ctx.emit(relay.SubtractOp(x, r)), y))]
    q = ctx.emit(relay.DivideOp(x, y))
    rounded = relay.FloorOp if mode == "floor" else None
    if rounded is not None:
        return [ctx.emit(rounded(q))]
    # trunc: floor of |q| with q's sign
    sign = ctx.emit(relay.SignOp(q))
    return [ctx.emit(relay.MultiplyOp(sign, ctx.emit(relay.FloorOp(ctx.emit(relay.AbsOp(q))))))]


_COMPARE: dict[str, type[relay.RelayOp]] = {
    "eq": relay.EqualOp,
    "ne": relay.NotEqualOp,
    "lt": relay.LessOp,
    "le": relay.LessEqualOp,
    "gt": relay.GreaterOp,
    "ge": relay.GreaterEqualOp,
}
_LOGIC: dict[str, type[relay.RelayOp]] = {
    "logical_and": relay.LogicalAndOp,
    "logical_or": relay.LogicalOrOp,
    "logical_xor": relay.LogicalXorOp,
    "bitwise_and": relay.BitwiseAndOp,
    "bitwise_or": relay.BitwiseOrOp,
    "bitwise_xor": relay.BitwiseXorOp,
}
_BOOL_BITWISE = {"bitwise_and": "logical_and", "bitwise_or": "logical_or", "bitwise_xor": "logical_xor"}


@converter(*(f"aten.{op}.{k}" for op in _COMPARE for k in ("Tensor", "Scalar")))
def _compare(ctx: NodeContext) -> Sequence[SSAValue]:
    a, b = ctx.arg(0), ctx.arg(1)
    x, y = operands(ctx, promoted(ctx, a, b), a, b)
    return [ctx.emit(_COMPARE[ctx.op.split(".")[1]](x, y))]


@converter(
    *(f"aten.{op}.default" for op in ("logical_and", "logical_or", "logical_xor")),
    *(f"aten.{op}.{k}" for op in ("bitwise_and", "bitwise_or", "bitwise_xor") for k in ("Tensor", "Scalar")),
)
def _logic(ctx: NodeContext) -> Sequence[SSAValue]:
    name = ctx.op.split(".")[1]
    a, b = ctx.arg(0), ctx.arg(1)
    if name.startswith("logical"):
        bools = [_truth(ctx, ctx.tensor(v, elem_of("bool"))) for v in (a, b)]
        return [ctx.emit(_LOGIC[name](*bools))]
    to = ctx.out_elem()
    if to == elem_of("bool"):
        name = _BOOL_BITWISE[name]
    return [ctx.emit(_LOGIC[name](*operands(ctx, to, a, b)))]


def _truth(ctx: NodeContext, x: SSAValue) -> SSAValue:
    """`x != 0` as a bool tensor (a bool tensor as it is)."""
    if elem(x) == elem_of("bool"):
        return x
    return ctx.emit(relay.NotEqualOp(x, scalar(ctx, 0, x)))


_UNARY: dict[str, type[relay.RelayOp]] = {
    "relu": relay.ReluOp,
    "neg": relay.NegativeOp,
    "abs": relay.AbsOp,
    "sign": relay.SignOp,
    "exp": relay.ExpOp,
    "log": relay.LogOp,
    "sqrt": relay.SqrtOp,
    "rsqrt": relay.RsqrtOp,
    "reciprocal": relay.ReciprocalOp,
    "floor": relay.FloorOp,
    "ceil": relay.CeilOp,
    "round": relay.RoundOp,
    "sin": relay.SinOp,
    "cos": relay.CosOp,
    "tan": relay.TanOp,
    "tanh": relay.TanhOp,
    "erf": relay.ErfOp,
    "asin": relay.AsinOp,
    "acos": relay.AcosOp,
    "atan": relay.AtanOp,
    "sinh": relay.SinhOp,
    "cosh": relay.CoshOp,
    "sigmoid": relay.SigmoidOp,
    "hardswish": relay.HardSwishOp,
}


@converter(*(f"aten.{op}.default" for op in _UNARY))
def _unary(ctx: NodeContext) -> Sequence[SSAValue]:
    x = cast(ctx, ctx.input(0), ctx.out_elem())
    return [ctx.emit(_UNARY[ctx.op.split(".")[1]](x))]


@converter("aten.log1p.default", "aten.expm1.default")
def _log1p(ctx: NodeContext) -> Sequence[SSAValue]:
    x = cast(ctx, ctx.input(0), ctx.out_elem())
    one = scalar(ctx, 1, x)
    if ctx.op.startswith("aten.log1p"):
        return [ctx.emit(relay.LogOp(ctx.emit(relay.AddOp(x, one))))]
    return [ctx.emit(relay.SubtractOp(ctx.emit(relay.ExpOp(x)), one))]


@converter("aten.logical_not.default", "aten.bitwise_not.default")
def _not(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    if ctx.op.startswith("aten.logical") or elem(x) == elem_of("bool"):
        return [ctx.emit(relay.LogicalNotOp(_truth(ctx, x)))]
    return [ctx.emit(relay.BitwiseNotOp(x))]


@converter("aten.silu.default")
def _silu(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    return [ctx.emit(relay.MultiplyOp(x, ctx.emit(relay.SigmoidOp(x))))]


@converter("aten.gelu.default")
def _gelu(ctx: NodeContext) -> Sequence[SSAValue]:
    approximate = ctx.node.kwargs.get("approximate", ctx.arg(1) or "none")
    if approximate not in ("none", "tanh"):
        raise ctx.unsupported(f'approximate="{approximate}" is not supported')
    mode = StringAttr(approximate) if approximate != "none" else None
    return [ctx.emit(relay.GeluOp(ctx.input(0), approximate=mode))]


@converter("aten.hardtanh.default", "aten.clamp.default")
def _clamp(ctx: NodeContext) -> Sequence[SSAValue]:
    hardtanh = ctx.op.startswith("aten.hardtanh")
    lo = ctx.arg(1, "min_val" if hardtanh else "min", -1.0 if hardtanh else None)
    hi = ctx.arg(2, "max_val" if hardtanh else "max", 1.0 if hardtanh else None)
    x = cast(ctx, ctx.input(0), ctx.out_elem())
    f = relay.f64_attr
    return [ctx.emit(relay.ClipOp(
        x, a_min=None if lo is None else f(float(lo)), a_max=None if hi is None else f(float(hi))
    ))]


@converter("aten.clamp.Tensor")
def _clamp_tensor(ctx: NodeContext) -> Sequence[SSAValue]:
    to = ctx.out_elem()
    x = cast(ctx, ctx.input(0), to)
    lo, hi = ctx.arg(1, "min"), ctx.arg(2, "max")
    if lo is not None:
        x = ctx.emit(relay.MaximumOp(x, cast(ctx, ctx.tensor(lo, to), to)))
    if hi is not None:
        x = ctx.emit(relay.MinimumOp(x, cast(ctx, ctx.tensor(hi, to), to)))
    return [x]


@converter("aten.hardsigmoid.default")
def _hardsigmoid(ctx: NodeContext) -> Sequence[SSAValue]:
    alpha, beta = relay.f64_attr(1 / 6), relay.f64_attr(0.5)
    return [ctx.emit(relay.HardSigmoidOp(ctx.input(0), alpha=alpha, beta=beta))]


@converter("aten.leaky_relu.default")
def _leaky_relu(ctx: NodeContext) -> Sequence[SSAValue]:
    alpha = float(ctx.arg(1, "negative_slope", 0.01))
    return [ctx.emit(relay.LeakyReluOp(ctx.input(0), alpha=relay.f64_attr(alpha)))]


@converter("aten.elu.default")
def _elu(ctx: NodeContext) -> Sequence[SSAValue]:
    alpha, scale, input_scale = (float(ctx.arg(i, n, 1.0)) for i, n in ((1, "alpha"), (2, "scale"), (3, "input_scale")))
    if scale != 1.0 or input_scale != 1.0:
        raise ctx.unsupported("scale and input_scale other than 1 are not supported")
    return [ctx.emit(relay.EluOp(ctx.input(0), alpha=relay.f64_attr(alpha)))]


@converter("aten.softplus.default")
def _softplus(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    beta, threshold = float(ctx.arg(1, "beta", 1.0)), float(ctx.arg(2, "threshold", 20.0))
    bx = x if beta == 1 else ctx.emit(relay.MultiplyOp(x, scalar(ctx, beta, x)))
    y = ctx.emit(relay.SoftplusOp(bx))
    if beta != 1:
        y = ctx.emit(relay.DivideOp(y, scalar(ctx, beta, x)))
    if math.isfinite(threshold):  # linear above the threshold, as torch
        big = ctx.emit(relay.GreaterOp(bx, scalar(ctx, threshold, x)))
        y = ctx.emit(relay.WhereOp(big, x, y))
    return [y]


@converter("aten.where.self", "aten.where.ScalarSelf", "aten.where.ScalarOther", "aten.where.Scalar")
def _where(ctx: NodeContext) -> Sequence[SSAValue]:
    cond = _truth(ctx, ctx.input(0))
    x, y = operands(ctx, ctx.out_elem(), ctx.arg(1), ctx.arg(2))
    return [ctx.emit(relay.WhereOp(cond, x, y))]


@converter("aten._to_copy.default", "aten.to.dtype", "aten._to_dtype.default")
def _to_copy(ctx: NodeContext) -> Sequence[SSAValue]:
    return [cast(ctx, ctx.input(0), ctx.out_elem())]


@converter(
    "aten.clone.default", "aten.alias.default", "aten.detach.default",
    "aten.lift_fresh_copy.default", "aten.contiguous.default", "aten.dropout.default",
)
def _identity(ctx: NodeContext) -> Sequence[SSAValue]:
    return [ctx.input(0)]


@converter("aten.isnan.default")
def _isnan(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    return [ctx.emit(relay.NotEqualOp(x, x))]


