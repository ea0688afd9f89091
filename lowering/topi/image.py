"""Extern kernels of the image ops (`lamina.dialects.relay.image`): each calls
the runtime's decoder, `lamina_image_decode` (`lamina.abi.IMAGE_DECODE`), with
`tir.call_extern`, and stores the status it returns."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import SSAValue

from lamina.abi import IMAGE_DECODE, IMAGE_RESHAPED, PIXEL_FORMATS
from lamina.dialects import relay, tir
from lamina.dialects.shapes import dims
from lamina.lowering.lang.tir_builder import TirBuilder
from lamina.lowering.topi.algorithm import I64, register_extern

I32 = IntegerType(32)


def _decode(
    b: TirBuilder, op: relay.RelayOp, data: SSAValue, out: SSAValue, capacity: SSAValue, shape: SSAValue
) -> SSAValue:
    """`lamina_image_decode(data, len(data), pixel_format, out, capacity, shape)`."""
    (n,) = dims(data.type)
    fmt = b.const(PIXEL_FORMATS[op.attrs.pixel_format], I32)
    return b.emit(tir.CallExternOp(IMAGE_DECODE, [data, b.index(n), fmt, out, capacity, shape], I64))


@register_extern(relay.ImageShapeOp)
def _image_shape(b: TirBuilder, op: relay.RelayOp) -> None:
    """A header-only call (capacity 0: `out`, given the shape buffer, is not
    written)."""
    data, shape, status = b.args
    b.store(_decode(b, op, data, shape, b.index(0), shape), status, [])


@register_extern(relay.ImageDecodeOp)
def _image_decode(b: TirBuilder, op: relay.RelayOp) -> None:
    """The pixels, into the output planned at the header's shape; a decoder
    that then reports another shape is an error, not a short write."""
    data, _shape, out, status = b.args
    want = dims(out.type)
    capacity = b.index(want[0] * want[1] * want[2])
    got = b.alloc([3], I64)
    st = _decode(b, op, data, out, capacity, got)
    same = b.all_of(
        [b.cmp("eq", b.load(got, [b.index(i)]), b.from_index(b.index(d), I64)) for i, d in enumerate(want)]
    )
    ok = b.cmp("eq", st, b.const(0, I64))
    b.store(b.select(b.and_(ok, b.not_(same)), b.const(IMAGE_RESHAPED, I64), st), status, [])
