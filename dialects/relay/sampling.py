"""Sampling graph ops: `relay.grid_sample` (ONNX GridSample: interpolate an image
at the normalized coordinates of a grid) and `relay.col2im` (ONNX Col2Im: sum
sliding-window columns back into an image, the inverse layout of `relay.im2col`).
Both work over any number of spatial axes.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from xdsl.dialects.builtin import DenseArrayBase, StringAttr, TensorType, UnitAttr
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
    OpPattern,
    RelayOp,
    Window,
    _spatial,
    choice_prop,
    ints_prop,
    is_float,
    shape_of,
    str_prop,
    tensor,
)

GRID_SAMPLE_METHODS = ("nearest", "linear", "cubic")
GRID_SAMPLE_PADDING = ("zeros", "border", "reflection")


@irdl_op_definition
class GridSampleOp(RelayOp):
    """Sample `data` (N, C, D1..Dr) at the grid's points: `grid` (N, O1..Or, r)
    holds normalized coordinates in [-1, 1], innermost axis first (x, y, ...),
    mapped to the corners (`align_corners`) or the outer edges of the border
    pixels. `method` reads the nearest pixel (ties to even) or interpolates
    linearly or cubically (Keys, a = -0.75); `padding_mode` says what lies
    outside: `zeros`, the `border` pixels, or the image mirrored (`reflection`).
    The result is (N, C, O1..Or)."""

    name = "relay.grid_sample"
    DEFAULTS: ClassVar[dict[str, Any]] = {"method": "linear", "padding_mode": "zeros"}

    data = operand_def(TensorType)
    grid = operand_def(TensorType)
    method = opt_prop_def(StringAttr)
    padding_mode = opt_prop_def(StringAttr)
    align_corners = opt_prop_def(UnitAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        choice_prop(cls.name, props, "method", GRID_SAMPLE_METHODS, "linear")
        choice_prop(cls.name, props, "padding_mode", GRID_SAMPLE_PADDING, "zeros")
        x, g = shape_of(types[0]), shape_of(types[1])
        if len(x) < 3:
            raise VerifyException(
                f"{cls.name}: data must have a batch, a channel and at least one spatial "
                f"axis, got {types[0]}"
            )
        r = len(x) - 2
        if len(g) != len(x) or g[0] != x[0] or g[-1] != r:
            raise VerifyException(
                f"{cls.name}: grid {types[1]} must have the rank of the data {types[0]}, "
                f"its batch ({x[0]}) first and {r} coordinates in its last axis"
            )
        if not is_float(types[1].get_element_type()):
            raise VerifyException(f"{cls.name}: grid must be floating-point, got {types[1]}")
        method = str_prop(props, "method", "linear")
        if method != "nearest" and not is_float(types[0].get_element_type()):
            raise VerifyException(
                f"{cls.name}: method {method} interpolates, so data must be "
                f"floating-point, got {types[0]}"
            )
        out = [x[0], x[1], *g[1:-1]]
        if 0 in x[2:] and math.prod(out):
            raise VerifyException(f"{cls.name}: cannot sample the empty input {types[0]}")
        return tensor(out, types[0].get_element_type())


@irdl_op_definition
class Col2ImOp(RelayOp):
    """Sum the columns of sliding blocks into an image (ONNX Col2Im, torch's
    `fold`): `data` (N, C * prod(kernel_size), L) holds, for each of the L
    block positions of a window of `kernel_size` (`strides`, `padding`
    [begin..., end...], `dilation`) over an image of spatial size `image_size`,
    the block's values; overlapping values add up. The result is
    (N, C, *image_size)."""

    name = "relay.col2im"

    data = operand_def(TensorType)
    image_size = prop_def(DenseArrayBase)
    kernel_size = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        x = shape_of(types[0])
        if len(x) != 3:
            raise VerifyException(
                f"{cls.name}: data must be 3-D (batch, channels x block, blocks), got "
                f"{types[0]}"
            )
        image = ints_prop(props, "image_size")
        n = len(image)
        if n < 1 or any(d < 1 for d in image):
            raise VerifyException(
                f"{cls.name}: image_size {list(image)} needs at least one positive value"
            )
        kernel = _spatial(cls.name, props, "kernel_size", n, 1)
        if any(k < 1 for k in kernel):
            raise VerifyException(
                f"{cls.name}: kernel_size {list(kernel)} must be positive"
            )
        win = Window(cls.name, props, n)
        blocks = [win.output_size(cls.name, a, image[a], kernel[a]) for a in range(n)]
        taps = math.prod(kernel)
        if x[1] % taps:
            raise VerifyException(
                f"{cls.name}: data's axis 1 ({x[1]}) is not a multiple of the block size "
                f"{taps} (kernel_size {list(kernel)})"
            )
        if x[2] != math.prod(blocks):
            raise VerifyException(
                f"{cls.name}: data's axis 2 ({x[2]}) must be the number of blocks, "
                f"{' x '.join(map(str, blocks))} = {math.prod(blocks)}"
            )
        return tensor([x[0], x[1] // taps, *image], types[0].get_element_type())

