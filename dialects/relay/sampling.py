"""Sampling graph ops: `relay.grid_sample` (ONNX GridSample: interpolate an image
at the normalized coordinates of a grid), `relay.col2im` (ONNX Col2Im: sum
sliding-window columns back into an image, the inverse layout of `relay.im2col`),
`relay.deform_im2col` (the columns of a deformable convolution: each tap read
bilinearly at its offset position) and `relay.roi_align` (ONNX RoiAlign: pool
bilinear samples of regions given at run time). All but roi_align work over
any number of spatial axes.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from lamina.dialects.relay.base import (
    ChoiceField,
    FlagField,
    FloatField,
    IntField,
    IntsField,
    OpAttrs,
    OpPattern,
    RelayOp,
    Window,
    WindowAttrs,
    _same_element_type,
    _spatial,
    is_float,
    is_int,
    shape_of,
    tensor,
)

GRID_SAMPLE_METHODS = ("nearest", "linear", "cubic")
GRID_SAMPLE_PADDING = ("zeros", "border", "reflection")
#: How roi_align pools the samples of a bin.
ROI_ALIGN_MODES = ("avg", "max")


class GridSampleAttrs(OpAttrs):
    method = ChoiceField(GRID_SAMPLE_METHODS, "linear")
    padding_mode = ChoiceField(GRID_SAMPLE_PADDING, "zeros")
    align_corners = FlagField()


class Col2ImAttrs(WindowAttrs):
    image_size = IntsField()
    kernel_size = IntsField(None)


class DeformIm2ColAttrs(WindowAttrs):
    kernel_size = IntsField(None)
    offset_groups = IntField(1)


class RoiAlignAttrs(OpAttrs):
    output_size = IntsField(None)
    spatial_scale = FloatField(1.0)
    sampling_ratio = IntField(0)
    mode = ChoiceField(ROI_ALIGN_MODES, "avg")
    aligned = FlagField()


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
    ATTRS: ClassVar[type[OpAttrs]] = GridSampleAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        attrs = cls.attrs_of(props).checked()
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
        method = attrs.method
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
    ATTRS: ClassVar[type[OpAttrs]] = Col2ImAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        x = shape_of(types[0])
        if len(x) != 3:
            raise VerifyException(
                f"{cls.name}: data must be 3-D (batch, channels x block, blocks), got "
                f"{types[0]}"
            )
        attrs = cls.attrs_of(props)
        image = attrs.image_size
        n = len(image)
        if n < 1 or any(d < 1 for d in image):
            raise VerifyException(
                f"{cls.name}: image_size {list(image)} needs at least one positive value"
            )
        kernel = _spatial(cls.name, "kernel_size", attrs.kernel_size, n, 1)
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



@irdl_op_definition
class DeformIm2ColOp(RelayOp):
    """The columns of a deformable convolution (ONNX DeformConv before its
    product with the weight): `out[n, c * K + k, o...]` is `data[n, c]` read
    bilinearly (zero outside the image) at tap `k`'s position of a window of
    `kernel_size` (`strides`, `padding` [begin..., end...], `dilation`) moved by
    its offset, `offset[n, (g * K + k) * r + a, o...]` along axis `a`, times
    `mask[n, g * K + k, o...]` (1 without a mask), where `g` is the offset group
    of channel `c` (`offset_groups` split the C channels evenly) and K the
    taps of the kernel. `data` is (N, C, D1..Dr), `offset` (N, G * K * r,
    O1..Or); the result is (N, C * K, O1..Or), the layout of `relay.im2col`."""

    name = "relay.deform_im2col"
    DEFAULTS: ClassVar[dict[str, Any]] = {"offset_groups": 1}

    data = operand_def(TensorType)
    offset = operand_def(TensorType)
    mask = opt_operand_def(TensorType)
    kernel_size = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    offset_groups = opt_prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = DeformIm2ColAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        x, off = shape_of(types[0]), shape_of(types[1])
        r = len(x) - 2
        if r < 1:
            raise VerifyException(
                f"{cls.name}: data must have a batch, a channel and at least one spatial "
                f"axis, got {types[0]}"
            )
        elem = _same_element_type(cls.name, types)
        if not is_float(elem):
            raise VerifyException(f"{cls.name}: needs floating-point tensors, got {types[0]}")
        attrs = cls.attrs_of(props)
        kernel = _spatial(cls.name, "kernel_size", attrs.kernel_size, r, 1)
        if any(k < 1 for k in kernel):
            raise VerifyException(f"{cls.name}: kernel_size {list(kernel)} must be positive")
        groups = attrs.offset_groups
        if groups < 1 or x[1] % groups:
            raise VerifyException(
                f"{cls.name}: offset_groups ({groups}) must be positive and divide the "
                f"{x[1]} channels"
            )
        win = Window(cls.name, props, r)
        out = [win.output_size(cls.name, a, x[2 + a], kernel[a]) for a in range(r)]
        taps = math.prod(kernel)
        want = [x[0], groups * taps * r, *out]
        if list(off) != want:
            raise VerifyException(
                f"{cls.name}: offset {types[1]} must have shape {want} (batch, offset "
                "groups x taps x spatial axes, the output positions)"
            )
        if len(types) == 3 and list(shape_of(types[2])) != [x[0], groups * taps, *out]:
            raise VerifyException(
                f"{cls.name}: mask {types[2]} must have shape "
                f"{[x[0], groups * taps, *out]} (batch, offset groups x taps, the output positions)"
            )
        return tensor([x[0], x[1] * taps, *out], elem)


@irdl_op_definition
class RoiAlignOp(RelayOp):
    """Pool each region of interest of `data` (N, C, H, W) into
    `output_size` [h, w] bins (ONNX RoiAlign, Mask R-CNN): `rois` (R, 4) holds
    [x1, y1, x2, y2] per region, scaled by `spatial_scale` (and shifted by -0.5
    when `aligned`, ONNX's half_pixel; otherwise a region is at least 1x1),
    `batch_indices` (R) its image. Each bin averages (`avg`) or takes the
    largest (`max`, of the bilinear weights' products, as onnxruntime does) of
    a grid of bilinear samples, `sampling_ratio` per axis or, when 0,
    ceil(region size / bins). A region whose image index is out of range
    reads zeros. The result is (R, C, h, w)."""

    name = "relay.roi_align"
    DEFAULTS: ClassVar[dict[str, Any]] = {"spatial_scale": 1.0, "sampling_ratio": 0, "mode": "avg"}

    data = operand_def(TensorType)
    rois = operand_def(TensorType)
    batch_indices = operand_def(TensorType)
    output_size = prop_def(DenseArrayBase)
    spatial_scale = opt_prop_def(FloatAttr)
    sampling_ratio = opt_prop_def(IntegerAttr)
    mode = opt_prop_def(StringAttr)
    aligned = opt_prop_def(UnitAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = RoiAlignAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        attrs = cls.attrs_of(props).checked()
        x, rois, idx = (shape_of(t) for t in types)
        if len(x) != 4:
            raise VerifyException(f"{cls.name}: data must be 4-D (N, C, H, W), got {types[0]}")
        elem = _same_element_type(cls.name, types[:2])
        if not is_float(elem):
            raise VerifyException(f"{cls.name}: needs floating-point data and rois, got {types[0]}")
        if len(rois) != 2 or rois[1] != 4:
            raise VerifyException(f"{cls.name}: rois must be (R, 4), got {types[1]}")
        if idx != rois[:1] or not is_int(types[2].get_element_type()):
            raise VerifyException(
                f"{cls.name}: batch_indices must be ({rois[0]}) integers, one per region, "
                f"got {types[2]}"
            )
        size = _spatial(cls.name, "output_size", attrs.output_size, 2, 1)
        if any(d < 1 for d in size):
            raise VerifyException(f"{cls.name}: output_size {list(size)} must be positive")
        if attrs.sampling_ratio < 0:
            raise VerifyException(
                f"{cls.name}: sampling_ratio must be >= 0, got {attrs.sampling_ratio}"
            )
        if not attrs.spatial_scale > 0:
            raise VerifyException(
                f"{cls.name}: spatial_scale must be positive, got {attrs.spatial_scale}"
            )
        return tensor([rois[0], x[1], *size], elem)
