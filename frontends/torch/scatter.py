"""Writes into views and reads through strides: the ATen ops functionalization
leaves where a model assigns into a slice or an index (`x[a:b] = y`,
`x[i] = y`, `x[idx] = y`: copy, slice_scatter, select_scatter, index_put,
scatter), index_select, and as_strided (a view by explicit strides, read from
the input's storage as torch lays it out)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.shapes import dims_attr
from lamina.frontends.common import cast, rank, reshape, shape
from lamina.frontends.torch.context import NodeContext
from lamina.frontends.torch.layout import bound, slice_axis, stacked_indices
from lamina.frontends.torch.registry import converter


def _broadcast(ctx: NodeContext, x: SSAValue, dims: Sequence[object]) -> SSAValue:
    """`x` broadcast to `dims` (no op when it has them)."""
    if tuple(dims) == shape(x):
        return x
    return ctx.emit(relay.BroadcastToOp(x, shape=dims_attr(list(dims))))  # type: ignore[arg-type]


@converter("aten.copy.default", "aten.copy_.default")
def _copy(ctx: NodeContext) -> Sequence[SSAValue]:
    """`self.copy_(src)`, functional: `src` broadcast to `self`'s shape, in its dtype."""
    src = cast(ctx, ctx.tensor(ctx.arg(1), ctx.out_elem()), ctx.out_elem())
    return [_broadcast(ctx, src, ctx.out_shape())]


