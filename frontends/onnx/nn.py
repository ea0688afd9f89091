"""Neural-network converters: matrix products (MatMul, Gemm), Softmax,
LogSoftmax and Hardmax (with the pre-13 2-D coercion), convolutions and
pooling (1-D to 3-D, with ONNX's pads, dilations and auto_pad; LpPool as an
average pool of |x|^p).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Attribute, SSAValue

from lamina.dialects import relay
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import (
    _axis,
    _cast,
    _elem,
    _rank,
    _reshape,
    _scalar,
    _unit,
)
from lamina.frontends.onnx.registry import converter


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
    if n not in relay.CONV_OPS:
        raise ctx.unsupported(f"{n}-D convolution is not supported (1-D to 3-D are)")
    kernel = list(ctx.attr("kernel_shape", shape(w)[2:]))
    if kernel != list(shape(w)[2:]):
        raise ctx.error(f"kernel_shape {kernel} does not match the weight {list(shape(w))}")
    strides, dilations, pads = _spatial_attrs(ctx, n, kernel)
    pads = _auto_pads(ctx, shape(x)[2:], kernel, strides, dilations, pads)
    y = ctx.emit(
        relay.CONV_OPS[n](
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
    if n not in relay.CONV_TRANSPOSE_OPS:
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
        relay.CONV_TRANSPOSE_OPS[n](
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


@converter(
    "LpPool",
    emits=(
        "relay.abs",
        "relay.multiply",
        "relay.power",
        "relay.avg_pool1d",
        "relay.avg_pool2d",
        "relay.avg_pool3d",
        "relay.sqrt",
    ),
    notes="1-D to 3-D; p, ceil_mode, dilations, pads, auto_pad",
)
def _lp_pool(ctx: NodeContext) -> Sequence[SSAValue]:
    """`(sum over the window of |x|^p)^(1/p)`, pads counting as zeros: the window
    sum is an average pool that counts the padding, times the window size. The
    end padding is extended (or trimmed) so that every window lies wholly in the
    padded input, which makes each average divide by the full window size."""
    x = ctx.input(0)
    n = _rank(x) - 2
    if n not in _AVG_POOL:
        raise ctx.unsupported(f"{n}-D pooling is not supported (1-D to 3-D are)")
    kernel = [int(k) for k in ctx.attr("kernel_shape", [])]
    if len(kernel) != n or any(k < 1 for k in kernel):
        raise ctx.error(f"kernel_shape {kernel} must have {n} positive values")
    strides, dilations, pads = _spatial_attrs(ctx, n, kernel)
    sizes = shape(x)[2:]
    pads = _auto_pads(ctx, sizes, kernel, strides, dilations, pads)
    ceil = bool(ctx.attr("ceil_mode", 0))
    p = float(ctx.attr("p", 2))
    if not p > 0:
        raise ctx.error(f"p must be positive, got {ctx.attr('p')}")
    begin, end = pads[:n], []
    for size, k, s, d, b, e in zip(sizes, kernel, strides, dilations, begin, pads[n:], strict=True):
        span, total = (k - 1) * d + 1, size + b + e
        if total < span or s < 1:
            raise ctx.error(
                f"the window (kernel {kernel}, dilations {dilations}) does not fit the "
                f"input {list(sizes)} padded by {pads}, or a stride is not positive"
            )
        out = (total - span + (s - 1 if ceil else 0)) // s + 1
        if ceil and (out - 1) * s >= size + b:  # the last window starts in the end padding
            out -= 1
        end.append(max((out - 1) * s + span - size - b, 0))
    a = ctx.emit(relay.AbsOp(x)) if p != 2 else x
    if p == 2:
        a = ctx.emit(relay.MultiplyOp(a, a))
    elif p != 1:
        a = ctx.emit(relay.PowerOp(a, _scalar(ctx, p, x)))
    avg = ctx.emit(
        _AVG_POOL[n](
            a,
            pool_size=relay.i64_array(kernel),
            strides=relay.i64_array(strides),
            padding=relay.i64_array(begin + end),
            dilation=relay.i64_array(dilations),
            count_include_pad=UnitAttr(),
        )
    )
    total = ctx.emit(relay.MultiplyOp(avg, _scalar(ctx, math.prod(kernel), x)))
    if p == 1:
        return [total]
    if p == 2:
        return [ctx.emit(relay.SqrtOp(total))]
    return [ctx.emit(relay.PowerOp(total, _scalar(ctx, 1.0 / p, x)))]


@converter("GlobalAveragePool", emits=("relay.mean",))
@converter("GlobalMaxPool", emits=("relay.max",))
def _global_pool(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    op = relay.MeanOp if ctx.node.op_type == "GlobalAveragePool" else relay.MaxOp
    axes = relay.i64_array(range(2, _rank(x)))
    return [ctx.emit(op(x, axes=axes, keepdims=UnitAttr()))]
