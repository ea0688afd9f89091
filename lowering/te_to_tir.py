"""`lower-te-to-tir`: TE kernels become TIR loop nests; the graph becomes calls.

Default schedule: every `te.compute` that is an output or a reduction is
materialized as a loop nest writing a buffer (output computes write the kernel's
output arguments, other reductions a local buffer); injective intermediates are
inlined into their readers (TVM's `compute_inline`). A reduction initializes its
destination element and accumulates into it over the reduce axes.

The graph function `@main` becomes a `func.func` over memrefs in destination-passing
style (inputs, then outputs): weights are `tir.constant`s, intermediates are global
`tir.alloc`s and each `te.call` becomes a `tir.call` writing into its result buffers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass

from lamina.abi import BUFFER_SLACK, MAX_LOAD_STRIDE
from lamina.dialects import te, tir
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.shapes import dims
from lamina.dialects.te import ReduceKind
from lamina.dialects.tir import ForKind, memref_of
from lamina.errors import LoweringError
from lamina.lowering.graph_to_tir import GraphLowering
from lamina.lowering.lang.expr import Expr, Inserter, is_float
from lamina.lowering.lang.index import Clamp, Div, Lin, Mod, Opaque, Var
from lamina.lowering.lang.schedule import (
    SCHEDULE_ATTR,
    Annotate,
    CacheWrite,
    Fuse,
    Loop,
    LoopNest,
    Primitive,
    Reorder,
    Schedule,
    Split,
    axis_name,
    fused_name,
    inner_name,
    outer_name,
    reduce_axis_name,
)
from lamina.lowering.relay_to_te import SymbolNamer
from lamina.lowering.strategy import tags
from lamina.lowering.strategy.registry import schedule_for
from lamina.lowering.te_buffers import row_axes, share_buffers
from lamina.passes.registry import register_pass
from lamina.symbolic import Dim, Sym

# Identity element of each reduction, as a float (integers use min/max of type).
_INIT = {ReduceKind.SUM: 0.0, ReduceKind.PROD: 1.0}


def _reduce_init(kind: ReduceKind, elem: Attribute) -> float | int:
    if kind in _INIT:
        return _INIT[kind]
    dt = numpy_dtype(elem)
    if np.issubdtype(dt, np.floating):
        return -float("inf") if kind == ReduceKind.MAX else float("inf")
    info = np.iinfo(dt)
    return int(info.min if kind == ReduceKind.MAX else info.max)


#: A float sum reduction may be reassociated: LLVM then vectorizes a reduce loop
#: over contiguous elements (partial sums in vector lanes, added at the end), as
#: TVM's rfactor and every BLAS-like library do; the order of the additions is
#: the only change. A compute marked `te.ORDERED` gets neither flag.
REASSOCIATE = arith.FastMathFlagsAttr([arith.FastMathFlag.REASSOC, arith.FastMathFlag.ALLOW_CONTRACT])


def _combine(e: Expr, kind: ReduceKind, acc: SSAValue, v: SSAValue, ordered: bool = False) -> SSAValue:
    if kind == ReduceKind.SUM:
        if is_float(acc.type):
            return e.emit(arith.AddfOp(acc, v) if ordered else arith.AddfOp(acc, v, flags=REASSOCIATE))
        return e.add(acc, v)
    if kind == ReduceKind.PROD:
        return e.mul(acc, v)
    if kind == ReduceKind.MAX:
        return e.max(acc, v)
    return e.min(acc, v)


def _accumulate(
    x: Inserter, op: te.ComputeOp, buf: SSAValue, idx: list[SSAValue], value: SSAValue
) -> None:
    """`buf[idx] = combine(buf[idx], value)` by `op`'s reduction."""
    assert op.reduce is not None
    acc = x.emit(tir.LoadOp(buf, idx))
    x.builder.insert(tir.StoreOp(_combine(x, op.reduce.data, acc, value, te.ORDERED in op.attributes), buf, idx))


def _halve(x: Inserter, op: te.ComputeOp, partial: SSAValue, lanes: int) -> None:
    """Combine a power-of-two number of lane partials pairwise into lane 0:
    `partial[l] = combine(partial[l], partial[l + h])` for h = lanes/2, ..., 1
    (the order of a vector register's horizontal reduction, upper half onto
    lower)."""
    h = lanes // 2
    while h > 1:  # a vector step: `tir-vectorize` makes it one op per register
        loop = tir.ForOp(x.index(0), x.index(h), x.index(1), kind=ForKind.VECTORIZED)
        x.builder.insert(loop)
        loop.body.block.add_op(tir.YieldOp())
        step = Inserter(loop.body.block)
        lane = loop.induction_var
        upper = step.emit(tir.LoadOp(partial, [step.add(lane, step.index(h))]))
        _accumulate(step, op, partial, [lane], upper)
        h //= 2
    if h:
        _accumulate(x, op, partial, [x.index(0)], x.emit(tir.LoadOp(partial, [x.index(1)])))