@converter("aten.index_select.default")
def _index_select(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    axis = relay.normalize_axis(ctx.op, int(ctx.arg(1)), rank(x))
    return [ctx.emit(relay.TakeOp(x, ctx.input(2), axis=relay.i64_attr(axis)))]


def _scatter_slice(
    ctx: NodeContext, x: SSAValue, src: SSAValue, axis: int, begin: object, end: object, step: int
) -> SSAValue:
    """`x` with `x[..., begin:end:step, ...] = src` on `axis`."""
    size = shape(x)[axis]
    b, e = bound(begin, size, 0), bound(end, size, size)  # type: ignore[arg-type]
    src = cast(ctx, src, ctx.out_elem())
    if step == 1 and isinstance(b, int) and isinstance(e, int) and isinstance(size, int):
        # src padded to x's shape where the slice lies, else x: each read once
        # (a concatenation reads x twice, and a chain of them, as a model
        # assigning into many slices makes, grows exponentially when fused)
        n = len(shape(x))
        begin, end = [0] * n, [0] * n
        begin[axis], end[axis] = b, size - e
        padded = ctx.emit(relay.PadOp(src, pad_width=relay.i64_array(begin + end), pad_value=relay.f64_attr(0.0)))
        inside = np.zeros([size if a == axis else 1 for a in range(n)], dtype=np.bool_)
        inside.reshape(-1)[b:e] = True
        return ctx.emit(relay.WhereOp(ctx.constant(inside, "slice_mask"), padded, x))
    if step == 1:  # symbolic bounds: the parts before and after, around src
        parts = []
        if b != 0:
            parts.append(slice_axis(ctx, x, axis, 0, b))
        parts.append(src)
        if e != size:
            parts.append(slice_axis(ctx, x, axis, e, size))
        if len(parts) == 1:
            return src
        return ctx.emit(relay.ConcatenateOp(*parts, axis=relay.i64_attr(axis)))
    dims = shape(src)
    if not (isinstance(b, int) and all(isinstance(d, int) for d in dims)):
        raise ctx.unsupported("a strided slice_scatter over symbolic sizes is not supported")
    along = (b + step * np.arange(dims[axis], dtype=np.int64)).reshape(
        [-1 if a == axis else 1 for a in range(len(dims))]
    )
    index = ctx.constant(np.broadcast_to(along, dims).copy(), "scatter_index")
    return ctx.emit(relay.ScatterElementsOp(x, index, src, axis=relay.i64_attr(axis)))


@converter("aten.slice_scatter.default")
def _slice_scatter(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    axis = relay.normalize_axis(ctx.op, int(ctx.arg(2, "dim", 0)), rank(x))
    start, end = ctx.arg(3, "start"), ctx.arg(4, "end")
    begin = ctx.dim(start) if start is not None else None
    stop = ctx.dim(end) if end is not None else None
    step = int(ctx.arg(5, "step", 1))
    return [_scatter_slice(ctx, x, ctx.input(1), axis, begin, stop, step)]


@converter("aten.select_scatter.default")
def _select_scatter(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    axis = relay.normalize_axis(ctx.op, int(ctx.arg(2)), rank(x))
    index = ctx.dim(ctx.arg(3))
    if isinstance(index, int) and index < 0:
        index = shape(x)[axis] + index
    src = ctx.input(1)
    dims = list(shape(src))
    src = reshape(ctx, src, [*dims[:axis], 1, *dims[axis:]])
    return [_scatter_slice(ctx, x, src, axis, index, index + 1, 1)]


@converter("aten.index_put.default", "aten.index_put_.default")
def _index_put(ctx: NodeContext) -> Sequence[SSAValue]:
    """`x[i0, i1, ...] = values` (or `+=` with accumulate) with index tensors
    on the leading axes: a `scatter_nd`."""
    x = ctx.input(0)
    indices = stacked_indices(ctx, list(ctx.arg(1)))
    lead = list(shape(indices))[:-1]
    k = shape(indices)[-1]
    values = cast(ctx, ctx.tensor(ctx.arg(2), ctx.out_elem()), ctx.out_elem())
    values = _broadcast(ctx, values, [*lead, *shape(x)[int(k):]])
    add = bool(ctx.arg(3, "accumulate", False))
    return [ctx.emit(relay.ScatterNDOp(x, indices, values, reduction=StringAttr("add") if add else None))]


@converter("aten.scatter.src", "aten.scatter.value", "aten.scatter_add.default", "aten.scatter.reduce")
def _scatter(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    axis = relay.normalize_axis(ctx.op, int(ctx.arg(1)), rank(x))
    index = ctx.input(2)
    src = ctx.arg(3, "src" if ctx.op != "aten.scatter.value" else "value")
    if ctx.op == "aten.scatter.value":
        updates = _broadcast(ctx, ctx.tensor(src, ctx.out_elem()), shape(index))
    else:
        updates = cast(ctx, ctx.tensor(src), ctx.out_elem())
        if shape(updates) != shape(index):
            updates = slice_to(ctx, updates, shape(index))
    reduce = "add" if ctx.op == "aten.scatter_add.default" else ctx.arg(4, "reduce")
    names = {None: None, "add": "add", "sum": "add", "multiply": "mul", "prod": "mul", "amax": "max", "amin": "min"}
    if reduce not in names:
        raise ctx.unsupported(f"reduce={reduce!r} is not supported")
    mode = names[reduce]
    return [ctx.emit(relay.ScatterElementsOp(
        x, index, updates, axis=relay.i64_attr(axis), reduction=StringAttr(mode) if mode else None
    ))]


def slice_to(ctx: NodeContext, x: SSAValue, dims: Sequence[object]) -> SSAValue:
    """The leading `dims` corner of `x` (torch's scatter reads only the part of
    `src` that `index` covers)."""
    return ctx.emit(relay.StridedSliceOp(
        x, begin=dims_attr([0] * len(dims)), end=dims_attr(list(dims)),  # type: ignore[arg-type]
        strides=relay.i64_array([1] * len(dims)),
    ))


@converter("aten.as_strided.default", "aten.as_strided_copy.default")
def _as_strided(ctx: NodeContext) -> Sequence[SSAValue]:
    """A view by explicit sizes and strides over the input's storage: the
    input's elements laid out by the strides torch gave it (dense, any order),
    read back at `offset + sum(i_k * stride_k)`; a reshape where that reads
    them in order, else a `take` of constant positions."""
    x = ctx.input(0)
    val = ctx.arg(0).meta["val"]
    size, stride = ctx.dims(ctx.arg(1)), [int(s) for s in ctx.arg(2)]
    offset = int(ctx.arg(3, "storage_offset", 0) or 0)
    in_dims = shape(x)
    if not all(isinstance(d, int) for d in [*size, *in_dims]):
        raise ctx.unsupported("as_strided over symbolic sizes is not supported")
    in_strides = [int(s) for s in val.stride()]
    n = int(np.prod(in_dims, dtype=np.int64))
    # where each element of x (in logical order) lies in its storage
    where = _offsets([int(d) for d in in_dims], in_strides)
    if sorted(where.tolist()) != list(range(n)):
        raise ctx.unsupported(
            f"as_strided over an input laid out with strides {in_strides} (not dense) is not supported"
        )
    logical = np.empty(n, dtype=np.int64)
    logical[where] = np.arange(n, dtype=np.int64)  # storage position -> element of x
    reads = offset + _offsets([int(d) for d in size], stride)
    if reads.size and (reads.min() < 0 or reads.max() >= n):
        raise ctx.unsupported(f"as_strided reads outside the input's {n} elements")
    picked = logical[reads]
    flat = reshape(ctx, x, [n])
    if picked.size == n and np.array_equal(picked, np.arange(n)):
        return [reshape(ctx, flat, size)]
    index = ctx.constant(picked.reshape([int(d) for d in size]), "as_strided_index")
    return [ctx.emit(relay.TakeOp(flat, index, axis=relay.i64_attr(0)))]


def _offsets(dims: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    """`sum(i_k * stride_k)` for every index of `dims`, flattened in order."""
    out = np.zeros([1] * len(dims), dtype=np.int64)
    for axis, (d, s) in enumerate(zip(dims, strides, strict=True)):
        out = out + (np.arange(d, dtype=np.int64) * s).reshape([-1 if a == axis else 1 for a in range(len(dims))])
    return np.broadcast_to(out, dims).reshape(-1)
