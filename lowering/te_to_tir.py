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

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    FunctionType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from lamina.dialects import relay, te, tir
from lamina.dialects.resources import blobs
from lamina.dialects.te import ReduceKind
from lamina.errors import LoweringError
from lamina.ir import io_names
from lamina.lowering.expr import Expr
from lamina.lowering.relay_to_te import SymbolNamer
from lamina.lowering.topi import Kernel
from lamina.runtime.dtypes import numpy_dtype

# Identity element of each reduction, as a float (integers use min/max of type).
_INIT = {ReduceKind.SUM: 0.0, ReduceKind.PROD: 1.0}


def memref_of(t: Attribute) -> MemRefType:
    assert isinstance(t, TensorType)
    return MemRefType(t.get_element_type(), t.get_shape())


def _reduce_init(kind: ReduceKind, elem: Attribute) -> float | int:
    if kind in _INIT:
        return _INIT[kind]
    dt = numpy_dtype(elem)
    if np.issubdtype(dt, np.floating):
        return -float("inf") if kind == ReduceKind.MAX else float("inf")
    info = np.iinfo(dt)
    return int(info.min if kind == ReduceKind.MAX else info.max)


def _combine(e: Expr, kind: ReduceKind, acc: SSAValue, v: SSAValue) -> SSAValue:
    if kind == ReduceKind.SUM:
        return e.add(acc, v)
    if kind == ReduceKind.PROD:
        return e.mul(acc, v)
    if kind == ReduceKind.MAX:
        return e.max(acc, v)
    return e.min(acc, v)


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
        for p, arg in zip(placeholders, entry.args, strict=False):
            self.buffers[p.result] = arg
        for v, arg in zip(outputs, entry.args[len(placeholders) :], strict=True):
            if v in self.buffers:  # a placeholder returned as is
                raise LoweringError(
                    f"te.func @{kernel.sym_name.data} outputs its input directly; "
                    "copy it with a te.compute"
                )
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
        # A reduction whose value only flows, point for point, into an output
        # becomes that output's producer, and the output's computation its
        # epilogue, run in the reduction's output loop (TVM's compute_at).
        epilogue_of: dict[te.ComputeOp, te.ComputeOp] = {}
        outputs = [op for op in computes if op.result in self.buffers]
        for op in computes:
            if op.reduce is None or op.result in self.buffers:
                continue
            for out in outputs:
                if (
                    out.reduce is None
                    and out not in epilogue_of
                    and out.result.type == op.result.type  # shares its buffer
                    and self._flows_pointwise(op, out)
                ):
                    epilogue_of[out] = op
                    self.buffers[op.result] = self.buffers[out.result]
                    break
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
        first = entry.first_op
        for op in list(self.prologue.ops):
            op.detach()
            entry.insert_op_before(op, first)
        return self.func

    # --- loop nests -----------------------------------------------------
    def loops(self, block: Block, extents: Sequence[int]) -> tuple[Block, list[SSAValue]]:
        ivs: list[SSAValue] = []
        for extent in extents:
            loop = tir.ForOp(self.index(0), self.index(extent), self.index(1))
            block.insert_op_before(loop, block.last_op)  # before the terminator
            block = loop.body.block
            block.add_op(tir.YieldOp())
            ivs.append(loop.induction_var)
        return block, ivs

    def _flows_pointwise(self, src: te.ComputeOp, out: te.ComputeOp) -> bool:
        """Whether every read of `src` is at its reader's own index point, in a
        chain of inlined elementwise computes that ends in `out`."""
        for use in src.result.uses:
            read = use.operation
            reader = read.parent_op()
            if not (
                isinstance(read, te.ReadOp)
                and isinstance(reader, te.ComputeOp)
                and reader.reduce is None
                and reader.extents == src.extents
                and tuple(read.indices) == tuple(reader.axes)
            ):
                return False
            if reader is out:
                continue
            if reader.result in self.buffers or not self._flows_pointwise(reader, out):
                return False
        return bool(src.result.uses)

    def materialize(
        self, op: te.ComputeOp, dest: SSAValue, epilogue: te.ComputeOp | None = None
    ) -> None:
        """Loops computing `op` into `dest`; a reduction's `epilogue` then runs on
        each finished point, in place."""
        outer = self.func.body.block
        block, ivs = self.loops(outer, op.extents)
        e = _Inserter(block)
        if op.reduce is None:
            value = self.inline(op, ivs, e)
            e.builder.insert(tir.StoreOp(value, dest, ivs))
            return
        kind = op.reduce.data
        elem = dest.type.get_element_type()  # type: ignore[union-attr]
        e.builder.insert(tir.StoreOp(e.const(_reduce_init(kind, elem), elem), dest, ivs))
        inner, rivs = self.loops(block, op.reduce_shape)
        r = _Inserter(inner)
        value = self.inline(op, [*ivs, *rivs], r)
        acc = r.emit(tir.LoadOp(dest, ivs))
        r.builder.insert(tir.StoreOp(_combine(r, kind, acc, value), dest, ivs))
        if epilogue is not None:
            e.builder.insert(tir.StoreOp(self.inline(epilogue, ivs, e), dest, ivs))

    def inline(self, op: te.ComputeOp, ivs: Sequence[SSAValue], e: Expr) -> SSAValue:
        """Emit `op`'s body at `ivs`; reads of inlined computes recurse."""
        mapping: dict[SSAValue, SSAValue] = dict(zip(op.body.block.args, ivs, strict=True))
        for inner in op.body.block.ops:
            if isinstance(inner, te.YieldOp):
                return mapping[inner.value]
            if isinstance(inner, te.ReadOp):
                idx = [mapping.get(i, i) for i in inner.indices]
                src = inner.tensor
                if src in self.buffers:
                    mapping[inner.result] = e.emit(tir.LoadOp(self.buffers[src], idx))
                elif isinstance(src.owner, te.ComputeOp):
                    mapping[inner.result] = self.inline(src.owner, idx, e)
                else:
                    raise LoweringError(f"te.read of {src} which has no buffer")
                continue
            clone = inner.clone(value_mapper=mapping)
            e.builder.insert(clone)
        raise LoweringError("te.compute body without te.yield")


