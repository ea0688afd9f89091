"""Moving blocked-layout transforms out of the way, for `alter-op-layout` (TVM's
layout inference through elementwise ops, then transform elimination).

After `alter-op-layout` gives each convolution its own pair of transforms,
`NCHW -> NCHW<x>c` before and `NCHW<x>c -> NCHW` after, `propagate` moves every
`-> NCHW` transform below the elementwise and broadcasting ops that read it:
`relu(T(y))` becomes `T(relu(y))`, `add(T(a), T(b))` becomes `T(add(a, b))`, a
constant operand (a per-channel bias, a `relay.bias_add`'s too) is re-laid out
at compile time, and another NCHW operand with the result's channels (of its
shape, or broadcasting along the spatial axes: a squeeze-and-excitation scale)
gets its own `NCHW ->` transform (which `cse` merges with one the next
convolution has). A reduction over the spatial axes that keeps them (a global
average pool) moves the same way, and so does a concatenation along the
channels of operands whose channels fill whole blocks: in `NCHW<x>c` it joins
the channel blocks (axis 1), so the branches of an Inception or Fire module,
or DenseNet's growing features, stay blocked instead of being copied out of
and back into the layout. Concatenations and unit-stride slices along the
spatial axes (all channels kept) are the same on the blocked axes 2 and 3. An
`NCHW ->` transform moves up the same way, above an op that only it reads. A transform that meets its inverse cancels: a
chain of convolutions, activations and residual additions stays blocked, with
one transform in and one out. The same holds of 1-D and 3-D convolutions'
`NCW <-> NCW<x>c` and `NCDHW <-> NCDHW<x>c`.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.rewriter import Rewriter

from lamina.dialects import relay
from lamina.dialects.relay.constant import make_constant, value_data
from lamina.lowering.strategy.dispatch import ORIGIN_ATTR

#: Properties that tie an op to axis positions: such an op keeps its layout.
_AXIS_PROPS = ("axis", "axes", "perm", "shape")


def transform(x: SSAValue, src: str, dst: str) -> relay.LayoutTransformOp:
    return relay.LayoutTransformOp(x, src_layout=StringAttr(src), dst_layout=StringAttr(dst))


def blocked_source(v: SSAValue) -> SSAValue | None:
    """The blocked value `v` is transformed back from, if it is."""
    src = _to_plain(v)
    return None if src is None else src.operands[0]


def _to_plain(v: SSAValue) -> relay.LayoutTransformOp | None:
    """The transform defining `v` when it converts a blocked layout to its
    plain one (NCW, NCHW or NCDHW)."""
    if (
        isinstance(v, OpResult)
        and isinstance(v.op, relay.LayoutTransformOp)
        and v.op.attrs.dst_layout in relay.PLAIN_LAYOUTS
    ):
        return v.op
    return None


def _rank(v: SSAValue) -> int:
    t = v.type
    return t.get_num_dims() if isinstance(t, TensorType) else -1


def _blocked_constant(data: np.ndarray, t: TensorType, block: int, name: str, rank: int) -> relay.ConstantOp | None:
    """A constant broadcasting into a plain result of `rank`, re-laid out to
    broadcast into its blocked form; None if it does not broadcast that way."""
    if data.ndim > rank:
        return None
    data = data.reshape((1,) * (rank - data.ndim) + data.shape)
    n, c, *spatial = data.shape
    if c == 1:
        blocked = data.reshape(n, 1, *spatial, 1)
    elif c % block == 0:
        moved = (0, 1, *range(3, rank + 1), 2)
        blocked = data.reshape(n, c // block, block, *spatial).transpose(moved)
    else:
        return None
    return make_constant(blocked, relay.tensor(blocked.shape, t.get_element_type()), name)


def _spatial_reduce(op: Operation) -> bool:
    """A reduction over some of the spatial axes of a 3- to 5-D tensor, kept as
    size-1 axes (the same axes of the blocked tensor)."""
    if not isinstance(op, relay.ReduceOp) or not op.attrs.keepdims or op.attrs.axes is None:
        return False
    rank = _rank(op.operands[0])
    axes = relay.reduce_axes(op.name, op, rank)
    return bool(axes) and set(axes) <= set(range(2, rank))


def _liftable(op: Operation) -> bool:
    """An op that computes the same in any layout: elementwise or broadcasting
    with no axis properties, over 3- to 5-D results (or a bias_add along
    channels, or a reduction over the spatial axes)."""
    if not isinstance(op, relay.RelayOp) or isinstance(op, relay.ConstantOp) or len(op.results) != 1:
        return False
    t = op.results[0].type
    if not isinstance(t, TensorType) or not 3 <= t.get_num_dims() <= 5:
        return False
    if _spatial_reduce(op) or _concat(op) or _spatial_slice(op):
        return True
    if isinstance(op, relay.BiasAddOp):
        return op.attrs.axis % t.get_num_dims() == 1 and value_data(op.operands[1]) is not None
    if op.PATTERN not in (relay.OpPattern.ELEMWISE, relay.OpPattern.BROADCAST):
        return False
    declared = op.get_irdl_definition().properties
    return not any(k in declared for k in _AXIS_PROPS)


def _concat(op: Operation) -> bool:
    """A concatenation of 3- to 5-D tensors along their channels or a spatial axis."""
    rank = _rank(op.results[0])
    return isinstance(op, relay.ConcatenateOp) and op.attrs.axis % rank != 0 and all(
        _rank(v) == rank for v in op.operands
    )


def _spatial_slice(op: Operation) -> bool:
    """A unit-stride slice of a static 3- to 5-D tensor along its spatial axes only."""
    if not isinstance(op, relay.StridedSliceOp):
        return False
    t = op.operands[0].type
    if not isinstance(t, TensorType) or not 3 <= t.get_num_dims() <= 5 or any(d < 0 for d in t.get_shape()):
        return False
    a = op.attrs
    static = all(isinstance(v, int) for v in (*a.begin, *a.end))
    return static and (a.strides is None or all(s == 1 for s in a.strides)) and (
        a.begin[1] == 0 and a.end[1] == t.get_shape()[1]
    )


def _blocked_operand(v: SSAValue, like: TensorType, layout: str, new: list[Operation]) -> SSAValue | None:
    """Operand `v` of an op with plain result type `like`, in `layout`: the source
    of a transform back, a re-laid-out constant, a scalar as it is, or another
    value with the result's channels (of its shape or broadcasting into it along
    the other axes) through a new transform (appended to `new`)."""
    block = relay.channel_block(layout)
    assert block is not None
    src = blocked_source(v)
    if src is not None and v.owner.attrs.src_layout == layout:  # type: ignore[union-attr]
        return src
    vt = v.type
    assert isinstance(vt, TensorType)
    if vt.get_num_dims() == 0:
        return v
    data = value_data(v)
    if data is not None:
        const = _blocked_constant(data, vt, block, (v.name_hint or "cst") + "_blocked", like.get_num_dims())
        if const is not None:
            new.append(const)
            return const.output
        return None
    if _channels_broadcast(vt, like):
        new.append(transform(v, relay.plain_layout(like.get_num_dims()), layout))
        return new[-1].results[0]
    return None


def _channels_broadcast(t: TensorType, like: TensorType) -> bool:
    """Whether `t` has `like`'s rank and channels and broadcasts into it."""
    if t.get_num_dims() != like.get_num_dims() or t.get_element_type() != like.get_element_type():
        return False
    shape, target = t.get_shape(), like.get_shape()
    return shape[1] == target[1] and all(a in (1, b) for a, b in zip(shape, target, strict=True))


