"""Shared-library export: `CompiledModel.export(path)` and `lamina.load(path)`."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import lamina
from lamina.tools.demo import mlp_model


@pytest.fixture(scope="module")
def exe() -> lamina.CompiledModel:
    return lamina.compile(mlp_model((16, 8, 4)))


@pytest.fixture(scope="module")
def library(exe, tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("lib") / "mlp.so"
    exe.export(path)
    return str(path)


def _x() -> np.ndarray:
    return np.linspace(-2, 2, 16, dtype=np.float32).reshape(1, 16)


def test_loaded_library_runs_like_the_jit(exe, library):
    loaded = lamina.load(library)
    assert loaded.input_names == exe.input_names == ["input"]
    assert loaded.output_names == exe.output_names == ["probs"]
    assert loaded.inputs == exe.inputs and loaded.outputs == exe.outputs
    assert loaded.workspace_size == exe.workspace_size
    np.testing.assert_array_equal(loaded.run(input=_x())[0], exe.run(_x())[0])


def test_weights_are_aligned_read_only_views(library):
    loaded = lamina.load(library)
    assert loaded._params
    for p in loaded._params:
        assert p.ctypes.data % 64 == 0 and not p.flags.writeable


def test_a_fresh_process_loads_the_library(exe, library):
    code = textwrap.dedent(
        f"""
        import numpy as np, lamina
        m = lamina.load({library!r})
        x = np.linspace(-2, 2, 16, dtype=np.float32).reshape(1, 16)
        np.save(__import__("sys").stdout.buffer, m.run(x)[0])
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    import io

    np.testing.assert_array_equal(np.load(io.BytesIO(out.stdout)), exe.run(_x())[0])


def test_a_loaded_model_exports_again(library, tmp_path):
    again = tmp_path / "again.so"
    lamina.load(library).export(again)
    np.testing.assert_array_equal(lamina.load(again).run(_x())[0], lamina.load(library).run(_x())[0])


def test_reexport_to_the_same_path_loads_the_new_library(tmp_path):
    path = tmp_path / "m.so"
    a = lamina.compile(mlp_model((16, 8, 4), seed=1))
    b = lamina.compile(mlp_model((16, 8, 4), seed=2))
    a.export(path)
    np.testing.assert_array_equal(lamina.load(path).run(_x())[0], a.run(_x())[0])
    b.export(path)
    np.testing.assert_array_equal(lamina.load(path).run(_x())[0], b.run(_x())[0])


def test_not_a_library_is_a_clear_error(tmp_path):
    bad = tmp_path / "model.so"
    bad.write_bytes(b"not an ELF file")
    with pytest.raises(lamina.LaminaError, match="not a shared library"):
        lamina.load(bad)
    with pytest.raises(lamina.LaminaError, match="no such file"):
        lamina.load(tmp_path / "missing.so")
    with pytest.raises(lamina.LaminaError, match="directory"):
        lamina.load(tmp_path)


def test_a_foreign_shared_library_is_refused():
    import ctypes.util

    libm = ctypes.util.find_library("m")
    path = next(
        p
        for p in (f"/lib/x86_64-linux-gnu/{libm}", f"/usr/lib/x86_64-linux-gnu/{libm}", f"/lib64/{libm}")
        if __import__("os").path.exists(p)
    )
    with pytest.raises(lamina.LaminaError, match="not a lamina library"):
        lamina.load(path)


def test_missing_c_compiler_is_a_clear_error(exe, tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "no-such-cc-lamina")
    with pytest.raises(lamina.CompileError, match="C compiler 'no-such-cc-lamina' was not found"):
        exe.export(tmp_path / "m.so")
    assert list(tmp_path.iterdir()) == []


def test_a_failed_link_leaves_no_file(exe, tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "false")
    with pytest.raises(lamina.CompileError, match="cannot assemble"):
        exe.export(tmp_path / "m.so")
    assert list(tmp_path.iterdir()) == []


def test_export_to_a_missing_folder_is_a_clear_error(exe, tmp_path):
    with pytest.raises(lamina.LaminaError, match="does not exist"):
        exe.export(tmp_path / "nowhere" / "m.so")


def test_weights_do_not_pass_through_llvm(tmp_path):
    """A model with 4 MiB of weights exports its weights byte for byte."""
    model = mlp_model((1024, 1024, 4))
    exe = lamina.compile(model)
    path = tmp_path / "big.so"
    exe.export(path)
    loaded = lamina.load(path)
    assert len(loaded._params) == len(exe._params)
    for ours, theirs in zip(loaded._params, exe._params, strict=True):
        np.testing.assert_array_equal(ours, theirs)
    assert len(exe._native.optimized_ir) < 1 << 20  # the 4 MiB are not in the IR
    assert path.stat().st_size > 4 << 20
    x = np.ones((1, 1024), np.float32)
    np.testing.assert_array_equal(loaded.run(x)[0], exe.run(x)[0])


@pytest.mark.parametrize("target", ["c", "blas"])
def test_byoc_code_is_linked_into_the_library(target, tmp_path):
    """Code a BYOC target generated is linked in, so a fresh process runs it."""
    from lamina.backends import available_targets

    if target not in available_targets():
        pytest.skip(f"no {target} target")
    exe = lamina.compile(mlp_model((16, 8, 4)), targets=[target])
    path = tmp_path / "byoc.so"
    exe.export(path)
    code = (
        "import sys, numpy as np, lamina\n"
        f"m = lamina.load({str(path)!r})\n"
        "x = np.linspace(-2, 2, 16, dtype=np.float32).reshape(1, 16)\n"
        "np.save(sys.stdout.buffer, m.run(x)[0])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    import io

    np.testing.assert_allclose(np.load(io.BytesIO(out.stdout)), exe.run(_x())[0], rtol=1e-6)
