"""`tir-vectorize`: turn each `tir.for vectorized` loop into vector operations.

The loop (constant bounds, step 1, `V` iterations) is replaced by straight-line
code over `vector<V x T>`: lane-independent values stay scalar (and are broadcast
where a vector needs them), a load or store whose last index is `base + lane`
(the others lane-independent) becomes one vector access, and a `tir.if` whose
condition compares `base + lane` with a lane-independent bound becomes a lane
mask: stores under it are masked (`tir.masked_store`), except to a local buffer
whose rows hold whole vectors (its last dim a multiple of the lanes, the store's
base provably one too, and provably a whole vector before the row's end): there
the extra lanes stay in the row's padding, which is never read. Loads under a mask are not masked: contiguous
vector loads stay within the `BUFFER_SLACK` readable bytes every buffer has past
its end. A load whose last index is `base + s * lane` for a small stride `s`
(a stride-2 convolution or pooling window) reads the `s * V` elements from `base`
as one vector and keeps every `s`-th lane (`vector.shuffle`); it reads at most
`s - 1` elements past the last lane, within that slack too. Any other load of
indices lane-independent or `base + s * lane` (a transposed read) is gathered,
one scalar load per lane inserted into a vector (`vector.insert`), where no
lane is masked off. A loop with anything else (a clamped gather, a nested
loop, a lane-dependent scalar store) is left to LLVM's own vectorizer as a
serial loop.

Where the target has no masked loads and stores of the element type
(`Target.masked_memory`: NEON, SSE, SIMD128), LLVM would test and branch on every
lane of each; the loop's tail is peeled instead (`peel`): the vector body without
masks runs when every lane is inside them (a bound compared with `base + s *
lane` holds at every lane when it holds at the first and the last), the loop as
a serial loop otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from xdsl.context import Context
from xdsl.dialects import arith, math, vector
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass

from lamina.abi import MAX_LOAD_STRIDE
from lamina.dialects import tir
from lamina.dialects.tir import AllocScope, ForKind
from lamina.passes import current_target
from lamina.passes.registry import register_pass
from lamina.transforms.tir.clone import clone
from lamina.transforms.tir.cse import op_key, pure
from lamina.transforms.tir.peel import discard, peel


class _Unsupported(Exception):
    """The loop body has something this vectorizer does not handle."""


@dataclass
class _Lane:
    """An index `base + stride * lane`, with `base` the value at lane 0; with
    `lo`/`hi`, that index clamped into `lo..hi` (lane-independent bounds)."""

    base: SSAValue
    stride: int
    lo: SSAValue | None = None
    hi: SSAValue | None = None

    @property
    def clamped(self) -> bool:
        return self.lo is not None or self.hi is not None


def _largest(v: SSAValue) -> int | None:
    """The largest value the non-negative index `v` can take (None: unknown)."""
    c = tir.ForOp.constant_index(v)
    if c is not None:
        return c
    op = v.owner
    if isinstance(op, arith.MuliOp | arith.AddiOp):
        lhs, rhs = _largest(op.lhs), _largest(op.rhs)
        if lhs is None or rhs is None or min(lhs, rhs) < 0:
            return None
        return lhs * rhs if isinstance(op, arith.MuliOp) else lhs + rhs
    if not isinstance(op, Block):
        return None
    loop = op.parent_op()
    if isinstance(loop, tir.ForOp) and v is loop.body.block.args[0]:
        lb, ub, step = (tir.ForOp.constant_index(x) for x in (loop.lb, loop.ub, loop.step))
        if lb is None or ub is None or step is None or step < 1 or ub <= lb or lb < 0:
            return None
        return lb + (ub - 1 - lb) // step * step
    return None


def _multiple_of(v: SSAValue, k: int) -> bool:
    """Whether the index `v` is provably a multiple of `k`."""
    c = tir.ForOp.constant_index(v)
    if c is not None:
        return c % k == 0
    op = v.owner
    if isinstance(op, arith.MuliOp):
        return _multiple_of(op.lhs, k) or _multiple_of(op.rhs, k)
    if isinstance(op, arith.AddiOp):
        return _multiple_of(op.lhs, k) and _multiple_of(op.rhs, k)
    if not isinstance(op, Block):
        return False
    loop = op.parent_op()
    if isinstance(loop, tir.ForOp) and v is loop.body.block.args[0]:
        return _multiple_of(loop.lb, k) and _multiple_of(loop.step, k)
    return False


#: Comparisons whose truth along `base + s * lane` is a prefix or a suffix of
#: the lanes (unsigned ones are not, where an index crosses zero).
_MONOTONE = frozenset(["slt", "sle", "sgt", "sge"])


class _Vectorizer:
    def __init__(
        self,
        loop: tir.ForOp,
        lanes: int,
        unmasked: list[SSAValue] | None = None,
        move: bool = False,
    ):
        self.loop = loop
        self.lanes = lanes
        self.block = loop.parent_block()
        self.new: list[Operation] = []
        #: With a list: every lane is taken to be inside its masks (no masked
        #: access is made) and the list gets the conditions that make it so.
        self.unmasked = unmasked
        #: The loop's lane-independent ops go into the vector body as they are
        #: (moved out of the loop by `commit`) rather than as copies: only for a
        #: body that replaces the loop or is dropped, never where the loop stays.
        self.move = move
        self.scalar: dict[SSAValue, SSAValue] = {}  # lane-independent values
        self.affine: dict[SSAValue, _Lane] = {}  # lane-dependent indices
        self.vector: dict[SSAValue, SSAValue] = {}  # lane-dependent values
        #: Values made once, as `cse` would leave them: broadcasts by scalar,
        #: index constants by value, `base + stride * lane` by (base, stride),
        #: `stride * lane` by stride (stride 1: the ramp).
        self.broadcasts: dict[SSAValue, SSAValue] = {}
        self.constants: dict[int, SSAValue] = {}
        self.ramps: dict[int, SSAValue] = {}
        self.lanes_from: dict[tuple[SSAValue, int], SSAValue] = {}
        #: lane-independent pure ops by `op_key` (index arithmetic repeated in
        #: the body: made once, as `cse` would keep it)
        self.computed: dict[tuple[object, ...], Operation] = {}

    def nested(self) -> _Vectorizer:
        """A vectorizer for a branch's body: it sees what this one made, and
        what it makes is not seen after the branch."""
        inner = _Vectorizer(self.loop, self.lanes, self.unmasked)
        tables = ("scalar", "affine", "vector", "broadcasts", "constants", "ramps", "lanes_from", "computed")
        for table in tables:
            setattr(inner, table, dict(getattr(self, table)))
        return inner

    # --- helpers ----------------------------------------------------------
    def emit(self, op: Operation) -> SSAValue:
        self.new.append(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def vtype(self, t: Attribute) -> VectorType:
        return _vector_type(t, self.lanes)

    def broadcast(self, s: SSAValue) -> SSAValue:
        """The lane-independent `s` in every lane."""
        if s not in self.broadcasts:
            self.broadcasts[s] = self.emit(vector.BroadcastOp(s, self.vtype(s.type)))
        return self.broadcasts[s]

    def constant(self, k: int) -> SSAValue:
        """The index constant `k`."""
        if k not in self.constants:
            self.constants[k] = self.emit(arith.ConstantOp(IntegerAttr(k, IndexType())))
        return self.constants[k]

    def uniform(self, v: SSAValue) -> SSAValue | None:
        if v in self.scalar:
            return self.scalar[v]
        if v in self.affine or v in self.vector:
            return None
        return v  # defined outside the loop

    def as_vector(self, v: SSAValue) -> SSAValue:
        if v in self.vector:
            return self.vector[v]
        if v in self.affine:
            lane = self.affine[v]
            out = self.unclamped(lane)
            if lane.lo is not None:
                out = self.emit(arith.MaxSIOp(out, self.as_vector(lane.lo)))
            if lane.hi is not None:
                out = self.emit(arith.MinSIOp(out, self.as_vector(lane.hi)))
            self.vector[v] = out
            return out
        s = self.uniform(v)
        assert s is not None
        return self.broadcast(s)

    def unclamped(self, lane: _Lane) -> SSAValue:
        """The vector of `base + stride * lane`, before any clamp."""
        key = (lane.base, lane.stride)
        if key not in self.lanes_from:
            ramp = self.ramp(lane.stride)
            self.lanes_from[key] = self.emit(arith.AddiOp(self.broadcast(lane.base), ramp))
        return self.lanes_from[key]

    def ramp(self, stride: int = 1) -> SSAValue:
        """The vector of `stride * lane`."""
        if stride not in self.ramps:
            if stride == 1:
                self.ramps[1] = self.emit(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(
                    self.vtype(IndexType()), list(range(self.lanes)))))
            else:
                ramp = self.ramp()
                k = self.emit(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(
                    self.vtype(IndexType()), [stride] * self.lanes)))
                self.ramps[stride] = self.emit(arith.MuliOp(ramp, k))
        return self.ramps[stride]

    def at_lane(self, v: SSAValue, k: int) -> SSAValue:
        """The index `v` (lane-independent, or `base + s * lane` unclamped) at lane `k`."""
        u = self.uniform(v)
        if u is not None:
            return u
        lane = self.affine.get(v)
        if lane is None or lane.clamped:
            raise _Unsupported("a mask not of an index")
        if lane.stride * k == 0:
            return lane.base
        return self.emit(arith.AddiOp(lane.base, self.constant(lane.stride * k)))

    def every_lane(self, cond: SSAValue) -> list[SSAValue]:
        """Scalar conditions under which the lane-dependent `cond` holds at every
        lane: bounds on `base + s * lane`, checked at the first and last lane."""
        u = self.uniform(cond)
        if u is not None:
            return [u]
        op = cond.owner
        if isinstance(op, arith.AndIOp):
            return [*self.every_lane(op.lhs), *self.every_lane(op.rhs)]
        if isinstance(op, arith.CmpiOp):
            pred = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
            if pred in _MONOTONE:
                return [
                    self.emit(arith.CmpiOp(self.at_lane(op.lhs, k), self.at_lane(op.rhs, k), pred))
                    for k in (0, self.lanes - 1)
                ]
        raise _Unsupported("a mask not of a bound")

    # --- the body -----------------------------------------------------------
    def build(self) -> bool:
        """The vector body in `self.new`; False (nothing made) when it cannot be."""
        body = self.loop.body.block
        bounds = self.loop.constant_bounds
        if bounds is None or bounds[2] != 1 or bounds[1] - bounds[0] != self.lanes:
            return False
        self.affine[body.args[0]] = _Lane(self.constant(bounds[0]), 1)
        try:
            self.ops(body, None)
        except _Unsupported:
            self.discard()
            return False
        return True

    def commit(self, into: Block | None = None) -> None:
        """Replace the loop by the vector body, in its place or at the end of
        block `into` (before its terminator)."""
        block, at = (self.block, self.loop) if into is None else (into, into.last_op)
        assert block is not None and at is not None
        for op in self.new:
            if op.parent is not None:  # the loop's own op, moved out
                op.detach()
            block.insert_op_before(op, at)
        self.loop.detach()
        self.loop.erase()

    def discard(self) -> None:
        """Drop the vector body (the loop's own ops stay in it)."""
        discard([op for op in self.new if op.parent is None])
        self.new = []

    def reusable(self, op: Operation, operands: list[SSAValue]) -> bool:
        """Whether the loop's lane-independent `op` can be moved out as it is:
        its operands are their own lane-independent values."""
        return self.move and all(a is b for a, b in zip(operands, op.operands, strict=True))

    def masked(self) -> list[Operation]:
        """The masked accesses of the vector body."""
        return [
            o for op in self.new for o in op.walk() if isinstance(o, tir.MaskedLoadOp | tir.MaskedStoreOp)
        ]

    def ops(self, block: Block, mask: SSAValue | None) -> None:
        for op in block.ops:
            if isinstance(op, tir.YieldOp):
                continue
            if isinstance(op, tir.IfOp):
                self.if_(op, mask)
            elif isinstance(op, tir.LoadOp):
                self.load(op, mask)
            elif isinstance(op, tir.StoreOp):
                self.store(op, mask)
            elif op.regions or isinstance(op, tir.ForOp | tir.CallOp | tir.AllocOp):
                raise _Unsupported(op.name)
            else:
                self.compute(op)

    def if_(self, op: tir.IfOp, mask: SSAValue | None) -> None:
        if op.else_region is not None:
            raise _Unsupported("tir.if with else")
        cond = self.uniform(op.cond)
        if self.unmasked is not None and cond is None:
            self.unmasked.extend(self.every_lane(op.cond))
            self.ops(op.then_region.block, mask)
            return
        if cond is not None and mask is None:
            inner = self.nested()
            inner.ops(op.then_region.block, None)
            then = Block(inner.new)
            then.add_op(tir.YieldOp())
            self.emit(tir.IfOp(cond, then))
            return
        m = self.as_vector(op.cond) if cond is None else self.broadcast(cond)
        if mask is not None:
            m = self.emit(arith.AndIOp(mask, m))
        self.ops(op.then_region.block, m)

    def load(self, op: tir.LoadOp, mask: SSAValue | None = None) -> None:
        if isinstance(op.result.type, VectorType):
            raise _Unsupported("vector load")
        try:
            self.vector_load(op)
        except _Unsupported:
            if mask is not None:  # a masked-off lane's element may be outside the buffer
                raise
            self.gather(op)

    def gather(self, op: tir.LoadOp) -> None:
        """A load whose lanes no vector load covers (a transposed read: the lane
        moves along an outer axis): one scalar load per lane, each index
        lane-independent or `base + stride * lane`, inserted into a vector, so
        that the computation around it stays vectorized (an erf or exp per lane
        would otherwise be a scalar call)."""
        parts: list[SSAValue | _Lane] = []
        for i in op.indices:
            u = self.uniform(i)
            lane = self.affine.get(i)
            if u is None and (lane is None or lane.clamped):
                raise _Unsupported("gather")
            parts.append(u if u is not None else lane)  # type: ignore[arg-type]
        out: SSAValue | None = None
        for k in range(self.lanes):
            at = [
                p if not isinstance(p, _Lane)
                else p.base if k == 0 else self.emit(arith.AddiOp(p.base, self.constant(p.stride * k)))
                for p in parts
            ]
            one = self.emit(tir.LoadOp(op.buffer, at))
            out = self.broadcast(one) if out is None else self.emit(vector.InsertOp(one, out, [k]))
        self.vector[op.result] = out  # type: ignore[assignment]

    def vector_load(self, op: tir.LoadOp) -> None:
        idx = [self.uniform(i) for i in op.indices]
        if all(i is not None for i in idx):
            if self.reusable(op, [op.buffer, *idx]):  # type: ignore[list-item]
                self.new.append(op)
                self.scalar[op.result] = op.result
                return
            new = tir.LoadOp(op.buffer, idx)  # type: ignore[arg-type]
            self.scalar[op.result] = self.emit(new)
            return
        lane = self.affine.get(op.indices[-1])
        stride = lane.stride if lane is not None else 0
        if lane is not None and lane.clamped:
            self.masked_load(op, lane)
            return
        if 1 < stride <= MAX_LOAD_STRIDE:
            base = self.contiguous(op.indices, stride)
            wide = self.emit(
                tir.LoadOp(op.buffer, base, VectorType(op.result.type, [stride * self.lanes]))
            )
            keep = DenseArrayBase.from_list(i64, [stride * k for k in range(self.lanes)])
            self.vector[op.result] = self.emit(
                vector.ShuffleOp(wide, wide, keep, result_type=self.vtype(op.result.type))
            )
            return
        base = self.contiguous(op.indices)
        self.vector[op.result] = self.emit(
            tir.LoadOp(op.buffer, base, self.vtype(op.result.type))
        )

    def masked_load(self, op: tir.LoadOp, lane: _Lane) -> None:
        """A load at `clamp(base + lane, lo, hi)` (a padded window's read): a
        masked load at `base + lane` of the lanes inside `lo..hi`; the lanes
        below read the element at `lo`, those above the one at `hi`, as the
        clamp does (two scalar loads)."""
        if self.unmasked is not None:  # every lane inside lo..hi: a plain load
            if lane.stride != 1:
                raise _Unsupported("gather")
            if lane.lo is not None:
                self.unmasked.append(self.emit(arith.CmpiOp(lane.base, lane.lo, "sge")))
            if lane.hi is not None:
                end = self.emit(arith.AddiOp(lane.base, self.constant(self.lanes - 1)))
                self.unmasked.append(self.emit(arith.CmpiOp(end, lane.hi, "sle")))
            lead = self.contiguous(op.indices, clamped=True)[:-1]
            self.vector[op.result] = self.emit(
                tir.LoadOp(op.buffer, [*lead, lane.base], self.vtype(op.result.type))
            )
            return
        extent = op.buffer.type.get_shape()[-1]  # type: ignore[attr-defined]
        bounds = [tir.ForOp.constant_index(b) for b in (lane.lo, lane.hi) if b is not None]
        if lane.stride != 1 or not all(b is not None and 0 <= b < extent for b in bounds):
            raise _Unsupported("gather")  # the edge loads must be inside the buffer
        lead = self.contiguous(op.indices, clamped=True)[:-1]
        index = self.unclamped(lane)
        mask: SSAValue | None = None
        edge: SSAValue | None = None
        for bound, pred in ((lane.lo, "sge"), (lane.hi, "sle")):
            if bound is None:
                continue
            inside = self.emit(tir.VectorCmpOp(pred, index, self.as_vector(bound)))
            mask = inside if mask is None else self.emit(arith.AndIOp(mask, inside))
            at = self.broadcast(self.emit(tir.LoadOp(op.buffer, [*lead, bound])))
            # below `lo` the clamp reads `lo`'s element; above `hi`, `hi`'s
            if edge is None:
                edge = at
            else:
                below = self.emit(tir.VectorCmpOp("slt", index, self.as_vector(lane.lo)))  # type: ignore[arg-type]
                edge = self.emit(tir.VectorSelectOp(below, edge, at))
        assert mask is not None and edge is not None
        self.vector[op.result] = self.emit(
            tir.MaskedLoadOp(op.buffer, [*lead, lane.base], mask, edge)
        )

    def contiguous(
        self,
        indices: tuple[SSAValue, ...] | list[SSAValue],
        stride: int = 1,
        clamped: bool = False,
    ) -> list[SSAValue]:
        """Lane-0 indices of an access whose last index is `base + stride * lane`
        (unless `clamped`, not clamped)."""
        *lead, last = indices
        out = []
        for i in lead:
            u = self.uniform(i)
            if u is None:
                raise _Unsupported("gather")
            out.append(u)
        lane = self.affine.get(last)
        if lane is None or lane.stride != stride or (lane.clamped and not clamped):
            raise _Unsupported("gather")
        return [*out, lane.base]

    def store(self, op: tir.StoreOp, mask: SSAValue | None) -> None:
        if isinstance(op.value.type, VectorType):
            raise _Unsupported("vector store")
        base = self.contiguous(op.indices)
        value = self.as_vector(op.value)
        if mask is None or self.in_row(op.buffer, base[-1]):
            self.emit(tir.StoreOp(value, op.buffer, base))
        else:
            self.emit(tir.MaskedStoreOp(value, op.buffer, base, mask))

    def in_row(self, buffer: SSAValue, base: SSAValue) -> bool:
        """Whether a vector stored at `base` of a local buffer's last dim stays in
        its row: a masked-off lane written there lands in padding no one reads
        (past the row's end it would land in the next row, or past the buffer)."""
        owner = buffer.owner
        if not isinstance(owner, tir.AllocOp) or owner.scope.data != AllocScope.LOCAL:
            return False
        assert isinstance(buffer.type, MemRefType)
        last = buffer.type.get_shape()[-1]
        if last <= 0 or last % self.lanes or not _multiple_of(base, self.lanes):
            return False
        # (a vector at the row's end or past it would land in the next row)
        largest = _largest(base)
        return largest is not None and largest + self.lanes <= last

    def compute(self, op: Operation) -> None:
        ins = [self.uniform(v) for v in op.operands]
        if all(i is not None for i in ins):
            key = op_key(op, ins) if pure(op) else None  # type: ignore[arg-type]
            same = self.computed.get(key) if key is not None else None
            if same is not None:
                self.scalar.update(zip(op.results, same.results, strict=True))
                return
            if self.reusable(op, ins):  # type: ignore[arg-type]
                copy: Operation = op
            else:
                copy = clone(op, dict(zip(op.operands, ins, strict=True)))  # type: ignore[arg-type]
            self.new.append(copy)
            self.scalar.update(zip(op.results, copy.results, strict=True))
            if key is not None:
                self.computed[key] = copy
            return
        if isinstance(op.results[0].type, IndexType) and self.index_op(op):
            return
        if len(op.results) != 1 or isinstance(op.results[0].type, VectorType):
            raise _Unsupported(op.name)
        if not isinstance(op, _VECTOR_OPS):
            raise _Unsupported(op.name)
        operands = [self.as_vector(v) for v in op.operands]
        if isinstance(op, arith.CmpiOp | arith.CmpfOp):
            names = (
                arith.CMPI_COMPARISON_OPERATIONS
                if isinstance(op, arith.CmpiOp)
                else arith.CMPF_COMPARISON_OPERATIONS
            )
            pred = names[op.predicate.value.data]
            self.vector[op.result] = self.emit(tir.VectorCmpOp(pred, *operands))
            return
        if isinstance(op, arith.SelectOp):
            if self.unmasked is not None and self.uniform(op.cond) is None:
                try:  # a bound on the lane (a reduction's guard): it holds
                    holds = self.every_lane(op.cond)
                except _Unsupported:
                    holds = None
                if holds is not None:
                    self.unmasked.extend(holds)
                    self.vector[op.result] = operands[1]
                    return
            self.vector[op.result] = self.emit(tir.VectorSelectOp(*operands))
            return
        rtype = self.vtype(op.results[0].type)
        new = op.create(
            operands=operands,
            result_types=[rtype],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        self.vector[op.results[0]] = self.emit(new)

    def index_op(self, op: Operation) -> bool:
        """Track `base + stride * lane` through add, sub and multiply by constants,
        unsigned division and remainder by a constant its lanes do not cross a
        multiple of, and its clamp into lane-independent bounds (max, then min)."""
        a, b = op.operands[0], op.operands[-1]
        la, lb = self.affine.get(a), self.affine.get(b)
        ua, ub = self.uniform(a), self.uniform(b)
        if isinstance(op, arith.MaxSIOp | arith.MinSIOp):
            lane, bound = (la, ub) if la else (lb, ua)
            if lane is None or bound is None:
                return False
            lo, hi = lane.lo, lane.hi
            if isinstance(op, arith.MaxSIOp):
                if lo is not None or hi is not None:  # max after a clamp: not a clamp
                    return False
                lo = bound
            else:
                if hi is not None:
                    return False
                hi = bound
            self.affine[op.results[0]] = _Lane(lane.base, lane.stride, lo, hi)
            return True
        if (la is not None and la.clamped) or (lb is not None and lb.clamped):
            return False  # arithmetic on a clamped index: a general vector
        if isinstance(op, arith.AddiOp | arith.SubiOp):
            if la and ub is not None:
                cls = type(op)
                base = self.emit(cls(la.base, ub))
                self.affine[op.results[0]] = _Lane(base, la.stride)
                return True
            if lb and ua is not None and isinstance(op, arith.AddiOp):
                self.affine[op.results[0]] = _Lane(self.emit(arith.AddiOp(ua, lb.base)), lb.stride)
                return True
            if la and lb:
                cls = type(op)
                stride = la.stride + lb.stride if isinstance(op, arith.AddiOp) else la.stride - lb.stride
                self.affine[op.results[0]] = _Lane(self.emit(cls(la.base, lb.base)), stride)
                return True
        if isinstance(op, arith.MuliOp):
            lane, k = (la, ub) if la else (lb, ua)
            c = tir.ForOp.constant_index(k) if k is not None else None
            if lane is not None and k is not None and c is not None:
                base = self.emit(arith.MuliOp(lane.base, k))
                self.affine[op.results[0]] = _Lane(base, lane.stride * c)
                return True
        if isinstance(op, arith.DivUIOp | arith.RemUIOp) and la is not None and ub is not None:
            # The lanes span `stride * lanes` indices from a multiple of that
            # span; a divisor that is a multiple of it too puts them all in one
            # of its blocks: one quotient, and remainders `base % d + stride *
            # lane` (a reshape's index inside a fused kernel: GroupNorm's, a
            # head merge's).
            d = tir.ForOp.constant_index(ub)
            span = la.stride * self.lanes
            if d is None or la.stride < 1 or d % span or not _multiple_of(la.base, span):
                return False
            if isinstance(op, arith.DivUIOp):
                self.scalar[op.results[0]] = self.emit(arith.DivUIOp(la.base, ub))
            else:
                self.affine[op.results[0]] = _Lane(self.emit(arith.RemUIOp(la.base, ub)), la.stride)
            return True
        return False


@cache
def _vector_type(elem: Attribute, lanes: int) -> VectorType:
    """`vector<lanes x elem>`, made once."""
    return VectorType(elem, [lanes])


# Ops whose semantics lane by lane are the scalar op's (arith and math on vectors).
_VECTOR_OPS: tuple[type[Operation], ...] = tuple(
    cls
    for mod in (arith, math)
    for cls in vars(mod).values()
    if isinstance(cls, type)
    and issubclass(cls, Operation)
    and cls.__module__ == mod.__name__
    and cls not in (arith.ConstantOp, arith.IndexCastOp)
)


def _bits(t: Attribute) -> int:
    """Bits of a vector's elements (an index: 64)."""
    elem = t.get_element_type() if isinstance(t, VectorType) else t
    return elem.bitwidth if isinstance(elem, IntegerType | AnyFloat) else 64


def vectorize(loop: tir.ForOp, masked_memory: Callable[[int], bool] | None = None) -> bool:
    """Replace `loop` by vector ops; False (loop unchanged) when it cannot be.
    `masked_memory(bits)` says whether the target has masked loads and stores
    of elements of `bits` (default: it has); where it has not, the tail is
    peeled instead of masked, when the masks are bounds on the lane."""
    bounds = loop.constant_bounds
    if bounds is None:
        return False
    lanes = bounds[1] - bounds[0]
    masked = _Vectorizer(loop, lanes, move=True)
    if not masked.build():
        return False
    accesses = masked.masked()
    serial_tail = masked_memory is not None and any(
        not masked_memory(_bits(a.value.type if isinstance(a, tir.MaskedStoreOp) else a.result.type))
        for a in accesses
    )
    lane_masks = accesses or any(isinstance(o, tir.VectorSelectOp) for op in masked.new for o in op.walk())
    if serial_tail or lane_masks:
        conditions: list[SSAValue] = []
        whole = _Vectorizer(loop, lanes, conditions)
        if whole.build():
            otherwise = peel(loop, whole.new, conditions, serial_tail) if conditions else None
            if otherwise is not None:
                if serial_tail:
                    masked.discard()
                else:  # the whole vectors unmasked, the tail masked
                    masked.commit(into=otherwise)
                return True
            whole.discard()
    masked.commit()
    return True


@register_pass
@dataclass(frozen=True)
class TirVectorizePass(ModulePass):
    """Turn `tir.for vectorized` loops into vector ops (else demote to serial)."""

    name = "tir-vectorize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        masked_memory = current_target().masked_memory
        loops = [
            o for o in op.walk() if isinstance(o, tir.ForOp) and o.kind.data == ForKind.VECTORIZED
        ]
        for loop in reversed(loops):
            assert isinstance(loop, tir.ForOp)
            if not vectorize(loop, masked_memory):
                loop.set_kind(ForKind.SERIAL)


__all__ = ["TirVectorizePass", "vectorize"]
