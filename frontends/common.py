"""What every frontend's converters share: the small builders over relay ops
that ONNX's and torch's converters both need (reshape, cast, a scalar of a
value's type, a range of positions) and the op semantics both frontends
import (a layer norm with its statistics).

A converter's context is a `Builder`: something with `emit(op)` (add an op,
return its first result) and `constant(array, name)` (a blob-backed
`relay.constant`). The ONNX `NodeContext` and the torch `NodeContext` are both.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.shapes import ASSUME_ATTR, Assumption, assumptions_attr, dims_attr
from lamina.errors import FrontendError
from lamina.symbolic import Dim

I64 = IntegerType(64)


class Builder(Protocol):
    """What the shared builders emit through (a converter's context)."""

    def emit(self, op: Operation) -> SSAValue: ...

    def constant(self, value: np.ndarray | Any, name: str = "cst") -> SSAValue: ...


def name_attrs(names: Iterable[str]) -> ArrayAttr[DictionaryAttr]:
    """Argument or result attributes naming each (`lamina.name`)."""
    return ArrayAttr([DictionaryAttr({"lamina.name": StringAttr(n)}) for n in names])


def graph_module(
    block: Block,
    results: Sequence[SSAValue],
    input_names: Iterable[str],
    output_names: Iterable[str],
    assumptions: Sequence[Assumption] = (),
) -> ModuleOp:
    """The imported graph as a module of one `@main` over `block` (which ends
    with its return of `results`), its inputs and outputs named, with the
    model's assumptions; verified (a `FrontendError` if it does not)."""
    fn = func.FuncOp(
        "main",
        ([a.type for a in block.args], [r.type for r in results]),
        Region(block),
        arg_attrs=name_attrs(input_names),
        res_attrs=name_attrs(output_names),
    )
    if assumptions:
        fn.attributes[ASSUME_ATTR] = assumptions_attr(assumptions)
    module = ModuleOp([fn])
    try:
        module.verify()
    except VerifyException as e:
        raise FrontendError(f"the imported graph does not verify: {e}") from None
    return module


def shape(v: SSAValue) -> tuple[Dim, ...]:
    """`v`'s shape, symbolic dims as expressions."""
    return relay.shape_of(v.type)


def elem(v: SSAValue) -> Attribute:
    assert isinstance(v.type, TensorType)
    return v.type.get_element_type()


def rank(v: SSAValue) -> int:
    return len(shape(v))


def reshape(b: Builder, x: SSAValue, new: Sequence[Dim]) -> SSAValue:
    """`x` reshaped to `new` (no op when it has that shape already)."""
    if tuple(new) == shape(x):
        return x
    return b.emit(relay.ReshapeOp(x, shape=dims_attr(new)))


def cast(b: Builder, x: SSAValue, to: Attribute) -> SSAValue:
    """`x` converted to element type `to` (no op when it has it)."""
    if elem(x) == to:
        return x
    return b.emit(relay.CastOp(x, dtype=to))


def scalar(b: Builder, value: float, like: SSAValue) -> SSAValue:
    """A rank-0 constant of `like`'s element type."""
    return b.constant(np.array(value, dtype=numpy_dtype(elem(like))))


def positions(b: Builder, n: Dim) -> SSAValue:
    """`0, 1, ..., n - 1` as an i64 vector (`n` may be a symbolic size)."""
    if isinstance(n, int):
        return b.constant(np.arange(n, dtype=np.int64), "positions")
    return b.emit(
        relay.ArangeOp(size=dims_attr([n]), start=IntegerAttr(0, I64), step=IntegerAttr(1, I64))
    )


def layer_norm(
    b: Builder,
    x: SSAValue,
    scale: SSAValue | None,
    bias: SSAValue | None,
    axis: int,
    eps: float,
    stats: bool = False,
) -> list[SSAValue]:
    """Normalize `x` over the axes from `axis` on, then scale and shift: one
    `relay.layer_norm`; with `stats`, as graph ops that also give the mean and
    the inverse standard deviation (kept dims), `[y, mean, inv]`."""
    if not stats and scale is not None:
        op = relay.LayerNormOp(x, scale, bias, axis=relay.i64_attr(axis), epsilon=relay.f64_attr(eps))
        return [b.emit(op)]
    axes = relay.i64_array(range(axis, rank(x)))
    mean = b.emit(relay.MeanOp(x, axes=axes, keepdims=UnitAttr()))
    centered = b.emit(relay.SubtractOp(x, mean))
    var = b.emit(
        relay.MeanOp(b.emit(relay.MultiplyOp(centered, centered)), axes=axes, keepdims=UnitAttr())
    )
    inv = b.emit(relay.RsqrtOp(b.emit(relay.AddOp(var, scalar(b, eps, var)))))
    y = b.emit(relay.MultiplyOp(centered, inv))
    if scale is not None:
        y = b.emit(relay.MultiplyOp(y, scale))
    if bias is not None:
        y = b.emit(relay.AddOp(y, bias))
    return [y, mean, inv]


__all__ = [
    "Builder",
    "cast",
    "elem",
    "layer_norm",
    "positions",
    "rank",
    "reshape",
    "scalar",
    "shape",
]
