"""Building scalar expressions (arith/math) inside TE and TIR bodies.

`Expr` appends ops at the end of a block and picks the arith op for the element
type, so compute definitions read like TVM's `te.compute` lambdas.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from lamina.dialects import te
from lamina.errors import LoweringError


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def is_unsigned(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.signedness.data == Signedness.UNSIGNED


class Expr:
    """Emit scalar ops at the end of `block`."""

    def __init__(self, block: Block):
        self.builder = Builder(InsertPoint.at_end(block))

    def emit(self, op: Operation) -> SSAValue:
        self.builder.insert(op)
        return op.results[0]

    # --- constants ------------------------------------------------------
    def index(self, value: int) -> SSAValue:
        return self.emit(arith.ConstantOp(IntegerAttr(value, IndexType())))

    def const(self, value: float | int, type: Attribute) -> SSAValue:
        if is_float(type):
            assert isinstance(type, AnyFloat)
            return self.emit(arith.ConstantOp(FloatAttr(float(value), type)))
        if isinstance(type, IntegerType):
            signless = IntegerType(type.width.data)
            return self.emit(arith.ConstantOp(IntegerAttr(int(value), signless)))
        raise LoweringError(f"no scalar constant of type {type}")

    # --- tensors --------------------------------------------------------
    def read(self, tensor: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        return self.emit(te.ReadOp(tensor, indices))

    # --- arithmetic, dispatched on the element type ----------------------
    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.AddfOp(a, b) if is_float(a.type) else arith.AddiOp(a, b))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.SubfOp(a, b) if is_float(a.type) else arith.SubiOp(a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.MulfOp(a, b) if is_float(a.type) else arith.MuliOp(a, b))

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        if is_float(a.type):
            return self.emit(arith.DivfOp(a, b))
        if is_unsigned(a.type):
            return self.emit(arith.DivUIOp(a, b))
        return self.emit(arith.DivSIOp(a, b))

    def max(self, a: SSAValue, b: SSAValue) -> SSAValue:
        if is_float(a.type):
            return self.emit(arith.MaximumfOp(a, b))
        if is_unsigned(a.type):
            return self.emit(arith.MaxUIOp(a, b))
        return self.emit(arith.MaxSIOp(a, b))

    def min(self, a: SSAValue, b: SSAValue) -> SSAValue:
        if is_float(a.type):
            return self.emit(arith.MinimumfOp(a, b))
        if is_unsigned(a.type):
            return self.emit(arith.MinUIOp(a, b))
        return self.emit(arith.MinSIOp(a, b))

    def exp(self, a: SSAValue) -> SSAValue:
        return self.emit(math.ExpOp(a))

    # --- index arithmetic -----------------------------------------------
    def iadd(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.AddiOp(a, b))

    def imul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.MuliOp(a, b))

    def idiv(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.DivUIOp(a, b))

    def irem(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.RemUIOp(a, b))

    def linearize(self, idx: Sequence[SSAValue], shape: Sequence[int]) -> SSAValue:
        """Row-major flat offset of `idx` in `shape`."""
        flat = self.index(0)
        for i, extent in zip(idx, shape, strict=True):
            flat = self.iadd(self.imul(flat, self.index(extent)), i)
        return flat

    def delinearize(self, flat: SSAValue, shape: Sequence[int]) -> list[SSAValue]:
        """Row-major multi-index of the flat offset `flat` in `shape`."""
        out: list[SSAValue] = []
        for extent in reversed(shape):
            c = self.index(extent)
            out.append(self.irem(flat, c))
            flat = self.idiv(flat, c)
        return out[::-1]

    def broadcast_index(
        self, idx: Sequence[SSAValue], operand: TensorType
    ) -> list[SSAValue]:
        """Indices into a numpy-broadcast operand for the output point `idx`."""
        shape = operand.get_shape()
        lead = len(idx) - len(shape)
        zero = None
        out: list[SSAValue] = []
        for d, extent in enumerate(shape):
            if extent == 1:
                zero = zero or self.index(0)
                out.append(zero)
            else:
                out.append(idx[lead + d])
        return out
