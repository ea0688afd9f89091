"""The example op plugin (examples/lamina-example-op) adds one graph op end to end,
through entry points only: the op (`relay.squareplus`), its TE compute, its numpy
evaluator and the converter of the ONNX node `com.example:SquarePlus`.

It is pip-installed (no dependencies, no build isolation: offline) into a
temporary directory that the subprocesses below put on PYTHONPATH, so the
environment running the tests is left as it was.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

PLUGIN = Path(__file__).resolve().parents[1] / "examples" / "lamina-example-op"
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def site(install_plugin: Callable[[Path], Path]) -> Path:
    target = install_plugin(PLUGIN)
    return target


def run(site: Path | None, argv: list[str], cwd: Path, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LAMINA_CACHE": "0"}
    if site is not None:
        env["PYTHONPATH"] = str(site)
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=cwd, env=env)
    if ok and proc.returncode != 0:
        pytest.fail(f"{argv} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def save_model(site: Path, path: Path, b: float = 1.0) -> None:
    script = f"import onnx; from lamina_example_op.model import squareplus_model; onnx.save(squareplus_model(b={b}), {str(path)!r})"
    run(site, [sys.executable, "-c", script], path.parent)


def test_the_command_line_compiles_and_runs_a_model_with_the_plugin_op(site: Path, tmp_path: Path) -> None:
    model = tmp_path / "sq.onnx"
    save_model(site, model, b=2.5)
    x = np.random.default_rng(0).standard_normal((4, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    out = run(site, [str(BIN / "lamina"), "compile", str(model), "-o", "sq.so"], tmp_path)
    assert "outputs: y: float32[4, 8]" in out.stdout
    run(site, [str(BIN / "lamina"), "run", "sq.so", "--input", "x=x.npy", "--output", "y.npz"], tmp_path)
    got = np.load(tmp_path / "y.npz")["y"]
    script = textwrap.dedent(
        f"""
        import numpy as np, onnx
        from lamina_example_op.model import reference
        m = onnx.load({str(model)!r})
        np.save("ref.npy", reference(m, np.load("x.npy")))
        """
    )
    run(site, [sys.executable, "-c", script], tmp_path)
    np.testing.assert_allclose(got, np.load(tmp_path / "ref.npy"), rtol=1e-5, atol=1e-6)


def test_without_the_plugin_the_op_is_named_as_unsupported(site: Path, tmp_path: Path) -> None:
    model = tmp_path / "sq.onnx"
    save_model(site, model)
    proc = run(None, [str(BIN / "lamina"), "compile", str(model), "-o", "sq.so"], tmp_path, ok=False)
    assert proc.returncode == 1
    assert "SquarePlus" in proc.stderr and "com.example" in proc.stderr
    assert not (tmp_path / "sq.so").exists()


def test_the_op_is_fused_folded_and_round_trips(site: Path, tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import numpy as np
        import lamina
        from lamina.passes import PassContext, run_pipeline
        from lamina.transforms.graph.fold_constant import EVALUATORS
        from lamina_example_op.model import squareplus_model

        # the text form round-trips, and the verifier checks b
        m = lamina.from_onnx(squareplus_model())
        text = lamina.print_ir(m, resources_limit=None)
        line = "%y = relay.squareplus %h {b = 1.000000e+00 : f64} : tensor<4x8xf32>"
        assert line in text, text
        assert line in lamina.print_ir(lamina.parse(text)), "no round trip"
        assert line in lamina.print_ir(lamina.parse(text), generic=False)
        try:
            lamina.parse(text.replace("b = 1.000000e+00", "b = -1.000000e+00"))
        except lamina.IRError as e:
            assert "b must be >= 0" in str(e), e
        else:
            raise AssertionError("b < 0 verified")

        # elementwise pattern kind: fuse-ops puts it in the matmul's group
        run_pipeline(m, "fuse-ops", PassContext(opt_level=2))
        fused = [op for op in m.walk() if op.name == "relay.fused"]
        assert len(fused) == 1, lamina.print_ir(m)
        assert [o.name for o in fused[0].body.block.ops] == [
            "relay.matmul", "relay.squareplus", "relay.yield"]

        # fold-constant evaluates it on constants
        assert "relay.squareplus" in EVALUATORS
        c = lamina.parse('''
        func.func @main() -> tensor<2xf32> {
          %c = relay.constant dense<[0.0, 1.5]> : tensor<2xf32>
          %y = relay.squareplus %c {b = 4.0 : f64} : tensor<2xf32>
          func.return %y : tensor<2xf32>
        }''')
        run_pipeline(c, "fold-constant", PassContext(opt_level=2))
        folded = lamina.print_ir(c)
        assert "relay.squareplus" not in folded and "dense<[1.000000e+00, 2.000000e+00]>" in folded, folded
        print("ok")
        """
    )
    assert run(site, [sys.executable, "-c", script], tmp_path).stdout.strip().endswith("ok")


def test_lamina_opt_knows_the_op(site: Path, tmp_path: Path) -> None:
    (tmp_path / "m.mlir").write_text(
        "func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
        "  %y = relay.squareplus %x : tensor<3xf32>\n"
        "  func.return %y : tensor<3xf32>\n}\n"
    )
    out = run(site, [str(BIN / "lamina-opt"), "m.mlir", "-p", "lower-relay-to-te"], tmp_path).stdout
    assert "te.compute" in out and "math.sqrt" in out
