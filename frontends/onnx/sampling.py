"""GridSample, AffineGrid and Col2Im.

AffineGrid is decomposed: its grid is a constant base grid (homogeneous pixel
coordinates in [-1, 1]) times each batch's transposed `theta`, one batched
`relay.matmul`; a `size` given only when the model runs builds each axis'
coordinates over a size set by the data and sums their products with
`theta`'s columns. The `image_shape` and `block_shape` of Col2Im must be
constants.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import StringAttr, f32, f64
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.frontends.onnx import runtime_shapes as rs
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import _cast, _elem, _ints, _reshape, _unit
from lamina.frontends.onnx.registry import converter

#: GridSample's mode names: opset 16 names them as PyTorch, opset 20 as Resize.
_GRID_MODES = {
    16: {"bilinear": "linear", "nearest": "nearest", "bicubic": "cubic"},
    20: {"linear": "linear", "nearest": "nearest", "cubic": "cubic"},
}


@converter(
    "GridSample",
    emits=("relay.grid_sample",),
    notes="nearest, linear, cubic; zeros, border, reflection padding; N-D (opset 20)",
)
def _grid_sample(ctx: NodeContext) -> Sequence[SSAValue]:
    x, grid = ctx.input(0), ctx.input(1)
    names = _GRID_MODES[20 if ctx.opset >= 20 else 16]
    mode = str(ctx.attr("mode", "linear" if ctx.opset >= 20 else "bilinear"))
    if mode not in names:
        raise ctx.unsupported(
            f'mode="{mode}" is not supported; at opset {ctx.opset} it is one of '
            f"{', '.join(names)}"
        )
    method = names[mode]
    padding = str(ctx.attr("padding_mode", "zeros"))
    if padding not in relay.GRID_SAMPLE_PADDING:
        raise ctx.unsupported(f'padding_mode="{padding}" is not supported')
    if ctx.opset < 20 and len(shape(x)) != 4:
        raise ctx.error(f"X must be 4-D before opset 20, got shape {list(shape(x))}")
    if method != "nearest" and not relay.is_float(_elem(x)):
        raise ctx.unsupported(
            f'mode="{mode}" interpolates, so X must be floating-point, got '
            f"{numpy_dtype(_elem(x))} (use mode=\"nearest\" for integer data)"
        )
    op = relay.GridSampleOp(
        x,
        grid,
        method=StringAttr(method),
        padding_mode=StringAttr(padding),
        align_corners=_unit(int(ctx.attr("align_corners", 0))),
    )
    return [ctx.emit(op)]


def _base_axis(size: int, align: bool) -> np.ndarray:
    """The normalized coordinates of `size` pixels along one axis, as ONNX's
    reference computes them (pixel centres in [-1, 1]; the corners with
    `align`). A single pixel sits at 0."""
    if size == 1:
        return np.zeros(1)
    if align:
        values = np.arange(-1, 1 + 0.0001, 2.0 / (size - 1))
    else:
        step = 2.0 / size
        values = np.arange(-1 + step / 2, 1, step)
    return values[:size]


@converter(
    "AffineGrid",
    emits=("relay.constant", "relay.transpose", "relay.matmul", "relay.reshape", "relay.dyn_arange"),
    notes="2-D and 3-D; a constant or run-time size",
)
def _affine_grid(ctx: NodeContext) -> Sequence[SSAValue]:
    theta = ctx.input(0)
    if ctx.at_run_time(1):
        return [_affine_grid_runtime(ctx, theta, rs.values(ctx, 1))]
    size = _ints(ctx.const_value(1))
    align = bool(ctx.attr("align_corners", 0))
    if len(size) not in (4, 5) or any(d < 0 for d in size):
        raise ctx.error(f"size {size} must be (N, C, H, W) or (N, C, D, H, W)")
    spatial = size[2:]
    r = len(spatial)
    if shape(theta) != (size[0], r, r + 1):
        raise ctx.error(
            f"theta of shape {list(shape(theta))} must be ({size[0]}, {r}, {r + 1}) "
            f"for size {size}"
        )
    elem = _elem(theta)
    if not relay.is_float(elem):
        raise ctx.error(f"theta must be floating-point, got {numpy_dtype(elem)}")
    # Homogeneous base coordinates (x, y[, z], 1), the innermost axis first.
    axes = np.meshgrid(*(_base_axis(d, align) for d in spatial), indexing="ij")
    points = math.prod(spatial)
    base = np.stack([*(a.reshape(points) for a in reversed(axes)), np.ones(points)], 1)
    work = f64 if elem == f64 else f32  # f16 is computed in f32
    base_c = ctx.constant(base.astype(numpy_dtype(work)), "affine_grid_base")
    perm = relay.i64_array([0, 2, 1])
    theta_t = ctx.emit(relay.TransposeOp(_cast(ctx, theta, work), perm=perm))
    grid = ctx.emit(relay.MatmulOp(base_c, theta_t))  # (N, points, r)
    return [_cast(ctx, _reshape(ctx, grid, [size[0], *spatial, r]), elem)]


@converter("Col2Im", emits=("relay.col2im",), notes="N-D; constant image and block shapes")
def _col2im(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    image = _ints(ctx.const_value(1))
    block = _ints(ctx.const_value(2))
    n = len(image)
    if len(block) != n:
        raise ctx.error(
            f"block_shape {block} and image_shape {image} must have one value per "
            "spatial axis each"
        )
    attrs = {"dilations": [1] * n, "strides": [1] * n, "pads": [0] * (2 * n)}
    values = {}
    for name, default in attrs.items():
        values[name] = [int(v) for v in ctx.attr(name, default)]
        if len(values[name]) != len(default):
            raise ctx.error(
                f"{name} {values[name]} needs {len(default)} values for {n} spatial axes"
            )
    op = relay.Col2ImOp(
        x,
        image_size=relay.i64_array(image),
        kernel_size=relay.i64_array(block),
        strides=relay.i64_array(values["strides"]),
        padding=relay.i64_array(values["pads"]),
        dilation=relay.i64_array(values["dilations"]),
    )
    return [ctx.emit(op)]


def _affine_grid_runtime(ctx: NodeContext, theta: SSAValue, size: SSAValue) -> SSAValue:
    """AffineGrid for a `size` given when the model runs: per spatial axis,
    the normalized coordinates over a size set by the data, and
    `grid[n, ..., c] = sum_j theta[n, c, j] * base_j + theta[n, c, r]` by
    broadcasting."""
    m = rs.ShapeMath(ctx)
    (k,) = shape(size)
    n, r, cols = shape(theta)
    if k not in (4, 5) or r != k - 2 or cols != r + 1:
        raise ctx.error(f"theta {list(shape(theta))} and size ({k} values) must be (N, r, r + 1) and r + 2 values, r = 2 or 3")
    elem = _elem(theta)
    if not relay.is_float(elem):
        raise ctx.error(f"theta must be floating-point, got {numpy_dtype(elem)}")
    work = f64 if elem == f64 else f32
    align = bool(ctx.attr("align_corners", 0))
    ok = m.and_(m.eq(m.element(size, 0), n), m.all(m.le(0, size)))
    theta = m.check(_cast(ctx, theta, work), ok, f"size must be non-negative, its batch {n} as theta's")
    coords = []
    for a in range(r):  # axis a of (D,) H, W
        d = m.element(size, 2 + a)
        i = _cast(ctx, rs.arange(ctx, d, f"s{a}_"), work)
        df = _cast(ctx, d, work)
        if align:  # -1 + 2 i / (d - 1), 0 for one pixel
            c = m.sub(m.div(m.mul(i, m.v(2.0, work)), m.max(m.sub(df, m.v(1.0, work)), m.v(1.0, work))), m.v(1.0, work))
        else:  # -1 + (2 i + 1) / d
            c = m.sub(m.div(m.add(m.mul(i, m.v(2.0, work)), m.v(1.0, work)), df), m.v(1.0, work))
        coords.append(c)
    spatial = [shape(c)[0] for c in coords]
    out: SSAValue | None = None
    for j, c in enumerate(reversed(coords)):  # theta's column j weighs x, y[, z]
        a = r - 1 - j
        col = ctx.emit(relay.StridedSliceOp(theta, begin=relay.i64_array([0, 0, j]), end=relay.i64_array([n, r, j + 1]), strides=relay.i64_array([1, 1, 1])))
        col = _reshape(ctx, col, [n, *([1] * r), r])
        at = _reshape(ctx, c, [1, *(d if b == a else 1 for b, d in enumerate(spatial)), 1])
        term = m.mul(col, at)
        out = term if out is None else m.add(out, term)
    shift = ctx.emit(relay.StridedSliceOp(theta, begin=relay.i64_array([0, 0, r]), end=relay.i64_array([n, r, r + 1]), strides=relay.i64_array([1, 1, 1])))
    assert out is not None
    grid = m.add(out, _reshape(ctx, shift, [n, *([1] * r), r]))
    return _cast(ctx, grid, elem)
