"""lamina's quantizer (`lamina.quantize`): annotate -> calibrate (the float model
compiled by lamina) -> realize (a QDQ ONNX model). The quantized models compile
to integer ops, keep the float model's logits (cosine similarity >= 0.99) with
every calibration method and per-tensor weights, run in onnxruntime as int8,
and report what stays float; and `lamina quantize` does the same from files.
"""

from __future__ import annotations

import logging

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import lamina
from lamina.errors import InputError, LaminaError
from lamina.quantization.annotate import fold_batch_norms
from lamina.quantization.calibrate import kl_threshold
from lamina.quantization.realize import activation_params, weight_params
from lamina.tools import cli
from lamina.tools.models import resnet, transformer_block
from tests import ort_int8
from tests.test_qnn_qdq import statistics

SHAPE = (1, 3, 32, 32)


@pytest.fixture(scope="module")
def cnn() -> onnx.ModelProto:
    """A two-stage ResNet of BasicBlocks (batch norms, residual adds, a
    downsample, max pool, global average pool, Gemm), random weights."""
    return resnet((1, 1), (8, 16), image_size=32, num_classes=10, seed=3)


def inputs(n: int, seed: int, shape: tuple[int, ...] = SHAPE) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(n)]


def cosines(float_model: onnx.ModelProto, quantized: onnx.ModelProto, xs: list[np.ndarray]) -> np.ndarray:
    """The cosine similarity of the two models' outputs (lamina), per input."""
    f, q = lamina.compile(float_model), lamina.compile(quantized)
    out = []
    for x in xs:
        a, b = f.run(x)[0].ravel().astype(np.float64), q.run(x)[0].ravel().astype(np.float64)
        out.append(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    return np.array(out)


@pytest.mark.parametrize("method", ["minmax", "percentile", "kl"])
def test_quantized_cnn_is_integer_and_keeps_the_logits(cnn, method):
    result = lamina.quantize(cnn, inputs(16, 0), calibrate=method)
    assert result.left == []
    stats = statistics(result.model)
    assert not any(".left." in k for k in stats), stats
    assert stats["qnn-fold-qdq.conv2d"] == 6 and stats["qnn-fold-qdq.add"] == 2
    assert stats["qnn-fold-qdq.dense-float-out"] == 1  # the logits stay float: not quantized
    assert cosines(cnn, result.model, inputs(20, 1)).min() >= 0.99


def test_calibration_methods_differ_where_they_should(cnn):
    """Percentile and KL ranges lie within min-max (they clip outliers); every
    range holds 0 after realization (u8 with a zero point)."""
    xs = inputs(16, 0)
    ranges = {m: lamina.quantize(cnn, xs, calibrate=m).ranges for m in ("minmax", "percentile", "kl")}
    for t, (lo, hi) in ranges["minmax"].items():
        for m in ("percentile", "kl"):
            assert lo <= ranges[m][t][0] <= ranges[m][t][1] <= hi
    assert any(ranges["kl"][t] != ranges["minmax"][t] for t in ranges["minmax"])


def test_per_tensor_weights(cnn):
    result = lamina.quantize(cnn, inputs(8, 0), per_channel=False)
    scales = [numpy_helper.to_array(i) for i in result.model.graph.initializer if i.name.endswith("_scale")]
    assert scales and all(s.ndim == 0 for s in scales)
    assert cosines(cnn, result.model, inputs(10, 1)).min() >= 0.99


def test_skip_leaves_a_node_float_and_reports_it(cnn, caplog):
    conv = next(n for n in cnn.graph.node if n.op_type == "Conv" and n.name == "layer1.0.conv2")
    with caplog.at_level(logging.INFO, logger="lamina.quantization"):
        result = lamina.quantize(cnn, inputs(8, 0), skip=[conv.name])
    assert [(x.node, x.op, x.reason) for x in result.left] == [("layer1.0.conv2", "Conv", "skipped")]
    assert "left in float: layer1.0.conv2 (Conv): skipped" in caplog.text
    skipped = next(n for n in result.model.graph.node if n.name == conv.name)
    assert list(skipped.input) == [conv.input[0], f"{conv.input[1]}_bn_folded", skipped.input[2]]
    stats = statistics(result.model)
    # the conv before it keeps an integer product, its output (read by the
    # skipped conv only) is not quantized
    assert stats["qnn-fold-qdq.conv2d"] == 4 and stats["qnn-fold-qdq.conv2d-float-out"] == 1
    with pytest.raises(LaminaError, match=r"skip names \['nope'\] match no node"):
        lamina.quantize(cnn, inputs(2, 0), skip=["nope"])


def test_transformer_block_reports_its_float_layers():
    """Softmax and layer norms (and Gelu's erf formula) stay float and are
    listed; the matmuls are integer; the output keeps its direction."""
    model = transformer_block(seq=8, d_model=32, heads=2, d_ff=64, activation="Relu")
    shape = (1, 8, 32)
    result = lamina.quantize(model, inputs(16, 0, shape))
    reasons = {(x.op, x.reason) for x in result.left}
    assert ("Softmax", "no-integer-form") in reasons and ("LayerNormalization", "no-integer-form") in reasons
    assert statistics(result.model).get("qnn-fold-qdq.matmul", 0) >= 6
    assert cosines(model, result.model, inputs(10, 1, shape)).min() >= 0.99


def test_reduce_mean_and_flatten_are_integer():
    """torchvision's exports pool with ReduceMean (axes as an input): an i32 sum,
    requantized; the Flatten after it keeps its scale."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    fc = numpy_helper.from_array(rng.standard_normal((5, 4)).astype(np.float32), "fc")
    axes = numpy_helper.from_array(np.array([2, 3], np.int64), "axes")
    nodes = [
        onnx.helper.make_node("Conv", ["input", "w"], ["c"], pads=[1, 1, 1, 1]),
        onnx.helper.make_node("Relu", ["c"], ["r"]),
        onnx.helper.make_node("ReduceMean", ["r", "axes"], ["m"], keepdims=1),
        onnx.helper.make_node("Flatten", ["m"], ["f"]),
        onnx.helper.make_node("Gemm", ["f", "fc"], ["logits"], transB=1),
    ]
    graph = onnx.helper.make_graph(
        nodes, "pool", [onnx.helper.make_tensor_value_info("input", onnx.TensorProto.FLOAT, [1, 3, 8, 8])],
        [onnx.helper.make_tensor_value_info("logits", onnx.TensorProto.FLOAT, [1, 5])], [w, fc, axes],
    )
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 18)])
    model.ir_version = 8
    result = lamina.quantize(model, inputs(8, 0, (1, 3, 8, 8)))
    assert result.left == []
    assert statistics(result.model) == {
        "qnn-fold-qdq.conv2d": 1, "qnn-fold-qdq.mean": 1, "qnn-fold-qdq.reshape": 1, "qnn-fold-qdq.dense-float-out": 1,
    }
    assert cosines(model, result.model, inputs(5, 1, (1, 3, 8, 8))).min() >= 0.99


def test_realized_model_runs_as_int8_in_onnxruntime(cnn):
    """onnxruntime fuses the QDQ model into its int8 kernels; lamina's integer
    build gives the same logits (float: the Gemm's output is not quantized).
    Where onnxruntime's u8 x s8 products saturate (no VNNI: `tests.ort_int8`),
    its float run of the QDQ graph is the reference instead."""
    ort = pytest.importorskip("onnxruntime")
    q = lamina.quantize(cnn, inputs(8, 0)).model
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    if not ort_int8.EXACT:
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(q.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    exe = lamina.compile(q)
    for x in inputs(5, 2):
        np.testing.assert_allclose(exe.run(x)[0], sess.run(None, {"input": x})[0], rtol=1e-4, atol=1e-4)


def test_batch_norms_fold_into_convolutions(cnn):
    folded = fold_batch_norms(cnn)
    assert not any(n.op_type == "BatchNormalization" for n in folded.graph.node)
    x = inputs(1, 4)[0]
    np.testing.assert_allclose(lamina.compile(folded).run(x)[0], lamina.compile(cnn).run(x)[0], rtol=1e-4, atol=1e-4)


def test_parameters():
    """u8 activations hold 0 exactly; s8 weights are symmetric per channel."""
    scale, zp = activation_params(-1.0, 3.0)
    assert scale == np.float32(4 / 255) and zp == 64 and np.rint(1.0 / scale) + zp <= 255
    assert activation_params(0.5, 2.0) == (np.float32(2 / 255), 0)  # widened to hold 0
    assert activation_params(0.0, 0.0) == (np.float32(1.0), 0)
    w = np.array([[1.0, -2.0], [0.5, 0.25], [0.0, 0.0]], np.float32)
    q, s = weight_params(w, 0)
    np.testing.assert_array_equal(s, np.float32([2 / 127, 0.5 / 127, 1.0]))
    np.testing.assert_array_equal(q, [[64, -127], [127, 64], [0, 0]])
    q, s = weight_params(w, None)
    assert s.shape == () and q.min() == -127


def test_kl_threshold_clips_outliers_but_not_a_dense_range():
    rng = np.random.default_rng(0)
    dense = np.abs(rng.uniform(-1, 1, 100_000))
    hist, edges = np.histogram(dense, 2048, (0, 1))
    assert kl_threshold(hist, edges, 127) > 0.95
    tailed = np.abs(np.concatenate([rng.standard_normal(100_000), [40.0]]))
    hist, edges = np.histogram(tailed, 2048, (0, 40))
    assert 2.0 < kl_threshold(hist, edges, 127) < 10.0


def test_bad_calibration_inputs_are_named(cnn):
    with pytest.raises(InputError, match="unknown calibration method 'entropy'"):
        lamina.quantize(cnn, inputs(1, 0), calibrate="entropy")
    with pytest.raises(InputError, match=r"sample 0 lacks inputs \['input'\]"):
        lamina.quantize(cnn, [{"x": inputs(1, 0)[0]}])
    with pytest.raises(LaminaError, match="no calibration inputs"):
        lamina.quantize(cnn, [])


def test_quantized_model_is_accepted_where_models_are():
    """`lamina.compile(lamina.quantize(...))` compiles its QDQ `.model`, and so do
    `from_onnx` and the ONNX backend; another object is refused, naming what is
    accepted."""
    from lamina.tools.demo import mlp_model
    from lamina.tools.onnx_backend import LaminaBackend

    xs = inputs(4, 0, (1, 16))
    q = lamina.quantize(mlp_model((16, 8, 4)), xs)
    np.testing.assert_array_equal(lamina.compile(q).run(xs[0])[0], lamina.compile(q.model).run(xs[0])[0])
    assert "qnn." in lamina.print_ir(lamina.from_onnx(q))
    np.testing.assert_array_equal(LaminaBackend.prepare(q).run([xs[0]])[0], lamina.compile(q.model).run(xs[0])[0])
    with pytest.raises(LaminaError, match=r"bytes, an onnx\.ModelProto or lamina\.quantize's QuantizedModel, got list"):
        lamina.compile([q.model])


# ------------------------------------------------------------------------ CLI
@pytest.fixture(scope="module")
def cnn_file(cnn, tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("q") / "cnn.onnx"
    onnx.save(cnn, str(path))
    return str(path)


def test_cli_quantize_folder_to_onnx_and_mlir(cnn, cnn_file, tmp_path, capsys):
    folder = tmp_path / "cal"
    folder.mkdir()
    for k, x in enumerate(inputs(8, 0)):
        np.save(folder / f"{k:02d}.npy", x)
    out = tmp_path / "q.onnx"
    assert cli.main(["quantize", cnn_file, "--calibration", str(folder), "-o", str(out), "--calibrate", "percentile"]) == 0
    text = capsys.readouterr().out
    assert "quantized cnn.onnx (percentile on 8 inputs, weights per channel)" in text
    assert "none left in float" in text
    assert cosines(cnn, onnx.load(str(out)), inputs(5, 1)).min() >= 0.99
    ir = tmp_path / "q.mlir"
    assert cli.main(["quantize", cnn_file, "--calibration", str(folder), "-o", str(ir), "--per-tensor"]) == 0
    assert "weights per tensor" in capsys.readouterr().out
    text = ir.read_text()
    assert "qnn.conv2d" in text and "relay.conv2d" not in text
    x = inputs(1, 5)[0]
    np.testing.assert_allclose(lamina.compile(lamina.parse(text)).run(x)[0], lamina.compile(cnn).run(x)[0], atol=0.5)


def test_cli_quantize_npz_with_skip(cnn_file, tmp_path, capsys):
    data = tmp_path / "cal.npz"
    np.savez(data, input=np.stack(inputs(6, 0)))  # samples stacked along a first axis
    out = tmp_path / "q.onnx"
    args = ["quantize", cnn_file, "--calibration", str(data), "-o", str(out), "--skip", "conv1", "layer1.0.conv1"]
    assert cli.main(args) == 0
    text = capsys.readouterr().out
    assert "on 6 inputs" in text and "left in float (4):" in text
    assert "  conv1 (Conv): skipped\n  conv1.relu (Relu): after-a-float-op\n" in text
    assert "  layer1.0.conv1 (Conv): skipped\n  layer1.0.conv1.relu (Relu): after-a-float-op\n" in text


def test_cli_quantize_errors(cnn_file, tmp_path, capsys):
    np.savez(tmp_path / "wrong.npz", image=np.stack(inputs(2, 0)))
    cases = [
        (["-o", str(tmp_path / "q.so"), "--calibration", str(tmp_path)], "give -o FILE.onnx (QDQ) or FILE.mlir"),
        (["-o", str(tmp_path / "q.onnx"), "--calibration", str(tmp_path / "none")], "no such file or folder"),
        (["-o", str(tmp_path / "q.onnx"), "--calibration", str(tmp_path / "wrong.npz")], r"lacks inputs ['input']"),
    ]
    for extra, message in cases:
        assert cli.main(["quantize", cnn_file, *extra]) == 1
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["quantize", cnn_file, "-o", str(tmp_path / "q.onnx")])  # --calibration is required


def test_calibration_samples_of_the_wrong_shape_are_named(cnn):
    """Checked before anything is compiled (a wrong shape was blamed on a Gemm):
    the sample, the input, its shape and the model's."""
    samples = [*inputs(2, 0), inputs(1, 0, (1, 3, 16, 16))[0]]
    with pytest.raises(InputError) as e:
        lamina.quantize(cnn, samples)
    assert str(e.value) == (
        "quantize: calibration sample 2: input 'input' has shape [1, 3, 16, 16], but the model's "
        "input 'input' is [1, 3, 32, 32]; give samples of the input's shape (one inference's input each)"
    )
    with pytest.raises(InputError, match=r"sample 0: input 'input' has shape \[3, 32, 32\]"):
        lamina.quantize(cnn, [inputs(1, 0)[0][0]])
