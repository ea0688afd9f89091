"""lowering/lang/schedule.py and the scheduled lowering of te_to_tir: the schedule
language (print/parse round trip, errors), and kernels lowered under many
schedules (lower-te-to-tir, tir-unroll, tir-vectorize, lower-tir-to-llvm), run
natively and compared with numpy on shapes the tiles do and do not divide."""

from __future__ import annotations

import ctypes
import dataclasses
import random
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp, VectorType

from lamina.codegen.jit import NativeModule, jit_compile, set_num_threads
from lamina.dialects import tir
from lamina.dialects.tir import ForKind
from lamina.errors import LaminaError, LoweringError
from lamina.ir import parse
from lamina.lowering.lang.schedule import (
    Annotate,
    CacheWrite,
    Fuse,
    LoopNest,
    Primitive,
    Reorder,
    Schedule,
    Split,
)
from lamina.lowering.strategy.cpu import GemmKnobs, gemm, injective, reduction
from lamina.lowering.strategy.dispatch import TemplateCall
from lamina.lowering.te_to_tir import LowerTeToTirPass
from lamina.lowering.tir_to_llvm import LowerTirToLlvmPass
from lamina.runtime.model import aligned, aligned_empty
from lamina.target import Target
from lamina.transforms.tir.unroll import TirUnrollPass
from lamina.transforms.tir.vectorize import TirVectorizePass

# ------------------------------------------------------------------ the language
_names = st.sampled_from(["i0", "i1", "r0", "i0.o", "i1.i", "r0.o", "i0.i1", "i1.i.o"])
_primitives: st.SearchStrategy[Primitive] = st.one_of(
    st.builds(Split, _names, st.integers(1, 64)),
    st.builds(Fuse, _names, _names),
    st.builds(Reorder, st.lists(_names, min_size=1, max_size=4).map(tuple)),
    st.builds(
        Annotate,
        st.sampled_from([ForKind.VECTORIZED, ForKind.PARALLEL, ForKind.UNROLLED]),
        _names,
    ),
    st.builds(CacheWrite, _names),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_primitives, max_size=8))
def test_print_parse_round_trip(steps: list[Primitive]) -> None:
    s = Schedule(tuple(steps))
    text = str(s)
    assert Schedule.parse(text) == s
    # spacing and empty steps do not matter
    assert (
        Schedule.parse(" ; ".join(str(p).replace(", ", " ,") for p in steps) + ";") == s
    )


def test_parse_examples() -> None:
    s = Schedule.parse(
        "split(i1, 6); fuse(i0, i1.o); vectorize(i1.i); cache_write(i0.i1.o)"
    )
    assert s.steps == (
        Split("i1", 6),
        Fuse("i0", "i1.o"),
        Annotate(ForKind.VECTORIZED, "i1.i"),
        CacheWrite("i0.i1.o"),
    )
    # tile is sugar for two splits and a reorder
    assert Schedule.parse("tile(i0, i1, 4, 8)") == Schedule(
        (Split("i0", 4), Split("i1", 8), Reorder(("i0.o", "i1.o", "i0.i", "i1.i")))
    )
    assert Schedule.parse("") == Schedule()
    assert str(Schedule.parse("parallel(i0); unroll(r0)")) == "parallel(i0); unroll(r0)"
    assert Schedule.parse("split(i0, 2)") + Schedule.parse(
        "unroll(i0.i)"
    ) == Schedule.parse("split(i0, 2); unroll(i0.i)")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("split(i0)", "bad schedule step 'split(i0)'"),
        ("split(i0, four)", "bad schedule step 'split(i0, four)'"),
        ("frobnicate(i0)", "bad schedule step 'frobnicate(i0)'"),
        ("split(i0, 4", "bad schedule step 'split(i0, 4': expected name(args)"),
        ("split i0 4", "expected name(args)"),
        ("tile(i0, i1, 4)", "bad schedule step 'tile(i0, i1, 4)'"),
        ("vectorize(i0, i1)", "bad schedule step"),
    ],
)
def test_parse_errors(text: str, needle: str) -> None:
    with pytest.raises(LaminaError) as info:
        Schedule.parse(text)
    assert isinstance(info.value, LoweringError)
    assert needle in str(info.value)


