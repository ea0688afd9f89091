"""Tensor and buffer types with symbolic dimensions.

A symbolic dimension prints as `?` in the type and is named, in order, by the
type's encoding: `tensor<?x?x768xf32, ["batch", "seq"]>` is `batch x seq x 768`;
a buffer's by its `#tir.sizes` layout (`SizesAttr`).
Dims that are equal in a model are the same expression, so types compare
structurally: two values of type `tensor<?x768xf32, ["batch"]>` have the same
shape at run time. A `?` without a name is refused: every dimension is known,
statically or symbolically.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMap,
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    MemRefLayoutAttr,
    MemRefType,
    NoneAttr,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition

from lamina.symbolic import Dim, Sym, SymbolicError


def symbolic_tensor(shape: Sequence[Dim], element_type: Attribute) -> TensorType:
    """The tensor type of `shape`, naming its symbolic dims in the encoding."""
    syms = [StringAttr(str(d)) for d in shape if isinstance(d, Sym)]
    static = [DYNAMIC_INDEX if isinstance(d, Sym) else int(d) for d in shape]
    if not syms:
        return TensorType(element_type, static)
    return TensorType(element_type, static, ArrayAttr(syms))


def shape_dims(t: TensorType) -> tuple[Dim, ...]:
    """`t`'s shape with its symbolic dims as expressions."""
    shape = t.get_shape()
    if all(d >= 0 for d in shape):
        return tuple(shape)
    enc = t.encoding
    names = enc.data if isinstance(enc, ArrayAttr) else ()
    dynamic = sum(d < 0 for d in shape)
    if len(names) != dynamic or not all(isinstance(n, StringAttr) for n in names):
        raise SymbolicError(
            f"{t} has {dynamic} dynamic dimension(s) but names {len(names)}; give each '?' a "
            "name in the encoding (tensor<?x8xf32, [\"batch\"]>) or a static size "
            "(input_shapes= when importing)"
        )
    it = iter(Sym.parse(n.data) for n in names)  # type: ignore[union-attr]
    out = tuple(next(it) if d < 0 else d for d in shape)
    for d in out:
        if isinstance(d, int) and d < 0:
            raise SymbolicError(f"{t}: a dimension named in its encoding is negative")
    return out


def is_symbolic(t: Attribute) -> bool:
    return isinstance(t, TensorType) and any(d < 0 for d in t.get_shape())


def dims_attr(dims: Sequence[Dim]) -> DenseArrayBase | ArrayAttr:
    """A list of dims as a property: `array<i64: ...>`, or `[..., "seq", 64]` if symbolic."""
    if all(not isinstance(d, Sym) for d in dims):
        return DenseArrayBase.from_list(i64, [int(d) for d in dims])
    return ArrayAttr(
        [StringAttr(str(d)) if isinstance(d, Sym) else IntegerAttr(int(d), i64) for d in dims]
    )


def dims_of(attr: Attribute) -> tuple[Dim, ...]:
    """The dims a `dims_attr` property holds."""
    if isinstance(attr, DenseArrayBase):
        return tuple(int(v) for v in attr.get_values())
    assert isinstance(attr, ArrayAttr)
    out: list[Dim] = []
    for a in attr.data:
        if isinstance(a, StringAttr):
            out.append(Sym.parse(a.data))
        elif isinstance(a, IntegerAttr):
            out.append(a.value.data)
        else:
            raise SymbolicError(f"{a} is not a dimension (an integer or a string naming one)")
    return tuple(out)


@irdl_attr_definition
class SizesAttr(MemRefLayoutAttr, ParametrizedAttribute):
    """The row-major layout of a buffer with symbolic dims, naming its `?`s in
    order (TVM's buffers of symbolic shape): `memref<?x768xf32, #tir.sizes<["seq"]>>`.
    A kernel gets the sizes' values as `index` arguments (see `tir.prim_func`)."""

    name = "tir.sizes"
    dims: ArrayAttr[StringAttr]

    def get_affine_map(self) -> AffineMap:
        raise NotImplementedError("a row-major layout over symbolic sizes has no affine map")


def dims(t: Attribute) -> tuple[Dim, ...]:
    """The dims of a tensor or buffer type, symbolic ones as expressions."""
    if isinstance(t, TensorType):
        return shape_dims(t)
    assert isinstance(t, MemRefType)
    names = t.layout.dims if isinstance(t.layout, SizesAttr) else NoneAttr()
    return shape_dims(TensorType(t.get_element_type(), t.get_shape(), names))


#: On a graph function: what its import assumed of the symbolic sizes, as
#: `[expr, limit, why]` meaning `expr <= limit`; checked when the model runs.
ASSUME_ATTR = "lamina.assume"
Assumption = tuple[Dim, int, str]


def assumptions_attr(assumptions: Sequence[Assumption]) -> ArrayAttr:
    return ArrayAttr(
        [ArrayAttr([StringAttr(str(e)), IntegerAttr(n, i64), StringAttr(why)]) for e, n, why in assumptions]
    )


def assumptions_of(attr: Attribute | None) -> list[Assumption]:
    if not isinstance(attr, ArrayAttr):
        return []
    out: list[Assumption] = []
    for a in attr.data:
        e, n, why = a.data  # type: ignore[attr-defined]
        out.append((Sym.parse(e.data), n.value.data, why.data))
    return out
