"""The `example` dialect: `example.trace`, an identity that marks a value."""

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Dialect
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure


@irdl_op_definition
class TraceOp(IRDLOperation):
    """`%y = example.trace %x : tensor<4xf32> -> tensor<4xf32>`"""

    name = "example.trace"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"


Example = Dialect("example", [TraceOp])
