"""The ops of `tir` that name sizes: `tir.size` (a symbolic size's value) and
`tir.set_size` (a size set by the data, in `@main`), and `size_names`, the
sizes buffer types depend on. Part of the `tir` dialect (`dialects/tir.py`
lists them)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from lamina.dialects.shapes import dims
from lamina.symbolic import Dim, Sym, SymbolicError
from lamina.symbolic import names_of as dim_names


def size_names(types: Sequence[Attribute]) -> list[str]:
    """The sizes buffers of `types` depend on, sorted: a kernel's size arguments."""
    names: set[str] = set()
    for t in types:
        if isinstance(t, MemRefType):
            names |= dim_names(dims(t))
    return sorted(names)


@irdl_op_definition
class SizeOp(IRDLOperation):
    """The value of a symbolic size: `%n = tir.size "seq" : index`. In a kernel,
    its size argument; in `@main`, bound from the inputs at run time."""

    name = "tir.size"
    size = prop_def(StringAttr)
    result = result_def(IndexType())
    traits = traits_def(Pure())
    assembly_format = "$size attr-dict `:` type($result)"

    def __init__(self, size: str):
        super().__init__(properties={"size": StringAttr(size)}, result_types=[IndexType()])

    def verify_(self) -> None:
        if not self.size.data.isidentifier():
            raise VerifyException(f"tir.size: '{self.size.data}' is not a size name")


def verify_set_size(op_name: str, size: str, bound: str) -> None:
    """A set-size op names a size and bounds it by a dim over other sizes."""
    if not size.isidentifier():
        raise VerifyException(f"{op_name}: '{size}' is not a size name")
    try:
        value = Sym.parse(bound)
    except SymbolicError as e:
        raise VerifyException(f"{op_name}: bound '{bound}' is not a size expression: {e}") from None
    if isinstance(value, Sym) and size in value.names:
        raise VerifyException(f"{op_name}: the bound of '{size}' cannot depend on itself")



class SetSizeLike(IRDLOperation):
    """The shared form of `te.set_size` and `tir.set_size`: from here on, size
    `size` is the value of the one-element i64 `count`, clamped to `0..bound`
    (a dim over other sizes). Each op declares its `count` operand."""

    size = prop_def(StringAttr)
    bound = prop_def(StringAttr)
    assembly_format = "$size `=` $count `,` `bound` $bound attr-dict `:` type($count)"

    def __init__(self, size: str, count: SSAValue | Operation, bound: Dim):
        super().__init__(
            operands=[count],
            properties={"size": StringAttr(size), "bound": StringAttr(str(bound))},
        )

    def verify_(self) -> None:
        verify_set_size(self.name, self.size.data, self.bound.data)


@irdl_op_definition
class SetSizeOp(SetSizeLike):
    """In `@main`: a size set by the data, read from the one-element i64
    buffer `count` after the kernel that computed it.
    `tir.set_size "nz" = %count, bound "6" : memref<i64>`."""

    name = "tir.set_size"
    count = operand_def(MemRefType)

    def verify_(self) -> None:
        super().verify_()
        t = self.count.type
        assert isinstance(t, MemRefType)
        if t.get_element_type() != IntegerType(64) or t.get_num_dims() != 0:
            raise VerifyException(f"tir.set_size: count must be a memref<i64>, got {t}")


__all__ = ["SetSizeLike", "SetSizeOp", "SizeOp", "size_names", "verify_set_size"]
