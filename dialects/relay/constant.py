"""`relay.constant`: a constant tensor, from a `dense_resource` blob or inline.

Weights and other constants enter the graph through this one op; its result
type is the type of its value, and it prints as just the value
(`relay.constant dense_resource<w> : tensor<4x8xf32>`). It is `ConstantLike`, so
constant folding and the xDSL canonicalizer treat it as a constant.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    FloatAttr,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException

from lamina.dialects.relay.base import (
    AttrField,
    DimsField,
    OpAttrs,
    OpPattern,
    RelayOp,
    tensor,
)


class ConstantAttrs(OpAttrs):
    value = AttrField()


class DimsAttrs(OpAttrs):
    dims = DimsField()


class ArangeAttrs(OpAttrs):
    size = DimsField()
    start = AttrField()
    step = AttrField()


@irdl_op_definition
class ConstantOp(RelayOp):
    """A constant tensor: a `dense_resource` blob (weights) or an inline `dense`."""

    name = "relay.constant"
    value = prop_def(DenseResourceAttr | DenseIntOrFPElementsAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = ConstantAttrs

    def __init__(self, value: DenseResourceAttr | DenseIntOrFPElementsAttr):
        super().__init__(result_type=value.get_type(), value=value)

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        value = cls.attrs_of(props).value
        assert isinstance(value, DenseResourceAttr | DenseIntOrFPElementsAttr)
        t = value.get_type()
        if not isinstance(t, TensorType):
            raise VerifyException(f"relay.constant: value must have a tensor type, got {t}")
        return t

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        start = parser._current_token.span  # pyright: ignore[reportPrivateUsage]
        value = parser.parse_attribute()
        if not isinstance(value, DenseResourceAttr | DenseIntOrFPElementsAttr):
            parser.raise_error(
                "relay.constant expects dense_resource<...> or dense<...> : tensor<...>",
                start,
            )
        attrs = parser.parse_optional_attr_dict()
        op = cls(value)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class DimsOp(RelayOp):
    """An i64 vector of dims, static or symbolic: a shape as data (TVM's `shape_of`).

    ONNX's `Shape` of a symbolically shaped tensor becomes one, and so does the
    arithmetic on it that the importer folds (`seq * 2`, a `Concat` of dims). Its
    value is known while compiling, as expressions of the model's sizes; at run
    time it is computed from them."""

    name = "relay.dims"
    dims = prop_def(DenseArrayBase | ArrayAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    ATTRS: ClassVar[type[OpAttrs]] = DimsAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        return tensor([len(DimsAttrs(props, "relay.dims").dims)], i64)


@irdl_op_definition
class ArangeOp(RelayOp):
    """`start + i * step` for `i` in `0..size`: ONNX's Range with constant start
    and delta, whose length may be a symbolic size."""

    name = "relay.arange"
    size = prop_def(DenseArrayBase | ArrayAttr)
    start = prop_def(IntegerAttr | FloatAttr)
    step = prop_def(IntegerAttr | FloatAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    ATTRS: ClassVar[type[OpAttrs]] = ArangeAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        attrs = cls.attrs_of(props)
        size, start, step = attrs.size, attrs.start, attrs.step
        if len(size) != 1:
            raise VerifyException(f"{cls.name}: size must be one dim, got {len(size)}")
        assert isinstance(start, IntegerAttr | FloatAttr) and isinstance(step, IntegerAttr | FloatAttr)
        if start.type != step.type:
            raise VerifyException(
                f"{cls.name}: start ({start.type}) and step ({step.type}) must have one type"
            )
        return tensor(size, start.type)
