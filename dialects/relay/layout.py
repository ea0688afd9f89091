"""Data movement: ops that rearrange, select or replicate elements without
arithmetic on them.

Reshape, transpose, concatenate, split, strided slice, take and gather,
broadcast_to, tile, pad, trilu and resize are INJECTIVE (or BROADCAST/ELEMWISE)
for fusion; `relay.im2col` (a convolution's input patches as columns, for
`alter-op-layout`) is OPAQUE, materialized once.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
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
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from lamina.dialects.relay.base import (
    ChoiceField,
    DimsField,
    FlagField,
    FloatField,
    FloatsField,
    IntField,
    IntsField,
    OpAttrs,
    OpPattern,
    RelayOp,
    Window,
    WindowAttrs,
    _nchw,
    _same_element_type,
    _spatial,
    broadcast_shapes,
    dims_text,
    is_int,
    normalize_axis,
    require_element,
    shape_of,
    tensor,
    window_defaults,
)
from lamina.symbolic import Dim, Sym, SymbolicError


class ShapeAttrs(OpAttrs):
    shape = DimsField()


class PermAttrs(OpAttrs):
    perm = IntsField()


class AxisAttrs(OpAttrs):
    axis = IntField(0)


class SplitAttrs(AxisAttrs):
    indices = IntsField()


@irdl_op_definition
class ReshapeOp(RelayOp):
    """Reshape to `shape` (static, or with symbolic dims) with the same number of elements."""

    name = "relay.reshape"
    data = operand_def(TensorType)
    shape = prop_def(DenseArrayBase | ArrayAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    ATTRS: ClassVar[type[OpAttrs]] = ShapeAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        new = ShapeAttrs(props, "relay.reshape").shape
        old = shape_of(types[0])
        if any(isinstance(d, int) and d < 0 for d in new):
            raise VerifyException(
                f"relay.reshape: shape {dims_text(new)} must be non-negative "
                "(resolve -1 and 0 before building the op)"
            )
        if math.prod(new) != math.prod(old):
            raise VerifyException(
                f"relay.reshape: cannot reshape {dims_text(old)} ({math.prod(old)} "
                f"elements) to {dims_text(new)} ({math.prod(new)} elements)"
            )
        return tensor(new, types[0].get_element_type())


@irdl_op_definition
class TransposeOp(RelayOp):
    """Permute dimensions: result dim i is operand dim perm[i]."""

    name = "relay.transpose"
    data = operand_def(TensorType)
    perm = prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    ATTRS: ClassVar[type[OpAttrs]] = PermAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        perm = cls.attrs_of(props).perm
        old = shape_of(types[0])
        if sorted(perm) != list(range(len(old))):
            raise VerifyException(
                f"relay.transpose: perm {list(perm)} is not a permutation of "
                f"0..{len(old) - 1}"
            )
        return tensor([old[p] for p in perm], types[0].get_element_type())




@irdl_op_definition
class ConcatenateOp(RelayOp):
    """Join tensors along `axis`; the other dimensions must agree."""

    name = "relay.concatenate"
    inputs = var_operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    ATTRS: ClassVar[type[OpAttrs]] = AxisAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        if not types:
            raise VerifyException(f"{cls.name}: needs at least one operand")
        elem = _same_element_type(cls.name, types)
        first = shape_of(types[0])
        axis = normalize_axis(cls.name, cls.attrs_of(props).axis, len(first))
        for t in types[1:]:
            s = shape_of(t)
            if len(s) != len(first) or any(
                a != b for i, (a, b) in enumerate(zip(s, first, strict=True)) if i != axis
            ):
                raise VerifyException(
                    f"{cls.name}: {types[0]} and {t} differ outside axis {axis}"
                )
        out = list(first)
        out[axis] = sum(shape_of(t)[axis] for t in types)
        return tensor(out, elem)


@irdl_op_definition
class SplitOp(RelayOp):
    """Split along `axis` at the ascending positions `indices`: one result per
    piece (TVM's `split` with indices)."""

    name = "relay.split"
    data = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    indices = prop_def(DenseArrayBase)
    outputs = var_result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    ATTRS: ClassVar[type[OpAttrs]] = SplitAttrs

    @classmethod
    def infer(
        cls, types: list[TensorType], props: dict[str, Attribute]
    ) -> list[TensorType]:
        shape = shape_of(types[0])
        attrs = cls.attrs_of(props)
        axis = normalize_axis(cls.name, attrs.axis, len(shape))
        points = [0, *attrs.indices, shape[axis]]
        if any(b < a for a, b in itertools.pairwise(points)):
            raise VerifyException(
                f"{cls.name}: indices {points[1:-1]} must ascend within "
                f"0..{shape[axis]} (the size of axis {axis})"
            )
        elem = types[0].get_element_type()
        return [
            tensor([b - a if i == axis else d for i, d in enumerate(shape)], elem)
            for a, b in itertools.pairwise(points)
        ]


class StridedSliceAttrs(OpAttrs):
    begin = DimsField()
    end = DimsField()
    strides = IntsField(None)


@irdl_op_definition
class StridedSliceOp(RelayOp):
    """Elements `begin[i] + k * strides[i]` for `k` in `0..ceil((end[i] -
    begin[i]) / strides[i])` along every axis (strides may be negative). Every
    position read must be in bounds: the importer resolves ONNX's clamping (for
    symbolic bounds, stride 1, by assuming them in bounds and checking that when
    the model runs)."""

    name = "relay.strided_slice"
    data = operand_def(TensorType)
    begin = prop_def(DenseArrayBase | ArrayAttr)
    end = prop_def(DenseArrayBase | ArrayAttr)
    strides = opt_prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    ATTRS: ClassVar[type[OpAttrs]] = StridedSliceAttrs

    @staticmethod
    def extent(begin: Dim, end: Dim, step: int) -> Dim:
        if isinstance(begin, Sym) or isinstance(end, Sym):  # in bounds, step 1
            return end - begin
        return max(0, -((begin - end) // step)) if step > 0 else max(0, -((end - begin) // -step))

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        shape = shape_of(types[0])
        n = len(shape)
        attrs = cls.attrs_of(props)
        begin, end = attrs.begin, attrs.end
        strides = (1,) * n if attrs.strides is None else attrs.strides
        if not len(begin) == len(end) == len(strides) == n:
            raise VerifyException(
                f"{cls.name}: begin, end and strides need {n} values each (one per "
                f"axis), got {dims_text(begin)}, {dims_text(end)}, {list(strides)}"
            )
        out = []
        for axis, (b, e, s, d) in enumerate(zip(begin, end, strides, shape, strict=True)):
            if s == 0:
                raise VerifyException(f"{cls.name}: stride of axis {axis} is 0")
            symbolic = any(isinstance(v, Sym) for v in (b, e, d))
            if symbolic and s != 1:
                raise VerifyException(
                    f"{cls.name}: axis {axis} of size {d} (begin {b}, end {e}) is "
                    f"symbolic: only a stride of 1 is supported, got {s}"
                )
            k = cls.extent(b, e, s)
            if not symbolic and k and not (0 <= b < d and 0 <= b + (k - 1) * s < d):
                raise VerifyException(
                    f"{cls.name}: axis {axis} of size {d} is read out of bounds "
                    f"(begin {b}, end {e}, stride {s})"
                )
            out.append(k)
        return tensor(out, types[0].get_element_type())


def _index_tensor(op_name: str, t: TensorType) -> None:
    if not is_int(t.get_element_type()):
        raise VerifyException(f"{op_name}: indices must be an integer tensor, got {t}")


@irdl_op_definition
class TakeOp(RelayOp):
    """Gather whole slices along `axis` at `indices` (ONNX Gather): the result
    shape is `data[:axis] + indices + data[axis+1:]`. Negative indices count from
    the end; indices out of range are clamped."""

    name = "relay.take"
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    ATTRS: ClassVar[type[OpAttrs]] = AxisAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        _index_tensor(cls.name, types[1])
        shape = shape_of(types[0])
        if not shape:
            raise VerifyException(f"{cls.name}: data must have rank >= 1")
        axis = normalize_axis(cls.name, cls.attrs_of(props).axis, len(shape))
        taken = math.prod(shape_of(types[1]))
        if shape[axis] == 0 and isinstance(taken, int) and taken:  # (a size may be 0)
            raise VerifyException(f"{cls.name}: cannot take from the empty axis {axis}")
        out = [*shape[:axis], *shape_of(types[1]), *shape[axis + 1 :]]
        return tensor(out, types[0].get_element_type())


def _exceeds(i: Dim, d: Dim) -> bool:
    """Whether size `i` is known to exceed `d` (sizes set when the model runs
    may not be comparable: whoever builds the op checks them then)."""
    try:
        return bool(i > d)
    except SymbolicError:
        return False


@irdl_op_definition
class GatherOp(RelayOp):
    """`out[i...] = data[i... with axis replaced by indices[i...]]` (ONNX
    GatherElements, TVM's `gather`); indices behave as in `relay.take`. Outside
    `axis`, the indices' dims must not exceed the data's (a size set when the
    model runs, which cannot be compared here, is checked by a `relay.check`)."""

    name = "relay.gather"
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    ATTRS: ClassVar[type[OpAttrs]] = AxisAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        _index_tensor(cls.name, types[1])
        shape, idx = shape_of(types[0]), shape_of(types[1])
        axis = normalize_axis(cls.name, cls.attrs_of(props).axis, len(shape))
        if len(idx) != len(shape) or any(
            _exceeds(i, d) for a, (i, d) in enumerate(zip(idx, shape, strict=True)) if a != axis
        ):
            raise VerifyException(
                f"{cls.name}: indices {types[1]} must have the data's rank and fit in "
                f"the data {types[0]} outside axis {axis}"
            )
        if shape[axis] == 0 and math.prod(idx):
            raise VerifyException(f"{cls.name}: cannot gather from the empty axis {axis}")
        return tensor(idx, types[0].get_element_type())


class GatherNDAttrs(OpAttrs):
    batch_dims = IntField(0)


@irdl_op_definition
class GatherNDOp(RelayOp):
    """ONNX GatherND: each row `indices[i..., :]` (its last axis, of length `m`)
    indexes the first `m` axes of `data` after the `batch_dims` leading axes,
    which `data` and `indices` share. The result shape is
    `indices[:-1] + data[batch_dims + m:]`; indices behave as in `relay.take`."""

    name = "relay.gather_nd"
    DEFAULTS: ClassVar[dict[str, Any]] = {"batch_dims": 0}

    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    batch_dims = opt_prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    ATTRS: ClassVar[type[OpAttrs]] = GatherNDAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        _index_tensor(cls.name, types[1])
        shape, idx = shape_of(types[0]), shape_of(types[1])
        b = cls.attrs_of(props).batch_dims
        if not 0 <= b < min(len(shape), len(idx)):
            raise VerifyException(
                f"{cls.name}: batch_dims {b} must be in 0..{min(len(shape), len(idx)) - 1} "
                f"for data {types[0]} and indices {types[1]}"
            )
        if shape[:b] != idx[:b]:
            raise VerifyException(
                f"{cls.name}: the {b} batch dimension(s) of data {types[0]} and indices "
                f"{types[1]} differ"
            )
        m = idx[-1]
        if not 1 <= m <= len(shape) - b:
            raise VerifyException(
                f"{cls.name}: the last axis of indices {types[1]} must have a size in "
                f"1..{len(shape) - b} (the data's rank after the batch dimensions)"
            )
        if math.prod(idx[:-1]) and any(d == 0 for d in shape[b : b + m]):
            raise VerifyException(f"{cls.name}: cannot gather from the empty data {types[0]}")
        return tensor([*idx[:-1], *shape[b + m :]], types[0].get_element_type())


class ReverseSequenceAttrs(OpAttrs):
    batch_axis = IntField(0)
    time_axis = IntField(0)


@irdl_op_definition
class ReverseSequenceOp(RelayOp):
    """ONNX ReverseSequence: for each batch entry `j` along `batch_axis`, reverse
    the first `seq_lengths[j]` elements along `time_axis` (lengths clamped to
    `0..time`); the rest are copied."""

    name = "relay.reverse_sequence"
    data = operand_def(TensorType)
    seq_lengths = operand_def(TensorType)
    batch_axis = prop_def(IntegerAttr)
    time_axis = prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    ATTRS: ClassVar[type[OpAttrs]] = ReverseSequenceAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        if not is_int(types[1].get_element_type()):
            raise VerifyException(
                f"{cls.name}: seq_lengths must be an integer tensor, got {types[1]}"
            )
        shape = shape_of(types[0])
        if len(shape) < 2:
            raise VerifyException(f"{cls.name}: data must have rank >= 2, got {types[0]}")
        attrs = cls.attrs_of(props)
        batch = normalize_axis(cls.name, attrs.batch_axis, len(shape))
        time = normalize_axis(cls.name, attrs.time_axis, len(shape))
        if batch == time:
            raise VerifyException(f"{cls.name}: batch_axis and time_axis are both {batch}")
        if shape_of(types[1]) != (shape[batch],):
            raise VerifyException(
                f"{cls.name}: seq_lengths {types[1]} must be 1-D of size {shape[batch]} "
                f"(the batch axis {batch} of {types[0]})"
            )
        return types[0]


@irdl_op_definition
class BroadcastToOp(RelayOp):
    """Broadcast to `shape` (numpy's `broadcast_to`)."""

    name = "relay.broadcast_to"
    data = operand_def(TensorType)
    shape = prop_def(DenseArrayBase | ArrayAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    ATTRS: ClassVar[type[OpAttrs]] = ShapeAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        target = cls.attrs_of(props).shape
        src = shape_of(types[0])
        if any(d < 0 for d in target) or broadcast_shapes(cls.name, src, target) != target:
            raise VerifyException(
                f"{cls.name}: {types[0]} does not broadcast to shape {dims_text(target)}"
            )
        return tensor(target, types[0].get_element_type())


class TileAttrs(OpAttrs):
    reps = IntsField()


@irdl_op_definition
class TileOp(RelayOp):
    """Repeat the tensor `reps[i]` times along each axis."""

    name = "relay.tile"
    data = operand_def(TensorType)
    reps = prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    ATTRS: ClassVar[type[OpAttrs]] = TileAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        reps = cls.attrs_of(props).reps
        shape = shape_of(types[0])
        if len(reps) != len(shape) or any(r < 0 for r in reps):
            raise VerifyException(
                f"{cls.name}: reps {list(reps)} needs {len(shape)} non-negative values"
            )
        return tensor([d * r for d, r in zip(shape, reps, strict=True)], types[0].get_element_type())


PAD_MODES = ("constant", "reflect", "edge", "wrap")


class PadAttrs(OpAttrs):
    pad_width = IntsField()
    pad_mode = ChoiceField(PAD_MODES, "constant")
    pad_value = FloatField(0.0)


@irdl_op_definition
class PadOp(RelayOp):
    """Pad (or, with negative widths, crop) every axis by `pad_width` =
    `[begin..., end...]`. `pad_mode` is `constant` (with `pad_value`, 0 by
    default), `reflect`, `edge` or `wrap`, as numpy's `pad`."""

    name = "relay.pad"
    DEFAULTS: ClassVar[dict[str, Any]] = {"pad_mode": "constant", "pad_value": 0.0}

    data = operand_def(TensorType)
    pad_width = prop_def(DenseArrayBase)
    pad_mode = opt_prop_def(StringAttr)
    pad_value = opt_prop_def(FloatAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    ATTRS: ClassVar[type[OpAttrs]] = PadAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        shape = shape_of(types[0])
        n = len(shape)
        attrs = cls.attrs_of(props)
        pads = attrs.pad_width
        mode = attrs.pad_mode
        if len(pads) != 2 * n:
            raise VerifyException(
                f"{cls.name}: pad_width needs {2 * n} values ([begin..., end...]), "
                f"got {list(pads)}"
            )
        out = [d + pads[i] + pads[n + i] for i, d in enumerate(shape)]
        if any(d < 0 for d in out):
            raise VerifyException(f"{cls.name}: pad_width {list(pads)} crops {types[0]} below size 0")
        for i, d in enumerate(shape):
            grows = pads[i] > 0 or pads[n + i] > 0
            if mode != "constant" and grows and d == 0:
                raise VerifyException(
                    f"{cls.name}: {mode} padding of the empty axis {i} has nothing to copy"
                )
        return tensor(out, types[0].get_element_type())


class TriluAttrs(OpAttrs):
    upper = FlagField()
    k = IntField(0)


@irdl_op_definition
class TriluOp(RelayOp):
    """Keep the upper (`upper`) or lower triangle of the last two axes, relative to
    diagonal `k`; zero the rest. A `diagonal` operand (an i64 scalar) gives the
    diagonal at run time instead."""

    name = "relay.trilu"
    DEFAULTS: ClassVar[dict[str, Any]] = {"k": 0}

    data = operand_def(TensorType)
    diagonal = opt_operand_def(TensorType)
    upper = opt_prop_def(UnitAttr)
    k = opt_prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    ATTRS: ClassVar[type[OpAttrs]] = TriluAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        if len(shape_of(types[0])) < 2:
            raise VerifyException(f"{cls.name}: data must have rank >= 2, got {types[0]}")
        if len(types) == 2:
            if types[1] != TensorType(IntegerType(64), []):
                raise VerifyException(f"{cls.name}: diagonal must be a tensor<i64>, got {types[1]}")
            if cls.attrs_of(props).is_set(TriluAttrs.k):
                raise VerifyException(f"{cls.name}: give the diagonal as k or as an operand, not both")
        return types[0]


RESIZE_METHODS = ("nearest_neighbor", "linear", "cubic")
RESIZE_COORDINATES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_crop_and_resize",
)
RESIZE_ROUNDING = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


class ResizeChoices(OpAttrs):
    """The interpolation of `relay.resize` and `relay.dyn_resize`."""

    method = ChoiceField(RESIZE_METHODS, "nearest_neighbor")
    coordinate_transformation_mode = ChoiceField(RESIZE_COORDINATES, "half_pixel")
    rounding_method = ChoiceField(RESIZE_ROUNDING, "round_prefer_floor")
    cubic_alpha = FloatField(-0.75)
    cubic_exclude = FlagField()
    antialias = FlagField()
    extrapolation_value = FloatField(0.0)


class ResizeAttrs(ResizeChoices):
    size = IntsField()
    scales = FloatsField(None)
    roi = FloatsField(None)


@irdl_op_definition
class ResizeOp(RelayOp):
    """Resize every axis to `size` by interpolation (ONNX Resize). Output index `y`
    maps to input coordinate `x` by `coordinate_transformation_mode` with the
    per-axis `scales` (size / input size when absent); `method` picks the nearest
    element (rounded by `rounding_method`), interpolates linearly or cubically
    (`cubic_alpha`, `cubic_exclude`) between the neighbours, clamped to the edge;
    `antialias` widens the kernel by 1 / scale when downscaling.
    `tf_crop_and_resize` reads inside `roi` ([begin..., end...], normalized) and
    yields `extrapolation_value` outside the input."""

    name = "relay.resize"
    DEFAULTS: ClassVar[dict[str, Any]] = {"method": "nearest_neighbor", "coordinate_transformation_mode": "half_pixel", "rounding_method": "round_prefer_floor", "cubic_alpha": -0.75, "extrapolation_value": 0.0}

    data = operand_def(TensorType)
    size = prop_def(DenseArrayBase)
    scales = opt_prop_def(DenseArrayBase)
    roi = opt_prop_def(DenseArrayBase)
    method = opt_prop_def(StringAttr)
    coordinate_transformation_mode = opt_prop_def(StringAttr)
    rounding_method = opt_prop_def(StringAttr)
    cubic_alpha = opt_prop_def(FloatAttr)
    cubic_exclude = opt_prop_def(UnitAttr)
    antialias = opt_prop_def(UnitAttr)
    extrapolation_value = opt_prop_def(FloatAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    ATTRS: ClassVar[type[OpAttrs]] = ResizeAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        shape = shape_of(types[0])
        n = len(shape)
        attrs = cls.attrs_of(props).checked()
        size = attrs.size
        if attrs.method != "nearest_neighbor":
            require_element(cls.name, types[0], floating=True)
        elif attrs.antialias:
            raise VerifyException(f"{cls.name}: antialias needs linear or cubic")
        if len(size) != n or any(d < 0 for d in size):
            raise VerifyException(
                f"{cls.name}: size {list(size)} needs {n} non-negative values"
            )
        if any(d == 0 < o for d, o in zip(shape, size, strict=True)):
            raise VerifyException(f"{cls.name}: cannot resize an empty axis of {types[0]}")
        for name, values, count in (("scales", attrs.scales, n), ("roi", attrs.roi, 2 * n)):
            if values is not None and len(values) != count:
                raise VerifyException(
                    f"{cls.name}: {name} needs {count} values, got {list(values)}"
                )
        if attrs.scales is not None and any(s <= 0 for s in attrs.scales):
            raise VerifyException(f"{cls.name}: scales must be positive")
        return tensor(size, types[0].get_element_type())


# --------------------------------------------------------------------- im2col
class Im2ColAttrs(WindowAttrs):
    kernel_size = IntsField(None)


@irdl_op_definition
class Im2ColOp(RelayOp):
    """The patches of a 2-D convolution's input as columns: `out[n, (c, kh, kw),
    oh, ow] = x[n, c, oh * s + kh * d - p, ...]` (zero outside). A convolution is
    then a 1x1 convolution (a GEMM) of its reshaped weight with this
    (`alter-op-layout`). Opaque to fusion: it is materialized once."""

    name = "relay.im2col"
    DEFAULTS: ClassVar[dict[str, Any]] = window_defaults(2)

    data = operand_def(TensorType)
    kernel_size = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = Im2ColAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        x = _nchw(cls.name, types[0], 2)
        kernel = _spatial(cls.name, "kernel_size", cls.attrs_of(props).kernel_size, 2, 1)
        if any(k < 1 for k in kernel):
            raise VerifyException(f"{cls.name}: kernel_size {list(kernel)} must be positive")
        win = Window(cls.name, props, 2)
        out = [win.output_size(cls.name, i, x[2 + i], kernel[i]) for i in range(2)]
        return tensor([x[0], x[1] * kernel[0] * kernel[1], *out], types[0].get_element_type())
