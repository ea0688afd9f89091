"""Converters of ONNX's quantization ops to the qnn dialect
(`lamina.dialects.qnn`): QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv, and onnxruntime's
QLinearAdd, QLinearMul, QLinearConcat, QLinearGlobalAveragePool, QGemm and QLinearSoftmax
(domain com.microsoft: its QOperator format).

A per-axis scale or zero point (1-D, along `axis`) is reshaped to broadcast
against its tensor; a missing zero point is 0 of the quantized type. Block
quantization (`block_size`) is refused.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerType, Signedness, UnitAttr, f32, f64
from xdsl.ir import Attribute, SSAValue

from lamina.dialects import qnn, relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import _axis, _cast, _dtype, _elem, _rank, _reshape
from lamina.frontends.onnx.nn import _auto_pads, _spatial_attrs
from lamina.frontends.onnx.registry import converter

U8 = IntegerType(8, Signedness.UNSIGNED)


def _along(ctx: NodeContext, param: SSAValue, of: SSAValue, axis: int) -> SSAValue:
    """A scale or zero point shaped to broadcast against `of`: a scalar, or a
    vector along `axis`."""
    dims = shape(param)
    if len(dims) == 0 or (len(dims) == 1 and dims[0] == 1):
        return _reshape(ctx, param, [])
    if len(dims) != 1:
        raise ctx.unsupported(f"a scale or zero point of shape {list(dims)} (block quantization) is not supported")
    axis = _axis(ctx, axis, _rank(of))
    if shape(of)[axis] != dims[0]:
        raise ctx.error(f"a per-axis scale of {dims[0]} values does not match axis {axis} of {list(shape(of))}")
    return _reshape(ctx, param, [dims[0] if a == axis else 1 for a in range(_rank(of))])


def _zero(ctx: NodeContext, elem: Attribute) -> SSAValue:
    return ctx.constant(np.array(0, numpy_dtype(elem)))


def _param(ctx: NodeContext, param: SSAValue, of: SSAValue, axis: int) -> SSAValue:
    """A scale or zero point for `of`: per tensor, per axis, or per block of
    `block_size` along `axis` (each value repeated over its block)."""
    block = int(ctx.attr("block_size", 0))
    if not block or _rank(param) == 0:  # a zero point left out is one scalar
        return _along(ctx, param, of, axis)
    axis = _axis(ctx, axis, _rank(of))
    dims, full = list(shape(param)), list(shape(of))
    if len(dims) != len(full) or any(
        d != f for a, (d, f) in enumerate(zip(dims, full, strict=True)) if a != axis
    ) or not isinstance(full[axis], int) or dims[axis] != -(-full[axis] // block):
        raise ctx.error(f"a blocked scale of shape {dims} does not fit {full} with blocks of {block} along axis {axis}")
    wide = [*dims[:axis + 1], 1, *dims[axis + 1:]]
    x = _reshape(ctx, param, wide)
    wide[axis + 1] = block
    x = ctx.emit(relay.BroadcastToOp(x, shape=relay.i64_array(wide)))
    x = _reshape(ctx, x, [*dims[:axis], dims[axis] * block, *dims[axis + 1:]])
    if dims[axis] * block != full[axis]:
        end = list(full)
        x = ctx.emit(relay.StridedSliceOp(x, begin=relay.i64_array([0] * len(full)), end=relay.i64_array(end)))
    return x


@converter("QuantizeLinear", emits=("qnn.quantize",), notes="u8/s8/u16/s16; per tensor, per axis or blocked")
def _quantize_linear(ctx: NodeContext) -> Sequence[SSAValue]:
    x, scale = ctx.input(0), ctx.input(1)
    zp = ctx.optional_input(2)
    if zp is None:
        out = int(ctx.attr("output_dtype", 0))
        # ONNX uint8 (the default), int8, uint16, int16
        types = {0: U8, 2: U8, 3: IntegerType(8), 4: IntegerType(16, Signedness.UNSIGNED), 5: IntegerType(16)}
        if out not in types:
            raise ctx.unsupported("only uint8, int8, uint16 and int16 quantization are supported")
        zp = _zero(ctx, types[out])
    if _elem(zp) not in qnn.QUANTIZED:
        raise ctx.unsupported(f"quantizing to {_elem(zp)} is not supported (uint8, int8, uint16 and int16 are)")
    axis = int(ctx.attr("axis", 1))
    precision = int(ctx.attr("precision", 0))  # opset 23: the type x / scale is computed in
    if precision:
        x = _cast(ctx, x, _dtype(ctx, precision))
    scale = _cast(ctx, _param(ctx, scale, x, axis), _elem(x))
    return [ctx.emit(qnn.QuantizeOp(x, scale, _param(ctx, zp, x, axis)))]


@converter("DequantizeLinear", emits=("qnn.dequantize",), notes="u8/s8/u16/s16/i32; per tensor, per axis or blocked")
def _dequantize_linear(ctx: NodeContext) -> Sequence[SSAValue]:
    q, scale = ctx.input(0), ctx.input(1)
    zp = ctx.optional_input(2) or _zero(ctx, _elem(q))
    axis = int(ctx.attr("axis", 1))
    out = int(ctx.attr("output_dtype", 0))
    out_type = _dtype(ctx, out) if out else _elem(scale)
    # computed in f32 (as the spec's reference) for an f16/bf16 scale, then the output type
    wide = _cast(ctx, _param(ctx, scale, q, axis), f64 if _elem(scale) == f64 else f32)
    y = ctx.emit(qnn.DequantizeOp(q, wide, _param(ctx, zp, q, axis)))
    return [_cast(ctx, y, out_type)]


@converter(
    "DynamicQuantizeLinear",
    emits=("relay.min", "relay.max", "qnn.quantize"),
    notes="u8: scale and zero point from the data's range",
)
def _dynamic_quantize_linear(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    axes = relay.i64_array(list(range(_rank(x))))
    zero = ctx.constant(np.array(0, np.float32))
    lo = ctx.emit(relay.MinimumOp(ctx.emit(relay.MinOp(x, axes=axes)), zero))
    hi = ctx.emit(relay.MaximumOp(ctx.emit(relay.MaxOp(x, axes=axes)), zero))
    # all zeros (hi == lo == 0): a range of 1, as the spec's reference (not a scale of 0)
    span = ctx.emit(relay.SubtractOp(hi, lo))
    span = ctx.emit(relay.WhereOp(ctx.emit(relay.EqualOp(hi, lo)), ctx.constant(np.array(1, np.float32)), span))
    scale = ctx.emit(relay.DivideOp(span, ctx.constant(np.array(255, np.float32))))
    # zero point: saturate(round(0 - lo / scale)), as the spec computes it
    point = ctx.emit(relay.RoundOp(ctx.emit(relay.SubtractOp(zero, ctx.emit(relay.DivideOp(lo, scale))))))
    clipped = ctx.emit(relay.ClipOp(point, a_min=relay.f64_attr(0), a_max=relay.f64_attr(255)))
    zp = _cast(ctx, clipped, U8)
    return [ctx.emit(qnn.QuantizeOp(x, scale, zp)), scale, zp]


def _matmul(ctx: NodeContext, a: SSAValue, b: SSAValue, a_zp: SSAValue | None, b_zp: SSAValue | None) -> SSAValue:
    """`qnn.matmul` with a's zero point per row and b's per column."""
    a_zp = a_zp or _zero(ctx, _elem(a))
    b_zp = b_zp or _zero(ctx, _elem(b))
    if _rank(a_zp) == 1 and shape(a_zp)[0] != 1:
        a_zp = _reshape(ctx, a_zp, [shape(a_zp)[0], 1])
    elif _rank(a_zp) <= 1 or all(d == 1 for d in shape(a_zp)):
        a_zp = _reshape(ctx, a_zp, [])
    # else N-D per row ([..., M, 1]): it broadcasts as it is
    if _rank(b_zp) == 1 and shape(b_zp)[0] == 1:
        b_zp = _reshape(ctx, b_zp, [])
    return ctx.emit(qnn.MatMulOp(a, b, a_zp, b_zp))


@converter("MatMulInteger", emits=("qnn.matmul",), notes="zero points per tensor, per row of A, per column of B")
def _matmul_integer(ctx: NodeContext) -> Sequence[SSAValue]:
    return [_matmul(ctx, ctx.input(0), ctx.input(1), ctx.optional_input(2), ctx.optional_input(3))]


def _conv(ctx: NodeContext, x: SSAValue, w: SSAValue, x_zp: SSAValue | None, w_zp: SSAValue | None) -> SSAValue:
    if _rank(x) != 4:
        raise ctx.unsupported(f"{_rank(x) - 2}-D integer convolution is not supported (2-D is)")
    kernel = list(ctx.attr("kernel_shape", shape(w)[2:]))
    strides, dilations, pads = _spatial_attrs(ctx, 2, kernel)
    pads = _auto_pads(ctx, shape(x)[2:], kernel, strides, dilations, pads)
    x_zp = _reshape(ctx, x_zp, []) if x_zp is not None else _zero(ctx, _elem(x))
    w_zp = _along(ctx, w_zp, w, 0) if w_zp is not None else _zero(ctx, _elem(w))
    return ctx.emit(
        qnn.Conv2DOp(
            x, w, x_zp, w_zp,
            strides=relay.i64_array(strides),
            padding=relay.i64_array(pads),
            dilation=relay.i64_array(dilations),
            groups=relay.i64_attr(int(ctx.attr("group", 1))),
        )
    )


@converter("ConvInteger", emits=("qnn.conv2d",), notes="2-D; w zero point per tensor or per output channel")
def _conv_integer(ctx: NodeContext) -> Sequence[SSAValue]:
    return [_conv(ctx, ctx.input(0), ctx.input(1), ctx.optional_input(2), ctx.optional_input(3))]


def _requantize(ctx: NodeContext, acc: SSAValue, in_scale: SSAValue, y_scale: SSAValue, y_zp: SSAValue) -> SSAValue:
    """`acc * (in_scale / y_scale)` to y's type; the multiplier as ONNX's
    reference computes it, in f32."""
    multiplier = ctx.emit(relay.DivideOp(in_scale, _reshape(ctx, y_scale, [])))
    return ctx.emit(qnn.RequantizeOp(acc, multiplier, _reshape(ctx, y_zp, [])))


@converter("QLinearMatMul", emits=("qnn.matmul", "qnn.requantize"), notes="per tensor or per column of B")
def _qlinear_matmul(ctx: NodeContext) -> Sequence[SSAValue]:
    a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp = (ctx.input(i) for i in range(8))
    acc = _matmul(ctx, a, b, a_zp, b_zp)
    in_scale = ctx.emit(relay.MultiplyOp(_reshape(ctx, a_s, []), _columns(ctx, b_s)))
    return [_requantize(ctx, acc, in_scale, y_s, y_zp)]


@converter("QLinearConv", emits=("qnn.conv2d", "relay.add", "qnn.requantize"), notes="2-D; w per tensor or per output channel; i32 bias")
def _qlinear_conv(ctx: NodeContext) -> Sequence[SSAValue]:
    x, x_s, x_zp, w, w_s, w_zp, y_s, y_zp = (ctx.input(i) for i in range(8))
    acc = _conv(ctx, x, w, x_zp, w_zp)
    bias = ctx.optional_input(8)
    if bias is not None:
        acc = ctx.emit(relay.AddOp(acc, _reshape(ctx, bias, [shape(bias)[0], 1, 1])))
    w_scale = _reshape(ctx, w_s, []) if _rank(w_s) == 0 or shape(w_s)[0] == 1 else _reshape(ctx, w_s, [shape(w_s)[0], 1, 1])
    in_scale = ctx.emit(relay.MultiplyOp(_reshape(ctx, x_s, []), w_scale))
    return [_requantize(ctx, acc, in_scale, y_s, y_zp)]




def _per_tensor(ctx: NodeContext, v: SSAValue, what: str) -> SSAValue:
    """`v` (one value) as a scalar; unsupported if it has several."""
    if math.prod(shape(v)) != 1:
        raise ctx.unsupported(f"{what} must be per tensor")
    return _reshape(ctx, v, [])


def _tensor_params(ctx: NodeContext, scale: SSAValue, zp: SSAValue | None, of: SSAValue) -> tuple[SSAValue, SSAValue]:
    """A per-tensor scale and zero point of `of` as scalars (a missing zero
    point: 0 of `of`'s type)."""
    zp = _per_tensor(ctx, zp, "zero points") if zp is not None else _zero(ctx, _elem(of))
    return _per_tensor(ctx, scale, "scales"), zp


def _columns(ctx: NodeContext, scale: SSAValue) -> SSAValue:
    """B's scale: a scalar where it has one value, else one per column."""
    return _reshape(ctx, scale, []) if _rank(scale) == 0 or shape(scale)[0] == 1 else scale


def _qlinear_binary(ctx: NodeContext, kind: type[qnn.AddOp] | type[qnn.MulOp]) -> Sequence[SSAValue]:
    """onnxruntime's QLinearAdd/QLinearMul (com.microsoft): A, its scale and
    zero point, B, its, C's scale and zero point (each zero point optional;
    C's type is A's), per tensor."""
    a, b = ctx.input(0), ctx.input(3)
    params = [p for at, of in ((1, a), (4, b), (6, a)) for p in _tensor_params(ctx, ctx.input(at), ctx.optional_input(at + 1), of)]
    return [ctx.emit(kind(a, b, *params))]


@converter("com.microsoft:QLinearAdd", emits=("qnn.add",), notes="onnxruntime's contrib op; per-tensor scales; broadcasting")
def _qlinear_add(ctx: NodeContext) -> Sequence[SSAValue]:
    return _qlinear_binary(ctx, qnn.AddOp)


@converter("com.microsoft:QLinearMul", emits=("qnn.mul",), notes="onnxruntime's contrib op; per-tensor scales; broadcasting")
def _qlinear_mul(ctx: NodeContext) -> Sequence[SSAValue]:
    return _qlinear_binary(ctx, qnn.MulOp)


def _quantized_real(ctx: NodeContext, x: SSAValue, scale: SSAValue, zp: SSAValue | None) -> SSAValue:
    """`x` dequantized with a per-tensor scale and zero point (`qnn-fold-qdq`
    turns the chain it starts back into integer ops where it can)."""
    return ctx.emit(qnn.DequantizeOp(x, *_tensor_params(ctx, scale, zp, x)))


def _quantized_as(ctx: NodeContext, real: SSAValue, scale: SSAValue, zp: SSAValue) -> SSAValue:
    return ctx.emit(qnn.QuantizeOp(real, _per_tensor(ctx, scale, "scales"), _per_tensor(ctx, zp, "zero points")))


@converter(
    "com.microsoft:QGemm",
    emits=("qnn.matmul", "relay.add", "qnn.requantize"),
    notes="onnxruntime's contrib op; 2-D; B per tensor or per column; i32 C at scale alpha * a_scale * b_scale; float output without y_scale",
)
def _qgemm(ctx: NodeContext) -> Sequence[SSAValue]:
    a, a_s, a_zp, b, b_s, b_zp = (ctx.input(i) for i in range(6))
    c, y_s, y_zp = ctx.optional_input(6), ctx.optional_input(7), ctx.optional_input(8)
    if _rank(a) != 2 or _rank(b) != 2:
        raise ctx.unsupported("A and B must be 2-D")
    if int(ctx.attr("transA", 0)):
        a = ctx.emit(relay.TransposeOp(a, perm=relay.i64_array([1, 0])))
    if int(ctx.attr("transB", 0)):
        b = ctx.emit(relay.TransposeOp(b, perm=relay.i64_array([1, 0])))
    acc = _matmul(ctx, a, b, _per_tensor(ctx, a_zp, "a_zero_point"), b_zp)  # (b_zp as QLinearMatMul's)
    if c is not None:
        acc = ctx.emit(relay.AddOp(acc, c))
    alpha = ctx.constant(np.array(float(ctx.attr("alpha", 1.0)), np.float32))
    scale = ctx.emit(relay.MultiplyOp(ctx.emit(relay.MultiplyOp(alpha, _per_tensor(ctx, a_s, "a_scale"))), _columns(ctx, b_s)))
    if y_s is None:  # the float result
        return [ctx.emit(relay.MultiplyOp(_cast(ctx, acc, f32), scale))]
    return [_requantize(ctx, acc, scale, y_s, y_zp if y_zp is not None else _zero(ctx, _elem(a)))]


@converter(
    "com.microsoft:QLinearGlobalAveragePool",
    emits=("qnn.dequantize", "relay.mean", "qnn.quantize"),
    notes="onnxruntime's contrib op; NCHW or channels_last; per-tensor scales (integer sums by qnn-fold-qdq)",
)
def _qlinear_global_average_pool(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    real = _quantized_real(ctx, x, ctx.input(1), ctx.optional_input(2))
    rank = _rank(x)
    axes = list(range(1, rank - 1)) if int(ctx.attr("channels_last", 0)) else list(range(2, rank))
    mean = ctx.emit(relay.MeanOp(real, axes=relay.i64_array(axes), keepdims=UnitAttr()))
    y_zp = ctx.optional_input(4) or _zero(ctx, _elem(x))
    return [_quantized_as(ctx, mean, ctx.input(3), y_zp)]


@converter(
    "com.microsoft:QLinearConcat",
    emits=("qnn.dequantize", "relay.concatenate", "qnn.quantize"),
    notes="onnxruntime's contrib op; per-tensor scales (integer by qnn-fold-qdq)",
)
def _qlinear_concat(ctx: NodeContext) -> Sequence[SSAValue]:
    inputs = [ctx.input(i) for i in range(len(ctx.node.input))]
    y_s, y_zp, rest = inputs[0], inputs[1], inputs[2:]
    if not rest or len(rest) % 3:
        raise ctx.unsupported("inputs must be Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) triples")
    reals = [_quantized_real(ctx, rest[i], rest[i + 1], rest[i + 2]) for i in range(0, len(rest), 3)]
    axis = _axis(ctx, int(ctx.attr("axis")), _rank(rest[0]))
    return [_quantized_as(ctx, ctx.emit(relay.ConcatenateOp(*reals, axis=relay.i64_attr(axis))), y_s, y_zp)]


@converter(
    "com.microsoft:QLinearSoftmax",
    emits=("qnn.softmax",),
    notes="onnxruntime's contrib op; u8/s8, per-tensor scales; opset < 13 softmaxes the flattened trailing axes",
)
def _qlinear_softmax(ctx: NodeContext) -> Sequence[SSAValue]:
    """X, X_scale, X_zero_point, Y_scale, Y_zero_point: `qnn.softmax` through
    its QDQ form (`qnn-fold-qdq` makes it; it computes as onnxruntime's kernel)."""
    x = ctx.input(0)
    dims = shape(x)
    opset = int(ctx.attr("opset", 13))
    axis = _axis(ctx, int(ctx.attr("axis", -1 if opset >= 13 else 1)), len(dims))
    if opset < 13 and axis != len(dims) - 1:  # the trailing axes as one, on the codes
        if not all(isinstance(d, int) for d in dims):
            raise ctx.unsupported(f"opset {opset} flattens the axes from {axis}: they must be static, got {list(dims)}")
        x = _reshape(ctx, x, [math.prod(dims[:axis]), math.prod(dims[axis:])])  # type: ignore[arg-type]
        axis = 1
    real = _quantized_real(ctx, x, ctx.input(1), ctx.optional_input(2))
    soft = ctx.emit(relay.SoftmaxOp(real, axis=relay.i64_attr(axis)))
    y_zp = ctx.optional_input(4) or _zero(ctx, _elem(ctx.input(0)))
    return [_reshape(ctx, _quantized_as(ctx, soft, ctx.input(3), y_zp), list(dims))]  # type: ignore[arg-type]
