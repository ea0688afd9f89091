"""Reading graph-level constants.

A constant op holds its data inline (`dense<...>`, a splat or the full data) or
in a blob of the resource store (`dense_resource<key>`, `dialects/resources.py`).
`constant_data` reads every form, of `relay.constant` and of the `value` of other
constant-like ops (such as `arith.constant`). Building a `relay.constant`
(`make_constant`) and reading the one behind an SSA value (`value_data`) are the
op's own: `lamina.dialects.relay.constant`.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    FloatAttr,
    IntegerAttr,
    TensorType,
)
from xdsl.ir import Operation

from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.resources import blobs
from lamina.errors import LaminaError


def dense_array(value: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The elements of `value` as a flat, writable numpy array, read straight
    from its bytes: xDSL's `get_values` unpacks them into a tuple of Python
    numbers, seconds for a large constant (xDSL stores a splat in full, so a
    ConstantOfShape weight of 100M elements is one)."""
    t = value.get_element_type()
    raw = np.frombuffer(value.data.data, dtype=np.dtype(t.format))  # type: ignore[union-attr]
    return raw.astype(numpy_dtype(t))  # a copy (i1 is stored as i8: bool here)


def constant_data(op: Operation) -> np.ndarray | None:
    """The data of a constant op as a numpy array, if it can be read."""
    value = op.properties.get("value") or op.attributes.get("value")  # any constant op
    try:
        if isinstance(value, DenseIntOrFPElementsAttr):
            t = value.get_type()
            assert isinstance(t, TensorType)
            data = dense_array(value)
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


__all__ = ["constant_data", "dense_array"]
