"""Bad ONNX models: each gets one clear `LaminaError` (or is handled), also from the
`lamina` command, before anything large is allocated."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h

import lamina
from lamina.errors import FrontendError, LaminaError, UnsupportedOpError
from lamina.tools import cli


def model(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    inits: list[onnx.TensorProto] = (),  # type: ignore[assignment]
    opset: int = 17,
    ir: int = 8,
) -> onnx.ModelProto:
    g = h.make_graph(nodes, "g", inputs, outputs, list(inits))
    return h.make_model(g, opset_imports=[h.make_opsetid("", opset)], ir_version=ir)


def vi(name: str, shape: list[int | str], elem: int = T.FLOAT) -> onnx.ValueInfoProto:
    return h.make_tensor_value_info(name, elem, shape)


def relu_model(shape: list[int] = [2, 3]) -> onnx.ModelProto:  # noqa: B006
    return model([h.make_node("Relu", ["x"], ["y"], name="r")], [vi("x", shape)], [vi("y", shape)])


def error_of(m: onnx.ModelProto | str | Path, cls: type[Exception] = LaminaError) -> str:
    with pytest.raises(cls) as info:
        lamina.from_onnx(m)
    msg = str(info.value)
    assert "\n" not in msg, msg
    return msg


def save(m: onnx.ModelProto, path: Path) -> Path:
    path.write_bytes(m.SerializeToString())
    return path


def test_truncated_files_are_refused(tmp_path: Path) -> None:
    data = relu_model().SerializeToString()
    cuts = sorted({1, 2, 5, len(data) // 3, len(data) // 2, len(data) - 7, len(data) - 1})
    for cut in cuts:
        path = tmp_path / f"cut{cut}.onnx"
        path.write_bytes(data[:cut])
        msg = error_of(path, FrontendError)
        assert str(path) in msg or "truncated" in msg or "corrupt" in msg, msg


def test_empty_and_garbage_files(tmp_path: Path) -> None:
    (tmp_path / "empty.onnx").write_bytes(b"")
    assert "truncated" in error_of(tmp_path / "empty.onnx")
    (tmp_path / "junk.onnx").write_bytes(b"\xff\xfe not a protobuf \x00" * 10)
    error_of(tmp_path / "junk.onnx", FrontendError)
    assert "no such file" in error_of(tmp_path / "missing.onnx")


@pytest.mark.parametrize("ir", [1, 2, 99])
def test_wrong_ir_version(ir: int) -> None:
    m = relu_model()
    m.ir_version = ir
    msg = error_of(m, FrontendError)
    assert f"IR version is {ir}" in msg and "re-export" in msg


@pytest.mark.parametrize("opset", [0, 999])
def test_wrong_opset(opset: int) -> None:
    m = relu_model()
    m.opset_import[0].version = opset
    assert f"opset {opset}" in error_of(m, FrontendError)


def test_no_default_opset() -> None:
    m = relu_model()
    del m.opset_import[:]
    assert "imports no opset" in error_of(m, FrontendError)


def test_missing_initializers_are_listed_at_once() -> None:
    m = model(
        [
            h.make_node("MatMul", ["x", "w1"], ["a"], name="mm1"),
            h.make_node("Add", ["a", "b1"], ["y"], name="add1"),
        ],
        [vi("x", [2, 3])],
        [vi("y", [2, 4])],
    )
    msg = error_of(m, FrontendError)
    assert "'w1' (input of ONNX node 'mm1' (MatMul))" in msg
    assert "'b1' (input of ONNX node 'add1' (Add))" in msg
    assert "2 value(s)" in msg


def test_graph_cycle_is_reported() -> None:
    m = model(
        [
            h.make_node("Add", ["x", "b"], ["a"], name="first"),
            h.make_node("Relu", ["a"], ["b"], name="second"),
            h.make_node("Relu", ["a"], ["y"], name="out"),
        ],
        [vi("x", [2])],
        [vi("y", [2])],
    )
    msg = error_of(m, FrontendError)
    assert "cycle" in msg and "'first'" in msg and "'second'" in msg


def test_unsorted_graph_is_sorted() -> None:
    m = model(
        [
            h.make_node("Relu", ["a"], ["y"], name="second"),
            h.make_node("Neg", ["x"], ["a"], name="first"),
        ],
        [vi("x", [3])],
        [vi("y", [3])],
    )
    x = np.array([-1, 2, -3], np.float32)
    np.testing.assert_array_equal(lamina.compile(m).run(x)[0], np.maximum(-x, 0))


def test_unknown_ops_are_listed_at_once() -> None:
    m = model(
        [
            h.make_node("FancyOp", ["x"], ["a"], name="n1"),
            h.make_node("Relu", ["a"], ["b"], name="n2"),
            h.make_node("OtherOp", ["b"], ["y"], name="n3"),
        ],
        [vi("x", [3])],
        [vi("y", [3])],
    )
    msg = error_of(m, UnsupportedOpError)
    assert "2 node(s)" in msg and "FancyOp (node 'n1'" in msg and "OtherOp (node 'n3'" in msg


def test_unnamed_unknown_nodes_are_named_by_op_and_index() -> None:
    """Not `node '?'`: an unnamed node is its op type and index in the graph."""
    m = model(
        [
            h.make_node("Relu", ["x"], ["a"]),
            h.make_node("FancyOp", ["a"], ["b"]),
            h.make_node("FancyOp", ["b"], ["c"], name="named"),
            h.make_node("OtherOp", ["c"], ["y"]),
        ],
        [vi("x", [3])],
        [vi("y", [3])],
    )
    msg = error_of(m, UnsupportedOpError)
    assert "'?'" not in msg
    assert "FancyOp x2 (nodes #1, 'named', domain 'ai.onnx')" in msg and "OtherOp (node #3, domain" in msg


def test_a_converter_names_an_unnamed_node_by_index_and_output() -> None:
    m = model(
        [h.make_node("Relu", ["x"], ["a"]), h.make_node("Flatten", ["a"], ["y"], axis=7)],
        [vi("x", [2, 3])],
        [vi("y", [2, 3])],
    )
    msg = error_of(m, FrontendError)
    assert msg.startswith("unnamed ONNX node #1 writing 'y' (Flatten, opset"), msg
    assert "axis 7 is out of range" in msg


def test_inconsistent_shapes_name_the_node() -> None:
    m = model(
        [h.make_node("Add", ["x", "z"], ["y"], name="bad_add")],
        [vi("x", [2, 3]), vi("z", [4])],
        [vi("y", [2, 3])],
    )
    msg = error_of(m, FrontendError)
    assert "'bad_add' (Add" in msg and "broadcast" in msg


def test_declared_output_shape_disagrees() -> None:
    m = model([h.make_node("Relu", ["x"], ["y"], name="r")], [vi("x", [2, 3])], [vi("y", [5])])
    msg = error_of(m, LaminaError)
    assert "'r'" in msg or "y" in msg


def test_corrupt_initializer_data() -> None:
    w = h.make_tensor("w", T.FLOAT, [4, 4], np.zeros(16, np.float32).tobytes(), raw=True)
    w.raw_data = np.zeros(3, np.float32).tobytes()
    m = model(
        [h.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
        [vi("x", [1, 4])],
        [vi("y", [1, 4])],
        [w],
    )
    msg = error_of(m, FrontendError)
    assert "initializer 'w'" in msg and "corrupt" in msg


def test_unsupported_element_type() -> None:
    """A string input names the ONNX type and what to do (it said `numpy dtype
    object is not supported`)."""
    m = model([h.make_node("Identity", ["x"], ["y"], name="i")], [vi("x", [2], T.STRING)], [vi("y", [2], T.STRING)])
    msg = error_of(m, FrontendError)
    assert msg.startswith("graph input 'x' is a tensor of strings (ONNX type string), which lamina does not support")
    assert "tokenizing into int64 ids) before the model" in msg and "or remove the input" in msg
    assert "numpy dtype" not in msg


def _external_model(tmp_path: Path, location: str) -> Path:
    w = h.make_tensor("w", T.FLOAT, [2], [0.0, 0.0])
    w.ClearField("float_data")
    w.data_location = T.EXTERNAL
    for k, v in (("location", location), ("offset", "0"), ("length", "8")):
        e = w.external_data.add()
        e.key, e.value = k, v
    m = model(
        [h.make_node("Add", ["x", "w"], ["y"], name="add")], [vi("x", [2])], [vi("y", [2])], [w]
    )
    folder = tmp_path / "model"
    folder.mkdir(exist_ok=True)
    return save(m, folder / "m.onnx")


@pytest.mark.parametrize("location", ["../secret.bin", "/etc/passwd", "sub/../../secret.bin"])
def test_external_data_outside_the_folder_is_refused(tmp_path: Path, location: str) -> None:
    (tmp_path / "secret.bin").write_bytes(np.ones(2, np.float32).tobytes())
    msg = error_of(_external_model(tmp_path, location), FrontendError)
    assert "outside the model's folder" in msg and "initializer 'w'" in msg


def test_external_data_inside_the_folder_is_read(tmp_path: Path) -> None:
    path = _external_model(tmp_path, "w.bin")
    (path.parent / "w.bin").write_bytes(np.array([1, 2], np.float32).tobytes())
    exe = lamina.compile(str(path))
    np.testing.assert_array_equal(exe.run(np.zeros(2, np.float32))[0], [1, 2])


def test_absurd_input_shape_is_refused() -> None:
    msg = error_of(relu_model([1 << 30, 1 << 20]), FrontendError)
    assert "graph input 'x'" in msg and "memory budget" in msg and "LAMINA_MEMORY_BUDGET" in msg


def test_absurd_input_shapes_argument_is_refused() -> None:
    with pytest.raises(FrontendError, match="memory budget"):
        lamina.from_onnx(relu_model(["n", 3]), {"x": [1 << 40, 3]})
    with pytest.raises(FrontendError, match="negative"):
        lamina.from_onnx(relu_model(["n", 3]), {"x": [-1, 3]})
    with pytest.raises(FrontendError, match="dimension"):
        lamina.from_onnx(relu_model(["n", 3]), {"x": [1, 2, 3]})


def test_absurd_initializer_is_refused_before_reading(tmp_path: Path) -> None:
    w = onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[1 << 20, 1 << 20])
    m = model([h.make_node("Add", ["x", "w"], ["y"], name="add")], [vi("x", [1])], [vi("y", [1 << 20, 1 << 20])], [w])
    msg = error_of(save(m, tmp_path / "big.onnx"), FrontendError)
    assert "initializer 'w'" in msg and "4.0 TiB" in msg


def test_absurd_intermediate_is_refused() -> None:
    shape = h.make_tensor("s", T.INT64, [3], [1 << 16, 1 << 16, 1 << 16])
    m = model(
        [
            h.make_node("Expand", ["x", "s"], ["big"], name="expand"),
            h.make_node("ReduceSum", ["big"], ["y"], name="sum", keepdims=0),
        ],
        [vi("x", [1])],
        [vi("y", [])],
        [shape],
    )
    msg = error_of(m, FrontendError)
    assert "'expand' (Expand" in msg and "memory budget" in msg


def test_absurd_constant_of_shape_is_not_evaluated() -> None:
    shape = h.make_tensor("s", T.INT64, [2], [1 << 20, 1 << 20])
    m = model(
        [
            h.make_node("ConstantOfShape", ["s"], ["big"], name="cos"),
            h.make_node("ReduceSum", ["big"], ["y"], name="sum", keepdims=0),
        ],
        [],
        [vi("y", [])],
        [shape],
    )
    msg = error_of(m, FrontendError)
    assert "'cos' (ConstantOfShape" in msg and "memory budget" in msg


def test_memory_budget_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAMINA_MEMORY_BUDGET", "1K")
    assert "1.0 KiB" in error_of(relu_model([16, 32]), FrontendError)
    lamina.from_onnx(relu_model([16, 16]))  # exactly 1 KiB
    monkeypatch.setenv("LAMINA_MEMORY_BUDGET", "lots")
    assert "LAMINA_MEMORY_BUDGET='lots'" in error_of(relu_model(), FrontendError)


@pytest.mark.parametrize(
    "node, x_shape, y_shape, ref",
    [
        (h.make_node("Relu", ["x"], ["y"]), [0, 3], [0, 3], lambda x: np.maximum(x, 0)),
        (h.make_node("ReduceSum", ["x"], ["y"], keepdims=0), [0, 3], [], lambda x: x.sum()),
        (h.make_node("Softmax", ["x"], ["y"], axis=0), [0, 4], [0, 4], lambda x: x),
        (h.make_node("Transpose", ["x"], ["y"]), [2, 0], [0, 2], lambda x: x.T),
    ],
)
def test_zero_size_tensors(node, x_shape, y_shape, ref) -> None:  # type: ignore[no-untyped-def]
    m = model([node], [vi("x", x_shape)], [vi("y", y_shape)])
    x = np.zeros(x_shape, np.float32)
    (y,) = lamina.compile(m).run(x)
    np.testing.assert_array_equal(y, ref(x))


def test_zero_size_reduction_axis_matmul() -> None:
    w = h.make_tensor("w", T.FLOAT, [0, 3], [])
    m = model([h.make_node("MatMul", ["x", "w"], ["y"])], [vi("x", [2, 0])], [vi("y", [2, 3])], [w])
    (y,) = lamina.compile(m).run(np.zeros((2, 0), np.float32))
    np.testing.assert_array_equal(y, np.zeros((2, 3), np.float32))


@pytest.mark.parametrize(
    "make",
    [
        lambda p: p.write_bytes(relu_model().SerializeToString()[:20]),
        lambda p: save(model([h.make_node("Nope", ["x"], ["y"])], [vi("x", [1])], [vi("y", [1])]), p),
        lambda p: save(relu_model([1 << 40]), p),
    ],
)
def test_cli_prints_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], make) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.onnx"
    make(path)
    assert cli.main(["run", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("lamina: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err


def test_model_given_as_bytes_or_wrong_type() -> None:
    data = relu_model().SerializeToString()
    assert str(lamina.from_onnx(data).ops.first.sym_name.data) == "main"  # type: ignore[union-attr]
    assert "not a valid ONNX protobuf" in error_of(b"\xff" * 10)  # type: ignore[arg-type]
    assert "got int" in error_of(42)  # type: ignore[arg-type]


def test_input_shapes_for_unknown_inputs() -> None:
    with pytest.raises(FrontendError, match="'nope', which the model has no input of; its inputs are 'x'"):
        lamina.from_onnx(relu_model(), {"nope": [1, 2]})


def test_absurd_graph_module_is_refused_before_lowering() -> None:
    t = "tensor<100000000000xf32>"
    module = lamina.parse(
        f"func.func @main(%x: {t}) -> {t} {{\n  %0 = relay.relu %x : {t}\n"
        f"  func.return %0 : {t}\n}}"
    )
    with pytest.raises(LaminaError, match="memory budget"):
        lamina.compile(module)


def test_external_data_through_a_symlink_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.bin"
    secret.write_bytes(np.ones(2, np.float32).tobytes())
    path = _external_model(tmp_path, "link.bin")
    (path.parent / "link.bin").symlink_to(secret)
    assert "outside the model's folder" in error_of(path, FrontendError)


def _c(name: str, arr: object) -> onnx.TensorProto:
    return onnx.numpy_helper.from_array(np.asarray(arr), name)


X23 = vi("x", [2, 3])
X4 = vi("x", [1, 1, 2, 2])


@pytest.mark.parametrize(
    "node, inputs, inits, expected",
    [
        (h.make_node("Transpose", ["x"], ["y"], perm=[0, 0], name="t"), [X23], [], "not a permutation"),
        (h.make_node("Reshape", ["x", "s"], ["y"], name="r"), [X23], [_c("s", np.array([4, -1, 7], np.int64))], "cannot reshape"),
        (h.make_node("Concat", ["x", "x"], ["y"], axis=5, name="c"), [X23], [], "out of range"),
        (h.make_node("Slice", ["x", "a", "b", "ax", "st"], ["y"], name="s"), [X23], [_c(n, np.array([v], np.int64)) for n, v in (("a", 0), ("b", 2), ("ax", 0), ("st", 0))], "step of axis 0 is 0"),
        (h.make_node("Conv", ["x", "w"], ["y"], name="conv"), [X4], [_c("w", np.zeros((1, 1, 5, 5), np.float32))], "negative dimension"),
        (h.make_node("Split", ["x", "s"], ["y", "z"], axis=1, name="sp"), [X23], [_c("s", np.array([5, 5], np.int64))], "do not add up"),
        (h.make_node("Range", ["a", "b", "d"], ["y"], name="range"), [], [_c("a", np.array(0, np.int64)), _c("b", np.array(5, np.int64)), _c("d", np.array(0, np.int64))], "'range' (Range"),
        (h.make_node("MatMul", ["x", "x"], ["y"], name="mm"), [X23], [], "contraction dimensions differ"),
    ],
    ids=["perm", "reshape", "concat-axis", "slice-step", "conv-kernel", "split", "range-delta", "matmul"],
)
def test_malformed_nodes(node, inputs, inits, expected) -> None:  # type: ignore[no-untyped-def]
    outs = [h.make_tensor_value_info(o, T.FLOAT, None) for o in node.output]
    g = h.make_graph([node], "g", inputs, outs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)], ir_version=8)
    msg = error_of(m, FrontendError)
    assert expected in msg and f"'{node.name}' ({node.op_type}" in msg


def test_out_of_range_axis_is_refused_before_shape_inference() -> None:
    # onnx's C++ shape inference crashes (SIGSEGV) on this node: it must not run.
    node = h.make_node("LayerNormalization", ["x", "w"], ["y"], axis=1 << 31, name="ln")
    m = model([node], [vi("x", [2, 3]), vi("w", [3])], [vi("y", [2, 3])])
    assert "attribute axis = 2147483648 is out of range" in error_of(m, FrontendError)


def test_split_num_outputs_must_match_the_outputs() -> None:
    node = h.make_node("Split", ["x"], ["a", "b"], axis=0, num_outputs=3, name="split")
    m = model([node], [vi("x", [6])], [vi("a", [3]), vi("b", [3])], opset=18)
    assert "num_outputs is 3 but the node has 2 output(s)" in error_of(m, FrontendError)
    m.graph.node[0].attribute[1].i = 1  # fewer: onnx's shape inference would abort the process
    assert "num_outputs is 1 but the node has 2 output(s)" in error_of(m, FrontendError)


def test_invalid_utf8_names() -> None:
    m = relu_model()
    raw = m.SerializeToString().replace(b"\x12\x01y", b"\x12\x01\xff")  # output 'y'
    with pytest.raises(LaminaError):
        lamina.from_onnx(raw)


def test_mutated_models_only_fail_as_lamina_errors(tmp_path: Path) -> None:
    """A bounded sample of bench/fuzz_onnx.py (each mutant in a forked child)."""
    import argparse
    import importlib.util
    import random
    import sys

    path = Path(__file__).resolve().parent.parent / "bench" / "fuzz_onnx.py"
    spec = importlib.util.spec_from_file_location("lamina_bench_fuzz_onnx", path)
    assert spec and spec.loader
    fuzz = sys.modules.get(spec.name) or importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = fuzz
    spec.loader.exec_module(fuzz)
    corpus = fuzz.seeds(limit=120)
    ops = sorted({n.op_type for m in corpus for n in m.graph.node})
    args = argparse.Namespace(mutations=150, compile=0.0, timeout=20.0, out=tmp_path, no_isolate=False)
    found = fuzz.run(corpus, ops, random.Random(20261121), args)
    assert not found, found


def test_lrn_with_a_huge_window_compiles_to_a_bounded_loop() -> None:
    # size = 2**31 once compiled to a 2**31-step loop per element (a hang).
    x = np.random.default_rng(0).random((1, 5, 2, 2)).astype(np.float32)
    outs = []
    for size in (9, 1 << 31):
        node = h.make_node("LRN", ["x"], ["y"], size=size, alpha=0.3, beta=0.75, bias=1.0)
        m = model([node], [vi("x", [1, 5, 2, 2])], [vi("y", [1, 5, 2, 2])])
        outs.append(lamina.compile(m).run(x)[0])
    sq = (x.astype(np.float64) ** 2).sum(1, keepdims=True)  # every window: all channels
    np.testing.assert_allclose(outs[0], x / (1 + 0.3 / 9 * sq) ** 0.75, rtol=1e-5)
    np.testing.assert_allclose(outs[1], x / (1 + 0.3 / (1 << 31) * sq) ** 0.75, rtol=1e-5)


def test_dropout_with_a_run_time_training_mode_is_refused() -> None:
    # Treating it as the identity would be silently wrong when it is true.
    nodes = [h.make_node("Dropout", ["x", "ratio", "training"], ["y"], name="drop")]
    m = model(
        nodes,
        [vi("x", [2, 3]), vi("ratio", [], T.FLOAT), vi("training", [], T.BOOL)],
        [vi("y", [2, 3])],
    )
    msg = error_of(m, UnsupportedOpError)
    assert "drop" in msg and "training_mode is a run-time input" in msg


@pytest.mark.parametrize("fmod", [2, -1])
def test_mod_fmod_must_be_0_or_1(fmod: int) -> None:
    nodes = [h.make_node("Mod", ["a", "b"], ["c"], name="m", fmod=fmod)]
    m = model(nodes, [vi("a", [3]), vi("b", [3])], [vi("c", [3])])
    msg = error_of(m)
    assert "fmod must be 0 or 1" in msg and f"got {fmod}" in msg
