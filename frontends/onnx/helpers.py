"""What the converters share: small helpers that read a value's type and emit
the casts, reshapes and scalar constants converters need (those any frontend
needs are `lamina.frontends.common`'s, named here as the converters know them). Package-internal (the
leading underscores keep them from clashing with converters' local names such
as `rank` and `axis`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Attribute, SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import element_type
from lamina.errors import LaminaError
from lamina.frontends import common
from lamina.frontends.onnx.context import NodeContext
from lamina.symbolic import Dim, Sym


def _unit(flag: Any) -> Attribute | None:
    return UnitAttr() if flag else None


def _f64(value: float | None) -> Attribute | None:
    return None if value is None else relay.f64_attr(value)


_elem = common.elem
_rank = common.rank
_reshape = common.reshape
_cast = common.cast
_scalar = common.scalar


def _ints(values: Any) -> list[int]:
    return [int(v) for v in np.asarray(values).reshape(-1)]


def _dims(values: Any) -> list[Dim]:
    """A shape input's values: ints, or `Sym`s where they are symbolic dims."""
    return [v if isinstance(v, Sym) else int(v) for v in np.asarray(values).reshape(-1)]


def _dtype(ctx: NodeContext, onnx_type: int) -> Attribute:
    """The relay element type of an ONNX TensorProto data type."""
    try:
        return element_type(onnx.helper.tensor_dtype_to_np_dtype(onnx_type))
    except (LaminaError, KeyError, TypeError, ValueError):
        name = onnx.TensorProto.DataType.Name(onnx_type)
        raise ctx.unsupported(f"element type {name} is not supported") from None


def _axis(ctx: NodeContext, axis: int, rank: int) -> int:
    return relay.normalize_axis(ctx.node.op_type, axis, rank)


def _zeros_like(ctx: NodeContext, x: SSAValue) -> SSAValue:
    return _scalar(ctx, 0, x)
