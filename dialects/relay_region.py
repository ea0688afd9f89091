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

from xdsl.dialects.builtin import (
    FunctionType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
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

from lamina.dialects.shapes import dims_attr, dims_of, shape_dims, symbolic_tensor
from lamina.symbolic import Dim, Sym


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


def _scalar_type(t: Attribute, elem: Attribute) -> bool:
    return isinstance(t, TensorType) and t.get_element_type() == elem and not t.get_shape()


def _check_body(op_name: str, what: str, region: Region, want_args: Sequence[Attribute]) -> YieldOp:
    """A control-flow body: one block, its arguments typed `want_args`, ending
    in a yield."""
    if len(region.blocks) != 1:
        raise VerifyException(f"{op_name}: the {what} must have one block, got {len(region.blocks)}")
    block = region.block
    got = [a.type for a in block.args]
    if got != list(want_args):
        raise VerifyException(
            f"{op_name}: the {what} takes ({', '.join(map(str, got))}), but must take "
            f"({', '.join(map(str, want_args))})"
        )
    last = block.last_op
    if not isinstance(last, YieldOp):
        raise VerifyException(f"{op_name}: the {what} must end with relay.yield")
    return last


def _types(values: Sequence[SSAValue]) -> str:
    return "(" + ", ".join(str(v.type) for v in values) + ")"


@irdl_op_definition
class IfOp(IRDLOperation):
    """Run one of two bodies on `inputs` by the i1 scalar `cond` (ONNX If,
    Relay's `If`); its results are what the body that ran yields. The bodies
    are isolated from above: each sees only its arguments, bound to `inputs`.

    ```mlir
    %r = relay.if %c (%x) then {
    ^bb0(%a: tensor<4xf32>):
      %t = relay.negative %a : tensor<4xf32>
      relay.yield %t : tensor<4xf32>
    } else {
    ^bb0(%a: tensor<4xf32>):
      relay.yield %a : tensor<4xf32>
    } : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
    ```
    """

    name = "relay.if"
    cond = operand_def(TensorType)
    inputs = var_operand_def()
    outputs = var_result_def()
    then_body = region_def("single_block")
    else_body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove(), RecursiveMemoryEffect())

    def __init__(
        self,
        cond: SSAValue | Operation,
        inputs: Sequence[SSAValue | Operation],
        then_body: Region,
        else_body: Region,
        result_types: Sequence[Attribute] | None = None,
    ):
        if result_types is None:
            last = then_body.block.last_op
            assert isinstance(last, YieldOp), "relay.if: the then body must end with relay.yield"
            result_types = list(last.operand_types)
        super().__init__(
            operands=[SSAValue.get(cond), [SSAValue.get(v) for v in inputs]],
            result_types=[list(result_types)],
            regions=[then_body, else_body],
        )

    def verify_(self) -> None:
        if not _scalar_type(self.cond.type, i1):
            raise VerifyException(f"relay.if: cond must be a tensor<i1>, got {self.cond.type}")
        for what, body in (("then body", self.then_body), ("else body", self.else_body)):
            done = _check_body(self.name, what, body, list(self.inputs.types))
            if tuple(done.operand_types) != tuple(r.type for r in self.outputs):
                raise VerifyException(
                    f"relay.if: the {what} yields {_types(done.values)} but the op's "
                    f"results are {_types(self.outputs)}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        start = parser.pos
        cond = parser.parse_unresolved_operand()
        inputs = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        parser.parse_keyword("then")
        then_body = parser.parse_region()
        parser.parse_keyword("else")
        else_body = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        fn_type = parser.parse_function_type()
        if len(fn_type.inputs) != len(inputs) + 1:
            parser.raise_error(
                f"relay.if: {len(inputs) + 1} operands but {len(fn_type.inputs)} operand types",
                start,
            )
        operands = parser.resolve_operands([cond, *inputs], fn_type.inputs.data, start)
        op = cls(operands[0], operands[1:], then_body, else_body, list(fn_type.outputs.data))
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cond)
        printer.print_string(" (")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(") then ")
        printer.print_region(self.then_body, print_entry_block_args=True)
        printer.print_string(" else ")
        printer.print_region(self.else_body, print_entry_block_args=True)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(
            FunctionType.from_lists(
                [self.cond.type, *self.inputs.types], [r.type for r in self.outputs]
            )
        )


