"""The `te` dialect: TVM's tensor-expression level in MLIR syntax.

A `te.func` is one kernel as a compute DAG: `te.placeholder`s declare its inputs (in
argument order), each `te.compute` defines a tensor by a scalar expression over its
index space, and `te.output` names the tensors it produces. A compute's region takes
one `index` argument per output dimension, then one per reduce axis; it yields the
element (for a reduction: the value combined over the reduce axes with `sum`, `max`,
`min` or `prod`). Scalars are built with `arith`/`math` and `te.read`.

```mlir
te.func @dense {
  %A = te.placeholder "A" : tensor<1x784xf32>
  %B = te.placeholder "B" : tensor<512x784xf32>
  %C = te.compute (%i, %j) reduce sum (%k) [784] : tensor<1x512xf32> {
    %a = te.read %A[%i, %k] : tensor<1x784xf32>
    %b = te.read %B[%j, %k] : tensor<512x784xf32>
    %m = arith.mulf %a, %b : f32
    te.yield %m : f32
  }
  te.output %C : tensor<1x512xf32>
}
```

The graph (`func.func @main`) calls kernels with `te.call`.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import auto

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FlatSymbolRefAttr,
    IndexType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TensorType,
    i1,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
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
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from lamina.dialects.shapes import dims_attr, dims_of, shape_dims
from lamina.dialects.tir import memref_of
from lamina.dialects.tir_sizes import SetSizeLike
from lamina.symbolic import Dim, Sym, SymbolicError


class ReduceKind(StrEnum):
    SUM = auto()
    MAX = auto()
    MIN = auto()
    PROD = auto()


@irdl_attr_definition
class ReduceKindAttr(EnumAttribute[ReduceKind], SpacedOpaqueSyntaxAttribute):
    name = "te.reduce"


@irdl_op_definition
class FuncOp(IRDLOperation):
    """A kernel as a compute DAG; its signature is its placeholders and outputs."""

    name = "te.func"
    body = region_def("single_block")
    sym_name = prop_def(SymbolNameConstraint())
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(self, name: str, body: Region | None = None):
        super().__init__(
            properties={"sym_name": StringAttr(name)},
            regions=[body if body is not None else Region(Block())],
        )

    @property
    def placeholders(self) -> list[PlaceholderOp]:
        return [op for op in self.body.block.ops if isinstance(op, PlaceholderOp)]

    @property
    def output(self) -> OutputOp:
        last = self.body.block.last_op
        assert isinstance(last, OutputOp)
        return last

    def verify_(self) -> None:
        if not isinstance(self.body.block.last_op, OutputOp):
            raise VerifyException(
                f"te.func @{self.sym_name.data} must end with te.output"
            )

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        name = parser.parse_symbol_name().data
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(name, parser.parse_region())
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


@irdl_op_definition
class PlaceholderOp(IRDLOperation):
    """An input tensor of the enclosing `te.func`."""

    name = "te.placeholder"
    sym = prop_def(StringAttr)
    result = result_def(TensorType)
    # Not Pure: a placeholder is an argument of the kernel's signature, which
    # dead-code elimination must not drop even when nothing reads it.
    traits = traits_def(HasParent(FuncOp))
    assembly_format = "$sym attr-dict `:` type($result)"

    def __init__(self, name: str, type: TensorType):
        super().__init__(result_types=[type], properties={"sym": StringAttr(name)})


@irdl_op_definition
class OutputOp(IRDLOperation):
    """The tensors a `te.func` produces, in result order."""

    name = "te.output"
    values = var_operand_def(TensorType)
    traits = traits_def(IsTerminator(), HasParent(FuncOp))
    assembly_format = "$values attr-dict `:` type($values)"

    def __init__(self, values: Sequence[SSAValue | Operation]):
        super().__init__(operands=[values])


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Yield the scalar a `te.compute` body computes for one index point."""

    name = "te.yield"
    value = operand_def()
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue | Operation):
        super().__init__(operands=[value])


