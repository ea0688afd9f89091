"""Writing a TIR kernel imperatively (TVM's `tir.ir_builder`): loops, branches,
loads and stores over the buffers of a new `tir.prim_func`.

    b = TirBuilder("cumsum", [memref_in, memref_out])
    x, y = b.args
    acc = b.alloc([1], f32)
    with b.loop(n) as i:
        ...
    kernel = b.finish()

Ops are appended at the current insertion point (inside the innermost open
`loop`/`nest`/`then` block); scalar helpers are `Expr`'s (`b.iadd`, `b.cmp`,
`b.select`, ...). Index constants and local buffers are made once, at the
kernel's entry.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from lamina.dialects import tir
from lamina.dialects.shapes import symbolic_tensor
from lamina.dialects.tir import ForKind
from lamina.lowering.lang.expr import Expr
from lamina.symbolic import Dim, Sym


class TirBuilder(Expr):
    """Builds one `tir.prim_func` named `name` over buffers of `arg_types`."""

    def __init__(self, name: str, arg_types: Sequence[Attribute]):
        self.func = tir.PrimFuncOp(name, arg_types)
        entry = self.func.body.block
        entry.add_op(tir.ReturnOp())
        self._entry = entry
        self._indices: dict[int, SSAValue] = {}
        self.builder = Builder(InsertPoint.before(entry.last_op))  # type: ignore[arg-type]

    @property
    def args(self) -> tuple[SSAValue, ...]:
        return self.func.args

    def finish(self) -> tir.PrimFuncOp:
        tir.bind_sizes(self.func)  # the sizes its buffers and loops use
        return self.func

    def index(self, value: Dim) -> SSAValue:
        """An index constant (or a symbolic dim), made once at the kernel's entry."""
        if isinstance(value, Sym):
            if value not in self._indices:  # its ops, in order, before the statements
                saved = self.builder
                self.builder = Builder(InsertPoint.before(self._entry.first_op))  # type: ignore[arg-type]
                try:
                    self._indices[value] = super().index(value)
                finally:
                    self.builder = saved
            return self._indices[value]
        if value not in self._indices:
            op = arith.ConstantOp(IntegerAttr(value, IndexType()))
            self._at_entry(op)
            self._indices[value] = op.result
        return self._indices[value]

    def _at_entry(self, op: Operation) -> None:
        first = self._entry.first_op
        assert first is not None
        self._entry.insert_op_before(op, first)

    # --- buffers --------------------------------------------------------
    def alloc(self, shape: Sequence[Dim], elem: Attribute) -> SSAValue:
        """A local buffer, allocated at the kernel's entry."""
        op = tir.AllocOp(tir.memref_of(symbolic_tensor(shape, elem)), tir.AllocScope.LOCAL)
        self._at_entry(op)
        return op.results[0]

    def load(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        return self.emit(tir.LoadOp(buffer, indices))

    def store(self, value: SSAValue, buffer: SSAValue, indices: Sequence[SSAValue]) -> None:
        self.builder.insert(tir.StoreOp(value, buffer, indices))

    # --- control flow ---------------------------------------------------
    @contextlib.contextmanager
    def _inside(self, block: Block) -> Iterator[None]:
        saved = self.builder
        self.builder = Builder(InsertPoint.before(block.last_op))  # type: ignore[arg-type]
        try:
            yield
        finally:
            self.builder = saved

    @contextlib.contextmanager
    def loop(self, extent: Dim | SSAValue, kind: ForKind = ForKind.SERIAL) -> Iterator[SSAValue]:
        """`for i in 0..extent` (a dim or an index value); yields `i`."""
        ub = extent if isinstance(extent, SSAValue) else self.index(extent)
        op = tir.ForOp(self.index(0), ub, self.index(1), kind=kind)
        op.body.block.add_op(tir.YieldOp())
        self.builder.insert(op)
        with self._inside(op.body.block):
            yield op.induction_var

    @contextlib.contextmanager
    def nest(self, extents: Sequence[Dim]) -> Iterator[list[SSAValue]]:
        """Nested loops over `extents` (none for an empty list); yields the indices."""
        with contextlib.ExitStack() as stack:
            yield [stack.enter_context(self.loop(n)) for n in extents]

    @contextlib.contextmanager
    def then(self, cond: SSAValue) -> Iterator[None]:
        """`if cond { ... }`."""
        op = tir.IfOp(cond)
        self.builder.insert(op)
        with self._inside(op.then_region.block):
            yield


__all__ = ["TirBuilder"]
