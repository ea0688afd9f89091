"""tir-cse makes what xDSL's cse makes, on kernels lowered from relay (unrolled
and vectorized: loops, masks, clamped windows) and on IR with unknown effects."""

from __future__ import annotations

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.transforms.common_subexpression_elimination import (
    CommonSubexpressionElimination,
)

import lamina.pipelines  # noqa: F401  (registers the lowering passes)
from lamina.ir import parse
from lamina.passes import PassContext, run_pipeline
from lamina.transforms.tir.cse import TirCsePass

CONV = """
func.func @main(%x: tensor<1x4x11x9xf32>, %w: tensor<5x4x3x3xf32>) -> tensor<1x5x6x9xf32> {
  %0 = relay.conv2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x11x9xf32>, tensor<5x4x3x3xf32>) -> tensor<1x5x6x9xf32>
  %1 = relay.relu %0 : tensor<1x5x6x9xf32>
  func.return %1 : tensor<1x5x6x9xf32>
}
"""
MATMUL_SOFTMAX = """
func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x24xf32>) -> tensor<8x24xf32> {
  %0 = relay.matmul %a, %b : (tensor<8x16xf32>, tensor<16x24xf32>) -> tensor<8x24xf32>
  %1 = relay.softmax %0 {axis = 1 : i64} : tensor<8x24xf32>
  func.return %1 : tensor<8x24xf32>
}
"""
POOL = """
func.func @main(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %0 = relay.max_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  func.return %0 : tensor<1x4x4x4xf32>
}
"""


def _both(module: ModuleOp) -> tuple[str, str]:
    """`module` after xDSL's cse and after tir-cse."""
    theirs, ours = module.clone(), module.clone()
    CommonSubexpressionElimination().apply(Context(), theirs)
    TirCsePass().apply(Context(), ours)
    return str(theirs), str(ours)


@pytest.mark.parametrize("text", [CONV, MATMUL_SOFTMAX, POOL], ids=["conv", "matmul-softmax", "pool"])
def test_same_result_as_xdsl_cse_on_lowered_kernels(text: str) -> None:
    module = parse(text)
    lowering = ["lower-relay-to-te", "lower-te-to-tir", "tir-unroll", "tir-vectorize"]
    run_pipeline(module, lowering, PassContext(opt_level=3))
    before = str(module)
    theirs, ours = _both(module)
    assert ours == theirs
    assert len(ours) < len(before)  # there was something to eliminate


def test_unknown_effects_are_barriers() -> None:
    module = parse(
        """
        func.func private @g(i32) -> i32
        func.func @f(%m: memref<4xi32>, %x: i32) -> (i32, i32, i32, i32, i32) {
          %c0 = arith.constant 0 : index
          %a = arith.addi %x, %x : i32
          %b = arith.addi %x, %x : i32
          %l1 = tir.load %m[%c0] : memref<4xi32>
          %l2 = tir.load %m[%c0] : memref<4xi32>
          %u = func.call @g(%a) : (i32) -> i32
          %v = func.call @g(%b) : (i32) -> i32
          %l3 = tir.load %m[%c0] : memref<4xi32>
          %dead = arith.muli %x, %x : i32
          func.return %l1, %l2, %u, %v, %l3 : i32, i32, i32, i32, i32
        }
        """
    )
    theirs, ours = _both(module)
    assert ours == theirs
    assert ours.count("arith.addi") == 1 and ours.count("func.call") == 2
    assert ours.count("tir.load") == 2  # a call may write: read again after it
    assert "arith.muli" not in ours