class _Inserter(Expr):
    """An `Expr` that inserts before the block's terminator."""

    def __init__(self, block: Block):
        last = block.last_op
        assert last is not None
        self.builder = Builder(InsertPoint.before(last))


class GraphLowering:
    """Lower the graph function to destination-passing calls over buffers."""

    def __init__(self, fn: func.FuncOp, module: ModuleOp, namer: SymbolNamer):
        self.fn = fn
        self.module = module
        self.namer = namer
        self.copies: dict[MemRefType, str] = {}

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
        e = Expr(block)
        old_block = fn.body.block
        vals: dict[SSAValue, SSAValue] = dict(zip(old_block.args, block.args[: len(ins)], strict=True))
        out_args = list(block.args[len(ins) :])
        ret = old_block.last_op
        assert isinstance(ret, func.ReturnOp)
        # Bind each returned call result to its output buffer (first use only).
        bound: dict[SSAValue, SSAValue] = {}
        for value, out in zip(ret.arguments, out_args, strict=True):
            if isinstance(value.owner, te.CallOp) and value not in bound:
                bound[value] = out
        for op in old_block.ops:
            if isinstance(op, relay.ConstantOp):
                vals[op.output] = e.emit(_tir_constant(op))
            elif isinstance(op, te.CallOp):
                dests = []
                for r in op.res:
                    d = bound.get(r) or e.emit(tir.AllocOp(memref_of(r.type)))
                    vals[r] = d
                    dests.append(d)
                e.builder.insert(
                    tir.CallOp(op.callee.string_value(), [vals[a] for a in op.args] + dests)
                )
            elif isinstance(op, func.ReturnOp):
                for value, out in zip(op.arguments, out_args, strict=True):
                    if bound.get(value) is not out:
                        e.builder.insert(tir.CallOp(self.copy_kernel(out.type), [vals[value], out]))
                e.builder.insert(func.ReturnOp())
            else:
                raise LoweringError(
                    f"{op.name} in @{fn.sym_name.data} has not been lowered; run "
                    "lower-relay-to-te first"
                )
        return new

    def copy_kernel(self, t: Attribute) -> str:
        assert isinstance(t, MemRefType)
        if t in self.copies:
            return self.copies[t]
        name = self.namer("copy")
        tt = TensorType(t.get_element_type(), t.get_shape())
        kernel = te.FuncOp(name)
        ph = te.PlaceholderOp("in0", tt)
        kernel.body.block.add_op(ph)
        out = Kernel(kernel.body.block).compute(tt, lambda x, i: x.read(ph.result, i))
        kernel.body.block.add_op(te.OutputOp([out]))
        self.module.body.block.add_op(KernelLowering(kernel).run())
        self.copies[t] = name
        return name


def _tir_constant(op: relay.ConstantOp) -> Operation:
    value = op.value
    t = op.output.type
    assert isinstance(t, TensorType)
    if isinstance(value, DenseIntOrFPElementsAttr):
        arr = np.asarray(value.get_values(), dtype=numpy_dtype(t.get_element_type()))
        arr = np.broadcast_to(arr, t.get_shape()) if arr.size == 1 else arr
        key = blobs.add("cst", np.ascontiguousarray(arr.reshape(t.get_shape())))
        value = DenseResourceAttr.from_params(key, t)
    return tir.ConstantOp(value, memref_of(t))


@dataclass(frozen=True)
class LowerTeToTirPass(ModulePass):
    """Lower TE kernels to TIR loop nests and the graph to buffer calls."""

    name = "lower-te-to-tir"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        namer = SymbolNamer(op)
        for child in list(op.ops):
            if isinstance(child, te.FuncOp):
                lowered = KernelLowering(child).run()
                op.body.block.insert_op_before(lowered, child)
                child.detach()
                child.erase()
        for child in list(op.ops):
            if isinstance(child, func.FuncOp) and _is_graph(child):
                new = GraphLowering(child, op, namer).run()
                op.body.block.insert_op_before(new, child)
                child.detach()
                child.erase()


def _is_graph(fn: func.FuncOp) -> bool:
    return bool(fn.body.blocks) and any(
        isinstance(t, TensorType) for t in (*fn.function_type.inputs, *fn.function_type.outputs)
    )


__all__ = ["LowerTeToTirPass"]
