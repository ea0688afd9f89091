"""The `tir` dialect: TVM's loop/buffer level (TensorIR) in MLIR syntax.

A `tir.prim_func` is a kernel over buffers (memrefs), written in destination-passing
style: outputs are arguments too. Its body is made of `tir.for` loop nests that carry
their intent (`serial`, `parallel`, `vectorized`, `unrolled`), `tir.load`/`tir.store`
on buffers, `tir.alloc` for temporaries and `tir.if` for guarded statements. Scalars
are computed with `arith` and `math`. The model's entry function is a `func.func`
over memrefs that allocates intermediates with `tir.alloc`, names weights with
`tir.constant` and calls kernels with `tir.call`.

```mlir
tir.prim_func @relu(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  ...
  tir.for parallel %i = %c0 to %c4 step %c1 {
    tir.for vectorized %j = %c0 to %c8 step %c1 {
      %v = tir.load %x[%i, %j] : memref<4x8xf32>
      ...
      tir.store %r, %y[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}
```
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import auto

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseResourceAttr,
    FlatSymbolRefAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TensorType,
    VectorType,
    i1,
)
from xdsl.dialects.utils import EnumAttribute, parse_func_op_like, print_func_op_like
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
    opt_region_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    MemoryAllocEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from lamina.dialects.resources import blobs
from lamina.dialects.shapes import SizesAttr, dims
from lamina.dialects.tir_extern import CallExternOp
from lamina.dialects.tir_sizes import (
    CheckOp,
    SetSizeOp,
    SizeOp,
    size_names,
    verify_set_size,
)
from lamina.dialects.tir_vector import (
    Dot4Op,
    MaskedLoadOp,
    MaskedStoreOp,
    VectorCmpOp,
    VectorSelectOp,
    _access_type,
    _check_indices,
)
from lamina.dialects.tir_view import ViewOp
from lamina.symbolic import SymbolicError


class ForKind(StrEnum):
    """What a loop promises about its iterations (TVM's ForKind)."""

    SERIAL = auto()
    PARALLEL = auto()
    VECTORIZED = auto()
    UNROLLED = auto()


#: The most iterations an `unrolled` loop is copied for (by `tir-unroll`, or by
#: LLVM after `lower-tir-to-llvm`); one with more runs as a serial loop.
MAX_UNROLL_COPIES = 64


@irdl_attr_definition
class ForKindAttr(EnumAttribute[ForKind], SpacedOpaqueSyntaxAttribute):
    name = "tir.for_kind"


class AllocScope(StrEnum):
    """Where a buffer lives: the model's workspace arena or the kernel's stack."""

    GLOBAL = auto()
    LOCAL = auto()


@irdl_attr_definition
class AllocScopeAttr(EnumAttribute[AllocScope], SpacedOpaqueSyntaxAttribute):
    name = "tir.scope"


def memref_of(t: Attribute) -> MemRefType:
    """The buffer type a tensor type lowers to (same shape and element type)."""
    assert isinstance(t, TensorType)
    if isinstance(t.encoding, ArrayAttr) and t.encoding.data:
        return MemRefType(t.get_element_type(), t.get_shape(), SizesAttr(t.encoding))
    return MemRefType(t.get_element_type(), t.get_shape())


# --------------------------------------------------------------------------- funcs
@irdl_op_definition
class PrimFuncOp(IRDLOperation):
    """A kernel over buffers. All buffers are arguments; it returns nothing."""

    name = "tir.prim_func"

    body = region_def()
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    sym_visibility = opt_prop_def(StringAttr)

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(
        self,
        name: str,
        arg_types: Sequence[Attribute],
        region: Region | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        function_type = FunctionType.from_lists(arg_types, [])
        if region is None:
            region = Region(Block(arg_types=arg_types))
        super().__init__(
            properties={"sym_name": StringAttr(name), "function_type": function_type},
            regions=[region],
            attributes=attributes or {},
        )

    @property
    def args(self) -> tuple[SSAValue, ...]:
        return self.body.block.args

    @property
    def sizes(self) -> list[str]:
        """The names of its trailing `index` arguments: the sizes it depends on."""
        attr = self.attributes.get("sizes")
        if not isinstance(attr, ArrayAttr):
            return []
        return [a.data for a in attr.data if isinstance(a, StringAttr)]

    def size_args(self) -> dict[str, SSAValue]:
        names = self.sizes
        args = self.body.block.args
        return dict(zip(names, args[len(args) - len(names) :], strict=True))

    def verify_(self) -> None:
        if self.function_type.outputs.data:
            raise VerifyException(
                f"tir.prim_func @{self.sym_name.data} must not return values: "
                "kernels write their outputs into buffer arguments"
            )
        inputs = self.function_type.inputs.data
        nsizes = len(self.sizes)
        for i, t in enumerate(inputs):
            want = IndexType if i >= len(inputs) - nsizes else MemRefType
            if not isinstance(t, want):
                raise VerifyException(
                    f"tir.prim_func @{self.sym_name.data}: argument #{i} has type {t}, "
                    "but kernel arguments must be memrefs, then one index per name in "
                    f"its sizes {list(self.sizes)}"
                )
        try:
            missing = set(size_names(inputs)) - set(self.sizes)
        except SymbolicError as e:
            raise VerifyException(
                f"tir.prim_func @{self.sym_name.data}: a buffer has a dynamic shape "
                f"without named sizes (a #tir.sizes layout): {e}"
            ) from None
        if missing:
            raise VerifyException(
                f"tir.prim_func @{self.sym_name.data}: its buffers depend on size(s) "
                f"{sorted(missing)}, which its `sizes` attribute does not name"
            )
        if len(self.body.blocks) != 1:
            raise VerifyException(
                f"tir.prim_func @{self.sym_name.data} must have a body of one block; "
                "declare an external kernel with func.func instead"
            )
        if tuple(self.body.block.arg_types) != self.function_type.inputs.data:
            raise VerifyException(
                f"tir.prim_func @{self.sym_name.data}: entry block arguments do not "
                "match the function type"
            )

    @classmethod
    def parse(cls, parser: Parser) -> PrimFuncOp:
        name, inputs, outputs, region, extra, _, _ = parse_func_op_like(
            parser, reserved_attr_names=("sym_name", "function_type", "sym_visibility")
        )
        if outputs:
            parser.raise_error("tir.prim_func returns nothing: remove its result types")
        op = cls(name, inputs, region)
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.attributes,
            reserved_attr_names=("sym_name", "function_type", "sym_visibility"),
            print_empty_outputs=False,
        )


@irdl_op_definition
class ReturnOp(IRDLOperation):
    name = "tir.return"
    traits = traits_def(IsTerminator(), HasParent(PrimFuncOp), Pure())
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()


@irdl_op_definition
class CallOp(IRDLOperation):
    """Call a kernel (or an external function) with buffers, destination-passing,
    then the values of the sizes it depends on."""

    name = "tir.call"
    callee = prop_def(SymbolRefAttr)
    args = var_operand_def()
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$callee `(` $args `)` attr-dict `:` type($args)"

    def __init__(self, callee: str, args: Sequence[SSAValue | Operation]):
        super().__init__(
            operands=[args], properties={"callee": FlatSymbolRefAttr(callee)}
        )

    def verify_(self) -> None:
        for i, t in enumerate(self.args.types):
            if not isinstance(t, MemRefType | IndexType):
                raise VerifyException(
                    f"tir.call: argument #{i} has type {t}; kernels take buffers "
                    "(memrefs), then sizes (index)"
                )
        # An unknown callee is an external kernel (e.g. a BYOC function).
        callee = SymbolTable.lookup_symbol(self, self.callee)
        if not isinstance(callee, PrimFuncOp):
            return
        want = callee.function_type.inputs.data
        if tuple(self.args.types) != want:
            raise VerifyException(
                f"tir.call @{callee.sym_name.data}: buffer types "
                f"({', '.join(map(str, self.args.types))}) do not match the kernel's "
                f"({', '.join(map(str, want))})"
            )


# --------------------------------------------------------------------------- loops
@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminator of `tir.for` and `tir.if` bodies (implicit in the custom form)."""

    name = "tir.yield"
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()


@irdl_op_definition
class ForOp(IRDLOperation):
    """`for (i = lb; i < ub; i += step)` with a kind: serial, parallel, vectorized
    or unrolled."""

    name = "tir.for"

    lb = operand_def(IndexType)
    ub = operand_def(IndexType)
    step = operand_def(IndexType)
    kind = prop_def(ForKindAttr)
    body = region_def("single_block")

    traits = traits_def(SingleBlockImplicitTerminator(YieldOp), RecursiveMemoryEffect())

    def __init__(
        self,
        lb: SSAValue | Operation,
        ub: SSAValue | Operation,
        step: SSAValue | Operation,
        body: Region | Block | None = None,
        kind: ForKind = ForKind.SERIAL,
    ):
        if body is None:
            body = Block(arg_types=[IndexType()])
        if isinstance(body, Block):
            body = Region(body)
        super().__init__(
            operands=[lb, ub, step],
            properties={"kind": ForKindAttr(kind)},
            regions=[body],
        )

    @property
    def induction_var(self) -> SSAValue:
        return self.body.block.args[0]

    @staticmethod
    def constant_index(v: SSAValue) -> int | None:
        """The value of an `arith.constant` index (a loop bound, an index
        operand), else None."""
        op = v.owner
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            return op.value.value.data
        return None

    @property
    def constant_bounds(self) -> tuple[int, int, int] | None:
        """`(lb, ub, step)` when all three are constants, else None."""
        lb, ub, step = (ForOp.constant_index(v) for v in (self.lb, self.ub, self.step))
        if lb is None or ub is None or step is None:
            return None
        return lb, ub, step

    @property
    def constant_trips(self) -> int | None:
        """How many times the loop runs, when its bounds are constants and its
        step positive, else None."""
        bounds = self.constant_bounds
        return len(range(*bounds)) if bounds is not None and bounds[2] > 0 else None

    def set_kind(self, kind: ForKind) -> None:
        """Make this a `kind` loop (e.g. demote it to serial)."""
        self.kind = ForKindAttr(kind)

    def verify_(self) -> None:
        args = self.body.block.args
        if len(args) != 1 or not isinstance(args[0].type, IndexType):
            raise VerifyException(
                "tir.for body must have exactly one argument, the index-typed "
                "induction variable"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        kind = parser.parse_optional_str_enum(ForKind) or ForKind.SERIAL
        iv = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        index = IndexType()
        lb = parser.parse_operand(index)
        parser.parse_keyword("to")
        ub = parser.parse_operand(index)
        parser.parse_keyword("step")
        step = parser.parse_operand(index)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region((iv.resolve(IndexType()),))
        if not body.block.ops or not isinstance(body.block.last_op, YieldOp):
            body.block.add_op(YieldOp())
        op = cls(lb, ub, step, body, kind)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data.value} ")
        printer.print_operand(self.induction_var)
        printer.print_string(" = ")
        printer.print_operand(self.lb)
        printer.print_string(" to ")
        printer.print_operand(self.ub)
        printer.print_string(" step ")
        printer.print_operand(self.step)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(
            self.body, print_entry_block_args=False, print_empty_block=False,
            print_block_terminators=False,
        )


@irdl_op_definition
class IfOp(IRDLOperation):
    """A guarded statement: `if (cond) { then } else { else }`."""

    name = "tir.if"

    cond = operand_def(i1)
    then_region = region_def("single_block")
    else_region = opt_region_def("single_block")

    traits = traits_def(SingleBlockImplicitTerminator(YieldOp), RecursiveMemoryEffect())

    def __init__(
        self,
        cond: SSAValue | Operation,
        then_region: Region | Block | None = None,
        else_region: Region | Block | None = None,
    ):
        then_region = _region(then_region)
        regions: list[Region | list[Region]] = [then_region]
        regions.append([_region(else_region)] if else_region is not None else [])
        super().__init__(operands=[cond], regions=regions)

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        cond = parser.parse_operand(i1)
        then_region = parser.parse_region()
        _implicit_yield(then_region)
        else_region = None
        if parser.parse_optional_keyword("else") is not None:
            else_region = parser.parse_region()
            _implicit_yield(else_region)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(cond, then_region, else_region)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cond)
        printer.print_string(" ")
        printer.print_region(self.then_region, print_block_terminators=False)
        if self.else_region is not None:
            printer.print_string(" else ")
            printer.print_region(self.else_region, print_block_terminators=False)
        printer.print_op_attributes(self.attributes, print_keyword=True)


def _region(r: Region | Block | None) -> Region:
    if r is None:
        return Region(Block([YieldOp()]))
    if isinstance(r, Block):
        return Region(r)
    return r


def _implicit_yield(region: Region) -> None:
    if not region.blocks:
        region.add_block(Block())
    block = region.block
    if not block.ops or not isinstance(block.last_op, YieldOp):
        block.add_op(YieldOp())


# ------------------------------------------------------------------------- buffers
@irdl_op_definition
class LoadOp(IRDLOperation):
    """Read one element (or a vector of consecutive elements along the last
    dimension) of a buffer."""

    name = "tir.load"

    buffer = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    result = result_def()

    traits = traits_def(MemoryReadEffect())

    def __init__(
        self,
        buffer: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation],
        result_type: Attribute | None = None,
    ):
        buf = SSAValue.get(buffer)
        if result_type is None:
            assert isinstance(buf.type, MemRefType)
            result_type = buf.type.get_element_type()
        super().__init__(operands=[buf, indices], result_types=[result_type])

    def verify_(self) -> None:
        _check_indices(self, self.buffer, self.indices)
        _access_type(self.buffer, self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        buf = parser.parse_unresolved_operand()
        indices = parser.parse_comma_separated_list(
            Parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        mtype = parser.parse_type()
        vtype = None
        if parser.parse_optional_punctuation(","):
            vtype = parser.parse_type()
        index = IndexType()
        op = cls(
            parser.resolve_operand(buf, mtype),
            [parser.resolve_operand(i, index) for i in indices],
            vtype,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.buffer)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.buffer.type)
        if isinstance(self.result.type, VectorType):
            printer.print_string(", ")
            printer.print_attribute(self.result.type)


@irdl_op_definition
class StoreOp(IRDLOperation):
    """Write one element (or a vector along the last dimension) into a buffer."""

    name = "tir.store"

    value = operand_def()
    buffer = operand_def(MemRefType)
    indices = var_operand_def(IndexType)

    traits = traits_def(MemoryWriteEffect())

    def __init__(
        self,
        value: SSAValue | Operation,
        buffer: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation],
    ):
        super().__init__(operands=[value, buffer, indices])

    def verify_(self) -> None:
        _check_indices(self, self.buffer, self.indices)
        _access_type(self.buffer, self.value.type)

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        buf = parser.parse_unresolved_operand()
        indices = parser.parse_comma_separated_list(
            Parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        mtype = parser.parse_type()
        vtype = None
        if parser.parse_optional_punctuation(","):
            vtype = parser.parse_type()
        if vtype is None:
            if not isinstance(mtype, MemRefType):
                parser.raise_error(f"tir.store needs a memref type, got {mtype}")
            vtype = mtype.get_element_type()
        index = IndexType()
        op = cls(
            parser.resolve_operand(value, vtype),
            parser.resolve_operand(buf, mtype),
            [parser.resolve_operand(i, index) for i in indices],
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        printer.print_operand(self.buffer)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.buffer.type)
        if isinstance(self.value.type, VectorType):
            printer.print_string(", ")
            printer.print_attribute(self.value.type)


@irdl_op_definition
class AllocOp(IRDLOperation):
    """A buffer for the duration of the enclosing function: `global` buffers come
    from the model's planned workspace arena, `local` ones from the stack."""

    name = "tir.alloc"

    scope = prop_def(AllocScopeAttr)
    result = result_def(MemRefType)

    traits = traits_def(MemoryAllocEffect())
    assembly_format = "$scope attr-dict `:` type($result)"

    def __init__(self, type: MemRefType, scope: AllocScope = AllocScope.GLOBAL):
        super().__init__(
            result_types=[type], properties={"scope": AllocScopeAttr(scope)}
        )

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, MemRefType)
        try:
            dims(t)
        except SymbolicError as e:
            raise VerifyException(
                f"tir.alloc needs a static shape or named sizes (a #tir.sizes "
                f"layout), got {t}: {e}"
            ) from None


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A weight buffer, bound at run time from the model's parameter table."""

    name = "tir.constant"

    value = prop_def(DenseResourceAttr)
    result = result_def(MemRefType)

    traits = traits_def(Pure())

    def __init__(self, value: DenseResourceAttr, type: MemRefType):
        super().__init__(result_types=[type], properties={"value": value})

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, MemRefType)
        vt = self.value.type
        if tuple(vt.get_shape()) != tuple(t.get_shape()) or (
            vt.get_element_type() != t.get_element_type()
        ):
            raise VerifyException(
                f"tir.constant: resource type {vt} does not match buffer type {t}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        parser.parse_keyword("dense_resource")
        parser.parse_punctuation("<")
        key = parser.parse_identifier()
        parser.parse_punctuation(">")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if not isinstance(t, MemRefType):
            parser.raise_error(f"tir.constant needs a memref type, got {t}")
        key = blobs_declare(key)
        value = DenseResourceAttr.from_params(
            key, TensorType(t.get_element_type(), t.get_shape())
        )
        op = cls(value, t)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        self.value.print_without_type(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


def blobs_declare(key: str) -> str:
    """Declare a resource key met in custom syntax, as the attribute parser does."""
    return blobs.declare_resource(key)


def bind_sizes(fn: PrimFuncOp) -> None:
    """Make the sizes a kernel uses (`tir.size` ops, and its buffers' symbolic
    dims) its trailing `index` arguments, named by its `sizes` attribute."""
    ops = [op for op in fn.walk() if isinstance(op, SizeOp)]
    names = sorted({op.size.data for op in ops} | set(size_names(fn.function_type.inputs.data)))
    if not names:
        return
    block = fn.body.block
    args = {n: block.insert_arg(IndexType(), len(block.args)) for n in names}
    for n, a in args.items():
        a.name_hint = n
    for op in ops:
        op.result.replace_all_uses_with(args[op.size.data])
        op.detach()
        op.erase()
    fn.function_type = FunctionType.from_lists(list(block.arg_types), [])
    fn.attributes["sizes"] = ArrayAttr([StringAttr(n) for n in names])


TIR = Dialect(
    "tir",
    [
        PrimFuncOp,
        ReturnOp,
        CallOp,
        CallExternOp,
        YieldOp,
        ForOp,
        IfOp,
        LoadOp,
        StoreOp,
        MaskedStoreOp,
        MaskedLoadOp,
        VectorCmpOp,
        VectorSelectOp,
        Dot4Op,
        AllocOp,
        ConstantOp,
        SizeOp,
        SetSizeOp,
        CheckOp,
        ViewOp,
    ],
    [ForKindAttr, AllocScopeAttr, SizesAttr],
)

__all__ = [
    "MAX_UNROLL_COPIES",
    "TIR",
    "AllocOp",
    "AllocScope",
    "CallExternOp",
    "CallOp",
    "CheckOp",
    "ConstantOp",
    "Dot4Op",
    "ForKind",
    "ForOp",
    "IfOp",
    "LoadOp",
    "MaskedLoadOp",
    "MaskedStoreOp",
    "PrimFuncOp",
    "ReturnOp",
    "SetSizeOp",
    "SizeOp",
    "SizesAttr",
    "StoreOp",
    "VectorCmpOp",
    "VectorSelectOp",
    "ViewOp",
    "YieldOp",
    "bind_sizes",
    "memref_of",
    "size_names",
    "verify_set_size",
]
