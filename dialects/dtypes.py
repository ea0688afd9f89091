"""Element types: xDSL types <-> numpy dtypes."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

from lamina.errors import LaminaError


def numpy_dtype(t: Attribute) -> np.dtype:
    """The numpy dtype of an element type (signless integers are signed, i1 is bool)."""
    if isinstance(t, Float32Type):
        return np.dtype(np.float32)
    if isinstance(t, Float64Type):
        return np.dtype(np.float64)
    if isinstance(t, Float16Type):
        return np.dtype(np.float16)
    if isinstance(t, IntegerType):
        width = t.width.data
        if width == 1:
            return np.dtype(np.bool_)
        unsigned = t.signedness.data == Signedness.UNSIGNED
        if width in (8, 16, 32, 64):
            return np.dtype(f"{'u' if unsigned else ''}int{width}")
    raise LaminaError(f"element type {t} has no numpy equivalent")


def element_type(dtype: np.dtype | type) -> Attribute:
    """The xDSL element type for a numpy dtype."""
    from xdsl.dialects.builtin import f16, f32, f64

    dt = np.dtype(dtype)
    if dt == np.float32:
        return f32
    if dt == np.float64:
        return f64
    if dt == np.float16:
        return f16
    if dt == np.bool_:
        return IntegerType(1)
    if dt.kind in "iu":
        sign = Signedness.UNSIGNED if dt.kind == "u" else Signedness.SIGNLESS
        return IntegerType(dt.itemsize * 8, sign)
    raise LaminaError(f"numpy dtype {dt} is not supported")
