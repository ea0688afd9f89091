"""Layout and indexing ATen ops: views and reshapes (the result shape as torch
computed it, symbolic dims included), permutes, expands, concatenation,
slices, selects, splits, pads, advanced indexing (`index.Tensor` as a
`gather_nd`), gathers; and the tensors a graph creates (full, arange,
scalar_tensor)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, IntegerType
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.relay.constant import make_constant
from lamina.dialects.shapes import dims_attr
from lamina.frontends.common import cast, elem, positions, rank, reshape, shape
from lamina.frontends.torch.context import NodeContext, elem_of
from lamina.frontends.torch.registry import converter
from lamina.symbolic import Dim

I64 = IntegerType(64)
#: The largest int64: torch's "to the end" of a slice.
_END = 2**63 - 1


@converter(
    "aten.view.default", "aten._unsafe_view.default", "aten.reshape.default",
    "aten.unsqueeze.default", "aten.squeeze.dim", "aten.squeeze.dims", "aten.squeeze.default",
    "aten.flatten.using_ints", "aten.view_copy.default",
)
def _view(ctx: NodeContext) -> Sequence[SSAValue]:
    return [reshape(ctx, ctx.input(0), ctx.out_shape())]


@converter("aten.permute.default")
def _permute(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    perm = [relay.normalize_axis(ctx.op, int(d), rank(x)) for d in ctx.arg(1)]
    if perm == list(range(rank(x))):
        return [x]
    return [ctx.emit(relay.TransposeOp(x, perm=relay.i64_array(perm)))]


@converter("aten.transpose.int", "aten.t.default")
def _transpose(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    n = rank(x)
    if n < 2:
        return [x]
    a, b = (int(ctx.arg(1)), int(ctx.arg(2))) if ctx.op == "aten.transpose.int" else (0, 1)
    a, b = relay.normalize_axis(ctx.op, a, n), relay.normalize_axis(ctx.op, b, n)
    perm = list(range(n))
    perm[a], perm[b] = perm[b], perm[a]
    return [ctx.emit(relay.TransposeOp(x, perm=relay.i64_array(perm)))]


@converter("aten.expand.default", "aten.expand_copy.default")
def _expand(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    out = ctx.out_shape()
    if tuple(out) == shape(x):
        return [x]
    return [ctx.emit(relay.BroadcastToOp(x, shape=dims_attr(out)))]


@converter("aten.repeat.default")
def _repeat(ctx: NodeContext) -> Sequence[SSAValue]:
    """`x.repeat(*reps)`: a tile, over leading size-1 axes where `reps` is longer."""
    x = ctx.input(0)
    reps = [int(r) for r in ctx.arg(1)]
    dims = list(shape(x))
    if len(reps) < len(dims):
        raise ctx.error(f"repeat needs at least {len(dims)} repeats, got {reps}")
    x = reshape(ctx, x, [1] * (len(reps) - len(dims)) + dims)
    if all(r == 1 for r in reps):
        return [x]
    return [ctx.emit(relay.TileOp(x, reps=relay.i64_array(reps)))]


@converter("aten.cat.default", "aten.concat.default")
def _cat(ctx: NodeContext) -> Sequence[SSAValue]:
    to = ctx.out_elem()
    xs = [cast(ctx, ctx.tensor(t), to) for t in ctx.arg(0)]
    xs = [x for x in xs if shape(x) != (0,)]  # torch skips empty 1-D tensors
    axis = relay.normalize_axis(ctx.op, int(ctx.arg(1, "dim", 0)), rank(xs[0]))
    if len(xs) == 1:
        return xs
    return [ctx.emit(relay.ConcatenateOp(*xs, axis=relay.i64_attr(axis)))]


def bound(v: int | Dim | None, size: Dim, default: Dim) -> Dim:
    """A slice bound as torch reads it: None is `default`, a negative int counts
    from the end, and an int is clamped to the size (when the size is known)."""
    if v is None:
        return default
    if isinstance(v, int):
        if v >= _END or (isinstance(size, int) and v > size):
            return size
        if v < 0:
            return max(size + v, 0) if isinstance(size, int) else size + v
    return v


def slice_axis(ctx: NodeContext, x: SSAValue, axis: int, begin: Dim, end: Dim, step: int = 1) -> SSAValue:
    dims = shape(x)
    if (begin, end, step) == (0, dims[axis], 1):
        return x
    n = len(dims)
    b = [begin if a == axis else 0 for a in range(n)]
    e = [end if a == axis else dims[a] for a in range(n)]
    s = [step if a == axis else 1 for a in range(n)]
    return ctx.emit(relay.StridedSliceOp(x, begin=dims_attr(b), end=dims_attr(e), strides=relay.i64_array(s)))


@converter("aten.slice.Tensor", "aten.slice_copy.Tensor")
def _slice_tensor(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    axis = relay.normalize_axis(ctx.op, int(ctx.arg(1, "dim", 0)), rank(x))
    size = shape(x)[axis]
    start, end = ctx.arg(2, "start"), ctx.arg(3, "end")
    start = ctx.dim(start) if start is not None else None
    end = ctx.dim(end) if end is not None else None
    step = int(ctx.arg(4, "step", 1))
    b, e = bound(start, size, 0), bound(end, size, size)
    if isinstance(b, int) and isinstance(e, int) and e <= b:
        raise ctx.unsupported("an empty slice is not supported")
    return [slice_axis(ctx, x, axis, b, e, step)]


@converter("aten.select.int", "aten.select_copy.int")
def _select(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    axis = relay.normalize_axis(ctx.op, int(ctx.arg(1)), rank(x))
    size = shape(x)[axis]
    index = ctx.dim(ctx.arg(2))
    if isinstance(index, int) and index < 0:
        index = size + index
    y = slice_axis(ctx, x, axis, index, index + 1)
    return [reshape(ctx, y, ctx.out_shape())]


@converter("aten.split_with_sizes.default", "aten.split.Tensor", "aten.split_with_sizes_copy.default")
def _split(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    axis = relay.normalize_axis(ctx.op, int(ctx.arg(2, "dim", 0)), rank(x))
    sizes = [int(v.shape[axis]) for v in ctx.out_val()]
    points = list(itertools.accumulate(sizes))[:-1]
    outs = ctx.emit_all(relay.SplitOp(x, axis=relay.i64_attr(axis), indices=relay.i64_array(points)))
    return outs


@converter("aten.constant_pad_nd.default")
def _pad(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    pad = [int(p) for p in ctx.arg(1)]
    value = float(ctx.arg(2, "value", 0.0))
    n = rank(x)
    begin, end = [0] * n, [0] * n
    for i in range(len(pad) // 2):  # pairs from the last axis backwards
        begin[n - 1 - i], end[n - 1 - i] = pad[2 * i], pad[2 * i + 1]
    return [ctx.emit(relay.PadOp(x, pad_width=relay.i64_array(begin + end), pad_value=relay.f64_attr(value)))]


def stacked_indices(ctx: NodeContext, indices: Sequence[object]) -> SSAValue:
    """Index tensors for the leading axes (`x[i0, i1, ...]`), broadcast
    together and stacked on a last axis: the indices of a `gather_nd` or a
    `scatter_nd`."""
    if any(i is None for i in indices):
        raise ctx.unsupported("indexing with slices (None) between index tensors is not supported")
    if any(elem(ctx.tensor(i)) == elem_of("bool") for i in indices):
        raise ctx.unsupported("boolean mask indexing is not supported")
    idx = [cast(ctx, ctx.tensor(i), elem_of("int64")) for i in indices]
    common = relay.broadcast_shapes(ctx.op, *(shape(i) for i in idx))
    parts = []
    for i in idx:
        if shape(i) != tuple(common):
            i = ctx.emit(relay.BroadcastToOp(i, shape=dims_attr(common)))
        parts.append(reshape(ctx, i, [*common, 1]))
    if len(parts) == 1:
        return parts[0]
    return ctx.emit(relay.ConcatenateOp(*parts, axis=relay.i64_attr(len(common))))


@converter("aten.index.Tensor")
def _index(ctx: NodeContext) -> Sequence[SSAValue]:
    """`x[i0, i1, ...]` with index tensors on the leading axes (broadcast
    together): a `gather_nd` over their stacked values."""
    return [ctx.emit(relay.GatherNDOp(ctx.input(0), stacked_indices(ctx, list(ctx.arg(1)))))]


@converter("aten.gather.default")
def _gather(ctx: NodeContext) -> Sequence[SSAValue]:
    x, index = ctx.input(0), ctx.input(2)
    axis = relay.normalize_axis(ctx.op, int(ctx.arg(1)), rank(x))
    return [ctx.emit(relay.GatherOp(x, index, axis=relay.i64_attr(axis)))]


# ------------------------------------------------------------ new tensors
def _filled(ctx: NodeContext, value: float | bool, dims: Sequence[Dim]) -> SSAValue:
    dtype = numpy_dtype(ctx.out_elem())
    if all(isinstance(d, int) for d in dims):  # a splat: one value, not a buffer of them
        t = relay.tensor([int(d) for d in dims], ctx.out_elem())
        return ctx.emit(make_constant(np.array(value, dtype=dtype), t, "full"))
    v = ctx.constant(np.array(value, dtype=dtype), "full")
    return ctx.emit(relay.BroadcastToOp(v, shape=dims_attr(list(dims))))


@converter(
    "aten.full.default", "aten.full_like.default", "aten.zeros.default", "aten.ones.default",
    "aten.zeros_like.default", "aten.ones_like.default", "aten.scalar_tensor.default",
    "aten.new_full.default", "aten.new_zeros.default", "aten.new_ones.default",
)
def _full(ctx: NodeContext) -> Sequence[SSAValue]:
    name = ctx.op.split(".")[1]
    if name in ("full", "new_full", "full_like"):
        value = ctx.arg(2 if name == "new_full" else 1, "fill_value")
    elif name == "scalar_tensor":
        value = ctx.arg(0)
    else:
        value = 1 if "ones" in name else 0
    if not isinstance(value, bool | int | float):
        raise ctx.unsupported(f"a fill value {value!r} that is not a number is not supported")
    return [_filled(ctx, value, ctx.out_shape())]


@converter("aten.arange.start_step", "aten.arange.default", "aten.arange.start")
def _arange(ctx: NodeContext) -> Sequence[SSAValue]:
    args = [ctx.arg(i) for i in range(len(ctx.node.args))]
    if ctx.op == "aten.arange.default":
        start, end, step = 0, args[0], 1
    else:
        start, end = args[0], args[1]
        step = args[2] if len(args) > 2 else ctx.node.kwargs.get("step", 1)
    start, end = ctx.dim(start) if not isinstance(start, float) else start, ctx.dim(end) if not isinstance(end, float) else end
    to = ctx.out_elem()
    n = ctx.out_shape()[0]
    if isinstance(n, int):
        values = np.arange(n, dtype=np.float64) * float(step) + float(start)
        return [ctx.constant(values.astype(numpy_dtype(to)), "arange")]
    if not (isinstance(start, int) and isinstance(step, int)):
        raise ctx.unsupported("a symbolic arange needs integer start and step")
    if (start, step) == (0, 1):
        return [cast(ctx, positions(ctx, n), to)]
    y = ctx.emit(relay.ArangeOp(size=dims_attr([n]), start=IntegerAttr(start, I64), step=IntegerAttr(step, I64)))
    return [cast(ctx, y, to)]