class KernelLowering:
    """Lower one `te.func` to a `tir.prim_func` with the default schedule."""

    def __init__(self, kernel: te.FuncOp):
        self.kernel = kernel
        placeholders = kernel.placeholders
        outputs = list(kernel.output.values)
        arg_types = [memref_of(p.result.type) for p in placeholders] + [
            memref_of(v.type) for v in outputs
        ]
        self.func = tir.PrimFuncOp(kernel.sym_name.data, arg_types)
        entry = self.func.body.block
        # Constants and local buffers go to a prologue moved to the entry's start.
        self.prologue = Block()
        self.entry = Expr(self.prologue)
        self.buffers: dict[SSAValue, SSAValue] = {}
        # Where loop nests go; inside the rows' loop (`enter_rows`), the leading
        # axes as expressions of its variable, and its induction variable.
        self.root = entry
        self.row: tuple[list[Lin], dict[Var, SSAValue]] | None = None
        for p, arg in zip(placeholders, entry.args, strict=False):
            self.buffers[p.result] = arg
        # An output listed twice (cse merges identical computes) is computed into
        # its first buffer and copied into the others.
        self.duplicates: list[tuple[SSAValue, SSAValue]] = []
        for v, arg in zip(outputs, entry.args[len(placeholders) :], strict=True):
            if v in self.buffers and isinstance(v.owner, te.PlaceholderOp):
                raise LoweringError(
                    f"te.func @{kernel.sym_name.data} outputs its input directly; "
                    "copy it with a te.compute"
                )
            if v in self.buffers:
                self.duplicates.append((self.buffers[v], arg))
                continue
            self.buffers[v] = arg
        self.consts: dict[int, SSAValue] = {}

    def index(self, value: int) -> SSAValue:
        if value not in self.consts:
            self.consts[value] = self.entry.index(value)
        return self.consts[value]

    def run(self) -> tir.PrimFuncOp:
        entry = self.func.body.block
        entry.add_op(tir.ReturnOp())
        computes = [op for op in self.kernel.body.block.ops if isinstance(op, te.ComputeOp)]
        epilogue_of = share_buffers(computes, self.buffers)
        rows = row_axes(computes, self.buffers, epilogue_of)
        if rows:
            self.enter_rows(computes, rows)
        for op in computes:
            if op in epilogue_of:
                self.materialize(epilogue_of[op], self.buffers[op.result], op)
            elif op.result in self.buffers:
                if op not in epilogue_of.values():
                    self.materialize(op, self.buffers[op.result])
            elif op.reduce is not None:
                buf = self.entry.emit(tir.AllocOp(memref_of(op.result.type), tir.AllocScope.LOCAL))
                self.buffers[op.result] = buf
                self.materialize(op, buf)
        for src, dst in self.duplicates:
            shape = dims(src.type)  # type: ignore[union-attr]
            ivs: dict[Var, SSAValue] = {}
            loops = [Loop(Var(f"c{d}", n)) for d, n in enumerate(shape)]
            e = Inserter(self.loops(entry, loops, ivs))
            idx = [ivs[lp.var] for lp in loops]
            e.builder.insert(tir.StoreOp(e.emit(tir.LoadOp(src, idx)), dst, idx))
        first = entry.first_op
        for op in list(self.prologue.ops):
            op.detach()
            entry.insert_op_before(op, first)
        tir.bind_sizes(self.func)
        return self.func

    # --- loop nests -----------------------------------------------------
    def loops(
        self, block: Block, loops: Sequence[Loop], ivs: dict[Var, SSAValue]
    ) -> Block:
        """Nest `loops` before `block`'s terminator; binds their variables in `ivs`."""
        for lp in loops:
            loop = tir.ForOp(
                self.index(0), self.index(lp.var.extent), self.index(1), kind=lp.kind
            )
            block.insert_op_before(loop, block.last_op)  # before the terminator
            block = loop.body.block
            block.add_op(tir.YieldOp())
            ivs[lp.var] = loop.induction_var
        return block

    def enter_rows(self, computes: list[te.ComputeOp], k: int) -> None:
        """One loop over the rows (the first `k` axes, fused; parallel if the
        output's schedule runs threads), in which the stored computes
        (`row_axes`) are then materialized, each row's stages in order."""
        extents = [int(e) for e in tuple(computes[-1].extents)[:k]]
        out = next(op for op in reversed(computes) if op.result in self.buffers)
        threads = any(
            isinstance(s, Annotate) and s.kind == ForKind.PARALLEL for s in schedule_of(out).steps
        )
        row = Var("rows", math.prod(extents))
        ivs: dict[Var, SSAValue] = {}
        self.root = self.loops(self.root, [Loop(row, ForKind.PARALLEL if threads else ForKind.SERIAL)], ivs)
        index = [
            Lin.of(row).floordiv(math.prod(extents[d + 1 :])).mod(extents[d]) for d in range(k)
        ]
        self.row = (index, ivs)

    def materialize(
        self, op: te.ComputeOp, dest: SSAValue, epilogue: te.ComputeOp | None = None
    ) -> None:
        """Loops computing `op` into `dest` under its schedule; a reduction's
        `epilogue` then runs on each finished point, in place. Inside the rows'
        loop (`enter_rows`) its leading axes are that loop's row."""
        nest = LoopNest.of(op.extents, op.reduce_shape)
        ivs: dict[Var, SSAValue] = {}
        if self.row is None:
            nest.apply(schedule_of(op))
        else:
            index, row_ivs = self.row
            nest.apply(_past_rows(schedule_of(op), len(index)))
            for d, at in enumerate(index):
                var = nest.loops.pop(nest.find(axis_name(d))).var
                nest._substitute({var: at})  # pyright: ignore[reportPrivateUsage]
            ivs.update(row_ivs)
        nest.check()
        vec = nest.vector_var
        axes = [nest.axes[axis_name(d)] for d in range(op.rank)]
        raxes = [nest.axes[reduce_axis_name(d)] for d in range(len(op.reduce_shape))]
        outer = self.root
        spatial = [lp for lp in nest.loops if not lp.reduce]
        reduce = [lp for lp in nest.loops if lp.reduce]
        if op.reduce is None:
            block = self.loops(outer, nest.loops, ivs)
            e = self.guarded(block, nest, ivs)
            scope = Scope(ivs, vec)
            value = self.inline(op, axes, e, scope)
            e.builder.insert(tir.StoreOp(value, dest, self.access(axes, dest, e, scope)))
            return
        kind = op.reduce.data
        elem = dest.type.get_element_type()  # type: ignore[union-attr]
        init = _reduce_init(kind, elem)
        if nest.cache_at is None and reduce and reduce[-1].kind == ForKind.VECTORIZED:
            self.rfactor(op, dest, epilogue, nest, ivs, (axes, raxes), (spatial, reduce))
            return
        if nest.cache_at is None:
            block = self.loops(outer, spatial, ivs)
            e = self.guarded(block, nest, ivs)
            at = self.indices(axes, e, ivs)
            e.builder.insert(tir.StoreOp(e.const(init, elem), dest, at))
            inner = self.loops(e.block, reduce, ivs)
            r = self.guarded(inner, nest, ivs, reduce=True)
            value = self.inline(op, [*axes, *raxes], r, Scope(ivs, vec))
            _accumulate(r, op, dest, self.indices(axes, r, ivs), value)
            self.finish(epilogue, op, dest, at, axes, e, Scope(ivs, vec))
            return
        # cache_write: accumulate in registers/stack, write back through the epilogue.
        at = nest.find(nest.cache_at) + 1
        block = self.loops(outer, nest.loops[:at], ivs)
        inside = nest.loops[at:]
        peel = _tail_loop(nest, inside)
        tile = _TileParts(op, dest, epilogue, nest, axes, raxes, elem, init)
        if peel is None:
            self.cached_tile(tile, block, inside, ivs)
            return
        # A size cuts the tile along `peel` (a symbolic split's tail): whole
        # tiles run the tile; the last, partial one runs it row by row over
        # the rows that exist, instead of every row on clamped reads.
        cuts = [(g, n) for g, n in nest.guards if g.uses(peel.var) and _may_exceed(g, n)]
        e = Inserter(block)
        last = {peel.var: Lin.of(int(peel.var.extent) - 1)}
        whole = e.all_of([e.cmp("lt", self.value(g.substitute(last), e, ivs), e.index(n)) for g, n in cuts])
        full, part = Block([tir.YieldOp()]), Block([tir.YieldOp()])
        e.builder.insert(tir.IfOp(whole, full, part))
        self.cached_tile(tile, full, inside, ivs)
        rows = Inserter(self.loops(part, [Loop(peel.var)], ivs))
        exists = tir.IfOp(rows.all_of([rows.cmp("lt", self.value(g, rows, ivs), rows.index(n)) for g, n in cuts]))
        rows.builder.insert(exists)
        self.cached_tile(tile, exists.then_region.block, [lp for lp in inside if lp is not peel], ivs)

    def cached_tile(self, t: _TileParts, block: Block, inside: list[Loop], ivs: dict[Var, SSAValue]) -> None:
        """The reduction `t.op` under `cache_write`, in `block` (inside the loops
        outside the cache): its tile (the output loops of `inside`) accumulated
        in a local buffer over the reduce loops, then written back through the
        epilogue; with reduce loops outside the tile (K blocks), the partial
        result reloaded after the first block and the epilogue after the last."""
        op, dest, epilogue, nest, axes, raxes, elem, init = (
            t.op, t.dest, t.epilogue, t.nest, t.axes, t.raxes, t.elem, t.init
        )
        vec = nest.vector_var
        tile = [lp for lp in inside if not lp.reduce]
        at = nest.loops.index(inside[0]) if inside else len(nest.loops)
        # Reduce loops outside the tile block the reduction (K blocks).
        blocks = [lp for lp in nest.loops[:at] if lp.reduce]
        acc_buf = Inserter(block).emit(
            tir.AllocOp(MemRefType(elem, [lp.var.extent for lp in tile] or [1]), tir.AllocScope.LOCAL)
        )

        def acc_index(x: Expr) -> list[SSAValue]:
            return [ivs[lp.var] for lp in tile] or [x.index(0)]

        def write_back(into: Block, finish: te.ComputeOp | None) -> None:
            w = self.guarded(self.loops(into, tile, ivs), nest, ivs)
            v = w.emit(tir.LoadOp(acc_buf, acc_index(w)))
            if finish is not None:
                v = self.inline(finish, axes, w, Scope(ivs, vec, {op.result: v}))
            w.builder.insert(tir.StoreOp(v, dest, self.access(axes, dest, w, Scope(ivs, vec))))

        b = self.loops(block, tile, ivs)
        x = Inserter(b)
        x.builder.insert(tir.StoreOp(x.const(init, elem), acc_buf, acc_index(x)))
        if blocks:  # after the first block: the partial result written back
            c = Inserter(block)
            later = Block([tir.YieldOp()])
            c.builder.insert(tir.IfOp(c.cmp("ne", self.value(_position(blocks), c, ivs), c.index(0)), later))
            r = self.guarded(self.loops(later, tile, ivs), nest, ivs)
            at_dest = self.access(axes, dest, r, Scope(ivs, vec))
            r.builder.insert(tir.StoreOp(r.emit(tir.LoadOp(dest, at_dest)), acc_buf, acc_index(r)))
        b = self.loops(block, inside, ivs)
        r = self.guarded(b, nest, ivs, reduce=True)
        value = self.inline(op, [*axes, *raxes], r, Scope(ivs, vec, clamp=True))
        _accumulate(r, op, acc_buf, acc_index(r), value)
        if blocks and epilogue is not None:  # the epilogue after the last block only
            c = Inserter(block)
            position = _position(blocks)
            last, other = Block([tir.YieldOp()]), Block([tir.YieldOp()])
            final = c.index(position.range()[1])
            c.builder.insert(tir.IfOp(c.cmp("eq", self.value(position, c, ivs), final), last, other))
            write_back(last, epilogue)
            write_back(other, None)
        else:
            write_back(block, epilogue)

    def rfactor(
        self,
        op: te.ComputeOp,
        dest: SSAValue,
        epilogue: te.ComputeOp | None,
        nest: LoopNest,
        ivs: dict[Var, SSAValue],
        index: tuple[list[Lin], list[Lin]],
        loops: tuple[list[Loop], list[Loop]],
    ) -> None:
        """A reduction whose innermost reduce loop is vectorized (TVM's rfactor
        over the vector lanes): each lane accumulates a partial result in a
        local vector, the lanes past a reduce axis' end adding the identity; the
        partials are then combined into the output, which the epilogue finishes.
        `index` holds the output and reduce axes as loop expressions, `loops`
        the output and reduce loops (as `materialize` derived them)."""
        assert op.reduce is not None
        (axes, raxes), (spatial, reduce) = index, loops
        kind = op.reduce.data
        elem = dest.type.get_element_type()  # type: ignore[union-attr]
        init = _reduce_init(kind, elem)
        lane = nest.loops[-1]
        partial = self.entry.emit(
            tir.AllocOp(MemRefType(elem, [lane.var.extent]), tir.AllocScope.LOCAL)
        )
        e = self.guarded(self.loops(self.root, spatial, ivs), nest, ivs)
        fill = Inserter(self.loops(e.block, [lane], ivs))
        fill.builder.insert(tir.StoreOp(fill.const(init, elem), partial, [ivs[lane.var]]))
        conds: list[SSAValue] = []
        r = self.guarded(self.loops(e.block, reduce, ivs), nest, ivs, True, conds)
        value = self.inline(op, [*axes, *raxes], r, Scope(ivs, lane.var, clamp=True))
        if conds:
            value = r.select(r.all_of(conds), value, r.const(init, elem))
        _accumulate(r, op, partial, [ivs[lane.var]], value)
        at = self.indices(axes, e, ivs)
        e.builder.insert(tir.StoreOp(e.const(init, elem), dest, at))
        lanes = lane.var.extent
        if isinstance(lanes, int) and lanes > 1 and lanes & (lanes - 1) == 0:
            _halve(e, op, partial, lanes)  # lanes as a vector register reduces them
            _accumulate(e, op, dest, at, e.emit(tir.LoadOp(partial, [e.index(0)])))
        else:
            combine = Inserter(self.loops(e.block, [Loop(lane.var, ForKind.UNROLLED)], ivs))
            part = combine.emit(tir.LoadOp(partial, [ivs[lane.var]]))
            _accumulate(combine, op, dest, self.indices(axes, combine, ivs), part)
        self.finish(epilogue, op, dest, at, axes, e, Scope(ivs, None))

    def finish(
        self,
        epilogue: te.ComputeOp | None,
        op: te.ComputeOp,
        dest: SSAValue,
        at: list[SSAValue],
        axes: list[Lin],
        e: Inserter,
        scope: Scope,
    ) -> None:
        """Run a reduction's `epilogue` on its finished point `dest[at]`, in place."""
        if epilogue is None:
            return
        scope.given[op.result] = e.emit(tir.LoadOp(dest, at))
        v = self.inline(epilogue, axes, e, scope)
        e.builder.insert(tir.StoreOp(v, dest, at))

    def guarded(
        self,
        block: Block,
        nest: LoopNest,
        ivs: dict[Var, SSAValue],
        reduce: bool = False,
        lane_conds: list[SSAValue] | None = None,
    ) -> Inserter:
        """An inserter inside the `if`s that non-dividing splits need — of the
        output axes, or with `reduce` of the reduce axes (inside their loops):
        first the lane-independent conditions, then those on the vector lane
        (which `tir-vectorize` turns into a mask; with `lane_conds`, those are
        appended there as values instead, for the caller to select with)."""
        e = Inserter(block)
        vec = nest.vector_var
        rvars = [lp.var for lp in nest.loops if lp.reduce]
        needed = [
            (g, n)
            for g, n in nest.guards
            if _may_exceed(g, n) and any(g.uses(v) for v in rvars) == reduce
        ]
        for lane_dependent in (False, True):
            group = [(g, n) for g, n in needed if (vec is not None and g.uses(vec)) == lane_dependent]
            if not group:
                continue
            conds = [e.cmp("lt", self.value(g, e, ivs), e.index(n)) for g, n in group]
            if lane_dependent and lane_conds is not None:
                lane_conds.extend(conds)
                continue
            branch = tir.IfOp(e.all_of(conds))
            e.builder.insert(branch)
            e = Inserter(branch.then_region.block)
        return e

    def indices(self, lins: Sequence[Lin], e: Expr, ivs: dict[Var, SSAValue]) -> list[SSAValue]:
        return [self.value(x, e, ivs) for x in lins]

    def access(
        self, lins: Sequence[Lin], buffer: SSAValue, e: Expr, scope: Scope
    ) -> list[SSAValue]:
        """Indices of a buffer access. When the vector lane enters some index
        through a division or modulo but the row-major offset is linear in it (a
        fused or reshaped axis), the access is flattened (TVM's storage flatten):
        `[0, ..., 0, offset]`, which addresses the same element."""
        vec = scope.vec
        if vec is not None and any(not x.linear_in(vec) for x in lins):
            shape = dims(buffer.type)  # type: ignore[union-attr]
            flat, stride = Lin(), 1
            for x, n in zip(reversed(lins), reversed(shape), strict=True):
                flat, stride = flat + x * stride, stride * n
            if flat.linear_in(vec):
                lins = [Lin()] * (len(lins) - 1) + [flat]
        return self.indices(lins, e, scope.ivs)

    def value(self, x: Lin, e: Expr, ivs: dict[Var, SSAValue]) -> SSAValue:
        """Emit `x` as `arith` index ops."""
        out: SSAValue | None = None
        for atom, k in x.terms:
            term = self.atom(atom, e, ivs)
            if k != 1:
                term = e.imul(term, self.index(k))
            out = term if out is None else e.iadd(out, term)
        if out is None:
            return self.index(x.const)
        return out if x.const == 0 else e.iadd(out, self.index(x.const))

    def atom(self, a: object, e: Expr, ivs: dict[Var, SSAValue]) -> SSAValue:
        if isinstance(a, Var):
            return ivs[a]
        if isinstance(a, Opaque):
            return a.value
        if isinstance(a, Div):
            xv = self.value(a.x, e, ivs)
            lo = a.x.range()[0]
            nonneg = lo is not None and lo >= 0
            c = self.index(a.c)
            return e.idiv(xv, c) if nonneg else e.ifloordiv(xv, c)
        if isinstance(a, Mod):
            xv = self.value(a.x, e, ivs)
            lo = a.x.range()[0]
            if lo is not None and lo >= 0:
                return e.irem(xv, self.index(a.c))
            return e.imod(xv, a.c)
        assert isinstance(a, Clamp)
        v = self.value(a.x, e, ivs)
        if a.lo is not None:
            v = e.imax(v, self.index(a.lo))
        if a.hi is not None:
            v = e.imin(v, self.index(a.hi))
        return v

    def inline(self, op: te.ComputeOp, axes: Sequence[Lin], e: Expr, scope: Scope) -> SSAValue:
        """Emit `op`'s body at the symbolic point `axes`; reads of inlined computes
        recurse. Index arithmetic is simplified symbolically (lowering/lang/index.py)."""
        sym: dict[SSAValue, Lin] = dict(zip(op.body.block.args, axes, strict=True))
        vals: dict[SSAValue, SSAValue] = {}
        known: dict[SSAValue, int] = {}  # i1 values decided by ranges

        def get(v: SSAValue) -> SSAValue:
            if v in vals:
                return vals[v]
            if v in sym:
                vals[v] = self.value(sym[v], e, scope.ivs)
                return vals[v]
            return v

        for inner in op.body.block.ops:
            if isinstance(inner, te.YieldOp):
                return get(inner.value)
            if isinstance(inner, te.ReadOp):
                idx = [sym.get(i) for i in inner.indices]
                lins = [x if x is not None else Lin.of(Opaque(get(i))) for x, i in zip(idx, inner.indices, strict=True)]
                src = inner.tensor
                if src in scope.given:
                    vals[inner.result] = scope.given[src]
                elif src in self.buffers:
                    lins = scope.safe(lins, src)
                    buf = self.buffers[src]
                    vals[inner.result] = e.emit(
                        tir.LoadOp(buf, self.access(lins, buf, e, scope))
                    )
                elif isinstance(src.owner, te.ComputeOp):
                    vals[inner.result] = self.inline(src.owner, lins, e, scope)
                else:
                    raise LoweringError(f"te.read of {src} which has no buffer")
                continue
            folded = _fold_index(inner, sym, known)
            if folded is not None:
                if isinstance(folded, Lin):
                    sym[inner.results[0]] = folded
                else:
                    known[inner.results[0]] = folded
                    vals[inner.results[0]] = e.const(folded, inner.results[0].type)
                continue
            if isinstance(inner, arith.SelectOp) and inner.cond in known:
                pick = inner.lhs if known[inner.cond] else inner.rhs
                if pick in sym:
                    sym[inner.result] = sym[pick]
                else:
                    vals[inner.result] = get(pick)
                continue
            clone = inner.clone(value_mapper={v: get(v) for v in inner.operands})
            e.builder.insert(clone)
            for old, new in zip(inner.results, clone.results, strict=True):
                vals[old] = new
                if isinstance(new.type, IndexType):
                    sym[old] = Lin.of(Opaque(new))
        raise LoweringError("te.compute body without te.yield")


