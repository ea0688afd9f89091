"""`tir.call_extern`: a kernel's call of a C function outside the module, one
the runtime provides (TVM's `call_extern` and packed calls into its runtime
registry): an image decoder, say (`lamina.abi.IMAGE_DECODE`). Part of the
`tir` dialect (`dialects/tir.py` lists it)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    FlatSymbolRefAttr,
    IndexType,
    IntegerType,
    MemRefType,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, SymbolTable
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class CallExternOp(IRDLOperation):
    """Call the C function `callee`, defined outside the module, and take its
    integer result: buffers are passed as pointers to their first element,
    `index` values as i64, integers as they are. It may read and write the
    buffers it is given.
    `%st = tir.call_extern @f(%buf, %n) : (memref<4xi64>, index) -> i64`."""

    name = "tir.call_extern"
    callee = prop_def(SymbolRefAttr)
    args = var_operand_def()
    result = result_def(IntegerType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$callee `(` $args `)` attr-dict `:` functional-type($args, $result)"

    def __init__(self, callee: str, args: Sequence[SSAValue | Operation], result: Attribute):
        super().__init__(
            operands=[args], properties={"callee": FlatSymbolRefAttr(callee)}, result_types=[result]
        )

    def verify_(self) -> None:
        for i, t in enumerate(self.args.types):
            if not isinstance(t, MemRefType | IndexType | IntegerType):
                raise VerifyException(
                    f"tir.call_extern @{self.callee.string_value()}: argument #{i} has type {t}; "
                    "an external function takes buffers (memrefs), index values and integers"
                )
        if self.callee.nested_references.data:
            raise VerifyException("tir.call_extern: the callee must be a flat symbol (a C function's name)")
        if SymbolTable.lookup_symbol(self, self.callee) is not None:
            raise VerifyException(
                f"tir.call_extern @{self.callee.string_value()}: the module defines it; "
                "call a kernel of the module with tir.call"
            )


__all__ = ["CallExternOp"]
