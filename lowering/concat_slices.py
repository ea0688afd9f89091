"""Concatenation without copies: when each operand of a `relay.concatenate` is
a whole, aligned, contiguous slice of its result, the operands are computed in
their slices of the result's buffer (`tir.view`) and joining them copies
nothing. `lower-relay-to-te` leaves such a concatenation in the graph, and
`lower-te-to-tir`'s graph lowering places its operands (MLIR's bufferization of
a `tensor.concat` into destination slices; the memory planner's in-place rule).
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from lamina.abi import BUFFER_ALIGN
from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.shapes import dims
from lamina.errors import LaminaError


def concat_offsets(op: relay.ConcatenateOp) -> list[int] | None:
    """The element where each operand of `op` starts in its result, when every
    operand is a contiguous slice of it (static shapes, only 1s before the
    axis) of a whole number of `BUFFER_ALIGN`-byte blocks (each slice starts
    aligned, as a kernel's buffers must); None otherwise."""
    out = op.output.type
    assert isinstance(out, TensorType)
    shape = dims(out)
    axis = op.axis.value.data % len(shape) if shape else 0
    if not all(isinstance(n, int) for n in shape) or any(n != 1 for n in shape[:axis]):
        return None
    try:
        width = numpy_dtype(out.get_element_type()).itemsize
    except LaminaError:  # an element type no buffer holds: the kernel's lowering says why
        return None
    offsets, at = [], 0
    for value in op.inputs:
        assert isinstance(value.type, TensorType)
        n = math.prod(dims(value.type))  # type: ignore[arg-type]
        if (n * width) % BUFFER_ALIGN:
            return None
        offsets.append(at)
        at += n
    return offsets


def in_place(op: Operation) -> bool:
    """A concatenation computed in place: left in the graph by
    lower-relay-to-te, never fused, no kernel."""
    return isinstance(op, relay.ConcatenateOp) and concat_offsets(op) is not None


__all__ = ["concat_offsets", "in_place"]
