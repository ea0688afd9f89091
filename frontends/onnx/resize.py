"""Resize and Upsample: every ONNX resize mode, coordinate transformation and
rounding, with scales or sizes, axes and keep_aspect_ratio_policy."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, StringAttr, f64
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import _axis, _ints, _unit
from lamina.frontends.onnx.registry import converter

# ------------------------------------------------------------------ resize
_RESIZE_METHODS = {"nearest": "nearest_neighbor", "linear": "linear", "cubic": "cubic"}


def _resize_to(
    ctx: NodeContext,
    x: SSAValue,
    size: Sequence[int],
    scales: Sequence[float],
    roi: Sequence[float] | None,
    mode: str,
    coordinates: str,
    rounding: str,
    antialias: bool = False,
) -> SSAValue:
    if mode not in _RESIZE_METHODS:
        raise ctx.unsupported(f'mode="{mode}" is not supported')
    if coordinates not in relay.RESIZE_COORDINATES:
        raise ctx.unsupported(f'coordinate_transformation_mode="{coordinates}" is not supported')
    if rounding not in relay.RESIZE_ROUNDING:
        raise ctx.unsupported(f'nearest_mode="{rounding}" is not supported')
    method = _RESIZE_METHODS[mode]
    return ctx.emit(
        relay.ResizeOp(
            x,
            size=relay.i64_array(size),
            scales=DenseArrayBase.from_list(f64, [float(v) for v in scales]),
            roi=None
            if roi is None
            else DenseArrayBase.from_list(f64, [float(v) for v in roi]),
            method=StringAttr(method),
            coordinate_transformation_mode=StringAttr(coordinates),
            rounding_method=StringAttr(rounding) if method == "nearest_neighbor" else None,
            cubic_alpha=relay.f64_attr(float(ctx.attr("cubic_coeff_a", -0.75)))
            if method == "cubic"
            else None,
            cubic_exclude=_unit(ctx.attr("exclude_outside", 0)),
            antialias=_unit(antialias),
            extrapolation_value=relay.f64_attr(float(ctx.attr("extrapolation_value", 0.0)))
            if coordinates == "tf_crop_and_resize"
            else None,
        )
    )


@converter(
    "Resize",
    emits=("relay.resize",),
    notes="nearest, linear, cubic; every coordinate mode; scales or sizes, axes, "
    "keep_aspect_ratio_policy, antialias",
)
def _resize(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    s = shape(x)
    rank = len(s)
    mode = str(ctx.attr("mode", "nearest"))
    if ctx.opset < 11:  # Resize-10: scales only, asymmetric coordinates
        scales = [float(v) for v in np.asarray(ctx.const_value(1)).reshape(-1)]
        size = [math.floor(d * f) for d, f in zip(s, scales, strict=True)]
        return [_resize_to(ctx, x, size, scales, None, mode, "asymmetric", "floor")]
    antialias = bool(ctx.attr("antialias", 0))
    if antialias and mode == "nearest":
        raise ctx.error("antialias needs mode linear or cubic")
    axes = ctx.attr("axes")
    axes = list(range(rank)) if axes is None else [_axis(ctx, int(a), rank) for a in axes]
    roi_in = ctx.optional_const(1)
    scales_in = ctx.optional_const(2)
    sizes_in = ctx.optional_const(3)
    scales = [1.0] * rank
    size = list(s)
    if sizes_in is not None and np.asarray(sizes_in).size:
        given = _ints(sizes_in)
        ratios = [given[i] / s[a] for i, a in enumerate(axes)]
        policy = str(ctx.attr("keep_aspect_ratio_policy", "stretch"))
        if policy == "stretch":
            for i, a in enumerate(axes):
                size[a], scales[a] = given[i], ratios[i]
        elif policy in ("not_larger", "not_smaller"):
            scale = min(ratios) if policy == "not_larger" else max(ratios)
            for a in axes:
                size[a], scales[a] = int(scale * s[a] + 0.5), scale
        else:
            raise ctx.unsupported(f'keep_aspect_ratio_policy="{policy}" is not supported')
    elif scales_in is not None and np.asarray(scales_in).size:
        given_scales = [float(v) for v in np.asarray(scales_in).reshape(-1)]
        for i, a in enumerate(axes):
            scales[a] = given_scales[i]
            size[a] = math.floor(s[a] * given_scales[i])
    else:
        raise ctx.error("Resize needs scales or sizes")
    roi = None
    coordinates = str(ctx.attr("coordinate_transformation_mode", "half_pixel"))
    if coordinates == "tf_crop_and_resize":
        if roi_in is None or np.asarray(roi_in).size == 0:
            raise ctx.error("tf_crop_and_resize needs roi")
        given_roi = [float(v) for v in np.asarray(roi_in).reshape(-1)]
        roi = [0.0] * rank + [1.0] * rank
        for i, a in enumerate(axes):
            roi[a], roi[rank + a] = given_roi[i], given_roi[len(axes) + i]
    rounding = str(ctx.attr("nearest_mode", "round_prefer_floor"))
    return [_resize_to(ctx, x, size, scales, roi, mode, coordinates, rounding, antialias)]


@converter("Upsample", emits=("relay.resize",), notes="nearest and linear (asymmetric coordinates)")
def _upsample(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    s = shape(x)
    if ctx.opset >= 9:
        scales = [float(v) for v in np.asarray(ctx.const_value(1)).reshape(-1)]
    elif ctx.opset >= 7:
        scales = [float(v) for v in ctx.attr("scales")]
    else:  # Upsample-1: NCHW with height_scale and width_scale
        scales = [1.0, 1.0, float(ctx.attr("height_scale")), float(ctx.attr("width_scale"))]
    size = [math.floor(d * f) for d, f in zip(s, scales, strict=True)]
    mode = str(ctx.attr("mode", "nearest"))
    if mode == "bilinear":
        mode = "linear"
    return [_resize_to(ctx, x, size, scales, None, mode, "asymmetric", "floor")]
