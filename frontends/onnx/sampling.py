"""GridSample, AffineGrid and Col2Im.

AffineGrid is decomposed: its grid is a constant base grid (homogeneous pixel
coordinates in [-1, 1]) times each batch's transposed `theta`, one batched
`relay.matmul`; a `size` given only when the model runs builds each axis'
coordinates over a size set by the data and sums their products with
`theta`'s columns. Col2Im is `relay.col2im` for constant image and block
shapes; given at run time, a gather over the taps and the pixels, summed.
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


@converter(
    "Col2Im", emits=("relay.col2im", "relay.take", "relay.sum"),
    notes="N-D; image and block shapes constant, or given at run time (a gather and a sum over the taps)",
)
def _col2im(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    later = [ctx.at_run_time(1), ctx.at_run_time(2)]
    image = None if later[0] else _ints(ctx.const_value(1))
    block = None if later[1] else _ints(ctx.const_value(2))
    n = len(image) if image is not None else len(block) if block is not None else shape(ctx.input(1))[0]
    for name, i, given in (("image_shape", 1, image), ("block_shape", 2, block)):
        count = len(given) if given is not None else shape(ctx.input(i))
        if count != n and count != (n,):
            raise ctx.error(f"block_shape and image_shape must have one value per spatial axis each; {name} has {count}")
    if not isinstance(n, int) or n < 1:
        raise ctx.error(f"image_shape must be a 1-D tensor of a static length >= 1, got {n} values")
    if len(shape(x)) != 3:
        raise ctx.error(f"input must be 3-D (N, C * prod(block_shape), L), got {list(shape(x))}")
    attrs = {"dilations": [1] * n, "strides": [1] * n, "pads": [0] * (2 * n)}
    values = {}
    for name, default in attrs.items():
        values[name] = [int(v) for v in ctx.attr(name, default)]
        if len(values[name]) != len(default):
            raise ctx.error(
                f"{name} {values[name]} needs {len(default)} values for {n} spatial axes"
            )
    if image is None or block is None:
        return [_col2im_runtime(ctx, x, image, block, n, values["strides"], values["pads"], values["dilations"])]
    op = relay.Col2ImOp(
        x,
        image_size=relay.i64_array(image),
        kernel_size=relay.i64_array(block),
        strides=relay.i64_array(values["strides"]),
        padding=relay.i64_array(values["pads"]),
        dilation=relay.i64_array(values["dilations"]),
    )
    return [ctx.emit(op)]


def _col2im_runtime(
    ctx: NodeContext, x: SSAValue, image: list[int] | None, block: list[int] | None, n: int,
    strides: list[int], pads: list[int], dilations: list[int],
) -> SSAValue:
    """Col2Im whose image or block shape is given when the model runs: each
    output pixel gathers, for every tap of the block, the value of the block
    position that covers it with that tap (a `relay.take` over the taps and
    pixels, zero where no block does), summed over the taps. The image's
    axes (and the taps, and the channels, for a run-time block shape) are sizes
    set by the data; the shapes are checked then (the blocks must tile
    `input`'s last axis, the block size divide its channels)."""
    m = rs.ShapeMath(ctx)
    batch, packed, blocks = shape(x)

    def entry(given: list[int] | None, i: int, a: int) -> rs.Value:
        return given[a] if given is not None else m.element(rs.values(ctx, i), a)

    img = [entry(image, 1, a) for a in range(n)]
    blk = [entry(block, 2, a) for a in range(n)]
    # Block positions per axis: (image + pads - dilation (block - 1) - 1) / stride + 1.
    span = [m.sub(m.add(img[a], pads[a] + pads[n + a] - 1), m.mul(dilations[a], m.sub(blk[a], 1))) for a in range(n)]
    per_axis = [m.add(m.div(m.max(s, 0), strides[a]), 1) for a, s in enumerate(span)]
    taps: rs.Value = math.prod(block) if block is not None else _product(m, blk)
    count = _product(m, per_axis)
    ok = m.eq(count, m.dim(blocks))
    for a in range(n):
        ok = m.and_(ok, m.and_(m.le(0, span[a]), m.le(1, blk[a])))
    if block is None:
        ok = m.and_(ok, m.eq(m.mod(m.dim(packed), m.max(taps, 1)), 0))
    elif isinstance(packed, int) and packed % int(taps):
        raise ctx.error(f"input's axis 1 ({packed}) is not a multiple of the block size {taps} (block_shape {block})")
    x = m.check(
        x, ok, "the image and block shapes given when the model runs must tile the input: its last axis "
        "the number of block positions, its axis 1 a multiple of the block size",
    )
    # (N, C, taps * L): the taps of a channel side by side.
    if block is not None and isinstance(packed, int):
        flat = _reshape(ctx, x, [batch, packed // int(taps), int(taps) * blocks])
    else:
        target = m.stack([m.dim(batch), m.div(m.dim(packed), m.max(taps, 1)), m.mul(taps, m.dim(blocks))])
        flat = rs.reshape(ctx, x, target, allowzero=True)
    # Index maps over (taps, *image): the position each tap reads, and whether one does.
    grid = [1] * (n + 1)

    def along(v: SSAValue, axis: int) -> SSAValue:
        dims = list(grid)
        dims[axis] = shape(v)[0]
        return m.reshape(v, dims)

    kk = along(_positions(ctx, taps, "taps"), 0)
    index: SSAValue | None = None
    valid: SSAValue | None = None
    inner: rs.Value = 1
    for a in reversed(range(n)):
        k = m.mod(m.div(kk, inner), blk[a])
        inner = _product(m, [inner, blk[a]])
        p = along(_positions(ctx, img[a], f"i{a}_"), a + 1)
        src = m.sub(m.add(p, pads[a]), m.mul(k, dilations[a]))
        at = m.div(m.max(src, 0), strides[a])
        hit = m.and_(m.and_(m.le(0, src), m.eq(m.mod(src, strides[a]), 0)), m.lt(at, per_axis[a]))
        later = _product(m, per_axis[a + 1 :])
        term = m.mul(at, later)
        index = term if index is None else m.add(index, term)
        valid = hit if valid is None else m.and_(valid, hit)
    assert index is not None and valid is not None
    index = m.where(valid, m.add(m.mul(kk, m.dim(blocks)), index), 0)
    gathered = ctx.emit(relay.TakeOp(flat, index, axis=relay.i64_attr(2)))  # (N, C, taps, *image)
    mask = m.reshape(valid, [1, 1, *shape(valid)])
    zero = m.v(0, _elem(x))
    kept = ctx.emit(relay.WhereOp(mask, gathered, zero))
    return ctx.emit(relay.SumOp(kept, axes=relay.i64_array([2])))


def _product(m: rs.ShapeMath, values: Sequence[rs.Value]) -> rs.Value:
    out: rs.Value = 1
    for v in values:
        out = out * v if isinstance(out, int) and isinstance(v, int) else m.mul(out, v)
    return out


def _positions(ctx: NodeContext, count: rs.Value, what: str) -> SSAValue:
    """`[0, count)` as i64: a constant for a known count, else over a size set by the data."""
    if isinstance(count, int):
        return ctx.constant(np.arange(count, dtype=np.int64))
    return rs.arange(ctx, count, what)


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
