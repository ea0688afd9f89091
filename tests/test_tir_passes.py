"""tir-unroll and tir-vectorize on hand-written TIR: the IR they produce (checked
structurally) and the numbers it computes (JIT-compiled, against numpy)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import ModuleOp, VectorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from lamina.codegen.jit import jit_compile
from lamina.dialects import tir
from lamina.dialects.tir import ForKind
from lamina.ir import parse
from lamina.lowering.tir_to_llvm import LowerTirToLlvmPass
from lamina.runtime.model import aligned, aligned_empty
from lamina.transforms.tir.unroll import TirUnrollPass
from lamina.transforms.tir.vectorize import TirVectorizePass


# ------------------------------------------------------------------ helpers
def run(text: str, *passes: ModulePass) -> ModuleOp:
    module = parse(text)
    for p in passes:
        p.apply(Context(), module)
    return module


def ops(module: ModuleOp, cls: type[Operation]) -> list[Operation]:
    return [op for op in module.walk() if isinstance(op, cls)]


def loop_kinds(module: ModuleOp) -> list[ForKind]:
    return [op.kind.data for op in module.walk() if isinstance(op, tir.ForOp)]


def vector_values(module: ModuleOp) -> bool:
    """Whether any op of the module produces a vector."""
    return any(
        isinstance(r.type, VectorType) for op in module.walk() for r in op.results
    )


def execute(module: ModuleOp, name: str, *arrays: np.ndarray) -> None:
    """Lower `module` to LLVM, JIT it and call kernel `name` on `arrays`."""
    LowerTirToLlvmPass().apply(Context(), module)
    native = jit_compile(module)
    proto = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * len(arrays))
    proto(native.address(name))(*[a.ctypes.data for a in arrays])


def f32(a: np.ndarray) -> np.ndarray:
    return aligned(np.asarray(a, np.float32), np.dtype(np.float32))


def empty(shape: tuple[int, ...], fill: float = -7.0) -> np.ndarray:
    out = aligned_empty(shape, np.dtype(np.float32))
    out[...] = fill
    return out


X = np.random.default_rng(0).standard_normal(64).astype(np.float32)

# ------------------------------------------------------------------ tir-unroll
UNROLL = """
tir.prim_func @k(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tir.for unrolled %i = %c0 to %c4 step %c1 {
    tir.for serial %j = %c0 to %c8 step %c1 {
      %v = tir.load %x[%i, %j] : memref<4x8xf32>
      %d = arith.mulf %v, %v : f32
      tir.store %d, %y[%i, %j] : memref<4x8xf32>
    }
  }
  tir.return
}
"""


def test_unroll_copies_the_body_with_constant_indices() -> None:
    m = run(UNROLL, TirUnrollPass())
    assert loop_kinds(m) == [ForKind.SERIAL] * 4  # the inner loop, copied 4 times
    firsts = [loop.lb for loop in ops(m, tir.ForOp)]
    assert len({id(v) for v in firsts}) == 1  # the copies share the outer constants
    stores = ops(m, tir.StoreOp)
    rows = [s.indices[0].owner for s in stores]  # type: ignore[attr-defined]
    assert all(isinstance(r, arith.ConstantOp) for r in rows)
    assert [r.value.value.data for r in rows] == [0, 1, 2, 3]  # type: ignore[attr-defined]
    x = f32(X[:32].reshape(4, 8))
    y = empty((4, 8))
    execute(m, "k", x, y)
    np.testing.assert_array_equal(y, x * x)


def test_unroll_bounds_and_step() -> None:
    text = """
tir.prim_func @k(%y: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %one = arith.constant 1.0 : f32
  tir.for unrolled %i = %c1 to %c7 step %c2 {
    tir.store %one, %y[%i] : memref<8xf32>
  }
  tir.return
}"""
    m = run(text, TirUnrollPass())
    assert not ops(m, tir.ForOp)
    idx = [s.indices[0].owner.value.value.data for s in ops(m, tir.StoreOp)]  # type: ignore[attr-defined]
    assert idx == [1, 3, 5]
    y = empty((8,), 0.0)
    execute(m, "k", y)
    np.testing.assert_array_equal(y, [0, 1, 0, 1, 0, 1, 0, 0])


def test_unroll_demotes_large_and_non_constant_loops() -> None:
    # more iterations than max_copies: stays a loop, now serial
    m = run(UNROLL, TirUnrollPass(max_copies=3))
    assert loop_kinds(m) == [ForKind.SERIAL, ForKind.SERIAL]
    assert len(ops(m, tir.StoreOp)) == 1
    # the default limit (64) unrolls 4 x 8 = 32 copies of a doubly unrolled nest
    both = run(UNROLL.replace("serial", "unrolled"), TirUnrollPass())
    assert not ops(both, tir.ForOp) and len(ops(both, tir.StoreOp)) == 32
    # a triangular inner loop: its bound is the outer variable, not a constant
    tri = """
