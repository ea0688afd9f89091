"""Neural-network ATen ops: convolutions, matrix products, softmax, batch and
layer norm, pooling, reductions and embeddings."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import StringAttr, UnitAttr
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.frontends.common import cast, elem, layer_norm, rank, reshape, scalar, shape
from lamina.frontends.torch.context import NodeContext, elem_of
from lamina.frontends.torch.registry import converter


def _per_axis(values: Sequence[int] | int, n: int) -> list[int]:
    """An int or a list of one or `n` ints, as `n` ints."""
    vs = [values] if isinstance(values, int) else list(values)
    return vs * n if len(vs) == 1 else vs


@converter("aten.convolution.default")
def _convolution(ctx: NodeContext) -> Sequence[SSAValue]:
    x, w = ctx.input(0), ctx.input(1)
    bias = ctx.arg(2)
    n = rank(x) - 2
    stride, padding, dilation = (_per_axis(ctx.arg(i), n) for i in (3, 4, 5))
    transposed, output_padding, groups = bool(ctx.arg(6)), _per_axis(ctx.arg(7), n), int(ctx.arg(8))
    table = relay.CONV_TRANSPOSE_OPS if transposed else relay.CONV_OPS
    if n not in table:
        raise ctx.unsupported(f"{n}-D convolution is not supported (1-D to 3-D are)")
    props = {
        "strides": relay.i64_array(stride),
        "padding": relay.i64_array(padding + padding),
        "dilation": relay.i64_array(dilation),
        "groups": relay.i64_attr(groups),
    }
    if transposed:
        props["output_padding"] = relay.i64_array(output_padding)
    y = ctx.emit(table[n](x, w, **props))
    if bias is not None:
        y = ctx.emit(relay.BiasAddOp(y, ctx.tensor(bias)))
    return [y]


@converter("aten.addmm.default")
def _addmm(ctx: NodeContext) -> Sequence[SSAValue]:
    bias, a, b = ctx.input(0), ctx.input(1), ctx.input(2)
    beta, alpha = float(ctx.arg(3, "beta", 1)), float(ctx.arg(4, "alpha", 1))
    return [ctx.emit(relay.DenseOp(
        a, b, bias,
        alpha=relay.f64_attr(alpha) if alpha != 1 else None,
        beta=relay.f64_attr(beta) if beta != 1 else None,
    ))]


@converter("aten.mm.default", "aten.bmm.default", "aten.matmul.default")
def _matmul(ctx: NodeContext) -> Sequence[SSAValue]:
    return [ctx.emit(relay.MatmulOp(ctx.input(0), ctx.input(1)))]


@converter(
    "aten._softmax.default", "aten.softmax.int", "aten._log_softmax.default",
    "aten.log_softmax.int", "aten._safe_softmax.default",
)
def _softmax(ctx: NodeContext) -> Sequence[SSAValue]:
    x = cast(ctx, ctx.input(0), ctx.out_elem())
    axis = relay.normalize_axis(ctx.op, int(ctx.arg(1)), rank(x))
    if "log_softmax" in ctx.op:
        return [ctx.emit(relay.LogSoftmaxOp(x, axis=relay.i64_attr(axis)))]
    # _safe_softmax (attention's): a row of -inf gives zeros, in the kernel
    safe = UnitAttr() if ctx.op == "aten._safe_softmax.default" else None
    return [ctx.emit(relay.SoftmaxOp(x, axis=relay.i64_attr(axis), safe=safe))]


def _ones(ctx: NodeContext, n: int, like: SSAValue, value: float = 1.0) -> SSAValue:
    return ctx.constant(np.full([n], value, dtype=numpy_dtype(elem(like))))


@converter("aten._native_batch_norm_legit_no_training.default")
def _batch_norm(ctx: NodeContext) -> Sequence[SSAValue | None]:
    x = ctx.input(0)
    weight, bias = ctx.arg(1), ctx.arg(2)
    mean, var = ctx.input(3), ctx.input(4)
    eps = float(ctx.arg(6, "eps"))
    c = shape(x)[1]
    if not isinstance(c, int):
        raise ctx.unsupported("a symbolic channel count is not supported")
    scale = ctx.tensor(weight) if weight is not None else _ones(ctx, c, x)
    shift = ctx.tensor(bias) if bias is not None else _ones(ctx, c, x, 0.0)
    y = ctx.emit(relay.BatchNormOp(x, scale, shift, mean, var, epsilon=relay.f64_attr(eps)))
    if ctx.result_used(1) or ctx.result_used(2):
        raise ctx.unsupported("the saved mean and invstd results are not supported")
    return [y, None, None]


@converter("aten.native_layer_norm.default")
def _layer_norm(ctx: NodeContext) -> Sequence[SSAValue | None]:
    x = ctx.input(0)
    normalized = list(ctx.arg(1))
    weight, bias, eps = ctx.arg(2), ctx.arg(3), float(ctx.arg(4))
    axis = rank(x) - len(normalized)
    scale = ctx.tensor(weight) if weight is not None else None
    shift = ctx.tensor(bias) if bias is not None else None
    stats = ctx.result_used(1) or ctx.result_used(2)
    outs: list[SSAValue | None] = list(layer_norm(ctx, x, scale, shift, axis, eps, stats=stats))
    return outs + [None] * (3 - len(outs))


# ----------------------------------------------------------------- pooling
_MAX_POOL = {1: relay.MaxPool1DOp, 2: relay.MaxPool2DOp, 3: relay.MaxPool3DOp}
_AVG_POOL = {1: relay.AvgPool1DOp, 2: relay.AvgPool2DOp, 3: relay.AvgPool3DOp}


@converter(
    "aten.max_pool2d_with_indices.default", "aten.max_pool3d_with_indices.default",
    "aten.max_pool1d_with_indices.default",
)
def _max_pool(ctx: NodeContext) -> Sequence[SSAValue | None]:
    x = ctx.input(0)
    n = rank(x) - 2
    kernel = _per_axis(ctx.arg(1), n)
    stride = _per_axis(ctx.arg(2, "stride") or kernel, n)
    padding = _per_axis(ctx.arg(3, "padding", 0), n)
    dilation = _per_axis(ctx.arg(4, "dilation", 1), n)
    ceil = bool(ctx.arg(5, "ceil_mode", False))
    if ctx.result_used(1):
        raise ctx.unsupported("the indices result is not supported (only the pooled values)")
    y = ctx.emit(_MAX_POOL[n](
        x, pool_size=relay.i64_array(kernel), strides=relay.i64_array(stride),
        padding=relay.i64_array(padding + padding), dilation=relay.i64_array(dilation),
        ceil_mode=UnitAttr() if ceil else None,
    ))
    return [y, None]


@converter("aten.avg_pool2d.default", "aten.avg_pool1d.default", "aten.avg_pool3d.default")
def _avg_pool(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    n = rank(x) - 2
    kernel = _per_axis(ctx.arg(1), n)
    stride = _per_axis(ctx.arg(2, "stride") or kernel, n)
    padding = _per_axis(ctx.arg(3, "padding", 0), n)
    ceil = bool(ctx.arg(4, "ceil_mode", False))
    include = bool(ctx.arg(5, "count_include_pad", True))
    if ctx.arg(6, "divisor_override") is not None:
        raise ctx.unsupported("divisor_override is not supported")
    return [ctx.emit(_AVG_POOL[n](
        x, pool_size=relay.i64_array(kernel), strides=relay.i64_array(stride),
        padding=relay.i64_array(padding + padding), dilation=relay.i64_array([1] * n),
        ceil_mode=UnitAttr() if ceil else None,
        count_include_pad=UnitAttr() if include else None,
    ))]


@converter("aten._adaptive_avg_pool2d.default", "aten.adaptive_avg_pool2d.default")
def _adaptive_avg_pool(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    sizes = shape(x)[2:]
    out = _per_axis(ctx.arg(1), 2)
    if out == [1, 1]:
        return [ctx.emit(relay.MeanOp(x, axes=relay.i64_array([2, 3]), keepdims=UnitAttr()))]
    if not all(isinstance(s, int) and s % o == 0 for s, o in zip(sizes, out, strict=True)):
        raise ctx.unsupported(
            f"adaptive pooling of {list(sizes)} to {out} is supported only when the sizes divide"
        )
    kernel = [s // o for s, o in zip(sizes, out, strict=True)]
    return [ctx.emit(relay.AvgPool2DOp(
        x, pool_size=relay.i64_array(kernel), strides=relay.i64_array(kernel),
        padding=relay.i64_array([0] * 4), dilation=relay.i64_array([1, 1]),
    ))]


# -------------------------------------------------------------- reductions
_REDUCE = {
    "mean": relay.MeanOp, "sum": relay.SumOp, "amax": relay.MaxOp, "amin": relay.MinOp,
    "prod": relay.ProdOp, "any": relay.MaxOp, "all": relay.MinOp,
}


@converter(
    "aten.mean.dim", "aten.mean.default", "aten.sum.dim_IntList", "aten.sum.default",
    "aten.amax.default", "aten.amin.default", "aten.prod.dim_int", "aten.any.dim",
    "aten.any.dims", "aten.any.default", "aten.all.dim", "aten.all.default",
)
def _reduce(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    name = ctx.op.split(".")[1]
    dims = ctx.arg(1, "dim") if not ctx.op.endswith(".default") or name in ("amax", "amin") else None
    n = rank(x)
    if dims is None or dims == []:
        axes = list(range(n))
    else:
        axes = sorted(relay.normalize_axis(ctx.op, int(d), n) for d in _per_axis(dims, 1 if isinstance(dims, int) else len(dims)))
    keep = bool(ctx.arg(2, "keepdim", False)) if dims is not None else False
    boolean = name in ("any", "all")
    to = ctx.out_elem()
    if boolean:  # over 0/1 as i32
        x = cast(ctx, ctx.emit(relay.NotEqualOp(x, scalar(ctx, 0, x))) if elem(x) != elem_of("bool") else x, elem_of("int32"))
    else:
        x = cast(ctx, x, to)
    y = ctx.emit(_REDUCE[name](x, axes=relay.i64_array(axes), keepdims=UnitAttr() if keep else None))
    return [cast(ctx, y, to)]


@converter("aten.max.dim", "aten.min.dim")
def _max_dim(ctx: NodeContext) -> Sequence[SSAValue | None]:
    x = ctx.input(0)
    axis = relay.normalize_axis(ctx.op, int(ctx.arg(1)), rank(x))
    keep = UnitAttr() if ctx.arg(2, "keepdim", False) else None
    big = ctx.op.startswith("aten.max")
    values = ctx.emit((relay.MaxOp if big else relay.MinOp)(x, axes=relay.i64_array([axis]), keepdims=keep))
    idx = None
    if ctx.result_used(1):
        arg = relay.ArgMaxOp if big else relay.ArgMinOp
        idx = ctx.emit(arg(x, axis=relay.i64_attr(axis), keepdims=keep))
    return [values, idx]


@converter("aten.argmax.default", "aten.argmin.default")
def _argmax(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    dim = ctx.arg(1, "dim")
    keep = bool(ctx.arg(2, "keepdim", False))
    if dim is None:
        x, dim, keep = reshape(ctx, x, [int(np.prod(shape(x)))]), 0, False
    axis = relay.normalize_axis(ctx.op, int(dim), rank(x))
    arg = relay.ArgMaxOp if "argmax" in ctx.op else relay.ArgMinOp
    return [ctx.emit(arg(x, axis=relay.i64_attr(axis), keepdims=UnitAttr() if keep else None))]


@converter("aten.cumsum.default")
def _cumsum(ctx: NodeContext) -> Sequence[SSAValue]:
    x = cast(ctx, ctx.input(0), ctx.out_elem())
    axis = relay.normalize_axis(ctx.op, int(ctx.arg(1)), rank(x))
    return [ctx.emit(relay.CumulativeOp(x, axis=relay.i64_attr(axis), kind=StringAttr("sum")))]


# -------------------------------------------------------------- embeddings
@converter("aten.embedding.default")
def _embedding(ctx: NodeContext) -> Sequence[SSAValue]:
    weight, indices = ctx.input(0), ctx.input(1)
    return [ctx.emit(relay.TakeOp(weight, indices, axis=relay.i64_attr(0)))]
