"""Building llvm ops for `lower-tir-to-llvm`.

`ModuleState` is what lowering one function knows about, or adds to, the module
(its kernels, external declarations and the parameter table). `EntryBuilder`
inserts ops at the top of a function's entry block, `Constants` makes each scalar
constant there once, and `Emitter` builds llvm ops before the op being lowered.

A lowering (`Lowering`) takes an op and an emitter placed before it and returns
the values that replace the op's results; `lowers` registers one in a table.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    UnitAttr,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from lamina.dialects import tir
from lamina.errors import LoweringError
from lamina.lowering.tir_to_llvm.types import (
    PTR,
    byte_size,
    convert_type,
    mangle,
    scalar_type,
)
from lamina.symbolic import Dim, emit_dim

_OpT = TypeVar("_OpT", bound=Operation)


# ===================================================================== module state
@dataclass
class ModuleState:
    """What lowering one function needs to know about, or add to, the module."""

    module: ModuleOp
    kernels: dict[str, int]
    """Functions defined in the module, with their number of arguments."""
    decls: dict[str, llvm.FuncOp] = field(default_factory=dict[str, llvm.FuncOp])
    params: list[str] = field(default_factory=list[str])

    def declare(
        self, name: str, inputs: Sequence[Attribute], output: Attribute
    ) -> None:
        """Declare an external function (libm, or a kernel defined elsewhere)."""
        ftype = llvm.LLVMFunctionType(inputs, output)
        if name in self.decls:
            if self.decls[name].function_type != ftype:
                raise LoweringError(
                    f"@{name} is called with two different signatures: "
                    f"{self.decls[name].function_type} and {ftype}"
                )
            return
        if name in self.kernels:
            if self.kernels[name] != len(inputs):
                raise LoweringError(
                    f"@{name} takes {self.kernels[name]} buffers but is called with "
                    f"{len(inputs)}"
                )
            return
        decl = llvm.FuncOp(name, ftype, linkage=llvm.LinkageAttr("external"))
        self.decls[name] = decl
        self.module.body.block.add_op(decl)

    def param_index(self, key: str) -> int:
        if key not in self.params:
            self.params.append(key)
        return self.params.index(key)


# ========================================================================= emitter
class EntryBuilder:
    """Inserts ops, in order, at the top of a function's entry block."""

    def __init__(self, block: Block):
        self.block = block
        self.last: Operation | None = None

    def insert(self, op: _OpT) -> _OpT:
        where = (
            InsertPoint.at_start(self.block)
            if self.last is None
            else InsertPoint.after(self.last)
        )
        Rewriter.insert_op(op, where)
        self.last = op
        return op


class Constants:
    """Scalar llvm constants of one function, each made once at its entry."""

    def __init__(self, at_entry: EntryBuilder):
        self.at_entry = at_entry
        self.values: dict[tuple[object, Attribute], SSAValue] = {}
        self.known: dict[SSAValue, int | float] = {}
        """The value of each constant made here."""

    def get(self, value: int | float, t: Attribute) -> SSAValue:
        key = (value, t)
        if key not in self.values:
            op = llvm.ConstantOp(const_attr(value, t), t)
            result = self.at_entry.insert(op).result
            self.values[key] = result
            self.known[result] = value
        return self.values[key]


def const_attr(value: int | float, t: Attribute) -> Attribute:
    """The llvm constant `value` of type `t` (a splat for vectors; i1 is 0/1)."""
    elem = scalar_type(t)
    if isinstance(elem, IntegerType):
        scalar: int | float = int(value != 0) if elem == i1 else int(value)
    else:
        scalar = float(value)
    if isinstance(t, VectorType):
        return DenseIntOrFPElementsAttr.from_list(t, [scalar] * t.element_count())
    if isinstance(elem, IntegerType):
        return IntegerAttr(scalar, elem)
    return FloatAttr(scalar, elem)  # pyright: ignore[reportArgumentType]


