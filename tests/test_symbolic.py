"""Symbolic dimensions: the expression algebra, the tensor types that carry them,
and the ONNX import of models with `dim_param`s (shape computations folded)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper
from xdsl.dialects.builtin import f32

import lamina
from lamina.dialects.shapes import shape_dims, symbolic_tensor
from lamina.frontends.onnx import from_onnx
from lamina.symbolic import Sym, SymbolicError, evaluate
from lamina.tools.models import transformer_block

b, s = Sym.var("batch"), Sym.var("seq")


def test_arithmetic_folds_to_a_normal_form() -> None:
    x = b * s * 768
    assert x // 768 == s * b and x // (s * 768) == b
    assert (s + 1) * 2 - 2 == 2 * s and isinstance(s - s, int) and s - s == 0
    assert str(b * s * 2 + 1) == "2*batch*seq + 1"
    assert b * s * 768 % 768 == 0
    with pytest.raises(SymbolicError, match="not known to be divisible"):
        _ = s // b


def test_opaque_division_keeps_its_value() -> None:
    half = (s + 1) // 2
    assert str(half) == "((seq + 1) // 2)"
    assert evaluate(half * 4 + b, {"seq": 5, "batch": 3}) == 15
    assert Sym.parse(str(2 * half)) == 2 * half


def test_comparisons_positive_sizes_decide() -> None:
    assert s > 0 and s >= 1 and not s < 1 and s + 1 > s
    assert s != 1  # not known to be 1: a symbolic dim never broadcasts
    for question in (lambda: s > 2, lambda: s < b, lambda: int(s)):
        with pytest.raises(SymbolicError):
            question()


def test_shape_vectors_compute_as_numpy_object_arrays() -> None:
    shape = np.array([b, s, 768], dtype=object)
    assert np.prod(shape) == 768 * b * s
    assert list(shape * 2) == [2 * b, 2 * s, 1536]


_atoms = st.sampled_from(["batch", "seq", "heads"])
_exprs = st.recursive(
    st.one_of(st.integers(-5, 50), _atoms.map(Sym.var)),
    lambda inner: st.one_of(
        st.tuples(inner, inner).map(lambda t: t[0] + t[1]),
        st.tuples(inner, inner).map(lambda t: t[0] - t[1]),
        st.tuples(inner, inner).map(lambda t: t[0] * t[1]),
        st.tuples(inner, st.integers(1, 7)).map(lambda t: t[0] // t[1]),
    ),
    max_leaves=6,
)


@settings(max_examples=200, deadline=None)
@given(_exprs, st.dictionaries(_atoms, st.integers(1, 40), min_size=3))
def test_print_parse_and_evaluate_agree(e: int | Sym, env: dict[str, int]) -> None:
    """Text round trips to an equal expression, and folding preserves the value
    (checked against evaluating the same tree with Python ints)."""
    assert Sym.parse(str(e)) == e
    assert evaluate(Sym.parse(str(e)), env) == evaluate(e, env)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.integers(1, 9), _atoms.map(Sym.var)), max_size=4))
def test_tensor_types_round_trip(dims: list[int | Sym]) -> None:
    t = symbolic_tensor(dims, f32)
    assert list(shape_dims(t)) == dims


# ------------------------------------------------------------------ import
def test_dim_params_become_shared_symbols() -> None:
    m = transformer_block("batch", "seq", d_model=64, heads=4, d_ff=128)
    text = str(from_onnx(m))
    # The Shape -> Slice -> Concat chain folds into the reshape's target.
    assert 'relay.reshape %attn_q {shape = ["batch", "seq", 4 : i64, 16 : i64]}' in text
    assert 'tensor<?x4x?x?xf32, ["batch", "seq", "seq"]>' in text  # attention scores
    assert "relay.dims" not in text  # only fed shapes: erased
    out = 'func.return %output : tensor<?x?x64xf32, ["batch", "seq"]>'
    assert out in text


def test_unnamed_dims_get_names() -> None:
    g = helper.make_graph(
        [helper.make_node("Relu", ["x.in"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x.in", TensorProto.FLOAT, [None, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 3])],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    assert 'tensor<?x3xf32, ["x_in_0"]>' in str(from_onnx(model))


def test_shape_as_data_is_a_dims_op() -> None:
    """A `Shape` that feeds a computation stays as data: `relay.dims`."""
    g = helper.make_graph(
        [
            helper.make_node("Shape", ["x"], ["s"]),
            helper.make_node("Cast", ["s"], ["f"], to=TensorProto.FLOAT),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])],
        [helper.make_tensor_value_info("f", TensorProto.FLOAT, [2])],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    text = str(from_onnx(model))
    assert 'relay.dims {dims = ["n", 3 : i64]}' in text and "relay.cast" in text


def test_input_shapes_fix_symbolic_dims() -> None:
    m = transformer_block("batch", "seq", d_model=64, heads=4, d_ff=128)
    module = from_onnx(m, {"input": [2, 5, 64]})
    assert "?" not in str(module)
    x = np.random.default_rng(0).standard_normal((2, 5, 64)).astype(np.float32)
    ref = lamina.compile(transformer_block(2, 5, d_model=64, heads=4, d_ff=128)).run(x)[0]
    got = lamina.compile(m, input_shapes={"input": [2, 5, 64]}).run(x)[0]
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_reshape_minus_one_over_symbols() -> None:
    g = helper.make_graph(
        [helper.make_node("Reshape", ["x", "t"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [helper.make_tensor("t", TensorProto.INT64, [2], [-1, 12])],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    assert 'tensor<?x12xf32, ["2*n"]>' in str(from_onnx(model))
