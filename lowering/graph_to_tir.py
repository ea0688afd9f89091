"""The graph function lowered to destination-passing calls over buffers
(`lower-te-to-tir`'s half for `@main`): each `te.call` a `tir.call` on buffers
allocated at the top of `@main`, results returned or yielded computed in place
where they can be, `relay.if`/`relay.loop` as `tir.if`/`tir.for` around their
bodies' calls, `te.set_size` as `tir.set_size`, `te.check` as `tir.check` on
the loaded condition.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    FunctionType,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.traits import SymbolTable

from lamina.dialects import relay, te, tir
from lamina.dialects.constants import dense_array
from lamina.dialects.resources import blobs
from lamina.dialects.shapes import dims, symbolic_tensor
from lamina.dialects.tir import memref_of
from lamina.errors import LoweringError
from lamina.ir import io_names
from lamina.lowering.concat_slices import concat_offsets
from lamina.lowering.lang.expr import Expr, Inserter
from lamina.lowering.lang.tir_builder import TirBuilder
from lamina.lowering.relay_to_te import SymbolNamer
from lamina.lowering.topi import Kernel


class GraphLowering:
    """Lower the graph function to destination-passing calls over buffers."""

    def __init__(
        self,
        fn: func.FuncOp,
        module: ModuleOp,
        namer: SymbolNamer,
        lower_kernel: Callable[[te.FuncOp], tir.PrimFuncOp],
    ):
        self.fn = fn
        self.module = module
        self.namer = namer
        self.lower_kernel = lower_kernel
        self.copies: dict[MemRefType, str] = {}
        self.stacks: dict[tuple[MemRefType, MemRefType], str] = {}

    def run(self) -> func.FuncOp:
        fn = self.fn
        ins = [memref_of(t) for t in fn.function_type.inputs]
        outs = [memref_of(t) for t in fn.function_type.outputs]
        names = io_names(fn.arg_attrs, "in", len(ins)) + io_names(
            fn.res_attrs, "out", len(outs)
        )
        new = func.FuncOp(
            fn.sym_name.data,
            FunctionType.from_lists([*ins, *outs], []),
            arg_attrs=ArrayAttr(
                [DictionaryAttr({"lamina.name": StringAttr(n)}) for n in names]
            ),
        )
        block = new.body.block
        self.top = block
        e = Expr(block)
        old_block = fn.body.block
        vals: dict[SSAValue, SSAValue] = dict(zip(old_block.args, block.args[: len(ins)], strict=True))
        out_args = list(block.args[len(ins) :])
        ret = old_block.last_op
        assert isinstance(ret, func.ReturnOp)
        bound = self.direct(old_block, out_args)
        self.ops(e, old_block, vals, bound)
        self.into(e, list(ret.arguments), out_args, vals, bound)
        e.builder.insert(func.ReturnOp())
        return new

    @staticmethod
    def direct(block: Block, dests: list[SSAValue]) -> dict[SSAValue, SSAValue]:
        """The results of calls in `block` that its terminator returns or yields,
        bound to the destination buffers (first use only): computed there."""
        bound: dict[SSAValue, SSAValue] = {}
        end = block.last_op
        assert end is not None
        for value, out in zip(end.operands, dests, strict=True):
            if _made_in(value, block) and value not in bound:
                bound[value] = out
        return bound

    @staticmethod
    def slices(block: Block, bound: dict[SSAValue, SSAValue]) -> dict[SSAValue, tuple[SSAValue, int]]:
        """The values of `block` computed in their slice of a concatenation's
        buffer, with the concatenation and the slice's first element: results
        of this block's calls and concatenations, each in the first
        concatenation that reads it, unless it is computed in a destination
        (`bound`: an output) or is the same concatenation's operand twice."""
        placed: dict[SSAValue, tuple[SSAValue, int]] = {}
        for op in block.ops:
            if not isinstance(op, relay.ConcatenateOp):
                continue
            offsets = concat_offsets(op)
            assert offsets is not None, "lower-relay-to-te leaves only such concatenations"
            for value, offset in zip(op.inputs, offsets, strict=True):
                if _made_in(value, block) and value not in placed and value not in bound:
                    placed[value] = (op.output, offset)
        return placed

    def buffer(
        self, e: Expr, value: SSAValue, vals: dict[SSAValue, SSAValue],
        bound: dict[SSAValue, SSAValue], placed: dict[SSAValue, tuple[SSAValue, int]],
    ) -> SSAValue:
        """The buffer `value` is computed in: its destination, its slice of a
        concatenation's buffer (a view, the whole made first), else a new one."""
        if value not in vals:
            if value in bound:
                vals[value] = bound[value]
            elif value in placed:
                whole, offset = placed[value]
                source = self.buffer(e, whole, vals, bound, placed)
                vals[value] = e.emit(tir.ViewOp(source, offset, memref_of(value.type)))
            else:
                vals[value] = self.alloc(e, value.type)
        return vals[value]

    def concatenate(
        self, e: Expr, op: relay.ConcatenateOp, vals: dict[SSAValue, SSAValue],
        bound: dict[SSAValue, SSAValue], placed: dict[SSAValue, tuple[SSAValue, int]],
    ) -> None:
        """A concatenation: its operands computed in their slices already, the
        others (weights, inputs, values another concatenation holds) copied there."""
        whole = self.buffer(e, op.output, vals, bound, placed)
        offsets = concat_offsets(op)
        assert offsets is not None
        for value, offset in zip(op.inputs, offsets, strict=True):
            if placed.get(value) != (op.output, offset):
                part = e.emit(tir.ViewOp(whole, offset, memref_of(value.type)))
                self.call(e, self.copy_kernel(part.type), [vals[value], part])

    def into(
        self, e: Expr, values: list[SSAValue], dests: list[SSAValue],
        vals: dict[SSAValue, SSAValue], bound: dict[SSAValue, SSAValue],
    ) -> None:
        """Copy `values` into `dests` where they were not computed there."""
        for value, out in zip(values, dests, strict=True):
            if vals[value] is not out and bound.get(value) is not out:
                self.call(e, self.copy_kernel(out.type), [vals[value], out])

    def ops(self, e: Expr, block: Block, vals: dict[SSAValue, SSAValue], bound: dict[SSAValue, SSAValue]) -> None:
        """Lower the ops of `block` but its terminator at `e`; `bound` names
        the buffers some call results are computed in."""
        placed = self.slices(block, bound)
        for op in block.ops:
            if isinstance(op, relay.ConstantOp):
                vals[op.output] = e.emit(_tir_constant(op))
            elif isinstance(op, te.CallOp):
                outs = [self.buffer(e, r, vals, bound, placed) for r in op.res]
                self.call(e, op.callee.string_value(), [vals[a] for a in op.args] + outs)
            elif isinstance(op, relay.ConcatenateOp):
                self.concatenate(e, op, vals, bound, placed)
            elif isinstance(op, te.SetSizeOp):
                e.builder.insert(tir.SetSizeOp(op.size.data, vals[op.count], op.bound_dim, op.element))
            elif isinstance(op, te.CheckOp):
                e.builder.insert(tir.CheckOp(e.emit(tir.LoadOp(vals[op.cond], [])), op.message.data))
            elif isinstance(op, relay.IfOp):
                self.if_(e, op, vals)
            elif isinstance(op, relay.LoopOp):
                self.loop(e, op, vals)
            elif not isinstance(op, func.ReturnOp | relay.YieldOp):
                raise LoweringError(
                    f"{op.name} in @{self.fn.sym_name.data} has not been lowered; run "
                    "lower-relay-to-te first"
                )

    def alloc(self, e: Expr, t: Attribute) -> SSAValue:
        """A buffer for a tensor of type `t` (or of buffer type `t`), at the
        top level of @main: where `e` inserts, or before the control-flow op
        `e` is inside of."""
        op = tir.AllocOp(t if isinstance(t, MemRefType) else memref_of(t))
        block = e.builder.insertion_point.block
        if block is self.top:
            e.builder.insert(op)
        else:
            outer = self.top.find_ancestor_op_in_block(block.parent_op())  # type: ignore[arg-type]
            assert outer is not None
            self.top.insert_op_before(op, outer)
        return op.result

    def if_(self, e: Expr, op: relay.IfOp, vals: dict[SSAValue, SSAValue]) -> None:
        """`relay.if` as `tir.if` on the loaded condition; each body writes the
        results' buffers."""
        outs = [self.alloc(e, r.type) for r in op.outputs]
        branch = tir.IfOp(e.emit(tir.LoadOp(vals[op.cond], [])), Block(), Block())
        for region in branch.regions:
            region.block.add_op(tir.YieldOp())
        e.builder.insert(branch)
        for body, region in ((op.then_body, branch.then_region), (op.else_body, branch.else_region)):
            inner = dict(vals)
            inner.update(zip(body.block.args, (vals[v] for v in op.inputs), strict=True))
            at = Inserter(region.block)
            bound = self.direct(body.block, outs)
            self.ops(at, body.block, inner, bound)
            self.into(at, list(body.block.last_op.operands), outs, inner, bound)  # type: ignore[union-attr]
        vals.update(zip(op.outputs, outs, strict=True))

    def loop(self, e: Expr, op: relay.LoopOp, vals: dict[SSAValue, SSAValue]) -> None:
        """`relay.loop` as a serial `tir.for` up to the trip count, each
        iteration guarded by the condition; the carried values live in state
        buffers, computed there when the body is done with the current value
        (`in_place`), else copied from what the body yields at the end of an
        iteration, all at once (`assign`)."""
        n = op.num_carried
        state = [self.alloc(e, v.type) for v in op.inputs[:n]]
        cond, step, count = (self.alloc(e, t) for t in (op.cond.type, op.trip_count.type, op.trip_count.type))
        stacks = [self.alloc(e, r.type) for r in op.outputs[n:-1]]
        for src, dst in zip([op.cond, *op.inputs[:n]], [cond, *state], strict=True):
            self.call(e, self.copy_kernel(dst.type), [vals[src], dst])
        i64 = IntegerType(64)
        e.builder.insert(tir.StoreOp(e.const(0, i64), count, []))
        trips = e.to_index(e.emit(tir.LoadOp(vals[op.trip_count], [])))
        for_op = tir.ForOp(e.index(0), trips, e.index(1))
        for_op.body.block.add_op(tir.YieldOp())
        e.builder.insert(for_op)
        body = Inserter(for_op.body.block)
        go = tir.IfOp(body.emit(tir.LoadOp(cond, [])), Block())
        go.then_region.block.add_op(tir.YieldOp())
        body.builder.insert(go)
        inner_e = Inserter(go.then_region.block)
        inner_e.builder.insert(tir.StoreOp(inner_e.from_index(for_op.induction_var, i64), step, []))
        block = op.body.block
        inner = dict(vals)
        inner.update(zip(block.args, [step, cond, *state, *(vals[v] for v in op.inputs[n:])], strict=True))
        yielded = list(block.last_op.operands)  # type: ignore[union-attr]
        # A next state is computed in its state buffer when nothing reads the
        # current one from its producer on; the others are copied in at the end.
        bound = self.in_place(block, yielded[: 1 + n], [cond, *state])
        self.ops(inner_e, block, inner, bound)
        for value, stack in zip(yielded[1 + n :], stacks, strict=True):
            self.call(inner_e, self.stack_kernel(inner[value].type, stack.type), [inner[value], step, stack])
        self.assign(inner_e, [inner[v] for v in yielded[: 1 + n]], [cond, *state])
        done = inner_e.emit(tir.LoadOp(count, []))
        inner_e.builder.insert(tir.StoreOp(inner_e.add(done, inner_e.const(1, i64)), count, []))
        vals.update(zip(op.outputs, [*state, *stacks, count], strict=True))

    def assign(self, e: Expr, sources: list[SSAValue], dests: list[SSAValue]) -> None:
        """Copy each buffer of `sources` into its buffer of `dests` at once (a
        parallel assignment): a source that another copy overwrites (a state
        passed on to another, as in `(a, b) <- (a + b, a)`) is copied aside first."""
        written = {id(d) for s, d in zip(sources, dests, strict=True) if s is not d}
        staged: dict[int, SSAValue] = {}
        for src in sources:
            if id(src) in written and id(src) not in staged:
                staged[id(src)] = self.alloc(e, src.type)
                self.call(e, self.copy_kernel(src.type), [src, staged[id(src)]])
        for src, dst in zip(sources, dests, strict=True):
            if src is not dst:
                self.call(e, self.copy_kernel(dst.type), [staged.get(id(src), src), dst])

    @staticmethod
    def in_place(block: Block, nexts: list[SSAValue], buffers: list[SSAValue]) -> dict[SSAValue, SSAValue]:
        """The loop body's next condition and states (`nexts`, from `block`'s
        arguments 1, 2, ...) that can be computed in their buffers: the result
        of a call in `block` after which (the call included) no op reads the
        current value, and not yielded for another one."""
        order = {op: k for k, op in enumerate(block.ops)}
        last_read: dict[SSAValue, int] = {}
        for op in block.ops:
            for inner in op.walk():  # (a nested body reads at its op)
                for v in inner.operands:
                    if isinstance(v, BlockArgument) and v.block is block:
                        last_read[v] = order[op]
        bound: dict[SSAValue, SSAValue] = {}
        for k, (value, buffer) in enumerate(zip(nexts, buffers, strict=True)):
            owner = value.owner
            current = block.args[1 + k]
            if (
                isinstance(owner, te.CallOp)
                and owner.parent is block
                and value not in bound
                and nexts.count(value) == 1
                and last_read.get(current, -1) < order[owner]
            ):
                bound[value] = buffer
        return bound

    def call(self, e: Expr, callee: str, buffers: list[SSAValue]) -> None:
        """Call kernel `callee` on `buffers`, then the values of its sizes."""
        kernel = SymbolTable.lookup_symbol(self.module, callee)
        sizes = (
            kernel.sizes if isinstance(kernel, tir.PrimFuncOp)
            else te.lowered_sizes(kernel) or [] if isinstance(kernel, te.FuncOp)
            else []
        )
        e.builder.insert(tir.CallOp(callee, buffers + [e.emit(tir.SizeOp(n)) for n in sizes]))

    def stack_kernel(self, elem: Attribute, stack: Attribute) -> str:
        """The kernel writing a scan element into row `at` of its stack."""
        assert isinstance(elem, MemRefType) and isinstance(stack, MemRefType)
        key = (elem, stack)
        if key not in self.stacks:
            b = TirBuilder(self.namer("stack_row"), [elem, memref_of(TensorType(IntegerType(64), [])), stack])
            x, at, out = b.args
            row = b.to_index(b.load(at, []))
            with b.then(b.cmp("lt", row, b.index(dims(stack)[0]))), b.nest(dims(elem)) as ivs:
                b.store(b.load(x, ivs), out, [row, *ivs])
            self.module.body.block.add_op(b.finish())
            self.stacks[key] = b.func.sym_name.data
        return self.stacks[key]

    def copy_kernel(self, t: Attribute) -> str:
        assert isinstance(t, MemRefType)
        if t in self.copies:
            return self.copies[t]
        name = self.namer("copy")
        tt = symbolic_tensor(dims(t), t.get_element_type())
        kernel = te.FuncOp(name)
        ph = te.PlaceholderOp("in0", tt)
        kernel.body.block.add_op(ph)
        out = Kernel(kernel.body.block).compute(tt, lambda x, i: x.read(ph.result, i))
        kernel.body.block.add_op(te.OutputOp([out]))
        self.module.body.block.add_op(self.lower_kernel(kernel))
        self.copies[t] = name
        return name


def _made_in(value: SSAValue, block: Block) -> bool:
    """Whether `value` is computed by a call or a concatenation of `block`,
    into a buffer the graph lowering chooses."""
    owner = value.owner
    return isinstance(owner, te.CallOp | relay.ConcatenateOp) and owner.parent is block


def _tir_constant(op: relay.ConstantOp) -> Operation:
    value = op.value
    t = op.output.type
    assert isinstance(t, TensorType)
    if isinstance(value, DenseIntOrFPElementsAttr):
        arr = dense_array(value)
        arr = np.broadcast_to(arr.reshape(()), dims(t)) if arr.size == 1 else arr
        key = blobs.add("cst", np.ascontiguousarray(arr.reshape(dims(t))))
        value = DenseResourceAttr.from_params(key, t)
    return tir.ConstantOp(value, memref_of(t))


__all__ = ["GraphLowering"]
