"""`exp` of f32 vectors as inline LLVM arithmetic, on every target.

A call per vector into glibc's libmvec (x86 only) or libm per lane (every other
target) made `exp` the bottleneck of softmax, sigmoid and SiLU: a 1500-wide
softmax ran at 3.4x onnxruntime's time. This is the classic range reduction
(Cody and Waite; Cephes' `expf`, as onnxruntime's MLAS and TVM's `fast_exp` do):

    n = roundeven(x * log2(e)),  r = x - n * ln2  (|r| <= ln2 / 2, in two parts)
    exp(x) = 2^n * (1 + r + r^2 * P(r))          (P of degree 5)

`2^n` is one instruction where the target has one (`Target.vector_ldexp`:
AVX-512's vscalef), else built in the exponent bits, as two factors
`2^(n - n/2)` and `2^(n/2)` that are each a normal float for every `n` of the
clamped range [-104, 89]: either way results underflow through the
subnormals to 0 and overflow to infinity as libm's do, within 2 ulp of
numpy's `exp`. NaN is returned as it came. Every operation is portable LLVM
(`fmuladd` becomes an FMA where the target has one), so x86, AArch64, RISC-V
and WebAssembly compute it in their vector registers.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import VectorType, i1, i32
from xdsl.ir import SSAValue

from lamina.dialects import llvm_ext
from lamina.lowering.tir_to_llvm.emitter import Emitter
from lamina.lowering.tir_to_llvm.types import mangle
from lamina.passes import current_target

#: exp(x) is +inf above this and 0 below the lower bound (in round to nearest).
UPPER, LOWER = 89.0, -104.0
LOG2E = 1.44269504088896341
#: ln 2 in two parts: the first has 9 significant bits, so `n * LN2_HI` is exact.
LN2_HI, LN2_LO = 0.693359375, -2.12194440e-4
#: Cephes' minimax coefficients of (exp(r) - 1 - r) / r^2, highest degree first.
POLY = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1)


def vector_exp(e: Emitter, x: SSAValue, t: VectorType) -> SSAValue:
    """`exp(x)` lane by lane for an f32 vector `x` of type `t`."""
    ints = VectorType(i32, t.get_shape())

    def fmuladd(a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        return e.intrinsic("llvm.fmuladd", [a, b, c], t)

    def f(value: float) -> SSAValue:
        return e.const(value, t)

    # minnum/maxnum return the other operand for a NaN: it is restored at the end
    xc = e.intrinsic("llvm.maxnum", [e.intrinsic("llvm.minnum", [x, f(UPPER)], t), f(LOWER)], t)
    n = e.intrinsic("llvm.roundeven", [e.emit(llvm.FMulOp(xc, f(LOG2E)))], t)
    r = fmuladd(n, f(-LN2_HI), xc)
    r = fmuladd(n, f(-LN2_LO), r)
    p = f(POLY[0])
    for c in POLY[1:]:
        p = fmuladd(p, r, f(c))
    # 1 + (r + p r^2): the small part first, rounded once, then the 1
    y = e.emit(llvm.FAddOp(fmuladd(p, e.emit(llvm.FMulOp(r, r)), r), f(1.0)))
    k = e.emit(llvm_ext.FPToSIOp(n, ints))
    if current_target().vector_ldexp:  # one instruction (vscalef)
        name = f"llvm.ldexp.{mangle(t)}.{mangle(ints)}"
        y = e.emit(llvm.CallIntrinsicOp(name, [y, k], [t]))
    else:
        half = e.emit(llvm.AShrOp(k, e.const(1, ints)))
        for part in (half, e.emit(llvm.SubOp(k, half))):
            biased = e.emit(llvm.AddOp(part, e.const(127, ints)))
            bits = e.emit(llvm.ShlOp(biased, e.const(23, ints)))
            y = e.emit(llvm.FMulOp(y, e.emit(llvm.BitcastOp(bits, t))))
    nan = 3  # llvm.is.fpclass's test mask of signaling and quiet NaNs
    is_nan = e.emit(llvm.CallIntrinsicOp(
        f"llvm.is.fpclass.{mangle(t)}", [x, e.const(nan, i32)], [VectorType(i1, t.get_shape())]
    ))
    return e.select(is_nan, x, y)


__all__ = ["vector_exp"]
