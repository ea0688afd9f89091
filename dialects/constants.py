"""Constant builders and readers for graph-level constants.

A `relay.constant` holds its data inline (`dense<...>`, a splat or the full
data) or in a blob of the resource store (`dense_resource<key>`,
`dialects/resources.py`). `make_constant` builds the smallest form for an array;
`constant_data` reads every form (and the `value` of other constant-like ops,
such as `arith.constant`); `value_data` reads the constant behind an SSA value.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    FloatAttr,
    IntegerAttr,
    TensorType,
)
from xdsl.ir import Operation, OpResult, SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.resources import blobs
from lamina.errors import LaminaError

#: Constants with at most this many elements (not all equal) are printed inline.
INLINE_LIMIT = 16


def constant_data(op: Operation) -> np.ndarray | None:
    """The data of a constant op as a numpy array, if it can be read."""
    value = op.properties.get("value") or op.attributes.get("value")  # any constant op
    try:
        if isinstance(value, DenseIntOrFPElementsAttr):
            t = value.get_type()
            assert isinstance(t, TensorType)
            data = np.array(value.get_values(), dtype=numpy_dtype(t.get_element_type()))
            shape = tuple(t.get_shape())
            # A splat (one value, any shape, rank 0 included) or the full data.
            return np.broadcast_to(data.reshape(()), shape) if data.size == 1 else data.reshape(shape)
        if isinstance(value, DenseResourceAttr):
            t = value.type
            assert isinstance(t, TensorType)
            return blobs.array(
                value.resource_handle.data,
                tuple(t.get_shape()),
                numpy_dtype(t.get_element_type()),
            )
        if isinstance(value, IntegerAttr | FloatAttr):
            return np.array(value.value.data)
    except LaminaError:
        return None
    return None


def value_data(value: SSAValue) -> np.ndarray | None:
    """The data of `value` when a readable `relay.constant` defines it."""
    if isinstance(value, OpResult) and isinstance(value.op, relay.ConstantOp):
        return constant_data(value.op)
    return None


def make_constant(array: np.ndarray, t: TensorType, name: str = "folded") -> relay.ConstantOp:
    """A `relay.constant` of type `t` holding `array`: splat, inline or blob."""
    dtype = numpy_dtype(t.get_element_type())
    data = np.ascontiguousarray(np.asarray(array).astype(dtype, copy=False))
    shape = tuple(t.get_shape())
    if data.shape != shape:
        if data.size == int(np.prod(shape, dtype=np.int64)):
            data = data.reshape(shape)  # e.g. one element for a rank-0 type
        else:
            data = np.ascontiguousarray(np.broadcast_to(data, shape))
    flat = data.reshape(-1)
    is_float = isinstance(t.get_element_type(), AnyFloat)
    convert = float if is_float else int
    if flat.size and np.all(flat == flat[0]) and not (is_float and np.isnan(flat[0])):
        return relay.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [convert(flat[0])]))
    if 0 < flat.size <= INLINE_LIMIT and not (is_float and np.isnan(flat).any()):
        return relay.ConstantOp(
            DenseIntOrFPElementsAttr.from_list(t, [convert(v) for v in flat])
        )
    key = blobs.add(name, data)
    return relay.ConstantOp(DenseResourceAttr.from_params(key, t))


__all__ = ["INLINE_LIMIT", "constant_data", "make_constant", "value_data"]