@irdl_op_definition
class ComputeOp(IRDLOperation):
    """A tensor defined elementwise by its body, optionally reducing over axes."""

    name = "te.compute"
    reduce = opt_prop_def(ReduceKindAttr)
    reduce_extents = opt_prop_def(DenseArrayBase | ArrayAttr)
    result = result_def(TensorType)
    body = region_def("single_block")
    traits = traits_def(Pure())

    def __init__(
        self,
        type: TensorType,
        body: Region | Block,
        reduce: ReduceKind | None = None,
        reduce_extents: Sequence[Dim] = (),
    ):
        props: dict[str, Attribute] = {}
        if reduce is not None:
            props["reduce"] = ReduceKindAttr(reduce)
            props["reduce_extents"] = dims_attr(list(reduce_extents))
        super().__init__(
            result_types=[type],
            properties=props,
            regions=[body if isinstance(body, Region) else Region(body)],
        )

    @staticmethod
    def build(
        type: TensorType,
        reduce: ReduceKind | None = None,
        reduce_extents: Sequence[Dim] = (),
    ) -> ComputeOp:
        """An empty compute whose body block has the index arguments."""
        n = type.get_num_dims() + len(reduce_extents)
        return ComputeOp(
            type, Block(arg_types=[IndexType()] * n), reduce, reduce_extents
        )

    @property
    def rank(self) -> int:
        t = self.result.type
        assert isinstance(t, TensorType)
        return t.get_num_dims()

    @property
    def extents(self) -> tuple[Dim, ...]:
        t = self.result.type
        assert isinstance(t, TensorType)
        return shape_dims(t)

    @property
    def axes(self) -> tuple[SSAValue, ...]:
        return self.body.block.args[: self.rank]

    @property
    def reduce_axes(self) -> tuple[SSAValue, ...]:
        return self.body.block.args[self.rank :]

    @property
    def reduce_shape(self) -> tuple[Dim, ...]:
        if self.reduce_extents is None:
            return ()
        return dims_of(self.reduce_extents)

    @property
    def yielded(self) -> SSAValue:
        last = self.body.block.last_op
        assert isinstance(last, YieldOp)
        return last.value

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, TensorType)
        if (self.reduce is None) != (self.reduce_extents is None):
            raise VerifyException(
                "te.compute: `reduce` and `reduce_extents` must be given together"
            )
        try:
            extents, reduce = shape_dims(t), self.reduce_shape
        except SymbolicError as e:
            raise VerifyException(f"te.compute: {e}") from None
        if any(d < 0 for d in extents) or any(d <= 0 for d in reduce):
            raise VerifyException(
                "te.compute: extents must be non-negative and reduce extents positive "
                f"(result {t}, reduce [{', '.join(map(str, reduce))}])"
            )
        args = self.body.block.args
        want = t.get_num_dims() + len(self.reduce_shape)
        if len(args) != want:
            raise VerifyException(
                f"te.compute: body needs {want} index arguments ({t.get_num_dims()} "
                f"output axes, {len(self.reduce_shape)} reduce axes), got "
                f"{len(args)}"
            )
        if any(not isinstance(a.type, IndexType) for a in args):
            raise VerifyException(
                "te.compute: body arguments must be of type index, got "
                + ", ".join(str(a.type) for a in args)
            )
        last = self.body.block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException("te.compute: body must end with te.yield")
        if last.value.type != t.get_element_type():
            raise VerifyException(
                f"te.compute: body yields {last.value.type}, but the result's element "
                f"type is {t.get_element_type()}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ComputeOp:
        axes = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
        )
        reduce = None
        raxes: list[Parser.UnresolvedArgument] = []
        extents: list[Dim] = []
        if parser.parse_optional_keyword("reduce") is not None:
            reduce = parser.parse_str_enum(ReduceKind)
            raxes = parser.parse_comma_separated_list(
                Parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
            )
            start = parser.pos
            extents = parser.parse_comma_separated_list(
                Parser.Delimiter.SQUARE, lambda: _parse_dim(parser)
            )
            if any(isinstance(e, int) and not 0 <= e < 1 << 63 for e in extents):
                parser.raise_error(
                    f"te.compute: reduce extents must be in [0, 2^63), got {extents}",
                    start,
                    parser.pos,
                )
        attrs = parser.parse_optional_attr_dict_with_keyword()
        parser.parse_punctuation(":")
        type = parser.parse_type()
        if not isinstance(type, TensorType):
            parser.raise_error(f"te.compute: result must be a tensor, got {type}")
        index = IndexType()
        body = parser.parse_region([a.resolve(index) for a in (*axes, *raxes)])
        op = cls(type, body, reduce, extents)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        printer.print_list(self.axes, printer.print_operand)
        printer.print_string(")")
        if self.reduce is not None:
            printer.print_string(f" reduce {self.reduce.data.value} (")
            printer.print_list(self.reduce_axes, printer.print_operand)
            printer.print_string(") [")
            printer.print_list(
                self.reduce_shape,
                lambda v: printer.print_string(f'"{v}"' if isinstance(v, Sym) else str(v)),
            )
            printer.print_string("]")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


