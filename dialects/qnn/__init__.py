"""The `qnn` dialect: quantized graph ops (TVM's QNN), beside relay's.

A quantized tensor is an integer tensor (u8 or s8; s16 too) with a scale and a zero
point: `real = (q - zero_point) * scale`. Scales and zero points are operands
that broadcast to the tensor they describe (numpy rules): a scalar per tensor,
or a vector shaped along one axis per channel (`[O, 1, 1, 1]` for a conv
weight). Integer products accumulate in i32.

- `qnn.quantize x, scale, zp`: `clamp(round(x / scale) + zp)` in the zero
  point's type; round half to even, saturating.
- `qnn.dequantize q, scale, zp`: `(q - zp) * scale` in the scale's float type.
- `qnn.requantize acc, multiplier, zp {out_min, out_max}`: an i32 accumulator
  to u8/s8: `clamp(round(f32(acc) * f32(multiplier)) + zp, out_min, out_max)`,
  the multiplier being `in_scale / out_scale` (a float scale, not a fixed-point
  one); the clamp range is the output type's, or narrower where a relu or a
  clip was folded into it (`out_min`/`out_max`, both optional). The product is
  computed in f32 and rounded half to even before the zero point is added,
  exactly as onnxruntime's int8 kernels (MLAS) do; ONNX's reference
  QLinearMatMul rounds after adding the zero point (a step apart at an exact
  half with an odd zero point). An accumulator beyond 2^24 is rounded to f32
  first, as there.
- `qnn.matmul a, b, a_zp, b_zp` and `qnn.conv2d x, w, x_zp, w_zp`: the
  products of the zero-point-corrected operands, in i32 (ONNX MatMulInteger,
  ConvInteger; `relay.matmul` and `relay.conv2d`'s shapes and attributes).
- `qnn.add`/`qnn.mul a, b, a_scale, a_zp, b_scale, b_zp, y_scale, y_zp`:
  elementwise on the real values, requantized to the output's scale. `add`
  computes as onnxruntime's QLinearAdd (MLAS), in f32:
  `clamp(round(a * ra + (b * rb + k)))` with `ra = a_scale / y_scale`,
  `rb = b_scale / y_scale`, `k = y_zp - fma(ra, a_zp, rb * b_zp)`, each
  product fused into the sum after it; `mul` dequantizes both, multiplies
  and quantizes.
- `qnn.softmax x, x_scale, x_zp, y_scale, y_zp {axis}`: softmax along `axis`
  of u8/s8 codes as onnxruntime's QLinearSoftmax computes it (so a model
  quantized by onnxruntime gives its int8 run's codes): each code's distance
  below its row's max indexes a 256-entry f32 table
  `T[k] = f32(exp((k - 255 + c / x_scale) * x_scale))` (in f64, the headroom
  `c = max(0, ln(FLT_MAX / D) - 5)` with the log in f32, D the size along
  `axis`); `s` is the f32 sum of a row's entries, and the output
  `clamp(round(f32(e * floor(1 / y_scale)) / s) + y_zp)`, in f32, half to
  even. `floor(1 / y_scale)` is onnxruntime's: 254 for the usual 1/255, so
  outputs are 0.4% under the exact softmax. The x zero point cancels; D must
  be static.

`qnn-canonicalize` lowers them to relay integer and float ops (TVM's
`qnn.transform.CanonicalizeOps`), so every later pass and lowering applies.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    f32,
)
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from lamina.dialects import relay
from lamina.dialects.qnn.packed import PACKED_OPS, ClampAttrs
from lamina.dialects.relay.base import (
    OpAttrs,
    OpPattern,
    PropSource,
    RelayOp,
    broadcast_shapes,
    is_float,
    normalize_axis,
    shape_of,
    tensor,
)

I32 = IntegerType(32)
#: The quantized element types: u8 and s8 (the integer kernels' two), then s16
#: and u16 (ONNX's 16-bit QuantizeLinear/DequantizeLinear).
QUANTIZED = (
    IntegerType(8, Signedness.UNSIGNED), IntegerType(8), IntegerType(16), IntegerType(16, Signedness.UNSIGNED)
)
_RANGES = dict(zip(QUANTIZED, ((0, 255), (-128, 127), (-32768, 32767), (0, 65535)), strict=True))


def quantized_range(t: Attribute) -> tuple[int, int]:
    """The values of a quantized element type."""
    if t in _RANGES:
        return _RANGES[t]  # type: ignore[index]
    raise VerifyException(f"{t} is not a quantized type (ui8, i8, i16 or ui16)")


def _quantized(op: str, what: str, t: TensorType, also_i32: bool = False) -> None:
    elem = t.get_element_type()
    if elem not in QUANTIZED and not (also_i32 and elem == I32):
        allowed = "ui8, i8, i16, ui16 or i32" if also_i32 else "ui8, i8, i16 or ui16"
        raise VerifyException(f"{op}: {what} must be {allowed}, got {t}")


def _describes(op: str, what: str, param: TensorType, of: TensorType) -> None:
    """A scale or zero point broadcasts to the tensor it describes."""
    try:
        out = broadcast_shapes(op, shape_of(of), shape_of(param))
    except VerifyException:
        out = None
    if out != shape_of(of):
        raise VerifyException(f"{op}: {what} {param} does not broadcast to {of}")


def _scale(op: str, what: str, t: TensorType, of: TensorType) -> None:
    if not is_float(t.get_element_type()):
        raise VerifyException(f"{op}: {what} must be a float tensor, got {t}")
    _describes(op, what, t, of)


def _zero_point(op: str, what: str, t: TensorType, of: TensorType) -> None:
    if t.get_element_type() != of.get_element_type():
        raise VerifyException(f"{op}: {what} {t} must have the element type of {of}")
    _describes(op, what, t, of)


class QnnOp(RelayOp):
    """Base of the qnn ops: graph ops (type inference, patterns) of their own dialect."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE


