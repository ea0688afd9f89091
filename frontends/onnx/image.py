"""ImageDecoder (opset 20): an encoded image (a 1-D uint8 tensor) decoded when
the model runs, by the runtime's decoder (`lamina.abi.IMAGE_DECODE`: Pillow in
Python, the decoder an application registers with the C runtime).

`relay.image_shape` reads the header; its height and width become sizes set by
the data (`relay.image_decode`, unbounded: any image size, one compile), and a
decoder's error stops the run naming the node: `InputError: the model stopped:
ONNX node 'dec' (ImageDecoder, opset 20): could not decode the image: not a
known image format`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import SSAValue

from lamina.abi import IMAGE_ERRORS
from lamina.dialects import relay
from lamina.dialects.relay.image import CHANNELS, U8
from lamina.dialects.shapes import dims_attr
from lamina.frontends.onnx import runtime_shapes as rs
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import _elem
from lamina.frontends.onnx.registry import converter
from lamina.symbolic import Sym


def _decoded(m: rs.ShapeMath, x: SSAValue, status: SSAValue) -> SSAValue:
    """`x`, once the decoder's `status` is 0: each error code stops the run
    with what it means."""
    for code, why in IMAGE_ERRORS.items():
        x = m.check(x, m.ne(status, code), f"could not decode the image: {why}")
    return m.check(x, m.eq(status, 0), "could not decode the image: the decoder returned an unknown status")


@converter(
    "ImageDecoder",
    emits=("relay.image_shape", "relay.image_decode", "relay.check"),
    notes="decoded when the model runs, by Pillow (or the C runtime's registered decoder); "
    "an image Pillow opens in another mode is converted to RGB",
)
def _image_decoder(ctx: NodeContext) -> Sequence[SSAValue]:
    fmt = ctx.attr("pixel_format", "RGB")
    if fmt not in CHANNELS:
        raise ctx.error(f"pixel_format must be one of {', '.join(CHANNELS)}, got '{fmt}'")
    data = ctx.input(0)
    if _elem(data) != U8 or len(shape(data)) != 1:
        raise ctx.error(f"the encoded image must be a 1-D uint8 tensor, got {data.type}")
    m = rs.ShapeMath(ctx)
    header = relay.ImageShapeOp(data, pixel_format=StringAttr(fmt))
    dims = _decoded(m, *ctx.emit_all(header))
    base = ctx.node.output[0] or "image"
    names = [ctx.fresh_size(f"{base}_height"), ctx.fresh_size(f"{base}_width")]
    decode = relay.ImageDecodeOp(
        data,
        dims,
        sizes=ArrayAttr([StringAttr(n) for n in [*names, ""]]),
        dims=dims_attr([*(Sym.var(n) for n in names), CHANNELS[fmt]]),
        pixel_format=StringAttr(fmt),
    )
    return [_decoded(m, *ctx.emit_all(decode))]