def _in_layout(op: relay.RelayOp, layout: str) -> tuple[list[Operation], SSAValue] | None:
    """The ops computing liftable `op` in `layout`, and their blocked result."""
    t = op.results[0].type
    assert isinstance(t, TensorType)
    block = relay.channel_block(layout)
    assert block is not None
    rank = t.get_num_dims()
    if t.get_shape()[1] % block or relay.spatial_axes(layout) != rank - 2:
        return None
    new: list[Operation] = []
    if isinstance(op, relay.BiasAddOp):  # a channel bias: an add of the blocked bias
        x = _blocked_operand(op.operands[0], t, layout, new)
        bias = value_data(op.operands[1])
        assert bias is not None
        bt = op.operands[1].type
        assert isinstance(bt, TensorType)
        per_channel = bias.reshape(1, -1, *[1] * (rank - 2))
        const = _blocked_constant(per_channel, bt, block, (op.operands[1].name_hint or "bias") + "_blocked", rank)
        if x is None or const is None:
            return None
        new += [const, relay.AddOp(x, const.output)]
        return new, new[-1].results[0]
    if _concat(op):  # along channel blocks (each operand's whole blocks), or a spatial axis
        if any(v.type.get_shape()[1] % block for v in op.operands):  # type: ignore[attr-defined]
            return None
        parts = [_blocked_operand(v, v.type, layout, new) for v in op.operands]  # type: ignore[arg-type]
        if any(v is None for v in parts):
            return None
        new.append(relay.ConcatenateOp(*parts, axis=relay.i64_attr(op.attrs.axis % rank)))
        return new, new[-1].results[0]
    if _spatial_slice(op):  # the same spatial ranges, every channel block and lane
        x = _blocked_operand(op.operands[0], op.operands[0].type, layout, new)  # type: ignore[arg-type]
        if x is None:
            return None
        begin, end = list(op.attrs.begin), list(op.attrs.end)
        new.append(relay.StridedSliceOp(
            x, begin=relay.i64_array([*begin, 0]),
            end=relay.i64_array([end[0], end[1] // block, *end[2:], block]),
        ))
        return new, new[-1].results[0]
    like = op.operands[0].type if _spatial_reduce(op) else t
    assert isinstance(like, TensorType)
    operands = [_blocked_operand(v, like, layout, new) for v in op.operands]
    if any(v is None for v in operands):
        return None
    props = dict(op.properties)
    if _spatial_reduce(op):  # (axes counted from the end would name other axes)
        props["axes"] = relay.i64_array(relay.reduce_axes(op.name, op, rank))
    new.append(type(op)(*operands, **props))
    return new, new[-1].results[0]


def _push_down(op: relay.RelayOp) -> list[Operation] | None:
    """`op` over `-> NCHW` transforms, computed blocked and transformed back."""
    layouts = {s.attrs.src_layout for v in op.operands if (s := _to_plain(v)) is not None}
    if len(layouts) != 1:
        return None
    (layout,) = layouts
    lifted = _in_layout(op, layout)
    if lifted is None:
        return None
    new, result = lifted
    return [*new, transform(result, layout, relay.plain_layout(relay.spatial_axes(layout) + 2))]


def replace(
    old: Operation, new: list[Operation], result: SSAValue | None = None, at: Operation | None = None
) -> None:
    """Insert `new` before `at` (default: `old`), let `result` (default: the last
    new op's) stand for `old`'s result, erase `old` and whatever transform or
    constant it alone used. The new ops other than constants and transforms
    inherit `old`'s origin (`lamina.origin`), if it has one."""
    at = old if at is None else at
    result = new[-1].results[0] if result is None else result
    block = at.parent_block()
    assert block is not None
    origin = old.attributes.get(ORIGIN_ATTR)
    if origin is not None:  # (task extraction: what `old` becomes belongs to its origin)
        for op in new:
            if not isinstance(op, relay.ConstantOp | relay.LayoutTransformOp):
                op.attributes[ORIGIN_ATTR] = origin
    block.insert_ops_before(new, at)
    result.name_hint = old.results[0].name_hint
    old.results[0].replace_all_uses_with(result)
    _erase(old)


def _erase(op: Operation) -> None:
    """Erase `op`, then the transforms and constants only it used."""
    operands = list(op.operands)
    Rewriter.erase_op(op)
    for v in operands:
        if isinstance(v, OpResult) and not v.uses and isinstance(v.op, relay.LayoutTransformOp | relay.ConstantOp):
            _erase(v.op)


def _step(op: Operation) -> bool:
    """One rewrite at `op`, if one applies."""
    if isinstance(op, relay.LayoutTransformOp) and op.attrs.src_layout in relay.PLAIN_LAYOUTS:
        layout = op.attrs.dst_layout
        x = op.operands[0]
        inner = _to_plain(x)
        if inner is not None and inner.attrs.src_layout == layout:
            replace(op, [], inner.operands[0])  # a transform meets its inverse
            return True
        producer = x.owner
        if isinstance(producer, relay.RelayOp) and _liftable(producer) and x.has_one_use():
            lifted = _in_layout(producer, layout)  # pull the transform above it
            if lifted is not None:
                new, result = lifted
                replace(op, new, result, producer)
                _erase(producer)
                return True
        return False
    if isinstance(op, relay.RelayOp) and _liftable(op) and any(_to_plain(v) is not None for v in op.operands):
        new = _push_down(op)
        if new is not None:
            replace(op, new)
            return True
    return False


def propagate(block: Block) -> int:
    """Move `-> NCHW` transforms below elementwise ops, `NCHW ->` transforms
    above single-use ones, and cancel inverse pairs in `block`, to a fixed
    point; the number of rewrites."""
    count = 0
    changed = True
    while changed:
        changed = False
        for op in list(block.ops):
            if op.parent_block() is block and _step(op):
                count += 1
                changed = True
    return count


__all__ = ["blocked_source", "propagate", "replace", "transform"]
