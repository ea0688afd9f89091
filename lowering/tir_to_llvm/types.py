"""Types for `lower-tir-to-llvm`: TIR value types as llvm-dialect types, buffer
(memref) checks, sizes and strides, and the type suffixes of LLVM intrinsics."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    NoneAttr,
    Signedness,
    VectorType,
    i64,
)
from xdsl.ir import Attribute

from lamina.dialects import tir
from lamina.dialects.shapes import dims
from lamina.errors import LoweringError
from lamina.symbolic import Dim, SymbolicError

PTR = llvm.LLVMPointerType()
FLOATS = (Float16Type, Float32Type, Float64Type)


def convert_type(t: Attribute) -> Attribute:
    """The llvm-dialect type of a TIR value: `index` is i64, a memref a pointer, and
    integers are signless (LLVM's ops carry the signedness)."""
    if isinstance(t, IndexType):
        return i64
    if isinstance(t, MemRefType):
        return PTR
    if isinstance(t, IntegerType) and t.signedness.data != Signedness.SIGNLESS:
        return IntegerType(t.width.data)
    if isinstance(t, VectorType):
        elem = t.get_element_type()
        new = convert_type(elem)
        return t if new == elem else VectorType(new, t.get_shape())
    return t


def scalar_type(t: Attribute) -> Attribute:
    """The element type of a vector type; any other type itself."""
    return t.get_element_type() if isinstance(t, VectorType) else t


def byte_size(t: Attribute) -> int:
    """Bytes of a scalar type in memory (i1 takes a byte, as in numpy)."""
    t = convert_type(t)
    if isinstance(t, IntegerType):
        return max(1, (t.width.data + 7) // 8)
    if isinstance(t, FLOATS):
        return t.bitwidth // 8
    raise LoweringError(
        f"buffers of element type {t} are not supported: use an integer, index, "
        "f16, f32 or f64 element type"
    )


def numel(t: MemRefType) -> Dim:
    """Elements of a buffer (symbolic if its shape is)."""
    n: Dim = 1
    for d in dims(t):
        n = n * d
    return n


def check_buffer(t: Attribute, where: str) -> MemRefType:
    """`t` as a buffer the lowering supports: a static, row-major memref of a
    scalar element type (else a LoweringError naming `where`)."""
    if not isinstance(t, MemRefType):
        raise LoweringError(f"{where}: expected a memref, got {t}")
    if not isinstance(t.layout, NoneAttr | tir.SizesAttr):
        raise LoweringError(
            f"{where}: buffer {t} has a layout; only row-major buffers (of static "
            "or #tir.sizes shape) are supported"
        )
    try:
        buffer_strides(t)
    except SymbolicError as e:
        raise LoweringError(f"{where}: buffer {t}: {e}") from None
    byte_size(t.get_element_type())
    return t


@functools.lru_cache(maxsize=4096)
def buffer_strides(t: MemRefType) -> tuple[Dim, ...]:
    """Strides, in elements, of the row-major buffer type `t` (cached: every
    access to a buffer asks; a SymbolicError if its shape is malformed)."""
    return tuple(row_major_strides(dims(t)))


def row_major_strides(shape: Sequence[Dim]) -> list[Dim]:
    """Strides, in elements, of a row-major buffer of `shape`."""
    strides: list[Dim] = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    return strides


def mangle(t: Attribute) -> str:
    """The suffix that overloads an LLVM intrinsic on type `t` (`v8f32`, `i64`)."""
    if isinstance(t, VectorType):
        return f"v{t.element_count()}{mangle(t.get_element_type())}"
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    if isinstance(t, FLOATS):
        return f"f{t.bitwidth}"
    raise LoweringError(f"no LLVM intrinsic for values of type {t}")


__all__ = [
    "FLOATS",
    "PTR",
    "buffer_strides",
    "byte_size",
    "check_buffer",
    "convert_type",
    "mangle",
    "numel",
    "row_major_strides",
    "scalar_type",
]
