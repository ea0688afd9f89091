"""Graph ops whose result is not a function of an index space: scatters (an
element is written by whichever update names it), top-k selection and
cumulative scans (TVM's `relay.op.algorithm` and `scatter_nd`/`cumsum`). Their
kernels are written imperatively in TIR (`lamina.lowering.topi.algorithm`), and
they are never fused (pattern opaque). Also determinants (an LU factorization
per matrix) and n-gram counts (a binary search of each n-gram in a sorted pool).

Indices may be negative (counting from the end of their axis); an update whose
index is still out of range is skipped, so a bad index never writes outside
the output.
"""

from __future__ import annotations

from typing import Any, ClassVar

from xdsl.dialects.builtin import (
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
    IntField,
    OpAttrs,
    OpPattern,
    RelayOp,
    _same_element_type,
    is_bool,
    is_float,
    is_int,
    normalize_axis,
    shape_of,
    tensor,
)

#: How a scatter combines an update with the element it lands on.
SCATTER_REDUCTIONS = ("none", "add", "mul", "max", "min")
#: The combining step of a cumulative scan.
CUMULATIVE_KINDS = ("sum", "prod")


def _indices(op_name: str, t: TensorType) -> None:
    if not is_int(t.get_element_type()):
        raise VerifyException(f"{op_name}: indices must be an integer tensor, got {t}")


class ScatterAttrs(OpAttrs):
    reduction = ChoiceField(SCATTER_REDUCTIONS, "none")


class ScatterElementsAttrs(ScatterAttrs):
    axis = IntField(0)


class TopKAttrs(OpAttrs):
    k = IntField(0)
    axis = IntField(-1)
    largest = FlagField()


class CumulativeAttrs(OpAttrs):
    axis = IntField(0)
    kind = ChoiceField(CUMULATIVE_KINDS, "")
    exclusive = FlagField()
    reverse = FlagField()


class NgramCountAttrs(OpAttrs):
    width = IntField(-1)
    max_skip = IntField(0)


def _reduction(op_name: str, props: dict[str, Attribute], elem: Attribute) -> None:
    reduction = ScatterAttrs(props, op_name).reduction
    if reduction != "none" and is_bool(elem):
        raise VerifyException(f'{op_name}: reduction "{reduction}" needs a numeric tensor, not i1')