def _nest(
    text: str, extents: tuple[int, ...] = (8, 16), reduce: tuple[int, ...] = (4,)
) -> LoopNest:
    nest = LoopNest.of(extents, reduce).apply(Schedule.parse(text))
    nest.check()
    return nest


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("split(i7, 4)", "no loop 'i7'; the loops are i0, i1, r0"),
        (
            "split(i0, 2); vectorize(i0)",
            "no loop 'i0'; the loops are i0.o, i0.i, i1, r0",
        ),
        ("split(i0, 0)", "needs a positive factor"),
        ("fuse(i0, r0)", "needs r0 directly inside i0"),
        ("reorder(i0, r0, i1); fuse(i0, r0)", "mixes an output and a reduce axis"),
        ("reorder(i0, i0)", "names a loop twice"),
        ("vectorize(i0)", "only the innermost loop can be vectorized"),
        ("vectorize(i1)", "only the innermost loop can be vectorized"),
        ("parallel(r0)", "a reduce loop cannot be parallel"),
        ("reorder(r0, i1)", "output loop i1 inside a reduce loop needs cache_write"),
        ("split(r0, 2); reorder(r0.o, i1)", "output loop i1 inside a reduce loop"),
        ("reorder(i0, r0, i1); cache_write(r0)", "cache_write(r0) is at a reduce loop"),
        ("cache_write(x)", "no loop 'x'"),
    ],
)
def test_loop_nest_errors(text: str, needle: str) -> None:
    with pytest.raises(LaminaError) as info:
        _nest(text)
    assert needle in str(info.value)


def test_loop_nest_structure() -> None:
    nest = _nest(
        "split(i1, 5); reorder(i0, i1.o, r0, i1.i); cache_write(i1.o); vectorize(i1.i)"
    )
    assert [lp.var.name for lp in nest.loops] == ["i0", "i1.o", "r0", "i1.i"]
    assert [lp.var.extent for lp in nest.loops] == [8, 4, 4, 5]
    assert [lp.reduce for lp in nest.loops] == [False, False, True, False]
    assert nest.loops[-1].kind == ForKind.VECTORIZED
    assert nest.cache_at == "i1.o"
    # 16 = 3*5 + 1: the split needs a guard `i1.o*5 + i1.i < 16`
    assert len(nest.guards) == 1 and nest.guards[0][1] == 16
    assert str(nest.axes["i1"].substitute({})) == str(nest.guards[0][0])
    # fusing and splitting again: the original axes are divisions of the fused loop
    fused = _nest("fuse(i0, i1); split(i0.i1, 32)")
    assert [lp.var.extent for lp in fused.loops] == [4, 32, 4]
    assert not fused.guards  # 128 = 4 * 32
    assert fused.axes["i0"].uses(fused.loops[0].var)
    # a factor larger than the extent: one outer iteration, no guard
    big = _nest("split(i0, 100)")
    assert [lp.var.extent for lp in big.loops[:2]] == [1, 8] and not big.guards


def test_default_schedules_are_valid() -> None:
    """The defaults parse back from their text and pass `check()`."""
    lanes = injective((3, 1000)).steps
    cases = [
        (gemm((64, 48), 0, (1,)), (64, 48), (32,)),
        (gemm((2, 10, 7), 1, (2,), nreduce=1), (2, 10, 7), (5,)),
        (gemm((3, 5, 6, 7), 1, (2, 3)), (3, 5, 6, 7), (9,)),
        (injective((3, 1000)), (3, 1000), ()),
        (injective((3,)), (3,), ()),
        (reduction((64, 64), (64,)), (64, 64), (64,)),
        (reduction((2,), (3,)), (2,), (3,)),
    ]
    assert any(isinstance(s, Annotate) and s.kind == ForKind.VECTORIZED for s in lanes)
    for sched, ext, red in cases:
        assert Schedule.parse(str(sched)) == sched
        LoopNest.of(ext, red).apply(sched).check()


# ------------------------------------------------------------------ kernels
_NP = {"f32": np.float32, "f64": np.float64, "i32": np.int32}


def _ops(t: str) -> tuple[str, str, str]:
    """mul, add and max ops for an element type."""
    if t == "i32":
        return "arith.muli", "arith.addi", "arith.maxsi"
    return "arith.mulf", "arith.addf", "arith.maximumf"