# The lowering builds thousands of index additions and multiplications,
# addresses, loads and stores (for every buffer access): these build them
# directly (`create`) from shared attributes, as `arith`'s binary ops are in
# `arith.py`, skipping the checked constructors (about 3x slower); LLVM
# verifies the module it is given.
_NO_WRAP = IntegerAttr(0, 32)
_ONE_SSA_INDEX = DenseArrayBase.from_list(i32, [llvm.GEP_USE_SSA_VAL])
_NOT_ATOMIC = IntegerAttr(0, i64)


@functools.lru_cache(maxsize=64)
def _alignment(n: int) -> IntegerAttr:
    return IntegerAttr(n, i64)


def load(ptr: SSAValue, t: Attribute, align: int) -> Operation:
    """`load t, ptr, align align` (as `llvm.LoadOp(ptr, t, alignment=align)`)."""
    return llvm.LoadOp.create(
        operands=[ptr], result_types=[t], properties={"ordering": _NOT_ATOMIC, "alignment": _alignment(align)}
    )


def store(value: SSAValue, ptr: SSAValue, align: int) -> Operation:
    """`store value, ptr, align align` (as `llvm.StoreOp(value, ptr, alignment=align)`)."""
    return llvm.StoreOp.create(
        operands=[value, ptr], properties={"ordering": _NOT_ATOMIC, "alignment": _alignment(align)}
    )


def int_binop(cls: type[llvm.ArithmeticBinOpOverflow], lhs: SSAValue, rhs: SSAValue) -> Operation:
    """`cls(lhs, rhs)` (`llvm.add`, `llvm.mul`, `llvm.sub`) without wrap flags."""
    return cls.create(operands=[lhs, rhs], result_types=[lhs.type], properties={"overflowFlags": _NO_WRAP})


def gep(ptr: SSAValue, index: SSAValue, elem: Attribute) -> Operation:
    """`getelementptr inbounds elem, ptr, index`: the address of element `index`."""
    return llvm.GEPOp.create(
        operands=[ptr, index], result_types=[PTR],
        properties={"rawConstantIndices": _ONE_SSA_INDEX, "elem_type": elem, "noWrapFlags": _NO_WRAP, "inbounds": UnitAttr()},
    )


def llvm_dim(
    d: Dim,
    sizes: dict[str, SSAValue],
    insert: Callable[[Operation], SSAValue],
    const: Callable[[int], SSAValue],
) -> SSAValue:
    """Dimension `d` as an i64 built with llvm ops (`insert` places each one)."""
    return emit_dim(
        d,
        const,
        sizes.__getitem__,
        lambda a, b: insert(int_binop(llvm.AddOp, a, b)),
        lambda a, b: insert(int_binop(llvm.MulOp, a, b)),
        lambda a, k: insert(llvm.SDivOp(a, const(k))),
    )


def kernel_sizes(op: Operation) -> dict[str, SSAValue]:
    """The size arguments of the kernel `op` is in, by name."""
    fn = op if isinstance(op, tir.PrimFuncOp) else op.parent_op()
    while fn is not None and not isinstance(fn, tir.PrimFuncOp):
        fn = fn.parent_op()
    return fn.size_args() if fn is not None else {}


