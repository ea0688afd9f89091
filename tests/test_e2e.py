"""End to end: ONNX or relay text in, native code out, numbers checked."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import lamina
from lamina.tools.demo import mlp_model


@pytest.fixture(scope="module")
def mlp() -> onnx.ModelProto:
    return mlp_model((784, 512, 512, 10))


@pytest.fixture(scope="module")
def mlp_exe(mlp: onnx.ModelProto) -> lamina.CompiledModel:
    return lamina.compile(mlp)


def numpy_mlp(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    w = {t.name: onnx.numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}
    h = x.astype(np.float64)
    for i in range(3):
        h = h @ w[f"fc{i}.weight"].T + w[f"fc{i}.bias"]
        if i < 2:
            h = np.maximum(h, 0)
    e = np.exp(h - h.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_onnx_mlp_matches_numpy(mlp, mlp_exe):
    x = np.random.default_rng(0).standard_normal((1, 784)).astype(np.float32)
    (y,) = mlp_exe.run(x)
    np.testing.assert_allclose(y, numpy_mlp(mlp, x), rtol=1e-5, atol=1e-7)


def test_onnx_mlp_matches_onnxruntime(tmp_path, mlp):
    ort = pytest.importorskip("onnxruntime")
    path = tmp_path / "mlp.onnx"
    onnx.save(mlp, str(path))
    exe = lamina.compile(str(path))
    x = np.random.default_rng(1).standard_normal((1, 784)).astype(np.float32)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (ref,) = sess.run(None, {"input": x})
    (y,) = exe.run(input=x)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-7)
    assert exe.input_names == ["input"] and exe.output_names == ["probs"]


def test_mlp_from_relay_text_matches_numpy():
    rng = np.random.default_rng(2)
    sizes = (784, 512, 512, 10)
    module = lamina.from_onnx(mlp_model(sizes, seed=3))
    text = lamina.print_ir(module, resources_limit=None)  # weights in the text
    assert "dialect_resources" in text
    exe = lamina.compile(lamina.parse(text))
    x = rng.standard_normal((1, 784)).astype(np.float32)
    (y,) = exe.run(x)
    np.testing.assert_allclose(y, numpy_mlp(mlp_model(sizes, seed=3), x), rtol=1e-5, atol=1e-7)


def test_relay_text_with_every_foundation_op():
    text = """
    func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>) -> (tensor<4x6xf32>, tensor<2x3x4xf32>) {
      %w = relay.constant dense<[[1.0, -2.0], [0.5, 3.0], [2.0, 1.0], [-1.0, 0.25]]> : tensor<4x2xf32>
      %0 = relay.add %a, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
      %1 = relay.subtract %0, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
      %2 = relay.multiply %1, %0 : tensor<2x3x4xf32>
      %3 = relay.divide %2, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
      %4 = relay.relu %3 : tensor<2x3x4xf32>
      %5 = relay.matmul %4, %w : (tensor<2x3x4xf32>, tensor<4x2xf32>) -> tensor<2x3x2xf32>
      %6 = relay.reshape %5 {shape = array<i64: 6, 2>} : (tensor<2x3x2xf32>) -> tensor<6x2xf32>
      %7 = relay.transpose %6 {perm = array<i64: 1, 0>} : (tensor<6x2xf32>) -> tensor<2x6xf32>
      %8 = relay.dense %w, %7 : (tensor<4x2xf32>, tensor<2x6xf32>) -> tensor<4x6xf32>
      %9 = relay.softmax %8 {axis = 0 : i64} : tensor<4x6xf32>
      func.return %9, %a : tensor<4x6xf32>, tensor<2x3x4xf32>
    }
    """
    exe = lamina.compile(lamina.parse(text))
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.uniform(0.5, 2.0, 4).astype(np.float32)
    w = np.array([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0], [-1.0, 0.25]], np.float32)
    x0 = a + b
    x = np.maximum((x0 - b) * x0 / b, 0)
    x = (x @ w).reshape(6, 2).T
    d = w @ x
    e = np.exp(d - d.max(axis=0))
    ref = e / e.sum(axis=0)
    y, a_out = exe.run(a, b)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(a_out, a)


def test_gemm_alpha_beta_and_transposes():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((6, 3)).astype(np.float32)
    b = rng.standard_normal((5, 6)).astype(np.float32)
    c = rng.standard_normal((1, 5)).astype(np.float32)
    node = helper.make_node("Gemm", ["a", "b", "c"], ["y"], alpha=0.5, beta=2.0, transA=1, transB=1)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("a", TensorProto.FLOAT, [6, 3]),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, [5, 6]),
            helper.make_tensor_value_info("c", TensorProto.FLOAT, [1, 5]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 5])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    (y,) = lamina.compile(model).run(a, b, c)
    np.testing.assert_allclose(y, 0.5 * a.T @ b.T + 2.0 * c, rtol=1e-5, atol=1e-6)


def test_bad_inputs_raise_clear_errors(mlp_exe):
    with pytest.raises(lamina.InputError, match=r"expected shape \(1, 784\), got \(2, 784\)"):
        mlp_exe.run(np.zeros((2, 784), np.float32))
    with pytest.raises(lamina.InputError, match="expected dtype float32, got float64"):
        mlp_exe.run(np.zeros((1, 784)))
    with pytest.raises(lamina.InputError, match="missing input"):
        mlp_exe.run()
    with pytest.raises(lamina.InputError, match="unknown input 'x'"):
        mlp_exe.run(x=np.zeros((1, 784), np.float32))
    assert issubclass(lamina.InputError, lamina.LaminaError)


def test_non_contiguous_input_is_handled(mlp, mlp_exe):
    x = np.random.default_rng(6).standard_normal((1, 1568)).astype(np.float32)[:, ::2]
    assert not x.flags.c_contiguous
    (y,) = mlp_exe.run(x)
    np.testing.assert_allclose(y, numpy_mlp(mlp, np.ascontiguousarray(x)), rtol=1e-5, atol=1e-7)


def test_unsupported_onnx_ops_are_listed_at_once():
    nodes = [
        helper.make_node("Foo", ["x"], ["a"], name="first"),
        helper.make_node("Bar", ["a"], ["y"], name="second"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(lamina.UnsupportedOpError, match=r"2 node\(s\).*Foo \(node 'first'.*Bar \(node 'second'") as e:
        lamina.from_onnx(model)
    assert isinstance(e.value, NotImplementedError)


def test_unsupported_nodes_are_summarized_by_op_type():
    """Many nodes of one unsupported type make one entry (a count and the first
    names), not a line each; what they feed is not reported again."""
    nodes = [helper.make_node("Foo", ["x"], [f"f{k}"], name=f"foo{k}") for k in range(40)]
    nodes += [helper.make_node("Bar", ["f0"], ["b"], name="bar")]
    nodes += [helper.make_node("Sum", [*(f"f{k}" for k in range(40)), "b"], ["y"], name="sum")]
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(lamina.UnsupportedOpError) as e:
        lamina.from_onnx(model)
    msg = str(e.value)
    assert "41 node(s)" in msg and "Foo x40 (nodes 'foo0', 'foo1', 'foo2' and 37 more" in msg
    assert "Bar (node 'bar'" in msg and "'foo39'" not in msg and "Sum" not in msg
    assert len(msg) < 500


def test_an_unsupported_node_with_constant_inputs_is_folded():
    """An op lamina has no converter for still imports when its inputs are all
    constant (as a Swin transformer's ScatterNDs are at fixed shapes): onnx's
    reference evaluates it at import."""
    rng = np.random.default_rng(3)
    data, upd = rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)
    idx = np.array([[4], [1]], np.int64)
    inits = [onnx.numpy_helper.from_array(a, n) for a, n in ((data, "d"), (idx, "i"), (upd, "u"))]
    nodes = [
        helper.make_node("ScatterND", ["d", "i", "u"], ["c"], name="scatter"),
        helper.make_node("Mul", ["x", "c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5, 3])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    x = rng.standard_normal((5, 3)).astype(np.float32)
    expect = data.copy()
    expect[[4, 1]] = upd
    (y,) = lamina.compile(model).run(x=x)
    np.testing.assert_array_equal(y, x * expect)


def test_symbolic_dimension_compiles_once_or_fixed():
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    fixed = lamina.compile(model, input_shapes={"x": [3, 4]})
    once = lamina.compile(model)
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(fixed.run(x)[0], np.maximum(x, 0))
    np.testing.assert_array_equal(once.run(x)[0], np.maximum(x, 0))
    np.testing.assert_array_equal(once.run(x[:1])[0], np.maximum(x[:1], 0))
    with pytest.raises(lamina.InputError, match="expected shape"):
        fixed.run(x[:1])
    with pytest.raises(lamina.InputError, match=r"expected 2 dimension\(s\) \(batch, 4\)"):
        once.run(x[0])


def test_missing_model_file_is_a_lamina_error(tmp_path):
    with pytest.raises(lamina.FrontendError, match="no such file"):
        lamina.compile(str(tmp_path / "nope.onnx"))
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage")
    with pytest.raises(lamina.FrontendError, match="not a valid ONNX"):
        lamina.from_onnx(str(bad))
