"""Ops that xDSL's `llvm` dialect lacks (same names and syntax as MLIR's).

- `llvm.fptosi`, `llvm.fptoui`, `llvm.uitofp` casts,
- `llvm.extractelement` (xDSL has `llvm.insertelement` but not its inverse),
- `llvm.intr.masked.load` (xDSL has only the masked store),
- `llvm.intr.masked.store` of any element type (xDSL's takes floats only; this
  one replaces it in `LLVMWithExt`).

Their translation to LLVM IR, with lamina's other fixes to xDSL's emitter, is in
`lamina.codegen.translate`. Load `LLVMExt` next to xDSL's `LLVM` in a context (it is
named `llvm_ext` because the name `llvm` is taken), or, to parse integer masked
stores too, register `LLVMWithExt` in place of xDSL's: a `llvm` dialect that
holds both.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import I32, IntegerAttr, IntegerType, VectorType
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
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


@irdl_op_definition
class MaskedLoadOp(IRDLOperation):
    """`%v = llvm.intr.masked.load %ptr, %mask, %pass {alignment = 4 : i32} :
    (!llvm.ptr, vector<16xi1>, vector<16xf32>) -> vector<16xf32>`: the lanes
    whose mask bit is set are read, the others are `pass`'s."""

    name = "llvm.intr.masked.load"

    data = operand_def(llvm.LLVMPointerType)
    mask = operand_def(VectorType)
    pass_thru = operand_def(VectorType)
    res = result_def(VectorType)
    alignment = prop_def(IntegerAttr[I32])

    assembly_format = "operands attr-dict `:` functional-type(operands, results)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(
        self,
        data: SSAValue | Operation,
        mask: SSAValue | Operation,
        pass_thru: SSAValue | Operation,
        alignment: int,
    ):
        value = SSAValue.get(pass_thru)
        super().__init__(
            operands=[data, mask, value],
            result_types=[value.type],
            properties={"alignment": IntegerAttr(alignment, 32)},
        )


@irdl_op_definition
class MaskedStoreOp(IRDLOperation):
    """`llvm.intr.masked.store %v, %ptr, %mask {alignment = 4 : i32} :
    vector<16xi32>, vector<16xi1> into !llvm.ptr`: the lanes of `v` whose mask
    bit is set are written, the others' memory is left alone."""

    name = "llvm.intr.masked.store"

    value = operand_def(VectorType)
    data = operand_def(llvm.LLVMPointerType)
    mask = operand_def(VectorType)
    alignment = prop_def(IntegerAttr[I32])

    assembly_format = (
        "$value `,` $data `,` $mask attr-dict `:`"
        " type($value) `,` type($mask) `into` type($data)"
    )
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(
        self,
        value: SSAValue | Operation,
        data: SSAValue | Operation,
        mask: SSAValue | Operation,
        alignment: int,
    ):
        super().__init__(
            operands=[value, data, mask],
            properties={"alignment": IntegerAttr(alignment, 32)},
        )


_EXT_OPS: list[type[Operation]] = [
    FPToSIOp, FPToUIOp, UIToFPOp, ExtractElementOp, MaskedLoadOp
]

#: The extension ops alone (named `llvm_ext`: the name `llvm` belongs to xDSL's);
#: the masked store is not among them, as its name is xDSL's op's.
LLVMExt = Dialect("llvm_ext", _EXT_OPS, [])

#: xDSL's `llvm` dialect plus the extension ops, for contexts that load dialects
#: lazily by name (e.g. `lamina-opt`): register it in place of `xdsl`'s `LLVM`.
LLVMWithExt = Dialect(
    "llvm",
    [
        *(o for o in llvm.LLVM.operations if o is not llvm.MaskedStoreOp),
        *_EXT_OPS,
        MaskedStoreOp,
    ],
    list(llvm.LLVM.attributes),
)


# ------------------------------------------------------------------- emitter fixes


__all__ = [
    "ExtractElementOp",
    "FPToSIOp",
    "FPToUIOp",
    "LLVMExt",
    "LLVMWithExt",
    "MaskedLoadOp",
    "MaskedStoreOp",
    "UIToFPOp",
]
