"""The qnn ops the int8 kernels run: u8 x s8 products accumulated in i32 over
operands packed for x86's `vpdpbusd` (4 consecutive bytes of the reduction
per i32 lane, TVM's `conv2d_NCHWc_int8` and `dense_vnni` layouts), with the
requantization fused into the write-back:

    out = clamp(round(f32(acc + bias) * multiplier) + zero_point, out_min, out_max)

`acc` is the sum of `u8(x) * s8(w)` (raw values: the input's zero point
correction is part of the constant `bias`, computed when compiling; the
weight's zero point is 0), the product in f32 rounded half to even, as
`qnn.requantize`. `qnn-canonicalize` makes them from `qnn.conv2d`/`qnn.matmul`
followed by `qnn.requantize` where the host's kernels apply. Part of the `qnn`
dialect (`dialects/qnn/__init__.py` lists them).

- `qnn.conv2d_nchwc x, w, bias, multiplier, zp`: x u8 `[N, C/cb, H, W, cb]`
  (already padded with its zero point), w s8 `[O/ob, C/cb, KH, KW, cb/4, 4*ob]`
  (for each quad of input channels, `ob` output channels' 4 bytes),
  bias i32 and multiplier f32 `[O/ob, ob]`, zp the output's zero point (a u8 or
  s8 scalar, its type the output's) -> `[N, O/ob, OH, OW, ob]`.
- `qnn.conv2d_nchwc_add x, w, bias, multiplier, zp, r, scale, r_scale,
  r_zp, y_scale, y_zp`: the convolution above, then `qnn.add` of its result
  (the real value `(q - zp) * scale`) and the residual `r` (its output's
  shape; `(r - r_zp) * r_scale`), quantized to `y_scale`, `y_zp` over the
  whole range of `y_zp`'s type, in f32 as `qnn-canonicalize` writes
  `qnn.add` (`round(lhs * r_lhs + (rhs * r_rhs + k))`, `residual_lhs` when
  `r` was its left operand). The scales are f32 scalars, the zero points u8
  or s8 scalars.
- `qnn.dense_packed a, w, bias, multiplier, zp`: a u8 `[M, K]`, w s8
  `[N/nb, K/4, 4*nb]`, bias i32 and multiplier f32 `[N]` -> `[M, N]`.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    UnitAttr,
    f32,
)
from xdsl.ir import Attribute
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
    FlagField,
    IntField,
    IntsField,
    OpAttrs,
    OpPattern,
    PropSource,
    RelayOp,
    shape_of,
    tensor,
)

U8 = IntegerType(8, Signedness.UNSIGNED)
S8 = IntegerType(8)
I32 = IntegerType(32)
_RANGES = {U8: (0, 255), S8: (-128, 127)}


def _expect(op: str, what: str, t: TensorType, elem: Attribute, shape: tuple[int, ...] | None = None) -> None:
    if t.get_element_type() != elem or (shape is not None and shape_of(t) != shape):
        want = f"tensor<{''.join(f'{d}x' for d in shape)}{elem}>" if shape is not None else f"a {elem} tensor"
        raise VerifyException(f"{op}: {what} must be {want}, got {t}")


class ClampAttrs(OpAttrs):
    """A requantization's clamp range, where set."""

    out_min = IntField(None)
    out_max = IntField(None)

    def clamp(self, lo: int, hi: int) -> tuple[int, int]:
        """`out_min`/`out_max`, else the bounds `lo`/`hi` of the output type."""
        return (
            lo if self.out_min is None else self.out_min,
            hi if self.out_max is None else self.out_max,
        )


class PackedConvAttrs(ClampAttrs):
    strides = IntsField()
    dilation = IntsField()


class PackedConvAddAttrs(PackedConvAttrs):
    residual_lhs = FlagField()


def _epilogue(op: str, props: PropSource, bias: TensorType, mult: TensorType, zp: TensorType, channels: tuple[int, ...]) -> Attribute:
    """The fused requantization's operands and clamp range; the output type."""
    _expect(op, "bias", bias, I32, channels)
    _expect(op, "multiplier", mult, f32, channels)
    elem = zp.get_element_type()
    if elem not in _RANGES or shape_of(zp):
        raise VerifyException(f"{op}: the zero point must be a ui8 or i8 scalar, got {zp}")
    lo, hi = _RANGES[elem]
    got = ClampAttrs(props, op).clamp(lo, hi)
    if not lo <= got[0] <= got[1] <= hi:
        raise VerifyException(f"{op}: the clamp range [{got[0]}, {got[1]}] must be non-empty and within {elem}'s [{lo}, {hi}]")
    return elem


class PackedOp(RelayOp):
    """Base of the packed int8 ops (opaque to fusion: their epilogue is fused
    in already)."""

    out_min = opt_prop_def(IntegerAttr)
    out_max = opt_prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = ClampAttrs

    def clamp(self) -> tuple[int, int]:
        """The output's clamp range."""
        lo, hi = _RANGES[self.operands[4].type.get_element_type()]  # type: ignore[attr-defined]
        return self.attrs.clamp(lo, hi)


