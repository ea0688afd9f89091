"""Graph ops whose output size depends on the data (TVM's `argwhere`,
`vision.non_max_suppression` with `get_valid_counts`, `unique`; Relax's
data-dependent shapes).

Each is split in two, as TVM's padded NMS is:

- a *producer* writes its result into a tensor padded to an upper bound and
  returns the valid count as an i64 scalar (`relay.nonzero`,
  `relay.non_max_suppression`, `relay.unique`);
- `relay.narrow` takes the first `count` entries along an axis and names that
  count as a new size: `tensor<2x?xi64, ["nz"]>`. Everything downstream is
  ordinary symbolic code over `nz`.

The size's upper bound is the narrowed axis' size. Buffers are planned at the
bound; at run time `@main` reads the count after the producer ran
(`te.set_size`/`tir.set_size`), and outputs of data-dependent size come back as
views of their actual size. A size may be 0.

Shapes given as data (TVM's `dyn.reshape`, `dyn.broadcast_to`, `dyn.arange`;
Relax's `tensor_to_shape`) have no bound: `relay.dyn_reshape`,
`relay.dyn_broadcast_to` and `relay.dyn_arange` name each size they read from
their i64 shape operand (`sizes`), and the runtime plans those sizes' buffers
at a capacity it grows when the data asks for more (`tir.set_size` without a
bound). `relay.check` stops the run with a message when a condition on the data
does not hold (an invalid shape, say).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
    f64,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from lamina.dialects.relay.base import (
    AttrField,
    DimsField,
    FlagField,
    IntField,
    IntsField,
    OpAttrs,
    OpPattern,
    RelayOp,
    is_bool,
    is_float,
    is_int,
    normalize_axis,
    require_element,
    shape_of,
    tensor,
)
from lamina.dialects.relay.layout import ResizeChoices
from lamina.symbolic import Dim, Sym

I64 = IntegerType(64)


class SetsSizes(MemoryWriteEffect):
    """An op that sets sizes when it runs: an effect, since other ops may use a
    size (`arange(n)`, a `relay.dims`) without using the op's result, so
    dead-code elimination and CSE keep it; it is pure otherwise."""


def _numel(shape: tuple[Dim, ...]) -> Dim:
    n: Dim = 1
    for d in shape:
        n = n * d
    return n


def _scalar(op_name: str, what: str, t: TensorType, kind: str = "int") -> None:
    ok = is_int(t.get_element_type()) if kind == "int" else is_float(t.get_element_type())
    if not ok or _numel(shape_of(t)) != 1:
        raise VerifyException(f"{op_name}: {what} must be one {kind} element, got {t}")


class NarrowAttrs(OpAttrs):
    axis = IntField(0)
    size = AttrField()


class NmsAttrs(OpAttrs):
    center_point_box = FlagField()
    unfiltered = FlagField()


class UniqueAttrs(OpAttrs):
    sorted = FlagField()


class DynShapeAttrs(OpAttrs):
    sizes = AttrField()
    dims = DimsField()


class DynResizeAttrs(DynShapeAttrs, ResizeChoices):
    axes = IntsField()


class DynArangeAttrs(OpAttrs):
    size = AttrField()


class CheckAttrs(OpAttrs):
    message = AttrField()


@irdl_op_definition
class NarrowOp(RelayOp):
    """The first `count` entries of `data` along `axis` (`torch.narrow` with a
    run-time length): `count`, a `tensor<i64>`, is read when the model runs and
    becomes the size named `size`, bounded by the axis' size (a larger count is
    clamped)."""

    name = "relay.narrow"
    data = operand_def(TensorType)
    count = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    size = prop_def(StringAttr)
    output = result_def(TensorType)
    traits = traits_def(SetsSizes())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = NarrowAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        data, count = types
        shape = shape_of(data)
        attrs = cls.attrs_of(props)
        axis = normalize_axis(cls.name, attrs.axis, len(shape))
        if count.get_element_type() != I64 or shape_of(count):
            # @main reads it as one i64 (te.set_size, tir.set_size)
            raise VerifyException(f"{cls.name}: count must be an i64 scalar (tensor<i64>), got {count}")
        size = attrs.size
        if not isinstance(size, StringAttr) or not size.data.isidentifier():
            raise VerifyException(f"{cls.name}: size must name a size (an identifier), got {size}")
        out = [Sym.var(size.data) if a == axis else d for a, d in enumerate(shape)]
        return tensor(out, data.get_element_type())

    @property
    def bound(self) -> Dim:
        """The largest value the size can take: the narrowed axis' size."""
        shape = shape_of(self.data.type)
        return shape[self.attrs.axis % len(shape)]


