"""`tir.view`: a buffer that is a contiguous part of another. `@main` computes a
concatenation's operands in their slices of its buffer through views, so that
joining them copies nothing (`lower-te-to-tir`). Part of the `tir` dialect
(`dialects/tir.py` lists it)."""

from __future__ import annotations

import math

from xdsl.dialects.builtin import I64, IntegerAttr, MemRefType, i64
from xdsl.ir import Operation, SSAValue
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


def _numel(t: MemRefType, what: str) -> int:
    shape = dims(t)
    if not all(isinstance(n, int) for n in shape):
        raise VerifyException(f"tir.view: the {what} {t} must have a static shape")
    return math.prod(shape)  # type: ignore[arg-type]


@irdl_op_definition
class ViewOp(IRDLOperation):
    """`%v = tir.view %buf[offset] : memref<A> to memref<B>`: the elements of
    `%v`, in row-major order, are those of `%buf` from element `offset` on.
    Writing `%v` writes `%buf`; no data moves."""

    name = "tir.view"
    source = operand_def(MemRefType)
    offset = prop_def(IntegerAttr[I64])
    result = result_def(MemRefType)
    traits = traits_def(Pure())
    assembly_format = "$source `[` $offset `]` attr-dict `:` type($source) `to` type($result)"

    def __init__(self, source: SSAValue | Operation, offset: int, type: MemRefType):
        super().__init__(
            operands=[source], result_types=[type], properties={"offset": IntegerAttr(offset, i64)}
        )

    def verify_(self) -> None:
        src, out = self.source.type, self.result.type
        assert isinstance(src, MemRefType) and isinstance(out, MemRefType)
        if src.get_element_type() != out.get_element_type():
            raise VerifyException(
                f"tir.view: a view of {src} has its element type, not {out.get_element_type()}"
            )
        start, size, whole = self.offset.value.data, _numel(out, "view"), _numel(src, "buffer")
        if start < 0 or start + size > whole:
            raise VerifyException(
                f"tir.view: elements {start}..{start + size} are outside the {whole} of {src}"
            )


__all__ = ["ViewOp"]
