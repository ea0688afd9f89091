"""The converter registry of the torch frontend: ATen op name -> the function
that converts its FX nodes.

    @converter("aten.convolution.default")
    def _conv(ctx: NodeContext) -> Sequence[SSAValue]: ...

Keys are the names FX prints for an `OpOverload` (`str(node.target)`:
`aten.add.Tensor`, `aten.view.default`), and `_operator.getitem` for the
selection of a multi-result node's result. A converter returns one SSA value
per result of the op (None for a result nobody reads).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.ir import SSAValue

from lamina.frontends.torch.context import NodeContext
from lamina.registry import Registry

Converter = Callable[[NodeContext], Sequence[SSAValue | None]]

#: ATen op name -> converter.
CONVERTERS: Registry[Converter] = Registry("torch converter")


def converter(*ops: str) -> Callable[[Converter], Converter]:
    """Register the converter of one or more ATen ops."""

    def wrap(fn: Converter) -> Converter:
        for op in ops:
            CONVERTERS.register(op, fn)
        return fn

    return wrap


def supported_ops() -> list[str]:
    """Every ATen op the torch frontend converts, sorted."""
    return CONVERTERS.names()


__all__ = ["CONVERTERS", "Converter", "converter", "supported_ops"]
