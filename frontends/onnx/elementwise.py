"""Elementwise converters: binary and variadic arithmetic, comparisons and
logic, unary math and activations (those relay has, and those decomposed into
several relay ops), casts, Where, Identity, Dropout and the bitwise ops.

Before opset 7 a binary op's `broadcast=1` aligned B with A from `axis`; the
legacy broadcast pads B so numpy-style broadcasting gives the same result.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
from xdsl.dialects.builtin import AnyFloat, StringAttr, f64
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import (
    _axis,
    _cast,
    _dtype,
    _elem,
    _f64,
    _rank,
    _reshape,
    _scalar,
    _zeros_like,
)
from lamina.frontends.onnx.registry import converter


def _legacy_broadcast(ctx: NodeContext, a: SSAValue, b: SSAValue) -> SSAValue:
    """Before opset 7, `broadcast=1` aligned B with A from `axis` (default: the
    trailing axes); numpy broadcasting needs B padded with trailing 1s."""
    if ctx.opset >= 7 or not ctx.attr("broadcast", 0) or not ctx.has_attr("axis"):
        return b
    axis = _axis(ctx, int(ctx.attr("axis")), _rank(a))
    trailing = _rank(a) - axis - _rank(b)
    if trailing < 0:
        raise ctx.error(f"B {list(shape(b))} does not fit in A {list(shape(a))} at axis {axis}")
    return _reshape(ctx, b, [*shape(b), *([1] * trailing)])


# -------------------------------------------------------------- elementwise
_BINARY: dict[str, type[relay.RelayOp]] = {
    "Add": relay.AddOp,
    "Sub": relay.SubtractOp,
    "Mul": relay.MultiplyOp,
    "Div": relay.DivideOp,
    "Pow": relay.PowerOp,
    "And": relay.LogicalAndOp,
    "Or": relay.LogicalOrOp,
    "Xor": relay.LogicalXorOp,
    "Equal": relay.EqualOp,
    "Less": relay.LessOp,
    "LessOrEqual": relay.LessEqualOp,
    "Greater": relay.GreaterOp,
    "GreaterOrEqual": relay.GreaterEqualOp,
}


def _binary(ctx: NodeContext) -> Sequence[SSAValue]:
    a, b = ctx.input(0), ctx.input(1)
    b = _legacy_broadcast(ctx, a, b)
    if ctx.node.op_type == "Pow":
        return [_pow(ctx, a, b)]
    return [ctx.emit(_BINARY[ctx.node.op_type](a, b))]


def _pow(ctx: NodeContext, a: SSAValue, b: SSAValue) -> SSAValue:
    """ONNX's Pow: the result has the base's type, the exponent may have another.
    An integer base with a float exponent is computed in f64 and converted back
    (truncating, as onnxruntime does: `3 ** 1.5` is 5); otherwise the exponent
    takes the base's type."""
    if isinstance(_elem(b), AnyFloat) and not isinstance(_elem(a), AnyFloat):
        wide = ctx.emit(relay.PowerOp(_cast(ctx, a, f64), _cast(ctx, b, f64)))
        return _cast(ctx, wide, _elem(a))
    return ctx.emit(relay.PowerOp(a, _cast(ctx, b, _elem(a))))


for _name, _cls in _BINARY.items():
    converter(
        _name,
        emits=(_cls.name,),
        notes="integer division truncates toward zero" if _name == "Div" else "",
    )(_binary)


@converter("Mod", emits=("relay.floor_mod", "relay.trunc_mod"), notes="fmod=0 and 1")
def _mod(ctx: NodeContext) -> Sequence[SSAValue]:
    a, b = ctx.input(0), ctx.input(1)
    fmod = int(ctx.attr("fmod", 0))
    if fmod not in (0, 1):
        raise ctx.error(f"attribute fmod must be 0 or 1, got {fmod}")
    op = relay.TruncModOp if fmod else relay.FloorModOp
    return [ctx.emit(op(a, b))]


_VARIADIC: dict[str, type[relay.RelayOp]] = {
    "Sum": relay.AddOp,
    "Mean": relay.AddOp,
    "Max": relay.MaximumOp,
    "Min": relay.MinimumOp,
}


@converter("Sum", emits=("relay.add",))
@converter("Mean", emits=("relay.add", "relay.divide"))
@converter("Max", emits=("relay.maximum",))
@converter("Min", emits=("relay.minimum",))
def _variadic(ctx: NodeContext) -> Sequence[SSAValue]:
    values = [ctx.input(i) for i in range(len(ctx.node.input))]
    op = _VARIADIC[ctx.node.op_type]
    acc = values[0]
    for v in values[1:]:
        acc = ctx.emit(op(acc, v))
    if ctx.node.op_type == "Mean" and len(values) > 1:
        acc = ctx.emit(relay.DivideOp(acc, _scalar(ctx, len(values), acc)))
    return [acc]