class _ConvNCHWc(PackedOp):
    """The operands and window of the blocked int8 convolutions."""

    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = operand_def(TensorType)
    multiplier = operand_def(TensorType)
    zero_point = operand_def(TensorType)
    strides = prop_def(DenseArrayBase)
    dilation = prop_def(DenseArrayBase)
    ATTRS: ClassVar[type[OpAttrs]] = PackedConvAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        x, w, bias, mult, zp = types[:5]
        xs, ws = shape_of(x), shape_of(w)
        if len(xs) != 5 or not all(isinstance(d, int) for d in (*xs, *ws)):
            raise VerifyException(f"{cls.name}: data must be a static [N, C/cb, H, W, cb], got {x}")
        _expect(cls.name, "data", x, U8)
        n, cblocks, h, wd, cb = xs
        if len(ws) != 6 or ws[1] != cblocks or ws[4] * 4 != cb or ws[5] % 4 or cb % 4:
            raise VerifyException(
                f"{cls.name}: weight must be [O/ob, {cblocks}, KH, KW, {cb // 4}, 4*ob] for data {x}, got {w}"
            )
        _expect(cls.name, "weight", w, S8)
        oblocks, _, kh, kw, _, width = ws
        ob = width // 4
        attrs = cls.attrs_of(props)
        sh, sw = attrs.strides
        dh, dw = attrs.dilation
        oh = (h - (kh - 1) * dh - 1) // sh + 1
        ow = (wd - (kw - 1) * dw - 1) // sw + 1
        if min(sh, sw, dh, dw) < 1 or oh < 1 or ow < 1:
            raise VerifyException(f"{cls.name}: a {kh}x{kw} window (strides {sh}, {sw}, dilation {dh}, {dw}) does not fit {x}")
        elem = _epilogue(cls.name, props, bias, mult, zp, (oblocks, ob))
        return tensor([n, oblocks, oh, ow, ob], elem)


@irdl_op_definition
class Conv2DNCHWcOp(_ConvNCHWc):
    """An int8 convolution over blocked layouts, requantized (see the module)."""

    name = "qnn.conv2d_nchwc"


@irdl_op_definition
class Conv2DNCHWcAddOp(_ConvNCHWc):
    """`qnn.conv2d_nchwc` with a residual `qnn.add` fused in its write-back
    (see the module): the residual is read once, where the result is written,
    instead of a kernel of its own reading both."""

    name = "qnn.conv2d_nchwc_add"
    residual = operand_def(TensorType)
    scale = operand_def(TensorType)
    residual_scale = operand_def(TensorType)
    residual_zero_point = operand_def(TensorType)
    output_scale = operand_def(TensorType)
    output_zero_point = operand_def(TensorType)
    residual_lhs = opt_prop_def(UnitAttr)
    ATTRS: ClassVar[type[OpAttrs]] = PackedConvAddAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        conv = super().infer(types, props)
        r, scale, r_scale, r_zp, y_scale, y_zp = types[5:]
        if shape_of(r) != shape_of(conv) or r.get_element_type() not in _RANGES:
            raise VerifyException(f"{cls.name}: the residual must be a u8 or i8 tensor of the convolution's shape {'x'.join(map(str, shape_of(conv)))}, got {r}")
        for what, t in (("scale", scale), ("residual_scale", r_scale), ("output_scale", y_scale)):
            _expect(cls.name, what, t, f32, ())
        if r_zp.get_element_type() != r.get_element_type() or shape_of(r_zp):
            raise VerifyException(f"{cls.name}: residual_zero_point must be a {r.get_element_type()} scalar, got {r_zp}")
        if y_zp.get_element_type() not in _RANGES or shape_of(y_zp):
            raise VerifyException(f"{cls.name}: output_zero_point must be a ui8 or i8 scalar, got {y_zp}")
        return tensor(shape_of(conv), y_zp.get_element_type())

    def output_range(self) -> tuple[int, int]:
        """The clamp of the fused add: its zero point's type's range."""
        return _RANGES[self.output_zero_point.type.get_element_type()]  # type: ignore[attr-defined]


@irdl_op_definition
class DensePackedOp(PackedOp):
    """An int8 matrix product `a @ w^T` over a packed weight, requantized."""

    name = "qnn.dense_packed"
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = operand_def(TensorType)
    multiplier = operand_def(TensorType)
    zero_point = operand_def(TensorType)

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        a, w, bias, mult, zp = types
        if len(shape_of(a)) != 2:
            raise VerifyException(f"{cls.name}: data must be 2-D [M, K], got {a}")
        (m, k), ws = shape_of(a), shape_of(w)
        _expect(cls.name, "data", a, U8)
        _expect(cls.name, "weight", w, S8)
        if len(ws) != 3 or ws[1] * 4 != k or ws[2] % 4 or k % 4:
            raise VerifyException(f"{cls.name}: weight must be [N/nb, {k // 4}, 4*nb] for data {a}, got {w}")
        n = ws[0] * ws[2] // 4
        elem = _epilogue(cls.name, props, bias, mult, zp, (n,))
        return tensor([m, n], elem)


PACKED_OPS: tuple[type[PackedOp], ...] = (Conv2DNCHWcOp, Conv2DNCHWcAddOp, DensePackedOp)

__all__ = ["PACKED_OPS", "Conv2DNCHWcAddOp", "Conv2DNCHWcOp", "DensePackedOp", "PackedOp"]
