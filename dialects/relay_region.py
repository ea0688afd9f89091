"""`relay.fused` and `relay.yield`: a group of graph ops as one region op.

A `relay.fused` op is TVM's "primitive function" (or composite function) written
inline: its operands are bound to the arguments of its single block, the block
computes with ordinary relay ops and ends with `relay.yield`, and the op's results
are the yielded values. The region is isolated from above (it sees only its
arguments), so a group can be outlined, lowered or matched on its own. Free-form
attributes say what the group is (`lamina.composite = "conv_bias_relu"`,
`lamina.partitioned_from = "conv2d_add_relu_"`, ...).

```mlir
%2 = relay.fused(%x, %w, %b) ({
^bb0(%a: tensor<1x8xf32>, %k: tensor<8x8xf32>, %c: tensor<8xf32>):
  %0 = relay.matmul %a, %k : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
  %1 = relay.add %0, %c : (tensor<1x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  relay.yield %1 : tensor<1x8xf32>
}) {lamina.composite = "dense_bias"} : (tensor<1x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
```

The custom form is the generic form without the quotes around the name; the
attribute dictionary follows the region, as in the generic form.

They belong to the `relay` dialect (`lamina.dialects.relay.Relay` lists them);
this module keeps the region ops apart from the graph ops' type inference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import FunctionType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
)
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class FusedOp(IRDLOperation):
    """A group of graph ops: operands bound to the block's arguments, results are
    the values its `relay.yield` returns."""

    name = "relay.fused"
    inputs = var_operand_def()
    outputs = var_result_def()
    body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove(), RecursiveMemoryEffect())

    def __init__(
        self,
        inputs: Sequence[SSAValue | Operation],
        body: Region,
        result_types: Sequence[Attribute] | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        if result_types is None:
            yield_op = body.block.last_op if body.blocks else None
            if not isinstance(yield_op, YieldOp):
                raise VerifyException(
                    "relay.fused: the body must end with relay.yield to infer the "
                    "result types"
                )
            result_types = list(yield_op.operand_types)
        super().__init__(
            operands=[[SSAValue.get(v) for v in inputs]],
            result_types=[list(result_types)],
            regions=[body],
            attributes=dict(attributes or {}),
        )

    @staticmethod
    def build_body(input_types: Sequence[Attribute]) -> Region:
        """An empty single-block region with arguments of `input_types`."""
        return Region(Block(arg_types=list(input_types)))

    @property
    def yield_op(self) -> YieldOp:
        last = self.body.block.last_op
        assert isinstance(last, YieldOp)
        return last

    def verify_(self) -> None:
        block = self.body.block
        if len(block.args) != len(self.inputs):
            raise VerifyException(
                f"relay.fused: {len(self.inputs)} operands but the body has "
                f"{len(block.args)} arguments; each operand binds one argument"
            )
        for i, (arg, operand) in enumerate(zip(block.args, self.inputs, strict=True)):
            if arg.type != operand.type:
                raise VerifyException(
                    f"relay.fused: argument #{i} of the body has type {arg.type}, but "
                    f"operand #{i} has type {operand.type}"
                )
        last = block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException(
                "relay.fused: the body must end with relay.yield, got "
                + (last.name if last is not None else "an empty block")
            )
        if not self.outputs:
            raise VerifyException("relay.fused: the group must yield at least one value")
        yielded = tuple(last.operand_types)
        results = tuple(r.type for r in self.outputs)
        if yielded != results:
            raise VerifyException(
                "relay.fused: the body yields ("
                + ", ".join(map(str, yielded))
                + ") but the op's results are ("
                + ", ".join(map(str, results))
                + ")"
            )

    @classmethod
    def parse(cls, parser: Parser) -> FusedOp:
        start = parser.pos
        unresolved = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        parser.parse_punctuation("(")
        body = parser.parse_region()
        parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        fn_type_pos = parser.pos
        fn_type = parser.parse_function_type()
        if len(fn_type.inputs) != len(unresolved):
            parser.raise_error(
                f"relay.fused: {len(unresolved)} operands but "
                f"{len(fn_type.inputs)} operand types",
                start,
                fn_type_pos,
            )
        operands = parser.resolve_operands(unresolved, fn_type.inputs.data, start)
        return cls(operands, body, list(fn_type.outputs.data), attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(") (")
        printer.print_region(self.body, print_entry_block_args=True)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(
            FunctionType.from_lists(
                list(self.inputs.types), [r.type for r in self.outputs]
            )
        )


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminates a `relay.fused` body; its operands are the group's results."""

    name = "relay.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), HasParent(FusedOp), Pure())
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[[SSAValue.get(v) for v in values]])


RELAY_REGION_OPS: tuple[type[IRDLOperation], ...] = (FusedOp, YieldOp)


__all__ = ["RELAY_REGION_OPS", "FusedOp", "YieldOp"]
