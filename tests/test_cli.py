"""The `lamina` command: one-line errors, exit codes, atomic outputs."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from lamina.errors import LaminaError
from lamina.tools import cli
from lamina.tools.demo import mlp_model


@pytest.fixture(scope="module")
def model_path(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("m") / "mlp.onnx"
    onnx.save(mlp_model((16, 8, 4)), str(path))
    return str(path)


def test_run_with_inputs_writes_npz(model_path, tmp_path, capsys):
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 16)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out.npz"
    assert cli.main(["run", model_path, "--input", f"input={tmp_path / 'x.npy'}", "--output", str(out)]) == 0
    probs = np.load(out)["probs"]
    assert probs.shape == (1, 4) and np.isclose(probs.sum(), 1, atol=1e-6)
    assert "wrote 1 output(s)" in capsys.readouterr().out


def test_run_without_inputs_says_it_uses_random_ones(model_path, capsys):
    assert cli.main(["run", model_path]) == 0
    assert "no --input given: using random inputs input: float32[1, 16]" in capsys.readouterr().out


@pytest.mark.parametrize("level", cli.LEVELS)
def test_compile_emits_each_level(model_path, tmp_path, level):
    out = tmp_path / f"m.{level}"
    assert cli.main(["compile", model_path, "--emit", level, "-o", str(out)]) == 0
    text = out.read_text()
    marker = {"relay": "relay.dense", "te": "te.compute", "tir": "tir.for", "llvm": 'define void @"main"'}
    assert marker[level] in text


def test_user_errors_are_one_line_and_exit_1(tmp_path, capsys):
    assert cli.main(["run", str(tmp_path / "missing.onnx")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("lamina: error: cannot read ONNX model")
    assert "Traceback" not in err


def test_bad_input_file_is_a_user_error(model_path, tmp_path, capsys):
    assert cli.main(["run", model_path, "--input", f"input={tmp_path / 'none.npy'}"]) == 1
    assert "cannot read input 'input'" in capsys.readouterr().err


def test_usage_errors_exit_2():
    with pytest.raises(SystemExit) as e:
        cli.main(["frobnicate"])
    assert e.value.code == 2


def test_failed_write_leaves_no_partial_file(tmp_path, monkeypatch):
    target = tmp_path / "out.txt"
    target.write_text("old")

    def fail(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(cli.os, "replace", fail)
    with pytest.raises(LaminaError, match="disk full"):
        cli.write_atomic(target, "new contents")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_version(capsys):
    """`lamina --version` and `lamina-opt --version` print lamina's version, exit 0."""
    from lamina.tools import opt
    from lamina.version import __version__

    with pytest.raises(SystemExit) as e:
        cli.main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out == f"lamina {__version__}\n"
    with pytest.raises(SystemExit) as e:
        opt.main(["--version"])
    assert e.value.code in (0, None)
    assert capsys.readouterr().out.startswith(f"lamina-opt {__version__} (xDSL ")


def test_input_of_another_dtype_is_an_error_saying_how_to_convert(model_path, tmp_path, capsys):
    """No silent conversion (int32 to float32 before): the input, both dtypes, the fix."""
    for dtype in (np.int32, np.float64):
        np.save(tmp_path / "x.npy", np.ones((1, 16), dtype))
        assert cli.main(["run", model_path, "--input", f"input={tmp_path / 'x.npy'}"]) == 1
        err = capsys.readouterr().err
        assert err == (
            f"lamina: error: input 'input' from '{tmp_path / 'x.npy'}' is {np.dtype(dtype)}, but the "
            "model takes float32; lamina does not convert it: save it as float32, e.g. "
            "numpy.save('input.npy', array.astype(numpy.float32))\n"
        )


@pytest.mark.parametrize("command", ["run", "bench"])
def test_inputs_from_an_npz_by_name(model_path, tmp_path, capsys, command):
    """`--input FILE.npz` gives the inputs by name, as `--output` writes them."""
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 16)
    np.savez(tmp_path / "in.npz", input=x)
    np.save(tmp_path / "x.npy", x)
    extra = ["--runs", "1", "--warmup", "1"] if command == "bench" else ["--output", str(tmp_path / "a.npz")]
    assert cli.main([command, model_path, "--input", str(tmp_path / "in.npz"), *extra]) == 0
    assert "random" not in capsys.readouterr().out
    if command == "run":
        assert cli.main(["run", model_path, "--input", f"input={tmp_path / 'x.npy'}", "--output", str(tmp_path / "b.npz")]) == 0
        np.testing.assert_array_equal(np.load(tmp_path / "a.npz")["probs"], np.load(tmp_path / "b.npz")["probs"])
    np.savez(tmp_path / "other.npz", image=x)
    cases = [
        ([str(tmp_path / "other.npz")], f"unknown input 'image' (from '{tmp_path / 'other.npz'}'); the model's inputs are input: float32[1, 16]"),
        ([str(tmp_path / "in.npz"), f"input={tmp_path / 'x.npy'}"], f"input 'input' is given twice: by '{tmp_path / 'in.npz'}' and '{tmp_path / 'x.npy'}'"),
        ([str(tmp_path / "x.npy")], "expected NAME=FILE.npy, or FILE.npz (its arrays by input name)"),
    ]
    for items, message in cases:
        argv = [command, model_path, *[a for i in items for a in ("--input", i)]]
        assert cli.main(argv) == 1
        assert message in capsys.readouterr().err


def test_tables_are_not_cut_when_piped_and_columns_is_honoured(monkeypatch):
    """Not a terminal: a table takes the width its cells need (it was cut);
    `COLUMNS` sets the width, on a terminal or not."""
    import io

    from rich.table import Table

    from lamina.tools.report import console

    def render() -> str:
        table = Table()
        table.add_column("kernel")
        table.add_column("time", justify="right")
        table.add_row("fused_" + "conv2d_add_relu_" * 8 + "end", "1.0 ms")
        stream = io.StringIO()
        console(stream).print(table)
        return stream.getvalue()

    monkeypatch.delenv("COLUMNS", raising=False)
    text = render()
    assert "fused_" + "conv2d_add_relu_" * 8 + "end" in text and "1.0 ms" in text
    assert max(len(line) for line in text.splitlines()) > 140
    monkeypatch.setenv("COLUMNS", "60")
    assert max(len(line) for line in render().splitlines()) == 60