def _tensor(shape: Sequence[int], t: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{t}>"


def _attr(schedule: str | None) -> str:
    return "" if schedule is None else f' attributes {{schedule = "{schedule}"}}'


def matmul_te(
    name: str, m: int, n: int, k: int, t: str, schedule: str | None, relu: bool
) -> str:
    """`C = A @ B` (then `max(C, 0)` when `relu`: the reduction's epilogue)."""
    mul, _, mx = _ops(t)
    a, b, c = _tensor((m, k), t), _tensor((k, n), t), _tensor((m, n), t)
    zero = "0" if t == "i32" else "0.0"
    out = "%C"
    epilogue = ""
    if relu:
        out = "%D"
        epilogue = f"""
  %D = te.compute (%p, %q) : {c} {{
    %v = te.read %C[%p, %q] : {c}
    %z = arith.constant {zero} : {t}
    %r = {mx} %v, %z : {t}
    te.yield %r : {t}
  }}"""
    return f"""
te.func @{name} {{
  %A = te.placeholder "A" : {a}
  %B = te.placeholder "B" : {b}
  %C = te.compute (%i, %j) reduce sum (%k) [{k}]{_attr(schedule)} : {c} {{
    %x = te.read %A[%i, %k] : {a}
    %y = te.read %B[%k, %j] : {b}
    %m = {mul} %x, %y : {t}
    te.yield %m : {t}
  }}{epilogue}
  te.output {out} : {c}
}}"""


def elementwise_te(
    name: str, m: int, n: int, t: str, schedule: str | None, transposed: bool
) -> str:
    """`out[i, j] = A[i, j] * A[i, j] + B[j] + T[j, i]` (a broadcast and a transposed
    read, which vectorized loops cannot load contiguously), or `+ A[i, j]` instead of
    `T[j, i]` when not `transposed`."""
    mul, add, _ = _ops(t)
    w = "%T[%j, %i]" if transposed else "%A[%i, %j]"
    a, b, tt = _tensor((m, n), t), _tensor((n,), t), _tensor((n, m), t)
    return f"""
te.func @{name} {{
  %A = te.placeholder "A" : {a}
  %B = te.placeholder "B" : {b}
  %T = te.placeholder "T" : {tt}
  %S = te.compute (%i, %j){_attr(schedule)} : {a} {{
    %x = te.read %A[%i, %j] : {a}
    %y = te.read %B[%j] : {b}
    %w = te.read {w} : {tt if transposed else a}
    %m = {mul} %x, %x : {t}
    %s = {add} %m, %y : {t}
    %r = {add} %s, %w : {t}
    te.yield %r : {t}
  }}
  te.output %S : {a}
}}"""


def reduce_te(
    name: str, m: int, n: int, t: str, kind: str, axis: int, schedule: str | None
) -> str:
    """`out[i] = reduce_k A[i, k]` (axis 1) or `reduce_k A[k, i]` (axis 0)."""
    a = _tensor((m, n), t)
    out_n, red_n = (m, n) if axis == 1 else (n, m)
    read = "%i, %k" if axis == 1 else "%k, %i"
    o = _tensor((out_n,), t)
    return f"""
te.func @{name} {{
  %A = te.placeholder "A" : {a}
  %R = te.compute (%i) reduce {kind} (%k) [{red_n}]{_attr(schedule)} : {o} {{
    %x = te.read %A[{read}] : {a}
    te.yield %x : {t}
  }}
  te.output %R : {o}
}}"""


def lower_te(text: str) -> ModuleOp:
    """TE kernels through lower-te-to-tir, tir-unroll and tir-vectorize."""
    module = parse(text)
    for p in (LowerTeToTirPass(), TirUnrollPass(), TirVectorizePass()):
        p.apply(Context(), module)
    return module


def vectorized_kernels(text: str) -> set[str]:
    """The kernels whose stores tir-vectorize made vector stores."""
    out = set()
    for kernel in lower_te(text).ops:
        if isinstance(kernel, tir.PrimFuncOp) and any(
            isinstance(op, tir.StoreOp | tir.MaskedStoreOp)
            and isinstance(op.value.type, VectorType)
            for op in kernel.walk()
        ):
            out.add(kernel.sym_name.data)
    return out


def compile_te(text: str | ModuleOp) -> NativeModule:
    """Lower TE kernels (or the `lower_te` of them) the way the standard
    pipeline does and JIT them."""
    module = lower_te(text) if isinstance(text, str) else text
    LowerTirToLlvmPass().apply(Context(), module)
    return jit_compile(module)


def call(native: NativeModule, name: str, *arrays: np.ndarray) -> None:
    proto = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * len(arrays))
    proto(native.address(name))(*[a.ctypes.data for a in arrays])