@irdl_op_definition
class QuantizeOp(QnnOp):
    """Float to u8/s8: `clamp(round(x / scale) + zp)` (ONNX QuantizeLinear)."""

    name = "qnn.quantize"
    data = operand_def(TensorType)
    scale = operand_def(TensorType)
    zero_point = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        x, scale, zp = types
        if not is_float(x.get_element_type()):
            raise VerifyException(f"{cls.name}: data must be a float tensor, got {x}")
        _scale(cls.name, "scale", scale, x)
        _quantized(cls.name, "zero_point", zp)
        _describes(cls.name, "zero_point", zp, x)
        return tensor(shape_of(x), zp.get_element_type())


@irdl_op_definition
class DequantizeOp(QnnOp):
    """u8/s8 (or i32) to float: `(q - zp) * scale` (ONNX DequantizeLinear)."""

    name = "qnn.dequantize"
    data = operand_def(TensorType)
    scale = operand_def(TensorType)
    zero_point = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        q, scale, zp = types
        _quantized(cls.name, "data", q, also_i32=True)
        _scale(cls.name, "scale", scale, q)
        _zero_point(cls.name, "zero_point", zp, q)
        return tensor(shape_of(q), scale.get_element_type())


def clamp_range(src: PropSource, elem: Attribute) -> tuple[int, int]:
    """A requantize's clamp range: `out_min`/`out_max` where set, else the
    bounds of its output type `elem`."""
    return ClampAttrs(src).clamp(*quantized_range(elem))


@irdl_op_definition
class RequantizeOp(QnnOp):
    """An i32 accumulator to u8/s8: `clamp(round(acc * multiplier) + zp)`, the
    product in f32 (as onnxruntime), the multiplier `in_scale / out_scale`; clamped to
    `[out_min, out_max]` (by default the output type's range: a narrower one is
    a folded relu or clip)."""

    name = "qnn.requantize"
    data = operand_def(TensorType)
    multiplier = operand_def(TensorType)
    zero_point = operand_def(TensorType)
    out_min = opt_prop_def(IntegerAttr)
    out_max = opt_prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE
    ATTRS: ClassVar[type[OpAttrs]] = ClampAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        acc, multiplier, zp = types
        if acc.get_element_type() != I32:
            raise VerifyException(f"{cls.name}: data must be an i32 accumulator, got {acc}")
        _scale(cls.name, "multiplier", multiplier, acc)
        _quantized(cls.name, "zero_point", zp)
        _describes(cls.name, "zero_point", zp, acc)
        elem = zp.get_element_type()
        lo, hi = clamp_range(props, elem)
        full = quantized_range(elem)
        if not full[0] <= lo <= hi <= full[1]:
            raise VerifyException(
                f"{cls.name}: the clamp range [{lo}, {hi}] must be non-empty and within "
                f"{elem}'s [{full[0]}, {full[1]}]"
            )
        return tensor(shape_of(acc), elem)


def _zero_points(op: str, pairs: list[tuple[str, TensorType, TensorType]]) -> None:
    for what, zp, of in pairs:
        _quantized(op, what.split("_zp")[0], of)
        _zero_point(op, what, zp, of)


@irdl_op_definition
class MatMulOp(QnnOp):
    """`matmul(a - a_zp, b - b_zp)` in i32, numpy's batched matmul (ONNX
    MatMulInteger): a's zero point per tensor or per row (`[M, 1]`), b's per
    tensor or per column (`[N]`)."""

    name = "qnn.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    lhs_zero_point = operand_def(TensorType)
    rhs_zero_point = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        a, b, a_zp, b_zp = types
        _zero_points(cls.name, [("lhs_zp", a_zp, a), ("rhs_zp", b_zp, b)])
        out = relay.MatmulOp.infer([tensor(shape_of(t), f32) for t in (a, b)], props)
        return tensor(shape_of(out), I32)