@irdl_op_definition
class NonZeroOp(RelayOp):
    """The indices of the nonzero elements of `data` (ONNX NonZero, numpy's
    `nonzero`), in row-major order, padded: `indices` is `[rank, numel]` and
    its first `count` columns are valid."""

    name = "relay.nonzero"
    data = operand_def(TensorType)
    indices = result_def(TensorType)
    count = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> list[TensorType]:
        (data,) = types
        shape = shape_of(data)
        if not shape:
            raise VerifyException(f"{cls.name}: data must have rank >= 1 (reshape a scalar to [1])")
        return [tensor([len(shape), _numel(shape)], I64), tensor([], I64)]


@irdl_op_definition
class NonMaxSuppressionOp(RelayOp):
    """Greedy non-maximum suppression per batch and class (ONNX
    NonMaxSuppression): boxes `[B, N, 4]`, scores `[B, C, N]`. For each (b, c),
    boxes scoring above `score_threshold` are taken best first (equal scores:
    lower index first) unless their IoU with one already kept exceeds
    `iou_threshold`, up to `max_output` per class. `selected` is `[B*C*N, 3]`
    rows of (b, c, box), its first `count` rows valid. With `unfiltered`
    (ONNX's score_threshold left out) every box is a candidate, whatever its
    score, and `score_threshold` is not read. `center_point_box`:
    boxes are (x_center, y_center, w, h), else two corners (y1, x1, y2, x2)
    in either order."""

    name = "relay.non_max_suppression"
    boxes = operand_def(TensorType)
    scores = operand_def(TensorType)
    max_output = operand_def(TensorType)
    iou_threshold = operand_def(TensorType)
    score_threshold = operand_def(TensorType)
    center_point_box = opt_prop_def(UnitAttr)
    unfiltered = opt_prop_def(UnitAttr)
    selected = result_def(TensorType)
    count = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = NmsAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> list[TensorType]:
        boxes, scores, max_output, iou, score = types
        b, s = shape_of(boxes), shape_of(scores)
        if len(b) != 3 or b[2] != 4:
            raise VerifyException(f"{cls.name}: boxes must be [batch, boxes, 4], got {boxes}")
        if len(s) != 3 or s[0] != b[0] or s[2] != b[1]:
            raise VerifyException(
                f"{cls.name}: scores must be [batch, classes, boxes] = [{b[0]}, C, {b[1]}], got {scores}"
            )
        for t, what in ((boxes, "boxes"), (scores, "scores")):
            if t.get_element_type() != boxes.get_element_type() or not is_float(t.get_element_type()):
                raise VerifyException(f"{cls.name}: {what} must be float tensors of one type, got {t}")
        _scalar(cls.name, "max_output", max_output)
        _scalar(cls.name, "iou_threshold", iou, "float")
        _scalar(cls.name, "score_threshold", score, "float")
        return [tensor([b[0] * s[1] * b[1], 3], I64), tensor([], I64)]


@irdl_op_definition
class UniqueOp(RelayOp):
    """The distinct rows of a 2-D `data` `[n, m]` (ONNX Unique: elements are
    rows of one element; Unique along an axis, rows of the other axes), padded
    to `n` rows: `values` (ascending, lexicographically, if `sorted`, else in
    order of first occurrence), `indices` (each one's first row), `counts`,
    and `inverse` (each row's position in `values`, not padded); the first
    `count` entries of the padded results are valid."""

    name = "relay.unique"
    data = operand_def(TensorType)
    sorted = opt_prop_def(UnitAttr)
    values = result_def(TensorType)
    indices = result_def(TensorType)
    inverse = result_def(TensorType)
    counts = result_def(TensorType)
    count = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = UniqueAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> list[TensorType]:
        (data,) = types
        shape = shape_of(data)
        if len(shape) != 2:
            raise VerifyException(f"{cls.name}: data must be 2-D (rows to compare), got {data}")
        if is_bool(data.get_element_type()):
            raise VerifyException(f"{cls.name}: needs a numeric tensor, got {data}")
        n = shape[0]
        return [data, *(tensor([n], I64) for _ in range(3)), tensor([], I64)]


def _size_names(op_name: str, props: dict[str, Attribute], count: int) -> list[str]:
    """The `sizes` property: one name per element of the shape operand, ""
    for an element the op does not read; the names are distinct identifiers."""
    attr = DynShapeAttrs(props, op_name).sizes
    if not isinstance(attr, ArrayAttr) or not all(isinstance(a, StringAttr) for a in attr.data):
        raise VerifyException(f"{op_name}: sizes must be an array of size names, got {attr}")
    names = [a.data for a in attr.data]  # type: ignore[attr-defined]
    if len(names) != count:
        raise VerifyException(f"{op_name}: sizes names {len(names)} size(s), but the shape has {count} element(s)")
    given = [n for n in names if n]
    for n in given:
        if not n.isidentifier():
            raise VerifyException(f"{op_name}: '{n}' is not a size name")
    if len(set(given)) != len(given):
        raise VerifyException(f"{op_name}: a size is named twice in {names}")
    return names


