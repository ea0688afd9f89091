"""Image converters over regions and positions given at run time: RoiAlign
(`relay.roi_align`, an extern kernel), DeformConv (the columns of
`relay.deform_im2col` times the weight, a batched `relay.matmul` per group)
and MaxUnpool (a `relay.scatter_elements` of the values into zeros at their
flat indices, padded to an output_shape, given at run time or not).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.shapes import dims_attr
from lamina.frontends.onnx import runtime_shapes as rs
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import _elem, _ints, _rank, _reshape, _unit
from lamina.frontends.onnx.nn import _spatial_attrs
from lamina.frontends.onnx.registry import converter

_ROI_MODES = {"half_pixel": True, "output_half_pixel": False}


@converter(
    "RoiAlign",
    emits=("relay.roi_align",),
    notes="avg and max; half_pixel and output_half_pixel; rois and batch_indices at run time",
)
def _roi_align(ctx: NodeContext) -> Sequence[SSAValue]:
    x, rois, indices = ctx.input(0), ctx.input(1), ctx.input(2)
    if _rank(x) != 4 or not relay.is_float(_elem(x)):
        raise ctx.error(f"X must be a 4-D floating-point (N, C, H, W) tensor, got shape {list(shape(x))}")
    if _elem(rois) != _elem(x):
        raise ctx.error(
            f"rois ({numpy_dtype(_elem(rois))}) must have X's element type ({numpy_dtype(_elem(x))})"
        )
    # opset 16 added the attribute, defaulting to the shifted (half_pixel) form
    transform = str(ctx.attr("coordinate_transformation_mode", "half_pixel" if ctx.opset >= 16 else "output_half_pixel"))
    if transform not in _ROI_MODES:
        raise ctx.error(f'coordinate_transformation_mode="{transform}" is not one of {", ".join(_ROI_MODES)}')
    mode = str(ctx.attr("mode", "avg"))
    if mode not in relay.ROI_ALIGN_MODES:
        raise ctx.error(f'mode="{mode}" is not one of {", ".join(relay.ROI_ALIGN_MODES)}')
    size = [int(ctx.attr("output_height", 1)), int(ctx.attr("output_width", 1))]
    ratio = int(ctx.attr("sampling_ratio", 0))
    scale = float(ctx.attr("spatial_scale", 1.0))
    if min(size) < 1 or ratio < 0 or not scale > 0:
        raise ctx.error(
            f"needs output_height and output_width >= 1 (got {size}), sampling_ratio >= 0 "
            f"(got {ratio}) and spatial_scale > 0 (got {scale})"
        )
    n_rois = shape(rois)[0] if _rank(rois) == 2 else None
    if _rank(rois) != 2 or shape(rois)[1] != 4 or shape(indices) != (n_rois,):
        raise ctx.error(
            f"rois must be (R, 4) and batch_indices (R), got shapes {list(shape(rois))} and {list(shape(indices))}"
        )
    op = relay.RoiAlignOp(
        x,
        rois,
        indices,
        output_size=relay.i64_array(size),
        spatial_scale=relay.f64_attr(scale),
        sampling_ratio=relay.i64_attr(ratio),
        mode=StringAttr(mode),
        aligned=_unit(_ROI_MODES[transform]),
    )
    return [ctx.emit(op)]


@converter(
    "DeformConv",
    emits=("relay.deform_im2col", "relay.matmul", "relay.bias_add"),
    notes="N-D; offsets and mask at run time; groups, offset groups, bias, pads, dilations, strides",
)
def _deform_conv(ctx: NodeContext) -> Sequence[SSAValue]:
    x, w, offset = ctx.input(0), ctx.input(1), ctx.input(2)
    bias, mask = ctx.optional_input(3), ctx.optional_input(4)
    dims, wdims = shape(x), shape(w)
    n = len(dims) - 2
    if n < 1 or len(wdims) != n + 2 or not relay.is_float(_elem(x)):
        raise ctx.error(
            f"X (N, C, D1..Dn) and W (oC, C/group, k1..kn) must be floating-point with n >= 1, "
            f"got shapes {list(dims)} and {list(wdims)}"
        )
    kernel = [int(k) for k in ctx.attr("kernel_shape", wdims[2:])]
    if kernel != list(wdims[2:]):
        raise ctx.error(f"kernel_shape {kernel} does not match the weight {list(wdims)}")
    strides, dilations, pads = _spatial_attrs(ctx, n, kernel)
    group, offset_group = int(ctx.attr("group", 1)), int(ctx.attr("offset_group", 1))
    channels, out_channels = dims[1], wdims[0]
    if group < 1 or channels != wdims[1] * group or out_channels % group:
        raise ctx.error(
            f"group={group} must divide the output channels ({out_channels}), and X's "
            f"{channels} channels must be group x W's {wdims[1]}"
        )
    cols = ctx.emit(
        relay.DeformIm2ColOp(
            x,
            offset,
            mask,
            kernel_size=relay.i64_array(kernel),
            strides=relay.i64_array(strides),
            padding=relay.i64_array(pads),
            dilation=relay.i64_array(dilations),
            offset_groups=relay.i64_attr(offset_group),
        )
    )
    out = list(shape(cols)[2:])
    depth = wdims[1] * math.prod(kernel)  # C / group x taps: one group's rows
    positions = math.prod(out)
    lead = [group] if group > 1 else []
    rows = _reshape(ctx, cols, [dims[0], *lead, depth, positions])
    weights = _reshape(ctx, w, [*lead, out_channels // group, depth])
    y = ctx.emit(relay.MatmulOp(weights, rows))  # (N, [group,] oC / group, positions)
    y = _reshape(ctx, y, [dims[0], out_channels, *out])
    if bias is not None:
        if shape(bias) != (out_channels,):
            raise ctx.error(f"B must have shape [{out_channels}] (one per output channel), got {list(shape(bias))}")
        y = ctx.emit(relay.BiasAddOp(y, bias))
    return [y]


@converter(
    "MaxUnpool",
    emits=("relay.broadcast_to", "relay.scatter_elements", "relay.pad"),
    notes="N-D; output_shape constant or given at run time",
)
def _max_unpool(ctx: NodeContext) -> Sequence[SSAValue]:
    """The indices are flat into the default output shape (`(in - 1) * stride
    + kernel - pads`, as onnx.reference reads them), which a larger
    output_shape pads with zeros at the end of each axis."""
    x, indices = ctx.input(0), ctx.input(1)
    dims = shape(x)
    n = len(dims) - 2
    kernel = [int(k) for k in ctx.attr("kernel_shape", [])]
    if n < 1 or shape(indices) != dims or not relay.is_int(_elem(indices)):
        raise ctx.error(
            f"X (N, C, D1..Dn) and I must have one shape, I integers; got {list(dims)} and {list(shape(indices))}"
        )
    strides, _, pads = _spatial_attrs(ctx, n, kernel)
    natural = [
        (d - 1) * s - pads[a] - pads[n + a] + k
        for a, (d, s, k) in enumerate(zip(dims[2:], strides, kernel, strict=True))
    ]
    full = [*dims[:2], *natural]
    if any(d < 0 for d in natural):
        raise ctx.error(f"kernel_shape, strides and pads give the negative output size {full}")
    wanted = full
    later = ctx.at_run_time(2)
    if ctx.optional_input(2) is not None and not later:
        wanted = _ints(ctx.const_value(2))
        if len(wanted) != len(full) or wanted[:2] != list(dims[:2]) or any(
            w < f for w, f in zip(wanted, full, strict=True)
        ):
            raise ctx.error(
                f"output_shape {wanted} must keep X's batch and channels {list(dims[:2])} and be "
                f"at least the unpooled shape {full} along each axis"
            )
    zero = ctx.constant(np.zeros((), numpy_dtype(_elem(x))), "zero")
    count = math.prod(full)
    flat = ctx.emit(relay.BroadcastToOp(zero, shape=dims_attr([count])))
    values = _reshape(ctx, x, [math.prod(dims)])
    where = _reshape(ctx, indices, [math.prod(dims)])
    y = ctx.emit(relay.ScatterElementsOp(flat, where, values, axis=relay.i64_attr(0)))
    y = _reshape(ctx, y, full)
    if later:
        return [_unpool_to(ctx, y, rs.values(ctx, 2))]
    if wanted != full:
        grow = [w - f for w, f in zip(wanted, full, strict=True)]
        y = ctx.emit(relay.PadOp(y, pad_width=relay.i64_array([0] * len(full) + grow)))
    return [y]


def _unpool_to(ctx: NodeContext, y: SSAValue, target: SSAValue) -> SSAValue:
    """The unpooled `y` zero-padded at the end of each spatial axis to
    `target`, an output_shape given when the model runs (each of its spatial
    axes a size set by the data), checked then."""
    m = rs.ShapeMath(ctx)
    full = shape(y)
    if shape(target) != (len(full),):
        raise ctx.error(f"output_shape must be 1-D with {len(full)} entries (X's rank), got shape {list(shape(target))}")
    ok = m.and_(m.eq(m.element(target, 0), m.dim(full[0])), m.eq(m.element(target, 1), m.dim(full[1])))
    for a in range(2, len(full)):
        ok = m.and_(ok, m.le(m.dim(full[a]), m.element(target, a)))
    y = m.check(
        y, ok, f"the output_shape given when the model runs must keep X's batch and channels and be at "
        f"least the unpooled shape {list(full)} along each axis",
    )
    zero = m.v(0, _elem(y))
    for a in range(2, len(full)):
        d = m.dim(full[a])

        def source(m: rs.ShapeMath, i: SSAValue, d: SSAValue = d) -> tuple[SSAValue, SSAValue | None]:
            return m.clamp(i, 0, m.sub(d, 1)), m.lt(i, d)

        y = rs.remap(ctx, y, a, m.element(target, a), source, zero)
    return y
