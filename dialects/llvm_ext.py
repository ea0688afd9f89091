"""Ops that xDSL's `llvm` dialect lacks (same names and syntax as MLIR's).

- `llvm.fptosi`, `llvm.fptoui`, `llvm.uitofp` casts,
- `llvm.extractelement` (xDSL has `llvm.insertelement` but not its inverse).

Their translation to LLVM IR, with lamina's other fixes to xDSL's emitter, is in
`lamina.target.translate`. Load `LLVMExt` next to xDSL's `LLVM` in a context (it is
named `llvm_ext` because the name `llvm` is taken), or register `LLVMWithExt`, a
`llvm` dialect that holds both.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerType, VectorType
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure

# ----------------------------------------------------------------------------- ops


@irdl_op_definition
class FPToSIOp(llvm.GenericCastOp):
    """Float to signed integer, rounding toward zero."""

    name = "llvm.fptosi"


@irdl_op_definition
class FPToUIOp(llvm.GenericCastOp):
    """Float to unsigned integer, rounding toward zero."""

    name = "llvm.fptoui"


@irdl_op_definition
class UIToFPOp(llvm.GenericCastOp):
    """Unsigned integer to float."""

    name = "llvm.uitofp"


@irdl_op_definition
class ExtractElementOp(IRDLOperation):
    """`%e = llvm.extractelement %vec[%pos : i32] : vector<4xf32>`"""

    name = "llvm.extractelement"

    vector = operand_def(VectorType)
    position = operand_def(IntegerType)
    res = result_def()

    traits = traits_def(Pure())

    def __init__(self, vector: SSAValue | Operation, position: SSAValue | Operation):
        vec = SSAValue.get(vector)
        assert isinstance(vec.type, VectorType)
        super().__init__(
            operands=[vec, position], result_types=[vec.type.get_element_type()]
        )

    @classmethod
    def parse(cls, parser: Parser) -> ExtractElementOp:
        vec = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        pos = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        pos_type = parser.parse_type()
        parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        vec_type = parser.parse_type()
        op = cls(
            parser.resolve_operand(vec, vec_type), parser.resolve_operand(pos, pos_type)
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.vector)
        printer.print_string("[")
        printer.print_operand(self.position)
        printer.print_string(" : ")
        printer.print_attribute(self.position.type)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.vector.type)


_EXT_OPS: list[type[Operation]] = [FPToSIOp, FPToUIOp, UIToFPOp, ExtractElementOp]

#: The extension ops alone (named `llvm_ext`: the name `llvm` belongs to xDSL's).
LLVMExt = Dialect("llvm_ext", _EXT_OPS, [])

#: xDSL's `llvm` dialect plus the extension ops, for contexts that load dialects
#: lazily by name (e.g. `lamina-opt`): register it in place of `xdsl`'s `LLVM`.
LLVMWithExt = Dialect(
    "llvm", [*llvm.LLVM.operations, *_EXT_OPS], list(llvm.LLVM.attributes)
)


# ------------------------------------------------------------------- emitter fixes


__all__ = [
    "ExtractElementOp",
    "FPToSIOp",
    "FPToUIOp",
    "LLVMExt",
    "LLVMWithExt",
    "UIToFPOp",
]
