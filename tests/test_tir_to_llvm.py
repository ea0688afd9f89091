"""lower-tir-to-llvm and the JIT: TIR programs from text, run natively, vs numpy."""

from __future__ import annotations

import ctypes
import math as pymath
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, llvm, math
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, StringAttr
from xdsl.parser import Parser

import lamina.dialects.resources  # noqa: F401  (before any dense_resource parsing)
from lamina.codegen.codegen import compile_object, llvm_ir
from lamina.codegen.jit import NativeModule, jit_compile
from lamina.dialects.llvm_ext import LLVMExt
from lamina.dialects.tir import TIR
from lamina.errors import LoweringError
from lamina.lowering.tir_to_llvm import LowerTirToLlvmPass, plan_workspace

ALIGN = 64


# ------------------------------------------------------------------------ helpers
def parse(text: str) -> ModuleOp:
    ctx = Context()
    for d in (
        builtin.Builtin,
        func.Func,
        arith.Arith,
        math.Math,
        llvm.LLVM,
        TIR,
        LLVMExt,
    ):
        ctx.load_dialect(d)
    module = Parser(ctx, text).parse_module()
    module.verify()
    return module


def lower(text: str) -> ModuleOp:
    module = parse(text)
    LowerTirToLlvmPass().apply(Context(), module)
    module.verify()
    return module


