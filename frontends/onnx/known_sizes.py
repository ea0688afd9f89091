"""Run-time values the import already knows as sizes (Relax's `match_cast` of a
`tensor_to_shape`): when an op sets a size from an element of a shape given as
data (`relay.dyn_broadcast_to`'s `sizes`, `relay.dyn_arange`'s count), that
element *is* the size from then on. Another node reading the same element (the
same run-time value, through the Split, Concat, Slice, Gather, Reshape and
widening Cast that models write around their shapes) gets the size instead of
naming a new one: `Range(0, H)` after `ConstantOfShape([D, H, W])` is
`arange(H)` over the very `H` the zeros have, so the two broadcast together.

An element is traced to its *root*: an int or a `Sym` (a constant, a folded
shape), or a (value, flat index) pair no op above explains. A size is recorded
under the root of the element that set it, and found only where the op that set
it dominates the reader (its block, or a block around the reader's).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import IntegerType, Signedness, TensorType
from xdsl.ir import Block, Operation, OpResult, SSAValue

from lamina.dialects import relay
from lamina.symbolic import Dim, Sym

#: An element of a value no op above explains: the value and its flat index.
Key = tuple[SSAValue, int]
#: Values of up to this many elements are looked up as a whole.
MAX_ELEMENTS = 64
#: How many ops an element is traced through, at most.
MAX_STEPS = 64
I64 = IntegerType(64)


def _static(v: SSAValue) -> tuple[int, ...] | None:
    """`v`'s shape when every dim is an int."""
    if not isinstance(v.type, TensorType):
        return None
    dims = relay.shape_of(v.type)
    return tuple(dims) if all(isinstance(d, int) for d in dims) else None  # type: ignore[return-value]


def _exact_to_i64(src: object, dst: object) -> bool:
    """Whether a cast from `src` to `dst` keeps every value: an integer into i64."""
    if dst != I64 or not isinstance(src, IntegerType) or src.width.data < 2:
        return False
    unsigned = src.signedness.data == Signedness.UNSIGNED
    return src.width.data < 64 or not unsigned


def _step(op: Operation, v: OpResult, i: int, consts: dict[SSAValue, np.ndarray]) -> Key | None:
    """The element element `i` of `v` (a result of `op`) copies, one op up;
    None when `op` computes it."""
    out = _static(v)
    if isinstance(op, relay.CheckOp):
        return op.data, i
    if isinstance(op, relay.CastOp):
        src = op.data.type
        ok = isinstance(src, TensorType) and _exact_to_i64(src.get_element_type(), op.dtype)
        return (op.data, i) if ok else None
    if out is None:
        return None
    if isinstance(op, relay.TakeOp) and op.indices in consts:
        return _taken(op, i, consts[op.indices])
    if isinstance(op, relay.ReshapeOp):
        src_shape = _static(op.data)
        return (op.data, i) if src_shape is not None and np.prod(src_shape) == np.prod(out) else None
    if not out:
        return None
    at = [int(a) for a in np.unravel_index(i, out)]
    if isinstance(op, relay.ConcatenateOp):
        axis = op.attrs.axis % len(out)
        for part in op.inputs:
            part_shape = _static(part)
            if part_shape is None:
                return None
            if at[axis] < part_shape[axis]:
                return part, int(np.ravel_multi_index(at, part_shape))
            at[axis] -= part_shape[axis]
        return None
    if isinstance(op, relay.SplitOp):
        src_shape = _static(op.data)
        if src_shape is None:
            return None
        axis = op.attrs.axis % len(out)
        starts = [0, *op.attrs.indices]
        at[axis] += int(starts[v.index])
        return op.data, int(np.ravel_multi_index(at, src_shape))
    if isinstance(op, relay.StridedSliceOp):
        return _sliced(op, at)
    return None