tir.prim_func @k(%y: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  tir.for serial %i = %c0 to %c4 step %c1 {
    tir.for unrolled %j = %c0 to %i step %c1 {
      tir.store %one, %y[%i, %j] : memref<4x4xf32>
    }
  }
  tir.return
}"""
    m = run(tri, TirUnrollPass())
    assert loop_kinds(m) == [ForKind.SERIAL, ForKind.SERIAL]
    y = empty((4, 4), 0.0)
    execute(m, "k", y)
    np.testing.assert_array_equal(y, np.tril(np.ones((4, 4)), -1))


# ------------------------------------------------------------------ tir-vectorize
def vec_kernel(body: str, n: int = 16, lanes: int = 4, outer: int | None = None) -> str:
    """`%o` over `outer` blocks of a `vectorized %l` loop of `lanes` lanes, with
    `%j = %o * lanes + %l`; buffers x, y of n floats and a 4x4 t."""
    outer = -(-n // lanes) if outer is None else outer
    return f"""
tir.prim_func @k(%x: memref<{n}xf32>, %t: memref<4x4xf32>, %y: memref<{n}xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cl = arith.constant {lanes} : index
  %co = arith.constant {outer} : index
  %cn = arith.constant {n} : index
  tir.for serial %o = %c0 to %co step %c1 {{
    tir.for vectorized %l = %c0 to %cl step %c1 {{
      %b = arith.muli %o, %cl : index
      %j = arith.addi %b, %l : index
{body}
    }}
  }}
  tir.return
}}"""


CONTIGUOUS = """
      %v = tir.load %x[%j] : memref<16xf32>
      %e = math.exp %v : f32
      %s = arith.addf %v, %e : f32
      tir.store %s, %y[%j] : memref<16xf32>"""


def test_contiguous_accesses_become_vector_ops() -> None:
    m = run(vec_kernel(CONTIGUOUS), TirVectorizePass())
    assert loop_kinds(m) == [ForKind.SERIAL]  # only the outer loop is left
    (load,) = ops(m, tir.LoadOp)
    assert load.result.type == VectorType(load.result.type.get_element_type(), [4])  # type: ignore[attr-defined]
    (store,) = ops(m, tir.StoreOp)
    assert isinstance(store.value.type, VectorType)  # type: ignore[attr-defined]
    assert not ops(m, tir.MaskedStoreOp)
    assert any(
        isinstance(op.results[0].type, VectorType) for op in ops(m, arith.AddfOp)
    )
    x, y = f32(X[:16]), empty((16,))
    execute(m, "k", x, empty((4, 4)), y)
    np.testing.assert_allclose(y, x + np.exp(x), rtol=1e-6)


TAIL = """
      %p = arith.cmpi slt, %j, %cn : index
      tir.if %p {
        %v = tir.load %x[%j] : memref<10xf32>
        %d = arith.addf %v, %v : f32
        tir.store %d, %y[%j] : memref<10xf32>
      }"""


def test_lane_dependent_guard_becomes_a_masked_store() -> None:
    """Whole vectors store without a mask; the partial one under a lane mask."""
    m = run(vec_kernel(TAIL, n=10), TirVectorizePass())
    (branch,) = ops(m, tir.IfOp)  # every lane inside, or not
    assert not isinstance(branch.cond.type, VectorType)  # type: ignore[attr-defined]
    whole, partial = branch.then_region.block, branch.else_region.block  # type: ignore[union-attr]
    (store,) = [op for op in whole.walk() if isinstance(op, tir.StoreOp)]
    assert isinstance(store.value.type, VectorType)  # type: ignore[attr-defined]
    assert not [op for op in whole.walk() if isinstance(op, tir.MaskedStoreOp)]
    (masked,) = [op for op in partial.walk() if isinstance(op, tir.MaskedStoreOp)]
    mask_t = masked.mask.type
    assert isinstance(mask_t, VectorType) and mask_t.get_shape() == (4,)
    assert not [op for op in partial.walk() if isinstance(op, tir.StoreOp)]
    x, y = f32(X[:10]), empty((10,))
    execute(m, "k", x, empty((4, 4)), y)
    np.testing.assert_array_equal(y, 2 * x)  # nothing written past the end either


def test_masked_store_to_a_local_buffer_is_plain() -> None:
    """Extra lanes of a local buffer are never read: no mask needed."""
    body = """
      %p = arith.cmpi slt, %j, %cn : index
      tir.if %p {
        %v = tir.load %x[%j] : memref<10xf32>
        tir.store %v, %acc[%j] : memref<12xf32>
      }"""
    text = vec_kernel(body, n=10).replace(
        "tir.for serial %o",
        "%acc = tir.alloc local : memref<12xf32>\n  tir.for serial %o",
    )
    m = run(text, TirVectorizePass())
    assert not ops(m, tir.MaskedStoreOp)
    (store,) = ops(m, tir.StoreOp)
    assert isinstance(store.value.type, VectorType)  # type: ignore[attr-defined]


def test_uniform_if_stays_a_branch() -> None:
    body = """
      %p = arith.cmpi slt, %o, %c2 : index
      tir.if %p {
        %v = tir.load %x[%j] : memref<16xf32>
        %d = arith.mulf %v, %v : f32
        tir.store %d, %y[%j] : memref<16xf32>
      }"""
    m = run(vec_kernel(body), TirVectorizePass())
    (branch,) = ops(m, tir.IfOp)
    assert not isinstance(branch.cond.type, VectorType)  # type: ignore[attr-defined]
    inner = [op for op in branch.walk() if isinstance(op, tir.StoreOp)]
    assert len(inner) == 1 and isinstance(inner[0].value.type, VectorType)
    assert loop_kinds(m) == [ForKind.SERIAL]
    x, y = f32(X[:16]), empty((16,))
    execute(m, "k", x, empty((4, 4)), y)
    np.testing.assert_array_equal(y, np.where(np.arange(16) < 8, x * x, -7.0))


@pytest.mark.parametrize("stride", [2, 3, 4])
def test_small_strides_are_one_wide_load_and_a_shuffle(stride: int) -> None:
    body = f"""
      %s = arith.constant {stride} : index
      %i = arith.muli %j, %s : index
      %v = tir.load %x[%i] : memref<64xf32>
      tir.store %v, %y[%j] : memref<64xf32>"""
    m = run(vec_kernel(body, n=64, outer=16 // stride), TirVectorizePass())
    assert ForKind.VECTORIZED not in loop_kinds(m)
    assert len(ops(m, vector.ShuffleOp)) == 1
    x, t, y = f32(np.arange(64)), f32(X[16:32].reshape(4, 4)), empty((64,))
    execute(m, "k", x, t, y)
    n = 4 * (16 // stride)
    np.testing.assert_array_equal(y[:n], x[: stride * n : stride])


@pytest.mark.parametrize(("lo", "hi"), [(0, 9), (0, None), (None, 9), (3, 5)])
def test_clamped_loads_are_masked_and_read_the_edges(lo: int | None, hi: int | None) -> None:
    """`x[clamp(j + shift, lo, hi)]`: a masked load whose lanes outside the
    bounds read the edge elements, exactly as the clamp does (pad mode=edge)."""
    shift = 2 if lo is None else -2  # an unbounded side stays inside the buffer
    lines = [f"%sh = arith.constant {shift} : index", "%i = arith.addi %j, %sh : index"]
    index = "%i"
    if lo is not None:
        lines += [f"%lo = arith.constant {lo} : index", f"%ilo = arith.maxsi {index}, %lo : index"]
        index = "%ilo"
    if hi is not None:
        lines += [f"%hi = arith.constant {hi} : index", f"%ihi = arith.minsi {index}, %hi : index"]
        index = "%ihi"
    lines += [f"%v = tir.load %x[{index}] : memref<16xf32>", "tir.store %v, %y[%j] : memref<16xf32>"]
    m = run(vec_kernel("\n".join("      " + line for line in lines)), TirVectorizePass())
    assert ForKind.VECTORIZED not in loop_kinds(m)
    assert len(ops(m, tir.MaskedLoadOp)) == 1
    x, t, y = f32(X[:16]), f32(X[16:32].reshape(4, 4)), empty((16,))
    execute(m, "k", x, t, y)
    np.testing.assert_array_equal(y, x[np.clip(np.arange(16) + shift, lo, hi)])


@pytest.mark.parametrize(
    ("body", "what"),
    [
        (
            """
      %v = tir.load %t[%l, %o] : memref<4x4xf32>
      tir.store %v, %y[%j] : memref<16xf32>""",
            "gather",
        ),
        (
            """
      %c5 = arith.constant 5 : index
      %l5 = arith.muli %l, %c5 : index
      %v = tir.load %x[%l5] : memref<16xf32>
      tir.store %v, %y[%j] : memref<16xf32>""",
            "strided",
        ),
    ],
)
def test_transposed_and_wide_strided_loads_are_gathered(body: str, what: str) -> None:
    """A load whose lane moves along an outer axis, or by more than
    MAX_LOAD_STRIDE: one scalar load per lane into a vector, the rest vector ops."""
    m = run(vec_kernel(body), TirVectorizePass())
    assert ForKind.VECTORIZED not in loop_kinds(m), what
    assert len(ops(m, vector.InsertOp)) == 3, what  # lanes 1..3 (lane 0: a broadcast)
    x, t, y = f32(X[:16]), f32(X[16:32].reshape(4, 4)), empty((16,))
    execute(m, "k", x, t, y)
    lanes = np.arange(4)
    want = t[lanes, :].T.reshape(16) if what == "gather" else np.tile(x[5 * lanes], 4)
    np.testing.assert_array_equal(y, want)


def test_lane_dependent_scalar_store_is_demoted_to_serial() -> None:
    body = """
      %v = tir.load %x[%j] : memref<16xf32>
      tir.store %v, %y[%o] : memref<16xf32>"""
    m = run(vec_kernel(body), TirVectorizePass())
    assert loop_kinds(m) == [ForKind.SERIAL, ForKind.SERIAL]
    assert not vector_values(m)
    assert not ops(m, vector.BroadcastOp)
    x, t, y = f32(X[:16]), f32(X[16:32].reshape(4, 4)), empty((16,))
    execute(m, "k", x, t, y)
    want = np.full(16, -7.0, np.float32)
    for o in range(4):
        want[o] = x[o * 4 + 3]
    np.testing.assert_array_equal(y, want)


def test_loop_of_other_length_or_bounds_is_serial() -> None:
    """Non-constant bounds cannot be vectorized."""
    text = """