def rand(shape: Sequence[int], t: str, rng: np.random.Generator) -> np.ndarray:
    dt = np.dtype(_NP[t])
    if t == "i32":
        return aligned(rng.integers(-9, 10, size=shape).astype(dt), dt)
    return aligned(rng.standard_normal(shape).astype(dt), dt)


def out_buffer(shape: Sequence[int], t: str) -> np.ndarray:
    """An output buffer filled with garbage, so unwritten elements show."""
    buf = aligned_empty(tuple(shape), np.dtype(_NP[t]))
    buf[...] = 77
    return buf


def check(got: np.ndarray, want: np.ndarray, t: str, what: str) -> None:
    if t == "i32":
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        tol = 1e-4 if t == "f32" else 1e-10
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)


def divisor(k: int) -> int:
    """The smallest factor of `k` in 2..5, else `k`: a reduce split that divides
    (non-dividing reduce splits: see `test_non_dividing_reduce_split`)."""
    return next((d for d in (2, 3, 4, 5) if k % d == 0), k)


MATMUL_SCHEDULES = [
    None,  # the default for a reduction without a schedule
    "",
    "split(i0, 3)",
    "split(r0, {rk})",
    "split(r0, {rk}); reorder(i0, i1, r0.i, r0.o)",
    "split(i0, 3); split(i1, 5); reorder(i0.o, i1.o, i0.i, i1.i); parallel(i0.o)",
    "fuse(i0, i1)",
    "fuse(i0, i1); split(i0.i1, 4); parallel(i0.i1.o); unroll(i0.i1.i)",
    "reorder(i1, i0); unroll(r0)",
    "cache_write(i1)",
    "split(r0, {rk}); reorder(i0, r0.o, i1, r0.i); cache_write(i0)",
    "split(i1, 4); reorder(i0, i1.o, r0, i1.i); cache_write(i1.o); vectorize(i1.i)",
    "tile(i0, i1, 3, 4); reorder(i0.o, i1.o, r0, i0.i, i1.i); cache_write(i1.o); "
    "unroll(i0.i); vectorize(i1.i); parallel(i0.o)",
    "tile(i0, i1, 2, 8); reorder(i1.o, i0.o, r0, i0.i, i1.i); fuse(i1.o, i0.o); "
    "cache_write(i1.o.i0.o); unroll(i0.i); vectorize(i1.i); parallel(i1.o.i0.o)",
    "split(i1, 16); split(r0, {rk}); reorder(i1.o, i0, r0.o, r0.i, i1.i); cache_write(i0); "
    "unroll(r0.i); vectorize(i1.i)",
    "fuse(i0, i1); split(i0.i1, 8); reorder(i0.i1.o, r0, i0.i1.i); cache_write(i0.i1.o); "
    "vectorize(i0.i1.i)",
    "split(i0, 100); split(i1, 64); reorder(i0.o, i1.o, r0, i0.i, i1.i); "
    "cache_write(i1.o); vectorize(i1.i)",
    # K blocks (reduce loops outside cache_write): partial results written back
    # between blocks, the epilogue after the last one only
    "split(i0, 3); split(i1, 4); split(r0, {rk}); reorder(i1.o, r0.o, i0.o, r0.i, i0.i, i1.i); "
    "cache_write(i0.o); unroll(i0.i); vectorize(i1.i)",
    "split(i0, 3); split(i1, 4); split(r0, 2); reorder(r0.o, i0.o, i1.o, r0.i, i0.i, i1.i); "
    "cache_write(i1.o); unroll(i0.i); vectorize(i1.i); parallel(i0.o)",
    "split(r0, {rk}); split(r0.o, 2); reorder(r0.o.o, i0, r0.o.i, i1, r0.i); cache_write(i1)",
]