@irdl_op_definition
class Conv2DOp(QnnOp):
    """2-D convolution of `x - x_zp` by `w - w_zp` in i32 (ONNX ConvInteger;
    `relay.conv2d`'s attributes): x's zero point per tensor, w's per tensor or
    per output channel (`[O, 1, 1, 1]`)."""

    name = "qnn.conv2d"
    DEFAULTS: ClassVar[dict[str, Any]] = relay.Conv2DOp.DEFAULTS
    ATTRS: ClassVar[type[OpAttrs]] = relay.ConvAttrs
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    data_zero_point = operand_def(TensorType)
    weight_zero_point = operand_def(TensorType)
    strides = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    groups = opt_prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        x, w, x_zp, w_zp = types
        _zero_points(cls.name, [("data_zp", x_zp, x), ("weight_zp", w_zp, w)])
        out = relay.Conv2DOp.infer([tensor(shape_of(t), f32) for t in (x, w)], props)
        return tensor(shape_of(out), I32)


class _BinaryOp(QnnOp):
    """Elementwise on the real values of two quantized tensors, quantized to
    the output's scale and zero point (its element type)."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    lhs_scale = operand_def(TensorType)
    lhs_zero_point = operand_def(TensorType)
    rhs_scale = operand_def(TensorType)
    rhs_zero_point = operand_def(TensorType)
    output_scale = operand_def(TensorType)
    output_zero_point = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        a, b, a_s, a_zp, b_s, b_zp, y_s, y_zp = types
        _zero_points(cls.name, [("lhs_zp", a_zp, a), ("rhs_zp", b_zp, b)])
        _scale(cls.name, "lhs_scale", a_s, a)
        _scale(cls.name, "rhs_scale", b_s, b)
        out = broadcast_shapes(cls.name, shape_of(a), shape_of(b))
        _quantized(cls.name, "output_zero_point", y_zp)
        result = tensor(out, y_zp.get_element_type())
        _scale(cls.name, "output_scale", y_s, result)
        _describes(cls.name, "output_zero_point", y_zp, result)
        return result


@irdl_op_definition
class AddOp(_BinaryOp):
    name = "qnn.add"


@irdl_op_definition
class MulOp(_BinaryOp):
    name = "qnn.mul"


def _per_tensor(op: str, what: str, t: TensorType) -> None:
    if math.prod(shape_of(t)) != 1:
        raise VerifyException(f"{op}: {what} must be per tensor (one element), got {t}")


@irdl_op_definition
class SoftmaxOp(QnnOp):
    """Softmax of quantized codes along `axis`, onnxruntime's QLinearSoftmax
    arithmetic (a table of exp over the codes' distance below the row's max,
    an f32 sum, the output scaled by `floor(1 / y_scale)`)."""

    name = "qnn.softmax"
    data = operand_def(TensorType)
    data_scale = operand_def(TensorType)
    data_zero_point = operand_def(TensorType)
    output_scale = operand_def(TensorType)
    output_zero_point = operand_def(TensorType)
    axis = opt_prop_def(IntegerAttr)
    ATTRS: ClassVar[type[OpAttrs]] = relay.SoftmaxAttrs
    output = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        x, x_s, x_zp, y_s, y_zp = types
        if x.get_element_type() not in QUANTIZED[:2]:
            raise VerifyException(f"{cls.name}: data must be ui8 or i8, got {x}")
        _zero_point(cls.name, "data_zero_point", x_zp, x)
        if y_zp.get_element_type() not in QUANTIZED[:2]:
            raise VerifyException(f"{cls.name}: output_zero_point must be ui8 or i8, got {y_zp}")
        for what, t in (("data_scale", x_s), ("output_scale", y_s)):
            _scale(cls.name, what, t, x)
        for what, t in (("data_scale", x_s), ("data_zero_point", x_zp), ("output_scale", y_s), ("output_zero_point", y_zp)):
            _per_tensor(cls.name, what, t)
        shape = shape_of(x)
        axis = normalize_axis(cls.name, cls.attrs_of(props).axis, len(shape))
        if not isinstance(shape[axis], int) or shape[axis] < 1:
            raise VerifyException(f"{cls.name}: the size along axis {axis} must be static and non-zero, got {x}")
        return tensor(shape, y_zp.get_element_type())


QNN_OPS: tuple[type[RelayOp], ...] = (
    QuantizeOp, DequantizeOp, RequantizeOp, MatMulOp, Conv2DOp, AddOp, MulOp, SoftmaxOp, *PACKED_OPS
)
QNN = Dialect("qnn", list(QNN_OPS), [])

__all__ = [
    "QNN",
    "QNN_OPS",
    "QUANTIZED",
    "AddOp",
    "Conv2DOp",
    "DequantizeOp",
    "MatMulOp",
    "MulOp",
    "QnnOp",
    "QuantizeOp",
    "RequantizeOp",
    "SoftmaxOp",
    "clamp_range",
    "quantized_range",
]
