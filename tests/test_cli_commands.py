"""The `lamina` command: compile -o OUT.so, run on a library, bench, viz, demo."""

from __future__ import annotations

import shutil

import numpy as np
import onnx
import pytest

import lamina
from lamina.tools import cli, viz
from lamina.tools.demo import mlp_model
from lamina.tools.models import resnet


@pytest.fixture(scope="module")
def model_path(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("m") / "mlp.onnx"
    onnx.save(mlp_model((16, 8, 4)), str(path))
    return str(path)


@pytest.fixture(scope="module")
def cnn_path(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("cnn") / "cnn.onnx"
    onnx.save(resnet((1, 1), (4, 8), image_size=16, num_classes=5), str(path))
    return str(path)


@pytest.fixture(scope="module")
def library(model_path, tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("lib") / "mlp.so"
    assert cli.main(["compile", model_path, "-o", str(out)]) == 0
    return str(out)


def _x() -> np.ndarray:
    return np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 16)


def _onnxruntime(path: str, x: np.ndarray) -> np.ndarray:
    ort = pytest.importorskip("onnxruntime")
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return sess.run(None, {"input": x})[0]


# ---------------------------------------------------------------- compile / run
def test_compile_then_run_reproduces_onnxruntime(model_path, library, tmp_path, capsys):
    np.save(tmp_path / "x.npy", _x())
    out = tmp_path / "out.npz"
    assert cli.main(["run", library, "--input", f"input={tmp_path / 'x.npy'}", "--output", str(out)]) == 0
    np.testing.assert_allclose(np.load(out)["probs"], _onnxruntime(model_path, _x()), rtol=1e-5, atol=1e-6)


def test_compile_reports_the_library(model_path, tmp_path, capsys):
    out = tmp_path / "m.so"
    assert cli.main(["compile", model_path, "-o", str(out), "--opt-level", "1", "--threads", "1"]) == 0
    text = capsys.readouterr().out
    assert f"-> {out}" in text and "inputs:  input: float32[1, 16]" in text
    assert lamina.load(out).output_names == ["probs"]


def test_time_passes_prints_a_table(model_path, tmp_path, capsys):
    assert cli.main(["compile", model_path, "-o", str(tmp_path / "m.so"), "--time-passes"]) == 0
    err = capsys.readouterr().err
    for row in ("Pass timing", "fuse-ops", "lower-tir-to-llvm", "LLVM code generation", "export", "total"):
        assert row in err


def test_print_ir_after_a_pass(model_path, tmp_path, capsys):
    assert cli.main(["compile", model_path, "-o", str(tmp_path / "m.so"), "--print-ir-after", "fuse-ops"]) == 0
    err = capsys.readouterr().err
    assert "// -----// IR Dump After fuse-ops //----- //" in err and "relay.fused" in err
    assert "IR Dump After cse" not in err


def test_emit_honours_the_opt_level(model_path, capsys):
    assert cli.main(["compile", model_path, "--emit", "relay", "-O", "0"]) == 0
    assert "relay.fused" not in capsys.readouterr().out
    assert cli.main(["compile", model_path, "--emit", "relay", "-O", "3"]) == 0
    assert "relay.fused" in capsys.readouterr().out


def test_compile_accepts_a_graph_level_mlir_file(model_path, tmp_path, capsys):
    mlir = tmp_path / "m.mlir"
    assert cli.main(["compile", model_path, "--emit", "relay", "-O", "0", "-o", str(mlir)]) == 0
    out = tmp_path / "m.so"
    assert cli.main(["compile", str(mlir), "-o", str(out)]) == 0
    ref = lamina.compile(model_path).run(_x())[0]
    np.testing.assert_allclose(lamina.load(out).run(_x())[0], ref, rtol=1e-6)


def test_run_converts_float64_inputs(library, tmp_path, capsys):
    np.save(tmp_path / "x.npy", _x().astype(np.float64))
    assert cli.main(["run", library, "--input", f"input={tmp_path / 'x.npy'}"]) == 0
    assert "converted float64 to float32" in capsys.readouterr().out


# ------------------------------------------------------------------------ bench
def test_bench_reports_the_ratio_to_onnxruntime(model_path, capsys):
    pytest.importorskip("onnxruntime")
    assert cli.main(["bench", model_path, "--compare", "onnxruntime", "--threads", "1,2", "--runs", "5"]) == 0
    out = capsys.readouterr().out
    for word in ("median", "p10", "p90", "inferences/s", "vs onnxruntime", "max |lamina - onnxruntime|"):
        assert word in out
    lamina_rows = [line for line in out.splitlines() if "│ lamina " in line]
    assert len(lamina_rows) == 2 and all(line.rstrip(" │").endswith("x") for line in lamina_rows)


def test_bench_profile_lists_kernels(model_path, capsys):
    assert cli.main(["bench", model_path, "--runs", "3", "--profile"]) == 0
    out = capsys.readouterr().out
    assert "Kernels" in out and "softmax" in out


def test_bench_a_library(library, capsys):
    assert cli.main(["bench", library, "--runs", "3"]) == 0
    assert "lamina" in capsys.readouterr().out


# -------------------------------------------------------------------------- viz
def test_viz_draws_fused_groups_as_clusters(cnn_path, tmp_path, capsys):
    out = tmp_path / "g.dot"
    assert cli.main(["viz", cnn_path, "-o", str(out)]) == 0
    dot = out.read_text()
    assert dot.startswith("digraph lamina {") and dot.rstrip().endswith("}")
    labels = list(viz.clusters(dot))
    assert labels and all(label.startswith("fused #") for label in labels)
    assert "conv2d" in labels[0]
    assert "wrote" in capsys.readouterr().out


def test_viz_without_passes_has_no_clusters(cnn_path, tmp_path):
    out = tmp_path / "g.dot"
    assert cli.main(["viz", cnn_path, "-o", str(out), "--pipeline", "none"]) == 0
    assert list(viz.clusters(out.read_text())) == []


def test_viz_draws_byoc_partitions(model_path, tmp_path):
    from lamina.backends import available_targets

    if "blas" not in available_targets():
        pytest.skip("no blas target")
    out = tmp_path / "g.dot"
    assert cli.main(["viz", model_path, "-o", str(out), "--target", "blas"]) == 0
    assert any(label.startswith("blas: @") for label in viz.clusters(out.read_text()))


def test_viz_svg_needs_graphviz(model_path, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert cli.main(["viz", model_path, "-o", str(tmp_path / "g.svg")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "apt install graphviz" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_viz_svg_with_graphviz(model_path, tmp_path):
    out = tmp_path / "g.svg"
    assert cli.main(["viz", model_path, "-o", str(out)]) == 0
    assert "<svg" in out.read_text()


def test_viz_rejects_unknown_formats(model_path, tmp_path, capsys):
    assert cli.main(["viz", model_path, "-o", str(tmp_path / "g.jpg")]) == 1
    assert "use .dot, .svg or .png" in capsys.readouterr().err


# ------------------------------------------------------------------------- demo
def test_demo_checks_and_times_a_cnn(monkeypatch, capsys):
    from lamina.tools import models

    monkeypatch.setattr(models, "resnet_mini", lambda: resnet((1, 1), (4, 8), image_size=128, num_classes=10))
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    for text in ("lower-tir-to-llvm", "compiled in", "-> OK", "latency: median", "identical outputs"):
        assert text in out


# ----------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "{tmp}/missing.onnx"], "cannot read ONNX model '{tmp}/missing.onnx': no such file"),
        (["run", "{tmp}"], "it is a directory"),
        (["compile", "{tmp}/bad.onnx", "-o", "{tmp}/m.so"], "not a valid ONNX"),
        (["compile", "{model}", "-o", "{tmp}/nowhere/m.so"], "folder '{tmp}/nowhere' does not exist"),
        (["compile", "{model}", "-o", "{tmp}"], "cannot write '{tmp}'"),
        (["compile", "{model}"], "no output: give -o OUT.so"),
        (["run", "{model}", "--output", "{tmp}/nowhere/o.npz"], "does not exist"),
        (["run", "{tmp}/bad.so"], "not a shared library"),
        (["bench", "{tmp}/bad.so", "--compare", "onnxruntime"], "needs the ONNX model"),
        (["viz", "{model}", "-o", "{tmp}/nowhere/g.dot"], "does not exist"),
        (["run", "{model}", "--input", "{tmp}/x.npy"], "expected NAME=FILE.npy"),
        (["run", "{model}", "--input", "input={tmp}"], "is a directory"),
    ],
)
def test_bad_paths_are_one_line_errors(argv, message, model_path, tmp_path, capsys):
    (tmp_path / "bad.onnx").write_text("not a model")
    (tmp_path / "bad.so").write_text("not a library")
    fill = {"tmp": str(tmp_path), "model": model_path}
    assert cli.main([a.format(**fill) for a in argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("lamina: error: ") and err.count("\n") == 1
    assert message.format(**fill) in err and "Traceback" not in err
    assert not (tmp_path / "m.so").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "m.onnx", "--threads", "0"],
        ["bench", "m.onnx", "--runs", "x"],
        ["compile", "m.onnx", "-O", "7"],
        ["compile", "m.onnx", "--emit", "asm"],
        ["viz", "m.onnx"],
        [],
    ],
)
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    assert e.value.code == 2


def test_debug_shows_the_traceback(tmp_path):
    with pytest.raises(lamina.LaminaError):
        cli.main(["--debug", "run", str(tmp_path / "missing.onnx")])
    with pytest.raises(lamina.LaminaError):
        cli.main(["run", str(tmp_path / "missing.onnx"), "--debug"])


def test_run_a_graph_level_mlir_file(model_path, tmp_path, capsys):
    mlir = tmp_path / "m.mlir"
    assert cli.main(["compile", model_path, "--emit", "relay", "-o", str(mlir)]) == 0
    assert cli.main(["run", str(mlir)]) == 0
    assert "probs: float32[1, 4]" in capsys.readouterr().out


def test_save_model_writes_the_demo_model(tmp_path, capsys):
    out = tmp_path / "resnet.onnx"
    assert cli.main(["demo", "--save-model", str(out)]) == 0
    assert onnx.load(str(out)).graph.name == "resnet_mini"