class DynShapeOp(RelayOp):
    """A result shaped by data: `shape` (i64 `[k]`) gives the result's `k`
    dims. `sizes[i]` names the size element `i` sets when the model runs (its
    value from then on; "" when the element is not read), and the property
    `dims` is the result's shape: a dim named by `sizes[i]` at position `i`,
    any other dim known already (the element must then equal it or, for a
    broadcast, be 1)."""

    data = operand_def(TensorType)
    shape = operand_def(TensorType)
    sizes = prop_def(ArrayAttr)
    dims = prop_def(Attribute)
    output = result_def(TensorType)
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = DynShapeAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        data, shape = types
        k = shape_of(shape)
        if shape.get_element_type() != I64 or len(k) != 1 or not isinstance(k[0], int):
            raise VerifyException(f"{cls.name}: shape must be a static 1-D i64 tensor, got {shape}")
        names = _size_names(cls.name, props, k[0])
        out = cls.attrs_of(props).dims
        if len(out) != k[0]:
            raise VerifyException(f"{cls.name}: dims has {len(out)} entries, the shape {k[0]}")
        for i, (n, d) in enumerate(zip(names, out, strict=True)):
            if n and not (isinstance(d, Sym) and d.name == n):
                raise VerifyException(f"{cls.name}: dim {i} must be the size '{n}' it sets, got {d}")
            if not n and isinstance(d, Sym) and d.names & {m for m in names if m}:
                raise VerifyException(f"{cls.name}: dim {i} ({d}) uses a size this op sets")
        cls.check_data(shape_of(data), out)
        return tensor(out, data.get_element_type())

    @classmethod
    def check_data(cls, data: tuple[Dim, ...], out: tuple[Dim, ...]) -> None:
        """Refuse data that cannot take the shape (each op says how)."""

    def defined(self) -> list[tuple[int, str]]:
        """(element, size name) of each size the op sets."""
        return [(i, a.data) for i, a in enumerate(self.sizes.data) if isinstance(a, StringAttr) and a.data]


@irdl_op_definition
class DynReshapeOp(DynShapeOp):
    """`data` reshaped to a shape given as data (ONNX Reshape with a run-time
    shape, after its 0 and -1 are resolved): the product of the dims must be
    `data`'s element count, which the importer checks with `relay.check`
    before (a reshape that does not fit reads out of its input).
    `%y = relay.dyn_reshape %x, %s {sizes = ["r0", "r1"], dims = ["r0", "r1"]}`."""

    name = "relay.dyn_reshape"
    traits = traits_def(SetsSizes())


@irdl_op_definition
class DynBroadcastToOp(DynShapeOp):
    """`data` broadcast to a shape given as data (ONNX Expand, ConstantOfShape):
    `data`'s dims align with the last dims of the result, each 1 or equal to
    the result's."""

    name = "relay.dyn_broadcast_to"
    traits = traits_def(SetsSizes())

    @classmethod
    def check_data(cls, data: tuple[Dim, ...], out: tuple[Dim, ...]) -> None:
        if len(data) > len(out):
            raise VerifyException(f"{cls.name}: data of rank {len(data)} cannot broadcast to rank {len(out)}")
        for d, o in zip(reversed(data), reversed(out), strict=False):
            if d == 1 or d == o:
                continue
            if isinstance(o, Sym) and not isinstance(d, Sym):
                continue  # a size set by the data: 1 or d, checked at run time
            raise VerifyException(f"{cls.name}: a dim of {d} cannot broadcast to {o}")