@pytest.mark.parametrize(
    ("m", "n", "k", "t"),
    [
        (7, 13, 5, "f32"),
        (6, 16, 8, "f32"),
        (5, 9, 3, "f64"),
        (9, 11, 4, "i32"),
        (1, 3, 1, "f32"),
    ],
)
def test_matmul_schedules(m: int, n: int, k: int, t: str) -> None:
    """Every schedule of a (relu'd) matmul computes `A @ B`, divisible or not."""
    gemm_default = str(gemm((m, n), 0, (1,), elem_bits=64 if t == "f64" else 32))
    rk = divisor(k)
    schedules = [
        *(s if s is None else s.format(rk=rk) for s in MATMUL_SCHEDULES),
        gemm_default,
    ]
    text = "\n".join(
        matmul_te(f"mm{s}_{r}", m, n, k, t, sched, bool(r))
        for s, sched in enumerate(schedules)
        for r in range(2)
    )
    native = compile_te(text)
    rng = np.random.default_rng(m * 100 + n)
    a, b = rand((m, k), t, rng), rand((k, n), t, rng)
    want = a.astype(np.float64) @ b.astype(np.float64)
    for s, sched in enumerate(schedules):
        for r in range(2):
            out = out_buffer((m, n), t)
            call(native, f"mm{s}_{r}", a, b, out)
            check(out, np.maximum(want, 0) if r else want, t, f"{sched!r} relu={r}")


ELEMENTWISE_SCHEDULES = [
    None,  # the injective default
    "",
    "reorder(i1, i0)",
    "split(i1, 4); vectorize(i1.i)",
    "split(i1, 8); vectorize(i1.i); parallel(i0)",
    "split(i1, 3); unroll(i1.i)",
    "fuse(i0, i1); split(i0.i1, 4); vectorize(i0.i1.i); parallel(i0.i1.o)",
    "tile(i0, i1, 2, 4); unroll(i0.i); vectorize(i1.i)",
    "split(i0, 2); split(i1, 5); reorder(i1.o, i0.o, i0.i, i1.i); fuse(i1.o, i0.o); "
    "parallel(i1.o.i0.o); vectorize(i1.i)",
    "split(i1, 64); vectorize(i1.i)",
    "split(i0, 4); reorder(i1, i0.o, i0.i); vectorize(i0.i)",  # a strided lane: demoted
    "split(i0, 3); unroll(i0.i); unroll(i1)",
]


@pytest.mark.parametrize(
    ("m", "n", "t"), [(5, 13, "f32"), (4, 16, "f32"), (3, 7, "f64"), (6, 10, "i32")]
)
def test_elementwise_schedules(m: int, n: int, t: str) -> None:
    text = "\n".join(
        elementwise_te(f"ew{s}_{tr}", m, n, t, sched, bool(tr))
        for s, sched in enumerate(ELEMENTWISE_SCHEDULES)
        for tr in range(2)
    )
    # contiguous lanes become vector code (with masked tails where needed)
    vec = vectorized_kernels(text)
    assert {"ew8_0", "ew9_0"} <= vec  # tiles that divide the shape: no mask
    if t != "i32":  # tir-vectorize masks float stores only (the rest stay serial)
        assert {"ew3_0", "ew4_0", "ew7_0"} <= vec
    # the transposed read: gathered lane by lane where no lane is masked off
    assert "ew9_1" in vec
    if n % 4:
        assert "ew3_1" not in vec  # 4 lanes over n: a masked gather, demoted
    assert "ew10_0" not in vec  # a lane along rows: strided, demoted
    # fused: B[j] reads B[(f + lane) % n]: contiguous when the 4 lanes cannot
    # cross a multiple of n (one quotient), else a gather
    assert ("ew6_0" in vec) == (n % 4 == 0)
    native = compile_te(text)
    rng = np.random.default_rng(m * 10 + n)
    a, b, tt = rand((m, n), t, rng), rand((n,), t, rng), rand((n, m), t, rng)
    for s, sched in enumerate(ELEMENTWISE_SCHEDULES):
        for tr in range(2):
            out = out_buffer((m, n), t)
            call(native, f"ew{s}_{tr}", a, b, tt, out)
            check(out, a * a + b + (tt.T if tr else a), t, f"{sched!r} transposed={tr}")