_UNARY: dict[str, type[relay.RelayOp]] = {
    "Relu": relay.ReluOp,
    "Neg": relay.NegativeOp,
    "Abs": relay.AbsOp,
    "Sign": relay.SignOp,
    "Not": relay.LogicalNotOp,
    "Exp": relay.ExpOp,
    "Log": relay.LogOp,
    "Sqrt": relay.SqrtOp,
    "Reciprocal": relay.ReciprocalOp,
    "Floor": relay.FloorOp,
    "Ceil": relay.CeilOp,
    "Round": relay.RoundOp,
    "Sin": relay.SinOp,
    "Cos": relay.CosOp,
    "Tan": relay.TanOp,
    "Tanh": relay.TanhOp,
    "Erf": relay.ErfOp,
    "Asin": relay.AsinOp,
    "Acos": relay.AcosOp,
    "Atan": relay.AtanOp,
    "Sinh": relay.SinhOp,
    "Cosh": relay.CoshOp,
    "Asinh": relay.AsinhOp,
    "Acosh": relay.AcoshOp,
    "Atanh": relay.AtanhOp,
    "Sigmoid": relay.SigmoidOp,
    "Softplus": relay.SoftplusOp,
    "Softsign": relay.SoftsignOp,
    "HardSwish": relay.HardSwishOp,
}


def _unary(ctx: NodeContext) -> Sequence[SSAValue]:
    return [ctx.emit(_UNARY[ctx.node.op_type](ctx.input(0)))]


for _name, _cls in _UNARY.items():
    converter(
        _name,
        emits=(_cls.name,),
        notes="half to even" if _name == "Round" else "",
    )(_unary)


@converter("LeakyRelu", emits=("relay.leaky_relu",))
def _leaky_relu(ctx: NodeContext) -> Sequence[SSAValue]:
    alpha = float(ctx.attr("alpha", 0.01))
    return [ctx.emit(relay.LeakyReluOp(ctx.input(0), alpha=relay.f64_attr(alpha)))]


@converter("Elu", emits=("relay.elu",))
def _elu(ctx: NodeContext) -> Sequence[SSAValue]:
    alpha = float(ctx.attr("alpha", 1.0))
    return [ctx.emit(relay.EluOp(ctx.input(0), alpha=relay.f64_attr(alpha)))]


@converter("Selu", emits=("relay.selu",))
def _selu(ctx: NodeContext) -> Sequence[SSAValue]:
    alpha = _f64(ctx.attr("alpha"))
    gamma = _f64(ctx.attr("gamma"))
    return [ctx.emit(relay.SeluOp(ctx.input(0), alpha=alpha, gamma=gamma))]


@converter("HardSigmoid", emits=("relay.hard_sigmoid",))
def _hard_sigmoid(ctx: NodeContext) -> Sequence[SSAValue]:
    alpha = relay.f64_attr(float(ctx.attr("alpha", 0.2)))
    beta = relay.f64_attr(float(ctx.attr("beta", 0.5)))
    return [ctx.emit(relay.HardSigmoidOp(ctx.input(0), alpha=alpha, beta=beta))]


@converter("Gelu", emits=("relay.gelu",), notes='approximate "none" and "tanh"')
def _gelu(ctx: NodeContext) -> Sequence[SSAValue]:
    approximate = str(ctx.attr("approximate", "none"))
    if approximate not in ("none", "tanh"):
        raise ctx.unsupported(f'approximate="{approximate}" is not supported')
    mode = StringAttr(approximate) if approximate != "none" else None
    return [ctx.emit(relay.GeluOp(ctx.input(0), approximate=mode))]


@converter("PRelu", emits=("relay.prelu",))
def _prelu(ctx: NodeContext) -> Sequence[SSAValue]:
    x, slope = ctx.input(0), ctx.input(1)
    s, rank = shape(slope), _rank(x)
    if rank > 2 and len(s) == 1 and s[0] == shape(x)[1] and s[0] != shape(x)[-1]:
        # A per-channel slope (as before opset 7, and as exporters still write).
        slope = _reshape(ctx, slope, [s[0], *([1] * (rank - 2))])
    return [ctx.emit(relay.PReluOp(x, slope))]


