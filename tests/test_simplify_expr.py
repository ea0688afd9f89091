"""simplify-expr: algebraic identities and reshape/transpose chains, each checked
to keep the computation (numpy reference interpreter)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func

import lamina
from lamina import passes as manager
from lamina.transforms.graph.fold_constant import evaluate
from lamina.transforms.graph.simplify_expr import simplify_expr


def body_ops(module) -> list[str]:
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    return [op.name for op in fn.body.block.ops]


def check(src: str, expected_ops: list[str], rewrites: int) -> None:
    m = lamina.parse(src)
    fn = next(op for op in m.ops if isinstance(op, func.FuncOp))
    rng = np.random.default_rng(0)
    args = [
        rng.standard_normal(tuple(a.type.get_shape())).astype(np.float32)
        for a in fn.body.block.args
    ]
    before = evaluate(fn.body.block, args)
    assert simplify_expr(m) == rewrites
    m.verify()
    assert body_ops(m) == expected_ops
    for b, a in zip(before, evaluate(fn.body.block, args), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "expr",
    [
        "relay.add %x, %zero",
        "relay.add %zero, %x",
        "relay.subtract %x, %zero",
        "relay.multiply %x, %one",
        "relay.multiply %one, %x",
        "relay.divide %x, %one",
    ],
)
def test_identities(expr):
    check(
        f"""
    func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {{
      %zero = relay.constant dense<0.0> : tensor<2x3xf32>
      %one = relay.constant dense<1.0> : tensor<2x3xf32>
      %r = {expr} : tensor<2x3xf32>
      func.return %r : tensor<2x3xf32>
    }}""",
        # the matched constant goes with the op; the unused one stays (no DCE)
        ["relay.constant", "func.return"],
        1,
    )


def test_identities_that_broadcast_are_kept():
    check(
        """
    func.func @main(%x: tensor<3xf32>) -> tensor<2x3xf32> {
      %zero = relay.constant dense<0.0> : tensor<2x3xf32>
      %r = relay.add %x, %zero : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
      func.return %r : tensor<2x3xf32>
    }""",
        ["relay.constant", "relay.add", "func.return"],
        0,
    )


def test_subtracting_from_zero_is_kept():
    check(
        """
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %zero = relay.constant dense<0.0> : tensor<4xf32>
      %r = relay.subtract %zero, %x : tensor<4xf32>
      func.return %r : tensor<4xf32>
    }""",
        ["relay.constant", "relay.constant", "relay.subtract", "func.return"],
        1,  # only SplatOperand: the zeros become one rank-0 zero (the old one is dead)
    )


def test_reshape_chains():
    check(
        """
    func.func @main(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2x3xf32>) {
      %a = relay.reshape %x {shape = array<i64: 3, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %b = relay.reshape %a {shape = array<i64: 1, 6>} : (tensor<3x2xf32>) -> tensor<1x6xf32>
      %c = relay.reshape %b {shape = array<i64: 6>} : (tensor<1x6xf32>) -> tensor<6xf32>
      %same = relay.reshape %x {shape = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      func.return %c, %same : tensor<6xf32>, tensor<2x3xf32>
    }""",
        ["relay.reshape", "func.return"],
        3,
    )


def test_transpose_chains():
    check(
        """
    func.func @main(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x3x2xf32>) {
      %a = relay.transpose %x {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
      %b = relay.transpose %a {perm = array<i64: 2, 0, 1>} : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
      %c = relay.transpose %a {perm = array<i64: 1, 0, 2>} : (tensor<3x4x2xf32>) -> tensor<4x3x2xf32>
      func.return %b, %c : tensor<2x3x4xf32>, tensor<4x3x2xf32>
    }""",
        ["relay.transpose", "func.return"],
        2,
    )


def test_relu_relu():
    check(
        """
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %a = relay.relu %x : tensor<4xf32>
      %b = relay.relu %a : tensor<4xf32>
      %c = relay.relu %b : tensor<4xf32>
      func.return %c : tensor<4xf32>
    }""",
        ["relay.relu", "func.return"],
        2,
    )


def test_simplify_expr_is_an_o3_pass_reporting_each_rule():
    src = """
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %one = relay.constant dense<1.0> : tensor<4xf32>
      %a = relay.multiply %x, %one : tensor<4xf32>
      %b = relay.relu %a : tensor<4xf32>
      %c = relay.relu %b : tensor<4xf32>
      func.return %c : tensor<4xf32>
    }"""
    m = manager.run_pipeline(lamina.parse(src), "simplify-expr", manager.PassContext(2))
    assert "relay.multiply" in body_ops(m)
    stats = manager.StatisticsInstrument()
    ctx = manager.PassContext(3, instruments=[stats])
    manager.run_pipeline(lamina.parse(src), "simplify-expr", ctx)
    assert stats.records[0].counters == {"rewrite.MultiplyOne": 1, "rewrite.ReluRelu": 1}


@pytest.mark.parametrize(("k", "products"), [(2, 1), (3, 2), (4, 2)])
def test_small_integer_powers_become_products(k, products):
    m = lamina.parse(f"""
    func.func @main(%x: tensor<5x7xf32>) -> tensor<5x7xf32> {{
      %k = relay.constant dense<{k}.0> : tensor<f32>
      %r = relay.power %x, %k : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x7xf32>
      func.return %r : tensor<5x7xf32>
    }}""")
    fn = next(op for op in m.ops if isinstance(op, func.FuncOp))
    x = np.random.default_rng(1).standard_normal((5, 7)).astype(np.float32) * 3
    assert simplify_expr(m) == 1
    m.verify()
    assert body_ops(m) == ["relay.multiply"] * products + ["func.return"]
    np.testing.assert_allclose(evaluate(fn.body.block, [x])[0], x.astype(np.float64) ** k, rtol=1e-6)


def test_other_powers_are_kept():
    m = lamina.parse("""
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %k = relay.constant dense<2.5> : tensor<f32>
      %r = relay.power %x, %k : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
      func.return %r : tensor<4xf32>
    }""")
    assert simplify_expr(m) == 0
    assert body_ops(m) == ["relay.constant", "relay.power", "func.return"]