def _taken(op: relay.TakeOp, i: int, picks: np.ndarray) -> Key | None:
    """The element of a 1-D `relay.take`'s input that its output's element `i` picks."""
    src_shape = _static(op.data)
    if src_shape is None or len(src_shape) != 1 or picks.dtype.kind not in "iu":
        return None
    k = int(picks.reshape(-1)[i])
    k = k + src_shape[0] if k < 0 else k
    return (op.data, k) if 0 <= k < src_shape[0] else None


def _sliced(op: relay.StridedSliceOp, at: list[int]) -> Key | None:
    """The element of a strided slice's input at `at` of its output."""
    src_shape = _static(op.data)
    attrs = op.attrs
    begin, strides = list(attrs.begin), list(attrs.strides or [1] * len(attrs.begin))
    if src_shape is None or len(begin) != len(src_shape) or len(strides) != len(begin):
        return None
    if not all(isinstance(b, int) and b >= 0 for b in begin) or any(s <= 0 for s in strides):
        return None
    pos = [b + a * s for b, a, s in zip(begin, at, strides, strict=True)]
    if any(p >= n for p, n in zip(pos, src_shape, strict=True)):
        return None
    return op.data, int(np.ravel_multi_index(pos, src_shape))


def root(v: SSAValue, i: int, consts: dict[SSAValue, np.ndarray]) -> Dim | Key:
    """What element `i` (flat) of `v` is: a known int or `Sym`, or the element
    of the first value no op explains."""
    key: Key = (v, i)
    for _ in range(MAX_STEPS):
        value, index = key
        if value in consts:
            e = consts[value].reshape(-1)[index]
            return e if isinstance(e, Sym) else int(e)
        if not isinstance(value, OpResult):
            return key
        up = _step(value.op, value, index, consts)
        if up is None:
            return key
        key = up
    return key


def _dominates(op: Operation, block: Block) -> bool:
    """Whether `op` runs before everything in `block` (it is in `block` or around it)."""
    at: Block | None = block
    while at is not None:
        if op.parent_block() is at:
            return True
        parent = at.parent_op()
        at = parent.parent_block() if parent is not None else None
    return False


@dataclass
class KnownSizes:
    """The sizes set from run-time values so far, by the root of the element
    that set each (see the module docstring)."""

    sizes: dict[Key, tuple[Sym, Operation]] = field(default_factory=dict)

    def record(self, op: Operation, consts: dict[SSAValue, np.ndarray]) -> None:
        """Note the sizes `op` sets, if it sets any."""
        if isinstance(op, relay.DynShapeOp):
            for index, name in op.defined():
                self._note(root(op.shape, index, consts), name, op)
        elif isinstance(op, relay.DynArangeOp):
            self._note(root(op.count, 0, consts), op.size.data, op)

    def _note(self, key: Dim | Key, name: str, op: Operation) -> None:
        if isinstance(key, tuple):
            self.sizes.setdefault(key, (Sym.var(name), op))

    def element(self, v: SSAValue, i: int, consts: dict[SSAValue, np.ndarray], block: Block) -> Dim | None:
        """Element `i` of `v` as a dim, if it is a constant or a size set
        before `block`'s ops run; None otherwise."""
        key = root(v, i, consts)
        if not isinstance(key, tuple):
            return key
        known = self.sizes.get(key)
        return known[0] if known is not None and _dominates(known[1], block) else None

    def value(self, v: SSAValue, consts: dict[SSAValue, np.ndarray], block: Block) -> np.ndarray | None:
        """`v` as an array of dims (as a folded shape computation gives it), if
        it is a small integer tensor whose every element is known; else None."""
        dims = _static(v)
        if dims is None or not isinstance(v.type, TensorType) or v.type.get_element_type() != I64:
            return None
        n = int(np.prod(dims))
        if n > MAX_ELEMENTS:
            return None
        out = [self.element(v, i, consts, block) for i in range(n)]
        if any(d is None for d in out):
            return None
        if not any(isinstance(d, Sym) for d in out):
            return np.array(out, dtype=np.int64).reshape(dims)
        return np.array(out, dtype=object).reshape(dims)


__all__ = ["KnownSizes", "root"]
