"""ONNX converters: one function per ONNX op (or family), registered with
`@converter`. Each reads its node through a `NodeContext` and emits relay ops,
handling the differences between opset versions (attributes that became inputs,
changed defaults, new attributes).

Inputs that only describe shapes (a Reshape's `shape`, a Slice's `starts`, ...)
must be constants; `NodeContext.const_value` says so, naming the input, when they
are not. Nodes whose inputs are all constants never get here: the importer folds
them (see `lamina.frontends.onnx`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerType,
    Signedness,
    StringAttr,
    TensorType,
    UnitAttr,
    f64,
)
from xdsl.ir import Attribute, SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import element_type, numpy_dtype
from lamina.errors import LaminaError
from lamina.frontends.onnx import NodeContext, converter, shape


# ----------------------------------------------------------------- helpers
def _unit(flag: Any) -> Attribute | None:
    return UnitAttr() if flag else None


def _f64(value: float | None) -> Attribute | None:
    return None if value is None else relay.f64_attr(value)


def _elem(v: SSAValue) -> Attribute:
    assert isinstance(v.type, TensorType)
    return v.type.get_element_type()


def _rank(v: SSAValue) -> int:
    return len(shape(v))


def _ints(values: Any) -> list[int]:
    return [int(v) for v in np.asarray(values).reshape(-1)]


def _dtype(ctx: NodeContext, onnx_type: int) -> Attribute:
    """The relay element type of an ONNX TensorProto data type."""
    try:
        return element_type(onnx.helper.tensor_dtype_to_np_dtype(onnx_type))
    except (LaminaError, KeyError, TypeError, ValueError):
        name = onnx.TensorProto.DataType.Name(onnx_type)
        raise ctx.unsupported(f"element type {name} is not supported") from None


def _reshape(ctx: NodeContext, x: SSAValue, new: Sequence[int]) -> SSAValue:
    if tuple(new) == shape(x):
        return x
    return ctx.emit(relay.ReshapeOp(x, shape=relay.i64_array(new)))


def _cast(ctx: NodeContext, x: SSAValue, elem: Attribute) -> SSAValue:
    if _elem(x) == elem:
        return x
    return ctx.emit(relay.CastOp(x, dtype=elem))


def _axis(ctx: NodeContext, axis: int, rank: int) -> int:
    return relay.normalize_axis(ctx.node.op_type, axis, rank)


def _scalar(ctx: NodeContext, value: float, like: SSAValue) -> SSAValue:
    """A rank-0 constant of `like`'s element type."""
    return ctx.constant(np.array(value, dtype=numpy_dtype(_elem(like))))


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
    if ctx.node.op_type == "Pow":  # the exponent may have another type
        b = _cast(ctx, b, _elem(a))
    return [ctx.emit(_BINARY[ctx.node.op_type](a, b))]


for _name, _cls in _BINARY.items():
    converter(
        _name,
        emits=(_cls.name,),
        notes="integer division truncates toward zero" if _name == "Div" else "",
    )(_binary)


@converter("Mod", emits=("relay.floor_mod", "relay.trunc_mod"), notes="fmod=0 and 1")
def _mod(ctx: NodeContext) -> Sequence[SSAValue]:
    a, b = ctx.input(0), ctx.input(1)
    op = relay.TruncModOp if ctx.attr("fmod", 0) else relay.FloorModOp
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


@converter("Where", emits=("relay.where",))
def _where(ctx: NodeContext) -> Sequence[SSAValue]:
    return [ctx.emit(relay.WhereOp(ctx.input(0), ctx.input(1), ctx.input(2)))]


@converter("Identity", emits=())
def _identity(ctx: NodeContext) -> Sequence[SSAValue]:
    return [ctx.input(0)]


