"""Layout converters: ops that move data without computing on it (Reshape,
Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice, Gather,
GatherElements, GatherND, Expand, Tile, Pad, CenterCropPad, Trilu, DepthToSpace,
SpaceToDepth, ReverseSequence, OneHot).

Inputs that describe shapes (a Reshape's `shape`, a Slice's `starts`, ...) are
read while compiling when they are constants (or fold to symbolic dims); given
only when the model runs, their ONNX rules are computed then
(`runtime_shapes`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerType, StringAttr
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import element_type, numpy_dtype
from lamina.dialects.shapes import dims_attr
from lamina.frontends.onnx import runtime_shapes as rs
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import (
    _axis,
    _cast,
    _dims,
    _elem,
    _ints,
    _rank,
    _reshape,
    _unit,
)
from lamina.frontends.onnx.registry import converter
from lamina.symbolic import Dim, Sym, SymbolicError


# ------------------------------------------------------------------ layout
@converter(
    "Reshape", emits=("relay.reshape", "relay.dyn_reshape"), notes="0, -1 and allowzero; a run-time shape"
)
def _reshape_op(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    src = shape(x)
    allowzero = int(ctx.attr("allowzero", 0))
    if ctx.opset >= 5 and ctx.at_run_time(1):
        return [rs.reshape(ctx, x, rs.values(ctx, 1), bool(allowzero))]
    target = _dims(ctx.const_value(1)) if ctx.opset >= 5 else list(ctx.attr("shape"))
    out = [src[i] if (d == 0 and not allowzero) else d for i, d in enumerate(target)]
    if out.count(-1) > 1:
        raise ctx.error(f"shape {[str(d) for d in target]} has more than one -1")
    if -1 in out:
        known = math.prod(d for d in out if d != -1)
        total = math.prod(src)
        try:
            if known == 0 or total % known:
                raise SymbolicError("not divisible")
            out[out.index(-1)] = total // known
        except SymbolicError:
            raise ctx.error(
                f"cannot reshape {[str(d) for d in src]} to {[str(d) for d in target]}"
            ) from None
    return [ctx.emit(relay.ReshapeOp(x, shape=dims_attr(out)))]


@converter("Flatten", emits=("relay.reshape",))
def _flatten(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    s = shape(x)
    axis = int(ctx.attr("axis", 1))
    axis = axis + len(s) if axis < 0 else axis
    if not 0 <= axis <= len(s):
        raise ctx.error(f"axis {ctx.attr('axis')} is out of range for rank {len(s)}")
    return [ctx.emit(relay.ReshapeOp(x, shape=dims_attr([math.prod(s[:axis]), math.prod(s[axis:])])))]


def _axes_arg(ctx: NodeContext, since: int, index: int = 1) -> list[int] | None:
    """Axes given as an attribute before opset `since`, as an input from it."""
    if ctx.opset >= since:
        v = ctx.optional_const(index)
        return None if v is None else _ints(v)
    axes = ctx.attr("axes")
    return None if axes is None else [int(a) for a in axes]


def _runtime_axes(ctx: NodeContext, since: int) -> bool:
    """Whether the axes are an input given only when the model runs."""
    return ctx.opset >= since and ctx.at_run_time(1)


@converter("Squeeze", emits=("relay.reshape", "relay.dyn_reshape"), notes="axes as attribute or input (run-time too)")
def _squeeze(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    s = shape(x)
    if _runtime_axes(ctx, 13):
        return [rs.squeeze(ctx, x, rs.values(ctx, 1))]
    axes = _axes_arg(ctx, 13)
    if axes is None:
        drop = {i for i, d in enumerate(s) if d == 1}
    else:
        drop = {_axis(ctx, a, len(s)) for a in axes}
        bad = [a for a in sorted(drop) if s[a] != 1]
        if bad:
            raise ctx.error(f"cannot squeeze axes {bad} of shape {list(s)}: not of size 1")
    out = [d for i, d in enumerate(s) if i not in drop]
    return [ctx.emit(relay.ReshapeOp(x, shape=dims_attr(out)))]


@converter("Unsqueeze", emits=("relay.reshape", "relay.dyn_reshape"), notes="axes as attribute or input (run-time too)")
def _unsqueeze(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    if _runtime_axes(ctx, 13):
        return [rs.unsqueeze(ctx, x, rs.values(ctx, 1))]
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
    return [ctx.emit(relay.ReshapeOp(x, shape=dims_attr(s)))]


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


@converter(
    "Split", emits=("relay.split", "relay.take"), notes="split as attribute or input (run-time too), num_outputs"
)
def _split(ctx: NodeContext) -> Sequence[SSAValue]:
    """Sizes come from the `split` attribute (before opset 13) or input (since);
    without them the axis splits evenly into the outputs (opset 18: into
    `num_outputs` chunks of ceil(size / n), the last one smaller)."""
    x = ctx.input(0)
    axis = _axis(ctx, int(ctx.attr("axis", 0)), _rank(x))
    dim = shape(x)[axis]
    if ctx.opset >= 13 and ctx.at_run_time(1):
        return rs.split(ctx, x, axis, rs.values(ctx, 1))
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


@converter(
    "Slice",
    emits=("relay.strided_slice", "relay.take"),
    notes="negative steps; attributes before opset 10; run-time starts, ends, axes, steps",
)
def _slice(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    s = shape(x)
    given = [i for i in range(1, 5) if ctx.optional_input(i) is not None]
    if ctx.opset >= 10 and any([ctx.at_run_time(i) for i in given]):
        axes, steps = ctx.optional_input(3), ctx.optional_input(4)
        touched: list[int] | None = None  # the axes sliced, if known now
        if axes is None:
            (count,) = shape(ctx.input(1))
            touched = list(range(int(count)))
        elif ctx.is_const(3):
            touched = [_axis(ctx, a, len(s)) for a in _ints(ctx.const_value(3))]
        return [
            rs.slice_(
                ctx, x, rs.values(ctx, 1), rs.values(ctx, 2),
                None if axes is None else rs.values(ctx, 3), None if steps is None else rs.values(ctx, 4), touched,
            )
        ]
    if ctx.opset < 10:
        starts, ends = list(ctx.attr("starts")), list(ctx.attr("ends"))
        axes = ctx.attr("axes")
        steps: list[int] = [1] * len(starts)
    else:
        starts, ends = _dims(ctx.const_value(1)), _dims(ctx.const_value(2))
        axes = ctx.optional_const(3)
        st = ctx.optional_const(4)
        steps = [1] * len(starts) if st is None else _ints(st)
    axes = list(range(len(starts))) if axes is None else _ints(axes)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise ctx.error("starts, ends, axes and steps must have the same length")
    begin: list[Dim] = [0] * len(s)
    end: list[Dim] = list(s)
    strides = [1] * len(s)
    for a, b, e, st in zip(axes, starts, ends, steps, strict=True):
        a = _axis(ctx, a, len(s))
        if st == 0:
            raise ctx.error(f"step of axis {a} is 0")
        if any(isinstance(v, Sym) for v in (s[a], b, e)):
            begin[a], end[a] = _symbolic_bounds(ctx, a, s[a], b, e, st)
        else:
            begin[a], end[a] = _slice_bounds(s[a], b, e, st)
        strides[a] = st
    return [
        ctx.emit(
            relay.StridedSliceOp(
                x, begin=dims_attr(begin), end=dims_attr(end), strides=relay.i64_array(strides)
            )
        )
    ]


#: An ONNX Slice end at or past this is "to the end of the axis".
_TO_END = 1 << 62


def _symbolic_bounds(
    ctx: NodeContext, axis: int, dim: Dim, start: Dim, end: Dim, step: int
) -> tuple[Dim, Dim]:
    """A Slice's start and end on an axis where a size is symbolic (step 1): ONNX's
    clamping where the sizes decide it, else an assumption checked at run time."""
    if step != 1:
        raise ctx.unsupported(
            f"a step of {step} on axis {axis} with symbolic bounds (size {dim}, start "
            f"{start}, end {end}); only 1 is supported"
        )
    bounds = []
    for v in (start, end):
        if isinstance(v, int) and v >= _TO_END:
            v = dim
        elif isinstance(v, int) and v < 0:
            v = dim + v
        ctx.assume(v - dim, 0, f"slices axis {axis} of size {dim} up to {v}")
        ctx.assume(-v, 0, f"slices axis {axis} from {v}")
        bounds.append(v)
    ctx.assume(bounds[0] - bounds[1], 0, f"slices axis {axis} from {bounds[0]} to {bounds[1]}")
    return bounds[0], bounds[1]


@converter("Gather", emits=("relay.take",), notes="negative indices")
def _gather(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    axis = _axis(ctx, int(ctx.attr("axis", 0)), _rank(x))
    return [ctx.emit(relay.TakeOp(x, ctx.input(1), axis=relay.i64_attr(axis)))]


@converter("GatherElements", emits=("relay.gather",), notes="negative indices")
def _gather_elements(ctx: NodeContext) -> Sequence[SSAValue]:
    x, idx = ctx.input(0), ctx.input(1)
    axis = _axis(ctx, int(ctx.attr("axis", 0)), _rank(x))
    m = rs.ShapeMath(ctx)
    fits: list[SSAValue] = []
    for a, (i, d) in enumerate(zip(shape(idx), shape(x), strict=False)):
        try:
            if a == axis or not i > d:
                continue
        except SymbolicError:  # sizes set when the model runs: checked then
            fits.append(m.le(m.dim(i), m.dim(d)))
    if fits:
        ok = fits[0]
        for f in fits[1:]:
            ok = m.and_(ok, f)
        idx = m.check(idx, ok, f"the indices' dims must not exceed the data's outside axis {axis}")
    return [ctx.emit(relay.GatherOp(x, idx, axis=relay.i64_attr(axis)))]


@converter("Expand", emits=("relay.broadcast_to", "relay.dyn_broadcast_to"), notes="a run-time shape")
def _expand(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    if ctx.at_run_time(1):
        return [rs.broadcast(ctx, x, rs.values(ctx, 1))]
    target = relay.broadcast_shapes("Expand", shape(x), _dims(ctx.const_value(1)))
    if target == shape(x):
        return [x]
    return [ctx.emit(relay.BroadcastToOp(x, shape=dims_attr(target)))]


@converter("Tile", emits=("relay.tile", "relay.dyn_broadcast_to"), notes="run-time repeats")
def _tile(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    if ctx.opset >= 6 and ctx.at_run_time(1):
        return [rs.tile(ctx, x, rs.values(ctx, 1))]
    if ctx.opset < 6:  # Tile-1: `tiles` repeats along the single `axis`
        reps = [1] * _rank(x)
        axis = _axis(ctx, int(np.asarray(ctx.const_value(2)).reshape(-1)[0]), _rank(x))
        reps[axis] = int(np.asarray(ctx.const_value(1)).reshape(-1)[0])
    else:
        reps = _ints(ctx.const_value(1))
    return [ctx.emit(relay.TileOp(x, reps=relay.i64_array(reps)))]


def _runtime_pad(ctx: NodeContext, x: SSAValue, mode: str) -> SSAValue:
    """A Pad whose pads, value or axes are given when the model runs."""
    rank = _rank(x)
    v = ctx.optional_input(2)
    value = ctx.constant(np.zeros((), numpy_dtype(_elem(x)))) if v is None or shape(v) in ((0,),) else _reshape(ctx, _cast(ctx, v, _elem(x)), [])
    axes = ctx.optional_input(3)
    touched = list(range(rank)) if axes is None else (
        [_axis(ctx, a, rank) for a in _ints(ctx.const_value(3))] if ctx.is_const(3) else None
    )
    return rs.pad(ctx, x, rs.values(ctx, 1), None if axes is None else rs.values(ctx, 3), touched, mode, value)


@converter("Pad", emits=("relay.pad", "relay.take"), notes="constant, reflect, edge, wrap; axes; run-time pads")
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
    elif any([ctx.at_run_time(i) for i in (1, 2, 3)]):
        return [_runtime_pad(ctx, x, mode)]
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


@converter("Trilu", emits=("relay.trilu",), notes="k a constant or a run-time value")
def _trilu(ctx: NodeContext) -> Sequence[SSAValue]:
    given = ctx.optional_input(1)
    if given is not None and ctx.at_run_time(1):  # the diagonal, read at run time
        diagonal = _cast(ctx, _reshape(ctx, given, []), IntegerType(64))
        return [ctx.emit(relay.TriluOp(ctx.input(0), diagonal, upper=_unit(ctx.attr("upper", 1))))]
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


@converter("GatherND", emits=("relay.gather_nd",), notes="batch_dims, negative indices")
def _gather_nd(ctx: NodeContext) -> Sequence[SSAValue]:
    x, indices = ctx.input(0), ctx.input(1)
    b = int(ctx.attr("batch_dims", 0))
    r, q = _rank(x), _rank(indices)
    if not 0 <= b < min(r, q):
        raise ctx.error(
            f"batch_dims {b} must be in 0..{min(r, q) - 1} for data of rank {r} and "
            f"indices of rank {q}"
        )
    m = shape(indices)[-1]
    if not 1 <= m <= r - b:
        raise ctx.error(
            f"the last axis of indices {list(shape(indices))} must have a size in "
            f"1..{r - b} (the data's rank {r} less batch_dims {b})"
        )
    if shape(x)[:b] != shape(indices)[:b]:
        raise ctx.error(
            f"data {list(shape(x))} and indices {list(shape(indices))} differ in their "
            f"first {b} (batch) dimension(s)"
        )
    return [
        ctx.emit(
            relay.GatherNDOp(x, indices, batch_dims=relay.i64_attr(b) if b else None)
        )
    ]


@converter("ReverseSequence", emits=("relay.reverse_sequence",))
def _reverse_sequence(ctx: NodeContext) -> Sequence[SSAValue]:
    x, lengths = ctx.input(0), ctx.input(1)
    rank = _rank(x)
    if rank < 2:
        raise ctx.error(f"input must have rank >= 2, got {list(shape(x))}")
    batch = _axis(ctx, int(ctx.attr("batch_axis", 1)), rank)
    time = _axis(ctx, int(ctx.attr("time_axis", 0)), rank)
    if {batch, time} != {0, 1}:
        raise ctx.error(
            f"batch_axis {batch} and time_axis {time} must be 0 and 1 (one each)"
        )
    if shape(lengths) != (shape(x)[batch],):
        raise ctx.error(
            f"sequence_lens {list(shape(lengths))} must be 1-D of size {shape(x)[batch]} "
            f"(the batch axis of {list(shape(x))})"
        )
    return [
        ctx.emit(
            relay.ReverseSequenceOp(
                x,
                lengths,
                batch_axis=relay.i64_attr(batch),
                time_axis=relay.i64_attr(time),
            )
        )
    ]


@converter("CenterCropPad", emits=("relay.pad", "relay.take"), notes="axes; crops and pads at once; a run-time shape")
def _center_crop_pad(ctx: NodeContext) -> Sequence[SSAValue]:
    """Each axis is cropped or zero-padded about its center to the target size
    (an odd difference leaves the extra element at the end): one `relay.pad`
    whose negative widths crop."""
    x = ctx.input(0)
    s = shape(x)
    rank = len(s)
    given = ctx.attr("axes")
    axes = list(range(rank)) if given is None else [_axis(ctx, int(a), rank) for a in given]
    if len(set(axes)) != len(axes):
        raise ctx.error(f"axes {list(given or [])} repeat an axis")
    if ctx.at_run_time(1):
        if shape(ctx.input(1)) != (len(axes),):
            raise ctx.error(f"shape must hold one size per axis of {axes}, got {ctx.input(1).type}")
        return [rs.center_crop_pad(ctx, x, rs.values(ctx, 1), axes)]
    target = _ints(ctx.const_value(1))
    if len(target) != len(axes):
        raise ctx.error(
            f"shape {target} needs one size per axis of {axes} ({len(axes)} values)"
        )
    if any(t < 0 for t in target):
        raise ctx.error(f"shape {target} has a negative size")
    width = [0] * (2 * rank)
    for a, t in zip(axes, target, strict=True):
        delta = t - s[a]
        begin = delta // 2 if delta >= 0 else -(-delta // 2)
        width[a], width[rank + a] = begin, delta - begin
    if not any(width):
        return [x]
    return [ctx.emit(relay.PadOp(x, pad_width=relay.i64_array(width)))]


@converter(
    "OneHot",
    emits=("relay.cast", "relay.less", "relay.add", "relay.where", "relay.reshape", "relay.equal", "relay.strided_slice"),
    notes="negative indices and axis; any index type; a run-time depth",
)
def _one_hot(ctx: NodeContext) -> Sequence[SSAValue]:
    """`values[1]` where the (wrapped) index equals the position along `axis`,
    `values[0]` elsewhere: a comparison with a constant iota and a select.
    Integer indices are compared as i64 (u64 when unsigned), float ones as they
    are (a fractional index matches nothing); indices outside `-depth..depth-1`
    give all `values[0]`."""
    indices, values = ctx.input(0), ctx.input(2)
    depth: int | SSAValue
    if not ctx.at_run_time(1):
        d = np.asarray(ctx.const_value(1))
        if d.size != 1:
            raise ctx.error(f"depth must hold exactly one value, got shape {list(d.shape)}")
        depth = int(d.reshape(-1)[0])
        if depth < 1:
            raise ctx.error(f"depth must be positive, got {d.reshape(-1)[0]}")
    else:  # given when the model runs: the classes are a size set by the data
        if math.prod(shape(ctx.input(1))) != 1:
            raise ctx.error(f"depth must hold exactly one value, got {ctx.input(1).type}")
        m = rs.ShapeMath(ctx)
        depth = m.i64(_reshape(ctx, ctx.input(1), []))
        depth = m.check(depth, m.lt(0, depth), "depth must be positive")
    if shape(values) != (2,):
        raise ctx.error(
            f"values must be 1-D of size 2 ([off_value, on_value]), got shape "
            f"{list(shape(values))}"
        )
    rank = _rank(indices)
    axis = int(ctx.attr("axis", -1))
    if not -(rank + 1) <= axis <= rank:
        raise ctx.error(
            f"axis {axis} is out of range for an output of rank {rank + 1} "
            f"(expected {-(rank + 1)} <= axis <= {rank})"
        )
    axis %= rank + 1
    elem = _elem(indices)
    kind = numpy_dtype(elem).kind
    if kind == "b":
        raise ctx.error(f"indices must be numeric, got {indices.type}")
    dtype = np.dtype({"i": np.int64, "u": np.uint64}.get(kind, numpy_dtype(elem)))
    idx = _cast(ctx, indices, element_type(dtype))
    n = ctx.constant(np.array(depth, dtype)) if isinstance(depth, int) else _cast(ctx, depth, element_type(dtype))
    if kind != "u":
        neg = ctx.emit(relay.LessOp(idx, ctx.constant(np.array(0, dtype))))
        wrapped = ctx.emit(relay.AddOp(idx, n))
        idx = ctx.emit(relay.WhereOp(neg, wrapped, idx))
    s = list(shape(indices))
    idx = _reshape(ctx, idx, [*s[:axis], 1, *s[axis:]])
    if isinstance(depth, int):
        iota = ctx.constant(np.arange(depth, dtype=dtype).reshape([depth] + [1] * (rank - axis)), "iota")
    else:
        classes = _cast(ctx, rs.arange(ctx, depth, "depth"), element_type(dtype))
        iota = _reshape(ctx, classes, [shape(classes)[0]] + [1] * (rank - axis))
    hit = ctx.emit(relay.EqualOp(idx, iota))
    off, on = (
        _reshape(
            ctx,
            ctx.emit(
                relay.StridedSliceOp(
                    values,
                    begin=relay.i64_array([i]),
                    end=relay.i64_array([i + 1]),
                    strides=relay.i64_array([1]),
                )
            ),
            [],
        )
        for i in (0, 1)
    )
    return [ctx.emit(relay.WhereOp(hit, on, off))]
