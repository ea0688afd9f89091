"""The cost of a relay op: its flop count, for throughput reports
(`bench/perf.py`)."""

from __future__ import annotations

import math

from xdsl.dialects.builtin import TensorType

from lamina.dialects import relay
from lamina.dialects.shapes import dims
from lamina.lowering.topi.base import _type


def flops(op: relay.RelayOp) -> int:
    """Multiply-adds counted as two flops; other ops one per output element."""
    out = _type(op)
    n = math.prod(dims(out))
    if isinstance(op, relay.DenseOp | relay.MatmulOp | relay.DensePackOp):
        a = op.operands[0].type
        assert isinstance(a, TensorType)
        kdim = dims(a)[0 if isinstance(op, relay.DenseOp) and op.attrs.transpose_a else -1]
        return 2 * n * kdim
    if isinstance(op, relay.ConvOp):
        w = op.operands[1].type
        assert isinstance(w, TensorType)
        return 2 * n * math.prod(dims(w)[1:])
    return n
