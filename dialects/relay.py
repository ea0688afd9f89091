"""The `relay` dialect: TVM Relay's graph level as xDSL ops over tensors.

Every op infers its result type from its operands and attributes, so builders and
the parser never need redundant types; the verifier re-infers and says exactly what
disagrees. Every op carries its op-pattern kind (TVM's `TOpPattern`) as class data,
which fusion and the pattern language read.

Custom form (the generic form always works too):

```mlir
%w = relay.constant dense_resource<fc1_w> : tensor<512x784xf32>
%0 = relay.dense %x, %w {transpose_b} : (tensor<1x784xf32>, tensor<512x784xf32>) -> tensor<1x512xf32>
%1 = relay.relu %0 : tensor<1x512xf32>
```

After `:` either a function type `(operands) -> result` or, when every operand and
the result share one type, just that type. The `-> result` part may be omitted when
parsing; the result type is then inferred.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from enum import IntEnum
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    OptionalDef,
    VariadicDef,
    VerificationContext,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException


class OpPattern(IntEnum):
    """TVM's op-pattern kinds, ordered as fusion compares them."""

    ELEMWISE = 0
    BROADCAST = 1
    INJECTIVE = 2
    COMM_REDUCE = 3
    OUT_ELEMWISE_FUSABLE = 4
    TUPLE = 7
    OPAQUE = 8

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", "-")


# ---------------------------------------------------------------------- helpers
def tensor(shape: Sequence[int], element_type: Attribute) -> TensorType:
    return TensorType(element_type, list(shape))


def shape_of(t: Attribute) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def broadcast_shapes(op_name: str, *shapes: Sequence[int]) -> tuple[int, ...]:
    """numpy's broadcasting rule, with an error that names the clashing dimension."""
    rank = max(len(s) for s in shapes)
    out: list[int] = []
    for axis in range(rank):
        dims = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0}
        dims.discard(1)
        if len(dims) > 1:
            listed = " and ".join("x".join(map(str, s)) or "scalar" for s in shapes)
            raise VerifyException(
                f"{op_name}: shapes {listed} do not broadcast (dimension {axis} of "
                f"the result would be one of {sorted(dims)})"
            )
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def normalize_axis(op_name: str, axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1):
        raise VerifyException(
            f"{op_name}: axis {axis} is out of range for a rank-{rank} tensor "
            f"(expected {-rank} <= axis < {rank})"
        )
    return axis % rank if rank else 0


PropSource = Operation | dict[str, Attribute]


def _props(src: PropSource) -> dict[str, Attribute]:
    return dict(src.properties) if isinstance(src, Operation) else src


def int_prop(src: PropSource, name: str, default: int) -> int:
    """An integer property of an op (or of a property dict), or `default`."""
    attr = _props(src).get(name)
    return attr.value.data if isinstance(attr, IntegerAttr) else default


def float_prop(src: PropSource, name: str, default: float) -> float:
    attr = _props(src).get(name)
    return attr.value.data if isinstance(attr, FloatAttr) else default


def ints_prop(src: PropSource, name: str) -> tuple[int, ...]:
    attr = _props(src).get(name)
    return tuple(int(v) for v in attr.get_values()) if isinstance(attr, DenseArrayBase) else ()


def floats_prop(src: PropSource, name: str) -> tuple[float, ...]:
    attr = _props(src).get(name)
    return tuple(float(v) for v in attr.get_values()) if isinstance(attr, DenseArrayBase) else ()


def str_prop(src: PropSource, name: str, default: str) -> str:
    attr = _props(src).get(name)
    return attr.data if isinstance(attr, StringAttr) else default


