"""Graph ops whose result is not a function of an index space: scatters (an
element is written by whichever update names it), top-k selection and
cumulative scans (TVM's `relay.op.algorithm` and `scatter_nd`/`cumsum`). Their
kernels are written imperatively in TIR (`lamina.lowering.topi.algorithm`), and
they are never fused (pattern opaque).

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
    OpPattern,
    RelayOp,
    _same_element_type,
    choice_prop,
    int_prop,
    is_bool,
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


def _reduction(op_name: str, props: dict[str, Attribute], elem: Attribute) -> None:
    reduction = choice_prop(op_name, props, "reduction", SCATTER_REDUCTIONS, "none")
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
    DEFAULTS: ClassVar[dict[str, Any]] = {"reduction": "none"}

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        data, indices, updates = types
        _indices(cls.name, indices)
        elem = _same_element_type(cls.name, [data, updates])
        _reduction(cls.name, props, elem)
        shape, idx = shape_of(data), shape_of(indices)
        axis = normalize_axis(cls.name, int_prop(props, "axis", 0), len(shape))
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

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> list[TensorType]:
        (data,) = types
        shape = shape_of(data)
        if not shape:
            raise VerifyException(f"{cls.name}: data must have rank >= 1")
        axis = normalize_axis(cls.name, int_prop(props, "axis", -1), len(shape))
        k = int_prop(props, "k", 0)
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

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        (data,) = types
        shape = shape_of(data)
        if not shape:
            raise VerifyException(f"{cls.name}: data must have rank >= 1")
        normalize_axis(cls.name, int_prop(props, "axis", 0), len(shape))
        choice_prop(cls.name, props, "kind", CUMULATIVE_KINDS, "")
        if is_bool(data.get_element_type()):
            raise VerifyException(f"{cls.name}: needs a numeric tensor, got {data}")
        return data


__all__ = [
    "CUMULATIVE_KINDS",
    "SCATTER_REDUCTIONS",
    "CumulativeOp",
    "ScatterElementsOp",
    "ScatterNDOp",
    "TopKOp",
]
