"""Fusion preserves results: every opt level computes the same numbers."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina.tools.demo import mlp_model

MODEL = """
func.func @main(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>, %s: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = relay.dense %x, %w {transpose_b} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %1 = relay.add %0, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = relay.relu %1 : tensor<4x16xf32>
  %3 = relay.multiply %2, %s : tensor<4x16xf32>
  %4 = relay.softmax %3 {axis = 1 : i64} : tensor<4x16xf32>
  %5 = relay.subtract %4, %1 : tensor<4x16xf32>
  func.return %5, %2 : tensor<4x16xf32>, tensor<4x16xf32>
}
"""


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3])
def test_opt_levels_agree_on_a_graph_with_shared_values(opt_level):
    rng = np.random.default_rng(0)
    args = [
        rng.standard_normal(s).astype(np.float32) for s in ((4, 8), (16, 8), (16,), (4, 16))
    ]
    x, w, b, s = args
    pre = x @ w.T + b
    relu = np.maximum(pre, 0)
    t = relu * s
    e = np.exp(t - t.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True) - pre
    y, r = lamina.compile(lamina.parse(MODEL), opt_level=opt_level).run(*args)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r, relu, rtol=1e-5, atol=1e-6)


def kernels(model, opt_level: int) -> int:
    module = lamina.from_onnx(model)
    ctx = lamina.PassContext(opt_level=opt_level)
    lamina.run_pipeline(module, "optimize,lower-relay-to-te", ctx)
    return sum(op.name == "te.call" for op in module.walk())


def test_fused_mlp_has_fewer_kernels_and_same_result():
    model = mlp_model((64, 32, 32, 10))
    assert kernels(model, 0) == 6  # gemm, relu, gemm, relu, gemm, softmax
    assert kernels(model, 3) == 4  # gemm+relu, gemm+relu, gemm, softmax
    x = np.random.default_rng(1).standard_normal((1, 64)).astype(np.float32)
    outs = {level: lamina.compile(model, opt_level=level).run(x)[0] for level in (0, 3)}
    np.testing.assert_allclose(outs[3], outs[0], rtol=1e-6, atol=1e-7)