def flag_prop(src: PropSource, name: str) -> bool:
    return name in _props(src)


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def is_bool(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def is_int(t: Attribute) -> bool:
    """An integer element type other than bool (i1)."""
    return isinstance(t, IntegerType) and t.width.data > 1


def require_element(
    op_name: str,
    t: TensorType,
    *,
    floating: bool = False,
    integer: bool = False,
    boolean: bool = False,
) -> None:
    """Check that the element type of `t` is one of the allowed kinds."""
    elem = t.get_element_type()
    if (
        (floating and is_float(elem))
        or (integer and is_int(elem))
        or (boolean and is_bool(elem))
    ):
        return
    kinds = [
        k
        for k, ok in (
            ("floating-point", floating),
            ("integer", integer),
            ("boolean (i1)", boolean),
        )
        if ok
    ]
    raise VerifyException(f"{op_name}: needs a {' or '.join(kinds)} tensor, got {t}")


def _tensor_operands(op_name: str, types: Sequence[Attribute]) -> list[TensorType]:
    out: list[TensorType] = []
    for i, t in enumerate(types):
        if not isinstance(t, TensorType):
            raise VerifyException(f"{op_name}: operand #{i} must be a tensor, got {t}")
        if any(d < 0 for d in t.get_shape()):
            raise VerifyException(
                f"{op_name}: operand #{i} has a dynamic shape {t}; lamina needs static "
                "shapes (give input_shapes= when importing)"
            )
        out.append(t)
    return out


def _same_element_type(op_name: str, types: Sequence[TensorType]) -> Attribute:
    elems = {t.get_element_type() for t in types}
    if len(elems) > 1:
        raise VerifyException(
            f"{op_name}: operands must share an element type, got "
            + ", ".join(str(t.get_element_type()) for t in types)
        )
    return types[0].get_element_type()


# ------------------------------------------------------------------------- base
class RelayOp(IRDLOperation):
    """Base of relay's graph ops: tensor results inferred from the operands and
    properties. Most ops have one result; an op whose `infer` returns a list (e.g.
    `relay.split`) has one result per entry."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    def __init__(
        self,
        *operands: SSAValue | Operation | None,
        result_type: Attribute | None = None,
        result_types: Sequence[Attribute] | None = None,
        **props: Attribute | None,
    ):
        flat = [SSAValue.get(o) for o in operands if o is not None]
        properties = {k: v for k, v in props.items() if v is not None}
        if result_types is None:
            result_types = (
                [result_type]
                if result_type is not None
                else self.infer_types([o.type for o in flat], properties)
            )
        super().__init__(
            operands=self._group(flat),
            result_types=self._group_results(list(result_types)),
            properties=properties,
        )

    # --- to be provided by each op --------------------------------------
    @classmethod
    def infer(
        cls, types: list[TensorType], props: dict[str, Attribute]
    ) -> TensorType | list[TensorType]:
        """The result type (or, for multi-result ops, the list of result types)
        for operands of `types` and properties `props`; raise VerifyException with
        a message naming the op when they are invalid."""
        raise NotImplementedError

    # --- shared machinery -----------------------------------------------
    @classmethod
    def infer_types(
        cls, types: Sequence[Attribute], props: dict[str, Attribute]
    ) -> list[TensorType]:
        """Every result type, as a list."""
        inferred = cls.infer(_tensor_operands(cls.name, types), props)
        return list(inferred) if isinstance(inferred, list | tuple) else [inferred]

    @classmethod
    def infer_type(
        cls, types: Sequence[Attribute], props: dict[str, Attribute]
    ) -> TensorType:
        """The result type of a single-result op."""
        (t,) = cls.infer_types(types, props)
        return t

    @classmethod
    def _group(cls, flat: list[SSAValue]) -> list[SSAValue | list[SSAValue]]:
        defs = cls.get_irdl_definition().operands
        groups: list[SSAValue | list[SSAValue]] = []
        rest = list(flat)
        required = sum(
            1 for _, d in defs if not isinstance(d, OptionalDef | VariadicDef)
        )
        for _, d in defs:
            if isinstance(d, OptionalDef):
                groups.append([rest.pop(0)] if len(rest) > required else [])
            elif isinstance(d, VariadicDef):
                take = len(rest) - required
                groups.append(rest[:take])
                rest = rest[take:]
            else:
                if not rest:
                    raise VerifyException(
                        f"{cls.name} needs {required} operands, got {len(flat)}"
                    )
                groups.append(rest.pop(0))
                required -= 1
        if rest:
            raise VerifyException(f"{cls.name}: too many operands ({len(flat)})")
        return groups

    @classmethod
    def _group_results(
        cls, types: list[Attribute]
    ) -> list[Attribute | list[Attribute]]:
        defs = cls.get_irdl_definition().results
        if len(defs) == 1 and isinstance(defs[0][1], VariadicDef):
            return [types]
        if len(types) != len(defs):
            raise VerifyException(
                f"{cls.name} has {len(defs)} result(s), got {len(types)} type(s)"
            )
        return list(types)

    @property
    def result(self) -> SSAValue:
        return self.results[0]

    def verify_(self) -> None:
        expected = self.infer_types(self.operand_types, dict(self.properties))
        got = list(self.result_types)
        if got != expected:
            def show(ts: Sequence[Attribute]) -> str:
                return str(ts[0]) if len(ts) == 1 else f"({', '.join(map(str, ts))})"

            raise VerifyException(
                f"{self.name}: result type {show(got)} does not match the "
                f"inferred type {show(expected)}"
            )

    @classmethod
    def check_signature(cls, num_operands: int, props: dict[str, Attribute]) -> None:
        """Operand count and properties as the op's definition wants them, checked
        before `infer` (which assumes both)."""
        cls._group([None] * num_operands)  # type: ignore[list-item]
        for name, pdef in cls.get_irdl_definition().properties.items():
            if name not in props:
                if not isinstance(pdef, OptionalDef):
                    raise VerifyException(f"{cls.name}: property '{name}' is required")
                continue
            try:
                pdef.constr.verify(props[name], VerificationContext())
            except VerifyException as e:
                raise VerifyException(
                    f"{cls.name}: property '{name}' = {props[name]} is invalid: {e}"
                ) from None

    @classmethod
    def parse(cls, parser: Parser) -> RelayOp:
        start = parser.pos
        unresolved = parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
        ) or []
        attrs = parser.parse_optional_attr_dict()
        end = parser.pos
        parser.parse_punctuation(":")
        result_types = None
        if parser.parse_optional_punctuation("(") is not None:
            types = []
            if parser.parse_optional_punctuation(")") is None:
                types = parser.parse_comma_separated_list(
                    Parser.Delimiter.NONE, parser.parse_type
                )
                parser.parse_punctuation(")")
            if parser.parse_optional_punctuation("->") is not None:
                if parser.parse_optional_punctuation("(") is not None:
                    result_types = parser.parse_comma_separated_list(
                        Parser.Delimiter.NONE, parser.parse_type
                    )
                    parser.parse_punctuation(")")
                else:
                    result_types = [parser.parse_type()]
        else:
            single = parser.parse_type()
            types = [single] * len(unresolved)
            result_types = [single]
        if len(types) != len(unresolved):
            parser.raise_error(
                f"{cls.name}: {len(unresolved)} operands but {len(types)} types",
                start,
                end,
            )
        operands = [
            parser.resolve_operand(u, t) for u, t in zip(unresolved, types, strict=True)
        ]
        prop_names = cls.get_irdl_definition().properties
        props = {k: v for k, v in attrs.items() if k in prop_names}
        other = {k: v for k, v in attrs.items() if k not in prop_names}
        try:
            cls.check_signature(len(operands), props)
            inferred = cls.infer_types(types, props)
        except VerifyException as e:
            parser.raise_error(str(e), start, end)
        if result_types is not None and list(result_types) != inferred:
            shown = ", ".join(map(str, result_types))
            want = ", ".join(map(str, inferred))
            parser.raise_error(
                f"{cls.name}: result type {shown} does not match the inferred "
                f"type {want}",
                start,
                end,
            )
        op = cls(*operands, result_types=inferred, **props)
        op.attributes |= other
        return op

    def print(self, printer: Printer) -> None:
        if self.operands:
            printer.print_string(" ")
            printer.print_list(self.operands, printer.print_operand)
        printer.print_op_attributes({**self.properties, **self.attributes})
        printer.print_string(" : ")
        results = list(self.result_types)
        types = [*self.operand_types, *results]
        if self.operands and len(results) == 1 and len(set(types)) == 1:
            printer.print_attribute(types[0])
            return
        printer.print_string("(")
        printer.print_list(self.operand_types, printer.print_attribute)
        printer.print_string(") -> ")
        if len(results) == 1:
            printer.print_attribute(results[0])
            return
        printer.print_string("(")
        printer.print_list(results, printer.print_attribute)
        printer.print_string(")")


# -------------------------------------------------------------------- constants
@irdl_op_definition
class ConstantOp(RelayOp):
    """A constant tensor: a `dense_resource` blob (weights) or an inline `dense`."""

    name = "relay.constant"
    value = prop_def(DenseResourceAttr | DenseIntOrFPElementsAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    def __init__(self, value: DenseResourceAttr | DenseIntOrFPElementsAttr):
        super().__init__(result_type=value.get_type(), value=value)

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        value = props["value"]
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


# ------------------------------------------------------------------ elementwise
class BinaryOp(RelayOp):
    """Elementwise binary arithmetic with numpy broadcasting."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    COMMUTATIVE: ClassVar[bool] = False

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        return tensor(broadcast_shapes(cls.name, *(shape_of(t) for t in types)), elem)


@irdl_op_definition
class AddOp(BinaryOp):
    name = "relay.add"
    COMMUTATIVE: ClassVar[bool] = True


@irdl_op_definition
class SubtractOp(BinaryOp):
    name = "relay.subtract"


@irdl_op_definition
class MultiplyOp(BinaryOp):
    name = "relay.multiply"
    COMMUTATIVE: ClassVar[bool] = True


@irdl_op_definition
class DivideOp(BinaryOp):
    """Division: true division for floats, truncating toward zero for integers
    (ONNX's Div)."""

    name = "relay.divide"


@irdl_op_definition
class PowerOp(BinaryOp):
    """`lhs ** rhs` (numpy's `power`; integers are raised exactly up to 2**53)."""

    name = "relay.power"


@irdl_op_definition
class MaximumOp(BinaryOp):
    """Elementwise maximum; NaN if either operand is NaN (numpy's `maximum`)."""

    name = "relay.maximum"
    COMMUTATIVE: ClassVar[bool] = True


@irdl_op_definition
class MinimumOp(BinaryOp):
    """Elementwise minimum; NaN if either operand is NaN (numpy's `minimum`)."""

    name = "relay.minimum"
    COMMUTATIVE: ClassVar[bool] = True


class ModOp(BinaryOp):
    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        out = super().infer(types, props)
        require_element(cls.name, types[0], floating=True, integer=True)
        return out


@irdl_op_definition
class FloorModOp(ModOp):
    """Remainder with the sign of the divisor (ONNX Mod with fmod=0, numpy's
    `mod`); `x mod 0` is 0 for integers, NaN for floats."""

    name = "relay.floor_mod"


@irdl_op_definition
class TruncModOp(ModOp):
    """Remainder with the sign of the dividend (ONNX Mod with fmod=1, C's
    `fmod`); `x mod 0` is 0 for integers, NaN for floats."""

    name = "relay.trunc_mod"


class LogicalBinaryOp(BinaryOp):
    """Boolean (i1) and/or/xor with broadcasting."""

    COMMUTATIVE: ClassVar[bool] = True

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        out = super().infer(types, props)
        require_element(cls.name, types[0], boolean=True)
        return out


@irdl_op_definition
class LogicalAndOp(LogicalBinaryOp):
    name = "relay.logical_and"


@irdl_op_definition
class LogicalOrOp(LogicalBinaryOp):
    name = "relay.logical_or"


@irdl_op_definition
class LogicalXorOp(LogicalBinaryOp):
    name = "relay.logical_xor"


class BitwiseBinaryOp(BinaryOp):
    """Integer bitwise and/or/xor and shifts with broadcasting. Shifting by the
    bit width or more gives 0 (or -1 for a right shift of a negative value), as
    in numpy."""

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        out = super().infer(types, props)
        require_element(cls.name, types[0], integer=True)
        return out


@irdl_op_definition
class BitwiseAndOp(BitwiseBinaryOp):
    name = "relay.bitwise_and"
    COMMUTATIVE: ClassVar[bool] = True


@irdl_op_definition
class BitwiseOrOp(BitwiseBinaryOp):
    name = "relay.bitwise_or"
    COMMUTATIVE: ClassVar[bool] = True


@irdl_op_definition
class BitwiseXorOp(BitwiseBinaryOp):
    name = "relay.bitwise_xor"
    COMMUTATIVE: ClassVar[bool] = True


@irdl_op_definition
class LeftShiftOp(BitwiseBinaryOp):
    name = "relay.left_shift"


@irdl_op_definition
class RightShiftOp(BitwiseBinaryOp):
    """Logical for unsigned integers, arithmetic for signed ones."""

    name = "relay.right_shift"


class CompareOp(BinaryOp):
    """Elementwise comparison with broadcasting; the result is boolean (i1).
    Float comparisons are ordered (false on NaN) except `not_equal` (true on NaN),
    as in numpy."""

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        out = super().infer(types, props)
        return tensor(shape_of(out), IntegerType(1))


@irdl_op_definition
class EqualOp(CompareOp):
    name = "relay.equal"
    COMMUTATIVE: ClassVar[bool] = True


@irdl_op_definition
class NotEqualOp(CompareOp):
    name = "relay.not_equal"
    COMMUTATIVE: ClassVar[bool] = True


@irdl_op_definition
class LessOp(CompareOp):
    name = "relay.less"


@irdl_op_definition
class LessEqualOp(CompareOp):
    name = "relay.less_equal"


@irdl_op_definition
class GreaterOp(CompareOp):
    name = "relay.greater"


@irdl_op_definition
class GreaterEqualOp(CompareOp):
    name = "relay.greater_equal"


@irdl_op_definition
class PReluOp(BinaryOp):
    """`data < 0 ? alpha * data : data` with `alpha` broadcast to `data`'s shape
    (ONNX PRelu; TVM's `nn.prelu` is the per-channel case)."""

    name = "relay.prelu"

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        out = super().infer(types, props)
        require_element(cls.name, types[0], floating=True, integer=True)
        if shape_of(out) != shape_of(types[0]):
            raise VerifyException(
                f"{cls.name}: alpha of shape {list(shape_of(types[1]))} must broadcast "
                f"to the data's shape {list(shape_of(types[0]))}"
            )
        return types[0]


@irdl_op_definition
class WhereOp(RelayOp):
    """`condition ? lhs : rhs` elementwise, the three operands broadcast together."""

    name = "relay.where"
    condition = operand_def(TensorType)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        require_element(cls.name, types[0], boolean=True)
        elem = _same_element_type(cls.name, types[1:])
        return tensor(broadcast_shapes(cls.name, *(shape_of(t) for t in types)), elem)


class UnaryOp(RelayOp):
    """Elementwise unary op: the result has the operand's type."""

    data = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE
    #: The element kinds the op accepts (keywords of `require_element`).
    ELEMENTS: ClassVar[dict[str, bool]] = {
        "floating": True,
        "integer": True,
        "boolean": True,
    }

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        require_element(cls.name, types[0], **cls.ELEMENTS)
        return types[0]


_NUMERIC: dict[str, bool] = {"floating": True, "integer": True}
_FLOATING: dict[str, bool] = {"floating": True}


@irdl_op_definition
class ReluOp(UnaryOp):
    name = "relay.relu"


@irdl_op_definition
class NegativeOp(UnaryOp):
    name = "relay.negative"
    ELEMENTS: ClassVar[dict[str, bool]] = _NUMERIC


@irdl_op_definition
class AbsOp(UnaryOp):
    name = "relay.abs"
    ELEMENTS: ClassVar[dict[str, bool]] = _NUMERIC


@irdl_op_definition
class SignOp(UnaryOp):
    """-1, 0 or 1 (NaN stays NaN)."""

    name = "relay.sign"
    ELEMENTS: ClassVar[dict[str, bool]] = _NUMERIC


@irdl_op_definition
class LogicalNotOp(UnaryOp):
    name = "relay.logical_not"
    ELEMENTS: ClassVar[dict[str, bool]] = {"boolean": True}


@irdl_op_definition
class BitwiseNotOp(UnaryOp):
    name = "relay.bitwise_not"
    ELEMENTS: ClassVar[dict[str, bool]] = {"integer": True}


class FloatUnaryOp(UnaryOp):
    """Elementwise math on floating-point tensors."""

    ELEMENTS: ClassVar[dict[str, bool]] = _FLOATING


@irdl_op_definition
class ExpOp(FloatUnaryOp):
    name = "relay.exp"


@irdl_op_definition
class LogOp(FloatUnaryOp):
    name = "relay.log"


@irdl_op_definition
class SqrtOp(FloatUnaryOp):
    name = "relay.sqrt"


@irdl_op_definition
class RsqrtOp(FloatUnaryOp):
    name = "relay.rsqrt"


@irdl_op_definition
class ReciprocalOp(FloatUnaryOp):
    name = "relay.reciprocal"


@irdl_op_definition
class FloorOp(FloatUnaryOp):
    name = "relay.floor"


@irdl_op_definition
class CeilOp(FloatUnaryOp):
    name = "relay.ceil"


@irdl_op_definition
class RoundOp(FloatUnaryOp):
    """Round half to even (ONNX Round, numpy's `round`)."""

    name = "relay.round"


@irdl_op_definition
class SinOp(FloatUnaryOp):
    name = "relay.sin"


@irdl_op_definition
class CosOp(FloatUnaryOp):
    name = "relay.cos"


@irdl_op_definition
class TanOp(FloatUnaryOp):
    name = "relay.tan"


@irdl_op_definition
class TanhOp(FloatUnaryOp):
    name = "relay.tanh"


@irdl_op_definition
class ErfOp(FloatUnaryOp):
    name = "relay.erf"


@irdl_op_definition
class AsinOp(FloatUnaryOp):
    name = "relay.asin"


@irdl_op_definition
class AcosOp(FloatUnaryOp):
    name = "relay.acos"


@irdl_op_definition
class AtanOp(FloatUnaryOp):
    name = "relay.atan"


@irdl_op_definition
class SinhOp(FloatUnaryOp):
    name = "relay.sinh"


@irdl_op_definition
class CoshOp(FloatUnaryOp):
    name = "relay.cosh"


@irdl_op_definition
class AsinhOp(FloatUnaryOp):
    name = "relay.asinh"


@irdl_op_definition
class AcoshOp(FloatUnaryOp):
    name = "relay.acosh"


@irdl_op_definition
class AtanhOp(FloatUnaryOp):
    name = "relay.atanh"


@irdl_op_definition
class SigmoidOp(FloatUnaryOp):
    name = "relay.sigmoid"


@irdl_op_definition
class SoftplusOp(FloatUnaryOp):
    """`log(1 + exp(x))`, computed without overflow."""

    name = "relay.softplus"


@irdl_op_definition
class SoftsignOp(FloatUnaryOp):
    """`x / (1 + |x|)`."""

    name = "relay.softsign"


@irdl_op_definition
class HardSwishOp(FloatUnaryOp):
    """`x * clip(x / 6 + 1/2, 0, 1)`."""

    name = "relay.hard_swish"


@irdl_op_definition
class LeakyReluOp(FloatUnaryOp):
    """`x < 0 ? alpha * x : x` (alpha defaults to 0.01)."""

    name = "relay.leaky_relu"
    alpha = opt_prop_def(FloatAttr)


@irdl_op_definition
class EluOp(FloatUnaryOp):
    """`x < 0 ? alpha * (exp(x) - 1) : x` (alpha defaults to 1)."""

    name = "relay.elu"
    alpha = opt_prop_def(FloatAttr)


@irdl_op_definition
class SeluOp(FloatUnaryOp):
    """`gamma * (x <= 0 ? alpha * (exp(x) - 1) : x)` (ONNX's defaults)."""

    name = "relay.selu"
    alpha = opt_prop_def(FloatAttr)
    gamma = opt_prop_def(FloatAttr)


@irdl_op_definition
class HardSigmoidOp(FloatUnaryOp):
    """`clip(alpha * x + beta, 0, 1)` (alpha 0.2, beta 0.5 by default)."""

    name = "relay.hard_sigmoid"
    alpha = opt_prop_def(FloatAttr)
    beta = opt_prop_def(FloatAttr)


@irdl_op_definition
class GeluOp(FloatUnaryOp):
    """`x * Phi(x)`; `approximate = "tanh"` uses the tanh formula."""

    name = "relay.gelu"
    approximate = opt_prop_def(StringAttr)

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        mode = str_prop(props, "approximate", "none")
        if mode not in ("none", "tanh"):
            raise VerifyException(
                f'{cls.name}: approximate must be "none" or "tanh", got "{mode}"'
            )
        return super().infer(types, props)


@irdl_op_definition
class ClipOp(UnaryOp):
    """`min(max(x, a_min), a_max)`; a missing bound is no bound. NaN stays NaN."""

    name = "relay.clip"
    a_min = opt_prop_def(FloatAttr)
    a_max = opt_prop_def(FloatAttr)
    ELEMENTS: ClassVar[dict[str, bool]] = _NUMERIC


@irdl_op_definition
class CastOp(RelayOp):
    """Convert every element to `dtype` (numpy's `astype`: floats to integers
    truncate toward zero, anything to bool is `!= 0`)."""

    name = "relay.cast"
    data = operand_def(TensorType)
    dtype = prop_def(TypeAttribute)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        dtype = props["dtype"]
        if not (is_float(dtype) or isinstance(dtype, IntegerType)):
            raise VerifyException(
                f"{cls.name}: dtype must be an integer or floating-point type, got {dtype}"
            )
        return tensor(shape_of(types[0]), dtype)


# --------------------------------------------------------------------- products
@irdl_op_definition
class MatmulOp(RelayOp):
    """numpy's matmul: batched, broadcast over leading dims, 1-D operands promoted."""

    name = "relay.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        a, b = (shape_of(t) for t in types)
        if not a or not b:
            raise VerifyException("relay.matmul: operands must have rank >= 1")
        a2 = (1, *a) if len(a) == 1 else a
        b2 = (*b, 1) if len(b) == 1 else b
        if a2[-1] != b2[-2]:
            raise VerifyException(
                f"relay.matmul: contraction dimensions differ: lhs has {a2[-1]} "
                f"columns, rhs has {b2[-2]} rows"
            )
        batch = broadcast_shapes(cls.name, a2[:-2], b2[:-2])
        out = [*batch, a2[-2], b2[-1]]
        if len(a) == 1:
            out.pop(-2)
        if len(b) == 1:
            out.pop(-1)
        return tensor(out, elem)


@irdl_op_definition
class DenseOp(RelayOp):
    """ONNX Gemm: `alpha * op(a) @ op(b) + beta * bias` over 2-D operands, with
    `op` a transpose when `transpose_a`/`transpose_b` is set. TVM's `nn.dense` is
    the `transpose_b` case."""

    name = "relay.dense"
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    transpose_a = opt_prop_def(UnitAttr)
    transpose_b = opt_prop_def(UnitAttr)
    alpha = opt_prop_def(FloatAttr)
    beta = opt_prop_def(FloatAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        a, b = shape_of(types[0]), shape_of(types[1])
        if len(a) != 2 or len(b) != 2:
            raise VerifyException(
                f"relay.dense: operands must be 2-D, got ranks {len(a)} and {len(b)}"
            )
        m, k = (a[1], a[0]) if "transpose_a" in props else a
        k2, n = (b[1], b[0]) if "transpose_b" in props else b
        if k != k2:
            raise VerifyException(
                f"relay.dense: contraction dimensions differ: op(a) is {m}x{k}, "
                f"op(b) is {k2}x{n}"
            )
        if len(types) == 3:
            bias = shape_of(types[2])
            if broadcast_shapes(cls.name, bias, (m, n)) != (m, n):
                raise VerifyException(
                    f"relay.dense: bias of shape {'x'.join(map(str, bias))} does not "
                    f"broadcast to {m}x{n}"
                )
        return tensor((m, n), elem)


# -------------------------------------------------------------------- reductions
def reduce_axes(op_name: str, props: PropSource, rank: int) -> list[int]:
    """The sorted, normalized `axes` of a reduction (every axis when absent)."""
    p = _props(props)
    if "axes" not in p:
        return list(range(rank))
    axes = sorted({normalize_axis(op_name, a, rank) for a in ints_prop(p, "axes")})
    if len(axes) != len(ints_prop(p, "axes")):
        raise VerifyException(
            f"{op_name}: axes {list(ints_prop(p, 'axes'))} name an axis twice"
        )
    return axes


class ReduceOp(RelayOp):
    """Reduce over `axes` (all axes when absent, none when empty), keeping them as
    size-1 dimensions with `keepdims`."""

    data = operand_def(TensorType)
    axes = opt_prop_def(DenseArrayBase)
    keepdims = opt_prop_def(UnitAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.COMM_REDUCE
    ELEMENTS: ClassVar[dict[str, bool]] = _NUMERIC

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        require_element(cls.name, types[0], **cls.ELEMENTS)
        shape = shape_of(types[0])
        axes = reduce_axes(cls.name, props, len(shape))
        keep = "keepdims" in props
        out = [1 if i in axes else d for i, d in enumerate(shape) if keep or i not in axes]
        return tensor(out, types[0].get_element_type())


@irdl_op_definition
class SumOp(ReduceOp):
    name = "relay.sum"


@irdl_op_definition
class MeanOp(ReduceOp):
    """Arithmetic mean (integers: the sum divided with truncation)."""

    name = "relay.mean"


@irdl_op_definition
class MaxOp(ReduceOp):
    name = "relay.max"


@irdl_op_definition
class MinOp(ReduceOp):
    name = "relay.min"


@irdl_op_definition
class ProdOp(ReduceOp):
    name = "relay.prod"


@irdl_op_definition
class LogSumExpOp(ReduceOp):
    """`log(sum(exp(x)))`, shifted by the maximum to avoid overflow."""

    name = "relay.logsumexp"
    ELEMENTS: ClassVar[dict[str, bool]] = _FLOATING


class ArgReduceOp(RelayOp):
    """Index (i64) of the extreme value along `axis`: the first one, or the last
    with `select_last_index`. NaN counts as the extreme, as in numpy."""

    data = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    keepdims = opt_prop_def(UnitAttr)
    select_last_index = opt_prop_def(UnitAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.COMM_REDUCE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        require_element(cls.name, types[0], **_NUMERIC)
        shape = shape_of(types[0])
        axis = normalize_axis(cls.name, int_prop(props, "axis", 0), len(shape))
        if shape and shape[axis] == 0:
            raise VerifyException(f"{cls.name}: cannot reduce the empty axis {axis}")
        keep = "keepdims" in props
        out = [1 if i == axis else d for i, d in enumerate(shape) if keep or i != axis]
        return tensor(out, i64)


@irdl_op_definition
class ArgMaxOp(ArgReduceOp):
    name = "relay.argmax"


@irdl_op_definition
class ArgMinOp(ArgReduceOp):
    name = "relay.argmin"


# ------------------------------------------------------------------------ nn ops
class SoftmaxBase(RelayOp):
    data = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        require_element(cls.name, types[0], floating=True)
        normalize_axis(cls.name, int_prop(props, "axis", -1), len(shape_of(types[0])))
        return types[0]


@irdl_op_definition
class SoftmaxOp(SoftmaxBase):
    """softmax along one axis (ONNX opset >= 13 semantics)."""

    name = "relay.softmax"


@irdl_op_definition
class LogSoftmaxOp(SoftmaxBase):
    """log(softmax) along one axis, computed as `x - max - log(sum(exp(x - max)))`."""

    name = "relay.log_softmax"


def _spatial(
    op_name: str, props: dict[str, Attribute], name: str, n: int, default: int
) -> tuple[int, ...]:
    """A per-spatial-axis property of `n` values (`default` for each if absent)."""
    if name not in props:
        return (default,) * n
    values = ints_prop(props, name)
    if len(values) != n:
        raise VerifyException(
            f"{op_name}: {name} needs {n} values (one per spatial axis), got "
            f"{list(values)}"
        )
    return values


class Window:
    """The sliding-window geometry of a convolution or pooling over `n` spatial
    axes: strides, dilation and padding (`[begin..., end...]`, as in ONNX)."""

    def __init__(
        self, op_name: str, props: PropSource, n: int, negative_padding: bool = False
    ):
        p = _props(props)
        self.strides = _spatial(op_name, p, "strides", n, 1)
        self.dilation = _spatial(op_name, p, "dilation", n, 1)
        pad = _spatial(op_name, p, "padding", 2 * n, 0)
        self.pad_begin, self.pad_end = pad[:n], pad[n:]
        if any(v < 1 for v in self.strides + self.dilation):
            raise VerifyException(
                f"{op_name}: strides {list(self.strides)} and dilation "
                f"{list(self.dilation)} must be positive"
            )
        if not negative_padding and any(v < 0 for v in pad):
            raise VerifyException(f"{op_name}: padding {list(pad)} must be non-negative")

    def output_size(
        self, op_name: str, axis: int, size: int, kernel: int, ceil_mode: bool = False
    ) -> int:
        span = (kernel - 1) * self.dilation[axis] + 1
        padded = size + self.pad_begin[axis] + self.pad_end[axis]
        if padded < span:
            raise VerifyException(
                f"{op_name}: the window (extent {span}) is larger than the padded "
                f"input (extent {padded}) along spatial axis {axis}"
            )
        stride = self.strides[axis]
        out = (padded - span + (stride - 1 if ceil_mode else 0)) // stride + 1
        # The last window must start inside the input or its begin padding.
        if ceil_mode and (out - 1) * stride >= size + self.pad_begin[axis]:
            out -= 1
        return out


def _nchw(op_name: str, t: TensorType, spatial: int) -> tuple[int, ...]:
    shape = shape_of(t)
    if len(shape) != spatial + 2:
        raise VerifyException(
            f"{op_name}: data must be {spatial + 2}-D (batch, channels and {spatial} "
            f"spatial axes), got {t}"
        )
    return shape


class ConvOp(RelayOp):
    """N-d convolution (NC... layout, weight O x C/groups x kernel...), with
    strides, dilation, padding and groups (depthwise when groups = channels)."""

    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    strides = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    groups = opt_prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    SPATIAL: ClassVar[int] = 2

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        require_element(cls.name, types[0], floating=True)
        n = cls.SPATIAL
        x = _nchw(cls.name, types[0], n)
        w = shape_of(types[1])
        groups = int_prop(props, "groups", 1)
        if len(w) != n + 2:
            raise VerifyException(
                f"{cls.name}: weight must be {n + 2}-D (out channels, in channels / "
                f"groups, kernel...), got {types[1]}"
            )
        if groups < 1 or x[1] % groups or w[0] % groups or w[1] * groups != x[1]:
            raise VerifyException(
                f"{cls.name}: {x[1]} input channels in {groups} group(s) need a weight "
                f"with {x[1] // max(groups, 1)} input channels and a multiple of "
                f"{groups} output channels, got weight {types[1]}"
            )
        win = Window(cls.name, props, n)
        out = [win.output_size(cls.name, i, x[2 + i], w[2 + i]) for i in range(n)]
        return tensor([x[0], w[0], *out], elem)


@irdl_op_definition
class Conv1DOp(ConvOp):
    name = "relay.conv1d"
    SPATIAL: ClassVar[int] = 1


@irdl_op_definition
class Conv2DOp(ConvOp):
    name = "relay.conv2d"
    SPATIAL: ClassVar[int] = 2


@irdl_op_definition
class Conv3DOp(ConvOp):
    name = "relay.conv3d"
    SPATIAL: ClassVar[int] = 3


@irdl_op_definition
class Im2ColOp(RelayOp):
    """The patches of a 2-D convolution's input as columns: `out[n, (c, kh, kw),
    oh, ow] = x[n, c, oh * s + kh * d - p, ...]` (zero outside). A convolution is
    then a 1x1 convolution (a GEMM) of its reshaped weight with this
    (`alter-op-layout`). Opaque to fusion: it is materialized once."""

    name = "relay.im2col"
    data = operand_def(TensorType)
    kernel_size = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        x = _nchw(cls.name, types[0], 2)
        kernel = _spatial(cls.name, props, "kernel_size", 2, 1)
        if any(k < 1 for k in kernel):
            raise VerifyException(f"{cls.name}: kernel_size {list(kernel)} must be positive")
        win = Window(cls.name, props, 2)
        out = [win.output_size(cls.name, i, x[2 + i], kernel[i]) for i in range(2)]
        return tensor([x[0], x[1] * kernel[0] * kernel[1], *out], types[0].get_element_type())


class ConvTransposeOp(RelayOp):
    """N-d transposed convolution (weight C x O/groups x kernel...): output size
    `stride * (in - 1) + output_padding + dilation * (kernel - 1) + 1 - padding`
    (negative padding grows the output, as ONNX's output_shape may ask)."""

    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    strides = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    output_padding = opt_prop_def(DenseArrayBase)
    groups = opt_prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    SPATIAL: ClassVar[int] = 2

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        elem = _same_element_type(cls.name, types)
        require_element(cls.name, types[0], floating=True)
        n = cls.SPATIAL
        x = _nchw(cls.name, types[0], n)
        w = shape_of(types[1])
        groups = int_prop(props, "groups", 1)
        if len(w) != n + 2 or groups < 1 or w[0] != x[1] or x[1] % groups:
            raise VerifyException(
                f"{cls.name}: weight must be {n + 2}-D with {x[1]} input channels "
                f"(divisible by {groups} group(s)) first, got {types[1]}"
            )
        win = Window(cls.name, props, n, negative_padding=True)
        extra = _spatial(cls.name, props, "output_padding", n, 0)
        out = []
        for i in range(n):
            size = (
                win.strides[i] * (x[2 + i] - 1)
                + extra[i]
                + win.dilation[i] * (w[2 + i] - 1)
                + 1
                - win.pad_begin[i]
                - win.pad_end[i]
            )
            if size < 1 or not 0 <= extra[i] < max(win.strides[i], win.dilation[i]):
                raise VerifyException(
                    f"{cls.name}: spatial axis {i} would have size {size} (output "
                    f"padding {extra[i]} must be less than the stride or dilation)"
                )
            out.append(size)
        return tensor([x[0], w[1] * groups, *out], elem)


@irdl_op_definition
class Conv1DTransposeOp(ConvTransposeOp):
    name = "relay.conv1d_transpose"
    SPATIAL: ClassVar[int] = 1


@irdl_op_definition
class Conv2DTransposeOp(ConvTransposeOp):
    name = "relay.conv2d_transpose"
    SPATIAL: ClassVar[int] = 2


@irdl_op_definition
class Conv3DTransposeOp(ConvTransposeOp):
    name = "relay.conv3d_transpose"
    SPATIAL: ClassVar[int] = 3


@irdl_op_definition
class BiasAddOp(RelayOp):
    """Add a 1-D bias along `axis` (1 by default)."""

    name = "relay.bias_add"
    data = operand_def(TensorType)
    bias = operand_def(TensorType)
    axis = opt_prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        _same_element_type(cls.name, types)
        shape = shape_of(types[0])
        axis = normalize_axis(cls.name, int_prop(props, "axis", 1), len(shape))
        if shape_of(types[1]) != (shape[axis],):
            raise VerifyException(
                f"{cls.name}: bias must be 1-D of size {shape[axis]} (axis {axis} of "
                f"the data), got {types[1]}"
            )
        return types[0]


class PoolOp(RelayOp):
    """N-d pooling over the spatial axes of NC... data. `ceil_mode` rounds the
    output size up (the last window must start inside the input or its padding)."""

    data = operand_def(TensorType)
    pool_size = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    ceil_mode = opt_prop_def(UnitAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    SPATIAL: ClassVar[int] = 2
    ELEMENTS: ClassVar[dict[str, bool]] = _NUMERIC

    @classmethod
    def spatial(cls, data: TensorType) -> int:
        """The number of spatial axes the op pools over."""
        return cls.SPATIAL

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        require_element(cls.name, types[0], **cls.ELEMENTS)
        n = cls.spatial(types[0])
        x = _nchw(cls.name, types[0], n)
        kernel = _spatial(cls.name, props, "pool_size", n, 1)
        if any(k < 1 for k in kernel):
            raise VerifyException(f"{cls.name}: pool_size {list(kernel)} must be positive")
        win = Window(cls.name, props, n)
        ceil = "ceil_mode" in props
        out = [win.output_size(cls.name, i, x[2 + i], kernel[i], ceil) for i in range(n)]
        return tensor([x[0], x[1], *out], types[0].get_element_type())


class MaxPoolOp(PoolOp):
    """Maximum over each window; padding never wins (it is -inf)."""


class AvgPoolOp(PoolOp):
    """Mean over each window: over the window's positions inside the padded input
    with `count_include_pad`, else over those inside the input."""

    count_include_pad = opt_prop_def(UnitAttr)
    ELEMENTS: ClassVar[dict[str, bool]] = _FLOATING


@irdl_op_definition
class MaxPoolWithArgmaxOp(MaxPoolOp):
    """N-d max pooling that also returns, for each window, the flat index (i64)
    into the data of its first maximum: row-major, or with `column_major` the
    spatial axes in column-major order (ONNX MaxPool's Indices)."""

    name = "relay.max_pool_with_argmax"
    indices = result_def(TensorType)
    column_major = opt_prop_def(UnitAttr)
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    @classmethod
    def spatial(cls, data: TensorType) -> int:
        return max(data.get_num_dims() - 2, 1)

    @classmethod
    def infer(
        cls, types: list[TensorType], props: dict[str, Attribute]
    ) -> list[TensorType]:
        values = super().infer(types, props)
        assert isinstance(values, TensorType)
        return [values, tensor(shape_of(values), i64)]


@irdl_op_definition
class MaxPool1DOp(MaxPoolOp):
    name = "relay.max_pool1d"
    SPATIAL: ClassVar[int] = 1


@irdl_op_definition
class MaxPool2DOp(MaxPoolOp):
    name = "relay.max_pool2d"
    SPATIAL: ClassVar[int] = 2


@irdl_op_definition
class MaxPool3DOp(MaxPoolOp):
    name = "relay.max_pool3d"
    SPATIAL: ClassVar[int] = 3


@irdl_op_definition
class AvgPool1DOp(AvgPoolOp):
    name = "relay.avg_pool1d"
    SPATIAL: ClassVar[int] = 1


@irdl_op_definition
class AvgPool2DOp(AvgPoolOp):
    name = "relay.avg_pool2d"
    SPATIAL: ClassVar[int] = 2


@irdl_op_definition
class AvgPool3DOp(AvgPoolOp):
    name = "relay.avg_pool3d"
    SPATIAL: ClassVar[int] = 3


def _channel_params(
    op_name: str, types: Sequence[TensorType], channels: int, names: Sequence[str]
) -> None:
    for t, what in zip(types, names, strict=True):
        if shape_of(t) != (channels,):
            raise VerifyException(
                f"{op_name}: {what} must be 1-D of size {channels} (one per channel), "
                f"got {t}"
            )


@irdl_op_definition
class BatchNormOp(RelayOp):
    """Inference batch normalization along `axis` (1 by default):
    `(x - mean) / sqrt(var + epsilon) * gamma + beta`."""

    name = "relay.batch_norm"
    data = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    moving_mean = operand_def(TensorType)
    moving_var = operand_def(TensorType)
    axis = opt_prop_def(IntegerAttr)
    epsilon = opt_prop_def(FloatAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        _same_element_type(cls.name, types)
        require_element(cls.name, types[0], floating=True)
        shape = shape_of(types[0])
        axis = normalize_axis(cls.name, int_prop(props, "axis", 1), len(shape))
        _channel_params(
            cls.name, types[1:], shape[axis], ("gamma", "beta", "moving_mean", "moving_var")
        )
        return types[0]


@irdl_op_definition
class LayerNormOp(RelayOp):
    """Normalize over the trailing axes from `axis` (-1 by default) to zero mean and
    unit variance, then scale by `gamma` and shift by `beta` (both broadcast to the
    normalized shape), as ONNX LayerNormalization."""

    name = "relay.layer_norm"
    data = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = opt_operand_def(TensorType)
    axis = opt_prop_def(IntegerAttr)
    epsilon = opt_prop_def(FloatAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        _same_element_type(cls.name, types)
        require_element(cls.name, types[0], floating=True)
        shape = shape_of(types[0])
        axis = normalize_axis(cls.name, int_prop(props, "axis", -1), len(shape))
        inner = shape[axis:]
        for t, what in zip(types[1:], ("gamma", "beta"), strict=False):
            if broadcast_shapes(cls.name, inner, shape_of(t)) != inner:
                raise VerifyException(
                    f"{cls.name}: {what} {t} must broadcast to the normalized shape "
                    f"{list(inner)}"
                )
        return types[0]


@irdl_op_definition
class InstanceNormOp(RelayOp):
    """Normalize each (batch, channel) slice over the spatial axes, then scale and
    shift per channel."""

    name = "relay.instance_norm"
    data = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    epsilon = opt_prop_def(FloatAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        _same_element_type(cls.name, types)
        require_element(cls.name, types[0], floating=True)
        shape = shape_of(types[0])
        if len(shape) < 3:
            raise VerifyException(
                f"{cls.name}: data must have a batch, a channel and at least one "
                f"spatial axis, got {types[0]}"
            )
        _channel_params(cls.name, types[1:], shape[1], ("gamma", "beta"))
        return types[0]


@irdl_op_definition
class LRNOp(RelayOp):
    """Local response normalization across channels (`axis`, 1 by default):
    `x / (bias + alpha / size * sum(x^2 over size neighbours)) ** beta`."""

    name = "relay.lrn"
    data = operand_def(TensorType)
    size = prop_def(IntegerAttr)
    axis = opt_prop_def(IntegerAttr)
    alpha = opt_prop_def(FloatAttr)
    beta = opt_prop_def(FloatAttr)
    bias = opt_prop_def(FloatAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        require_element(cls.name, types[0], floating=True)
        normalize_axis(cls.name, int_prop(props, "axis", 1), len(shape_of(types[0])))
        if int_prop(props, "size", 1) < 1:
            raise VerifyException(f"{cls.name}: size must be positive")
        return types[0]


# ------------------------------------------------------------------------ layout
@irdl_op_definition
class ReshapeOp(RelayOp):
    """Reshape to a static `shape` with the same number of elements."""

    name = "relay.reshape"
    data = operand_def(TensorType)
    shape = prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        attr = props["shape"]
        assert isinstance(attr, DenseArrayBase)
        new = tuple(int(v) for v in attr.get_values())
        old = shape_of(types[0])
        if any(d < 0 for d in new):
            raise VerifyException(
                f"relay.reshape: shape {list(new)} must be static and non-negative "
                "(resolve -1 and 0 before building the op)"
            )
        if math.prod(new) != math.prod(old):
            raise VerifyException(
                f"relay.reshape: cannot reshape {list(old)} ({math.prod(old)} elements) "
                f"to {list(new)} ({math.prod(new)} elements)"
            )
        return tensor(new, types[0].get_element_type())


@irdl_op_definition
class TransposeOp(RelayOp):
    """Permute dimensions: result dim i is operand dim perm[i]."""

    name = "relay.transpose"
    data = operand_def(TensorType)
    perm = prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        attr = props["perm"]
        assert isinstance(attr, DenseArrayBase)
        perm = tuple(int(v) for v in attr.get_values())
        old = shape_of(types[0])
        if sorted(perm) != list(range(len(old))):
            raise VerifyException(
                f"relay.transpose: perm {list(perm)} is not a permutation of "
                f"0..{len(old) - 1}"
            )
        return tensor([old[p] for p in perm], types[0].get_element_type())




@irdl_op_definition
class ConcatenateOp(RelayOp):
    """Join tensors along `axis`; the other dimensions must agree."""

    name = "relay.concatenate"
    inputs = var_operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        if not types:
            raise VerifyException(f"{cls.name}: needs at least one operand")
        elem = _same_element_type(cls.name, types)
        first = shape_of(types[0])
        axis = normalize_axis(cls.name, int_prop(props, "axis", 0), len(first))
        for t in types[1:]:
            s = shape_of(t)
            if len(s) != len(first) or any(
                a != b for i, (a, b) in enumerate(zip(s, first, strict=True)) if i != axis
            ):
                raise VerifyException(
                    f"{cls.name}: {types[0]} and {t} differ outside axis {axis}"
                )
        out = list(first)
        out[axis] = sum(shape_of(t)[axis] for t in types)
        return tensor(out, elem)


@irdl_op_definition
class SplitOp(RelayOp):
    """Split along `axis` at the ascending positions `indices`: one result per
    piece (TVM's `split` with indices)."""

    name = "relay.split"
    data = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    indices = prop_def(DenseArrayBase)
    outputs = var_result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    @classmethod
    def infer(
        cls, types: list[TensorType], props: dict[str, Attribute]
    ) -> list[TensorType]:
        shape = shape_of(types[0])
        axis = normalize_axis(cls.name, int_prop(props, "axis", 0), len(shape))
        points = [0, *ints_prop(props, "indices"), shape[axis]]
        if any(b < a for a, b in itertools.pairwise(points)):
            raise VerifyException(
                f"{cls.name}: indices {points[1:-1]} must ascend within "
                f"0..{shape[axis]} (the size of axis {axis})"
            )
        elem = types[0].get_element_type()
        return [
            tensor([b - a if i == axis else d for i, d in enumerate(shape)], elem)
            for a, b in itertools.pairwise(points)
        ]


@irdl_op_definition
class StridedSliceOp(RelayOp):
    """Elements `begin[i] + k * strides[i]` for `k` in `0..ceil((end[i] -
    begin[i]) / strides[i])` along every axis (strides may be negative). Every
    position read must be in bounds: the importer resolves ONNX's clamping."""

    name = "relay.strided_slice"
    data = operand_def(TensorType)
    begin = prop_def(DenseArrayBase)
    end = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    @staticmethod
    def extent(begin: int, end: int, step: int) -> int:
        return max(0, -((begin - end) // step)) if step > 0 else max(0, -((end - begin) // -step))

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        shape = shape_of(types[0])
        n = len(shape)
        begin, end = ints_prop(props, "begin"), ints_prop(props, "end")
        strides = ints_prop(props, "strides") if "strides" in props else (1,) * n
        if not len(begin) == len(end) == len(strides) == n:
            raise VerifyException(
                f"{cls.name}: begin, end and strides need {n} values each (one per "
                f"axis), got {list(begin)}, {list(end)}, {list(strides)}"
            )
        out = []
        for axis, (b, e, s, d) in enumerate(zip(begin, end, strides, shape, strict=True)):
            if s == 0:
                raise VerifyException(f"{cls.name}: stride of axis {axis} is 0")
            k = cls.extent(b, e, s)
            if k and not (0 <= b < d and 0 <= b + (k - 1) * s < d):
                raise VerifyException(
                    f"{cls.name}: axis {axis} of size {d} is read out of bounds "
                    f"(begin {b}, end {e}, stride {s})"
                )
            out.append(k)
        return tensor(out, types[0].get_element_type())


def _index_tensor(op_name: str, t: TensorType) -> None:
    if not is_int(t.get_element_type()):
        raise VerifyException(f"{op_name}: indices must be an integer tensor, got {t}")


@irdl_op_definition
class TakeOp(RelayOp):
    """Gather whole slices along `axis` at `indices` (ONNX Gather): the result
    shape is `data[:axis] + indices + data[axis+1:]`. Negative indices count from
    the end; indices out of range are clamped."""

    name = "relay.take"
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        _index_tensor(cls.name, types[1])
        shape = shape_of(types[0])
        if not shape:
            raise VerifyException(f"{cls.name}: data must have rank >= 1")
        axis = normalize_axis(cls.name, int_prop(props, "axis", 0), len(shape))
        if shape[axis] == 0 and math.prod(shape_of(types[1])):
            raise VerifyException(f"{cls.name}: cannot take from the empty axis {axis}")
        out = [*shape[:axis], *shape_of(types[1]), *shape[axis + 1 :]]
        return tensor(out, types[0].get_element_type())


@irdl_op_definition
class GatherOp(RelayOp):
    """`out[i...] = data[i... with axis replaced by indices[i...]]` (ONNX
    GatherElements, TVM's `gather`); indices behave as in `relay.take`."""

    name = "relay.gather"
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        _index_tensor(cls.name, types[1])
        shape, idx = shape_of(types[0]), shape_of(types[1])
        axis = normalize_axis(cls.name, int_prop(props, "axis", 0), len(shape))
        if len(idx) != len(shape) or any(
            i > d for a, (i, d) in enumerate(zip(idx, shape, strict=True)) if a != axis
        ):
            raise VerifyException(
                f"{cls.name}: indices {types[1]} must have the data's rank and fit in "
                f"the data {types[0]} outside axis {axis}"
            )
        if shape[axis] == 0 and math.prod(idx):
            raise VerifyException(f"{cls.name}: cannot gather from the empty axis {axis}")
        return tensor(idx, types[0].get_element_type())


@irdl_op_definition
class BroadcastToOp(RelayOp):
    """Broadcast to `shape` (numpy's `broadcast_to`)."""

    name = "relay.broadcast_to"
    data = operand_def(TensorType)
    shape = prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        target = ints_prop(props, "shape")
        src = shape_of(types[0])
        if any(d < 0 for d in target) or broadcast_shapes(cls.name, src, target) != target:
            raise VerifyException(
                f"{cls.name}: {types[0]} does not broadcast to shape {list(target)}"
            )
        return tensor(target, types[0].get_element_type())


@irdl_op_definition
class TileOp(RelayOp):
    """Repeat the tensor `reps[i]` times along each axis."""

    name = "relay.tile"
    data = operand_def(TensorType)
    reps = prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        reps = ints_prop(props, "reps")
        shape = shape_of(types[0])
        if len(reps) != len(shape) or any(r < 0 for r in reps):
            raise VerifyException(
                f"{cls.name}: reps {list(reps)} needs {len(shape)} non-negative values"
            )
        return tensor([d * r for d, r in zip(shape, reps, strict=True)], types[0].get_element_type())


PAD_MODES = ("constant", "reflect", "edge", "wrap")


@irdl_op_definition
class PadOp(RelayOp):
    """Pad (or, with negative widths, crop) every axis by `pad_width` =
    `[begin..., end...]`. `pad_mode` is `constant` (with `pad_value`, 0 by
    default), `reflect`, `edge` or `wrap`, as numpy's `pad`."""

    name = "relay.pad"
    data = operand_def(TensorType)
    pad_width = prop_def(DenseArrayBase)
    pad_mode = opt_prop_def(StringAttr)
    pad_value = opt_prop_def(FloatAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        shape = shape_of(types[0])
        n = len(shape)
        pads = ints_prop(props, "pad_width")
        mode = str_prop(props, "pad_mode", "constant")
        if mode not in PAD_MODES:
            raise VerifyException(
                f"{cls.name}: pad_mode must be one of {', '.join(PAD_MODES)}, got "
                f'"{mode}"'
            )
        if len(pads) != 2 * n:
            raise VerifyException(
                f"{cls.name}: pad_width needs {2 * n} values ([begin..., end...]), "
                f"got {list(pads)}"
            )
        out = [d + pads[i] + pads[n + i] for i, d in enumerate(shape)]
        if any(d < 0 for d in out):
            raise VerifyException(f"{cls.name}: pad_width {list(pads)} crops {types[0]} below size 0")
        for i, d in enumerate(shape):
            grows = pads[i] > 0 or pads[n + i] > 0
            if mode != "constant" and grows and d == 0:
                raise VerifyException(
                    f"{cls.name}: {mode} padding of the empty axis {i} has nothing to copy"
                )
        return tensor(out, types[0].get_element_type())


@irdl_op_definition
class TriluOp(RelayOp):
    """Keep the upper (`upper`) or lower triangle of the last two axes, relative to
    diagonal `k`; zero the rest."""

    name = "relay.trilu"
    data = operand_def(TensorType)
    upper = opt_prop_def(UnitAttr)
    k = opt_prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        if len(shape_of(types[0])) < 2:
            raise VerifyException(f"{cls.name}: data must have rank >= 2, got {types[0]}")
        return types[0]


RESIZE_METHODS = ("nearest_neighbor", "linear", "cubic")
RESIZE_COORDINATES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_crop_and_resize",
)
RESIZE_ROUNDING = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


@irdl_op_definition
class ResizeOp(RelayOp):
    """Resize every axis to `size` by interpolation (ONNX Resize). Output index `y`
    maps to input coordinate `x` by `coordinate_transformation_mode` with the
    per-axis `scales` (size / input size when absent); `method` picks the nearest
    element (rounded by `rounding_method`), interpolates linearly or cubically
    (`cubic_alpha`, `cubic_exclude`) between the neighbours, clamped to the edge;
    `antialias` widens the kernel by 1 / scale when downscaling.
    `tf_crop_and_resize` reads inside `roi` ([begin..., end...], normalized) and
    yields `extrapolation_value` outside the input."""

    name = "relay.resize"
    data = operand_def(TensorType)
    size = prop_def(DenseArrayBase)
    scales = opt_prop_def(DenseArrayBase)
    roi = opt_prop_def(DenseArrayBase)
    method = opt_prop_def(StringAttr)
    coordinate_transformation_mode = opt_prop_def(StringAttr)
    rounding_method = opt_prop_def(StringAttr)
    cubic_alpha = opt_prop_def(FloatAttr)
    cubic_exclude = opt_prop_def(UnitAttr)
    antialias = opt_prop_def(UnitAttr)
    extrapolation_value = opt_prop_def(FloatAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        shape = shape_of(types[0])
        n = len(shape)
        size = ints_prop(props, "size")
        for name, allowed, default in (
            ("method", RESIZE_METHODS, "nearest_neighbor"),
            ("coordinate_transformation_mode", RESIZE_COORDINATES, "half_pixel"),
            ("rounding_method", RESIZE_ROUNDING, "round_prefer_floor"),
        ):
            value = str_prop(props, name, default)
            if value not in allowed:
                raise VerifyException(
                    f"{cls.name}: {name} must be one of {', '.join(allowed)}, got "
                    f'"{value}"'
                )
        if str_prop(props, "method", "nearest_neighbor") != "nearest_neighbor":
            require_element(cls.name, types[0], floating=True)
        elif "antialias" in props:
            raise VerifyException(f"{cls.name}: antialias needs linear or cubic")
        if len(size) != n or any(d < 0 for d in size):
            raise VerifyException(
                f"{cls.name}: size {list(size)} needs {n} non-negative values"
            )
        if any(d == 0 < o for d, o in zip(shape, size, strict=True)):
            raise VerifyException(f"{cls.name}: cannot resize an empty axis of {types[0]}")
        for name, count in (("scales", n), ("roi", 2 * n)):
            if name in props and len(floats_prop(props, name)) != count:
                raise VerifyException(
                    f"{cls.name}: {name} needs {count} values, got "
                    f"{list(floats_prop(props, name))}"
                )
        if "scales" in props and any(s <= 0 for s in floats_prop(props, "scales")):
            raise VerifyException(f"{cls.name}: scales must be positive")
        return tensor(size, types[0].get_element_type())


# --------------------------------------------------------------------- builders
def i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def i64_attr(value: int) -> IntegerAttr:
    return IntegerAttr(int(value), i64)


def f64_attr(value: float) -> FloatAttr:
    return FloatAttr(float(value), f64)


RELAY_OPS: tuple[type[RelayOp], ...] = (
    ConstantOp,
    AddOp,
    SubtractOp,
    MultiplyOp,
    DivideOp,
    PowerOp,
    MaximumOp,
    MinimumOp,
    FloorModOp,
    TruncModOp,
    LogicalAndOp,
    LogicalOrOp,
    LogicalXorOp,
    BitwiseAndOp,
    BitwiseOrOp,
    BitwiseXorOp,
    LeftShiftOp,
    RightShiftOp,
    BitwiseNotOp,
    EqualOp,
    NotEqualOp,
    LessOp,
    LessEqualOp,
    GreaterOp,
    GreaterEqualOp,
    PReluOp,
    WhereOp,
    ReluOp,
    NegativeOp,
    AbsOp,
    SignOp,
    LogicalNotOp,
    ExpOp,
    LogOp,
    SqrtOp,
    RsqrtOp,
    ReciprocalOp,
    FloorOp,
    CeilOp,
    RoundOp,
    SinOp,
    CosOp,
    TanOp,
    TanhOp,
    ErfOp,
    AsinOp,
    AcosOp,
    AtanOp,
    SinhOp,
    CoshOp,
    AsinhOp,
    AcoshOp,
    AtanhOp,
    SigmoidOp,
    SoftplusOp,
    SoftsignOp,
    HardSwishOp,
    LeakyReluOp,
    EluOp,
    SeluOp,
    HardSigmoidOp,
    GeluOp,
    ClipOp,
    CastOp,
    MatmulOp,
    DenseOp,
    SumOp,
    MeanOp,
    MaxOp,
    MinOp,
    ProdOp,
    LogSumExpOp,
    ArgMaxOp,
    ArgMinOp,
    SoftmaxOp,
    LogSoftmaxOp,
    Conv1DOp,
    Conv2DOp,
    Im2ColOp,
    Conv3DOp,
    Conv1DTransposeOp,
    Conv2DTransposeOp,
    Conv3DTransposeOp,
    BiasAddOp,
    MaxPool1DOp,
    MaxPool2DOp,
    MaxPool3DOp,
    MaxPoolWithArgmaxOp,
    AvgPool1DOp,
    AvgPool2DOp,
    AvgPool3DOp,
    BatchNormOp,
    LayerNormOp,
    InstanceNormOp,
    LRNOp,
    ReshapeOp,
    TransposeOp,
    ConcatenateOp,
    SplitOp,
    StridedSliceOp,
    TakeOp,
    GatherOp,
    BroadcastToOp,
    TileOp,
    PadOp,
    TriluOp,
    ResizeOp,
)

# Region ops (fused groups) are defined beside the graph ops, in relay_region.py.
from lamina.dialects.relay_region import FusedOp, YieldOp  # noqa: E402

Relay = Dialect("relay", [*RELAY_OPS, FusedOp, YieldOp], [])

__all__ = [
    "RELAY_OPS",
    "AbsOp",
    "AcosOp",
    "AcoshOp",
    "AddOp",
    "ArgMaxOp",
    "ArgMinOp",
    "ArgReduceOp",
    "AsinOp",
    "AsinhOp",
    "AtanOp",
    "AtanhOp",
    "AvgPool1DOp",
    "AvgPool2DOp",
    "AvgPool3DOp",
    "AvgPoolOp",
    "BatchNormOp",
    "BiasAddOp",
    "BinaryOp",
    "BitwiseAndOp",
    "BitwiseBinaryOp",
    "BitwiseNotOp",
    "BitwiseOrOp",
    "BitwiseXorOp",
    "BroadcastToOp",
    "CastOp",
    "CeilOp",
    "ClipOp",
    "CompareOp",
    "ConcatenateOp",
    "ConstantOp",
    "Conv1DOp",
    "Conv1DTransposeOp",
    "Conv2DOp",
    "Conv2DTransposeOp",
    "Conv3DOp",
    "Conv3DTransposeOp",
    "ConvOp",
    "ConvTransposeOp",
    "CosOp",
    "CoshOp",
    "DenseOp",
    "DivideOp",
    "EluOp",
    "EqualOp",
    "ErfOp",
    "ExpOp",
    "FloatUnaryOp",
    "FloorModOp",
    "FloorOp",
    "GatherOp",
    "GeluOp",
    "GreaterEqualOp",
    "GreaterOp",
    "HardSigmoidOp",
    "HardSwishOp",
    "InstanceNormOp",
    "LRNOp",
    "LayerNormOp",
    "LeakyReluOp",
    "LeftShiftOp",
    "LessEqualOp",
    "LessOp",
    "LogOp",
    "LogSoftmaxOp",
    "LogSumExpOp",
    "LogicalAndOp",
    "LogicalBinaryOp",
    "LogicalNotOp",
    "LogicalOrOp",
    "LogicalXorOp",
    "MatmulOp",
    "MaxOp",
    "MaxPool1DOp",
    "MaxPool2DOp",
    "MaxPool3DOp",
    "MaxPoolOp",
    "MaxPoolWithArgmaxOp",
    "MaximumOp",
    "MeanOp",
    "MinOp",
    "MinimumOp",
    "ModOp",
    "MultiplyOp",
    "NegativeOp",
    "NotEqualOp",
    "OpPattern",
    "PReluOp",
    "PadOp",
    "PoolOp",
    "PowerOp",
    "ProdOp",
    "ReciprocalOp",
    "ReduceOp",
    "Relay",
    "RelayOp",
    "ReluOp",
    "ReshapeOp",
    "ResizeOp",
    "RightShiftOp",
    "RoundOp",
    "RsqrtOp",
    "SeluOp",
    "SigmoidOp",
    "SignOp",
    "SinOp",
    "SinhOp",
    "SoftmaxBase",
    "SoftmaxOp",
    "SoftplusOp",
    "SoftsignOp",
    "SplitOp",
    "SqrtOp",
    "StridedSliceOp",
    "SubtractOp",
    "SumOp",
    "TakeOp",
    "TanOp",
    "TanhOp",
    "TileOp",
    "TransposeOp",
    "TriluOp",
    "TruncModOp",
    "UnaryOp",
    "WhereOp",
    "Window",
]
