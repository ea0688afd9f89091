"""Bounded loops: every fixpoint loop in the passes has a cap and reports
non-convergence as a `LaminaError` naming the pass, instead of hanging."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

import lamina
from lamina import passes as manager
from lamina.dialects import relay
from lamina.errors import LaminaError
from lamina.pattern import is_op, rewrite, wildcard
from lamina.transforms.graph import canonicalize, simplify_inference

GRAPH = """
func.func @main(%x: tensor<1x4xf32>) -> tensor<1x3xf32> {
  %w = relay.constant dense<1.0> : tensor<3x4xf32>
  %s = relay.constant dense<2.0> : tensor<3xf32>
  %0 = relay.dense %x, %w {transpose_b} : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<1x3xf32>
  %1 = relay.multiply %0, %s : (tensor<1x3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  func.return %1 : tensor<1x3xf32>
}
"""

ARITH = """
func.func @main(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  func.return %0 : i32
}
"""


def ctx(cap: int) -> lamina.PassContext:
    return lamina.PassContext(opt_level=3, config={"pattern.max-iterations": cap})


def test_simplify_inference_reports_non_convergence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simplify_inference, "_fold_multiply", lambda op: "folded-scale")
    with pytest.raises(LaminaError) as info:
        lamina.run_pipeline(lamina.parse(GRAPH), ["simplify-inference"], ctx(5))
    msg = str(info.value)
    assert "in pass 'simplify-inference' did not converge after 5 iterations" in msg


def test_simplify_inference_converges_normally() -> None:
    module = lamina.run_pipeline(lamina.parse(GRAPH), ["simplify-inference"], ctx(2))
    assert "relay.multiply" not in lamina.print_ir(module)


class _Churn(RewritePattern):
    """Replaces every arith.addi by an identical new one: never converges."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.AddiOp):
            rewriter.replace(op, arith.AddiOp(op.lhs, op.rhs))


def test_canonicalize_reports_non_convergence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(canonicalize, "CanonicalizationRewritePattern", _Churn)
    with pytest.raises(LaminaError) as info:
        lamina.run_pipeline(lamina.parse(ARITH), ["canonicalize"], ctx(3))
    msg = str(info.value)
    assert "in pass 'canonicalize' did not converge after 3 iterations" in msg
    assert "arith.addi" in msg


def test_canonicalize_still_folds() -> None:
    text = """
    func.func @main() -> i32 {
      %a = arith.constant 2 : i32
      %b = arith.constant 3 : i32
      %0 = arith.addi %a, %b : i32
      func.return %0 : i32
    }"""
    out = lamina.print_ir(lamina.run_pipeline(lamina.parse(text), ["canonicalize"], ctx(1)))
    assert "arith.constant 5 : i32" in out and "arith.addi" not in out


def test_pattern_rewrite_reports_non_convergence() -> None:
    def swap(m):  # type: ignore[no-untyped-def]
        a, b = m.op.operands
        return relay.AddOp(b, a) if a is not b else None

    text = """
    func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
      %0 = relay.add %a, %b : tensor<2xf32>
      func.return %0 : tensor<2xf32>
    }"""
    with ctx(4), pytest.raises(LaminaError, match="did not converge after 4 iterations"):
        rewrite((is_op("add")(wildcard(), wildcard()), swap), lamina.parse(text))


def test_not_converged_outside_a_pass() -> None:
    err = manager.not_converged("a loop", 7)
    assert "a loop did not converge after 7 iterations" in str(err)