def _parse_dim(parser: Parser) -> Dim:
    """A reduce extent: an integer, or a symbolic one as a string (`"seq"`)."""
    value = parser.parse_optional_integer()
    if value is not None:
        return value
    start = parser.pos
    text = parser.parse_str_literal("a reduce extent (an integer or a quoted dim)")
    try:
        return Sym.parse(text)
    except SymbolicError as e:
        parser.raise_error(f"te.compute: {e}", start, parser.pos)


@irdl_op_definition
class ReadOp(IRDLOperation):
    """Read one element of a tensor at an index point (TVM's `A[i, j]`)."""

    name = "te.read"
    tensor = operand_def(TensorType)
    indices = var_operand_def(IndexType)
    result = result_def()
    traits = traits_def(Pure())

    def __init__(
        self, tensor: SSAValue | Operation, indices: Sequence[SSAValue | Operation]
    ):
        t = SSAValue.get(tensor).type
        assert isinstance(t, TensorType)
        super().__init__(operands=[tensor, indices], result_types=[t.get_element_type()])

    def verify_(self) -> None:
        t = self.tensor.type
        assert isinstance(t, TensorType)
        if len(self.indices) != t.get_num_dims():
            raise VerifyException(
                f"te.read of a rank-{t.get_num_dims()} tensor needs "
                f"{t.get_num_dims()} indices, got {len(self.indices)}"
            )
        if self.result.type != t.get_element_type():
            raise VerifyException(
                f"te.read result {self.result.type} is not the element type of {t}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ReadOp:
        tensor = parser.parse_unresolved_operand()
        indices = parser.parse_comma_separated_list(
            Parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        index = IndexType()
        op = cls(
            parser.resolve_operand(tensor, t),
            [parser.resolve_operand(i, index) for i in indices],
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.tensor)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.tensor.type)


@irdl_op_definition
class CallOp(IRDLOperation):
    """Call a `te.func` on tensors from the graph."""

    name = "te.call"
    callee = prop_def(SymbolRefAttr)
    args = var_operand_def(TensorType)
    res = var_result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = (
        "$callee `(` $args `)` attr-dict `:` functional-type($args, $res)"
    )

    def __init__(
        self,
        callee: str,
        args: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
    ):
        super().__init__(
            operands=[args],
            result_types=[result_types],
            properties={"callee": FlatSymbolRefAttr(callee)},
        )

    def verify_(self) -> None:
        """When the callee is in the module, its signature must match the call."""
        callee = SymbolTable.lookup_symbol(self, self.callee)
        if callee is None:
            return  # not in this module (yet): nothing to check against
        name = self.callee.string_value()
        if callee.name == "tir.prim_func":  # an extern kernel, over buffers
            self._verify_prim_func(name, callee)
            return
        if not isinstance(callee, FuncOp):
            raise VerifyException(
                f"te.call: @{name} is a {callee.name}, not a te.func or tir.prim_func"
            )
        if not isinstance(callee.body.block.last_op, OutputOp):
            return  # the callee's own verifier reports it
        want_in = [p.result.type for p in callee.placeholders]
        want_out = [v.type for v in callee.output.values]
        got_in, got_out = list(self.args.types), list(self.res.types)
        if got_in != want_in or got_out != want_out:
            def sig(ins: Sequence[Attribute], outs: Sequence[Attribute]) -> str:
                return (
                    f"({', '.join(map(str, ins))}) -> ({', '.join(map(str, outs))})"
                )

            raise VerifyException(
                f"te.call: @{name} takes {sig(want_in, want_out)} (its placeholders "
                f"and outputs), but is called as {sig(got_in, got_out)}"
            )

    def _verify_prim_func(self, name: str, callee: Operation) -> None:
        """An extern kernel takes buffers shaped like the call's operands, then
        its results."""
        want = list(callee.properties["function_type"].inputs)  # type: ignore[union-attr]  # func or tir func
        while want and isinstance(want[-1], IndexType):  # its sizes, passed by @main
            want.pop()
        got = [*self.args.types, *self.res.types]
        if want != [memref_of(t) for t in got]:
            raise VerifyException(
                f"te.call: @{name} takes buffers ({', '.join(map(str, want))}), but is "
                f"called with tensors ({', '.join(map(str, got))}) (operands, then results)"
            )


@irdl_op_definition
class SetSizeOp(SetSizeLike):
    """In the graph: a size set by the data, the value of the i64 `count`, as
    `relay.narrow` and the `relay.dyn_*` ops say:
    `te.set_size "nz" = %count, bound "6" : tensor<i64>`,
    `te.set_size "r0" = %shape[0] : tensor<2xi64>` (unbounded)."""

    name = "te.set_size"
    count = operand_def(TensorType)


@irdl_op_definition
class CheckOp(IRDLOperation):
    """In the graph: stop the run with `message` unless the boolean scalar
    `cond` is true, as `relay.check` says: `te.check %ok, "..." : tensor<i1>`."""

    name = "te.check"
    cond = operand_def(TensorType)
    message = prop_def(StringAttr)
    assembly_format = "$cond `,` $message attr-dict `:` type($cond)"

    def __init__(self, cond: SSAValue | Operation, message: str):
        super().__init__(operands=[cond], properties={"message": StringAttr(message)})

    def verify_(self) -> None:
        t = self.cond.type
        if not isinstance(t, TensorType) or t.get_element_type() != i1 or t.get_shape():
            raise VerifyException(f"te.check: cond must be a tensor<i1>, got {t}")


#: The unit attribute of a reduce `te.compute` that adds in the order its
#: schedule gives (index order, or in each of its lanes): lower-te-to-tir gives
#: LLVM no `reassoc` for it (`relay.sum {ordered}`, a layer norm's variance).
ORDERED = "ordered"

#: The attribute of a `te.func` whose TIR a compile of this model does not
#: need to build (`recall-kernels`: its lowering is on record, and its code is
#: likely in the kernel cache): a dictionary with the TIR's `digest`, the
#: `sizes` its `tir.prim_func` takes, and the runtime functions it `calls`.
#: lower-te-to-tir keeps such a kernel as it is, and calls it with those sizes;
#: compile-kernels declares it, or lowers it then if its code is gone.
LOWERED = "lamina.lowered"


def lowered_sizes(fn: FuncOp) -> list[str] | None:
    """The sizes a kernel marked `LOWERED` takes (None: not marked)."""
    mark = fn.attributes.get(LOWERED)
    sizes = mark.data.get("sizes") if isinstance(mark, DictionaryAttr) else None
    if not isinstance(sizes, ArrayAttr) or not all(isinstance(s, StringAttr) for s in sizes.data):
        return None
    return [s.data for s in sizes.data]  # type: ignore[attr-defined]


TE = Dialect(
    "te",
    [FuncOp, PlaceholderOp, OutputOp, ComputeOp, ReadOp, YieldOp, CallOp, SetSizeOp, CheckOp],
    [ReduceKindAttr],
)

__all__ = [
    "LOWERED",
    "ORDERED",
    "TE",
    "CallOp",
    "CheckOp",
    "ComputeOp",
    "FuncOp",
    "OutputOp",
    "PlaceholderOp",
    "ReadOp",
    "ReduceKind",
    "SetSizeOp",
    "YieldOp",
    "lowered_sizes",
]
