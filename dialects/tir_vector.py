"""The vector ops of the `tir` dialect, which `tir-vectorize` makes (a lane
mask from a comparison, a select by such a mask, masked stores and loads), the
int8 dot product that int8 kernels use (`tir.dot4`), and the checks every
buffer access shares. `lamina.dialects.tir` holds them in its dialect.

```mlir
%m = tir.vector_cmp "slt", %idx, %n : vector<16xindex> -> vector<16xi1>
%s = tir.vector_select %m, %a, %b : vector<16xi1>, vector<16xf32>
tir.masked_store %v, %y[%i, %j], %m : memref<4x20xf32>, vector<16xf32>, vector<16xi1>
%w = tir.masked_load %x[%i, %j], %m, %pass : memref<4x20xf32>, vector<16xi1>, vector<16xf32>
%d = tir.dot4 %acc, %x4, %w : vector<16xi32>, vector<4xui8>, vector<64xi8>
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    IndexType,
    IntegerType,
    MemRefType,
    Signedness,
    StringAttr,
    VectorType,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException


def _check_indices(op: Operation, memref: SSAValue, indices: Sequence[SSAValue]) -> None:
    mtype = memref.type
    assert isinstance(mtype, MemRefType)
    if len(indices) != mtype.get_num_dims():
        raise VerifyException(
            f"{op.name} on a rank-{mtype.get_num_dims()} buffer needs "
            f"{mtype.get_num_dims()} indices, got {len(indices)}"
        )


def _access_type(memref: SSAValue, vtype: Attribute) -> None:
    mtype = memref.type
    assert isinstance(mtype, MemRefType)
    elem = mtype.get_element_type()
    if isinstance(vtype, VectorType):
        if vtype.get_element_type() != elem or vtype.get_num_dims() != 1:
            raise VerifyException(
                f"vector access {vtype} does not match the buffer's element type {elem}"
            )
    elif vtype != elem:
        raise VerifyException(
            f"access type {vtype} does not match the buffer's element type {elem}"
        )


def _check_mask(mask: SSAValue, vtype: Attribute) -> None:
    """A lane mask: a vector of i1 as long as the vector `vtype` it selects in."""
    mt = mask.type
    assert isinstance(vtype, VectorType) and isinstance(mt, VectorType)
    if mt.get_element_type() != i1 or mt.get_shape() != vtype.get_shape():
        raise VerifyException(f"mask {mt} must be a vector of i1 as long as {vtype}")


@irdl_op_definition
class VectorCmpOp(IRDLOperation):
    """Compare two vectors lane by lane into a vector of i1 (`arith.cmpi`/`cmpf`
    on vectors, which xDSL's arith types as a scalar i1): what `tir-vectorize`
    makes of a lane-dependent comparison, e.g. a tail mask."""

    name = "tir.vector_cmp"

    T: ClassVar = VarConstraint("T", base(VectorType))
    predicate = prop_def(StringAttr)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(VectorType)

    assembly_format = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"

    def __init__(self, predicate: str, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        lt = SSAValue.get(lhs).type
        assert isinstance(lt, VectorType)
        super().__init__(
            operands=[lhs, rhs],
            properties={"predicate": StringAttr(predicate)},
            result_types=[VectorType(i1, lt.get_shape())],
        )

    def verify_(self) -> None:
        lt, rt, res = self.lhs.type, self.rhs.type, self.result.type
        assert isinstance(lt, VectorType) and isinstance(res, VectorType)
        if lt != rt:
            raise VerifyException(f"tir.vector_cmp compares {lt} with {rt}: types must match")
        if res.get_element_type() != i1 or res.get_shape() != lt.get_shape():
            raise VerifyException(f"tir.vector_cmp of {lt} must give vector<...xi1> of its shape, not {res}")
        pred = self.predicate.data
        is_float = not isinstance(lt.get_element_type(), IntegerType | IndexType)
        allowed = (
            arith.CMPF_COMPARISON_OPERATIONS if is_float else arith.CMPI_COMPARISON_OPERATIONS
        )
        if pred not in allowed:
            raise VerifyException(
                f"tir.vector_cmp: '{pred}' is not a predicate for {lt}; expected one of "
                + ", ".join(allowed)
            )


@irdl_op_definition
class MaskedStoreOp(IRDLOperation):
    """Write the lanes of a vector whose mask bit is set (what `tir-vectorize`
    makes of a store under a lane-dependent `tir.if`)."""

    name = "tir.masked_store"

    value = operand_def(VectorType)
    buffer = operand_def(MemRefType)
    mask = operand_def(VectorType)
    indices = var_operand_def(IndexType)

    traits = traits_def(MemoryWriteEffect())
    assembly_format = (
        "$value `,` $buffer `[` $indices `]` `,` $mask attr-dict `:` type($buffer) `,` "
        "type($value) `,` type($mask)"
    )

    def __init__(
        self,
        value: SSAValue | Operation,
        buffer: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation],
        mask: SSAValue | Operation,
    ):
        super().__init__(operands=[value, buffer, mask, indices])

    def verify_(self) -> None:
        _check_indices(self, self.buffer, self.indices)
        _access_type(self.buffer, self.value.type)
        _check_mask(self.mask, self.value.type)


@irdl_op_definition
class MaskedLoadOp(IRDLOperation):
    """Read the lanes of a vector whose mask bit is set; the others are taken
    from `pass_thru`, and their addresses are never touched (MLIR's
    `vector.maskedload`; what `tir-vectorize` makes of a load whose index is
    clamped into the buffer, as a padded window's read is)."""

    name = "tir.masked_load"

    T: ClassVar = VarConstraint("T", base(VectorType))

    buffer = operand_def(MemRefType)
    mask = operand_def(VectorType)
    pass_thru = operand_def(T)
    indices = var_operand_def(IndexType)
    result = result_def(T)

    traits = traits_def(MemoryReadEffect())
    assembly_format = (
        "$buffer `[` $indices `]` `,` $mask `,` $pass_thru attr-dict `:` type($buffer) "
        "`,` type($mask) `,` type($result)"
    )

    def __init__(
        self,
        buffer: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation],
        mask: SSAValue | Operation,
        pass_thru: SSAValue | Operation,
    ):
        value = SSAValue.get(pass_thru)
        super().__init__(
            operands=[buffer, mask, value, indices], result_types=[value.type]
        )

    def verify_(self) -> None:
        _check_indices(self, self.buffer, self.indices)
        _access_type(self.buffer, self.result.type)
        _check_mask(self.mask, self.result.type)


@irdl_op_definition
class VectorSelectOp(IRDLOperation):
    """`mask ? a : b` lane by lane (MLIR's `arith.select` with a vector
    condition, which xDSL's `arith.select` does not take)."""

    name = "tir.vector_select"

    T: ClassVar = VarConstraint("T", base(VectorType))

    mask = operand_def(VectorType)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())
    assembly_format = "$mask `,` $lhs `,` $rhs attr-dict `:` type($mask) `,` type($result)"

    def __init__(self, mask: SSAValue | Operation, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        value = SSAValue.get(lhs)
        super().__init__(operands=[mask, value, rhs], result_types=[value.type])

    def verify_(self) -> None:
        _check_mask(self.mask, self.result.type)


@irdl_op_definition
class Dot4Op(IRDLOperation):
    """Lane `i` of `acc` (i32) plus the dot product of 4 unsigned bytes of `a`
    and 4 signed bytes of `b`: `acc[i] + sum(j < 4) u8(a[4i + j]) * s8(b[4i +
    j])` (x86 VNNI's `vpdpbusd`; exact, nothing saturates). `a` of 4 bytes is
    the same 4 bytes for every lane (a broadcast input quad)."""

    name = "tir.dot4"

    T: ClassVar = VarConstraint("T", base(VectorType))
    acc = operand_def(T)
    a = operand_def(VectorType)
    b = operand_def(VectorType)
    result = result_def(T)

    traits = traits_def(Pure())
    assembly_format = "$acc `,` $a `,` $b attr-dict `:` type($acc) `,` type($a) `,` type($b)"

    def __init__(self, acc: SSAValue | Operation, a: SSAValue | Operation, b: SSAValue | Operation):
        value = SSAValue.get(acc)
        super().__init__(operands=[value, a, b], result_types=[value.type])

    def verify_(self) -> None:
        acc, a, b = (v.type for v in (self.acc, self.a, self.b))
        assert isinstance(acc, VectorType) and isinstance(a, VectorType) and isinstance(b, VectorType)
        lanes = acc.element_count()
        if acc.get_element_type() != IntegerType(32) or acc.get_num_dims() != 1:
            raise VerifyException(f"tir.dot4: the accumulator must be a vector of i32, got {acc}")
        if a.get_element_type() != IntegerType(8, Signedness.UNSIGNED) or a.element_count() not in (4, 4 * lanes):
            raise VerifyException(f"tir.dot4: a must be 4 or {4 * lanes} ui8 (unsigned bytes), got {a}")
        if b.get_element_type() not in (IntegerType(8), IntegerType(8, Signedness.SIGNED)) or b.element_count() != 4 * lanes:
            raise VerifyException(f"tir.dot4: b must be {4 * lanes} signed bytes (i8 or si8), got {b}")


__all__ = ["Dot4Op", "MaskedLoadOp", "MaskedStoreOp", "VectorCmpOp", "VectorSelectOp"]