@dataclass
class Scope:
    """What an inlined body sees: loop variables, the vector lane loop, values given
    for some tensors (an epilogue's producer) and whether reads must be clamped
    (statements that run on the padded points of non-dividing splits)."""

    ivs: dict[Var, SSAValue]
    vec: Var | None
    given: dict[SSAValue, SSAValue] = field(default_factory=dict)
    clamp: bool = False

    def safe(self, lins: list[Lin], tensor: SSAValue) -> list[Lin]:
        """Read indices that stay inside `tensor`: clamped, except along a vector
        lane that reads one vector load (contiguous or with a small stride: buffers
        keep `BUFFER_SLACK` readable bytes past their end, and such lanes are
        never stored)."""
        if not self.clamp:
            return lins
        ttype = tensor.type
        shape = dims(ttype)  # type: ignore[union-attr]
        flat = Lin()
        stride: Dim = 1
        symbolic_lane = False  # the lane moves along an axis of symbolic stride
        for x, n in zip(reversed(lins), reversed(shape), strict=True):
            if isinstance(stride, Sym):
                symbolic_lane |= self.vec is not None and x.uses(self.vec)
            else:
                flat = flat + x * stride
            stride = stride * n
        contiguous = False
        if self.vec is not None and not symbolic_lane and flat.linear_in(self.vec):
            step = flat.coeff(self.vec)
            width = numpy_dtype(ttype.get_element_type()).itemsize  # type: ignore[union-attr]
            contiguous = 1 <= step <= MAX_LOAD_STRIDE and (
                step * self.vec.extent * width <= BUFFER_SLACK
            )
        return [
            x if contiguous and self.vec is not None and x.uses(self.vec) else x.clamp(0, n - 1)
            for x, n in zip(lins, shape, strict=True)
        ]


