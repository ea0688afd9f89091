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

from lamina.dialects import te, tir
from lamina.dialects.shapes import dims
from lamina.errors import LoweringError
from lamina.symbolic import Dim, Sym, emit_dim


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
    def index(self, value: Dim) -> SSAValue:
        """An index constant, or a symbolic dim computed from `tir.size` values."""
        if not isinstance(value, Sym):
            return self.emit(arith.ConstantOp(IntegerAttr(int(value), IndexType())))
        return emit_dim(
            value,
            self.index,
            lambda name: self.emit(tir.SizeOp(name)),
            self.iadd,
            self.imul,
            lambda a, k: self.idiv(a, self.index(k)),
        )

    def const(self, value: float | int, type: Attribute) -> SSAValue:
        if is_float(type):
            assert isinstance(type, AnyFloat)
            return self.emit(arith.ConstantOp(FloatAttr(float(value), type)))
        if isinstance(type, IntegerType):
            signless = IntegerType(type.width.data)
            c = self.emit(arith.ConstantOp(IntegerAttr(int(value), signless)))
            # arith.constant is signless; unsigned values take the same bits.
            return self.emit(arith.BitcastOp(c, type)) if is_unsigned(type) else c
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

    def rem(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """Integer remainder truncated toward zero (C's `%`)."""
        if is_unsigned(a.type):
            return self.emit(arith.RemUIOp(a, b))
        return self.emit(arith.RemSIOp(a, b))

    def neg(self, a: SSAValue) -> SSAValue:
        if is_float(a.type):
            return self.emit(arith.NegfOp(a))
        return self.sub(self.const(0, a.type), a)

    def abs(self, a: SSAValue) -> SSAValue:
        if is_float(a.type):
            return self.emit(math.AbsFOp(a))
        if is_unsigned(a.type):
            return a
        return self.emit(math.AbsIOp(a))

    def exp(self, a: SSAValue) -> SSAValue:
        return self.emit(math.ExpOp(a))

    def log(self, a: SSAValue) -> SSAValue:
        return self.emit(math.LogOp(a))

    def sqrt(self, a: SSAValue) -> SSAValue:
        return self.emit(math.SqrtOp(a))

    def floor(self, a: SSAValue) -> SSAValue:
        return self.emit(math.FloorOp(a))

    def math(self, op: type[Operation], *args: SSAValue) -> SSAValue:
        """Any one-result `math` op on floats, e.g. `e.math(math.TanhOp, x)`."""
        return self.emit(op(*args))

    # --- comparisons and selection ----------------------------------------
    _FLOAT_PREDICATES = {
        "eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"
    }
    _SIGNED_PREDICATES = {
        "eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"
    }
    _UNSIGNED_PREDICATES = {
        "eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"
    }

    def cmp(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        """Compare two scalars of one element type (`eq`, `ne`, `lt`, `le`, `gt`,
        `ge`) as numpy does: floats are ordered except `ne` (true on NaN), i1 and
        unsigned integers unsigned, other integers and indices signed."""
        if is_float(a.type):
            return self.emit(arith.CmpfOp(a, b, self._FLOAT_PREDICATES[pred]))
        unsigned = is_unsigned(a.type) or a.type == IntegerType(1)
        table = self._UNSIGNED_PREDICATES if unsigned else self._SIGNED_PREDICATES
        return self.emit(arith.CmpiOp(a, b, table[pred]))

    def isnan(self, a: SSAValue) -> SSAValue:
        return self.emit(arith.CmpfOp(a, a, "uno"))

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.SelectOp(cond, a, b))

    def and_(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.AndIOp(a, b))

    def or_(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.OrIOp(a, b))

    def xor(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.XOrIOp(a, b))

    def not_(self, a: SSAValue) -> SSAValue:
        return self.xor(a, self.const(1, a.type))

    def all_of(self, conds: Sequence[SSAValue]) -> SSAValue:
        """The conjunction of i1 values (true when there are none)."""
        if not conds:
            return self.const(1, IntegerType(1))
        out = conds[0]
        for c in conds[1:]:
            out = self.and_(out, c)
        return out

    def or_all(self, conds: Sequence[SSAValue]) -> SSAValue:
        """The disjunction of i1 values (false when there are none)."""
        if not conds:
            return self.const(0, IntegerType(1))
        out = conds[0]
        for c in conds[1:]:
            out = self.or_(out, c)
        return out

    # --- conversions ------------------------------------------------------
    def cast(self, a: SSAValue, to: Attribute) -> SSAValue:
        """numpy's `astype` for scalars: floats to integers truncate toward zero,
        anything to i1 is `!= 0`, i1 and unsigned integers widen with zeros."""
        src = a.type
        if src == to:
            return a
        if to == IntegerType(1):
            return self.cmp("ne", a, self.const(0, src))
        if is_float(src):
            assert isinstance(src, AnyFloat)
            if is_float(to):
                assert isinstance(to, AnyFloat)
                wider = to.bitwidth > src.bitwidth
                return self.emit(arith.ExtFOp(a, to) if wider else arith.TruncFOp(a, to))
            assert isinstance(to, IntegerType)
            # Narrow integers go through i32, as C (and so numpy) converts them.
            wide = to if to.width.data >= 32 else IntegerType(32, to.signedness.data)
            conv = arith.FPToUIOp if is_unsigned(wide) else arith.FPToSIOp
            return self.cast(self.emit(conv(a, wide)), to)
        assert isinstance(src, IntegerType)
        zero_extend = is_unsigned(src) or src.width.data == 1
        if is_float(to):
            conv = arith.UIToFPOp if zero_extend else arith.SIToFPOp
            return self.emit(conv(a, to))
        assert isinstance(to, IntegerType)
        if to.width.data > src.width.data:
            ext = arith.ExtUIOp if zero_extend else arith.ExtSIOp
            return self.emit(ext(a, to))
        if to.width.data < src.width.data:
            return self.emit(arith.TruncIOp(a, to))
        return self.emit(arith.BitcastOp(a, to))  # signedness only

    def to_index(self, a: SSAValue) -> SSAValue:
        """An integer scalar as an index (sign-extended unless unsigned)."""
        if is_unsigned(a.type) or a.type == IntegerType(1):
            a = self.cast(a, IntegerType(64, Signedness.UNSIGNED))
            a = self.cast(a, IntegerType(64))
        return self.emit(arith.IndexCastOp(a, IndexType()))

    def from_index(self, i: SSAValue, to: Attribute) -> SSAValue:
        """An index as a scalar of type `to` (via i64)."""
        return self.cast(self.emit(arith.IndexCastOp(i, IntegerType(64))), to)

    # --- index arithmetic -----------------------------------------------
    def iadd(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.AddiOp(a, b))

    def imul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.MuliOp(a, b))

    def isub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.SubiOp(a, b))

    def ishift(self, a: SSAValue, k: int) -> SSAValue:
        """`a + k` for a known `k` (no op when it is 0)."""
        return a if k == 0 else self.iadd(a, self.index(k))

    def iscale(self, a: SSAValue, k: int) -> SSAValue:
        """`a * k` for a known `k` (no op when it is 1)."""
        return a if k == 1 else self.imul(a, self.index(k))

    def idiv(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """Unsigned index division (for indices known to be non-negative)."""
        return self.emit(arith.DivUIOp(a, b))

    def irem(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """Unsigned index remainder (for indices known to be non-negative)."""
        return self.emit(arith.RemUIOp(a, b))

    def ifloordiv(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """Signed index division rounding toward -inf."""
        return self.emit(arith.FloorDivSIOp(a, b))

    def isrem(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """Signed index remainder with the sign of `a` (C's `%`)."""
        return self.emit(arith.RemSIOp(a, b))

    def imod(self, a: SSAValue, k: Dim) -> SSAValue:
        """`a mod k` in `0..k` for a signed index `a` and a known `k > 0`."""
        kv = self.index(k)
        r = self.isrem(a, kv)
        return self.select(self.cmp("lt", r, self.index(0)), self.iadd(r, kv), r)

    def imin(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.MinSIOp(a, b))

    def imax(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.MaxSIOp(a, b))

    def clamp(self, i: SSAValue, lo: int, hi: int) -> SSAValue:
        """`i` clamped into `lo..hi` (inclusive, signed)."""
        return self.imin(self.imax(i, self.index(lo)), self.index(hi))

    def in_range(self, i: SSAValue, lo: int, hi: int) -> SSAValue:
        """`lo <= i < hi` (signed), as an i1."""
        return self.and_(
            self.cmp("ge", i, self.index(lo)), self.cmp("lt", i, self.index(hi))
        )

    def read_or(
        self,
        tensor: SSAValue,
        indices: Sequence[SSAValue],
        fill: SSAValue | float,
        checked: Sequence[bool] | None = None,
        valid: Sequence[SSAValue] = (),
    ) -> SSAValue:
        """`tensor[indices]` where every index is in bounds (and every i1 in `valid`
        holds), else `fill`. It never reads out of bounds: indices are clamped into
        the tensor and the value read is replaced by `fill` when an index was
        outside. `checked[d]` False skips the test of an index known to be in
        bounds."""
        t = tensor.type
        assert isinstance(t, TensorType)
        shape = dims(t)

        def fill_value() -> SSAValue:
            if isinstance(fill, SSAValue):
                return fill
            return self.const(fill, t.get_element_type())

        if any(d == 0 for d in shape):
            return fill_value()  # nothing to read
        conds: list[SSAValue] = list(valid)
        safe: list[SSAValue] = []
        for d, (i, extent) in enumerate(zip(indices, shape, strict=True)):
            if checked is not None and not checked[d]:
                safe.append(i)
                continue
            conds.append(self.in_range(i, 0, extent))
            safe.append(self.clamp(i, 0, extent - 1))
        value = self.read(tensor, safe)
        if not conds:
            return value
        return self.select(self.all_of(conds), value, fill_value())

    def linearize(self, idx: Sequence[SSAValue], shape: Sequence[int]) -> SSAValue:
        """Row-major flat offset of `idx` in `shape` (unit axes add nothing)."""
        flat: SSAValue | None = None
        for i, extent in zip(idx, shape, strict=True):
            if extent == 1:
                continue
            flat = i if flat is None else self.iadd(self.imul(flat, self.index(extent)), i)
        return flat if flat is not None else self.index(0)

    def delinearize(self, flat: SSAValue, shape: Sequence[int]) -> list[SSAValue]:
        """Row-major multi-index of `flat`, an offset within `shape`: unit axes
        are 0 and the outermost other axis takes the quotient as it is (so a
        reshape that keeps an axis reads it at its own index, which
        vectorizes, rather than through a remainder)."""
        outer = next((a for a, extent in enumerate(shape) if extent != 1), len(shape))
        out: list[SSAValue] = []
        for a in range(len(shape) - 1, -1, -1):
            if shape[a] == 1 or a < outer:
                out.append(self.index(0))
            elif a == outer:
                out.append(flat)
            else:
                c = self.index(shape[a])
                out.append(self.irem(flat, c))
                flat = self.idiv(flat, c)
        return out[::-1]

    def broadcast_index(
        self, idx: Sequence[SSAValue], operand: TensorType
    ) -> list[SSAValue]:
        """Indices into a numpy-broadcast operand for the output point `idx`."""
        shape = dims(operand)
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


class Inserter(Expr):
    """An `Expr` that inserts before the block's terminator."""

    def __init__(self, block: Block):
        last = block.last_op
        assert last is not None
        self.block = block
        self.builder = Builder(InsertPoint.before(last))


