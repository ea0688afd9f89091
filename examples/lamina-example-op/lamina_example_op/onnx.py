"""The ONNX converter of `com.example:SquarePlus` (attribute `b`, default 4)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.frontends.onnx import NodeContext
from lamina_example_op.op import DEFAULT_B, SquarePlusOp


def convert_squareplus(ctx: NodeContext) -> Sequence[SSAValue]:
    b = float(ctx.attr("b", DEFAULT_B))
    if b < 0:
        raise ctx.error(f"attribute b must be >= 0, got {b}")
    return [ctx.emit(SquarePlusOp(ctx.input(0), b=relay.f64_attr(b)))]
