"""Scalar and vector ops for `lower-tir-to-llvm`: `arith`, `math`, `vector.broadcast`,
`tir.vector_cmp` and `tir.dot4` as llvm ops (`SCALAR_LOWERINGS`).

Math with an LLVM intrinsic becomes that intrinsic; math without one (or without
one that every backend expands) calls libm. On vectors, `exp`, `log`, `sin`, ...
call glibc's libmvec when the host has it (`MVEC_FUNCTIONS`), else the intrinsic
or libm lane by lane.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, llvm, math, vector
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from lamina.dialects import llvm_ext, tir
from lamina.errors import LoweringError
from lamina.lowering.tir_to_llvm.emitter import Emitter, Lowering, lowers, result_type
from lamina.lowering.tir_to_llvm.fast_exp import vector_exp
from lamina.lowering.tir_to_llvm.types import convert_type, scalar_type
from lamina.passes import current_target

# Functions glibc's libmvec has a vector variant of (glibc >= 2.35).
MVEC_FUNCTIONS = frozenset(
    ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "cos", "cosh", "erf", "erfc", "exp", "exp10", "exp2", "expm1", "log", "log10", "log1p", "log2", "sin", "sinh", "tan", "tanh"]
)


# ==================================================================== libm calls
def libm(e: Emitter, name: str, args: Sequence[SSAValue], t: Attribute) -> SSAValue:
    """Call libm's `name` (f64) / `namef` (f32); vectors go through glibc's
    libmvec (`_ZGV<isa>N<w>v_<name>f`, within 4 ulp) in chunks of the host's
    vector width when it has the function, else lane by lane; f16 is
    computed in f32."""
    if isinstance(t, VectorType):
        out = mvec(e, name, args, t)
        if out is not None:
            return out
        return _per_lane(e, lambda xs, et: libm(e, name, xs, et), args, t)
    if isinstance(t, Float16Type):
        wide = [e.emit(llvm.FPExtOp(a, Float32Type())) for a in args]
        r = libm(e, name, wide, Float32Type())
        return e.emit(llvm.FPTruncOp(r, t))
    if not isinstance(t, Float32Type | Float64Type):
        raise LoweringError(f"{e.anchor.name} on {t}: only floats are supported")
    symbol = name + ("f" if isinstance(t, Float32Type) else "")
    e.state.declare(symbol, [t] * len(args), t)
    return e.emit(llvm.CallOp(symbol, *args, return_type=t))


def mvec(
    e: Emitter, name: str, args: Sequence[SSAValue], t: VectorType
) -> SSAValue | None:
    """`name` on a vector through libmvec, or None when it has no variant."""
    elem = t.get_element_type()
    target = current_target()
    if not isinstance(elem, Float32Type | Float64Type) or not target.vector_math:
        return None
    if target.arch != "x86_64":  # (libmvec's x86 names below)
        return None
    if name not in MVEC_FUNCTIONS or len(args) != 1:
        return None
    bits = target.vector_bits
    width = bits // elem.bitwidth
    count = t.element_count()
    if count % width:
        return None
    isa = {512: "e", 256: "d", 128: "b"}[bits]
    symbol = f"_ZGV{isa}N{width}v_{name}{'f' if isinstance(elem, Float32Type) else ''}"
    chunk = VectorType(elem, [width])
    e.state.declare(symbol, [chunk], chunk)
    parts = []
    for start in range(0, count, width):
        piece = e.shuffle(args[0], args[0], list(range(start, start + width)), chunk)
        parts.append(e.emit(llvm.CallOp(symbol, piece, return_type=chunk)))
    while len(parts) > 1:  # concatenate pairwise
        merged = []
        for a, b in zip(parts[::2], parts[1::2], strict=True):
            n = a.type.element_count()  # type: ignore[union-attr]
            merged.append(
                e.shuffle(a, b, list(range(2 * n)), VectorType(elem, [2 * n]))
            )
        parts = merged
    return parts[0]


def _per_lane(
    e: Emitter,
    scalar: Callable[[list[SSAValue], Attribute], SSAValue],
    args: Sequence[SSAValue],
    t: VectorType,
) -> SSAValue:
    elem = t.get_element_type()
    acc = e.emit(llvm.UndefOp(t))
    for lane in range(t.element_count()):
        pos = e.emit(llvm.ConstantOp(IntegerAttr(lane, i32), i32))
        xs = [e.emit(llvm_ext.ExtractElementOp(a, pos)) for a in args]
        r = scalar(xs, elem)
        acc = e.emit(
            llvm.InsertElementOp.create(operands=[acc, r, pos], result_types=[t])
        )
    return acc


# ============================================================ lowering factories
#: Float additions and products may fuse into FMAs (`contract`), as TVM's LLVM
#: code generator allows (`FPOpFusion::Fast`) and as every BLAS does: a sum
#: reduction's `acc + a * b` becomes one fused multiply-add, rounded once.
CONTRACTABLE = (llvm.FAddOp, llvm.FSubOp, llvm.FMulOp)


def _binary(cls: type[Operation]) -> Lowering:
    contract = {llvm.FastMathFlag.ALLOW_CONTRACT} if cls in CONTRACTABLE else set()

    def lower(op: Operation, e: Emitter) -> Sequence[SSAValue]:
        lhs, rhs = op.operands[:2]
        new = cls.create(operands=[lhs, rhs], result_types=[result_type(op)])
        if "fastmathFlags" in cls.get_irdl_definition().properties:
            # the arith op's own flags (a reduction's `reassoc`), plus `contract`
            own = op.properties.get("fastmath")  # any arith binary op
            names = {f.value for f in own.data} if isinstance(own, arith.FastMathFlagsAttr) else set()
            flags = contract | {llvm.FastMathFlag(n) for n in names}
            new.properties["fastmathFlags"] = llvm.FastMathAttr(sorted(flags, key=list(llvm.FastMathFlag).index) or None)
        return [e.emit(new)]

    return lower


def _cast(cls: type[Operation]) -> Lowering:
    def lower(op: Operation, e: Emitter) -> Sequence[SSAValue]:
        return [e.emit(cls(op.operands[0], result_type(op)))]  # pyright: ignore

    return lower


def _intr_op(cls: type[Operation]) -> Lowering:
    def lower(op: Operation, e: Emitter) -> Sequence[SSAValue]:
        return [e.intr_op(cls, op.operands, result_type(op))]

    return lower


def _intrinsic(name: str, flags: Sequence[llvm.FastMathFlag] = ()) -> Lowering:
    def lower(op: Operation, e: Emitter) -> Sequence[SSAValue]:
        return [e.intrinsic(name, op.operands, result_type(op), flags)]

    return lower


def _vector_math(cls: type[Operation], name: str) -> Lowering:
    """An LLVM intrinsic, except on vectors that libmvec can compute."""

    def lower(op: Operation, e: Emitter) -> Sequence[SSAValue]:
        t = result_type(op)
        if isinstance(t, VectorType):
            out = mvec(e, name, op.operands, t)
            if out is not None:
                return [out]
        return [e.intr_op(cls, op.operands, t)]

    return lower


def _exp() -> Lowering:
    """`exp`: inline arithmetic on f32 vectors (`fast_exp`), else as the other
    vector math."""
    other = _vector_math(llvm.FExpOp, "exp")

    def lower(op: Operation, e: Emitter) -> Sequence[SSAValue]:
        t = result_type(op)
        if isinstance(t, VectorType) and isinstance(t.get_element_type(), Float32Type):
            return [vector_exp(e, op.operands[0], t)]
        return other(op, e)

    return lower


def _libm(name: str) -> Lowering:
    def lower(op: Operation, e: Emitter) -> Sequence[SSAValue]:
        return [libm(e, name, op.operands, result_type(op))]

    return lower


def _int_minmax(pred: str) -> Lowering:
    def lower(op: Operation, e: Emitter) -> Sequence[SSAValue]:
        a, b = op.operands
        return [e.select(e.icmp(pred, a, b), a, b)]

    return lower


# ========================================================================= table
SCALAR_LOWERINGS: dict[type[Operation], Lowering] = {
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
    # the non-NaN operand (llvm.maxnum). Neither orders -0 below +0 (`nsz`, as
    # numpy's maximum, which returns either): that ordering costs x86 four more
    # instructions per lane-wise maximum (a max pool's or a softmax's).
    arith.MaximumfOp: _intrinsic("llvm.maximum", [llvm.FastMathFlag.NO_SIGNED_ZEROS]),
    arith.MinimumfOp: _intrinsic("llvm.minimum", [llvm.FastMathFlag.NO_SIGNED_ZEROS]),
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
    math.ExpOp: _exp(),
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


@lowers(SCALAR_LOWERINGS, arith.ConstantOp)
def _lower_constant(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    assert isinstance(op, arith.ConstantOp)
    t = result_type(op)
    value = op.value
    if isinstance(value, IntegerAttr | FloatAttr):
        # One llvm constant per value and type, at the top of the function.
        return [e.const(value.value.data, t)]
    if isinstance(value, DenseIntOrFPElementsAttr) and isinstance(t, VectorType):
        values = list(value.get_values())
        if scalar_type(t) == i1:
            values = [int(v != 0) for v in values]
        attr = DenseIntOrFPElementsAttr.from_list(t, values)  # pyright: ignore
        return [e.emit(llvm.ConstantOp(attr, t))]
    raise LoweringError(
        f"arith.constant {value}: only integer, float and vector constants can be "
        "lowered to LLVM; tensor constants must be buffers (tir.constant)"
    )


def _compare(e: Emitter, pred: str, lhs: SSAValue, rhs: SSAValue, t: Attribute) -> SSAValue:
    """llvm.icmp / llvm.fcmp (arith's predicate mnemonics) of scalars or vectors,
    giving `t` (i1 or a vector of i1)."""
    if not isinstance(scalar_type(convert_type(lhs.type)), IntegerType):
        if pred in ("false", "true"):
            return e.const(int(pred == "true"), t)
        flag = llvm.FCmpPredicateFlag(pred).to_int()
        props: dict[str, Attribute] = {"fastmathFlags": llvm.FastMathAttr(None)}
        cls: type[Operation] = llvm.FCmpOp
    else:
        flag, props, cls = llvm.ICmpPredicateFlag(pred).to_int(), {}, llvm.ICmpOp
    props["predicate"] = IntegerAttr(flag, i64)
    return e.emit(cls.create(operands=[lhs, rhs], result_types=[t], properties=props))


@lowers(SCALAR_LOWERINGS, arith.CmpiOp, arith.CmpfOp)
def _lower_cmp(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    assert isinstance(op, arith.CmpiOp | arith.CmpfOp)
    names = (
        arith.CMPI_COMPARISON_OPERATIONS
        if isinstance(op, arith.CmpiOp)
        else arith.CMPF_COMPARISON_OPERATIONS
    )
    pred = names[op.predicate.value.data]
    return [_compare(e, pred, op.lhs, op.rhs, result_type(op))]


@lowers(SCALAR_LOWERINGS, tir.VectorCmpOp)
def _lower_vector_cmp(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    assert isinstance(op, tir.VectorCmpOp)
    return [_compare(e, op.predicate.data, op.lhs, op.rhs, result_type(op))]


@lowers(SCALAR_LOWERINGS, arith.SelectOp, tir.VectorSelectOp)
def _lower_select(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    cond, a, b = op.operands
    return [e.select(cond, a, b)]


@lowers(SCALAR_LOWERINGS, arith.NegfOp)
def _lower_negf(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    return [e.emit(llvm.FNegOp(op.operands[0]))]


@lowers(SCALAR_LOWERINGS, arith.IndexCastOp)
def _lower_index_cast(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    x = op.operands[0]
    src, dst = convert_type(x.type), result_type(op)
    assert isinstance(src, IntegerType) and isinstance(dst, IntegerType)
    if src.width.data == dst.width.data:
        return [x]
    cls = llvm.SExtOp if dst.width.data > src.width.data else llvm.TruncOp
    return [e.emit(cls(x, dst))]


def _div_parts(op: Operation, e: Emitter, signed: bool) -> tuple[SSAValue, ...]:
    a, b = op.operands
    t = result_type(op)
    div, rem = (llvm.SDivOp, llvm.SRemOp) if signed else (llvm.UDivOp, llvm.URemOp)
    q = e.emit(div.create(operands=[a, b], result_types=[t]))
    r = e.emit(rem.create(operands=[a, b], result_types=[t]))
    inexact = e.icmp("ne", r, e.const(0, t))
    return a, b, q, r, inexact


def _adjust(e: Emitter, q: SSAValue, when: SSAValue, delta: int) -> SSAValue:
    one = e.const(delta, q.type)
    moved = e.emit(llvm.AddOp(q, one))
    return e.select(when, moved, q)


def _same_sign(e: Emitter, r: SSAValue, b: SSAValue) -> SSAValue:
    """`(r ^ b) >= 0`, i.e. r and b have the same sign."""
    x = e.emit(llvm.XOrOp(r, b))
    return e.icmp("sge", x, e.const(0, r.type))


def _and(e: Emitter, a: SSAValue, b: SSAValue) -> SSAValue:
    return e.emit(llvm.AndOp(a, b))


@lowers(SCALAR_LOWERINGS, arith.FloorDivSIOp)
def _lower_floordivsi(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    # sdiv truncates; floor is one less when the division is inexact and the
    # remainder and divisor have opposite signs.
    _, b, q, r, inexact = _div_parts(op, e, signed=True)
    opposite = e.icmp("slt", e.emit(llvm.XOrOp(r, b)), e.const(0, r.type))
    return [_adjust(e, q, _and(e, inexact, opposite), -1)]


@lowers(SCALAR_LOWERINGS, arith.CeilDivSIOp)
def _lower_ceildivsi(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    _, b, q, r, inexact = _div_parts(op, e, signed=True)
    return [_adjust(e, q, _and(e, inexact, _same_sign(e, r, b)), 1)]


@lowers(SCALAR_LOWERINGS, arith.CeilDivUIOp)
def _lower_ceildivui(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    _, _, q, _, inexact = _div_parts(op, e, signed=False)
    return [_adjust(e, q, inexact, 1)]


@lowers(SCALAR_LOWERINGS, math.RsqrtOp)
def _lower_rsqrt(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    t = result_type(op)
    root = e.intr_op(llvm.FSqrtOp, op.operands, t)
    return [e.emit(llvm.FDivOp(e.const(1.0, t), root))]


@lowers(SCALAR_LOWERINGS, math.AbsIOp)
def _lower_absi(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    x = op.operands[0]
    zero = e.const(0, x.type)
    neg = e.emit(llvm.SubOp(zero, x))
    return [e.select(e.icmp("slt", x, zero), neg, x)]


@lowers(SCALAR_LOWERINGS, vector.BroadcastOp)
def _lower_broadcast(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    """A scalar in every lane: insertelement into lane 0, then a zero shuffle."""
    assert isinstance(op, vector.BroadcastOp)
    t = result_type(op)
    assert isinstance(t, VectorType)
    zero = e.emit(llvm.ConstantOp(IntegerAttr(0, i32), i32))
    undef = e.emit(llvm.UndefOp(t))
    one = e.emit(
        llvm.InsertElementOp.create(operands=[undef, op.source, zero], result_types=[t])
    )
    return [e.shuffle(one, undef, [0] * t.element_count(), t)]


@lowers(SCALAR_LOWERINGS, vector.InsertOp)
def _lower_insert(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    """vector.insert of a scalar at a static lane: llvm.insertelement."""
    assert isinstance(op, vector.InsertOp)
    (lane,) = op.static_position.get_values()
    if op.dynamic_position or isinstance(op.source.type, VectorType) or lane < 0:
        raise LoweringError("vector.insert: only a scalar at a static lane lowers to LLVM")
    t = result_type(op)
    at = e.emit(llvm.ConstantOp(IntegerAttr(lane, i32), i32))
    return [e.emit(llvm.InsertElementOp.create(operands=[op.dest, op.source, at], result_types=[t]))]


@lowers(SCALAR_LOWERINGS, vector.ShuffleOp)
def _lower_shuffle(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    """vector.shuffle: llvm.shufflevector with the same lane mask."""
    assert isinstance(op, vector.ShuffleOp)
    t = result_type(op)
    assert isinstance(t, VectorType)
    return [e.shuffle(op.v1, op.v2, list(op.mask.get_values()), t)]


#: The VNNI instruction (`vpdpbusd`) for 16 and 8 lanes of i32, with the host
#: features it needs.
_VPDPBUSD = {
    16: ("llvm.x86.avx512.vpdpbusd.512", ("avx512vnni",)),
    8: ("llvm.x86.avx512.vpdpbusd.256", ("avx512vnni", "avx512vl")),
}


def vnni_lanes() -> int:
    """The i32 lanes of the host's widest `vpdpbusd`, 0 without VNNI."""
    cpu = current_target()
    for lanes, (_, needs) in _VPDPBUSD.items():
        if cpu.vector_bits >= 32 * lanes and all(cpu.has(f) for f in needs):
            return lanes
    return 8 if cpu.has("avxvnni") else 0


@lowers(SCALAR_LOWERINGS, tir.Dot4Op)
def _lower_dot4(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    """`vpdpbusd` where the host has VNNI for the width; else the same sums in
    plain vector IR (zero- and sign-extended bytes, products, four strided
    shuffles added), which LLVM selects `vpmaddwd`-style code for: exact either
    way, nothing saturates."""
    assert isinstance(op, tir.Dot4Op)
    acc, a, b = op.operands
    at = convert_type(a.type)
    t = convert_type(acc.type)
    assert isinstance(t, VectorType) and isinstance(at, VectorType)
    lanes = t.element_count()
    if at.element_count() == 4:  # one quad for every lane
        quad = e.emit(llvm.BitcastOp(a, i32))
        undef = e.emit(llvm.UndefOp(t))
        zero = e.emit(llvm.ConstantOp(IntegerAttr(0, i32), i32))
        one = e.emit(llvm.InsertElementOp.create(operands=[undef, quad, zero], result_types=[t]))
        words = e.shuffle(one, undef, [0] * lanes, t)
    else:
        words = e.emit(llvm.BitcastOp(a, t))
    intrinsic = _VPDPBUSD.get(lanes)
    if intrinsic is not None and vnni_lanes() >= lanes:
        weights = e.emit(llvm.BitcastOp(b, t))
        return [e.emit(llvm.CallIntrinsicOp(intrinsic[0], [acc, words, weights], [t]))]
    bytes_t = VectorType(IntegerType(8), [4 * lanes])
    wide = VectorType(i32, [4 * lanes])
    ua = e.emit(llvm.ZExtOp(e.emit(llvm.BitcastOp(words, bytes_t)), wide))
    sb = e.emit(llvm.SExtOp(b, wide))
    products = e.emit(llvm.MulOp(ua, sb))
    total = acc
    for j in range(4):
        part = e.shuffle(products, products, [4 * i + j for i in range(lanes)], t)
        total = e.emit(llvm.AddOp(total, part))
    return [total]


__all__ = ["MVEC_FUNCTIONS", "SCALAR_LOWERINGS", "libm", "mvec", "vnni_lanes"]
