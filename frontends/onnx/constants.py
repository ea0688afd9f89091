"""Converters whose result is a constant, known from static shapes or
attributes alone: Shape, Size, Constant, ConstantOfShape, Range and EyeLike
(ConstantOfShape and Range over values given when the model runs are computed
then: `runtime_shapes`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import onnx
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import element_type, numpy_dtype
from lamina.dialects.shapes import dims_attr
from lamina.frontends.onnx import runtime_shapes as rs
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import _dims, _dtype, _elem, _rank, _reshape
from lamina.frontends.onnx.registry import converter
from lamina.symbolic import Sym


# ------------------------------------------------------------------ shapes
@converter("Shape", emits=(), notes="a constant (start, end)")
def _shape(ctx: NodeContext) -> Sequence[SSAValue]:
    s = shape(ctx.input(0))
    rank = len(s)
    start, end = int(ctx.attr("start", 0)), ctx.attr("end")
    end = rank if end is None else int(end)
    start, end = (min(max(v + rank if v < 0 else v, 0), rank) for v in (start, end))
    return [ctx.constant(np.array(s[start:end], dtype=object), "shape")]  # (see `constant`)


@converter("Size", emits=(), notes="a constant")
def _size(ctx: NodeContext) -> Sequence[SSAValue]:
    return [ctx.constant(np.array(math.prod(shape(ctx.input(0))), dtype=object), "size")]


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


@converter(
    "ConstantOfShape", emits=("relay.broadcast_to", "relay.dyn_broadcast_to"),
    notes="a constant; symbolic dims; a run-time shape",
)
def _constant_of_shape(ctx: NodeContext) -> Sequence[SSAValue]:
    value = ctx.attr("value")
    arr = onnx.numpy_helper.to_array(value) if value is not None else np.zeros(1, np.float32)
    fill = np.array(arr.reshape(-1)[0], dtype=arr.dtype)
    if ctx.at_run_time(0):
        return [rs.broadcast(ctx, ctx.constant(fill), rs.values(ctx, 0))]
    dims = _dims(ctx.const_value(0))
    if any(isinstance(d, Sym) for d in dims):  # the model's sizes: a broadcast
        return [ctx.emit(relay.BroadcastToOp(ctx.constant(fill), shape=dims_attr(dims)))]
    return [ctx.constant(np.full(dims, fill, dtype=arr.dtype))]


@converter(
    "Range", emits=("relay.arange", "relay.dyn_arange"), notes="constant start and delta; a symbolic limit; run-time values"
)
def _range(ctx: NodeContext) -> Sequence[SSAValue]:
    if any([ctx.at_run_time(i) for i in range(3)]):
        scalars = [_reshape(ctx, ctx.input(i), []) for i in range(3)]
        return [rs.arange_between(ctx, *scalars)]
    start, limit, delta = (ctx.const_value(i) for i in range(3))
    if limit.dtype != object:
        return [ctx.constant(np.arange(start, limit, delta, dtype=np.asarray(start).dtype))]
    # A length given by the model's sizes (`arange(seq)`): computed when it runs.
    dtype = np.asarray(start).dtype
    if dtype.kind not in "iu" or start.dtype == object or delta.dtype == object:
        raise ctx.unsupported(
            f"a symbolic limit ({limit.reshape(-1)[0]}) needs integer start and delta "
            "that are constants"
        )
    lo, hi, step = int(start.reshape(-1)[0]), limit.reshape(-1)[0], int(delta.reshape(-1)[0])
    if step == 0:
        raise ctx.error("delta is 0")
    if step > 0:
        ctx.assume(lo - hi, 0, f"counts from {lo} up to {hi}")
        size = (hi - lo + step - 1) // step
    else:
        ctx.assume(hi - lo, 0, f"counts from {lo} down to {hi}")
        size = (lo - hi - step - 1) // -step
    t = element_type(dtype)
    return [
        ctx.emit(
            relay.ArangeOp(
                size=dims_attr([size]), start=IntegerAttr(lo, t), step=IntegerAttr(step, t)
            )
        )
    ]


@converter("EyeLike", emits=(), notes="a constant")
def _eye_like(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    if _rank(x) != 2:
        raise ctx.error(f"input must be 2-D, got {list(shape(x))}")
    elem = _dtype(ctx, int(ctx.attr("dtype"))) if ctx.has_attr("dtype") else _elem(x)
    n, m = shape(x)
    return [ctx.constant(np.eye(n, m, int(ctx.attr("k", 0)), dtype=numpy_dtype(elem)), "eye")]
