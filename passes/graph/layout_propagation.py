"""Moving blocked-layout transforms out of the way, for `alter-op-layout` (TVM's
layout inference through elementwise ops, then transform elimination).

After `alter-op-layout` gives each convolution its own pair of transforms,
`NCHW -> NCHW<x>c` before and `NCHW<x>c -> NCHW` after, `propagate` moves every
`-> NCHW` transform below the elementwise and broadcasting ops that read it:
`relu(T(y))` becomes `T(relu(y))`, `add(T(a), T(b))` becomes `T(add(a, b))`, a
constant operand (a per-channel bias, a `relay.bias_add`'s too) is re-laid out at
compile time, and another
NCHW operand of the same shape gets its own `NCHW -> NCHW<x>c` transform (which
`cse` merges with the one the next convolution already has). A transform that
meets its inverse cancels: a chain of convolutions, activations and residual
additions stays blocked, with one transform in and one out.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.rewriter import Rewriter

from lamina.dialects import relay
from lamina.dialects.constants import make_constant, value_data

#: Properties that tie an op to axis positions: such an op keeps its layout.
_AXIS_PROPS = ("axis", "axes", "perm", "shape")


def transform(x: SSAValue, src: str, dst: str) -> relay.LayoutTransformOp:
    return relay.LayoutTransformOp(x, src_layout=StringAttr(src), dst_layout=StringAttr(dst))


def _to_nchw(v: SSAValue) -> relay.LayoutTransformOp | None:
    """The transform defining `v` when it converts a blocked layout to NCHW."""
    if (
        isinstance(v, OpResult)
        and isinstance(v.op, relay.LayoutTransformOp)
        and relay.str_prop(v.op, "dst_layout", "") == "NCHW"
    ):
        return v.op
    return None


def _blocked_constant(data: np.ndarray, t: TensorType, block: int, name: str) -> relay.ConstantOp | None:
    """A constant broadcasting into an NCHW result, re-laid out to broadcast into
    its `NCHW<block>c` form; None if it does not broadcast that way."""
    if data.ndim == 0:
        return None  # a scalar broadcasts as it is
    if data.ndim > 4:
        return None
    data = data.reshape((1,) * (4 - data.ndim) + data.shape)
    n, c, h, w = data.shape
    if c == 1:
        blocked = data.reshape(n, 1, h, w, 1)
    elif c % block == 0:
        blocked = data.reshape(n, c // block, block, h, w).transpose(0, 1, 3, 4, 2)
    else:
        return None
    return make_constant(blocked, relay.tensor(blocked.shape, t.get_element_type()), name)


def _bias_add(op: relay.BiasAddOp) -> list[Operation] | None:
    """A constant bias along the channels: an add of the blocked bias."""
    src = _to_nchw(op.operands[0])
    data = value_data(op.operands[1])
    if src is None or data is None or relay.int_prop(op, "axis", 1) % 4 != 1:
        return None
    layout = relay.str_prop(src, "src_layout", "")
    block = relay.channel_block(layout)
    assert block is not None
    bt = op.operands[1].type
    assert isinstance(bt, TensorType)
    const = _blocked_constant(data.reshape(1, -1, 1, 1), bt, block, (op.operands[1].name_hint or "bias") + "_blocked")
    if const is None:
        return None
    added = relay.AddOp(src.operands[0], const.output)
    return [const, added, transform(added.results[0], layout, "NCHW")]


def _lift(op: relay.RelayOp) -> list[Operation] | None:
    """The ops computing `op` in the blocked layout of its `-> NCHW` operands and
    transforming the result back, or None when it cannot be. Ops tied to axis
    positions keep their layout (but a channel bias becomes an add)."""
    if isinstance(op, relay.BiasAddOp):
        return _bias_add(op)
    if op.PATTERN not in (relay.OpPattern.ELEMWISE, relay.OpPattern.BROADCAST):
        return None
    declared = op.get_irdl_definition().properties
    if len(op.results) != 1 or any(k in declared for k in _AXIS_PROPS):
        return None
    t = op.results[0].type
    if not isinstance(t, TensorType) or t.get_num_dims() != 4:
        return None
    sources = [_to_nchw(v) for v in op.operands]
    layouts = {relay.str_prop(s, "src_layout", "") for s in sources if s is not None}
    if len(layouts) != 1:
        return None
    (layout,) = layouts
    block = relay.channel_block(layout)
    assert block is not None
    if t.get_shape()[1] % block:
        return None
    new: list[Operation] = []
    operands: list[SSAValue] = []
    for v, src in zip(op.operands, sources, strict=True):
        vt = v.type
        assert isinstance(vt, TensorType)
        if src is not None:
            operands.append(src.operands[0])
            continue
        data = value_data(v)
        if vt.get_num_dims() == 0:
            operands.append(v)
        elif data is not None:
            const = _blocked_constant(data, vt, block, (v.name_hint or "cst") + "_blocked")
            if const is None:
                return None
            new.append(const)
            operands.append(const.output)
        elif vt == t:  # another NCHW value of the result's shape: bring it in
            new.append(transform(v, "NCHW", layout))
            operands.append(new[-1].results[0])
        else:
            return None
    props = dict(op.properties)
    new.append(type(op)(*operands, **props))
    new.append(transform(new[-1].results[0], layout, "NCHW"))
    return new


def propagate(block: Block) -> int:
    """Move `-> NCHW` transforms below elementwise ops and cancel inverse pairs in
    `block`, to a fixed point; the number of rewrites."""
    count = 0
    changed = True
    while changed:
        changed = False
        for op in list(block.ops):
            if op.parent_block() is not block:
                continue  # erased by an earlier rewrite
            if isinstance(op, relay.LayoutTransformOp):
                inner = _to_nchw(op.operands[0])
                if inner is not None and relay.str_prop(inner, "src_layout", "") == relay.str_prop(op, "dst_layout", ""):
                    op.results[0].replace_all_uses_with(inner.operands[0])
                    Rewriter.erase_op(op)
                    if not inner.results[0].uses:
                        Rewriter.erase_op(inner)
                    count += 1
                    changed = True
                continue
            if not isinstance(op, relay.RelayOp) or isinstance(op, relay.ConstantOp):
                continue
            if not any(_to_nchw(v) is not None for v in op.operands):
                continue
            new = _lift(op)
            if new is None:
                continue
            block.insert_ops_before(new, op)
            result = new[-1].results[0]
            result.name_hint = op.results[0].name_hint
            old_operands = list(op.operands)
            op.results[0].replace_all_uses_with(result)
            Rewriter.erase_op(op)
            for v in old_operands:
                if isinstance(v, OpResult) and not v.uses and isinstance(v.op, relay.LayoutTransformOp | relay.ConstantOp):
                    Rewriter.erase_op(v.op)
            count += 1
            changed = True
    return count


__all__ = ["propagate", "transform"]