def aligned(a: np.ndarray) -> np.ndarray:
    """A 64-byte aligned copy of `a` (the runtime's buffer guarantee)."""
    a = np.asarray(a)
    raw = np.empty(a.nbytes + ALIGN, dtype=np.uint8)
    start = -raw.ctypes.data % ALIGN
    out = raw[start : start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def ptr(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


class Kernels:
    """JIT-compiled kernels of a TIR module, callable with numpy arrays."""

    def __init__(self, text: str):
        self.native: NativeModule = jit_compile(lower(text))

    def __getattr__(self, name: str) -> Callable[..., None]:
        addr = self.native.address(name)

        def call(*arrays: np.ndarray) -> None:
            for a in arrays:
                assert a.ctypes.data % ALIGN == 0
            proto = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * len(arrays))
            proto(addr)(*map(ptr, arrays))

        return call


def loop_nest(shape: tuple[int, ...], body: str, kind: str = "serial") -> str:
    """Constants c0/c1 and loops %i0.. over `shape` around `body`."""
    lines = [f"%n{k} = arith.constant {d} : index" for k, d in enumerate(shape)]
    lines += ["%c0 = arith.constant 0 : index", "%c1 = arith.constant 1 : index"]
    for k in range(len(shape)):
        lines.append(f"tir.for {kind} %i{k} = %c0 to %n{k} step %c1 {{")
    lines.append(body)
    lines += ["}"] * len(shape)
    return "\n".join(lines)


def memref(shape: tuple[int, ...], elem: str) -> str:
    return f"memref<{'x'.join(map(str, shape))}{'x' if shape else ''}{elem}>"


def idx(shape: tuple[int, ...]) -> str:
    return ", ".join(f"%i{k}" for k in range(len(shape)))


# ------------------------------------------------------------------------- kernels
def test_elementwise_with_if() -> None:
    m = "memref<4x8xf32>"
    body = f"""
      %v = tir.load %x[%i0, %i1] : {m}
      %z = arith.constant 0.0 : f32
      %p = arith.cmpf ogt, %v, %z : f32
      tir.if %p {{
        %d = arith.addf %v, %v : f32
        tir.store %d, %y[%i0, %i1] : {m}
      }} else {{
        %n = arith.negf %v : f32
        tir.store %n, %y[%i0, %i1] : {m}
      }}"""
    k = Kernels(
        f"tir.prim_func @f(%x: {m}, %y: {m}) {{\n"
        + loop_nest((4, 8), body, "parallel")
        + "\ntir.return\n}"
    )
    x = aligned(np.random.default_rng(0).standard_normal((4, 8), dtype=np.float32))
    y = aligned(np.zeros((4, 8), np.float32))
    k.f(x, y)
    np.testing.assert_array_equal(y, np.where(x > 0, 2 * x, -x))


def test_if_without_else() -> None:
    m = "memref<16xi32>"
    body = f"""
      %v = tir.load %x[%i0] : {m}
      %t = arith.constant 3 : i32
      %p = arith.cmpi sge, %v, %t : i32
      tir.if %p {{
        tir.store %v, %y[%i0] : {m}
      }}"""
    k = Kernels(
        f"tir.prim_func @f(%x: {m}, %y: {m}) {{\n{loop_nest((16,), body)}\ntir.return\n}}"
    )
    x = aligned(np.arange(-8, 8, dtype=np.int32))
    y = aligned(np.full(16, -100, np.int32))
    k.f(x, y)
    np.testing.assert_array_equal(y, np.where(x >= 3, x, -100))


MATMUL = """
tir.prim_func @matmul(%a: memref<5x7xf32>, %b: memref<7x3xf32>, %c: memref<5x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.constant 5 : index
  %n = arith.constant 3 : index
  %kk = arith.constant 7 : index
  %zero = arith.constant 0.0 : f32
  %acc = tir.alloc local : memref<1xf32>
  tir.for parallel %i = %c0 to %m step %c1 {
    tir.for %j = %c0 to %n step %c1 {
      tir.store %zero, %acc[%c0] : memref<1xf32>
      tir.for unrolled %k = %c0 to %kk step %c1 {
        %x = tir.load %a[%i, %k] : memref<5x7xf32>
        %y = tir.load %b[%k, %j] : memref<7x3xf32>
        %s = tir.load %acc[%c0] : memref<1xf32>
        %p = arith.mulf %x, %y : f32
        %t = arith.addf %s, %p : f32
        tir.store %t, %acc[%c0] : memref<1xf32>
      }
      %r = tir.load %acc[%c0] : memref<1xf32>
      tir.store %r, %c[%i, %j] : memref<5x3xf32>
    }
  }
  tir.return
}
"""


def test_matmul_with_local_accumulator() -> None:
    lowered = lower(MATMUL)
    # The parallel loop is outlined into @matmul_par0, which takes the local
    # accumulator along (one per thread), hoisted into its entry block.
    body = next(op for op in lowered.ops if isinstance(op, llvm.FuncOp) and op.sym_name.data == "matmul_par0")
    assert any(isinstance(op, llvm.AllocaOp) for op in body.body.blocks[0].ops)
    k = Kernels(MATMUL)
    rng = np.random.default_rng(1)
    a = aligned(rng.standard_normal((5, 7), dtype=np.float32))
    b = aligned(rng.standard_normal((7, 3), dtype=np.float32))
    c = aligned(np.zeros((5, 3), np.float32))
    k.matmul(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def _binary_int_kernel(ops: list[str], elem: str = "i32", n: int = 64) -> str:
    m = memref((n,), elem)
    body = [f"%a = tir.load %x[%i0] : {m}", f"%b = tir.load %y[%i0] : {m}"]
    outs = []
    for k, op in enumerate(ops):
        body += [
            f"%r{k} = arith.{op} %a, %b : {elem}",
            f"tir.store %r{k}, %o{k}[%i0] : {m}",
        ]
        outs.append(f"%o{k}: {m}")
    return (
        f"tir.prim_func @f(%x: {m}, %y: {m}, {', '.join(outs)}) {{\n"
        + loop_nest((n,), "\n".join(body))
        + "\ntir.return\n}"
    )


def test_integer_division_semantics() -> None:
    ops = ["floordivsi", "ceildivsi", "divsi", "remsi", "maxsi", "minsi", "shrsi"]
    k = Kernels(_binary_int_kernel(ops))
    rng = np.random.default_rng(2)
    a = rng.integers(-50, 50, 64).astype(np.int32)
    b = rng.integers(-9, 9, 64).astype(np.int32)
    b[b == 0] = 3
    b[:4] = [1, -1, 7, -7]
    a[:4] = [-7, 7, -7, 7]
    shift = np.abs(b) % 8
    x, y = aligned(a), aligned(b)
    outs = [aligned(np.zeros(64, np.int32)) for _ in ops]
    k.f(x, y, *outs)
    trunc = np.trunc(a / b).astype(np.int32)
    expected = [
        np.floor_divide(a, b),
        -np.floor_divide(-a, b),
        trunc,
        a - b * trunc,
        np.maximum(a, b),
        np.minimum(a, b),
    ]
    for got, want in zip(outs, expected, strict=False):
        np.testing.assert_array_equal(got, want)
    # shrsi by b (negative counts are poison in LLVM): only check valid shifts
    valid = (b >= 0) & (b < 32)
    np.testing.assert_array_equal(outs[6][valid], a[valid] >> b[valid])
    del shift


def test_unsigned_division() -> None:
    ops = ["divui", "remui", "ceildivui", "maxui", "minui"]
    k = Kernels(_binary_int_kernel(ops))
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(1, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    b[:8] = [1, 2, 3, 7, 2**31, 2**32 - 1, 5, 9]
    x, y = aligned(a.view(np.int32)), aligned(b.view(np.int32))
    outs = [aligned(np.zeros(64, np.int32)) for _ in ops]
    k.f(x, y, *outs)
    got = [o.view(np.uint32) for o in outs]
    np.testing.assert_array_equal(got[0], a // b)
    np.testing.assert_array_equal(got[1], a % b)
    np.testing.assert_array_equal(got[2], (a // b) + (a % b != 0))
    np.testing.assert_array_equal(got[3], np.maximum(a, b))
    np.testing.assert_array_equal(got[4], np.minimum(a, b))


CASTS = """
tir.prim_func @casts(%x: memref<8xf32>, %u: memref<8xi32>, %b: memref<8xi8>,
                     %o_fptosi: memref<8xi32>, %o_sitofp: memref<8xf32>,
                     %o_uitofp: memref<8xf32>, %o_fptoui: memref<8xi32>,
                     %o_ext: memref<8xf64>, %o_trunc: memref<8xf16>,
                     %o_extsi: memref<8xi32>, %o_extui: memref<8xi32>,
                     %o_trunci: memref<8xi8>, %o_bitcast: memref<8xi32>,
                     %o_index: memref<8xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c8 step %c1 {
    %f = tir.load %x[%i] : memref<8xf32>
    %n = tir.load %u[%i] : memref<8xi32>
    %s = tir.load %b[%i] : memref<8xi8>
    %0 = arith.fptosi %f : f32 to i32
    tir.store %0, %o_fptosi[%i] : memref<8xi32>
    %1 = arith.sitofp %n : i32 to f32
    tir.store %1, %o_sitofp[%i] : memref<8xf32>
    %2 = arith.uitofp %n : i32 to f32
    tir.store %2, %o_uitofp[%i] : memref<8xf32>
    %fa = math.absf %f : f32
    %3 = arith.fptoui %fa : f32 to i32
    tir.store %3, %o_fptoui[%i] : memref<8xi32>
    %4 = arith.extf %f : f32 to f64
    tir.store %4, %o_ext[%i] : memref<8xf64>
    %5 = arith.truncf %f : f32 to f16
    tir.store %5, %o_trunc[%i] : memref<8xf16>
    %6 = arith.extsi %s : i8 to i32
    tir.store %6, %o_extsi[%i] : memref<8xi32>
    %7 = arith.extui %s : i8 to i32
    tir.store %7, %o_extui[%i] : memref<8xi32>
    %8 = arith.trunci %n : i32 to i8
    tir.store %8, %o_trunci[%i] : memref<8xi8>
    %9 = arith.bitcast %f : f32 to i32
    tir.store %9, %o_bitcast[%i] : memref<8xi32>
    %10 = arith.index_cast %n : i32 to index
    %11 = arith.muli %10, %i : index
    %12 = arith.index_cast %11 : index to i64
    tir.store %12, %o_index[%i] : memref<8xi64>
  }
  tir.return
}
"""


def test_casts() -> None:
    k = Kernels(CASTS)
    x = np.array([-2.7, -0.5, 0.0, 1.5, 2.9, 100.25, -100.75, 3e5], np.float32)
    u = np.array([-1, -(2**31), 0, 1, 2**31 - 1, 300, -300, 7], np.int32)
    b = np.array([-128, -1, 0, 1, 127, 5, -5, 64], np.int8)
    outs = {
        "fptosi": np.int32, "sitofp": np.float32, "uitofp": np.float32,
        "fptoui": np.int32, "ext": np.float64, "trunc": np.float16,
        "extsi": np.int32, "extui": np.int32, "trunci": np.int8,
        "bitcast": np.int32, "index": np.int64,
    }  # fmt: skip
    bufs = {name: aligned(np.zeros(8, dt)) for name, dt in outs.items()}
    k.casts(aligned(x), aligned(u), aligned(b), *bufs.values())
    np.testing.assert_array_equal(bufs["fptosi"], np.trunc(x).astype(np.int32))
    np.testing.assert_array_equal(bufs["sitofp"], u.astype(np.float32))
    np.testing.assert_array_equal(bufs["uitofp"], u.view(np.uint32).astype(np.float32))
    np.testing.assert_array_equal(
        bufs["fptoui"].view(np.uint32), np.trunc(np.abs(x)).astype(np.uint32)
    )
    np.testing.assert_array_equal(bufs["ext"], x.astype(np.float64))
    np.testing.assert_array_equal(bufs["trunc"], x.astype(np.float16))
    np.testing.assert_array_equal(bufs["extsi"], b.astype(np.int32))
    np.testing.assert_array_equal(bufs["extui"], b.view(np.uint8).astype(np.int32))
    np.testing.assert_array_equal(bufs["trunci"], u.astype(np.int8))
    np.testing.assert_array_equal(bufs["bitcast"], x.view(np.int32))
    np.testing.assert_array_equal(bufs["index"], u.astype(np.int64) * np.arange(8))


VECTOR = """
tir.prim_func @vec(%x: memref<4x32xf32>, %y: memref<4x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %half = arith.constant dense<0.5> : vector<16xf32>
  %zero = arith.constant dense<0.0> : vector<16xf32>
  tir.for %i = %c0 to %c4 step %c1 {
    tir.for vectorized %j = %c0 to %c32 step %c16 {
      %v = tir.load %x[%i, %j] : memref<4x32xf32>, vector<16xf32>
      %m = arith.mulf %v, %half : vector<16xf32>
      %r = arith.maximumf %m, %zero : vector<16xf32>
      %t = math.tanh %r : vector<16xf32>
      %e = math.exp %t : vector<16xf32>
      tir.store %e, %y[%i, %j] : memref<4x32xf32>, vector<16xf32>
    }
  }
  tir.return
}
"""


def test_vector_load_store() -> None:
    k = Kernels(VECTOR)
    x = aligned(np.random.default_rng(4).standard_normal((4, 32), dtype=np.float32))
    y = aligned(np.zeros((4, 32), np.float32))
    k.vec(x, y)
    np.testing.assert_allclose(y, np.exp(np.tanh(np.maximum(x * 0.5, 0))), rtol=1e-6)


UNARY_MATH: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.exp,
    "tanh": np.tanh,
    "erf": np.vectorize(pymath.erf),
    "log": np.log,
    "sqrt": np.sqrt,
    "rsqrt": lambda v: 1 / np.sqrt(v),
    "log1p": np.log1p,
    "expm1": np.expm1,
    "exp2": np.exp2,
    "log2": np.log2,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5),
    "roundeven": np.round,
    "trunc": np.trunc,
    "absf": np.abs,
    "sin": np.sin,
    "cos": np.cos,
}


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_math_functions(dtype: str) -> None:
    names = list(UNARY_MATH)
    m = memref((16,), dtype)
    body = [f"%v = tir.load %x[%i0] : {m}"]
    for k, name in enumerate(names):
        body += [
            f"%r{k} = math.{name} %v : {dtype}",
            f"tir.store %r{k}, %o{k}[%i0] : {m}",
        ]
    body += [
        f"%p = math.powf %v, %v : {dtype}",
        f"tir.store %p, %opow[%i0] : {m}",
        f"%f = math.fma %v, %v, %v : {dtype}",
        f"tir.store %f, %ofma[%i0] : {m}",
    ]
    outs = ", ".join(f"%o{k}: {m}" for k in range(len(names)))
    text = (
        f"tir.prim_func @f(%x: {m}, {outs}, %opow: {m}, %ofma: {m}) {{\n"
        + loop_nest((16,), "\n".join(body))
        + "\ntir.return\n}"
    )
    k = Kernels(text)
    np_dtype = np.float32 if dtype == "f32" else np.float64
    x = np.linspace(0.1, 3.7, 16).astype(np_dtype)
    x[3] = 2.5  # round vs roundeven
    bufs = [aligned(np.zeros(16, np_dtype)) for _ in range(len(names) + 2)]
    k.f(aligned(x), *bufs)
    rtol = 1e-5 if dtype == "f32" else 1e-12
    for name, got in zip(names, bufs, strict=False):
        np.testing.assert_allclose(got, UNARY_MATH[name](x), rtol=rtol, err_msg=name)
    np.testing.assert_allclose(bufs[-2], x**x, rtol=rtol)
    np.testing.assert_allclose(bufs[-1], x * x + x, rtol=rtol)


def test_nan_semantics_of_min_max() -> None:
    m = "memref<4xf32>"
    body = f"""
      %a = tir.load %x[%i0] : {m}
      %b = tir.load %y[%i0] : {m}
      %0 = arith.maximumf %a, %b : f32
      tir.store %0, %o0[%i0] : {m}
      %1 = arith.maxnumf %a, %b : f32
      tir.store %1, %o1[%i0] : {m}
      %2 = arith.minimumf %a, %b : f32
      tir.store %2, %o2[%i0] : {m}
      %3 = arith.minnumf %a, %b : f32
      tir.store %3, %o3[%i0] : {m}"""
    outs = ", ".join(f"%o{k}: {m}" for k in range(4))
    k = Kernels(
        f"tir.prim_func @f(%x: {m}, %y: {m}, {outs}) {{\n{loop_nest((4,), body)}\ntir.return\n}}"
    )
    a = np.array([np.nan, 1.0, -2.0, 3.0], np.float32)
    b = np.array([1.0, np.nan, 5.0, -3.0], np.float32)
    bufs = [aligned(np.zeros(4, np.float32)) for _ in range(4)]
    k.f(aligned(a), aligned(b), *bufs)
    np.testing.assert_array_equal(bufs[0], np.maximum(a, b))  # propagates NaN
    np.testing.assert_array_equal(bufs[1], np.fmax(a, b))  # ignores NaN
    np.testing.assert_array_equal(bufs[2], np.minimum(a, b))
    np.testing.assert_array_equal(bufs[3], np.fmin(a, b))


# ---------------------------------------------------------------------- entry ABI
MAIN = """
tir.prim_func @add1(%a: memref<4x4xf32>, %o: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  tir.for %i = %c0 to %c4 step %c1 {
    tir.for %j = %c0 to %c4 step %c1 {
      %v = tir.load %a[%i, %j] : memref<4x4xf32>
      %r = arith.addf %v, %one : f32
      tir.store %r, %o[%i, %j] : memref<4x4xf32>
    }
  }
  tir.return
}
tir.prim_func @mul(%a: memref<4x4xf32>, %w: memref<4x4xf32>, %o: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tir.for %i = %c0 to %c4 step %c1 {
    tir.for %j = %c0 to %c4 step %c1 {
      %v = tir.load %a[%i, %j] : memref<4x4xf32>
      %u = tir.load %w[%i, %j] : memref<4x4xf32>
      %r = arith.mulf %v, %u : f32
      tir.store %r, %o[%i, %j] : memref<4x4xf32>
    }
  }
  tir.return
}
func.func @main(%x: memref<4x4xf32>, %y: memref<4x4xf32>, %z: memref<4x4xf32>) {
  %w = tir.constant dense_resource<weight> : memref<4x4xf32>
  %t0 = tir.alloc global : memref<4x4xf32>
  tir.call @add1(%x, %t0) : memref<4x4xf32>, memref<4x4xf32>
  tir.call @mul(%t0, %w, %y) : memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>
  %t1 = tir.alloc global : memref<4x4xf32>
  tir.call @add1(%y, %t1) : memref<4x4xf32>, memref<4x4xf32>
  tir.call @mul(%t1, %w, %z) : memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>
  func.return
}
"""


def run_main(
    native: NativeModule, args: list[np.ndarray], params: list[np.ndarray]
) -> None:
    table = (ctypes.c_void_p * max(len(args), 1))(*[a.ctypes.data for a in args])
    ptable = (ctypes.c_void_p * max(len(params), 1))(*[p.ctypes.data for p in params])
    workspace = aligned(np.zeros(max(native.workspace_size, 1), np.uint8))
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
    proto(native.address("main"))(
        ctypes.addressof(table), ctypes.addressof(ptable), ptr(workspace)
    )


def test_main_entry_abi_and_workspace_reuse() -> None:
    module = lower(MAIN)
    assert module.attributes["lamina.params"] == ArrayAttr([StringAttr("weight")])
    size = 4 * 4 * 4
    # t0 is dead before t1 is first used: both live at offset 0.
    assert module.attributes["lamina.workspace_size"] == IntegerAttr(64, 64)
    assert module.attributes["lamina.intermediate_bytes"] == IntegerAttr(2 * 64, 64)
    offsets = [
        op.attributes["lamina.workspace_offset"]
        for op in module.walk()
        if "lamina.workspace_offset" in op.attributes
    ]
    assert offsets == [IntegerAttr(0, 64)] * 2
    main = next(
        op
        for op in module.ops
        if isinstance(op, llvm.FuncOp) and op.sym_name.data == "main"
    )
    assert len(main.body.blocks[0].args) == 3

    native = jit_compile(module)
    assert native.params == ("weight",) and native.workspace_size == size
    rng = np.random.default_rng(5)
    x = aligned(rng.standard_normal((4, 4), dtype=np.float32))
    w = aligned(rng.standard_normal((4, 4), dtype=np.float32))
    y, z = aligned(np.zeros((4, 4), np.float32)), aligned(np.zeros((4, 4), np.float32))
    run_main(native, [x, y, z], [w])
    np.testing.assert_allclose(y, (x + 1) * w, rtol=1e-6)
    np.testing.assert_allclose(z, (y + 1) * w, rtol=1e-6)


def test_workspace_overlapping_allocs_get_distinct_offsets() -> None:
    text = MAIN.replace(
        "func.func @main(%x: memref<4x4xf32>, %y: memref<4x4xf32>, %z: memref<4x4xf32>) {",
        "func.func @main(%x: memref<4x4xf32>, %z: memref<4x4xf32>) {",
    )
    body_start = text.index("  %w = tir.constant")
    text = (
        text[:body_start]
        + """  %w = tir.constant dense_resource<weight> : memref<4x4xf32>
  %t0 = tir.alloc global : memref<4x4xf32>
  %t1 = tir.alloc global : memref<4x4xf32>
  %t2 = tir.alloc global : memref<4x4xf32>
  tir.call @add1(%x, %t0) : memref<4x4xf32>, memref<4x4xf32>
  tir.call @mul(%t0, %w, %t1) : memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>
  tir.call @add1(%t1, %t2) : memref<4x4xf32>, memref<4x4xf32>
  tir.call @mul(%t2, %w, %z) : memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>
  func.return
}
"""
    )
    module = lower(text)
    # t0 [1,2], t1 [2,3], t2 [3,4]: t2 reuses t0's slot
    assert module.attributes["lamina.workspace_size"] == IntegerAttr(128, 64)
    assert module.attributes["lamina.intermediate_bytes"] == IntegerAttr(192, 64)
    native = jit_compile(module)
    rng = np.random.default_rng(6)
    x = aligned(rng.standard_normal((4, 4), dtype=np.float32))
    w = aligned(rng.standard_normal((4, 4), dtype=np.float32))
    z = aligned(np.zeros((4, 4), np.float32))
    run_main(native, [x, z], [w])
    np.testing.assert_allclose(z, ((x + 1) * w + 1) * w, rtol=1e-5)


def test_plan_workspace() -> None:
    # (first use, last use, bytes)
    plan = plan_workspace([(0, 1, 100), (1, 2, 10), (2, 3, 64), (3, 4, 200)])
    assert plan.offsets == (0, 128, 0, 64)
    assert plan.size == 320
    assert plan.unshared_size == 128 + 64 + 64 + 256
    assert plan_workspace([]).size == 0
    # a freed hole is reused by a buffer that fits
    plan = plan_workspace([(0, 5, 64), (0, 1, 64), (0, 5, 64), (2, 3, 64)])
    assert plan.offsets == (0, 64, 128, 64)


def test_noalias_dropped_when_a_call_aliases() -> None:
    text = MAIN.replace("tir.call @add1(%y, %t1)", "tir.call @add1(%t1, %t1)")
    module = lower(text)
    add1 = next(
        op
        for op in module.ops
        if isinstance(op, llvm.FuncOp) and op.sym_name.data == "add1"
    )
    mul = next(
        op
        for op in module.ops
        if isinstance(op, llvm.FuncOp) and op.sym_name.data == "mul"
    )
    assert add1.arg_attrs is not None and mul.arg_attrs is not None
    assert all("llvm.noalias" not in d.data for d in add1.arg_attrs)
    assert all("llvm.noalias" in d.data for d in mul.arg_attrs)


# --------------------------------------------------------------- emit and errors
def test_llvm_ir_and_object_code() -> None:
    module = lower(MATMUL)
    text = llvm_ir(module)
    assert 'define void @"matmul"(ptr noalias align 64' in text
    obj = compile_object(module)
    assert isinstance(obj, bytes) and len(obj) > 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "tir.prim_func @f(%x: memref<4xi32>) {\n"
            " %c0 = arith.constant 0 : index\n"
            " %v = tir.load %x[%c0] : memref<4xi32>\n"
            " %r = math.ctpop %v : i32\n"
            " tir.store %r, %x[%c0] : memref<4xi32>\n tir.return\n}",
            "math.ctpop",
        ),
        (
            "tir.prim_func @f(%x: memref<4xf32>) {\n"
            " %w = tir.constant dense_resource<k> : memref<4xf32>\n tir.return\n}",
            "tir.constant in kernel @f",
        ),
        (
            "func.func @other(%x: memref<4xf32>) {\n func.return\n}",
            "only the entry function @main",
        ),
    ],
)
def test_unsupported_input_raises_lowering_error(text: str, message: str) -> None:
    with pytest.raises(LoweringError, match=message):
        lower(text)


def test_unnamed_dynamic_buffer_is_invalid() -> None:
    with pytest.raises(Exception, match="dynamic shape without named sizes"):
        lower("tir.prim_func @f(%x: memref<?xf32>) {\n tir.return\n}")


# --------------------------------------------------------------------- property
ELEMWISE_OPS = {
    "f32": ("arith.addf", "arith.mulf", "arith.subf", "arith.maximumf"),
    "i32": ("arith.addi", "arith.muli", "arith.subi", "arith.maxsi"),
}
NUMPY_OPS = {
    "arith.addf": np.add, "arith.mulf": np.multiply, "arith.subf": np.subtract,
    "arith.maximumf": np.maximum, "arith.addi": np.add, "arith.muli": np.multiply,
    "arith.subi": np.subtract, "arith.maxsi": np.maximum,
}  # fmt: skip


@settings(max_examples=12, deadline=None)
@given(
    shape=st.lists(st.integers(1, 6), min_size=0, max_size=3).map(tuple),
    elem=st.sampled_from(["f32", "i32"]),
    op_index=st.integers(0, 3),
    kind=st.sampled_from(["serial", "parallel", "vectorized", "unrolled"]),
    seed=st.integers(0, 2**16),
)
def test_elementwise_property(
    shape: tuple[int, ...], elem: str, op_index: int, kind: str, seed: int
) -> None:
    op = ELEMWISE_OPS[elem][op_index]
    m = memref(shape, elem)
    body = (
        f"%a = tir.load %x[{idx(shape)}] : {m}\n"
        f"%b = tir.load %y[{idx(shape)}] : {m}\n"
        f"%r = {op} %a, %b : {elem}\n"
        f"tir.store %r, %o[{idx(shape)}] : {m}"
    )
    k = Kernels(
        f"tir.prim_func @f(%x: {m}, %y: {m}, %o: {m}) {{\n"
        + loop_nest(shape, body, kind)
        + "\ntir.return\n}"
    )
    rng = np.random.default_rng(seed)
    dtype = np.float32 if elem == "f32" else np.int32
    a = (rng.standard_normal(shape) * 100).astype(dtype)
    b = (rng.standard_normal(shape) * 100).astype(dtype)
    out = aligned(np.zeros(shape, dtype))
    k.f(aligned(a), aligned(b), out)
    np.testing.assert_array_equal(out, NUMPY_OPS[op](a, b))
