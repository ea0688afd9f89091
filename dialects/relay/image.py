"""Graph ops that decode an encoded image (ONNX ImageDecoder) when the model
runs, through the runtime's decoder (`lamina.abi.IMAGE_DECODE`; TVM calls such
host code with `call_packed`):

- `relay.image_shape` reads the image's header: its `[height, width,
  channels]` as an i64 `[3]`, and a status (0, or an `IMAGE_ERRORS` code);
- `relay.image_decode`, a `DynShapeOp`, decodes it into a `[h, w, c]` uint8
  tensor whose height and width are sizes that shape sets (unbounded: the
  runtime plans them at a capacity it grows), and gives a status too.

The importer stops the run on a nonzero status with `relay.check`, naming the
node and what went wrong.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IntegerType, Signedness, StringAttr, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from lamina.abi import PIXEL_FORMATS
from lamina.dialects.relay.base import (
    ChoiceField,
    OpAttrs,
    OpPattern,
    RelayOp,
    shape_of,
    tensor,
)
from lamina.dialects.relay.dynamic import (
    DynShapeAttrs,
    DynShapeOp,
    SetsSizes,
    _size_names,
)

I64 = IntegerType(64)
U8 = IntegerType(8, Signedness.UNSIGNED)
#: Channels of each pixel format.
CHANNELS = {"RGB": 3, "BGR": 3, "Grayscale": 1}


class ImageAttrs(OpAttrs):
    pixel_format = ChoiceField(tuple(PIXEL_FORMATS), "RGB")


class ImageDecodeAttrs(DynShapeAttrs, ImageAttrs):
    pass


def _check_encoded(op_name: str, data: TensorType) -> None:
    if data.get_element_type() != U8 or len(shape_of(data)) != 1:
        raise VerifyException(f"{op_name}: data must be the encoded image as a 1-D ui8 tensor, got {data}")


@irdl_op_definition
class ImageShapeOp(RelayOp):
    """The `[height, width, channels]` of the image encoded in `data` (1-D
    ui8), channels as `pixel_format` has them (RGB, BGR: 3, Grayscale: 1),
    and `status`, 0 or the decoder's error code (the shape is then not valid).
    `%s, %st = relay.image_shape %data {pixel_format = "BGR"}`."""

    name = "relay.image_shape"
    data = operand_def(TensorType)
    pixel_format = opt_prop_def(StringAttr)
    shape = result_def(TensorType)
    status = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = ImageAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> list[TensorType]:
        (data,) = types
        _check_encoded(cls.name, data)
        cls.attrs_of(props).checked()
        return [tensor([3], I64), tensor([], I64)]


@irdl_op_definition
class ImageDecodeOp(DynShapeOp):
    """The image encoded in `data` (1-D ui8) as `[h, w, c]` ui8 pixels in
    `pixel_format`, `shape` its `relay.image_shape`, which sets the sizes `h`
    and `w` (`sizes = ["h", "w", ""]`, `dims = ["h", "w", 3]`); `status` is 0
    or the decoder's error code (the pixels are then not valid)."""

    name = "relay.image_decode"
    data = operand_def(TensorType)  # (restated: operands, then results, in this order)
    shape = operand_def(TensorType)
    pixel_format = opt_prop_def(StringAttr)
    output = result_def(TensorType)
    status = result_def(TensorType)
    traits = traits_def(SetsSizes())
    ATTRS: ClassVar[type[OpAttrs]] = ImageDecodeAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> list[TensorType]:
        data, shape = types
        _check_encoded(cls.name, data)
        out = super().infer(types, props)
        if shape_of(shape) != (3,):
            raise VerifyException(f"{cls.name}: shape must be [height, width, channels] (tensor<3xi64>), got {shape}")
        channels = CHANNELS[cls.attrs_of(props).checked().pixel_format]
        names = _size_names(cls.name, props, 3)
        c = shape_of(out)[2]
        if not names[0] or not names[1] or names[2]:
            raise VerifyException(f"{cls.name}: the height and width are sizes it sets, the channels are not: sizes = {names}")
        if c != channels:
            raise VerifyException(f"{cls.name}: pixel_format has {channels} channel(s), but dims give {c}")
        return [out, tensor([], I64)]


__all__ = ["ImageDecodeOp", "ImageShapeOp"]
