"""The TE compute of `relay.squareplus`: one elementwise stage.

A compute receives the kernel being built, the graph op and the TE values of its
operands, and returns the TE value of its result. `elementwise` builds the
`te.compute` over the output's index space and leaves scheduling to lamina
(elementwise stages are inlined into their consumer or vectorized)."""

from __future__ import annotations

from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.lowering.lang.expr import Expr
from lamina.lowering.topi import Kernel, elementwise


def squareplus(k: Kernel, op: relay.RelayOp, ins: list[SSAValue]) -> SSAValue:
    b = op.attrs.b

    def body(e: Expr, x: SSAValue) -> SSAValue:
        root = e.sqrt(e.add(e.mul(x, x), e.const(b, x.type)))
        return e.mul(e.add(x, root), e.const(0.5, x.type))

    out = op.results[0].type
    return elementwise(k, out, ins, body)  # type: ignore[arg-type]