@converter("Dropout", emits=(), notes="inference: the identity (and an all-true mask)")
def _dropout(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    if ctx.is_const(2) and bool(np.asarray(ctx.const_value(2)).reshape(-1)[0]):
        raise ctx.unsupported("training_mode=True is not supported (inference only)")
    outs = [x]
    if ctx.output_used(1):
        outs.append(ctx.constant(np.ones(shape(x), dtype=np.bool_), "mask"))
    return outs


# ----------------------------------------------------------------- products
@converter("MatMul", emits=("relay.matmul",))
def _matmul(ctx: NodeContext) -> Sequence[SSAValue]:
    return [ctx.emit(relay.MatmulOp(ctx.input(0), ctx.input(1)))]


@converter("Gemm", emits=("relay.dense",))
def _gemm(ctx: NodeContext) -> Sequence[SSAValue]:
    alpha, beta = float(ctx.attr("alpha", 1.0)), float(ctx.attr("beta", 1.0))
    return [
        ctx.emit(
            relay.DenseOp(
                ctx.input(0),
                ctx.input(1),
                ctx.optional_input(2),
                transpose_a=_unit(ctx.attr("transA", 0)),
                transpose_b=_unit(ctx.attr("transB", 0)),
                alpha=relay.f64_attr(alpha) if alpha != 1.0 else None,
                beta=relay.f64_attr(beta) if beta != 1.0 else None,
            )
        )
    ]


# --------------------------------------------------------------- softmax
@converter("Softmax", emits=("relay.softmax",), notes="pre-13 (2-D coercion) and 13+ semantics")
@converter(
    "LogSoftmax", emits=("relay.log_softmax",), notes="pre-13 (2-D coercion) and 13+ semantics"
)
def _softmax(ctx: NodeContext) -> Sequence[SSAValue]:
    op = relay.SoftmaxOp if ctx.node.op_type == "Softmax" else relay.LogSoftmaxOp
    x = ctx.input(0)
    rank = _rank(x)
    if ctx.opset >= 13:
        axis = _axis(ctx, int(ctx.attr("axis", -1)), rank)
        return [ctx.emit(op(x, axis=relay.i64_attr(axis)))]
    # Before opset 13: coerce to 2-D at `axis`, softmax over the flattened tail.
    axis = _axis(ctx, int(ctx.attr("axis", 1)), rank) if rank else 0
    s = shape(x)
    if axis == rank - 1:
        return [ctx.emit(op(x, axis=relay.i64_attr(axis)))]
    rows, cols = math.prod(s[:axis]), math.prod(s[axis:])
    flat = _reshape(ctx, x, [rows, cols])
    sm = ctx.emit(op(flat, axis=relay.i64_attr(1)))
    return [_reshape(ctx, sm, s)]


# ---------------------------------------------------------- convolution
def _spatial_attrs(
    ctx: NodeContext, n: int, kernel: Sequence[int]
) -> tuple[list[int], list[int], list[int]]:
    """strides, dilations and explicit pads ([begin..., end...]) of a conv or pool,
    with ONNX's defaults; auto_pad is resolved by the caller."""
    strides = list(ctx.attr("strides", [1] * n))
    dilations = list(ctx.attr("dilations", [1] * n))
    pads = list(ctx.attr("pads", [0] * (2 * n)))
    if len(strides) != n or len(dilations) != n or len(pads) != 2 * n or len(kernel) != n:
        raise ctx.error(
            f"kernel_shape {list(kernel)}, strides {strides}, dilations {dilations} and "
            f"pads {pads} must have {n}, {n}, {n} and {2 * n} values"
        )
    return strides, dilations, pads


def _auto_pads(
    ctx: NodeContext,
    sizes: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: list[int],
) -> list[int]:
    """Explicit pads for `auto_pad` (SAME_UPPER puts the odd one at the end)."""
    mode = str(ctx.attr("auto_pad", "NOTSET"))
    n = len(sizes)
    if mode in ("NOTSET", ""):
        return pads
    if mode == "VALID":
        return [0] * (2 * n)
    if mode not in ("SAME_UPPER", "SAME_LOWER"):
        raise ctx.unsupported(f'auto_pad="{mode}" is not supported')
    begin, end = [], []
    for size, k, s, d in zip(sizes, kernel, strides, dilations, strict=True):
        out = -(-size // s)
        total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
        small = total // 2
        begin.append(small if mode == "SAME_UPPER" else total - small)
        end.append(total - begin[-1])
    return begin + end


_CONV = {1: relay.Conv1DOp, 2: relay.Conv2DOp, 3: relay.Conv3DOp}
_CONV_T = {1: relay.Conv1DTransposeOp, 2: relay.Conv2DTransposeOp, 3: relay.Conv3DTransposeOp}


def _add_bias(ctx: NodeContext, y: SSAValue) -> SSAValue:
    bias = ctx.optional_input(2)
    return y if bias is None else ctx.emit(relay.BiasAddOp(y, bias))


@converter(
    "Conv",
    emits=("relay.conv1d", "relay.conv2d", "relay.conv3d", "relay.bias_add"),
    notes="1-D to 3-D; groups (depthwise), dilations, pads, auto_pad, strides",
)
def _conv(ctx: NodeContext) -> Sequence[SSAValue]:
    x, w = ctx.input(0), ctx.input(1)
    n = _rank(x) - 2
    if n not in _CONV:
        raise ctx.unsupported(f"{n}-D convolution is not supported (1-D to 3-D are)")
    kernel = list(ctx.attr("kernel_shape", shape(w)[2:]))
    if kernel != list(shape(w)[2:]):
        raise ctx.error(f"kernel_shape {kernel} does not match the weight {list(shape(w))}")
    strides, dilations, pads = _spatial_attrs(ctx, n, kernel)
    pads = _auto_pads(ctx, shape(x)[2:], kernel, strides, dilations, pads)
    y = ctx.emit(
        _CONV[n](
            x,
            w,
            strides=relay.i64_array(strides),
            padding=relay.i64_array(pads),
            dilation=relay.i64_array(dilations),
            groups=relay.i64_attr(int(ctx.attr("group", 1))),
        )
    )
    return [_add_bias(ctx, y)]


@converter(
    "ConvTranspose",
    emits=("relay.conv1d_transpose", "relay.conv2d_transpose", "relay.conv3d_transpose", "relay.bias_add"),
    notes="1-D to 3-D; groups, dilations, pads, output_padding, output_shape, auto_pad",
)
def _conv_transpose(ctx: NodeContext) -> Sequence[SSAValue]:
    x, w = ctx.input(0), ctx.input(1)
    n = _rank(x) - 2
    if n not in _CONV_T:
        raise ctx.unsupported(f"{n}-D transposed convolution is not supported")
    kernel = list(ctx.attr("kernel_shape", shape(w)[2:]))
    strides, dilations, pads = _spatial_attrs(ctx, n, kernel)
    extra = list(ctx.attr("output_padding", [0] * n))
    out_shape = ctx.attr("output_shape")
    mode = str(ctx.attr("auto_pad", "NOTSET"))
    if out_shape is not None or mode in ("SAME_UPPER", "SAME_LOWER"):
        sizes = shape(x)[2:]
        if out_shape is None:
            out_shape = [size * s for size, s in zip(sizes, strides, strict=True)]
        out_shape = list(out_shape)[-n:]
        begin, end = [], []
        for i in range(n):
            total = (
                strides[i] * (sizes[i] - 1)
                + extra[i]
                + (kernel[i] - 1) * dilations[i]
                + 1
                - out_shape[i]
            )
            small = total // 2
            begin.append(small if mode == "SAME_UPPER" else total - small)
            end.append(total - begin[-1])
        pads = begin + end  # negative where output_shape asks for a larger output
    elif mode == "VALID":
        pads = [0] * (2 * n)
    y = ctx.emit(
        _CONV_T[n](
            x,
            w,
            strides=relay.i64_array(strides),
            padding=relay.i64_array(pads),
            dilation=relay.i64_array(dilations),
            output_padding=relay.i64_array(extra),
            groups=relay.i64_attr(int(ctx.attr("group", 1))),
        )
    )
    return [_add_bias(ctx, y)]


# ----------------------------------------------------------------- pooling
_MAX_POOL = {1: relay.MaxPool1DOp, 2: relay.MaxPool2DOp, 3: relay.MaxPool3DOp}
_AVG_POOL = {1: relay.AvgPool1DOp, 2: relay.AvgPool2DOp, 3: relay.AvgPool3DOp}


@converter(
    "MaxPool",
    emits=(
        "relay.max_pool1d",
        "relay.max_pool2d",
        "relay.max_pool3d",
        "relay.max_pool_with_argmax",
    ),
    notes="1-D to 3-D; ceil_mode, dilations, pads, auto_pad, Indices (storage_order)",
)
@converter(
    "AveragePool",
    emits=("relay.avg_pool1d", "relay.avg_pool2d", "relay.avg_pool3d"),
    notes="1-D to 3-D; ceil_mode, count_include_pad, dilations, pads, auto_pad",
)
def _pool(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    n = _rank(x) - 2
    table = _MAX_POOL if ctx.node.op_type == "MaxPool" else _AVG_POOL
    if n not in table:
        raise ctx.unsupported(f"{n}-D pooling is not supported (1-D to 3-D are)")
    kernel = list(ctx.attr("kernel_shape", []))
    strides, dilations, pads = _spatial_attrs(ctx, n, kernel)
    pads = _auto_pads(ctx, shape(x)[2:], kernel, strides, dilations, pads)
    ceil = bool(ctx.attr("ceil_mode", 0))
    props: dict[str, Attribute | None] = {
        "pool_size": relay.i64_array(kernel),
        "strides": relay.i64_array(strides),
        "padding": relay.i64_array(pads),
        "dilation": relay.i64_array(dilations),
        "ceil_mode": _unit(ceil),
    }
    if ctx.node.op_type == "AveragePool":
        props["count_include_pad"] = _unit(ctx.attr("count_include_pad", 0))
    elif ctx.output_used(1):  # MaxPool's Indices
        props["column_major"] = _unit(ctx.attr("storage_order", 0))
        return ctx.emit_all(relay.MaxPoolWithArgmaxOp(x, **props))
    return [ctx.emit(table[n](x, **props))]


@converter("GlobalAveragePool", emits=("relay.mean",))
@converter("GlobalMaxPool", emits=("relay.max",))
def _global_pool(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    op = relay.MeanOp if ctx.node.op_type == "GlobalAveragePool" else relay.MaxOp
    axes = relay.i64_array(range(2, _rank(x)))
    return [ctx.emit(op(x, axes=axes, keepdims=UnitAttr()))]


# ----------------------------------------------------------- normalization
@converter(
    "BatchNormalization",
    emits=("relay.batch_norm", "relay.mean"),
    notes="inference; training mode via batch statistics",
)
def _batch_norm(ctx: NodeContext) -> Sequence[SSAValue]:
    """Inference normalizes with the given statistics. Training (training_mode=1
    since opset 14, more than one output before) normalizes with the batch's mean
    and biased variance and also returns the updated running statistics (and,
    before opset 14, the batch's own)."""
    if ctx.opset < 9 and not ctx.attr("spatial", 1):
        raise ctx.unsupported("spatial=0 is not supported")
    x, scale, bias, mean, var = (ctx.input(i) for i in range(5))
    eps = relay.f64_attr(float(ctx.attr("epsilon", 1e-5)))
    training = (
        bool(ctx.attr("training_mode", 0))
        if ctx.opset >= 14
        else any(ctx.output_used(i) for i in range(1, ctx.num_outputs))
    )
    if not training:
        return [ctx.emit(relay.BatchNormOp(x, scale, bias, mean, var, epsilon=eps))]
    axes = relay.i64_array([a for a in range(_rank(x)) if a != 1])
    channels = [shape(x)[1]]
    batch_mean = ctx.emit(relay.MeanOp(x, axes=axes, keepdims=UnitAttr()))
    centered = ctx.emit(relay.SubtractOp(x, batch_mean))
    squares = ctx.emit(relay.MultiplyOp(centered, centered))
    batch_var = _reshape(ctx, ctx.emit(relay.MeanOp(squares, axes=axes)), channels)
    batch_mean = _reshape(ctx, batch_mean, channels)
    y = ctx.emit(relay.BatchNormOp(x, scale, bias, batch_mean, batch_var, epsilon=eps))
    momentum = float(ctx.attr("momentum", 0.9))

    def running(stat: SSAValue, batch: SSAValue) -> SSAValue:
        old = ctx.emit(relay.MultiplyOp(stat, _scalar(ctx, momentum, stat)))
        new = ctx.emit(relay.MultiplyOp(batch, _scalar(ctx, 1 - momentum, batch)))
        return ctx.emit(relay.AddOp(old, new))

    return [y, running(mean, batch_mean), running(var, batch_var), batch_mean, batch_var]


@converter("InstanceNormalization", emits=("relay.instance_norm",))
def _instance_norm(ctx: NodeContext) -> Sequence[SSAValue]:
    eps = relay.f64_attr(float(ctx.attr("epsilon", 1e-5)))
    ins = [ctx.input(i) for i in range(3)]
    return [ctx.emit(relay.InstanceNormOp(*ins, epsilon=eps))]


@converter(
    "LayerNormalization",
    emits=("relay.layer_norm", "relay.mean", "relay.rsqrt"),
    notes="Mean and InvStdDev outputs via reductions",
)
def _layer_norm(ctx: NodeContext) -> Sequence[SSAValue]:
    x, scale, bias = ctx.input(0), ctx.input(1), ctx.optional_input(2)
    rank = _rank(x)
    axis = _axis(ctx, int(ctx.attr("axis", -1)), rank)
    eps = float(ctx.attr("epsilon", 1e-5))
    if not (ctx.output_used(1) or ctx.output_used(2)):
        op = relay.LayerNormOp(
            x, scale, bias, axis=relay.i64_attr(axis), epsilon=relay.f64_attr(eps)
        )
        return [ctx.emit(op)]
    # Mean and InvStdDev are asked for: compute the statistics as graph ops.
    axes = relay.i64_array(range(axis, rank))
    mean = ctx.emit(relay.MeanOp(x, axes=axes, keepdims=UnitAttr()))
    centered = ctx.emit(relay.SubtractOp(x, mean))
    var = ctx.emit(
        relay.MeanOp(ctx.emit(relay.MultiplyOp(centered, centered)), axes=axes, keepdims=UnitAttr())
    )
    inv = ctx.emit(relay.RsqrtOp(ctx.emit(relay.AddOp(var, _scalar(ctx, eps, var)))))
    y = ctx.emit(relay.MultiplyOp(ctx.emit(relay.MultiplyOp(centered, inv)), scale))
    if bias is not None:
        y = ctx.emit(relay.AddOp(y, bias))
    return [y, mean, inv]


@converter("LRN", emits=("relay.lrn",))
def _lrn(ctx: NodeContext) -> Sequence[SSAValue]:
    size, alpha = int(ctx.attr("size")), float(ctx.attr("alpha", 1e-4))
    channels = shape(ctx.input(0))[1] if len(shape(ctx.input(0))) > 1 else 1
    if size > 2 * channels - 1 > 0:
        # Every window already covers all channels: the same sums with a window of
        # 2C-1 (the kernel loops over the window; size can be any int64).
        alpha *= (2 * channels - 1) / size
        size = 2 * channels - 1
    return [
        ctx.emit(
            relay.LRNOp(
                ctx.input(0),
                size=relay.i64_attr(size),
                alpha=relay.f64_attr(alpha),
                beta=relay.f64_attr(float(ctx.attr("beta", 0.75))),
                bias=relay.f64_attr(float(ctx.attr("bias", 1.0))),
            )
        )
    ]


# ------------------------------------------------------------- reductions
_REDUCE: dict[str, type[relay.ReduceOp]] = {
    "ReduceSum": relay.SumOp,
    "ReduceMean": relay.MeanOp,
    "ReduceMax": relay.MaxOp,
    "ReduceMin": relay.MinOp,
    "ReduceProd": relay.ProdOp,
    "ReduceLogSumExp": relay.LogSumExpOp,
    "ReduceL1": relay.SumOp,
    "ReduceL2": relay.SumOp,
    "ReduceSumSquare": relay.SumOp,
    "ReduceLogSum": relay.SumOp,
}
_REDUCE_EMITS = {
    "ReduceL1": ("relay.abs", "relay.sum"),
    "ReduceL2": ("relay.multiply", "relay.sum", "relay.sqrt"),
    "ReduceSumSquare": ("relay.multiply", "relay.sum"),
    "ReduceLogSum": ("relay.sum", "relay.log"),
}


def _reduce(ctx: NodeContext) -> Sequence[SSAValue]:
    """Axes are an attribute until opset 13 (ReduceSum) or 18 (the others), then
    an optional input; no axes reduce everything, unless noop_with_empty_axes."""
    kind = ctx.node.op_type
    x = ctx.input(0)
    rank = _rank(x)
    since = 13 if kind == "ReduceSum" else 18
    if ctx.opset >= since:
        given = ctx.optional_const(1)
        axes = None if given is None else _ints(given)
    else:
        axes = ctx.attr("axes")
    if not axes:
        if ctx.attr("noop_with_empty_axes", 0):
            return [_reduce_elementwise(ctx, kind, x)]
        axes = list(range(rank))
    axes = sorted({_axis(ctx, int(a), rank) for a in axes})
    keep = _unit(ctx.attr("keepdims", 1))
    if relay.is_bool(_elem(x)) and kind in ("ReduceMax", "ReduceMin"):
        # any / all: reduce the booleans as bytes.
        wide = _cast(ctx, x, IntegerType(8, Signedness.UNSIGNED))
        y = ctx.emit(_REDUCE[kind](wide, axes=relay.i64_array(axes), keepdims=keep))
        return [_cast(ctx, y, _elem(x))]
    if kind == "ReduceL1":
        x = ctx.emit(relay.AbsOp(x))
    elif kind in ("ReduceL2", "ReduceSumSquare"):
        x = ctx.emit(relay.MultiplyOp(x, x))
    y = ctx.emit(_REDUCE[kind](x, axes=relay.i64_array(axes), keepdims=keep))
    if kind == "ReduceLogSum":
        y = ctx.emit(relay.LogOp(y))
    elif kind == "ReduceL2":
        elem = _elem(y)
        root = ctx.emit(relay.SqrtOp(_cast(ctx, y, f64 if not relay.is_float(elem) else elem)))
        y = _cast(ctx, root, elem)
    return [y]


def _reduce_elementwise(ctx: NodeContext, kind: str, x: SSAValue) -> SSAValue:
    """A reduction over no axes: only its elementwise steps (as onnx.reference
    computes noop_with_empty_axes)."""
    steps: dict[str, tuple[type[relay.RelayOp], ...]] = {
        "ReduceL1": (relay.AbsOp,),
        "ReduceL2": (relay.AbsOp,),
        "ReduceLogSum": (relay.LogOp,),
        "ReduceLogSumExp": (relay.ExpOp, relay.LogOp),
    }
    if kind == "ReduceSumSquare":
        return ctx.emit(relay.MultiplyOp(x, x))
    for op in steps.get(kind, ()):
        x = ctx.emit(op(x))
    return x


for _name, _cls in _REDUCE.items():
    converter(
        _name,
        emits=_REDUCE_EMITS.get(_name, (_cls.name,)),
        notes="axes as attribute or input, keepdims, noop_with_empty_axes",
    )(_reduce)


@converter("ArgMax", emits=("relay.argmax",), notes="keepdims, select_last_index")
@converter("ArgMin", emits=("relay.argmin",), notes="keepdims, select_last_index")
def _arg_reduce(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    op = relay.ArgMaxOp if ctx.node.op_type == "ArgMax" else relay.ArgMinOp
    axis = _axis(ctx, int(ctx.attr("axis", 0)), _rank(x))
    return [
        ctx.emit(
            op(
                x,
                axis=relay.i64_attr(axis),
                keepdims=_unit(ctx.attr("keepdims", 1)),
                select_last_index=_unit(ctx.attr("select_last_index", 0)),
            )
        )
    ]


# ------------------------------------------------------------------ shapes
@converter("Shape", emits=(), notes="a constant (start, end)")
def _shape(ctx: NodeContext) -> Sequence[SSAValue]:
    s = shape(ctx.input(0))
    rank = len(s)
    start, end = int(ctx.attr("start", 0)), ctx.attr("end")
    end = rank if end is None else int(end)
    start, end = (min(max(v + rank if v < 0 else v, 0), rank) for v in (start, end))
    return [ctx.constant(np.array(s[start:end], dtype=np.int64), "shape")]


@converter("Size", emits=(), notes="a constant")
def _size(ctx: NodeContext) -> Sequence[SSAValue]:
    return [ctx.constant(np.array(math.prod(shape(ctx.input(0))), dtype=np.int64), "size")]


@converter("Constant", emits=("relay.constant",))
def _constant(ctx: NodeContext) -> Sequence[SSAValue]:
    for name, a in ((a.name, a) for a in ctx.node.attribute):
        if name == "value":
            return [ctx.constant(onnx.numpy_helper.to_array(a.t), "cst")]
        if name in ("value_float", "value_int"):
            dt = np.float32 if name == "value_float" else np.int64
            return [ctx.constant(np.array(onnx.helper.get_attribute_value(a), dtype=dt))]
        if name in ("value_floats", "value_ints"):
            dt = np.float32 if name == "value_floats" else np.int64
            return [ctx.constant(np.array(onnx.helper.get_attribute_value(a), dtype=dt))]
        if name in ("sparse_value", "value_string", "value_strings"):
            raise ctx.unsupported(f"a {name} constant is not supported")
    raise ctx.error("Constant without a value")


@converter("ConstantOfShape", emits=(), notes="a constant")
def _constant_of_shape(ctx: NodeContext) -> Sequence[SSAValue]:
    dims = _ints(ctx.const_value(0))
    value = ctx.attr("value")
    arr = onnx.numpy_helper.to_array(value) if value is not None else np.zeros(1, np.float32)
    return [ctx.constant(np.full(dims, arr.reshape(-1)[0], dtype=arr.dtype))]


@converter("Range", emits=(), notes="constant inputs")
def _range(ctx: NodeContext) -> Sequence[SSAValue]:
    start, limit, delta = (ctx.const_value(i) for i in range(3))
    return [ctx.constant(np.arange(start, limit, delta, dtype=np.asarray(start).dtype))]


# ------------------------------------------------------------------ layout
@converter("Reshape", emits=("relay.reshape",), notes="0, -1 and allowzero")
def _reshape_op(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    src = shape(x)
    target = _ints(ctx.const_value(1)) if ctx.opset >= 5 else list(ctx.attr("shape"))
    allowzero = int(ctx.attr("allowzero", 0))
    out = [src[i] if (d == 0 and not allowzero) else d for i, d in enumerate(target)]
    if out.count(-1) > 1:
        raise ctx.error(f"shape {target} has more than one -1")
    if -1 in out:
        known = math.prod(d for d in out if d != -1)
        total = math.prod(src)
        if known == 0 or total % known:
            raise ctx.error(f"cannot reshape {list(src)} to {target}")
        out[out.index(-1)] = total // known
    return [ctx.emit(relay.ReshapeOp(x, shape=relay.i64_array(out)))]


@converter("Flatten", emits=("relay.reshape",))
def _flatten(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    s = shape(x)
    axis = int(ctx.attr("axis", 1))
    axis = axis + len(s) if axis < 0 else axis
    if not 0 <= axis <= len(s):
        raise ctx.error(f"axis {ctx.attr('axis')} is out of range for rank {len(s)}")
    return [ctx.emit(relay.ReshapeOp(x, shape=relay.i64_array([math.prod(s[:axis]), math.prod(s[axis:])])))]


def _axes_arg(ctx: NodeContext, since: int, index: int = 1) -> list[int] | None:
    """Axes given as an attribute before opset `since`, as an input from it."""
    if ctx.opset >= since:
        v = ctx.optional_const(index)
        return None if v is None else _ints(v)
    axes = ctx.attr("axes")
    return None if axes is None else [int(a) for a in axes]


@converter("Squeeze", emits=("relay.reshape",), notes="axes as attribute or input")
def _squeeze(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    s = shape(x)
    axes = _axes_arg(ctx, 13)
    if axes is None:
        drop = {i for i, d in enumerate(s) if d == 1}
    else:
        drop = {_axis(ctx, a, len(s)) for a in axes}
        bad = [a for a in sorted(drop) if s[a] != 1]
        if bad:
            raise ctx.error(f"cannot squeeze axes {bad} of shape {list(s)}: not of size 1")
    out = [d for i, d in enumerate(s) if i not in drop]
    return [ctx.emit(relay.ReshapeOp(x, shape=relay.i64_array(out)))]


@converter("Unsqueeze", emits=("relay.reshape",), notes="axes as attribute or input")
def _unsqueeze(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    s = list(shape(x))
    axes = _axes_arg(ctx, 13)
    if not axes:
        raise ctx.error("Unsqueeze needs axes")
    rank = len(s) + len(axes)
    norm = sorted(_axis(ctx, a, rank) for a in axes)
    if len(set(norm)) != len(norm):
        raise ctx.error(f"axes {axes} repeat an axis")
    for a in norm:
        s.insert(a, 1)
    return [ctx.emit(relay.ReshapeOp(x, shape=relay.i64_array(s)))]


@converter("Transpose", emits=("relay.transpose",))
def _transpose(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    perm = ctx.attr("perm")
    if perm is None:
        perm = list(reversed(range(_rank(x))))
    return [ctx.emit(relay.TransposeOp(x, perm=relay.i64_array(perm)))]


@converter("Concat", emits=("relay.concatenate",))
def _concat(ctx: NodeContext) -> Sequence[SSAValue]:
    ins = [ctx.input(i) for i in range(len(ctx.node.input)) if ctx.node.input[i]]
    axis = _axis(ctx, int(ctx.attr("axis", 1)), _rank(ins[0]))
    return [ctx.emit(relay.ConcatenateOp(*ins, axis=relay.i64_attr(axis)))]


@converter("Split", emits=("relay.split",), notes="split as attribute or input, num_outputs")
def _split(ctx: NodeContext) -> Sequence[SSAValue]:
    """Sizes come from the `split` attribute (before opset 13) or input (since);
    without them the axis splits evenly into the outputs (opset 18: into
    `num_outputs` chunks of ceil(size / n), the last one smaller)."""
    x = ctx.input(0)
    axis = _axis(ctx, int(ctx.attr("axis", 0)), _rank(x))
    dim = shape(x)[axis]
    if ctx.opset >= 13 or ctx.optional_input(1) is not None:  # (Split-1 had both)
        v = ctx.optional_const(1)
        sizes = None if v is None else _ints(v)
    else:
        given = ctx.attr("split")
        sizes = None if given is None else [int(v) for v in given]
    if not sizes:
        n = int(ctx.attr("num_outputs", ctx.num_outputs))
        if n < 1 or (ctx.has_attr("num_outputs") and n != ctx.num_outputs):
            raise ctx.error(
                f"num_outputs is {n} but the node has {ctx.num_outputs} output(s); "
                "they must agree"
            )
        if ctx.has_attr("num_outputs"):
            chunk = -(-dim // n)
            sizes = [min(chunk, dim - i * chunk) for i in range(n)]
        elif dim % n:
            raise ctx.error(f"axis {axis} of size {dim} does not split evenly into {n}")
        else:
            sizes = [dim // n] * n
    if sum(sizes) != dim or any(s < 0 for s in sizes):
        raise ctx.error(f"split sizes {sizes} do not add up to {dim} (axis {axis})")
    indices = list(np.cumsum(sizes)[:-1])
    return ctx.emit_all(
        relay.SplitOp(x, axis=relay.i64_attr(axis), indices=relay.i64_array(indices))
    )


def _slice_bounds(dim: int, start: int, end: int, step: int) -> tuple[int, int]:
    """ONNX's clamping of a Slice's start and end on an axis of size `dim`."""
    if start < 0:
        start += dim
    if end < 0:
        end += dim
    if step > 0:
        return min(max(start, 0), dim), min(max(end, 0), dim)
    return min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)


@converter("Slice", emits=("relay.strided_slice",), notes="negative steps; attributes before opset 10")
def _slice(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    s = shape(x)
    if ctx.opset < 10:
        starts, ends = list(ctx.attr("starts")), list(ctx.attr("ends"))
        axes = ctx.attr("axes")
        steps: list[int] = [1] * len(starts)
    else:
        starts, ends = _ints(ctx.const_value(1)), _ints(ctx.const_value(2))
        axes = ctx.optional_const(3)
        st = ctx.optional_const(4)
        steps = [1] * len(starts) if st is None else _ints(st)
    axes = list(range(len(starts))) if axes is None else _ints(axes)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise ctx.error("starts, ends, axes and steps must have the same length")
    begin, end, strides = [0] * len(s), list(s), [1] * len(s)
    for a, b, e, st in zip(axes, starts, ends, steps, strict=True):
        a = _axis(ctx, a, len(s))
        if st == 0:
            raise ctx.error(f"step of axis {a} is 0")
        begin[a], end[a] = _slice_bounds(s[a], b, e, st)
        strides[a] = st
    return [
        ctx.emit(
            relay.StridedSliceOp(
                x,
                begin=relay.i64_array(begin),
                end=relay.i64_array(end),
                strides=relay.i64_array(strides),
            )
        )
    ]


@converter("Gather", emits=("relay.take",), notes="negative indices")
def _gather(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    axis = _axis(ctx, int(ctx.attr("axis", 0)), _rank(x))
    return [ctx.emit(relay.TakeOp(x, ctx.input(1), axis=relay.i64_attr(axis)))]


@converter("GatherElements", emits=("relay.gather",), notes="negative indices")
def _gather_elements(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    axis = _axis(ctx, int(ctx.attr("axis", 0)), _rank(x))
    return [ctx.emit(relay.GatherOp(x, ctx.input(1), axis=relay.i64_attr(axis)))]


@converter("Expand", emits=("relay.broadcast_to",))
def _expand(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    target = relay.broadcast_shapes("Expand", shape(x), _ints(ctx.const_value(1)))
    if target == shape(x):
        return [x]
    return [ctx.emit(relay.BroadcastToOp(x, shape=relay.i64_array(target)))]


@converter("Tile", emits=("relay.tile",))
def _tile(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    if ctx.opset < 6:  # Tile-1: `tiles` repeats along the single `axis`
        reps = [1] * _rank(x)
        axis = _axis(ctx, int(np.asarray(ctx.const_value(2)).reshape(-1)[0]), _rank(x))
        reps[axis] = int(np.asarray(ctx.const_value(1)).reshape(-1)[0])
    else:
        reps = _ints(ctx.const_value(1))
    return [ctx.emit(relay.TileOp(x, reps=relay.i64_array(reps)))]


@converter("Pad", emits=("relay.pad",), notes="constant, reflect, edge, wrap; axes")
def _pad(ctx: NodeContext) -> Sequence[SSAValue]:
    """Pads (and the constant value) are attributes before opset 11, inputs
    since; opset 18 adds `axes`."""
    x = ctx.input(0)
    rank = _rank(x)
    mode = str(ctx.attr("mode", "constant"))
    if mode not in relay.PAD_MODES:
        raise ctx.unsupported(f'mode="{mode}" is not supported')
    if ctx.opset < 11:
        pads = list(ctx.attr("pads" if ctx.opset >= 2 else "paddings"))
        value = float(ctx.attr("value", 0.0))
        axes = list(range(rank))
    else:
        pads = _ints(ctx.const_value(1))
        v = ctx.optional_const(2)
        value = 0.0 if v is None or np.asarray(v).size == 0 else float(np.asarray(v).reshape(-1)[0])
        given = ctx.optional_const(3)
        axes = list(range(rank)) if given is None else [_axis(ctx, a, rank) for a in _ints(given)]
    if len(pads) != 2 * len(axes):
        raise ctx.error(f"pads {pads} needs {2 * len(axes)} values")
    width = [0] * (2 * rank)
    for i, a in enumerate(axes):
        width[a], width[rank + a] = pads[i], pads[len(axes) + i]
    return [
        ctx.emit(
            relay.PadOp(
                x,
                pad_width=relay.i64_array(width),
                pad_mode=StringAttr(mode) if mode != "constant" else None,
                pad_value=relay.f64_attr(value) if value else None,
            )
        )
    ]


@converter("Trilu", emits=("relay.trilu",))
def _trilu(ctx: NodeContext) -> Sequence[SSAValue]:
    k = ctx.optional_const(1)
    diag = 0 if k is None else int(np.asarray(k).reshape(-1)[0])
    return [
        ctx.emit(
            relay.TriluOp(
                ctx.input(0),
                upper=_unit(ctx.attr("upper", 1)),
                k=relay.i64_attr(diag) if diag else None,
            )
        )
    ]


# ------------------------------------------------------------------ resize
_RESIZE_METHODS = {"nearest": "nearest_neighbor", "linear": "linear", "cubic": "cubic"}


def _resize_to(
    ctx: NodeContext,
    x: SSAValue,
    size: Sequence[int],
    scales: Sequence[float],
    roi: Sequence[float] | None,
    mode: str,
    coordinates: str,
    rounding: str,
    antialias: bool = False,
) -> SSAValue:
    if mode not in _RESIZE_METHODS:
        raise ctx.unsupported(f'mode="{mode}" is not supported')
    if coordinates not in relay.RESIZE_COORDINATES:
        raise ctx.unsupported(f'coordinate_transformation_mode="{coordinates}" is not supported')
    if rounding not in relay.RESIZE_ROUNDING:
        raise ctx.unsupported(f'nearest_mode="{rounding}" is not supported')
    method = _RESIZE_METHODS[mode]
    return ctx.emit(
        relay.ResizeOp(
            x,
            size=relay.i64_array(size),
            scales=DenseArrayBase.from_list(f64, [float(v) for v in scales]),
            roi=None
            if roi is None
            else DenseArrayBase.from_list(f64, [float(v) for v in roi]),
            method=StringAttr(method),
            coordinate_transformation_mode=StringAttr(coordinates),
            rounding_method=StringAttr(rounding) if method == "nearest_neighbor" else None,
            cubic_alpha=relay.f64_attr(float(ctx.attr("cubic_coeff_a", -0.75)))
            if method == "cubic"
            else None,
            cubic_exclude=_unit(ctx.attr("exclude_outside", 0)),
            antialias=_unit(antialias),
            extrapolation_value=relay.f64_attr(float(ctx.attr("extrapolation_value", 0.0)))
            if coordinates == "tf_crop_and_resize"
            else None,
        )
    )


@converter(
    "Resize",
    emits=("relay.resize",),
    notes="nearest, linear, cubic; every coordinate mode; scales or sizes, axes, "
    "keep_aspect_ratio_policy, antialias",
)
def _resize(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    s = shape(x)
    rank = len(s)
    mode = str(ctx.attr("mode", "nearest"))
    if ctx.opset < 11:  # Resize-10: scales only, asymmetric coordinates
        scales = [float(v) for v in np.asarray(ctx.const_value(1)).reshape(-1)]
        size = [math.floor(d * f) for d, f in zip(s, scales, strict=True)]
        return [_resize_to(ctx, x, size, scales, None, mode, "asymmetric", "floor")]
    antialias = bool(ctx.attr("antialias", 0))
    if antialias and mode == "nearest":
        raise ctx.error("antialias needs mode linear or cubic")
    axes = ctx.attr("axes")
    axes = list(range(rank)) if axes is None else [_axis(ctx, int(a), rank) for a in axes]
    roi_in = ctx.optional_const(1)
    scales_in = ctx.optional_const(2)
    sizes_in = ctx.optional_const(3)
    scales = [1.0] * rank
    size = list(s)
    if sizes_in is not None and np.asarray(sizes_in).size:
        given = _ints(sizes_in)
        ratios = [given[i] / s[a] for i, a in enumerate(axes)]
        policy = str(ctx.attr("keep_aspect_ratio_policy", "stretch"))
        if policy == "stretch":
            for i, a in enumerate(axes):
                size[a], scales[a] = given[i], ratios[i]
        elif policy in ("not_larger", "not_smaller"):
            scale = min(ratios) if policy == "not_larger" else max(ratios)
            for a in axes:
                size[a], scales[a] = int(scale * s[a] + 0.5), scale
        else:
            raise ctx.unsupported(f'keep_aspect_ratio_policy="{policy}" is not supported')
    elif scales_in is not None and np.asarray(scales_in).size:
        given_scales = [float(v) for v in np.asarray(scales_in).reshape(-1)]
        for i, a in enumerate(axes):
            scales[a] = given_scales[i]
            size[a] = math.floor(s[a] * given_scales[i])
    else:
        raise ctx.error("Resize needs scales or sizes")
    roi = None
    coordinates = str(ctx.attr("coordinate_transformation_mode", "half_pixel"))
    if coordinates == "tf_crop_and_resize":
        if roi_in is None or np.asarray(roi_in).size == 0:
            raise ctx.error("tf_crop_and_resize needs roi")
        given_roi = [float(v) for v in np.asarray(roi_in).reshape(-1)]
        roi = [0.0] * rank + [1.0] * rank
        for i, a in enumerate(axes):
            roi[a], roi[rank + a] = given_roi[i], given_roi[len(axes) + i]
    rounding = str(ctx.attr("nearest_mode", "round_prefer_floor"))
    return [_resize_to(ctx, x, size, scales, roi, mode, coordinates, rounding, antialias)]


@converter("Upsample", emits=("relay.resize",), notes="nearest and linear (asymmetric coordinates)")
def _upsample(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    s = shape(x)
    if ctx.opset >= 9:
        scales = [float(v) for v in np.asarray(ctx.const_value(1)).reshape(-1)]
    elif ctx.opset >= 7:
        scales = [float(v) for v in ctx.attr("scales")]
    else:  # Upsample-1: NCHW with height_scale and width_scale
        scales = [1.0, 1.0, float(ctx.attr("height_scale")), float(ctx.attr("width_scale"))]
    size = [math.floor(d * f) for d, f in zip(s, scales, strict=True)]
    mode = str(ctx.attr("mode", "nearest"))
    if mode == "bilinear":
        mode = "linear"
    return [_resize_to(ctx, x, size, scales, None, mode, "asymmetric", "floor")]


# ------------------------------------------------- decomposed activations
def _zeros_like(ctx: NodeContext, x: SSAValue) -> SSAValue:
    return _scalar(ctx, 0, x)


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


@converter("Swish", emits=("relay.sigmoid", "relay.multiply"))
def _swish(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    alpha = float(ctx.attr("alpha", 1.0))
    ax = x if alpha == 1.0 else ctx.emit(relay.MultiplyOp(_scalar(ctx, alpha, x), x))
    return [ctx.emit(relay.MultiplyOp(x, ctx.emit(relay.SigmoidOp(ax))))]


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


# --------------------------------------------------- decomposed normalizations
@converter("RMSNormalization", emits=("relay.mean", "relay.rsqrt", "relay.multiply"))
def _rms_norm(ctx: NodeContext) -> Sequence[SSAValue]:
    x, scale = ctx.input(0), ctx.input(1)
    rank = _rank(x)
    axis = _axis(ctx, int(ctx.attr("axis", -1)), rank)
    eps = float(ctx.attr("epsilon", 1e-5))
    if int(ctx.attr("stash_type", 1)) != 1:
        raise ctx.unsupported("stash_type other than 1 (float) is not supported")
    axes = relay.i64_array(range(axis, rank))
    sq = ctx.emit(relay.MeanOp(ctx.emit(relay.MultiplyOp(x, x)), axes=axes, keepdims=UnitAttr()))
    rms = ctx.emit(relay.SqrtOp(ctx.emit(relay.AddOp(sq, _scalar(ctx, eps, sq)))))
    y = ctx.emit(relay.MultiplyOp(x, ctx.emit(relay.ReciprocalOp(rms))))
    return [ctx.emit(relay.MultiplyOp(y, scale))]


@converter("MeanVarianceNormalization", emits=("relay.mean", "relay.sqrt", "relay.divide"))
def _mvn(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    rank = _rank(x)
    axes_list = sorted(_axis(ctx, int(a), rank) for a in ctx.attr("axes", [0, 2, 3]))
    axes = relay.i64_array(axes_list)
    mean = ctx.emit(relay.MeanOp(x, axes=axes, keepdims=UnitAttr()))
    ex2 = ctx.emit(relay.MeanOp(ctx.emit(relay.MultiplyOp(x, x)), axes=axes, keepdims=UnitAttr()))
    var = ctx.emit(relay.SubtractOp(ex2, ctx.emit(relay.MultiplyOp(mean, mean))))
    std = ctx.emit(relay.AddOp(ctx.emit(relay.SqrtOp(var)), _scalar(ctx, 1e-9, var)))
    return [ctx.emit(relay.DivideOp(ctx.emit(relay.SubtractOp(x, mean)), std))]


@converter("LpNormalization", emits=("relay.sum", "relay.divide", "relay.where"), notes="p=1, 2")
def _lp_norm(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    axis = _axis(ctx, int(ctx.attr("axis", -1)), _rank(x))
    p = int(ctx.attr("p", 2))
    if p not in (1, 2):
        raise ctx.unsupported(f"p={p} is not supported (1 and 2 are)")
    axes = relay.i64_array([axis])
    if p == 1:
        norm = ctx.emit(relay.SumOp(ctx.emit(relay.AbsOp(x)), axes=axes, keepdims=UnitAttr()))
    else:
        sq = ctx.emit(relay.SumOp(ctx.emit(relay.MultiplyOp(x, x)), axes=axes, keepdims=UnitAttr()))
        norm = ctx.emit(relay.SqrtOp(sq))
    zero = _zeros_like(ctx, x)
    is_zero = ctx.emit(relay.EqualOp(norm, zero))
    return [ctx.emit(relay.WhereOp(is_zero, zero, ctx.emit(relay.DivideOp(x, norm))))]


# ---------------------------------------------------------------- attention
def _repeat_heads(ctx: NodeContext, x: SSAValue, reps: int) -> SSAValue:
    """np.repeat(x, reps, axis=1) of a [b, h, s, d] tensor."""
    if reps == 1:
        return x
    b, h, s, d = shape(x)
    x = _reshape(ctx, x, [b, h, 1, s, d])
    x = ctx.emit(relay.BroadcastToOp(x, shape=relay.i64_array([b, h, reps, s, d])))
    return _reshape(ctx, x, [b, h * reps, s, d])


def _mask_bias(ctx: NodeContext, mask: SSAValue, like: SSAValue) -> SSAValue:
    """A boolean mask as an additive bias (0 where true, -inf where false)."""
    if _elem(mask) != IntegerType(1):
        return mask
    return ctx.emit(
        relay.WhereOp(mask, _zeros_like(ctx, like), _scalar(ctx, -np.inf, like))
    )


@converter(
    "Attention",
    emits=(
        "relay.matmul",
        "relay.transpose",
        "relay.reshape",
        "relay.softmax",
        "relay.where",
        "relay.concatenate",
    ),
    notes="3-D/4-D, masks, causal, sliding windows, GQA, softcap, past KV, "
    "qk_matmul_output_mode 0-3; no nonpad_kv_seqlen",
)
def _attention(ctx: NodeContext) -> Sequence[SSAValue]:
    q, k, v = ctx.input(0), ctx.input(1), ctx.input(2)
    mask = ctx.optional_input(3)
    past_k, past_v = ctx.optional_input(4), ctx.optional_input(5)
    if ctx.optional_input(6) is not None:
        raise ctx.unsupported("nonpad_kv_seqlen is not supported")
    left, right = int(ctx.attr("left_window_size", -1)), int(ctx.attr("right_window_size", -1))
    if left < -1 or right < -1:
        raise ctx.error("left_window_size and right_window_size must be -1 or nonnegative")
    if (past_k is None) != (past_v is None):
        raise ctx.error("past_key and past_value must be given together")
    rank = _rank(q)
    if rank not in (3, 4) or _rank(k) != rank or _rank(v) != rank:
        raise ctx.unsupported("Q, K and V must all be 3-D or all 4-D")
    if rank == 3:
        if not (ctx.has_attr("q_num_heads") and ctx.has_attr("kv_num_heads")):
            raise ctx.error("3-D inputs need q_num_heads and kv_num_heads")
        qh, kvh = int(ctx.attr("q_num_heads")), int(ctx.attr("kv_num_heads"))

        def heads(x: SSAValue, n: int) -> SSAValue:
            b, s, hidden = shape(x)
            x = _reshape(ctx, x, [b, s, n, hidden // n])
            return ctx.emit(relay.TransposeOp(x, perm=relay.i64_array([0, 2, 1, 3])))

        q, k, v = heads(q, qh), heads(k, kvh), heads(v, kvh)
    qh, kvh = shape(q)[1], shape(k)[1]
    if shape(v)[1] != kvh or qh % kvh:
        raise ctx.unsupported(f"{qh} query heads do not group over {kvh} key/value heads")
    scale = ctx.attr("scale")
    scale = 1 / math.sqrt(shape(q)[3]) if scale is None else float(scale)
    sc = _scalar(ctx, math.sqrt(scale), q)

    if past_k is not None and past_v is not None:
        k = ctx.emit(relay.ConcatenateOp(past_k, k, axis=relay.i64_attr(2)))
        v = ctx.emit(relay.ConcatenateOp(past_v, v, axis=relay.i64_attr(2)))
    present_k, present_v = k, v
    q_len, kv_len = shape(q)[2], shape(k)[2]
    past_len = shape(past_k)[2] if past_k is not None else 0

    # The additive bias, and whether any of its rows may be fully masked.
    bias: SSAValue | None = None
    may_mask_rows = False
    if mask is not None:
        pad = kv_len - shape(mask)[-1]
        if pad > 0:
            dtype = numpy_dtype(_elem(mask))
            fill = False if dtype == np.bool_ else -np.inf
            value = np.full([*shape(mask)[:-1], pad], fill, dtype)
            last = relay.i64_attr(_rank(mask) - 1)
            mask = ctx.emit(relay.ConcatenateOp(mask, ctx.constant(value, "pad"), axis=last))
        bias = _mask_bias(ctx, mask, q)
        may_mask_rows = True
    if int(ctx.attr("is_causal", 0)):
        i = np.arange(q_len).reshape(q_len, 1)
        j = np.arange(kv_len).reshape(1, kv_len)
        dtype = numpy_dtype(_elem(q))
        causal = np.where(j <= i + past_len, dtype.type(0), dtype.type(-np.inf)).astype(dtype)
        may_mask_rows |= bool(np.isneginf(causal.max(axis=-1)).any())
        c = ctx.constant(causal, "causal")
        bias = c if bias is None else ctx.emit(relay.AddOp(bias, c))

    if left >= 0 or right >= 0:  # a sliding window around each query's position
        diff = np.arange(q_len).reshape(q_len, 1) + past_len - np.arange(kv_len).reshape(1, kv_len)
        allowed = np.ones_like(diff, dtype=np.bool_)
        if left >= 0:
            allowed &= diff <= left
        if right >= 0:
            allowed &= -diff <= right
        dtype = numpy_dtype(_elem(q))
        window = np.where(allowed, dtype.type(0), dtype.type(-np.inf)).astype(dtype)
        may_mask_rows = True
        c = ctx.constant(window, "window")
        bias = c if bias is None else ctx.emit(relay.AddOp(bias, c))

    k = _repeat_heads(ctx, k, qh // kvh)
    v = _repeat_heads(ctx, v, qh // kvh)
    kt = ctx.emit(relay.TransposeOp(k, perm=relay.i64_array([0, 1, 3, 2])))
    qk = ctx.emit(
        relay.MatmulOp(ctx.emit(relay.MultiplyOp(q, sc)), ctx.emit(relay.MultiplyOp(kt, sc)))
    )
    softcap = float(ctx.attr("softcap", 0.0))
    if softcap > 0:
        cap = _scalar(ctx, softcap, qk)
        qk = ctx.emit(relay.TanhOp(ctx.emit(relay.DivideOp(qk, cap))))
        qk = ctx.emit(relay.MultiplyOp(qk, cap))
    with_bias = qk if bias is None else ctx.emit(relay.AddOp(qk, bias))
    mode = int(ctx.attr("qk_matmul_output_mode", 0))
    if mode not in (0, 1, 2, 3):
        raise ctx.unsupported(f"qk_matmul_output_mode={mode} is not supported")
    logits = with_bias
    if ctx.has_attr("softmax_precision"):
        logits = _cast(ctx, logits, _dtype(ctx, int(ctx.attr("softmax_precision"))))
    probs = ctx.emit(relay.SoftmaxOp(logits, axis=relay.i64_attr(3)))
    if bias is not None and may_mask_rows:
        last = relay.i64_array([_rank(bias) - 1])
        row_max = ctx.emit(relay.MaxOp(bias, axes=last, keepdims=UnitAttr()))
        dead = ctx.emit(relay.EqualOp(row_max, _scalar(ctx, -np.inf, bias)))
        probs = ctx.emit(relay.WhereOp(dead, _zeros_like(ctx, probs), probs))
    qk_out = {0: qk, 1: qk, 2: with_bias, 3: probs}[mode]
    probs = _cast(ctx, probs, _elem(q))
    qk_out = _cast(ctx, qk_out, _elem(q))
    y = ctx.emit(relay.MatmulOp(probs, v))
    if rank == 3:
        y = ctx.emit(relay.TransposeOp(y, perm=relay.i64_array([0, 2, 1, 3])))
        b, s, h, d = shape(y)
        y = _reshape(ctx, y, [b, s, h * d])
    return [y, present_k, present_v, qk_out][: max(1, len(ctx.node.output))]


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


# ------------------------------------------------- more decompositions
@converter("Hardmax", emits=("relay.argmax", "relay.equal", "relay.cast"), notes="pre-13 and 13+")
def _hardmax(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    rank, s = _rank(x), shape(x)
    if ctx.opset >= 13:
        axis = _axis(ctx, int(ctx.attr("axis", -1)), rank)
        flat = x
    else:  # coerce to 2-D at `axis`
        axis = _axis(ctx, int(ctx.attr("axis", 1)), rank) if rank else 0
        flat = _reshape(ctx, x, [math.prod(s[:axis]), math.prod(s[axis:])])
        axis = 1
    am = ctx.emit(relay.ArgMaxOp(flat, axis=relay.i64_attr(axis), keepdims=UnitAttr()))
    n = shape(flat)[axis]
    iota = np.arange(n, dtype=np.int64).reshape([n if d == axis else 1 for d in range(_rank(flat))])
    hit = ctx.emit(relay.EqualOp(am, ctx.constant(iota, "iota")))
    return [_reshape(ctx, _cast(ctx, hit, _elem(x)), s)]


@converter("EyeLike", emits=(), notes="a constant")
def _eye_like(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    if _rank(x) != 2:
        raise ctx.error(f"input must be 2-D, got {list(shape(x))}")
    elem = _dtype(ctx, int(ctx.attr("dtype"))) if ctx.has_attr("dtype") else _elem(x)
    n, m = shape(x)
    return [ctx.constant(np.eye(n, m, int(ctx.attr("k", 0)), dtype=numpy_dtype(elem)), "eye")]


@converter("DepthToSpace", emits=("relay.reshape", "relay.transpose"), notes="DCR and CRD")
def _depth_to_space(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    if _rank(x) != 4:
        raise ctx.error(f"input must be 4-D, got {list(shape(x))}")
    b, c, h, w = shape(x)
    bs = int(ctx.attr("blocksize"))
    mode = str(ctx.attr("mode", "DCR"))
    if mode == "DCR":
        tmp, perm = [b, bs, bs, c // (bs * bs), h, w], [0, 3, 4, 1, 5, 2]
    elif mode == "CRD":
        tmp, perm = [b, c // (bs * bs), bs, bs, h, w], [0, 1, 4, 2, 5, 3]
    else:
        raise ctx.unsupported(f'mode="{mode}" is not supported')
    t = ctx.emit(relay.TransposeOp(_reshape(ctx, x, tmp), perm=relay.i64_array(perm)))
    return [_reshape(ctx, t, [b, c // (bs * bs), h * bs, w * bs])]


@converter("SpaceToDepth", emits=("relay.reshape", "relay.transpose"), notes="DCR and CRD")
def _space_to_depth(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    if _rank(x) != 4:
        raise ctx.error(f"input must be 4-D, got {list(shape(x))}")
    b, c, h, w = shape(x)
    bs = int(ctx.attr("blocksize"))
    mode = str(ctx.attr("mode", "DCR"))
    if mode not in ("DCR", "CRD"):
        raise ctx.unsupported(f'mode="{mode}" is not supported')
    perm = [0, 3, 5, 1, 2, 4] if mode == "DCR" else [0, 1, 3, 5, 2, 4]
    tmp = _reshape(ctx, x, [b, c, h // bs, bs, w // bs, bs])
    t = ctx.emit(relay.TransposeOp(tmp, perm=relay.i64_array(perm)))
    return [_reshape(ctx, t, [b, c * bs * bs, h // bs, w // bs])]


@converter(
    "GroupNormalization",
    emits=("relay.mean", "relay.sqrt", "relay.divide"),
    notes="per-group (opset 18) and per-channel scale",
)
def _group_norm(ctx: NodeContext) -> Sequence[SSAValue]:
    x, scale, bias = ctx.input(0), ctx.input(1), ctx.input(2)
    s = shape(x)
    groups = int(ctx.attr("num_groups"))
    eps = float(ctx.attr("epsilon", 1e-5))
    if len(s) < 2 or s[1] % groups:
        raise ctx.error(f"{groups} groups do not divide the channels of {list(s)}")
    c = s[1]
    g = _reshape(ctx, x, [s[0], groups, math.prod(s[1:]) // groups])
    axes = relay.i64_array([2])
    mean = ctx.emit(relay.MeanOp(g, axes=axes, keepdims=UnitAttr()))
    centered = ctx.emit(relay.SubtractOp(g, mean))
    var = ctx.emit(
        relay.MeanOp(ctx.emit(relay.MultiplyOp(centered, centered)), axes=axes, keepdims=UnitAttr())
    )
    std = ctx.emit(relay.SqrtOp(ctx.emit(relay.AddOp(var, _scalar(ctx, eps, var)))))
    y = _reshape(ctx, ctx.emit(relay.DivideOp(centered, std)), s)

    def per_channel(p: SSAValue) -> SSAValue:
        n = shape(p)[0]
        if n != c:  # one value per group
            p = _reshape(ctx, p, [n, 1])
            p = ctx.emit(relay.BroadcastToOp(p, shape=relay.i64_array([n, c // n])))
        return _reshape(ctx, p, [c, *([1] * (len(s) - 2))])

    y = ctx.emit(relay.MultiplyOp(per_channel(scale), y))
    return [ctx.emit(relay.AddOp(y, per_channel(bias)))]


@converter("CumSum", emits=("relay.matmul", "relay.transpose"), notes="exclusive, reverse")
def _cumsum(ctx: NodeContext) -> Sequence[SSAValue]:
    """A product with a triangular 0/1 matrix along `axis` (the sums are exact
    up to the order of additions)."""
    x = ctx.input(0)
    rank = _rank(x)
    axis = _axis(ctx, _ints(ctx.const_value(1))[0], rank)
    n = shape(x)[axis]
    j, i = np.arange(n).reshape(n, 1), np.arange(n).reshape(1, n)
    rev, exc = int(ctx.attr("reverse", 0)), int(ctx.attr("exclusive", 0))
    keep = (j > i if exc else j >= i) if rev else (j < i if exc else j <= i)
    tri = ctx.constant(keep.astype(numpy_dtype(_elem(x))), "tri")
    perm = [d for d in range(rank) if d != axis] + [axis]
    inv = list(np.argsort(perm))
    t = x if axis == rank - 1 else ctx.emit(relay.TransposeOp(x, perm=relay.i64_array(perm)))
    y = ctx.emit(relay.MatmulOp(t, tri))
    if axis == rank - 1:
        return [y]
    return [ctx.emit(relay.TransposeOp(y, perm=relay.i64_array(inv)))]


# -------------------------------------------------------------------- losses
def _nll(ctx: NodeContext, logp: SSAValue, target: SSAValue) -> SSAValue:
    """NegativeLogLikelihoodLoss of log-probabilities `logp` [N, C, d...] at
    integer `target` [N, d...], with the node's weight, ignore_index and reduction."""
    s, t = shape(logp), shape(target)
    if len(s) < 2 or t != (s[0], *s[2:]):
        raise ctx.error(f"target {list(t)} does not match input {list(s)}")
    c = s[1]
    reduction = str(ctx.attr("reduction", "mean"))
    if reduction not in ("none", "sum", "mean"):
        raise ctx.unsupported(f'reduction="{reduction}" is not supported')
    iota = np.arange(c).astype(numpy_dtype(_elem(target)))
    iota = ctx.constant(iota.reshape([1, c, *([1] * (len(s) - 2))]), "iota")
    onehot = ctx.emit(relay.EqualOp(_reshape(ctx, target, [s[0], 1, *s[2:]]), iota))
    zero = _zeros_like(ctx, logp)
    picked = ctx.emit(relay.WhereOp(onehot, logp, zero))
    loss = ctx.emit(relay.NegativeOp(ctx.emit(relay.SumOp(picked, axes=relay.i64_array([1])))))
    weight = ctx.optional_input(2)
    w: SSAValue | None = None
    if weight is not None:
        wc = _reshape(ctx, weight, [1, c, *([1] * (len(s) - 2))])
        w = ctx.emit(relay.SumOp(ctx.emit(relay.WhereOp(onehot, wc, zero)), axes=relay.i64_array([1])))
    if ctx.has_attr("ignore_index"):
        ignore = ctx.constant(np.array(int(ctx.attr("ignore_index")), numpy_dtype(_elem(target))))
        keep = _cast(ctx, ctx.emit(relay.NotEqualOp(target, ignore)), _elem(logp))
        w = keep if w is None else ctx.emit(relay.MultiplyOp(w, keep))
    if w is not None:
        loss = ctx.emit(relay.MultiplyOp(loss, w))
    if reduction == "none":
        return loss
    every = relay.i64_array(range(len(t)))
    if reduction == "sum" or (reduction == "mean" and w is not None):
        total = ctx.emit(relay.SumOp(loss, axes=every))
        if reduction == "sum":
            return total
        assert w is not None
        return ctx.emit(relay.DivideOp(total, ctx.emit(relay.SumOp(w, axes=every))))
    return ctx.emit(relay.MeanOp(loss, axes=every))


@converter(
    "NegativeLogLikelihoodLoss",
    emits=("relay.equal", "relay.where", "relay.sum", "relay.mean"),
    notes="weight, ignore_index, every reduction",
)
def _nll_loss(ctx: NodeContext) -> Sequence[SSAValue]:
    return [_nll(ctx, ctx.input(0), ctx.input(1))]


@converter(
    "SoftmaxCrossEntropyLoss",
    emits=("relay.log_softmax", "relay.equal", "relay.where", "relay.sum", "relay.mean"),
    notes="weight, ignore_index, every reduction, log_prob output",
)
def _softmax_ce(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    if _rank(x) < 2:
        raise ctx.error(f"scores must have rank 2 or more, got {list(shape(x))}")
    logp = ctx.emit(relay.LogSoftmaxOp(x, axis=relay.i64_attr(1)))
    loss = _nll(ctx, logp, ctx.input(1))
    return [loss, logp] if ctx.output_used(1) else [loss]
