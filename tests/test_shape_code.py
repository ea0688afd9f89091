"""The generated shape code of a model (`lamina.runtime.shapes.ShapeCode`)
agrees with the general path (`bind_sizes`, `evaluate`) on any input shapes:
the same sizes where the general path accepts them, None where it refuses
them, and the same output shapes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lamina
from lamina.errors import InputError
from lamina.runtime.dynamic import bind_sizes
from lamina.runtime.record import Assumption, TensorSpec
from lamina.runtime.shapes import ShapeCode, py_dim
from lamina.symbolic import Sym, evaluate

B, S, P = Sym.var("batch"), Sym.var("seq"), Sym.var("past")
F32, I64 = np.dtype(np.float32), np.dtype(np.int64)
INPUTS = [
    TensorSpec("ids", (B, S), I64),
    TensorSpec("mask", (B, P + S), I64),
    TensorSpec("past", (B, 4, P, 8), F32),
    TensorSpec("pairs", (2 * S,), F32),
]
OUTPUTS = [
    TensorSpec("logits", (B, S, 16), F32),
    TensorSpec("present", (B, 4, P + S, 8), F32),
    TensorSpec("halves", ((P + S) // 2 + 1,), F32),
]
SIZES = ["batch", "past", "seq"]
ASSUMPTIONS = [Assumption(P + S, 64, "the positions the model was exported with")]
CODE = ShapeCode(INPUTS, OUTPUTS, SIZES, ASSUMPTIONS)


def test_dims_become_python_expressions() -> None:
    assert py_dim(7) == "7"
    env = {"s_past": 5, "s_seq": 3}
    for d in (P + S, 2 * S, (P + S) // 2 + 1, P * S - 1):
        assert eval(py_dim(d), {}, dict(env)) == evaluate(d, {"past": 5, "seq": 3})


@settings(max_examples=300, deadline=None)
@given(
    b=st.integers(0, 3), s=st.integers(0, 5), p=st.integers(0, 70),
    skew=st.sampled_from([None, "mask", "past", "pairs", "rank", "dtype"]),
)
def test_generated_binding_agrees_with_the_general_path(
    b: int, s: int, p: int, skew: str | None
) -> None:
    shapes = {"ids": (b, s), "mask": (b, p + s), "past": (b, 4, p, 8), "pairs": (2 * s,)}
    dtypes = {spec.name: spec.dtype for spec in INPUTS}
    if skew == "rank":
        shapes["past"] = (b, 4, p)
    elif skew == "dtype":
        dtypes["mask"] = np.dtype(np.int32)
    elif skew is not None:
        shapes[skew] = (*shapes[skew][:-1], shapes[skew][-1] + 1)
    arrays = [np.zeros(shapes[spec.name], dtypes[spec.name]) for spec in INPUTS]
    try:
        env = bind_sizes([(x.name, x.shape) for x in INPUTS], [a.shape for a in arrays], ASSUMPTIONS)
        if any(a.dtype != x.dtype for a, x in zip(arrays, INPUTS, strict=True)):
            raise InputError("dtype")
    except InputError:
        assert CODE.bind(arrays) is None
        return
    sizes = CODE.bind(arrays)
    assert sizes == tuple(env[n] for n in SIZES)
    assert CODE.shapes(*sizes) == tuple(
        tuple(evaluate(d, env) for d in spec.shape) for spec in OUTPUTS
    )


def test_a_size_the_model_sets_is_left_to_the_general_path() -> None:
    n = Sym.var("n")  # set by the model (NonZero's count), bound by no input
    code = ShapeCode([TensorSpec("x", (B,), F32)], [TensorSpec("y", (n,), F32)], ["batch", "n"])
    assert not code.complete


@pytest.mark.parametrize("by_name", [False, True])
def test_runs_through_the_generated_code_match_and_refuse_like_the_general_path(
    tmp_path, by_name: bool
) -> None:
    """A symbolic model run at growing sizes (frames made and reused) gives the
    numpy result; a bad shape still gets the general path's message."""
    import onnx
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])
    node = helper.make_node("Relu", ["x"], ["t"]), helper.make_node("Add", ["t", "x"], ["y"])
    model = helper.make_model(helper.make_graph(list(node), "g", [x], [y]), opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, tmp_path / "m.onnx")
    exe = lamina.compile(str(tmp_path / "m.onnx"))
    assert exe._code is not None  # (runs take the generated path)
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 9, 2, 40):
        a = rng.standard_normal((n, 4)).astype(np.float32)
        (got,) = exe.run(x=a) if by_name else exe.run(a)
        np.testing.assert_allclose(got, np.maximum(a, 0) + a, rtol=1e-6)
    with pytest.raises(InputError, match="expected shape"):
        exe.run(np.zeros((3, 5), np.float32))
    with pytest.raises(InputError, match="dtype"):
        exe.run(np.zeros((3, 4), np.float64))
