"""The example plugin (examples/lamina-example-plugin) installs and extends
lamina-opt and lamina.compile through entry points, without editing lamina.

It is pip-installed (no dependencies, no build isolation: offline) into a
temporary directory that the subprocesses below put on PYTHONPATH, so the
environment running the tests is left as it was.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[1] / "examples" / "lamina-example-plugin"

MODEL = """
func.func @main(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %t = example.trace %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %0 = relay.add %t, %y : tensor<4x8xf32>
  %1 = relay.relu %0 : tensor<4x8xf32>
  %2 = relay.add %1, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %3 = relay.relu %2 : tensor<4x8xf32>
  func.return %3 : tensor<4x8xf32>
}
"""


# The targets `blas` and `c` (and the example plugin) build C with the system compiler.
needs_cc = pytest.mark.skipif(
    not (os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")),
    reason="no C compiler (cc) to build BYOC code with",
)
pytestmark = needs_cc


@pytest.fixture(scope="module")
def site(install_plugin: Callable[[Path], Path]) -> Path:
    target = install_plugin(PLUGIN)
    assert list(target.glob("lamina_example_plugin-*.dist-info"))
    return target


def run(site, args, stdin=None):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(args, input=stdin, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def opt(site, *args):
    path = site / "model.mlir"
    path.write_text(MODEL)
    return run(site, [sys.executable, "-m", "lamina.tools.opt", str(path), *args])


def test_plugin_dialect_and_pass_in_lamina_opt(site):
    out = opt(site)  # parses: the plugin's dialect is loaded
    assert "example.trace %x : tensor<4x8xf32> -> tensor<4x8xf32>" in out
    out = opt(site, "-p", "example-strip-traces")
    assert "example.trace" not in out
    assert "relay.add %x, %y" in out


def test_plugin_target_in_lamina_opt(site):
    out = opt(
        site, "-p",
        "example-strip-traces,merge-composite{targets=example},annotate-target{targets=example explain=true},"
        "merge-compiler-regions,partition-graph",
    )
    assert "func.call @example_0(%x, %y)" in out
    assert 'lamina.composite = "example.add_relu"' in out
    # the broadcasting add is rejected by the check function, with its reason
    assert "example does not broadcast" in out
    assert "func.func private @example_1" in out  # the relu after it


def test_plugin_target_in_lamina_compile(site):
    (site / "model.mlir").write_text(MODEL)
    script = textwrap.dedent(
        f"""
        import numpy as np, lamina
        from lamina.backends import available_targets
        assert "example" in available_targets()
        mod = lamina.parse(open({str(site / "model.mlir")!r}).read())
        lamina.run_pipeline(mod, "example-strip-traces")
        rng = np.random.default_rng(0)
        x, y = rng.standard_normal((2, 4, 8), dtype=np.float32)
        b = rng.standard_normal(8, dtype=np.float32)
        exe = lamina.compile(mod, targets=["example"])
        ref = np.maximum(np.maximum(x + y, 0) + b, 0)
        np.testing.assert_allclose(exe.run(x, y, b)[0], ref, rtol=1e-6)
        ctx = lamina.PassContext(config={{"byoc.targets": "example"}})
        lamina.run_pipeline(mod, "optimize", ctx)
        calls = [o.callee.string_value() for o in mod.walk() if o.name == "te.call"]
        assert len(calls) == 2 and all(c.startswith("example_") for c in calls), calls
        print("ok")
        """
    )
    assert run(site, [sys.executable, "-c", script]).strip().endswith("ok")


def test_broken_plugins_are_reported(monkeypatch):
    """A plugin that cannot load is named, never silently skipped."""
    from importlib.metadata import EntryPoint

    import lamina
    from lamina import plugins
    from lamina.backends import get_target

    eps = {
        plugins.DIALECTS_GROUP: [EntryPoint("bad", "no_such_module_xyz:Dialect", plugins.DIALECTS_GROUP)],
        plugins.TARGETS_GROUP: [EntryPoint("badtarget", "no_such_module_xyz:register", plugins.TARGETS_GROUP)],
    }
    monkeypatch.setattr(plugins, "_entry_points", lambda group: eps.get(group, []))
    plugins.plugin_dialects.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match=r"skipping a dialect plugin: cannot load plugin entry point 'bad = no_such_module_xyz:Dialect'"):
            assert plugins.plugin_dialects() == ()
        with pytest.raises(lamina.LaminaError, match=r"cannot load plugin entry point 'badtarget = no_such_module_xyz:register' \(group lamina.targets\)"):
            get_target("badtarget")
    finally:
        plugins.plugin_dialects.cache_clear()
        plugins._loaded_targets.discard("badtarget=no_such_module_xyz:register")
