"""Det (an LU factorization per matrix, in an extern kernel) against
onnx.reference (numpy's `linalg.det`): batches, f32 and f64, matrices that
need row swaps, singular ones, 1x1; and the relay op's numpy evaluator
(fold-constant) against its compiled kernel."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func

import lamina
from lamina.transforms.graph.fold_constant import evaluate
from tests.test_onnx_ops import RNG, Case, check, model_of, rand


def _tricky(m: int) -> np.ndarray:
    """Matrices that a factorization without pivoting gets wrong or divides
    by zero on: a zero leading entry, a permutation, a singular one (two equal
    rows), and one of tiny and large entries."""
    zero_lead = rand(m, m)
    zero_lead[0, 0] = 0.0
    perm = np.eye(m, dtype=np.float32)[RNG.permutation(m)]
    singular = rand(m, m)
    singular[-1] = singular[0]
    scaled = rand(m, m) * np.logspace(-3, 3, m, dtype=np.float32)[:, None]
    return np.stack([zero_lead, perm, singular, scaled])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batches_and_sizes(dtype):
    cases = [Case("Det", [rand(*shape, dtype=dtype)]) for shape in [(1, 1), (3, 3), (4, 2, 2), (2, 3, 5, 5), (8, 8)]]
    cases += [Case("Det", [_tricky(m).astype(dtype)]) for m in (2, 4, 6)]
    check(cases, opset=11 if dtype == np.float32 else 22, rtol=1e-4 if dtype == np.float32 else 1e-10, atol=1e-5)


def test_singular_is_exactly_zero():
    """A zero column makes every later pivot search find 0: the determinant
    is 0, not NaN (no division by a zero pivot)."""
    x = rand(2, 4, 4)
    x[:, :, 1] = 0.0
    model, _ = model_of([Case("Det", [x])], 11)
    (got,) = lamina.compile(model).run(x)
    np.testing.assert_array_equal(got, np.zeros(2, np.float32))


def test_integer_input_is_refused():
    model, _ = model_of([Case("Det", [rand(3, 3, dtype=np.int32)])], 11)
    with pytest.raises(lamina.FrontendError, match=r"\(Det, opset 11\): X must be floating-point, got int32"):
        lamina.from_onnx(model)
    model, _ = model_of([Case("Det", [rand(3, 4)])], 11)
    with pytest.raises(lamina.FrontendError, match=r"X must hold square matrices \[\.\.\., M, M\], got shape \[3, 4\]"):
        lamina.from_onnx(model)


def test_evaluator_agrees_with_the_kernel():
    src = """
    func.func @main(%x: tensor<3x4x4xf32>) -> tensor<3xf32> {
      %d = relay.det %x : (tensor<3x4x4xf32>) -> tensor<3xf32>
      func.return %d : tensor<3xf32>
    }"""
    x = _tricky(4)[1:]
    (compiled,) = lamina.compile(lamina.parse(src)).run(x)
    fn = next(op for op in lamina.parse(src).ops if isinstance(op, func.FuncOp))
    (evaluated,) = evaluate(fn.body.block, [x])
    np.testing.assert_allclose(compiled, evaluated, rtol=1e-5, atol=1e-6)