REDUCE_SCHEDULES = [
    None,
    "split(r0, {rk})",
    "split(r0, {rk}); unroll(r0.i)",
    "split(i0, 3); parallel(i0.o)",
    "split(i0, 4); reorder(i0.o, r0, i0.i); cache_write(i0.o); vectorize(i0.i)",
    "split(i0, 4); split(r0, {rk}); reorder(i0.o, r0.o, r0.i, i0.i); cache_write(i0.o); "
    "unroll(r0.i); vectorize(i0.i); parallel(i0.o)",
    "cache_write(i0); unroll(r0)",
]


@pytest.mark.parametrize(
    ("m", "n", "t", "kind", "axis"),
    [
        (6, 9, "f32", "sum", 1),
        (7, 10, "f32", "sum", 0),
        (5, 11, "f64", "max", 0),
        (9, 6, "i32", "max", 1),
        (10, 5, "i32", "min", 0),
        (4, 7, "f32", "prod", 0),
    ],
)
def test_reduction_schedules(m: int, n: int, t: str, kind: str, axis: int) -> None:
    rk = divisor(n if axis == 1 else m)
    schedules = [s if s is None else s.format(rk=rk) for s in REDUCE_SCHEDULES]
    text = "\n".join(
        reduce_te(f"red{s}", m, n, t, kind, axis, sched)
        for s, sched in enumerate(schedules)
    )
    native = compile_te(text)
    rng = np.random.default_rng(m + n)
    a = rand((m, n), t, rng)
    if kind == "prod":
        a[...] = rng.uniform(0.5, 1.5, size=a.shape)
    want = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}[kind](
        a, axis=axis
    )
    for s, sched in enumerate(schedules):
        out = out_buffer(want.shape, t)
        call(native, f"red{s}", a, out)
        check(out, want, t, f"{kind} axis {axis} {sched!r}")


def test_bad_schedule_attribute_is_a_lowering_error() -> None:
    text = matmul_te("mm", 4, 4, 4, "f32", "vectorize(i0)", False)
    with pytest.raises(
        LoweringError, match="only the innermost loop can be vectorized"
    ):
        compile_te(text)
    text = matmul_te("mm", 4, 4, 4, "f32", "split(j, 2)", False)
    with pytest.raises(LoweringError, match="no loop 'j'"):
        compile_te(text)


def test_parallel_threads_agree() -> None:
    """A parallel schedule gives the same bits with 1 and 2 threads, and matches numpy."""
    sched = (
        "tile(i0, i1, 3, 8); reorder(i0.o, i1.o, r0, i0.i, i1.i); fuse(i0.o, i1.o); "
        "cache_write(i0.o.i1.o); unroll(i0.i); vectorize(i1.i); parallel(i0.o.i1.o)"
    )
    m, n, k = 23, 37, 19
    native = compile_te(matmul_te("mm", m, n, k, "f32", sched, True))
    rng = np.random.default_rng(5)
    a, b = rand((m, k), "f32", rng), rand((k, n), "f32", rng)
    outs = []
    try:
        for threads in (1, 2, 1, 2):
            set_num_threads(threads)
            out = out_buffer((m, n), "f32")
            call(native, "mm", a, b, out)
            outs.append(out.copy())
    finally:
        set_num_threads(1)
    for o in outs[1:]:
        np.testing.assert_array_equal(o, outs[0])
    check(outs[0], np.maximum(a @ b, 0), "f32", sched)


@pytest.mark.parametrize(
    "sched",
    [
        "split(r0, 2)",
        "split(r0, 2); cache_write(i1)",
        "split(i1, 4); split(r0, 2); reorder(i0, i1.o, r0.o, r0.i, i1.i); cache_write(i1.o); "
        "vectorize(i1.i)",
    ],
)
def test_non_dividing_reduce_split(sched: str) -> None:
    """K = 5 split by 2: the padded reduce point must be skipped."""
    native = compile_te(matmul_te("mm", 3, 4, 5, "f32", sched, False))
    rng = np.random.default_rng(0)
    a, b = rand((3, 5), "f32", rng), rand((5, 4), "f32", rng)
    out = out_buffer((3, 4), "f32")
    call(native, "mm", a, b, out)
    check(out, a @ b, "f32", sched)