@irdl_op_definition
class DynResizeOp(DynShapeOp):
    """`relay.resize` to a shape given as data, its scales and roi given as
    data too: `params` (f64 `[3 * rank]`) holds the scales, then the roi's
    begins and ends (normalized, for `tf_crop_and_resize`), read when the model
    runs; the other properties are `relay.resize`'s. Axes outside `axes` keep
    their size and are not interpolated (their `sizes` entry is "").

    With `antialias` (linear or cubic), a downscale widens the kernel by the
    inverse of its scale, so the number of taps along a resized axis is known
    only when the scale is: `taps` holds, per resized axis, an i64 `[T]` whose
    size `T` (set by the data, e.g. by `relay.dyn_arange`) is that count,
    `2 - 2 (floor(-support / min(scale, 1)) + 1)`; the kernel sums over them."""

    name = "relay.dyn_resize"
    data = operand_def(TensorType)  # (restated: operands in this order)
    shape = operand_def(TensorType)
    params = operand_def(TensorType)
    taps = var_operand_def(TensorType)
    axes = prop_def(Attribute)
    antialias = opt_prop_def(UnitAttr)
    method = opt_prop_def(StringAttr)
    coordinate_transformation_mode = opt_prop_def(StringAttr)
    rounding_method = opt_prop_def(StringAttr)
    cubic_alpha = opt_prop_def(Attribute)
    cubic_exclude = opt_prop_def(UnitAttr)
    extrapolation_value = opt_prop_def(Attribute)
    traits = traits_def(SetsSizes())
    ATTRS: ClassVar[type[OpAttrs]] = DynResizeAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        data, shape, params, *taps = types
        out = super().infer([data, shape], props)
        rank = len(shape_of(data))
        if params.get_element_type() != f64 or shape_of(params) != (3 * rank,):
            raise VerifyException(f"{cls.name}: params must be a tensor<{3 * rank}xf64> (scales, roi), got {params}")
        attrs = cls.attrs_of(props).checked()
        if attrs.method != "nearest_neighbor":
            require_element(cls.name, data, floating=True)
        axes = attrs.axes
        if sorted(set(axes)) != list(axes) or not all(0 <= a < rank for a in axes):
            raise VerifyException(f"{cls.name}: axes {list(axes)} must be distinct axes in increasing order")
        names = _size_names(cls.name, props, rank)
        for a in range(rank):
            if (a in axes) != bool(names[a]):
                raise VerifyException(f"{cls.name}: axis {a} must set a size if and only if it is resized")
        if attrs.antialias:
            if attrs.method == "nearest_neighbor":
                raise VerifyException(f"{cls.name}: antialias needs method linear or cubic")
            if len(taps) != len(axes) or any(
                t.get_element_type() != I64 or len(shape_of(t)) != 1 for t in taps
            ):
                raise VerifyException(
                    f"{cls.name}: antialias needs one 1-D i64 taps operand per resized axis "
                    f"({len(axes)}), got ({', '.join(map(str, taps))})"
                )
        elif taps:
            raise VerifyException(f"{cls.name}: taps operands are for antialias only")
        return out

    @property
    def resized(self) -> tuple[int, ...]:
        return self.attrs.axes


@irdl_op_definition
class DynArangeOp(RelayOp):
    """`[0, 1, ..., n - 1]` (i64) for a count `n` given as data (an i64
    scalar), which becomes the size named `size`: the index space that Range,
    a run-time Slice or Pad, OneHot and Resize build their results over.
    `%i = relay.dyn_arange %n {size = "n"} : (tensor<i64>) -> tensor<?xi64, ["n"]>`."""

    name = "relay.dyn_arange"
    count = operand_def(TensorType)
    size = prop_def(StringAttr)
    output = result_def(TensorType)
    traits = traits_def(SetsSizes())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = DynArangeAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        (count,) = types
        if count.get_element_type() != I64 or shape_of(count):
            raise VerifyException(f"{cls.name}: count must be an i64 scalar (tensor<i64>), got {count}")
        size = cls.attrs_of(props).size
        if not isinstance(size, StringAttr) or not size.data.isidentifier():
            raise VerifyException(f"{cls.name}: size must name a size (an identifier), got {size}")
        return tensor([Sym.var(size.data)], I64)

    def defined(self) -> list[tuple[int | None, str]]:
        return [(None, self.size.data)]


@irdl_op_definition
class CheckOp(RelayOp):
    """`data`, once the boolean scalar `cond` holds; when it does not, the run
    stops and the runtime raises `message` (TVM's `assert`): what the model's
    data must satisfy, checked before the ops that rely on it (a reshape's
    element count). `%y = relay.check %x, %ok {message = "..."}`."""

    name = "relay.check"
    data = operand_def(TensorType)
    cond = operand_def(TensorType)
    message = prop_def(StringAttr)
    output = result_def(TensorType)
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = CheckAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        data, cond = types
        if not is_bool(cond.get_element_type()) or shape_of(cond):
            raise VerifyException(f"{cls.name}: cond must be a boolean scalar (tensor<i1>), got {cond}")
        if not isinstance(cls.attrs_of(props).message, StringAttr):
            raise VerifyException(f"{cls.name}: message must be a string")
        return data


__all__ = [
    "CheckOp",
    "DynArangeOp",
    "DynBroadcastToOp",
    "DynReshapeOp",
    "DynResizeOp",
    "DynShapeOp",
    "NarrowOp",
    "NonMaxSuppressionOp",
    "NonZeroOp",
    "SetsSizes",
    "UniqueOp",
]
