"""`relay.constant`: a constant tensor, from a `dense_resource` blob or inline.

Weights and other constants enter the graph through this one op; its result
type is the type of its value, and it prints as just the value
(`relay.constant dense_resource<w> : tensor<4x8xf32>`). It is `ConstantLike`, so
constant folding and the xDSL canonicalizer treat it as a constant.
`make_constant` builds the smallest form for an array (a splat, inline up to
`INLINE_LIMIT` values, else a blob); `value_data` reads the constant behind an SSA
value (`lamina.dialects.constants.constant_data` reads any constant op).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    FloatAttr,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, OpResult, SSAValue
from xdsl.irdl import irdl_op_definition, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException

from lamina.dialects.constants import constant_data
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.relay.base import (
    AttrField,
    DimsField,
    OpAttrs,
    OpPattern,
    RelayOp,
    tensor,
)
from lamina.dialects.resources import blobs
from lamina.runtime.model import aligned

#: Constants with at most this many elements (not all equal) are printed inline.
INLINE_LIMIT = 16


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


def value_data(value: SSAValue) -> np.ndarray | None:
    """The data of `value` when a readable `relay.constant` defines it."""
    if isinstance(value, OpResult) and isinstance(value.op, ConstantOp):
        return constant_data(value.op)
    return None


def make_constant(array: np.ndarray, t: TensorType, name: str = "folded") -> ConstantOp:
    """A `relay.constant` of type `t` holding `array`: splat, inline or blob."""
    dtype = numpy_dtype(t.get_element_type())
    # aligned as compiled code reads weights, so the model's table takes it as it is
    data = aligned(np.asarray(array), dtype)
    shape = tuple(t.get_shape())
    if data.shape != shape:
        if data.size == int(np.prod(shape, dtype=np.int64)):
            data = data.reshape(shape)  # e.g. one element for a rank-0 type
        else:
            data = aligned(np.broadcast_to(data, shape), dtype)
    flat = data.reshape(-1)
    is_float = isinstance(t.get_element_type(), AnyFloat)
    convert = float if is_float else int
    if flat.size and np.all(flat[:64] == flat[0]) and np.all(flat == flat[0]) and not (
        is_float and np.isnan(flat[0])
    ):
        return ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [convert(flat[0])]))
    if 0 < flat.size <= INLINE_LIMIT and not (is_float and np.isnan(flat).any()):
        return ConstantOp(
            DenseIntOrFPElementsAttr.from_list(t, [convert(v) for v in flat])
        )
    key = blobs.add(name, data)
    return ConstantOp(DenseResourceAttr.from_params(key, t))


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
