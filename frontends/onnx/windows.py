"""Window functions: BlackmanWindow, HannWindow and HammingWindow.

Each is a generalized cosine window over `n = 0 .. size - 1`,
`a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N)` with `N = size` (periodic, the
default) or `size - 1` (symmetric), computed in f64 and cast to
`output_datatype`. A constant size gives a constant; a size given when the
model runs is a size set by the data (`relay.dyn_arange`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import f64
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.frontends.onnx import runtime_shapes as rs
from lamina.frontends.onnx.context import NodeContext, shape
from lamina.frontends.onnx.helpers import _cast, _dtype, _reshape
from lamina.frontends.onnx.registry import converter

#: (a0, a1, a2) of each window.
_COEFFS = {
    "BlackmanWindow": (0.42, 0.5, 0.08),
    "HannWindow": (0.5, 0.5, 0.0),
    "HammingWindow": (25 / 46, 21 / 46, 0.0),
}


def _window(ctx: NodeContext) -> Sequence[SSAValue]:
    a0, a1, a2 = _COEFFS[ctx.node.op_type]
    periodic = int(ctx.attr("periodic", 1))
    out = _dtype(ctx, int(ctx.attr("output_datatype", 1)))
    if not relay.is_float(out) and not relay.is_int(out):
        raise ctx.error(f"output_datatype must be numeric, got {out}")
    size = ctx.input(0)
    if math.prod(shape(size)) != 1:
        raise ctx.error(f"size must be a scalar, got {size.type}")
    if not ctx.at_run_time(0):
        n = int(np.asarray(ctx.const_value(0)).reshape(-1)[0])
        if n < 0:
            raise ctx.error(f"size must be non-negative, got {n}")
        i = np.arange(n, dtype=np.float64)
        span = n if periodic else n - 1
        w = a0 - a1 * np.cos(2 * np.pi * i / span) + a2 * np.cos(4 * np.pi * i / span)
        return [_cast(ctx, ctx.constant(w), out)]
    m = rs.ShapeMath(ctx)
    count = m.count(m.i64(_reshape(ctx, size, [])), "size must be non-negative")
    i = _cast(ctx, rs.arange(ctx, count, "window"), f64)
    span = _cast(ctx, count if periodic else m.sub(count, 1), f64)
    turn = m.div(m.mul(i, m.v(2 * np.pi, f64)), span)
    w = m.sub(m.v(a0, f64), m.mul(ctx.emit(relay.CosOp(turn)), m.v(a1, f64)))
    if a2:
        w = m.add(w, m.mul(ctx.emit(relay.CosOp(m.mul(turn, m.v(2.0, f64)))), m.v(a2, f64)))
    return [_cast(ctx, w, out)]


for _op in _COEFFS:
    converter(
        _op,
        emits=("relay.dyn_arange", "relay.cos", "relay.multiply", "relay.subtract"),
        notes="periodic and symmetric; a constant or run-time size",
    )(_window)