tir.prim_func @k(%y: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  tir.for serial %i = %c0 to %c4 step %c1 {
    tir.for vectorized %j = %c0 to %i step %c1 {
      tir.store %one, %y[%i, %j] : memref<4x4xf32>
    }
  }
  tir.return
}"""
    m = run(text, TirVectorizePass())
    assert loop_kinds(m) == [ForKind.SERIAL, ForKind.SERIAL]
    y = empty((4, 4), 0.0)
    execute(m, "k", y)
    np.testing.assert_array_equal(y, np.tril(np.ones((4, 4)), -1))


def test_unroll_then_vectorize_register_tile() -> None:
    """An unrolled loop around a vectorized one: straight-line vector code."""
    text = """
tir.prim_func @k(%x: memref<3x8xf32>, %y: memref<3x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  tir.for unrolled %i = %c0 to %c3 step %c1 {
    tir.for vectorized %j = %c0 to %c8 step %c1 {
      %v = tir.load %x[%i, %j] : memref<3x8xf32>
      %n = arith.negf %v : f32
      tir.store %n, %y[%i, %j] : memref<3x8xf32>
    }
  }
  tir.return
}"""
    m = run(text, TirUnrollPass(), TirVectorizePass())
    assert not ops(m, tir.ForOp)
    stores = ops(m, tir.StoreOp)
    assert len(stores) == 3
    assert all(
        s.value.type == VectorType(s.value.type.get_element_type(), [8]) for s in stores
    )  # type: ignore[attr-defined]
    x, y = f32(X[:24].reshape(3, 8)), empty((3, 8))
    execute(m, "k", x, y)
    np.testing.assert_array_equal(y, -x)


def test_vectorized_masks_verify() -> None:
    """Lane masks are `tir.vector_cmp` (vector<Nxi1>), so the output verifies."""
    m = run(vec_kernel(TAIL, n=10), TirVectorizePass())
    m.verify()
