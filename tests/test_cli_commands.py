"""The `lamina` command: compile -o OUT.so, run on a library, bench, viz, demo."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

import lamina
from lamina.errors import LaminaError
from lamina.target import Target
from lamina.tools import arguments, cli, viz
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
    for row in ("Pass timing", "fuse-ops", "lower-tir-to-llvm", "LLVM object code", "export", "total"):
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


def test_run_refuses_float64_inputs_of_a_float32_model(library, tmp_path, capsys):
    """As onnxruntime: no conversion (which would be silent and maybe lossy)."""
    np.save(tmp_path / "x.npy", _x().astype(np.float64))
    assert cli.main(["run", library, "--input", f"input={tmp_path / 'x.npy'}"]) == 1
    assert "is float64, but the model takes float32" in capsys.readouterr().err


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
    assert any("conv2d" in label for label in labels)
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


# -------------------------------------------- round trips (README's promises)
LAMINA = Path(sys.executable).parent / "lamina"


def _lamina(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LAMINA), *argv], cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def big_mlp(tmp_path_factory) -> Path:
    """An MLP with weights over 1 KiB (those `print_ir` elides by default)."""
    path = tmp_path_factory.mktemp("big") / "m.onnx"
    onnx.save(mlp_model((64, 32, 10)), str(path))
    return path


def _blobs(text: str) -> int:
    """How many weights the IR text holds (in its `dialect_resources` section)."""
    return text.partition("dialect_resources")[2].count(': "0x')


def _x64() -> np.ndarray:
    return np.linspace(-1, 1, 64, dtype=np.float32).reshape(1, 64)


def test_emitted_ir_with_its_weights_compiles_again(big_mlp, tmp_path):
    """`lamina compile m.onnx --emit relay --print-resources -o m.mlir && lamina
    compile m.mlir -o m.so` gives what compiling the ONNX model gives."""
    for argv in (
        ["compile", str(big_mlp), "--emit", "relay", "--print-resources", "-o", "m.mlir"],
        ["compile", "m.mlir", "-o", "m.so"],
        ["compile", str(big_mlp), "-o", "ref.so"],
    ):
        proc = _lamina(*argv, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
    np.testing.assert_array_equal(
        lamina.load(tmp_path / "m.so").run(_x64())[0], lamina.load(tmp_path / "ref.so").run(_x64())[0]
    )


def test_emit_to_a_file_writes_every_weight(big_mlp, tmp_path, capsys):
    """An MLIR user expects `-o FILE` to be complete: without --print-resources."""
    assert cli.main(["compile", str(big_mlp), "--emit", "relay", "-O", "0", "-o", str(tmp_path / "m.mlir")]) == 0
    assert _blobs((tmp_path / "m.mlir").read_text()) == 4  # 2 weights, 2 biases
    assert cli.main(["compile", str(tmp_path / "m.mlir"), "-o", str(tmp_path / "m.so")]) == 0
    ref = lamina.compile(str(big_mlp)).run(_x64())[0]
    np.testing.assert_allclose(lamina.load(tmp_path / "m.so").run(_x64())[0], ref, rtol=1e-6)


def test_emit_to_stdout_elides_weights_unless_asked(big_mlp, tmp_path, capsys):
    assert cli.main(["compile", str(big_mlp), "--emit", "relay"]) == 0
    elided = capsys.readouterr().out
    assert cli.main(["compile", str(big_mlp), "--emit", "relay", "--print-resources"]) == 0
    full = capsys.readouterr().out
    assert _blobs(full) == _blobs(elided) + 2 == 4  # + the two weight matrices
    assert len(full) > 10 * len(elided)
    (tmp_path / "elided.mlir").write_text(elided)
    assert cli.main(["compile", str(tmp_path / "elided.mlir"), "-o", str(tmp_path / "m.so")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no data" in err
    assert "--print-resources" in err and "lamina.print_ir(m, resources_limit=None)" in err
    assert "resources=True" not in err


def test_elided_weights_error_names_the_real_keyword(big_mlp):
    text = lamina.print_ir(lamina.from_onnx(str(big_mlp)))
    with pytest.raises(lamina.LaminaError, match=r"resources_limit=None") as e:
        lamina.compile(lamina.parse(text))
    assert "resources=True" not in str(e.value)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--print-resources", "-o", "{tmp}/m.so"], "add --emit LEVEL"),
        (["--emit", "llvm", "--print-resources"], "LLVM IR takes them as run-time parameters"),
        (["-o", "{tmp}/m.mlir"], "cannot write a shared library to '{tmp}/m.mlir': the name says MLIR text; give -o OUT.so, or add --emit relay|te|tir"),
        (["-o", "{tmp}/m.ll"], "add --emit llvm"),
        (["-o", "{tmp}/m.onnx"], "the name says an ONNX model"),
        (["--emit", "relay", "-o", "{tmp}/m.so"], "--emit writes text; give -o FILE.mlir"),
    ],
)
def test_compile_refuses_outputs_named_like_something_else(argv, message, model_path, tmp_path, capsys):
    fill = {"tmp": str(tmp_path)}
    assert cli.main(["compile", model_path, *(a.format(**fill) for a in argv)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("lamina: error: ") and err.count("\n") == 1
    assert message.format(**fill) in err
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------- --target
def test_target_before_the_model(model_path, tmp_path):
    """`lamina compile --target blas m.onnx -o m.so`: the option takes one value
    (names separated by commas), so it does not swallow the model."""
    from lamina.backends import available_targets  # skip when blas cannot load

    if "blas" not in available_targets():
        pytest.skip("no blas target")
    proc = _lamina("compile", "--target", "blas", model_path, "-o", "m.so", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    proc = _lamina("viz", "--target", "blas", model_path, "-o", "g.dot", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert any(label.startswith("blas: @") for label in viz.clusters((tmp_path / "g.dot").read_text()))
    proc = _lamina("bench", "--target", "blas,c", model_path, "--runs", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(
        lamina.load(tmp_path / "m.so").run(_x())[0], lamina.compile(model_path).run(_x())[0], rtol=1e-5
    )


def test_target_and_byoc_values_parse(capsys):
    """`--target` names the hardware, `--byoc` the BYOC targets; `--target`
    naming BYOC targets (the old spelling) still works, with a note."""
    args = cli.parser().parse_args(["compile", "--byoc", "blas,c", "--byoc", "x", "m.onnx"])
    assert args.byoc == ["blas", "c", "x"] and args.model == "m.onnx"
    with pytest.raises(SystemExit) as e:
        cli.parser().parse_args(["compile", "--byoc", "blas,", "m.onnx"])
    assert e.value.code == 2
    args = cli.parser().parse_args(["compile", "--target", "aarch64-linux-gnu -mattr=+sve", "m.onnx"])
    arguments.resolve_target(args)
    assert args.hardware == Target.parse("aarch64-linux-gnu -mattr=+sve") and args.byoc == []
    args = cli.parser().parse_args(["viz", "--target", "blas", "m.onnx", "-o", "g.dot"])
    arguments.resolve_target(args)
    assert args.byoc == ["blas"] and args.hardware is None
    assert "use --byoc blas" in capsys.readouterr().err
    args = cli.parser().parse_args(["compile", "--target", "sparc-linux-gnu", "m.onnx"])
    with pytest.raises(LaminaError, match="unknown target 'sparc-linux-gnu'"):
        arguments.resolve_target(args)


# ------------------------------------------------------------ symbolic inputs
@pytest.fixture(scope="module")
def symbolic_path(tmp_path_factory) -> str:
    g = onnx.helper.make_graph(
        [onnx.helper.make_node("Relu", ["x"], ["y"])],
        "sym",
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 3])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["N", 3])],
    )
    model = onnx.helper.make_model(g, opset_imports=[onnx.helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = tmp_path_factory.mktemp("sym") / "sym.onnx"
    onnx.save(model, str(path))
    return str(path)


@pytest.mark.parametrize("command", ["run", "bench"])
def test_symbolic_dims_ask_for_the_flag(symbolic_path, capsys, command):
    """Random inputs need sizes: run and bench ask for them."""
    assert cli.main([command, symbolic_path]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "input 'x'" in err and "'N' (axis 0)" in err
    assert "--input-shape x=D1,D2,... (e.g. --input-shape x=1,3)" in err
    assert "input_shapes" not in err


def test_symbolic_model_compiles_once(symbolic_path, tmp_path):
    """A symbolic model compiles to one library that runs at any size."""
    out = tmp_path / "m.so"
    assert cli.main(["compile", symbolic_path, "-o", str(out)]) == 0
    model = lamina.load(out)
    for n in (1, 4, 33):
        x = np.linspace(-1, 1, 3 * n, dtype=np.float32).reshape(n, 3)
        np.testing.assert_array_equal(model.run(x)[0], np.maximum(x, 0))
    assert cli.main(["run", symbolic_path, "--input-shape", "x=2,3"]) == 0


def test_symbolic_graph_draws(symbolic_path, tmp_path):
    """The graph level computes with symbolic dims: viz needs no sizes."""
    out = tmp_path / "g.dot"
    assert cli.main(["viz", symbolic_path, "-o", str(out)]) == 0
    assert "N" in out.read_text()


def test_input_shape_fixes_symbolic_dims(symbolic_path, tmp_path, capsys):
    assert cli.main(["run", symbolic_path, "--input-shape", "x=2,3"]) == 0
    assert "y: float32[2, 3]" in capsys.readouterr().out
    assert cli.main(["run", symbolic_path, "--input-shape", "x=2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("lamina: error: --input-shape gives input 'x' 1 dimension(s)")


def test_compiling_a_tir_file_says_it_is_lowered(model_path, tmp_path, capsys):
    """A tir-level file (memrefs) is named as such, with what compile takes and
    what lamina-opt does (it said `@main's input #0 is memref<...>, not a tensor`)."""
    tir = tmp_path / "m.tir.mlir"
    assert cli.main(["compile", model_path, "--emit", "tir", "-o", str(tir)]) == 0
    capsys.readouterr()
    assert cli.main(["compile", str(tir), "-o", str(tmp_path / "m.so")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "lamina: error: the module is at the tir level (lowered: @main takes memref<1x16xf32>, not tensors); "
        "compiling takes an ONNX model or a graph-level (relay) module"
    )
    assert "lamina-opt runs passes on lower levels" in err and err.count("\n") == 1
    with pytest.raises(LaminaError, match="the module is at the tir level"):
        lamina.compile(lamina.parse(tir.read_text()))


def test_input_shape_on_a_static_input_says_it_is_static(model_path, symbolic_path, capsys):
    """A static input's shape cannot be changed (a Gemm's inferred shape was
    blamed); on a symbolic input only its symbolic dims take sizes."""
    assert cli.main(["run", model_path, "--input-shape", "input=2,16"]) == 1
    assert capsys.readouterr().err == (
        "lamina: error: --input-shape gives input 'input' the shape [2, 16], but the input is "
        "static, [1, 16]: --input-shape only fixes symbolic dimensions; leave 'input' out (or "
        "re-export the model with the shape you want)\n"
    )
    assert cli.main(["run", model_path, "--input-shape", "input=1,16"]) == 0  # its own shape
    capsys.readouterr()
    assert cli.main(["run", symbolic_path, "--input-shape", "x=2,4"]) == 1
    assert "--input-shape gives input 'x' the shape [2, 4], but its shape is [N, 3] (axis 1 is 3, static)" in (
        capsys.readouterr().err
    )
    with pytest.raises(LaminaError, match=r"input_shapes only fixes symbolic dimensions"):
        lamina.compile(model_path, input_shapes={"input": [2, 16]})


def test_python_api_keeps_its_input_shapes_hint(symbolic_path):
    module = lamina.from_onnx(symbolic_path)  # the graph level is symbolic
    assert 'tensor<?x3xf32, ["N"]>' in str(module)
    assert lamina.compile(symbolic_path, input_shapes={"x": [2, 3]}).run(
        np.ones((2, 3), np.float32)
    )[0].shape == (2, 3)


# ---------------------------------------------------------------- run --output
@pytest.fixture(scope="module")
def two_outputs_path(tmp_path_factory) -> str:
    g = onnx.helper.make_graph(
        [onnx.helper.make_node("Relu", ["x"], ["a"]), onnx.helper.make_node("Neg", ["x"], ["b"])],
        "two",
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])],
        [onnx.helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, [2]) for n in "ab"],
    )
    model = onnx.helper.make_model(g, opset_imports=[onnx.helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = tmp_path_factory.mktemp("two") / "two.onnx"
    onnx.save(model, str(path))
    return str(path)


def test_run_output_npy_holds_the_one_output(library, tmp_path, capsys):
    out = tmp_path / "probs.npy"
    assert cli.main(["run", library, "--output", str(out)]) == 0
    probs = np.load(out)  # an array, not an npz archive
    assert isinstance(probs, np.ndarray) and probs.shape == (1, 4)
    assert f"wrote output 'probs' to {out}" in capsys.readouterr().out


def test_run_output_npy_with_several_outputs_is_an_error(two_outputs_path, tmp_path, capsys):
    out = tmp_path / "o.npy"
    assert cli.main(["run", two_outputs_path, "--output", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "cannot write 2 outputs (a, b) to one .npy file" in err and "--output OUT.npz" in err
    assert list(tmp_path.iterdir()) == []
    assert cli.main(["run", two_outputs_path, "--output", str(tmp_path / "o.npz")]) == 0
    assert sorted(np.load(tmp_path / "o.npz").files) == ["a", "b"]


def test_save_mlp_writes_the_readme_model(tmp_path, capsys):
    out = tmp_path / "mlp.onnx"
    assert cli.main(["demo", "--save-mlp", str(out)]) == 0
    model = onnx.load(str(out))
    assert model.graph.name == "mlp" and model.graph.input[0].type.tensor_type.shape.dim[1].dim_value == 784