@irdl_op_definition
class ScatterNDOp(RelayOp):
    """`out = data` with `out[indices[i..., :]] = updates[i..., ...]` for every
    index tuple in order (ONNX ScatterND): `indices` has shape `[..., q]`
    (q <= rank of data), `updates` shape `indices.shape[:-1] + data.shape[q:]`.
    `reduction` (none, add, mul, max, min) combines instead of replacing."""

    name = "relay.scatter_nd"
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    updates = operand_def(TensorType)
    reduction = opt_prop_def(StringAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = ScatterAttrs
    DEFAULTS: ClassVar[dict[str, Any]] = {"reduction": "none"}

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        data, indices, updates = types
        _indices(cls.name, indices)
        elem = _same_element_type(cls.name, [data, updates])
        _reduction(cls.name, props, elem)
        shape, idx = shape_of(data), shape_of(indices)
        if not idx or not 1 <= idx[-1] <= len(shape):
            raise VerifyException(
                f"{cls.name}: indices {indices} must end in an axis of size 1 to "
                f"{len(shape)} (the rank of the data)"
            )
        want = (*idx[:-1], *shape[idx[-1] :])
        if shape_of(updates) != want:
            raise VerifyException(
                f"{cls.name}: updates {updates} must have shape {list(want)} "
                "(indices.shape[:-1] + data.shape[q:])"
            )
        return tensor(shape, elem)


@irdl_op_definition
class ScatterElementsOp(RelayOp):
    """`out = data` with `out[i... with axis replaced by indices[i...]] =
    updates[i...]` for every position of `indices`, in order (ONNX
    ScatterElements); `indices` and `updates` share a shape of the data's rank.
    `reduction` (none, add, mul, max, min) combines instead of replacing."""

    name = "relay.scatter_elements"
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    updates = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    reduction = opt_prop_def(StringAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = ScatterElementsAttrs
    DEFAULTS: ClassVar[dict[str, Any]] = {"reduction": "none"}

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        data, indices, updates = types
        _indices(cls.name, indices)
        elem = _same_element_type(cls.name, [data, updates])
        _reduction(cls.name, props, elem)
        shape, idx = shape_of(data), shape_of(indices)
        axis = normalize_axis(cls.name, cls.attrs_of(props).axis, len(shape))
        if shape_of(updates) != idx:
            raise VerifyException(f"{cls.name}: updates {updates} must have the shape of the indices {indices}")
        if len(idx) != len(shape) or any(
            i > d for a, (i, d) in enumerate(zip(idx, shape, strict=True)) if a != axis
        ):
            raise VerifyException(
                f"{cls.name}: indices {indices} must have the data's rank and fit in "
                f"the data {data} outside axis {axis}"
            )
        return tensor(shape, elem)


@irdl_op_definition
class TopKOp(RelayOp):
    """The `k` largest (or, without `largest`, smallest) elements along `axis`
    and their indices (i64), sorted best first; equal values keep their order
    (the lower index first), as ONNX TopK specifies."""

    name = "relay.topk"
    data = operand_def(TensorType)
    k = prop_def(IntegerAttr)
    axis = prop_def(IntegerAttr)
    largest = opt_prop_def(UnitAttr)
    values = result_def(TensorType)
    indices = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = TopKAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> list[TensorType]:
        (data,) = types
        shape = shape_of(data)
        if not shape:
            raise VerifyException(f"{cls.name}: data must have rank >= 1")
        attrs = cls.attrs_of(props)
        axis = normalize_axis(cls.name, attrs.axis, len(shape))
        k = attrs.k
        if not 0 <= k <= shape[axis]:
            raise VerifyException(
                f"{cls.name}: k = {k} must be in 0..{shape[axis]} (the size of axis {axis})"
            )
        if is_bool(data.get_element_type()):
            raise VerifyException(f"{cls.name}: needs a numeric tensor, got {data}")
        out = [k if a == axis else d for a, d in enumerate(shape)]
        return [tensor(out, data.get_element_type()), tensor(out, IntegerType(64))]


@irdl_op_definition
class CumulativeOp(RelayOp):
    """Running sums or products along `axis` (ONNX CumSum/CumProd, TVM's
    cumsum/cumprod): `exclusive` leaves the current element out, `reverse` runs
    from the end."""

    name = "relay.cumulative"
    data = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    kind = prop_def(StringAttr)
    exclusive = opt_prop_def(UnitAttr)
    reverse = opt_prop_def(UnitAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = CumulativeAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        (data,) = types
        shape = shape_of(data)
        if not shape:
            raise VerifyException(f"{cls.name}: data must have rank >= 1")
        attrs = cls.attrs_of(props)
        normalize_axis(cls.name, attrs.axis, len(shape))
        attrs.checked()
        if is_bool(data.get_element_type()):
            raise VerifyException(f"{cls.name}: needs a numeric tensor, got {data}")
        return data


@irdl_op_definition
class DetOp(RelayOp):
    """The determinant of each square matrix of `data` `[..., M, M]` (ONNX Det,
    numpy's `linalg.det`): the result is `[...]`. Its kernel factors each matrix
    (LU with partial pivoting) in f64; the determinant of a 0x0 matrix is 1."""

    name = "relay.det"
    data = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        (data,) = types
        shape = shape_of(data)
        if len(shape) < 2 or shape[-1] != shape[-2]:
            raise VerifyException(
                f"{cls.name}: data must be square matrices [..., M, M], got {data}"
            )
        if not is_float(data.get_element_type()):
            raise VerifyException(f"{cls.name}: needs a floating-point tensor, got {data}")
        return tensor(shape[:-2], data.get_element_type())


@irdl_op_definition
class NgramCountOp(RelayOp):
    """How often each n-gram of `grams` occurs in each row of `data` (ONNX
    TfIdfVectorizer's counting): `data` is `[L]` or `[B, L]` integers, `grams`
    `[P, n]` the n-grams sorted ascending (lexicographically) and distinct,
    `slots` `[P]` the output column of each. An n-gram starts at any position
    and takes every `d`-th element for each distance `d` in `1..max_skip + 1`
    (unigrams are counted once). The result is `[width]` or `[B, width]` i64
    counts; a slot outside `0..width` counts nothing."""

    name = "relay.ngram_count"
    data = operand_def(TensorType)
    grams = operand_def(TensorType)
    slots = operand_def(TensorType)
    width = prop_def(IntegerAttr)
    max_skip = opt_prop_def(IntegerAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    ATTRS: ClassVar[type[OpAttrs]] = NgramCountAttrs
    DEFAULTS: ClassVar[dict[str, Any]] = {"max_skip": 0}

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        data, grams, slots = types
        shape, pool, where = shape_of(data), shape_of(grams), shape_of(slots)
        if len(shape) not in (1, 2) or not is_int(data.get_element_type()):
            raise VerifyException(f"{cls.name}: data must be [L] or [B, L] integers, got {data}")
        if len(pool) != 2 or pool[1] == 0 or grams.get_element_type() != IntegerType(64):
            raise VerifyException(f"{cls.name}: grams must be [P, n] i64 with n >= 1, got {grams}")
        if where != pool[:1] or slots.get_element_type() != IntegerType(64):
            raise VerifyException(f"{cls.name}: slots must be [{pool[0]}] i64 (one per gram), got {slots}")
        attrs = cls.attrs_of(props)
        width = attrs.width
        if width < 0:
            raise VerifyException(f"{cls.name}: width must be >= 0, got {width}")
        if attrs.max_skip < 0:
            raise VerifyException(f"{cls.name}: max_skip must be >= 0, got {attrs.max_skip}")
        return tensor([*shape[:-1], width], IntegerType(64))


__all__ = [
    "CUMULATIVE_KINDS",
    "SCATTER_REDUCTIONS",
    "CumulativeOp",
    "DetOp",
    "NgramCountOp",
    "ScatterElementsOp",
    "ScatterNDOp",
    "TopKOp",
]
