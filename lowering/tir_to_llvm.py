"""Lower TIR to xDSL's `llvm` dialect: the `lower-tir-to-llvm` pass.

Input: a module of `tir.prim_func` kernels, optionally one entry `func.func @main`
over memrefs (and `func.func` declarations of external kernels). Output: only
`llvm.func` ops, ready for `lamina.dialects.llvm_ext.convert_module`.

Each function is lowered in four sweeps, so that every step sees the information
it needs:

1. loop induction variables are retyped `index` -> `i64`;
2. scalar ops (`arith`, `math`) and buffer accesses (`tir.load`/`tir.store`/
   `tir.call`) become llvm ops; buffers still carry their memref types here, which
   give the shapes and element types that address arithmetic needs;
3. buffers become pointers: kernel arguments are retyped to `!llvm.ptr`,
   `tir.alloc` becomes an `llvm.alloca` hoisted to the entry block (or, in `@main`,
   a pointer into the workspace arena), `tir.constant` a pointer from the parameter
   table;
4. `tir.for`/`tir.if` regions are flattened into the function's CFG (outermost
   first, so that every region is still a single block when it is inlined).

Kernel ABI: `llvm.func @k(!llvm.ptr {llvm.noalias, llvm.align = 64}, ...)`, external,
returning void. The runtime allocates every buffer 64-byte aligned (BUFFER_ALIGN);
`noalias` is dropped for a kernel that some `tir.call` passes the same buffer twice.

Entry ABI: `llvm.func @main(%args: !llvm.ptr, %params: !llvm.ptr, %workspace:
!llvm.ptr)`. `args` is an array of buffer pointers, inputs then outputs, in the order
of `@main`'s arguments; `params` is an array of weight pointers, in the order of the
module attribute `lamina.params` (resource keys, in order of first use); `workspace`
is a 64-byte aligned arena of `lamina.workspace_size` bytes that holds every
`tir.alloc global` of `@main` at an offset planned by liveness (see
`plan_workspace`). `lamina.intermediate_bytes` is what the allocs would take without
reuse.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, math, vector
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    Signedness,
    StringAttr,
    UnitAttr,
    VectorType,
    i1,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from lamina import host
from lamina.abi import BUFFER_ALIGN, BUFFER_SLACK
from lamina.dialects import llvm_ext, tir
from lamina.errors import LoweringError
from lamina.passes.registry import register_pass

PTR = llvm.LLVMPointerType()
_OpT = TypeVar("_OpT", bound=Operation)
_FLOATS = (Float16Type, Float32Type, Float64Type)


# ============================================================================ types
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


def _scalar_type(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, VectorType) else t


def byte_size(t: Attribute) -> int:
    """Bytes of a scalar type in memory (i1 takes a byte, as in numpy)."""
    t = convert_type(t)
    if isinstance(t, IntegerType):
        return max(1, (t.width.data + 7) // 8)
    if isinstance(t, _FLOATS):
        return t.bitwidth // 8
    raise LoweringError(
        f"buffers of element type {t} are not supported: use an integer, index, "
        "f16, f32 or f64 element type"
    )


def _numel(t: MemRefType) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    return n


def _check_buffer(t: Attribute, where: str) -> MemRefType:
    if not isinstance(t, MemRefType):
        raise LoweringError(f"{where}: expected a memref, got {t}")
    if any(d < 0 for d in t.get_shape()):
        raise LoweringError(
            f"{where}: buffer {t} has a dynamic shape; lower-tir-to-llvm needs "
            "static shapes (specialize the model's input shapes)"
        )
    if not isinstance(t.layout, NoneAttr):
        raise LoweringError(
            f"{where}: buffer {t} has a layout; only row-major (identity layout) "
            "buffers are supported"
        )
    byte_size(t.get_element_type())
    return t


def _row_major_strides(shape: Sequence[int]) -> list[int]:
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    return strides


# ===================================================================== module state
@dataclass
class _ModuleState:
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
class _Constants:
    """Scalar llvm constants of one function, each made once at its entry."""

    def __init__(self, at_entry: _EntryBuilder):
        self.at_entry = at_entry
        self.values: dict[tuple[object, Attribute], SSAValue] = {}

    def get(self, value: int | float, t: Attribute) -> SSAValue:
        key = (value, t)
        if key not in self.values:
            op = llvm.ConstantOp(_const_attr(value, t), t)
            self.values[key] = self.at_entry.insert(op).result
        return self.values[key]


def _const_attr(value: int | float, t: Attribute) -> Attribute:
    """The llvm constant `value` of type `t` (a splat for vectors; i1 is 0/1)."""
    elem = _scalar_type(t)
    if isinstance(elem, IntegerType):
        scalar: int | float = int(value != 0) if elem == i1 else int(value)
    else:
        scalar = float(value)
    if isinstance(t, VectorType):
        return DenseIntOrFPElementsAttr.from_list(t, [scalar] * t.element_count())
    if isinstance(elem, IntegerType):
        return IntegerAttr(scalar, elem)
    return FloatAttr(scalar, elem)  # pyright: ignore[reportArgumentType]


class _Emitter:
    """Builds llvm ops before an anchor op (the op being lowered)."""

    def __init__(
        self, anchor: Operation, state: _ModuleState, consts: _Constants | None = None
    ):
        self.builder = Builder(InsertPoint.before(anchor))
        self.state = state
        self.anchor = anchor
        self.consts = consts

    def emit(self, op: Operation) -> SSAValue:
        """Insert `op` and return its (single) result."""
        self.builder.insert(op)
        return op.results[0]

    def put(self, op: Operation) -> None:
        """Insert `op`, which has no results."""
        self.builder.insert(op)

    def const(self, value: int | float, t: Attribute) -> SSAValue:
        """A scalar constant, or a splat if `t` is a vector type."""
        t = convert_type(t)
        if self.consts is not None and not isinstance(t, VectorType):
            return self.consts.get(value, t)
        return self.emit(llvm.ConstantOp(_const_attr(value, t), t))

    def intrinsic(self, name: str, args: Sequence[SSAValue], t: Attribute) -> SSAValue:
        """Call the LLVM intrinsic `name`, overloaded (mangled) on type `t`."""
        mangled = f"{name}.{_mangle(t)}"
        return self.emit(llvm.CallIntrinsicOp(mangled, args, [t]))

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

    def libm(self, name: str, args: Sequence[SSAValue], t: Attribute) -> SSAValue:
        """Call libm's `name` (f64) / `namef` (f32); vectors go through glibc's
        libmvec (`_ZGV<isa>N<w>v_<name>f`, within 4 ulp) in chunks of the host's
        vector width when it has the function, else lane by lane; f16 is
        computed in f32."""
        if isinstance(t, VectorType):
            out = self.mvec(name, args, t)
            if out is not None:
                return out
            return self._per_lane(lambda xs, et: self.libm(name, xs, et), args, t)
        if isinstance(t, Float16Type):
            wide = [self.emit(llvm.FPExtOp(a, Float32Type())) for a in args]
            r = self.libm(name, wide, Float32Type())
            return self.emit(llvm.FPTruncOp(r, t))
        if not isinstance(t, Float32Type | Float64Type):
            raise LoweringError(f"{self.anchor.name} on {t}: only floats are supported")
        symbol = name + ("f" if isinstance(t, Float32Type) else "")
        self.state.declare(symbol, [t] * len(args), t)
        return self.emit(llvm.CallOp(symbol, *args, return_type=t))

    def mvec(self, name: str, args: Sequence[SSAValue], t: VectorType) -> SSAValue | None:
        """`name` on a vector through libmvec, or None when it has no variant."""
        elem = t.get_element_type()
        if not isinstance(elem, Float32Type | Float64Type) or not host.has_libmvec():
            return None
        if name not in MVEC_FUNCTIONS or len(args) != 1:
            return None
        bits = host.cpu().vector_bits
        width = bits // elem.bitwidth
        count = t.element_count()
        if count % width:
            return None
        isa = {512: "e", 256: "d", 128: "b"}[bits]
        symbol = f"_ZGV{isa}N{width}v_{name}{'f' if isinstance(elem, Float32Type) else ''}"
        chunk = VectorType(elem, [width])
        self.state.declare(symbol, [chunk], chunk)
        parts = []
        for start in range(0, count, width):
            piece = self.shuffle(args[0], args[0], list(range(start, start + width)), chunk)
            parts.append(self.emit(llvm.CallOp(symbol, piece, return_type=chunk)))
        while len(parts) > 1:  # concatenate pairwise
            merged = []
            for a, b in zip(parts[::2], parts[1::2], strict=True):
                n = a.type.element_count()  # type: ignore[union-attr]
                merged.append(
                    self.shuffle(a, b, list(range(2 * n)), VectorType(elem, [2 * n]))
                )
            parts = merged
        return parts[0]

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

    def _per_lane(
        self,
        scalar: Callable[[list[SSAValue], Attribute], SSAValue],
        args: Sequence[SSAValue],
        t: VectorType,
    ) -> SSAValue:
        elem = t.get_element_type()
        acc = self.emit(llvm.UndefOp(t))
        for lane in range(t.element_count()):
            pos = self.emit(llvm.ConstantOp(IntegerAttr(lane, i32), i32))
            xs = [self.emit(llvm_ext.ExtractElementOp(a, pos)) for a in args]
            r = scalar(xs, elem)
            acc = self.emit(
                llvm.InsertElementOp.create(operands=[acc, r, pos], result_types=[t])
            )
        return acc

    def icmp(self, pred: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        flag = llvm.ICmpPredicateFlag(pred).to_int()
        return self.emit(llvm.ICmpOp(lhs, rhs, IntegerAttr(flag, i64)))


def _mangle(t: Attribute) -> str:
    if isinstance(t, VectorType):
        return f"v{t.element_count()}{_mangle(t.get_element_type())}"
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    if isinstance(t, _FLOATS):
        return f"f{t.bitwidth}"
    raise LoweringError(f"no LLVM intrinsic for values of type {t}")


# =================================================================== scalar ops
# A lowering takes the op and an emitter placed before it, and returns the values
# that replace the op's results.
_Lowering = Callable[[Operation, _Emitter], Sequence[SSAValue]]
_LOWERINGS: dict[type[Operation], _Lowering] = {}


def _result_type(op: Operation) -> Attribute:
    return convert_type(op.results[0].type)


def _binary(cls: type[Operation]) -> _Lowering:
    def lower(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
        lhs, rhs = op.operands[:2]
        new = cls.create(operands=[lhs, rhs], result_types=[_result_type(op)])
        if "fastmathFlags" in cls.get_irdl_definition().properties:
            new.properties["fastmathFlags"] = llvm.FastMathAttr(None)
        return [e.emit(new)]

    return lower


def _cast(cls: type[Operation]) -> _Lowering:
    def lower(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
        return [e.emit(cls(op.operands[0], _result_type(op)))]  # pyright: ignore

    return lower


def _intr_op(cls: type[Operation]) -> _Lowering:
    def lower(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
        return [e.intr_op(cls, op.operands, _result_type(op))]

    return lower


def _intrinsic(name: str) -> _Lowering:
    def lower(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
        return [e.intrinsic(name, op.operands, _result_type(op))]

    return lower


# Functions glibc's libmvec has a vector variant of (glibc >= 2.35).
MVEC_FUNCTIONS = frozenset(
    ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "cos", "cosh", "erf", "erfc", "exp", "exp10", "exp2", "expm1", "log", "log10", "log1p", "log2", "sin", "sinh", "tan", "tanh"]
)


def _vector_math(cls: type[Operation], name: str) -> _Lowering:
    """An LLVM intrinsic, except on vectors that libmvec can compute."""

    def lower(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
        t = _result_type(op)
        if isinstance(t, VectorType):
            out = e.mvec(name, op.operands, t)
            if out is not None:
                return [out]
        return [e.intr_op(cls, op.operands, t)]

    return lower


def _libm(name: str) -> _Lowering:
    def lower(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
        return [e.libm(name, op.operands, _result_type(op))]

    return lower


def _int_minmax(pred: str) -> _Lowering:
    def lower(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
        a, b = op.operands
        return [e.emit(llvm.SelectOp(e.icmp(pred, a, b), a, b))]

    return lower


_LOWERINGS.update(
    {
        arith.AddiOp: _binary(llvm.AddOp),
        arith.SubiOp: _binary(llvm.SubOp),
        arith.MuliOp: _binary(llvm.MulOp),
        arith.DivSIOp: _binary(llvm.SDivOp),
        arith.DivUIOp: _binary(llvm.UDivOp),
        arith.RemSIOp: _binary(llvm.SRemOp),
        arith.RemUIOp: _binary(llvm.URemOp),
        arith.AndIOp: _binary(llvm.AndOp),
        arith.OrIOp: _binary(llvm.OrOp),
        arith.XOrIOp: _binary(llvm.XOrOp),
        arith.ShLIOp: _binary(llvm.ShlOp),
        arith.ShRSIOp: _binary(llvm.AShrOp),
        arith.ShRUIOp: _binary(llvm.LShrOp),
        arith.AddfOp: _binary(llvm.FAddOp),
        arith.SubfOp: _binary(llvm.FSubOp),
        arith.MulfOp: _binary(llvm.FMulOp),
        arith.DivfOp: _binary(llvm.FDivOp),
        arith.MaxSIOp: _int_minmax("sgt"),
        arith.MinSIOp: _int_minmax("slt"),
        arith.MaxUIOp: _int_minmax("ugt"),
        arith.MinUIOp: _int_minmax("ult"),
        # maximumf/minimumf propagate NaN (llvm.maximum); maxnumf/minnumf return
        # the non-NaN operand (llvm.maxnum).
        arith.MaximumfOp: _intrinsic("llvm.maximum"),
        arith.MinimumfOp: _intrinsic("llvm.minimum"),
        arith.MaxnumfOp: _intr_op(llvm.VectorFMaxOp),
        arith.MinnumfOp: _intr_op(llvm.VectorFMinOp),
        arith.ExtFOp: _cast(llvm.FPExtOp),
        arith.TruncFOp: _cast(llvm.FPTruncOp),
        arith.ExtSIOp: _cast(llvm.SExtOp),
        arith.ExtUIOp: _cast(llvm.ZExtOp),
        arith.TruncIOp: _cast(llvm.TruncOp),
        arith.SIToFPOp: _cast(llvm.SIToFPOp),
        arith.UIToFPOp: _cast(llvm_ext.UIToFPOp),
        arith.FPToSIOp: _cast(llvm_ext.FPToSIOp),
        arith.FPToUIOp: _cast(llvm_ext.FPToUIOp),
        arith.BitcastOp: _cast(llvm.BitcastOp),
        math.ExpOp: _vector_math(llvm.FExpOp, "exp"),
        math.Exp2Op: _vector_math(llvm.FExp2Op, "exp2"),
        math.LogOp: _vector_math(llvm.FLogOp, "log"),
        math.Log2Op: _vector_math(llvm.FLog2Op, "log2"),
        math.SqrtOp: _intr_op(llvm.FSqrtOp),
        math.AbsFOp: _intr_op(llvm.FAbsOp),
        math.FloorOp: _intr_op(llvm.FFloorOp),
        math.CeilOp: _intr_op(llvm.FCeilOp),
        math.SinOp: _vector_math(llvm.FSinOp, "sin"),
        math.CosOp: _vector_math(llvm.FCosOp, "cos"),
        math.PowFOp: _intr_op(llvm.FPowOp),
        math.CopySignOp: _intr_op(llvm.FCopySignOp),
        math.FmaOp: _intr_op(llvm.FMAOp),
        math.RoundOp: _intrinsic("llvm.round"),
        math.RoundEvenOp: _intrinsic("llvm.roundeven"),
        math.TruncOp: _intrinsic("llvm.trunc"),
        math.Log10Op: _intrinsic("llvm.log10"),
        # No LLVM intrinsic (or none that every backend expands): call libm.
        math.TanhOp: _libm("tanh"),
        math.ErfOp: _libm("erf"),
        math.Log1pOp: _libm("log1p"),
        math.ExpM1Op: _libm("expm1"),
        math.TanOp: _libm("tan"),
        math.AtanOp: _libm("atan"),
        math.AsinOp: _libm("asin"),
        math.AcosOp: _libm("acos"),
        math.SinhOp: _libm("sinh"),
        math.CoshOp: _libm("cosh"),
        math.AsinhOp: _libm("asinh"),
        math.AcoshOp: _libm("acosh"),
        math.AtanhOp: _libm("atanh"),
        math.CbrtOp: _libm("cbrt"),
        math.Atan2Op: _libm("atan2"),
    }
)


def _lowers(*types: type[Operation]) -> Callable[[_Lowering], _Lowering]:
    def register(fn: _Lowering) -> _Lowering:
        for t in types:
            _LOWERINGS[t] = fn
        return fn

    return register


@_lowers(arith.ConstantOp)
def _lower_constant(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    assert isinstance(op, arith.ConstantOp)
    t = _result_type(op)
    value = op.value
    if isinstance(value, IntegerAttr | FloatAttr):
        # One llvm constant per value and type, at the top of the function.
        return [e.const(value.value.data, t)]
    if isinstance(value, DenseIntOrFPElementsAttr) and isinstance(t, VectorType):
        values = list(value.get_values())
        if _scalar_type(t) == i1:
            values = [int(v != 0) for v in values]
        attr = DenseIntOrFPElementsAttr.from_list(t, values)  # pyright: ignore
        return [e.emit(llvm.ConstantOp(attr, t))]
    raise LoweringError(
        f"arith.constant {value}: only integer, float and vector constants can be "
        "lowered to LLVM; tensor constants must be buffers (tir.constant)"
    )


def _compare(e: _Emitter, pred: str, lhs: SSAValue, rhs: SSAValue, t: Attribute) -> SSAValue:
    """llvm.icmp / llvm.fcmp (arith's predicate mnemonics) of scalars or vectors,
    giving `t` (i1 or a vector of i1)."""
    if not isinstance(_scalar_type(convert_type(lhs.type)), IntegerType):
        if pred in ("false", "true"):
            return e.const(int(pred == "true"), t)
        flag = llvm.FCmpPredicateFlag(pred).to_int()
        props: dict[str, Attribute] = {"fastmathFlags": llvm.FastMathAttr(None)}
        cls: type[Operation] = llvm.FCmpOp
    else:
        flag, props, cls = llvm.ICmpPredicateFlag(pred).to_int(), {}, llvm.ICmpOp
    props["predicate"] = IntegerAttr(flag, i64)
    return e.emit(cls.create(operands=[lhs, rhs], result_types=[t], properties=props))


@_lowers(arith.CmpiOp, arith.CmpfOp)
def _lower_cmp(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    assert isinstance(op, arith.CmpiOp | arith.CmpfOp)
    names = (
        arith.CMPI_COMPARISON_OPERATIONS
        if isinstance(op, arith.CmpiOp)
        else arith.CMPF_COMPARISON_OPERATIONS
    )
    pred = names[op.predicate.value.data]
    return [_compare(e, pred, op.lhs, op.rhs, _result_type(op))]


@_lowers(tir.VectorCmpOp)
def _lower_vector_cmp(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    assert isinstance(op, tir.VectorCmpOp)
    return [_compare(e, op.predicate.data, op.lhs, op.rhs, _result_type(op))]


@_lowers(arith.SelectOp)
def _lower_select(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    cond, a, b = op.operands
    return [e.emit(llvm.SelectOp(cond, a, b))]


@_lowers(arith.NegfOp)
def _lower_negf(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    return [e.emit(llvm.FNegOp(op.operands[0]))]


@_lowers(arith.IndexCastOp)
def _lower_index_cast(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    x = op.operands[0]
    src, dst = convert_type(x.type), _result_type(op)
    assert isinstance(src, IntegerType) and isinstance(dst, IntegerType)
    if src.width.data == dst.width.data:
        return [x]
    cls = llvm.SExtOp if dst.width.data > src.width.data else llvm.TruncOp
    return [e.emit(cls(x, dst))]


def _div_parts(op: Operation, e: _Emitter, signed: bool) -> tuple[SSAValue, ...]:
    a, b = op.operands
    t = _result_type(op)
    div, rem = (llvm.SDivOp, llvm.SRemOp) if signed else (llvm.UDivOp, llvm.URemOp)
    q = e.emit(div.create(operands=[a, b], result_types=[t]))
    r = e.emit(rem.create(operands=[a, b], result_types=[t]))
    inexact = e.icmp("ne", r, e.const(0, t))
    return a, b, q, r, inexact


def _adjust(e: _Emitter, q: SSAValue, when: SSAValue, delta: int) -> SSAValue:
    one = e.const(delta, q.type)
    moved = e.emit(llvm.AddOp(q, one))
    return e.emit(llvm.SelectOp(when, moved, q))


def _same_sign(e: _Emitter, r: SSAValue, b: SSAValue) -> SSAValue:
    """`(r ^ b) >= 0`, i.e. r and b have the same sign."""
    x = e.emit(llvm.XOrOp(r, b))
    return e.icmp("sge", x, e.const(0, r.type))


def _and(e: _Emitter, a: SSAValue, b: SSAValue) -> SSAValue:
    return e.emit(llvm.AndOp(a, b))


@_lowers(arith.FloorDivSIOp)
def _lower_floordivsi(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    # sdiv truncates; floor is one less when the division is inexact and the
    # remainder and divisor have opposite signs.
    _, b, q, r, inexact = _div_parts(op, e, signed=True)
    opposite = e.icmp("slt", e.emit(llvm.XOrOp(r, b)), e.const(0, r.type))
    return [_adjust(e, q, _and(e, inexact, opposite), -1)]


@_lowers(arith.CeilDivSIOp)
def _lower_ceildivsi(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    _, b, q, r, inexact = _div_parts(op, e, signed=True)
    return [_adjust(e, q, _and(e, inexact, _same_sign(e, r, b)), 1)]


@_lowers(arith.CeilDivUIOp)
def _lower_ceildivui(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    _, _, q, _, inexact = _div_parts(op, e, signed=False)
    return [_adjust(e, q, inexact, 1)]


@_lowers(math.RsqrtOp)
def _lower_rsqrt(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    t = _result_type(op)
    root = e.intr_op(llvm.FSqrtOp, op.operands, t)
    return [e.emit(llvm.FDivOp(e.const(1.0, t), root))]


@_lowers(math.AbsIOp)
def _lower_absi(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    x = op.operands[0]
    zero = e.const(0, x.type)
    neg = e.emit(llvm.SubOp(zero, x))
    return [e.emit(llvm.SelectOp(e.icmp("slt", x, zero), neg, x))]


# =================================================================== buffer access
def _address(e: _Emitter, buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
    """`&buffer[indices]`, row-major over the buffer's element type."""
    mtype = _check_buffer(buffer.type, e.anchor.name)
    if not indices:
        return buffer
    linear: SSAValue | None = None
    for idx, stride in zip(indices, _row_major_strides(mtype.get_shape()), strict=True):
        term = idx if stride == 1 else e.emit(llvm.MulOp(idx, e.const(stride, i64)))
        linear = term if linear is None else e.emit(llvm.AddOp(linear, term))
    assert linear is not None
    elem = convert_type(mtype.get_element_type())
    return e.emit(llvm.GEPOp.from_mixed_indices(buffer, [linear], elem, inbounds=True))


@_lowers(tir.LoadOp)
def _lower_load(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    assert isinstance(op, tir.LoadOp)
    ptr = _address(e, op.buffer, op.indices)
    t = _result_type(op)
    align = byte_size(_scalar_type(op.result.type))
    if _is_bool_vector(t):  # bools are bytes in memory; <N x i1> would be bits
        wide = e.emit(llvm.LoadOp(ptr, _bytes_of(t), alignment=align))
        return [e.emit(llvm.TruncOp(wide, t))]
    return [e.emit(llvm.LoadOp(ptr, t, alignment=align))]


def _is_bool_vector(t: Attribute) -> bool:
    return isinstance(t, VectorType) and t.get_element_type() == i1


def _bytes_of(t: Attribute) -> VectorType:
    assert isinstance(t, VectorType)
    return VectorType(i8, t.get_shape())


@_lowers(tir.StoreOp)
def _lower_store(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    assert isinstance(op, tir.StoreOp)
    ptr = _address(e, op.buffer, op.indices)
    align = byte_size(_scalar_type(op.value.type))
    value = op.value
    if _is_bool_vector(convert_type(value.type)):
        value = e.emit(llvm.ZExtOp(value, _bytes_of(convert_type(value.type))))
    e.put(llvm.StoreOp(value, ptr, alignment=align))
    return []


@_lowers(tir.MaskedStoreOp)
def _lower_masked_store(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    assert isinstance(op, tir.MaskedStoreOp)
    ptr = _address(e, op.buffer, op.indices)
    align = byte_size(_scalar_type(op.value.type))
    e.put(llvm.MaskedStoreOp(op.value, ptr, op.mask, alignment=align))
    return []


@_lowers(vector.BroadcastOp)
def _lower_broadcast(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    """A scalar in every lane: insertelement into lane 0, then a zero shuffle."""
    assert isinstance(op, vector.BroadcastOp)
    t = _result_type(op)
    assert isinstance(t, VectorType)
    zero = e.emit(llvm.ConstantOp(IntegerAttr(0, i32), i32))
    undef = e.emit(llvm.UndefOp(t))
    one = e.emit(
        llvm.InsertElementOp.create(operands=[undef, op.source, zero], result_types=[t])
    )
    mask = DenseArrayBase.from_list(i32, [0] * t.element_count())
    return [
        e.emit(
            llvm.ShuffleVectorOp.create(
                operands=[one, undef], properties={"mask": mask}, result_types=[t]
            )
        )
    ]


@_lowers(tir.CallOp)
def _lower_call(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    assert isinstance(op, tir.CallOp)
    callee = op.callee.string_value()
    for i, a in enumerate(op.args):
        _check_buffer(a.type, f"tir.call @{callee} argument #{i}")
    e.state.declare(callee, [PTR] * len(op.args), llvm.LLVMVoidType())
    e.put(llvm.CallOp(callee, *op.args))
    return []


@_lowers(tir.ReturnOp, func.ReturnOp)
def _lower_return(op: Operation, e: _Emitter) -> Sequence[SSAValue]:
    if op.operands:
        raise LoweringError(
            f"{op.name} with values: functions lowered to LLVM return nothing; "
            "write results into output buffers (destination-passing style)"
        )
    e.put(llvm.ReturnOp())
    return []


def _lower_scalar_ops(fn: Operation, state: _ModuleState, where: str) -> None:
    """Sweep 2: every op but buffers and control flow becomes llvm ops."""
    kept = (tir.ForOp, tir.IfOp, tir.YieldOp, tir.AllocOp, tir.ConstantOp)
    entry = fn.regions[0].blocks[0]
    consts = _Constants(_EntryBuilder(entry))
    for op in list(fn.walk()):
        if op is fn or isinstance(op, kept):
            continue
        lowering = _LOWERINGS.get(type(op))
        if lowering is None:
            raise LoweringError(
                f"{where}: no lowering to LLVM for '{op.name}'. lower-tir-to-llvm "
                "handles tir, arith and math ops; lower other dialects to these first."
            )
        values = lowering(op, _Emitter(op, state, consts))
        for old, new in zip(op.results, values, strict=True):
            old.replace_all_uses_with(new)
        Rewriter.erase_op(op)


# ========================================================================= buffers
class _EntryBuilder:
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


def _i64(b: _EntryBuilder, value: int) -> SSAValue:
    return b.insert(llvm.ConstantOp(IntegerAttr(value, i64), i64)).result


def _lower_alloca(op: tir.AllocOp, b: _EntryBuilder) -> None:
    """A stack buffer, hoisted to the entry block (a static alloca) by `b`."""
    mtype = _check_buffer(op.result.type, "tir.alloc")
    n = _i64(b, _numel(mtype))
    elem = convert_type(mtype.get_element_type())
    alloca = b.insert(llvm.AllocaOp(n, elem, alignment=BUFFER_ALIGN))
    op.result.replace_all_uses_with(alloca.res)
    Rewriter.erase_op(op)


def _slot_address(b: _EntryBuilder, table: SSAValue, index: int) -> SSAValue:
    """Load pointer `table[index]` from an array of pointers."""
    gep = b.insert(llvm.GEPOp(table, [index], PTR, inbounds=True))
    return b.insert(llvm.LoadOp(gep.result, PTR, alignment=8)).dereferenced_value


def _lower_kernel_buffers(fn: tir.PrimFuncOp) -> None:
    entry = fn.body.block
    at_entry = _EntryBuilder(entry)
    for op in list(fn.walk()):
        if isinstance(op, tir.AllocOp):
            _lower_alloca(op, at_entry)
        elif isinstance(op, tir.ConstantOp):
            raise LoweringError(
                f"tir.constant in kernel @{fn.sym_name.data}: weights are bound in "
                "@main only; pass them to the kernel as buffer arguments"
            )
    for i, arg in enumerate(entry.args):
        _check_buffer(arg.type, f"@{fn.sym_name.data} argument #{i}")
        Rewriter.replace_value_with_new_type(arg, PTR)


# ----------------------------------------------------------------- workspace plan
@dataclass(frozen=True)
class WorkspacePlan:
    """Byte offsets of the workspace buffers, in the order they were given."""

    offsets: tuple[int, ...]
    size: int
    unshared_size: int


def _align_up(n: int, align: int = BUFFER_ALIGN) -> int:
    return (n + align - 1) // align * align


def plan_workspace(ranges: Sequence[tuple[int, int, int]]) -> WorkspacePlan:
    """Place buffers given as (first use, last use, bytes) into one arena.

    Buffers are placed in order of first use, each at the lowest 64-byte aligned
    offset that does not overlap a buffer still live (greedy first fit); a buffer
    is free after its last use.
    """
    offsets = [0] * len(ranges)
    live: list[tuple[int, int, int]] = []  # (offset, size, last use)
    size = 0
    for i in sorted(range(len(ranges)), key=lambda i: (ranges[i][0], i)):
        start, end, nbytes = ranges[i]
        nbytes = _align_up(nbytes)
        live = [slot for slot in live if slot[2] >= start]
        offset = 0
        for o, s, _ in sorted(live):
            if o - offset >= nbytes:
                break
            offset = max(offset, o + s)
        offsets[i] = offset
        live.append((offset, nbytes, end))
        size = max(size, offset + nbytes)
    unshared = sum(_align_up(r[2]) for r in ranges)
    return WorkspacePlan(tuple(offsets), size, unshared)


def _live_range(
    value: SSAValue, block: Block, position: dict[Operation, int]
) -> tuple[int, int]:
    """(first use, last use) of `value` as positions of ops of `block`.

    The range starts at the first use, not at the `tir.alloc`: nothing touches the
    buffer in between, so allocs hoisted to the top of @main still share memory.
    An unused buffer lives at its definition only.
    """
    owner = value.owner
    assert isinstance(owner, Operation)
    uses = [
        position[block.find_ancestor_op_in_block(u.operation) or owner]
        for u in value.uses
    ]
    return (min(uses), max(uses)) if uses else (position[owner], position[owner])


def _lower_main_buffers(fn: func.FuncOp, state: _ModuleState) -> WorkspacePlan:
    """Bind @main's buffers: arguments, parameters and the workspace arena."""
    if len(fn.body.blocks) != 1:
        raise LoweringError("@main must have a single block")
    entry = fn.body.block
    args = entry.insert_arg(PTR, 0)
    params = entry.insert_arg(PTR, 1)
    workspace = entry.insert_arg(PTR, 2)
    for name, arg in zip(
        ("args", "params", "workspace"), (args, params, workspace), strict=True
    ):
        arg.name_hint = name
    position = {op: i for i, op in enumerate(entry.ops)}
    at_entry = _EntryBuilder(entry)

    allocs = [op for op in entry.ops if isinstance(op, tir.AllocOp)]
    for op in fn.walk():
        if isinstance(op, tir.AllocOp) and op.parent_block() is not entry:
            raise LoweringError("tir.alloc in @main must be at its top level")
    ranges = [
        (
            *_live_range(a.result, entry, position),
            _numel(m) * byte_size(m.get_element_type()),
        )
        for a in allocs
        for m in [_check_buffer(a.result.type, "tir.alloc")]
    ]
    plan = plan_workspace(ranges)

    for i, arg in enumerate(list(entry.args[3:])):
        _check_buffer(arg.type, f"@main argument #{i}")
        arg.replace_all_uses_with(_slot_address(at_entry, args, i))
        entry.erase_arg(arg)
    for op in list(fn.walk()):
        if isinstance(op, tir.ConstantOp):
            _bind_param(op, params, state, at_entry)
    for alloc, offset in zip(allocs, plan.offsets, strict=True):
        _bind_workspace(alloc, workspace, offset, at_entry)
    return plan


def _bind_workspace(
    op: tir.AllocOp, workspace: SSAValue, offset: int, at_entry: _EntryBuilder
) -> None:
    if op.scope.data == tir.AllocScope.LOCAL:
        _lower_alloca(op, at_entry)
        return
    b = Builder(InsertPoint.before(op))
    gep = b.insert(
        llvm.GEPOp.from_mixed_indices(workspace, [offset], i8, inbounds=True)
    )
    gep.attributes["lamina.workspace_offset"] = IntegerAttr(offset, i64)
    op.result.replace_all_uses_with(gep.result)
    Rewriter.erase_op(op)


def _bind_param(
    op: tir.ConstantOp, params: SSAValue, state: _ModuleState, at_entry: _EntryBuilder
) -> None:
    _check_buffer(op.result.type, "tir.constant")
    value: DenseResourceAttr = op.value
    index = state.param_index(value.resource_handle.data)
    ptr = _slot_address(at_entry, params, index)
    op.result.replace_all_uses_with(ptr)
    Rewriter.erase_op(op)


# ==================================================================== control flow
def _lower_serial_loop(op: tir.ForOp) -> None:
    """`for` as a CFG: preheader -> header(i) -> body -> latch -> header | exit."""
    pre = op.parent_block()
    assert pre is not None and pre.parent is not None and op.next_op is not None
    region = pre.parent
    exit_block = pre.split_before(op.next_op)
    header = Block(arg_types=[i64])
    region.insert_block_after(header, pre)
    body = op.body.detach_block(op.body.block)
    region.insert_block_after(body, header)
    i = header.args[0]
    i.name_hint = body.args[0].name_hint
    body.args[0].replace_all_uses_with(i)
    body.erase_arg(body.args[0])

    hb = Builder(InsertPoint.at_end(header))
    cond = hb.insert(
        llvm.ICmpOp(i, op.ub, IntegerAttr(llvm.ICmpPredicateFlag("slt").to_int(), i64))
    )
    branch = hb.insert(llvm.CondBrOp(cond.results[0], body, [], exit_block, []))
    if op.kind.data != tir.ForKind.SERIAL:
        branch.attributes["lamina.for_kind"] = StringAttr(op.kind.data.value)

    yield_op = body.last_op
    assert isinstance(yield_op, tir.YieldOp)
    lb = Builder(InsertPoint.before(yield_op))
    nxt = lb.insert(llvm.AddOp(i, op.step))
    lb.insert(llvm.BrOp(header, nxt.res))
    Rewriter.erase_op(yield_op)
    Rewriter.replace_op(op, llvm.BrOp(header, op.lb))


# How each loop kind is lowered. Every kind is a serial loop for now; the loop's
# intent stays visible as `lamina.for_kind` on its header branch. Threads for
# `parallel`, vector code for `vectorized` and unrolling for `unrolled` plug in
# here, one function per kind.
_LOOP_LOWERINGS: dict[tir.ForKind, Callable[[tir.ForOp], None]] = {
    tir.ForKind.SERIAL: _lower_serial_loop,
    tir.ForKind.PARALLEL: _lower_serial_loop,
    tir.ForKind.VECTORIZED: _lower_serial_loop,
    tir.ForKind.UNROLLED: _lower_serial_loop,
}


def _inline_branch(region_block: Block, after: Block, exit_block: Block) -> Block:
    block = region_block.parent.detach_block(region_block)  # pyright: ignore
    after.parent.insert_block_after(block, after)  # pyright: ignore
    yield_op = block.last_op
    assert isinstance(yield_op, tir.YieldOp)
    Rewriter.replace_op(yield_op, llvm.BrOp(exit_block))
    return block


def _lower_if(op: tir.IfOp) -> None:
    """`if` as a diamond: cond_br then | else, both branching to the exit."""
    pre = op.parent_block()
    assert pre is not None and op.next_op is not None
    exit_block = pre.split_before(op.next_op)
    then_block = _inline_branch(op.then_region.block, pre, exit_block)
    else_block = exit_block
    if op.else_region is not None and op.else_region.blocks:
        else_block = _inline_branch(op.else_region.block, then_block, exit_block)
    Rewriter.replace_op(op, llvm.CondBrOp(op.cond, then_block, [], else_block, []))


def _flatten_control_flow(fn: Operation) -> None:
    """Sweep 4: outermost first, so each region is one block when inlined."""
    for op in [op for op in fn.walk() if isinstance(op, tir.ForOp | tir.IfOp)]:
        if isinstance(op, tir.ForOp):
            _LOOP_LOWERINGS[op.kind.data](op)
        else:
            _lower_if(op)


def _retype_induction_vars(fn: Operation) -> None:
    """Sweep 1: loop counters are i64 from here on."""
    for op in fn.walk():
        if isinstance(op, tir.ForOp):
            Rewriter.replace_value_with_new_type(op.induction_var, i64)


# ======================================================================= functions
def _noalias_unsafe(module: ModuleOp) -> set[str]:
    """Kernels that some call passes the same buffer twice (no `noalias` then)."""
    unsafe: set[str] = set()
    for op in module.walk():
        if isinstance(op, tir.CallOp) and len(set(op.args)) != len(op.args):
            unsafe.add(op.callee.string_value())
    return unsafe


def _arg_attrs(n: int, noalias: bool) -> ArrayAttr[DictionaryAttr]:
    attrs: dict[str, Attribute] = {"llvm.align": IntegerAttr(BUFFER_ALIGN, i64)}
    if noalias:
        attrs["llvm.noalias"] = UnitAttr()
    return ArrayAttr([DictionaryAttr(attrs) for _ in range(n)])


def _new_func(
    name: str, body: Operation, arg_attrs: ArrayAttr[DictionaryAttr] | None
) -> llvm.FuncOp:
    region = body.regions[0]
    assert region.first_block is not None
    ftype = llvm.LLVMFunctionType(
        [PTR] * len(region.first_block.args), llvm.LLVMVoidType()
    )
    props: dict[str, Attribute | None] = {"arg_attrs": arg_attrs}
    return llvm.FuncOp(
        name,
        ftype,
        linkage=llvm.LinkageAttr("external"),
        body=Rewriter.move_region_contents_to_new_regions(region),
        other_props=props,
    )


def _lower_kernel(
    fn: tir.PrimFuncOp, state: _ModuleState, noalias: bool
) -> llvm.FuncOp:
    where = f"tir.prim_func @{fn.sym_name.data}"
    num_args = len(fn.args)
    _retype_induction_vars(fn)
    _lower_scalar_ops(fn, state, where)
    _lower_kernel_buffers(fn)
    _flatten_control_flow(fn)
    return _new_func(fn.sym_name.data, fn, _arg_attrs(num_args, noalias))


def _lower_main(
    fn: func.FuncOp, state: _ModuleState
) -> tuple[llvm.FuncOp, WorkspacePlan]:
    if fn.function_type.outputs.data:
        raise LoweringError(
            "@main must return nothing: outputs are its last buffer arguments "
            "(destination-passing style)"
        )
    _retype_induction_vars(fn)
    _lower_scalar_ops(fn, state, "@main")
    plan = _lower_main_buffers(fn, state)
    _flatten_control_flow(fn)
    table = DictionaryAttr({"llvm.noalias": UnitAttr()})
    arena = DictionaryAttr(
        {"llvm.noalias": UnitAttr(), "llvm.align": IntegerAttr(BUFFER_ALIGN, i64)}
    )
    return _new_func("main", fn, ArrayAttr([table, table, arena])), plan


def _declare_external(fn: func.FuncOp, state: _ModuleState) -> None:
    name = fn.sym_name.data
    if fn.function_type.outputs.data or not all(
        isinstance(t, MemRefType) for t in fn.function_type.inputs
    ):
        raise LoweringError(
            f"func.func @{name}: external functions called from @main must take "
            "buffers (memrefs) and return nothing"
        )
    state.declare(name, [PTR] * len(fn.function_type.inputs), llvm.LLVMVoidType())


def _check_function(op: Operation) -> None:
    if isinstance(op, tir.PrimFuncOp | llvm.FuncOp):
        return
    if isinstance(op, func.FuncOp):
        if op.sym_name.data == "main" or op.is_declaration:
            return
        raise LoweringError(
            f"func.func @{op.sym_name.data}: only the entry function @main is lowered; "
            "compile outlined (BYOC) functions with their target's codegen first"
        )
    raise LoweringError(
        f"'{op.name}' at module level: lower-tir-to-llvm expects tir.prim_func "
        "kernels and the entry func.func @main"
    )


def _set_module_attrs(
    module: ModuleOp, state: _ModuleState, plan: WorkspacePlan
) -> None:
    module.attributes["lamina.params"] = ArrayAttr(
        [StringAttr(k) for k in state.params]
    )
    module.attributes["lamina.workspace_size"] = IntegerAttr(plan.size, i64)
    module.attributes["lamina.intermediate_bytes"] = IntegerAttr(
        plan.unshared_size, i64
    )


def lower_module(module: ModuleOp) -> None:
    """Lower all of `module` to `llvm.func`s (see the module docstring)."""
    from lamina.lowering.parallel import outline_parallel_loops

    outline_parallel_loops(module)
    ops = list(module.ops)
    for op in ops:
        _check_function(op)
    kernels = {
        op.sym_name.data: len(op.function_type.inputs)
        for op in ops
        if isinstance(op, tir.PrimFuncOp | llvm.FuncOp)
    }
    state = _ModuleState(module, kernels)
    unsafe = _noalias_unsafe(module)
    plan: WorkspacePlan | None = None
    for op in ops:
        if isinstance(op, tir.PrimFuncOp):
            new = _lower_kernel(op, state, op.sym_name.data not in unsafe)
        elif isinstance(op, func.FuncOp) and op.sym_name.data == "main":
            new, plan = _lower_main(op, state)
        elif isinstance(op, func.FuncOp):
            _declare_external(op, state)
            Rewriter.erase_op(op)
            continue
        else:
            continue
        Rewriter.replace_op(op, new)
    if plan is not None or "lamina.params" not in module.attributes:
        # (a module without @main, or lowered again, keeps attributes it has)
        _set_module_attrs(module, state, plan or WorkspacePlan((), 0, 0))


@register_pass
@dataclass(frozen=True)
class LowerTirToLlvmPass(ModulePass):
    """Lower `tir.prim_func` kernels and the entry `func.func @main` to `llvm.func`s."""

    name = "lower-tir-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_module(op)


__all__ = [
    "BUFFER_ALIGN",
    "BUFFER_SLACK",
    "LowerTirToLlvmPass",
    "WorkspacePlan",
    "byte_size",
    "convert_type",
    "lower_module",
    "plan_workspace",
]
