"""fold-constant: numpy evaluation of constant graph ops, checked against the
compiled kernels of the same ops."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    TensorType,
)
from xdsl.irdl import irdl_op_definition

import lamina
from lamina import passes as manager
from lamina.dialects import relay
from lamina.dialects.constants import constant_data
from lamina.dialects.dtypes import element_type
from lamina.dialects.relay.constant import INLINE_LIMIT, make_constant
from lamina.transforms.graph.fold_constant import EVALUATORS, fold_constants

rng = np.random.default_rng(0)


def ttype(shape, dtype) -> str:
    dims = "x".join(map(str, shape))
    elem = str(element_type(np.dtype(dtype)))
    return f"tensor<{dims}x{elem}>" if dims else f"tensor<{elem}>"


def dense_literal(a: np.ndarray) -> str:
    def fmt(v):
        return repr(float(v)) if a.dtype.kind == "f" else str(int(v))

    def rec(x):
        if x.ndim == 0:
            return fmt(x)
        return "[" + ", ".join(rec(e) for e in x) + "]"

    return f"dense<{rec(a)}> : {ttype(a.shape, a.dtype)}"


def op_text(op: str, operands: list[str], in_types: list[str], out: str, attrs: str) -> str:
    return (
        f"%r = relay.{op} {', '.join(operands)} {attrs} : "
        f"({', '.join(in_types)}) -> {out}"
    )


CASES = [
    ("add", [(2, 3), (3,)], np.float32, ""),
    ("subtract", [(2, 3), (2, 1)], np.float32, ""),
    ("multiply", [(4,), (4,)], np.int32, ""),
    ("divide", [(2, 3), (2, 3)], np.float32, ""),
    ("divide", [(6,), (6,)], np.int32, ""),
    ("relu", [(3, 4)], np.float32, ""),
    ("matmul", [(2, 3), (3, 4)], np.float32, ""),
    ("dense", [(2, 3), (4, 3), (4,)], np.float32, "{transpose_b, alpha = 0.5 : f64}"),
    ("softmax", [(2, 5)], np.float32, "{axis = 1 : i64}"),
    ("reshape", [(2, 3)], np.float32, "{shape = array<i64: 3, 2>}"),
    ("transpose", [(2, 3, 4)], np.float32, "{perm = array<i64: 2, 0, 1>}"),
]


def random(shape, dtype) -> np.ndarray:
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    a = rng.integers(-9, 10, shape).astype(dtype)
    return np.where(a == 0, 3, a).astype(dtype)


@pytest.mark.parametrize(("op", "shapes", "dtype", "attrs"), CASES, ids=lambda c: str(c))
def test_folding_agrees_with_the_compiled_op(op, shapes, dtype, attrs):
    arrays = [random(s, dtype) for s in shapes]
    types = [ttype(s, dtype) for s in shapes]
    names = [f"%a{i}" for i in range(len(arrays))]
    # The result type: let the parser infer it, from a module with arguments.
    args = ", ".join(f"{n}: {t}" for n, t in zip(names, types, strict=True))
    probe = lamina.parse(
        f"func.func @main({args}) {{\n"
        f"  %r = relay.{op} {', '.join(names)} {attrs} : ({', '.join(types)})\n"
        "  func.return\n}"
    )
    out = str(next(o for o in probe.walk() if o.name == f"relay.{op}").results[0].type)
    body = op_text(op, names, types, out, attrs)
    compiled = lamina.compile(
        lamina.parse(f"func.func @main({args}) -> {out} {{\n  {body}\n  func.return %r : {out}\n}}")
    )
    expected = compiled.run(*arrays)[0]

    consts = "\n".join(
        f"  {n} = relay.constant {dense_literal(a)}" for n, a in zip(names, arrays, strict=True)
    )
    folded = lamina.parse(
        f"func.func @main() -> {out} {{\n{consts}\n  {body}\n  func.return %r : {out}\n}}"
    )
    assert fold_constants(folded) == 1
    ops = [o for o in folded.walk() if o.name.startswith("relay.")]
    assert [o.name for o in ops] == ["relay.constant"]
    got = constant_data(ops[0])
    assert got is not None and got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_chains_fold_in_one_pass_and_dead_constants_go():
    m = lamina.parse("""
    func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %w = relay.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
      %t = relay.transpose %w {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %r = relay.reshape %t {shape = array<i64: 2, 3>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
      %two = relay.constant dense<2.0> : tensor<2x3xf32>
      %s = relay.multiply %r, %two : tensor<2x3xf32>
      %y = relay.add %x, %s : tensor<2x3xf32>
      func.return %y : tensor<2x3xf32>
    }""")
    assert fold_constants(m) == 3
    names = [o.name for o in m.walk() if o.name.startswith("relay.")]
    assert names == ["relay.constant", "relay.add"]
    const = next(o for o in m.walk() if isinstance(o, relay.ConstantOp))
    np.testing.assert_array_equal(constant_data(const), [[2, 8, 4], [10, 6, 12]])
    assert const.result.name_hint == "s"


def test_shared_constants_stay_for_their_other_users():
    m = lamina.parse("""
    func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %c = relay.constant dense<[1.0, -2.0, 3.0, -4.0]> : tensor<4xf32>
      %r = relay.relu %c : tensor<4xf32>
      %y = relay.add %x, %c : tensor<4xf32>
      func.return %r, %y : tensor<4xf32>, tensor<4xf32>
    }""")
    assert fold_constants(m) == 1
    assert [o.name for o in m.walk() if o.name.startswith("relay.")] == [
        "relay.constant",
        "relay.constant",
        "relay.add",
    ]


def test_integer_division_by_zero_is_not_folded():
    m = lamina.parse("""
    func.func @main() -> tensor<2xi32> {
      %a = relay.constant dense<[7, -7]> : tensor<2xi32>
      %b = relay.constant dense<[0, 2]> : tensor<2xi32>
      %q = relay.divide %a, %b : tensor<2xi32>
      func.return %q : tensor<2xi32>
    }""")
    assert fold_constants(m) == 0
    m2 = lamina.parse("""
    func.func @main() -> tensor<2xi32> {
      %a = relay.constant dense<[7, -7]> : tensor<2xi32>
      %b = relay.constant dense<[2, 2]> : tensor<2xi32>
      %q = relay.divide %a, %b : tensor<2xi32>
      func.return %q : tensor<2xi32>
    }""")
    assert fold_constants(m2) == 1
    const = next(o for o in m2.walk() if isinstance(o, relay.ConstantOp))
    np.testing.assert_array_equal(constant_data(const), [3, -3])  # toward zero


def test_inputs_are_not_folded():
    m = lamina.parse("""
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %r = relay.relu %x : tensor<4xf32>
      func.return %r : tensor<4xf32>
    }""")
    assert fold_constants(m) == 0


def test_results_of_symbolic_shape_are_not_folded():
    """A constant broadcast to a symbolic shape (zeros of a run-time batch) has no
    value while compiling: it stays an op."""
    m = lamina.parse("""
    func.func @main(%x: tensor<?x3xf32, ["b"]>) -> tensor<?x3xf32, ["b"]> {
      %z = relay.constant dense<0.0> : tensor<f32>
      %zeros = relay.broadcast_to %z {shape = ["b", 3]} : (tensor<f32>) -> tensor<?x3xf32, ["b"]>
      %r = relay.add %x, %zeros : tensor<?x3xf32, ["b"]>
      func.return %r : tensor<?x3xf32, ["b"]>
    }""")
    assert fold_constants(m) == 0
    assert any(isinstance(o, relay.BroadcastToOp) for o in m.walk())


def test_make_constant_forms():
    t = TensorType(element_type(np.float32), [64])
    splat = make_constant(np.full(64, 3.0, np.float32), t)
    assert isinstance(splat.value, DenseIntOrFPElementsAttr) and splat.value.is_splat()
    small_t = TensorType(element_type(np.float32), [INLINE_LIMIT])
    small = make_constant(np.arange(INLINE_LIMIT, dtype=np.float32), small_t)
    assert isinstance(small.value, DenseIntOrFPElementsAttr)
    big = make_constant(np.arange(64, dtype=np.float32), t, "big")
    assert isinstance(big.value, DenseResourceAttr)
    np.testing.assert_array_equal(constant_data(big), np.arange(64))
    nans = make_constant(np.full(64, np.nan, np.float32), t)
    assert isinstance(nans.value, DenseResourceAttr)


def test_large_results_become_blobs_and_compile():
    w = np.arange(64 * 32, dtype=np.float32).reshape(64, 32) / 1000
    m = lamina.parse(f"""
    func.func @main(%x: tensor<1x64xf32>) -> tensor<1x32xf32> {{
      %w = relay.constant {dense_literal(w.T.copy())}
      %t = relay.transpose %w {{perm = array<i64: 1, 0>}} : (tensor<32x64xf32>) -> tensor<64x32xf32>
      %y = relay.matmul %x, %t : (tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<1x32xf32>
      func.return %y : tensor<1x32xf32>
    }}""")
    assert fold_constants(m) == 1
    const = next(o for o in m.walk() if isinstance(o, relay.ConstantOp))
    assert isinstance(const.value, DenseResourceAttr)
    x = np.ones((1, 64), np.float32)
    np.testing.assert_allclose(lamina.compile(m).run(x)[0], x @ w, rtol=1e-5)


@irdl_op_definition
class NegateForTestOp(relay.UnaryOp):
    name = "test.negate"
    PATTERN: ClassVar[relay.OpPattern] = relay.OpPattern.ELEMWISE


def test_ops_without_an_evaluator_are_counted():
    assert "test.negate" not in EVALUATORS
    c = relay.ConstantOp(
        DenseIntOrFPElementsAttr.from_list(TensorType(element_type(np.float32), [2]), [1.0])
    )
    neg = NegateForTestOp(c)
    m = lamina.parse("func.func @main() {\n  func.return\n}")
    block = next(o for o in m.walk() if o.name == "func.func").regions[0].blocks.first
    block.insert_op_before(c, block.first_op)
    block.insert_op_after(neg, c)
    stats = manager.StatisticsInstrument()

    from dataclasses import dataclass

    from xdsl.passes import ModulePass

    @dataclass(frozen=True)
    class Fold(ModulePass):
        name = "fold-constant"

        def apply(self, ctx, op):
            fold_constants(op)

    manager.run_pipeline(m, [Fold()], manager.PassContext(instruments=[stats]))
    assert stats.records[0].counters == {"fold-constant.no-evaluator": 1}


def test_fold_constant_pass_runs_from_opt_level_1():
    src = """
    func.func @main() -> tensor<2xf32> {
      %a = relay.constant dense<[1.0, -1.0]> : tensor<2xf32>
      %r = relay.relu %a : tensor<2xf32>
      func.return %r : tensor<2xf32>
    }"""
    m0 = manager.run_pipeline(lamina.parse(src), "fold-constant", manager.PassContext(0))
    assert any(o.name == "relay.relu" for o in m0.walk())
    m1 = manager.run_pipeline(lamina.parse(src), "fold-constant", manager.PassContext(1))
    assert not any(o.name == "relay.relu" for o in m1.walk())