@irdl_op_definition
class LoopOp(IRDLOperation):
    """A loop (ONNX Loop and Scan; Relax's recursion, TVM's `while_loop`): the
    body runs for iteration i = 0, 1, ... while `i < trip_count` and the
    condition holds (`cond` before the first iteration, then what the body
    yields first).

    The first `carried` of `inputs` are loop-carried: the body gets their
    current values and yields the next ones; the others are read-only. The
    body's arguments are (i: tensor<i64>, cond: tensor<i1>, inputs...); it yields
    (cond, carried..., scan elements...). The results are the carried values
    after the last iteration, each scan element stacked over the iterations
    (`[max_trips, ...]`, rows past the last iteration undefined), and the
    number of iterations run (tensor<i64>), which `relay.narrow` can cut the
    stacks to.

    When the trip count is known only when the model runs, `trips_size` names
    the size the loop sets from it before it runs (as `relay.dyn_arange` sets
    its count): `max_trips` is that size, and the trip count must not be
    negative.
    """

    name = "relay.loop"
    trip_count = operand_def(TensorType)
    cond = operand_def(TensorType)
    inputs = var_operand_def()
    outputs = var_result_def()
    body = region_def("single_block")
    carried = prop_def(IntegerAttr)
    max_trips = opt_prop_def(Attribute)
    trips_size = opt_prop_def(StringAttr)
    traits = traits_def(IsolatedFromAbove(), RecursiveMemoryEffect())

    def __init__(
        self,
        trip_count: SSAValue | Operation,
        cond: SSAValue | Operation,
        inputs: Sequence[SSAValue | Operation],
        carried: int,
        body: Region,
        max_trips: Dim | None = None,
        result_types: Sequence[Attribute] | None = None,
        trips_size: str | None = None,
    ):
        props: dict[str, Attribute] = {"carried": IntegerAttr(carried, 64)}
        if trips_size is not None and max_trips is None:
            max_trips = Sym.var(trips_size)
        if max_trips is not None:
            props["max_trips"] = dims_attr([max_trips])
        if trips_size is not None:
            props["trips_size"] = StringAttr(trips_size)
        values = [SSAValue.get(v) for v in inputs]
        if result_types is None:
            last = body.block.last_op
            assert isinstance(last, YieldOp), "relay.loop: the body must end with relay.yield"
            scans = list(last.operand_types)[1 + carried :]
            result_types = [
                *(v.type for v in values[:carried]),
                *(LoopOp.stacked(t, max_trips) for t in scans),
                TensorType(IntegerType(64), []),
            ]
        super().__init__(
            operands=[SSAValue.get(trip_count), SSAValue.get(cond), values],
            result_types=[list(result_types)],
            regions=[body],
            properties=props,
        )

    @staticmethod
    def stacked(t: Attribute, rows: Dim | None) -> TensorType:
        """The type of a scan element `t` stacked over `rows` iterations."""
        assert isinstance(t, TensorType)
        if rows is None:
            raise VerifyException("relay.loop: scan outputs need max_trips, the stack's rows")
        return symbolic_tensor([rows, *shape_dims(t)], t.get_element_type())

    @property
    def num_carried(self) -> int:
        return self.carried.value.data

    @property
    def rows(self) -> Dim | None:
        return dims_of(self.max_trips)[0] if self.max_trips is not None else None

    def defined(self) -> list[tuple[int | None, str]]:
        """The size the loop sets from its trip count (`trips_size`), if any."""
        return [] if self.trips_size is None else [(None, self.trips_size.data)]

    def verify_(self) -> None:
        n = self.num_carried
        if not _scalar_type(self.trip_count.type, IntegerType(64)):
            raise VerifyException(f"relay.loop: trip_count must be a tensor<i64>, got {self.trip_count.type}")
        if not _scalar_type(self.cond.type, i1):
            raise VerifyException(f"relay.loop: cond must be a tensor<i1>, got {self.cond.type}")
        if not 0 <= n <= len(self.inputs):
            raise VerifyException(f"relay.loop: carried = {n} is not in 0..{len(self.inputs)}")
        if self.trips_size is not None:
            name = self.trips_size.data
            if not name.isidentifier() or self.rows != Sym.var(name):
                raise VerifyException(
                    f"relay.loop: trips_size \"{name}\" must be an identifier and max_trips "
                    f"that size, got max_trips {self.rows}"
                )
        scalar_i64, scalar_i1 = TensorType(IntegerType(64), []), TensorType(i1, [])
        done = _check_body(self.name, "body", self.body, [scalar_i64, scalar_i1, *self.inputs.types])
        yielded = list(done.operand_types)
        if len(yielded) < 1 + n or yielded[0] != scalar_i1:
            raise VerifyException(
                f"relay.loop: the body must yield (tensor<i1>, the {n} carried values, "
                f"scan elements...), got {_types(done.values)}"
            )
        carried = list(self.inputs.types)[:n]
        if yielded[1 : 1 + n] != carried:
            raise VerifyException(
                f"relay.loop: the body yields carried values of types "
                f"({', '.join(map(str, yielded[1 : 1 + n]))}), but they enter as "
                f"({', '.join(map(str, carried))}); a carried value keeps its type"
            )
        want = [*carried, *(self.stacked(t, self.rows) for t in yielded[1 + n :]), scalar_i64]
        got = [r.type for r in self.outputs]
        if got != want:
            raise VerifyException(
                f"relay.loop: the results are {_types(self.outputs)} but the body "
                f"makes them ({', '.join(map(str, want))})"
            )

    @classmethod
    def parse(cls, parser: Parser) -> LoopOp:
        start = parser.pos
        operands = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        body = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        fn_type = parser.parse_function_type()
        if len(fn_type.inputs) != len(operands) or len(operands) < 2:
            parser.raise_error(
                f"relay.loop: {len(operands)} operands but {len(fn_type.inputs)} operand types",
                start,
            )
        values = parser.resolve_operands(operands, fn_type.inputs.data, start)
        carried = attrs.pop("carried", None)
        if not isinstance(carried, IntegerAttr):
            parser.raise_error("relay.loop: needs carried = <count of loop-carried inputs>", start)
        trips = attrs.pop("max_trips", None)
        rows = dims_of(trips)[0] if trips is not None else None
        sets = attrs.pop("trips_size", None)
        if sets is not None and not isinstance(sets, StringAttr):
            parser.raise_error("relay.loop: trips_size must be a string (a size name)", start)
        op = cls(
            values[0], values[1], values[2:], carried.value.data, body, rows, list(fn_type.outputs.data),
            None if sets is None else sets.data,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_string(") ")
        printer.print_region(self.body, print_entry_block_args=True)
        printer.print_op_attributes({**self.properties, **self.attributes})
        printer.print_string(" : ")
        printer.print_attribute(
            FunctionType.from_lists(list(self.operand_types), [r.type for r in self.outputs])
        )


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminates a `relay.fused` body (its operands are the group's results) or
    a `relay.if`/`relay.loop` body."""

    name = "relay.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), HasParent(FusedOp, IfOp, LoopOp), Pure())
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[[SSAValue.get(v) for v in values]])


RELAY_REGION_OPS: tuple[type[IRDLOperation], ...] = (FusedOp, IfOp, LoopOp, YieldOp)


__all__ = ["RELAY_REGION_OPS", "FusedOp", "IfOp", "LoopOp", "YieldOp"]
