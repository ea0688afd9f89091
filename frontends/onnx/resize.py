"""Resize and Upsample: every ONNX resize mode, coordinate transformation and
rounding, with scales or sizes, axes and keep_aspect_ratio_policy.

Scales, sizes and roi known while compiling give `relay.resize`; given only
when the model runs (or folded to symbolic dims), their output sizes are
computed then (`runtime_shapes`) and `relay.dyn_resize` reads the scales and
roi as data (antialiased, its taps along each axis a size set by the scale)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, StringAttr, f64
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.shapes import dims_attr
from lamina.frontends.onnx import runtime_shapes as rs
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import _axis, _cast, _ints, _unit
from lamina.frontends.onnx.registry import converter
from lamina.symbolic import Dim, Sym

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
    emits=("relay.resize", "relay.dyn_resize"),
    notes="nearest, linear, cubic; every coordinate mode; scales or sizes (run-time too), axes, "
    "keep_aspect_ratio_policy, antialias",
)
def _resize(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    s = shape(x)
    rank = len(s)
    mode = str(ctx.attr("mode", "nearest"))
    if ctx.opset < 11:  # Resize-10: scales only, asymmetric coordinates
        if _run_time(ctx, 1):
            return [_scaled_at_run_time(ctx, x, mode)]
        scales = [float(v) for v in np.asarray(ctx.const_value(1)).reshape(-1)]
        size = [math.floor(d * f) for d, f in zip(s, scales, strict=True)]
        return [_resize_to(ctx, x, size, scales, None, mode, "asymmetric", "floor")]
    antialias = bool(ctx.attr("antialias", 0))
    if antialias and mode == "nearest":
        raise ctx.error("antialias needs mode linear or cubic")
    axes = ctx.attr("axes")
    axes = list(range(rank)) if axes is None else [_axis(ctx, int(a), rank) for a in axes]
    if any([_run_time(ctx, i) for i in (1, 2, 3)]):
        return [_resize_at_run_time(ctx, x, axes, mode, antialias)]
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


@converter(
    "Upsample", emits=("relay.resize", "relay.dyn_resize"), notes="nearest and linear (asymmetric coordinates); run-time scales"
)
def _upsample(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    s = shape(x)
    if ctx.opset >= 9:
        if _run_time(ctx, 1):
            return [_scaled_at_run_time(ctx, x, str(ctx.attr("mode", "nearest")))]
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


def _run_time(ctx: NodeContext, i: int) -> bool:
    """Input `i` is given when the model runs, or holds symbolic dims."""
    if ctx.at_run_time(i):
        return True
    v = ctx.optional_input(i)
    return v is not None and ctx.constants[v].dtype == object


def _given(ctx: NodeContext, i: int) -> SSAValue | None:
    """Optional input `i` if it holds values (an empty tensor stands for none)."""
    v = ctx.optional_input(i)
    return None if v is None or math.prod(shape(v)) == 0 else v


def _resize_at_run_time(ctx: NodeContext, x: SSAValue, axes: list[int], mode: str, antialias: bool) -> SSAValue:
    """Resize whose scales, sizes or roi are given when the model runs: the
    output sizes computed then by ONNX's rules, `relay.dyn_resize` reading the
    scales and roi as data."""
    m = rs.ShapeMath(ctx)
    src = shape(x)
    rank = len(src)
    have = m.dims(x)
    ins = _cast(ctx, have, f64)
    roi, scales_in, sizes_in = _given(ctx, 1), _given(ctx, 2), _given(ctx, 3)
    n = len(axes)
    scale: list[SSAValue] = []
    out: list[SSAValue] = []
    if sizes_in is not None:
        sizes = m.i64(sizes_in)
        ratios = [m.div(_cast(ctx, m.element(sizes, i), f64), m.element(ins, a)) for i, a in enumerate(axes)]
        policy = str(ctx.attr("keep_aspect_ratio_policy", "stretch"))
        if policy == "stretch":
            scale, out = ratios, [m.element(sizes, i) for i in range(n)]
        elif policy in ("not_larger", "not_smaller"):
            pick = m.min if policy == "not_larger" else m.max
            one = ratios[0]
            for r in ratios[1:]:
                one = pick(one, r)
            scale = [one] * n
            out = [m.i64(ctx.emit(relay.FloorOp(m.add(m.mul(one, m.element(ins, a)), m.v(0.5, f64))))) for a in axes]
        else:
            raise ctx.unsupported(f'keep_aspect_ratio_policy="{policy}" is not supported')
    elif scales_in is not None:
        given = _cast(ctx, scales_in, f64)
        scale = [m.element(given, i) for i in range(n)]
        out = [m.i64(ctx.emit(relay.FloorOp(m.mul(m.element(ins, a), s)))) for a, s in zip(axes, scale, strict=True)]
    else:
        raise ctx.error("Resize needs scales or sizes")
    full_scale: list[SSAValue] = [m.v(1.0, f64)] * rank
    begins: list[SSAValue] = [m.v(0.0, f64)] * rank
    ends: list[SSAValue] = [m.v(1.0, f64)] * rank
    coordinates = str(ctx.attr("coordinate_transformation_mode", "half_pixel"))
    if coordinates == "tf_crop_and_resize":
        if roi is None:
            raise ctx.error("tf_crop_and_resize needs roi")
        r = _cast(ctx, roi, f64)
        for i, a in enumerate(axes):
            begins[a], ends[a] = m.element(r, i), m.element(r, n + i)
    for s, a in zip(scale, axes, strict=True):
        full_scale[a] = s
    positive = m.all(m.lt(m.v(0.0, f64), m.concat([_cast(ctx, m.reshape(s, [1]), f64) for s in scale])))
    params = m.concat([m.reshape(v, [1]) for v in (*full_scale, *begins, *ends)])
    params = m.check(params, positive, "scales must be positive")
    names = rs.fresh(ctx, "r", rank)
    sizes_attr = [names[a] if a in axes else "" for a in range(rank)]
    dims = [Sym.var(names[a]) if a in axes else src[a] for a in range(rank)]
    target = m.stack([out[axes.index(a)] if a in axes else m.element(have, a) for a in range(rank)])
    taps = [_taps(ctx, s, mode) for _, s in sorted(zip(axes, scale, strict=True))] if antialias else []
    return _emit_dyn_resize(ctx, x, target, params, sizes_attr, dims, axes, mode, coordinates, taps=taps)


def _taps(ctx: NodeContext, scale: SSAValue, mode: str) -> SSAValue:
    """The taps of an antialiased resize along an axis of run-time `scale`:
    `[0, T)` over a size set by the data, `T = 2 - 2 (floor(-support /
    min(scale, 1)) + 1)` (the kernel widened by the inverse of a downscale)."""
    m = rs.ShapeMath(ctx)
    support = 1.0 if mode == "linear" else 2.0
    shrink = m.min(scale, m.v(1.0, f64))
    first = m.add(m.i64(ctx.emit(relay.FloorOp(m.div(m.v(-support, f64), shrink)))), 1)
    return rs.arange(ctx, m.sub(2, m.mul(first, 2)), "taps")


def _scaled_at_run_time(ctx: NodeContext, x: SSAValue, mode: str) -> SSAValue:
    """Resize-10 and Upsample with scales given when the model runs:
    asymmetric coordinates, floor rounding."""
    m = rs.ShapeMath(ctx)
    src = shape(x)
    rank = len(src)
    if mode == "bilinear":
        mode = "linear"
    given = _cast(ctx, ctx.input(1), f64)
    ins = _cast(ctx, m.dims(x), f64)
    out = [m.i64(ctx.emit(relay.FloorOp(m.mul(m.element(ins, a), m.element(given, a))))) for a in range(rank)]
    zeros, ones = (m.v(np.full(rank, v, np.float64), f64) for v in (0.0, 1.0))
    params = m.check(m.concat([given, zeros, ones]), m.lt(m.v(0.0, f64), given), "scales must be positive")
    names = rs.fresh(ctx, "r", rank)
    axes = list(range(rank))
    return _emit_dyn_resize(ctx, x, m.stack(out), params, names, [Sym.var(n) for n in names], axes, mode, "asymmetric", "floor")


def _emit_dyn_resize(
    ctx: NodeContext, x: SSAValue, target: SSAValue, params: SSAValue, sizes: list[str], dims: list[Dim],
    axes: list[int], mode: str, coordinates: str, rounding: str | None = None, taps: Sequence[SSAValue] = (),
) -> SSAValue:
    if mode not in _RESIZE_METHODS:
        raise ctx.unsupported(f'mode="{mode}" is not supported')
    if coordinates not in relay.RESIZE_COORDINATES:
        raise ctx.unsupported(f'coordinate_transformation_mode="{coordinates}" is not supported')
    rounding = rounding or str(ctx.attr("nearest_mode", "round_prefer_floor"))
    if rounding not in relay.RESIZE_ROUNDING:
        raise ctx.unsupported(f'nearest_mode="{rounding}" is not supported')
    method = _RESIZE_METHODS[mode]
    return ctx.emit(
        relay.DynResizeOp(
            x, target, params, *taps,
            antialias=_unit(bool(taps)),
            sizes=ArrayAttr([StringAttr(n) for n in sizes]),
            dims=dims_attr(dims),
            axes=relay.i64_array(sorted(axes)),
            method=StringAttr(method),
            coordinate_transformation_mode=StringAttr(coordinates),
            rounding_method=StringAttr(rounding) if method == "nearest_neighbor" else None,
            cubic_alpha=relay.f64_attr(float(ctx.attr("cubic_coeff_a", -0.75))) if method == "cubic" else None,
            cubic_exclude=_unit(ctx.attr("exclude_outside", 0)),
            extrapolation_value=relay.f64_attr(float(ctx.attr("extrapolation_value", 0.0)))
            if coordinates == "tf_crop_and_resize"
            else None,
        )
    )