@pytest.mark.parametrize(
    ("a_shape", "n"),
    [((197, 1, 24), 37), ((3, 5, 11), 29), ((1, 13, 7), 16), ((2, 3, 1, 5), 33), ((7, 1, 1), 1)],
)
def test_batched_rows_with_a_2d_right_operand_are_one_gemm(a_shape: tuple[int, ...], n: int) -> None:
    """`[B..., M, K] x [K, N]`: the weight is shared by every batch, so the batch
    axes are fused into the GEMM's rows (a batch of one-row products is tiled as
    one GEMM); odd sizes leave tails in both tilings."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    import lamina
    from lamina.passes import PassContext
    from lamina.pipelines import lower_to

    rng = np.random.default_rng(0)
    w = rng.standard_normal((a_shape[-1], n)).astype(np.float32)
    out_shape = [*a_shape[:-1], n]
    g = helper.make_graph(
        [helper.make_node("MatMul", ["a", "w"], ["c"])], "g",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, list(a_shape))],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, out_shape)],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    te = lower_to(lamina.from_onnx(model), "te", PassContext(opt_level=3))
    (sched,) = [op.attributes["schedule"].data for op in te.walk() if "schedule" in op.attributes]
    assert sched.startswith("fuse(i0, i1)"), sched
    a = rng.standard_normal(a_shape).astype(np.float32)
    for threads in (1, 2):
        got = lamina.compile(model, num_threads=threads).run(a)[0]
        np.testing.assert_allclose(got, a @ w, rtol=1e-5, atol=1e-5)


def dense_pack_te(name: str, rows: int, k: int, panels: int, nb: int, schedule: str) -> str:
    """`C[i, n] = sum(k) A[i, k] * W[n / nb, k, n % nb]`: a product by a weight
    packed in column panels (`relay.dense_pack`'s compute)."""
    a, w, c = _tensor((rows, k), "f32"), _tensor((panels, k, nb), "f32"), _tensor((rows, panels * nb), "f32")
    return f"""
te.func @{name} {{
  %A = te.placeholder "A" : {a}
  %W = te.placeholder "W" : {w}
  %C = te.compute (%i, %n) reduce sum (%k) [{k}]{_attr(schedule)} : {c} {{
    %nb = arith.constant {nb} : index
    %p = arith.divui %n, %nb : index
    %j = arith.remui %n, %nb : index
    %x = te.read %A[%i, %k] : {a}
    %y = te.read %W[%p, %k, %j] : {w}
    %m = arith.mulf %x, %y : f32
    te.yield %m : f32
  }}
  te.output %C : {c}
}}"""


def test_gemm_space_of_a_packed_weight_computes_the_product() -> None:
    """Points of the gemm space over a packed weight (register tiles of whole
    panels, column blocks, K blocks, unrolled reduce steps; 13 rows leave a
    tail) each compute `A @ W`, and the tile's weight reads are contiguous
    vectors."""
    nb = Target.host().lanes(32)
    rows, k, panels = 13, 128, 6
    call_ = TemplateCall("gemm", gemm, GemmKnobs, ((rows, panels * nb), 0, (1,), 32, 1, k, False, nb))
    space = call_.space()
    assert all(nr % nb == 0 for nr in space.choices["nr"]) and space.choices["kc"] == (0, 64)
    default = call_.default()
    points = [default, dataclasses.replace(default, kc=64), *random.Random(0).sample(list(space), 10)]
    text = "\n".join(dense_pack_te(f"dp{i}", rows, k, panels, nb, str(call_.render(p))) for i, p in enumerate(points))
    lowered = lower_te(text)
    for kernel in lowered.ops:
        weight = [
            op for op in kernel.walk()
            if isinstance(op, tir.LoadOp) and op.buffer == kernel.body.block.args[1]
        ]  # one vector from lane 0 of a panel each
        assert weight and all(
            isinstance(op.result.type, VectorType) and isinstance(op.indices[2].owner, arith.ConstantOp)
            and op.indices[2].owner.value.value.data == 0
            for op in weight
        ), kernel
    native = compile_te(lowered)
    rng = np.random.default_rng(0)
    a, w = rand((rows, k), "f32", rng), rand((k, panels * nb), "f32", rng)
    packed = aligned(np.ascontiguousarray(w.reshape(k, panels, nb).transpose(1, 0, 2)), np.dtype(np.float32))
    for i, p in enumerate(points):
        out = out_buffer((rows, panels * nb), "f32")
        call(native, f"dp{i}", a, packed, out)
        check(out, a @ w, "f32", str(p))
