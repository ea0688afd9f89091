"""The ops of `tir` that name sizes or stop `@main` at run time: `tir.size` (a
symbolic size's value), `tir.set_size` (a size set by the data, in `@main`),
`tir.check` (a condition `@main` stops on when it is false), and `size_names`,
the sizes buffer types depend on. Part of the `tir` dialect (`dialects/tir.py`
lists them)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    I64,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    TensorType,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
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


def verify_set_size(op_name: str, size: str, bound: str | None) -> None:
    """A set-size op names a size and may bound it by a dim over other sizes."""
    if not size.isidentifier():
        raise VerifyException(f"{op_name}: '{size}' is not a size name")
    if bound is None:
        return
    try:
        value = Sym.parse(bound)
    except SymbolicError as e:
        raise VerifyException(f"{op_name}: bound '{bound}' is not a size expression: {e}") from None
    if isinstance(value, Sym) and size in value.names:
        raise VerifyException(f"{op_name}: the bound of '{size}' cannot depend on itself")


class SetSizeLike(IRDLOperation):
    """The shared form of `te.set_size` and `tir.set_size`: from here on, size
    `size` is the value of the i64 `count` (element `index` of a 1-D count).

    With a `bound` (a dim over other sizes), the value is clamped to
    `0..bound` and buffers are planned at the bound. Without one, the size is
    *unbounded*: the runtime plans its buffers at a capacity it chooses, and
    `@main` stops (`tir.check`) when the value exceeds it, so that the runtime
    plans again with the value and runs again. Each op declares its `count`."""

    size = prop_def(StringAttr)
    bound = opt_prop_def(StringAttr)
    index = opt_prop_def(IntegerAttr[I64])
    assembly_format = (
        "$size `=` $count (`[` $index^ `]`)? (`,` `bound` $bound^)? attr-dict `:` type($count)"
    )

    def __init__(
        self, size: str, count: SSAValue | Operation, bound: Dim | None = None, index: int | None = None
    ):
        super().__init__(
            operands=[count],
            properties={
                "size": StringAttr(size),
                "bound": None if bound is None else StringAttr(str(bound)),
                "index": None if index is None else IntegerAttr(index, IntegerType(64)),
            },
        )

    @property
    def bound_dim(self) -> Dim | None:
        """The bound, None for an unbounded size."""
        return None if self.bound is None else Sym.parse(self.bound.data)

    @property
    def element(self) -> int | None:
        """The element of a 1-D count it reads, None for a scalar count."""
        return None if self.index is None else self.index.value.data

    def verify_(self) -> None:
        verify_set_size(self.name, self.size.data, None if self.bound is None else self.bound.data)
        t = self.operands[0].type
        assert isinstance(t, MemRefType | TensorType)
        shape = t.get_shape()
        kind = "memref" if isinstance(t, MemRefType) else "tensor"
        if t.get_element_type() != IntegerType(64) or len(shape) != (0 if self.index is None else 1):
            want = f"a {kind}<i64>" if self.index is None else f"a 1-D {kind} of i64 (with an [index])"
            raise VerifyException(f"{self.name}: count must be {want}, got {t}")
        if self.element is not None and not 0 <= self.element < shape[0]:
            raise VerifyException(f"{self.name}: index {self.element} is out of the count's {shape[0]} elements")


@irdl_op_definition
class SetSizeOp(SetSizeLike):
    """In `@main`: a size set by the data, read from the i64 buffer `count`
    after the kernel that computed it.
    `tir.set_size "nz" = %count, bound "6" : memref<i64>`,
    `tir.set_size "r0" = %shape[1] : memref<3xi64>` (unbounded)."""

    name = "tir.set_size"
    count = operand_def(MemRefType)


@irdl_op_definition
class CheckOp(IRDLOperation):
    """In `@main`: stop the run with `message` unless `cond` holds (TVM's
    `AssertStmt`, MLIR's `cf.assert`). The runtime raises the message as an
    error on the model's input: `tir.check %ok, "reshape: ..."`."""

    name = "tir.check"
    cond = operand_def(i1)
    message = prop_def(StringAttr)
    assembly_format = "$cond `,` $message attr-dict"

    def __init__(self, cond: SSAValue | Operation, message: str):
        super().__init__(operands=[cond], properties={"message": StringAttr(message)})


__all__ = ["CheckOp", "SetSizeLike", "SetSizeOp", "SizeOp", "size_names", "verify_set_size"]