_CMP = {"eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4, "sge": 5, "ult": 6, "ule": 7, "ugt": 8, "uge": 9}


def _fold_index(op: Operation, sym: dict[SSAValue, Lin], known: dict[SSAValue, int]) -> Lin | int | None:
    """`op` over symbolic indices as a symbolic index, or a decided i1, if it can."""
    if isinstance(op, arith.ConstantOp) and isinstance(op.result.type, IndexType):
        assert isinstance(op.value, IntegerAttr)
        return Lin.of(op.value.value.data)
    ins = [sym.get(v) for v in op.operands]
    if isinstance(op, arith.AndIOp | arith.OrIOp) and all(v in known for v in op.operands):
        a, b = (known[v] for v in op.operands)
        return (a & b) if isinstance(op, arith.AndIOp) else (a | b)
    if not op.operands or any(x is None for x in ins):
        return None
    xs = [x for x in ins if x is not None]
    if isinstance(op, arith.AddiOp):
        return xs[0] + xs[1]
    if isinstance(op, arith.SubiOp):
        return xs[0] - xs[1]
    if isinstance(op, arith.MuliOp):
        if xs[1].is_const:
            return xs[0] * xs[1].const
        if xs[0].is_const:
            return xs[1] * xs[0].const
        return None
    lo = xs[0].range()[0]
    if len(xs) == 2 and xs[1].is_const and xs[1].const > 0:
        c = xs[1].const
        if isinstance(op, arith.FloorDivSIOp) or (
            isinstance(op, arith.DivUIOp | arith.DivSIOp) and lo is not None and lo >= 0
        ):
            return xs[0].floordiv(c)
        if isinstance(op, arith.RemUIOp | arith.RemSIOp) and lo is not None and lo >= 0:
            return xs[0].mod(c)
    if isinstance(op, arith.MinSIOp | arith.MaxSIOp):
        if xs[1].is_const:
            x, c = xs[0], xs[1].const
        elif xs[0].is_const:
            x, c = xs[1], xs[0].const
        else:
            return None
        return x.clamp(None, c) if isinstance(op, arith.MinSIOp) else x.clamp(c, None)
    if isinstance(op, arith.CmpiOp):
        d_lo, d_hi = (xs[0] - xs[1]).range()
        pred = op.predicate.value.data
        decided = _decide(pred, d_lo, d_hi)
        return decided
    return None


def _decide(pred: int, lo: int | None, hi: int | None) -> int | None:
    """Decide `a <pred> b` from the range `lo..hi` of `a - b` (signed predicates)."""
    if lo is None or hi is None:
        return None
    table = {
        _CMP["eq"]: (lo == hi == 0, lo > 0 or hi < 0),
        _CMP["ne"]: (lo > 0 or hi < 0, lo == hi == 0),
        _CMP["slt"]: (hi < 0, lo >= 0),
        _CMP["sle"]: (hi <= 0, lo > 0),
        _CMP["sgt"]: (lo > 0, hi <= 0),
        _CMP["sge"]: (lo >= 0, hi < 0),
    }
    if pred not in table:
        return None
    true, false = table[pred]
    return 1 if true else 0 if false else None


def _past_rows(schedule: Schedule, k: int) -> Schedule:
    """`schedule` without its steps on the first `k` axes (or on loops made from
    them): those axes are a row of the rows' loop (`KernelLowering.enter_rows`)."""
    rows = {axis_name(d) for d in range(k)}
    steps: list[Primitive] = []
    for step in schedule.steps:
        if isinstance(step, Split) and step.axis in rows:
            rows |= {outer_name(step.axis), inner_name(step.axis)}
        elif isinstance(step, Fuse) and rows & {step.outer, step.inner}:
            rows.add(fused_name(step.outer, step.inner))
        elif isinstance(step, Reorder):
            steps.append(Reorder(tuple(n for n in step.order if n not in rows)))
        elif not (
            (isinstance(step, Annotate) and step.axis in rows)
            or (isinstance(step, CacheWrite) and step.at in rows)
        ):
            steps.append(step)
    return Schedule(tuple(steps))


def schedule_of(op: te.ComputeOp) -> Schedule:
    """The `schedule` attribute of a compute, else the target's default for its
    class (the strategy's `default` rule; none: the compute's loops as they are)."""
    attr = op.attributes.get(SCHEDULE_ATTR)
    if isinstance(attr, StringAttr):
        return Schedule.parse(attr.data)
    found = schedule_for(tags.DEFAULT, op)
    return found if found is not None else Schedule(())


@register_pass
@dataclass(frozen=True)
class LowerTeToTirPass(ModulePass):
    """Lower TE kernels to TIR loop nests and the graph to buffer calls (a
    kernel marked `te.LOWERED` is kept: compile-kernels compiles it)."""

    name = "lower-te-to-tir"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        namer = SymbolNamer(op)
        for child in list(op.ops):
            if isinstance(child, te.FuncOp) and te.LOWERED not in child.attributes:
                lowered = KernelLowering(child).run()
                op.body.block.insert_op_before(lowered, child)
                child.detach()
                child.erase()
        for child in list(op.ops):
            if isinstance(child, func.FuncOp) and _is_graph(child):
                new = GraphLowering(child, op, namer, lambda k: KernelLowering(k).run()).run()
                op.body.block.insert_op_before(new, child)
                child.detach()
                child.erase()


def _position(loops: Sequence[Loop]) -> Lin:
    """The iteration number of the nest of `loops` (row-major over their
    variables: 0 first, the product of their extents less 1 last)."""
    out, stride = Lin(), 1
    for lp in reversed(loops):
        out, stride = out + Lin.of(lp.var) * stride, stride * lp.var.extent
    return out


@dataclass(frozen=True)
class _TileParts:
    """What `cached_tile` computes: a reduction into `dest`, its epilogue, its
    nest, its output and reduce axes as loop expressions, and its element type
    and identity."""

    op: te.ComputeOp
    dest: SSAValue
    epilogue: te.ComputeOp | None
    nest: LoopNest
    axes: list[Lin]
    raxes: list[Lin]
    elem: Attribute
    init: float | int


def _tail_loop(nest: LoopNest, inside: Sequence[Loop]) -> Loop | None:
    """The tile loop a symbolic size cuts: an output loop inside `cache_write`,
    not the vector lanes, of a static extent, in a guard against a size (a
    non-dividing split of a symbolic axis, as a GEMM's rows in decoding);
    None when there is none."""
    vec = nest.vector_var
    for lp in inside:
        if lp.reduce or lp.var is vec or not isinstance(lp.var.extent, int) or lp.var.extent < 2:
            continue
        if any(g.uses(lp.var) and isinstance(n, Sym) and not (vec is not None and g.uses(vec)) for g, n in nest.guards):
            return lp
    return None


def _may_exceed(g: Lin, n: Dim) -> bool:
    """Whether guard `g < n` can fail: `g` may reach `n` (always, for a size)."""
    hi = g.range()[1]
    return isinstance(n, Sym) or hi is None or hi >= n


def _is_graph(fn: func.FuncOp) -> bool:
    return bool(fn.body.blocks) and any(
        isinstance(t, TensorType) for t in (*fn.function_type.inputs, *fn.function_type.outputs)
    )


__all__ = ["LowerTeToTirPass"]
