"""Reductions: `relay.sum`, `mean`, `max`, `min`, `prod`, `logsumexp` over a set
of axes, and `relay.argmax`/`argmin` along one axis.

All are COMM_REDUCE for fusion. `reduce_axes` resolves a reduction's `axes`
property (every axis when absent) and is shared with the passes and lowerings
that need the same normalized axes.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, UnitAttr, i64
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
    _FLOATING,
    _NUMERIC,
    FlagField,
    IntField,
    IntsField,
    OpAttrs,
    OpPattern,
    PropSource,
    RelayOp,
    normalize_axis,
    require_element,
    shape_of,
    tensor,
)


class ReduceAttrs(OpAttrs):
    axes = IntsField(None)
    keepdims = FlagField()


class SumAttrs(ReduceAttrs):
    ordered = FlagField()


class ArgReduceAttrs(OpAttrs):
    axis = IntField(0)
    keepdims = FlagField()
    select_last_index = FlagField()


def reduce_axes(op_name: str, props: PropSource, rank: int) -> list[int]:
    """The sorted, normalized `axes` of a reduction (every axis when absent)."""
    given = ReduceAttrs(props, op_name).axes
    if given is None:
        return list(range(rank))
    axes = sorted({normalize_axis(op_name, a, rank) for a in given})
    if len(axes) != len(given):
        raise VerifyException(f"{op_name}: axes {list(given)} name an axis twice")
    return axes


class ReduceOp(RelayOp):
    """Reduce over `axes` (all axes when absent, none when empty), keeping them as
    size-1 dimensions with `keepdims`."""

    data = operand_def(TensorType)
    axes = opt_prop_def(DenseArrayBase)
    keepdims = opt_prop_def(UnitAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.COMM_REDUCE
    ELEMENTS: ClassVar[dict[str, bool]] = _NUMERIC
    ATTRS: ClassVar[type[OpAttrs]] = ReduceAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        require_element(cls.name, types[0], **cls.ELEMENTS)
        shape = shape_of(types[0])
        axes = reduce_axes(cls.name, props, len(shape))
        keep = cls.attrs_of(props).keepdims
        out = [1 if i in axes else d for i, d in enumerate(shape) if keep or i not in axes]
        return tensor(out, types[0].get_element_type())


@irdl_op_definition
class SumOp(ReduceOp):
    """Sum; `ordered`: accumulated in index order along the reduce axes (no
    partial sums over vector lanes), as a sequential loop adds, for results
    that must match such a loop bit for bit (a float sum depends on its order)."""

    name = "relay.sum"
    ordered = opt_prop_def(UnitAttr)
    ATTRS: ClassVar[type[OpAttrs]] = SumAttrs


@irdl_op_definition
class MeanOp(ReduceOp):
    """Arithmetic mean (integers: the sum divided with truncation)."""

    name = "relay.mean"


@irdl_op_definition
class MaxOp(ReduceOp):
    name = "relay.max"


@irdl_op_definition
class MinOp(ReduceOp):
    name = "relay.min"


@irdl_op_definition
class ProdOp(ReduceOp):
    name = "relay.prod"


@irdl_op_definition
class LogSumExpOp(ReduceOp):
    """`log(sum(exp(x)))`, shifted by the maximum to avoid overflow."""

    name = "relay.logsumexp"
    ELEMENTS: ClassVar[dict[str, bool]] = _FLOATING


class ArgReduceOp(RelayOp):
    """Index (i64) of the extreme value along `axis`: the first one, or the last
    with `select_last_index`. NaN counts as the extreme, as in numpy."""

    data = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    keepdims = opt_prop_def(UnitAttr)
    select_last_index = opt_prop_def(UnitAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    PATTERN: ClassVar[OpPattern] = OpPattern.COMM_REDUCE
    ATTRS: ClassVar[type[OpAttrs]] = ArgReduceAttrs

    @classmethod
    def infer(cls, types: list[TensorType], props: dict[str, Attribute]) -> TensorType:
        require_element(cls.name, types[0], **_NUMERIC)
        shape = shape_of(types[0])
        attrs = cls.attrs_of(props)
        axis = normalize_axis(cls.name, attrs.axis, len(shape))
        if shape and shape[axis] == 0:
            raise VerifyException(f"{cls.name}: cannot reduce the empty axis {axis}")
        keep = attrs.keepdims
        out = [1 if i == axis else d for i, d in enumerate(shape) if keep or i != axis]
        return tensor(out, i64)


@irdl_op_definition
class ArgMaxOp(ArgReduceOp):
    name = "relay.argmax"


@irdl_op_definition
class ArgMinOp(ArgReduceOp):
    name = "relay.argmin"