class Emitter:
    """Builds llvm ops before an anchor op (the op being lowered)."""

    def __init__(
        self, anchor: Operation, state: ModuleState, consts: Constants | None = None
    ):
        block = anchor.parent_block()
        assert block is not None, "the op being lowered is in a block"
        self.block = block
        self.state = state
        self.anchor = anchor
        self.consts = consts

    def emit(self, op: Operation) -> SSAValue:
        """Insert `op` and return its (single) result."""
        self.block.insert_op_before(op, self.anchor)
        return op.results[0]

    def put(self, op: Operation) -> None:
        """Insert `op`, which has no results."""
        self.block.insert_op_before(op, self.anchor)

    def const(self, value: int | float, t: Attribute) -> SSAValue:
        """A scalar constant, or a splat if `t` is a vector type."""
        t = convert_type(t)
        if self.consts is not None and not isinstance(t, VectorType):
            return self.consts.get(value, t)
        return self.emit(llvm.ConstantOp(const_attr(value, t), t))

    def index_value(self, v: SSAValue) -> int | None:
        """The value of `v` if it is an i64 constant made by `const`."""
        k = self.consts.known.get(v) if self.consts is not None else None
        return k if isinstance(k, int) and v.type == i64 else None

    def dim(self, d: Dim) -> SSAValue:
        """Dimension `d` as an i64: a constant, or computed from the enclosing
        kernel's size arguments."""
        if isinstance(d, int):
            return self.const(d, i64)
        return llvm_dim(d, kernel_sizes(self.anchor), self.emit, lambda k: self.const(k, i64))

    def intrinsic(
        self, name: str, args: Sequence[SSAValue], t: Attribute,
        flags: Sequence[llvm.FastMathFlag] = (),
    ) -> SSAValue:
        """Call the LLVM intrinsic `name`, overloaded (mangled) on type `t`, with
        fast-math `flags`."""
        op = llvm.CallIntrinsicOp(f"{name}.{mangle(t)}", args, [t])
        if flags:
            op.properties["fastmathFlags"] = llvm.FastMathAttr(list(flags))
        return self.emit(op)

    def intr_op(
        self, cls: type[Operation], args: Sequence[SSAValue], t: Attribute
    ) -> SSAValue:
        """One of xDSL's `llvm.intr.*` ops (they all carry fastmath flags)."""
        op = cls.create(
            operands=list(args),
            result_types=[t],
            properties={"fastmathFlags": llvm.FastMathAttr(None)},
        )
        return self.emit(op)

    def shuffle(
        self, a: SSAValue, b: SSAValue, mask: list[int], t: VectorType
    ) -> SSAValue:
        return self.emit(
            llvm.ShuffleVectorOp.create(
                operands=[a, b],
                properties={"mask": DenseArrayBase.from_list(i32, mask)},
                result_types=[t],
            )
        )

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        """`cond ? a : b`, lane by lane when `cond` is a vector of i1. xDSL's
        `llvm.select` takes only a scalar condition, so a vector one becomes
        `(a & m) | (b & ~m)` on the lanes' bits with `m = sext(cond)`, which
        LLVM folds back into one vector select (a blend)."""
        if not isinstance(cond.type, VectorType):
            return self.emit(llvm.SelectOp(cond, a, b))
        t = a.type
        assert isinstance(t, VectorType)
        elem = t.get_element_type()
        bits = elem.bitwidth if isinstance(elem, IntegerType) else byte_size(elem) * 8
        ints = VectorType(IntegerType(bits), t.get_shape())
        ai, bi = a, b
        if ints != t:
            ai, bi = self.emit(llvm.BitcastOp(a, ints)), self.emit(llvm.BitcastOp(b, ints))
        m = cond if bits == 1 else self.emit(llvm.SExtOp(cond, ints))
        keep_b = self.emit(llvm.XOrOp(m, self.const(-1, ints)))
        r = self.emit(llvm.OrOp(
            self.emit(llvm.AndOp(ai, m)), self.emit(llvm.AndOp(bi, keep_b))
        ))
        return r if ints == t else self.emit(llvm.BitcastOp(r, t))

    def icmp(self, pred: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        flag = llvm.ICmpPredicateFlag(pred).to_int()
        return self.emit(llvm.ICmpOp(lhs, rhs, IntegerAttr(flag, i64)))


# ======================================================================= lowerings
# A lowering takes the op and an emitter placed before it, and returns the values
# that replace the op's results.
Lowering = Callable[[Operation, Emitter], Sequence[SSAValue]]


def lowers(
    table: dict[type[Operation], Lowering], *types: type[Operation]
) -> Callable[[Lowering], Lowering]:
    """Register the decorated function in `table` as the lowering of `types`."""

    def register(fn: Lowering) -> Lowering:
        for t in types:
            table[t] = fn
        return fn

    return register


def result_type(op: Operation) -> Attribute:
    """The llvm-dialect type of `op`'s (first) result."""
    return convert_type(op.results[0].type)


__all__ = [
    "Constants",
    "Emitter",
    "EntryBuilder",
    "Lowering",
    "ModuleState",
    "const_attr",
    "gep",
    "int_binop",
    "load",
    "lowers",
    "result_type",
    "store",
]