@converter("Clip", emits=("relay.clip", "relay.maximum", "relay.minimum"))
def _clip(ctx: NodeContext) -> Sequence[SSAValue]:
    """Bounds are attributes before opset 11, optional inputs since; constant bounds
    become `relay.clip`, tensor bounds `maximum`/`minimum`."""
    x = ctx.input(0)
    if ctx.opset < 11:
        lo, hi = ctx.attr("min"), ctx.attr("max")
        return [ctx.emit(relay.ClipOp(x, a_min=_f64(lo), a_max=_f64(hi)))]
    bounds: list[float | None] = [None, None]
    for slot, (i, op) in enumerate(((1, relay.MaximumOp), (2, relay.MinimumOp))):
        v = ctx.optional_input(i)
        if v is None:
            continue
        if ctx.is_const(i):
            bounds[slot] = float(np.asarray(ctx.const_value(i)).reshape(-1)[0])
        else:
            x = ctx.emit(op(x, v))
    if bounds != [None, None]:
        x = ctx.emit(relay.ClipOp(x, a_min=_f64(bounds[0]), a_max=_f64(bounds[1])))
    return [x]


@converter("Cast", emits=("relay.cast",))
def _cast_op(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    to_attr = ctx.attr("to")
    if isinstance(to_attr, str):  # Cast-1 names the type
        to_attr = onnx.TensorProto.DataType.Value(to_attr.upper())
    to = _dtype(ctx, int(to_attr))
    if _elem(x) == to:
        return [x]
    return [ctx.emit(relay.CastOp(x, dtype=to))]


@converter("CastLike", emits=("relay.cast",))
def _cast_like(ctx: NodeContext) -> Sequence[SSAValue]:
    return [_cast(ctx, ctx.input(0), _elem(ctx.input(1)))]


@converter("BitCast", emits=("relay.bitcast",), notes="types of one bit width")
def _bitcast(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    if not ctx.has_attr("to"):
        raise ctx.error("attribute 'to' is required")
    to = _dtype(ctx, int(ctx.attr("to")))
    src = _elem(x)
    if relay.storage_bits(src) != relay.storage_bits(to):
        name = onnx.TensorProto.DataType.Name(int(ctx.attr("to")))
        raise ctx.error(
            f"cannot reinterpret {numpy_dtype(src).name} "
            f"({relay.storage_bits(src)} bits) as {name} ({relay.storage_bits(to)} "
            "bits): BitCast needs types of one bit width"
        )
    if src == to:
        return [x]
    return [ctx.emit(relay.BitcastOp(x, dtype=to))]


@converter("Where", emits=("relay.where",))
def _where(ctx: NodeContext) -> Sequence[SSAValue]:
    return [ctx.emit(relay.WhereOp(ctx.input(0), ctx.input(1), ctx.input(2)))]


@converter("Identity", emits=())
def _identity(ctx: NodeContext) -> Sequence[SSAValue]:
    return [ctx.input(0)]


@converter("Dropout", emits=(), notes="inference: the identity (and an all-true mask)")
def _dropout(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    if ctx.optional_input(2) is not None:
        if not ctx.is_const(2):
            raise ctx.unsupported(
                "training_mode is a run-time input; lamina compiles for inference: "
                "make it a constant false (or drop it)"
            )
        if bool(np.asarray(ctx.const_value(2)).reshape(-1)[0]):
            raise ctx.unsupported("training_mode=True is not supported (inference only)")
    outs = [x]
    if ctx.output_used(1):
        outs.append(ctx.constant(np.ones(shape(x), dtype=np.bool_), "mask"))
    return outs


# ------------------------------------------------- decomposed activations

@converter("IsNaN", emits=("relay.not_equal",), notes="x != x")
def _isnan(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    return [ctx.emit(relay.NotEqualOp(x, x))]


@converter("IsInf", emits=("relay.equal", "relay.abs"), notes="detect_negative, detect_positive")
def _isinf(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    neg, pos = int(ctx.attr("detect_negative", 1)), int(ctx.attr("detect_positive", 1))
    if neg and pos:
        return [ctx.emit(relay.EqualOp(ctx.emit(relay.AbsOp(x)), _scalar(ctx, np.inf, x)))]
    if pos or neg:
        return [ctx.emit(relay.EqualOp(x, _scalar(ctx, np.inf if pos else -np.inf, x)))]
    return [ctx.constant(np.zeros(shape(x), dtype=np.bool_), "isinf")]


@converter("Celu", emits=("relay.maximum", "relay.minimum", "relay.exp"))
def _celu(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    alpha = float(ctx.attr("alpha", 1.0))
    e = ctx.emit(relay.ExpOp(ctx.emit(relay.DivideOp(x, _scalar(ctx, alpha, x)))))
    neg = ctx.emit(relay.SubtractOp(e, _scalar(ctx, 1, x)))
    neg = ctx.emit(relay.MultiplyOp(_scalar(ctx, alpha, x), neg))
    neg = ctx.emit(relay.MinimumOp(_zeros_like(ctx, x), neg))
    return [ctx.emit(relay.AddOp(ctx.emit(relay.MaximumOp(_zeros_like(ctx, x), x)), neg))]


@converter("Mish", emits=("relay.softplus", "relay.tanh", "relay.multiply"))
def _mish(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    t = ctx.emit(relay.TanhOp(ctx.emit(relay.SoftplusOp(x))))
    return [ctx.emit(relay.MultiplyOp(x, t))]


def _swish_of(ctx: NodeContext, x: SSAValue, alpha: float) -> SSAValue:
    """`x * sigmoid(alpha * x)`."""
    ax = x if alpha == 1.0 else ctx.emit(relay.MultiplyOp(_scalar(ctx, alpha, x), x))
    return ctx.emit(relay.MultiplyOp(x, ctx.emit(relay.SigmoidOp(ax))))


@converter("Swish", emits=("relay.sigmoid", "relay.multiply"))
def _swish(ctx: NodeContext) -> Sequence[SSAValue]:
    return [_swish_of(ctx, ctx.input(0), float(ctx.attr("alpha", 1.0)))]


@converter(
    "SwiGLU", emits=("relay.sigmoid", "relay.multiply"), notes="Swish(A) * B, A and B of one type"
)
def _swiglu(ctx: NodeContext) -> Sequence[SSAValue]:
    """The gated linear unit of Llama-style MLPs: the gate's Swish times the value,
    elementwise ops that fusion makes one kernel."""
    a, b = ctx.input(0), ctx.input(1)
    sa, sb = shape(a), shape(b)
    static_differ = any(
        x != y for x, y in zip(sa, sb, strict=False) if isinstance(x, int) and isinstance(y, int)
    )
    if _elem(a) != _elem(b) or len(sa) != len(sb) or static_differ:
        raise ctx.error(
            f"A ({a.type}) and B ({b.type}) must have one shape and element type: "
            "SwiGLU does not broadcast (split or reshape them upstream)"
        )
    return [ctx.emit(relay.MultiplyOp(_swish_of(ctx, a, float(ctx.attr("alpha", 1.0))), b))]


@converter("ThresholdedRelu", emits=("relay.greater", "relay.where"))
def _thresholded_relu(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    alpha = float(ctx.attr("alpha", 1.0))
    cond = ctx.emit(relay.GreaterOp(x, _scalar(ctx, alpha, x)))
    return [ctx.emit(relay.WhereOp(cond, x, _zeros_like(ctx, x)))]


@converter("Shrink", emits=("relay.less", "relay.greater", "relay.where"))
def _shrink(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    lambd, bias = float(ctx.attr("lambd", 0.5)), float(ctx.attr("bias", 0.0))
    # For integer x a fractional lambd truncates toward zero, which keeps the
    # comparisons exact.
    lo = ctx.emit(relay.LessOp(x, _scalar(ctx, -lambd, x)))
    hi = ctx.emit(relay.GreaterOp(x, _scalar(ctx, lambd, x)))
    b = _scalar(ctx, bias, x)
    inner = ctx.emit(relay.WhereOp(hi, ctx.emit(relay.SubtractOp(x, b)), _zeros_like(ctx, x)))
    return [ctx.emit(relay.WhereOp(lo, ctx.emit(relay.AddOp(x, b)), inner))]


# ------------------------------------------------------------------ bitwise
_BITWISE: dict[str, type[relay.RelayOp]] = {
    "BitwiseAnd": relay.BitwiseAndOp,
    "BitwiseOr": relay.BitwiseOrOp,
    "BitwiseXor": relay.BitwiseXorOp,
}


@converter("BitwiseAnd", emits=("relay.bitwise_and",))
@converter("BitwiseOr", emits=("relay.bitwise_or",))
@converter("BitwiseXor", emits=("relay.bitwise_xor",))
def _bitwise(ctx: NodeContext) -> Sequence[SSAValue]:
    return [ctx.emit(_BITWISE[ctx.node.op_type](ctx.input(0), ctx.input(1)))]


@converter("BitwiseNot", emits=("relay.bitwise_not",))
def _bitwise_not(ctx: NodeContext) -> Sequence[SSAValue]:
    return [ctx.emit(relay.BitwiseNotOp(ctx.input(0)))]


@converter("BitShift", emits=("relay.left_shift", "relay.right_shift"))
def _bit_shift(ctx: NodeContext) -> Sequence[SSAValue]:
    direction = str(ctx.attr("direction", ""))
    if direction not in ("LEFT", "RIGHT"):
        raise ctx.error(f'direction must be "LEFT" or "RIGHT", got "{direction}"')
    op = relay.LeftShiftOp if direction == "LEFT" else relay.RightShiftOp
    return [ctx.emit(op(ctx.input(0), ctx.input(1)))]
