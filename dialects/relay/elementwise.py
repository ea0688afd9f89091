"""Elementwise relay ops: binary arithmetic, logic and comparison with numpy
broadcasting, `relay.where`, unary math and activations, and `relay.cast`.

Binary ops (`BinaryOp` and its kinds: arithmetic, modulo, logical, bitwise,
comparison) broadcast their operands together and are BROADCAST for fusion;
unary ops (`UnaryOp`, `FloatUnaryOp`) keep their operand's type, accept the
element kinds named in their `ELEMENTS`, and are ELEMWISE.
"""

from __future__ import annotations

from typing import Any, ClassVar

from xdsl.dialects.builtin import FloatAttr, IntegerType, StringAttr, TensorType
from xdsl.ir import Attribute, TypeAttribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from lamina.dialects.relay.base import (
    _FLOATING,
    _NUMERIC,
    AttrField,
    FloatField,
    OpAttrs,
    OpPattern,
    RelayOp,
    StrField,
    _same_element_type,
    broadcast_shapes,
    is_float,
    require_element,
    shape_of,
    tensor,
)

#: ONNX Selu's default constants.
SELU_ALPHA = 1.67326319217681884765625
SELU_GAMMA = 1.05070102214813232421875


# --------------------------------------------------------------------- binary
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


# ---------------------------------------------------------------------- unary
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


class LeakyReluAttrs(OpAttrs):
    alpha = FloatField(0.01)


@irdl_op_definition
class LeakyReluOp(FloatUnaryOp):
    """`x < 0 ? alpha * x : x` (alpha defaults to 0.01)."""

    name = "relay.leaky_relu"
    DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": 0.01}
    ATTRS: ClassVar[type[OpAttrs]] = LeakyReluAttrs

    alpha = opt_prop_def(FloatAttr)


class EluAttrs(OpAttrs):
    alpha = FloatField(1.0)


@irdl_op_definition
class EluOp(FloatUnaryOp):
    """`x < 0 ? alpha * (exp(x) - 1) : x` (alpha defaults to 1)."""

    name = "relay.elu"
    DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": 1.0}
    ATTRS: ClassVar[type[OpAttrs]] = EluAttrs

    alpha = opt_prop_def(FloatAttr)


class SeluAttrs(OpAttrs):
    alpha = FloatField(SELU_ALPHA)
    gamma = FloatField(SELU_GAMMA)


@irdl_op_definition
class SeluOp(FloatUnaryOp):
    """`gamma * (x <= 0 ? alpha * (exp(x) - 1) : x)` (ONNX's defaults)."""

    name = "relay.selu"
    DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": SELU_ALPHA, "gamma": SELU_GAMMA}
    ATTRS: ClassVar[type[OpAttrs]] = SeluAttrs

    alpha = opt_prop_def(FloatAttr)
    gamma = opt_prop_def(FloatAttr)


class HardSigmoidAttrs(OpAttrs):
    alpha = FloatField(0.2)
    beta = FloatField(0.5)


@irdl_op_definition
class HardSigmoidOp(FloatUnaryOp):
    """`clip(alpha * x + beta, 0, 1)` (alpha 0.2, beta 0.5 by default)."""

    name = "relay.hard_sigmoid"
    DEFAULTS: ClassVar[dict[str, Any]] = {"alpha": 0.2, "beta": 0.5}
    ATTRS: ClassVar[type[OpAttrs]] = HardSigmoidAttrs

    alpha = opt_prop_def(FloatAttr)
    beta = opt_prop_def(FloatAttr)


class GeluAttrs(OpAttrs):
    approximate = StrField("none")


@irdl_op_definition
class GeluOp(FloatUnaryOp):
    """`x * Phi(x)`; `approximate = "tanh"` uses the tanh formula."""

    name = "relay.gelu"
    DEFAULTS: ClassVar[dict[str, Any]] = {"approximate": "none"}
    ATTRS: ClassVar[type[OpAttrs]] = GeluAttrs

    approximate = opt_prop_def(StringAttr)

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        mode = cls.attrs_of(props).approximate
        if mode not in ("none", "tanh"):
            raise VerifyException(
                f'{cls.name}: approximate must be "none" or "tanh", got "{mode}"'
            )
        return super().infer(types, props)


class ClipAttrs(OpAttrs):
    a_min = FloatField(None)
    a_max = FloatField(None)


@irdl_op_definition
class ClipOp(UnaryOp):
    """`min(max(x, a_min), a_max)`; a missing bound is no bound. NaN stays NaN."""

    name = "relay.clip"
    a_min = opt_prop_def(FloatAttr)
    a_max = opt_prop_def(FloatAttr)
    ELEMENTS: ClassVar[dict[str, bool]] = _NUMERIC
    ATTRS: ClassVar[type[OpAttrs]] = ClipAttrs


class DtypeAttrs(OpAttrs):
    dtype = AttrField()


def _numeric_dtype(op_name: str, props: dict[str, Attribute]) -> Attribute:
    """The `dtype` property of a conversion: an integer or float type."""
    dtype = DtypeAttrs(props, op_name).dtype
    if not (is_float(dtype) or isinstance(dtype, IntegerType)):
        raise VerifyException(
            f"{op_name}: dtype must be an integer or floating-point type, got {dtype}"
        )
    return dtype


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
    ATTRS: ClassVar[type[OpAttrs]] = DtypeAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        dtype = _numeric_dtype(cls.name, props)
        return tensor(shape_of(types[0]), dtype)


def storage_bits(t: Attribute) -> int:
    """The bits an element of type `t` takes in memory (a bool, i1, takes a byte)."""
    if isinstance(t, IntegerType):
        return max(8, t.width.data)
    return t.bitwidth if is_float(t) else 0  # type: ignore[attr-defined]


@irdl_op_definition
class BitcastOp(RelayOp):
    """Reinterpret every element's bits as `dtype`, of the same storage width
    (numpy's `view`); a bool (a byte) reads as 0 or 1, a byte as a bool is
    `!= 0`."""

    name = "relay.bitcast"
    data = operand_def(TensorType)
    dtype = prop_def(TypeAttribute)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE
    ATTRS: ClassVar[type[OpAttrs]] = DtypeAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        dtype = _numeric_dtype(cls.name, props)
        src = types[0].get_element_type()
        if storage_bits(src) != storage_bits(dtype):
            raise VerifyException(
                f"{cls.name}: cannot reinterpret {src} ({storage_bits(src)} bits) as "
                f"{dtype} ({storage_bits(dtype)} bits): the widths differ"
            )
        return tensor(shape_of(types[0]), dtype)
