"""Property tests: compiled code equals numpy across shapes, broadcasting and dtypes;
printing and parsing are inverse."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lamina

ELEMENT = {np.float32: "f32", np.float64: "f64", np.int32: "i32", np.int64: "i64"}
BINARY = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
}


def ttype(shape: tuple[int, ...], dtype: type) -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}{ELEMENT[dtype]}>"


def binary_module(op: str, a: tuple[int, ...], b: tuple[int, ...], out: tuple[int, ...], dtype: type) -> str:
    ta, tb, to = ttype(a, dtype), ttype(b, dtype), ttype(out, dtype)
    return f"""
    func.func @main(%a: {ta}, %b: {tb}) -> {to} {{
      %0 = relay.{op} %a, %b : ({ta}, {tb}) -> {to}
      func.return %0 : {to}
    }}"""


def arrays(dtype: type, shape: tuple[int, ...]) -> st.SearchStrategy[np.ndarray]:
    if np.issubdtype(dtype, np.floating):
        elements = st.floats(-100, 100, width=32 if dtype == np.float32 else 64)
    else:
        elements = st.integers(-1000, 1000)
    return hnp.arrays(dtype, shape, elements=elements)


@given(
    data=st.data(),
    op=st.sampled_from(sorted(BINARY)),
    dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64]),
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=5),
)
def test_broadcasting_binary_ops_match_numpy(data, op, dtype, shapes):
    (a_shape, b_shape), out = shapes.input_shapes, shapes.result_shape
    a = data.draw(arrays(dtype, a_shape))
    b = data.draw(arrays(dtype, b_shape))
    exe = lamina.compile(lamina.parse(binary_module(op, a_shape, b_shape, out, dtype)))
    (y,) = exe.run(a, b)
    ref = BINARY[op](a, b)
    assert y.shape == ref.shape and y.dtype == ref.dtype
    np.testing.assert_allclose(y, ref, rtol=1e-6)


@given(
    data=st.data(),
    dtype=st.sampled_from([np.float32, np.int32]),
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4),
)
def test_divide_matches_onnx_semantics(data, dtype, shapes):
    (a_shape, b_shape), out = shapes.input_shapes, shapes.result_shape
    a = data.draw(arrays(dtype, a_shape))
    b = data.draw(arrays(dtype, b_shape).filter(lambda v: np.all(v != 0)))
    if np.issubdtype(dtype, np.floating):
        b = np.where(np.abs(b) < 1e-3, np.float32(1), b).astype(dtype)
    exe = lamina.compile(lamina.parse(binary_module("divide", a_shape, b_shape, out, dtype)))
    (y,) = exe.run(a, b)
    if np.issubdtype(dtype, np.integer):  # ONNX Div truncates toward zero
        ref = np.trunc(a.astype(np.float64) / b).astype(dtype)
    else:
        ref = a / b
    np.testing.assert_allclose(y, ref, rtol=1e-6)


@given(data=st.data(), dtype=st.sampled_from([np.float32, np.int64]), shape=hnp.array_shapes(min_dims=0, max_dims=4, max_side=5))
def test_relu_matches_numpy(data, dtype, shape):
    x = data.draw(arrays(dtype, shape))
    t = ttype(shape, dtype)
    exe = lamina.compile(lamina.parse(f"""
    func.func @main(%x: {t}) -> {t} {{
      %0 = relay.relu %x : {t}
      func.return %0 : {t}
    }}"""))
    np.testing.assert_array_equal(exe.run(x)[0], np.maximum(x, 0))


@st.composite
def matmul_shapes(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    m, k, n = (draw(st.integers(1, 6)) for _ in range(3))
    batch = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3))
    ba, bb = batch.input_shapes
    a = (k,) if draw(st.booleans()) and not ba else (*ba, m, k)
    b = (k,) if draw(st.booleans()) and not bb else (*bb, k, n)
    return a, b


@given(data=st.data(), shapes=matmul_shapes(), dtype=st.sampled_from([np.float32, np.float64]))
def test_matmul_matches_numpy(data, shapes, dtype):
    a_shape, b_shape = shapes
    a = data.draw(arrays(dtype, a_shape))
    b = data.draw(arrays(dtype, b_shape))
    ref = np.matmul(a, b)
    ta, tb, to = ttype(a_shape, dtype), ttype(b_shape, dtype), ttype(ref.shape, dtype)
    exe = lamina.compile(lamina.parse(f"""
    func.func @main(%a: {ta}, %b: {tb}) -> {to} {{
      %0 = relay.matmul %a, %b : ({ta}, {tb}) -> {to}
      func.return %0 : {to}
    }}"""))
    (y,) = exe.run(a, b)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-3)


@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=5),
    op=st.sampled_from(["add", "subtract", "multiply", "divide"]),
    generic=st.booleans(),
)
def test_print_parse_print_is_identity(shapes, op, generic):
    (a, b), out = shapes.input_shapes, shapes.result_shape
    module = lamina.parse(binary_module(op, a, b, out, np.float32))
    text = lamina.print_ir(module, generic=generic)
    again = lamina.print_ir(lamina.parse(text), generic=generic)
    assert again == text
