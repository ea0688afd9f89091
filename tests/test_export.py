"""Shared-library export: `CompiledModel.export(path)` and `lamina.load(path)`."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

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


_RUN = (
    "import sys, numpy as np, lamina\n"
    "try:\n"
    "    m = lamina.load(sys.argv[1])\n"
    "except lamina.LaminaError as e:\n"
    "    sys.exit(str(e))\n"
    "x = np.linspace(-2, 2, 16, dtype=np.float32).reshape(1, 16)\n"
    "np.save(sys.stdout.buffer, m.run(x)[0])\n"
)


def _run_fresh(path: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", _RUN, str(path)], capture_output=True, env=env
    )


def _seal_record(path: Path) -> dict:
    from lamina.runtime.seal import SEAL_SIZE

    data = path.read_bytes()
    (size,) = struct.unpack_from("<I", data, len(data) - SEAL_SIZE + 12)
    return json.loads(data[len(data) - SEAL_SIZE - size : len(data) - SEAL_SIZE])


@pytest.mark.parametrize("cleared", ["after export", "before export"])
@pytest.mark.parametrize("target", ["c", "blas"])
def test_byoc_library_does_not_need_the_cache(target, cleared, tmp_path, monkeypatch):
    """The code a BYOC target generated is linked into the exported library: it
    loads and runs in a fresh process after lamina's cache is deleted (also when
    the cache went away between compiling and exporting)."""
    from lamina.backends import available_targets

    if target not in available_targets():
        pytest.skip(f"no {target} target")
    cache = tmp_path / "cache"
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(cache))
    exe = lamina.compile(mlp_model((16, 8, 4)), targets=[target])
    assert list((cache / "byoc").glob(f"{target}_*.so"))
    if cleared == "before export":
        shutil.rmtree(cache)
    path = tmp_path / "byoc.so"
    exe.export(path)
    shutil.rmtree(cache, ignore_errors=True)
    assert str(cache).encode() not in path.read_bytes()  # no path (or rpath) into it
    out = _run_fresh(path, {**os.environ, "LAMINA_CACHE_DIR": str(cache)})
    assert out.returncode == 0, out.stderr.decode()[-2000:]
    import io

    np.testing.assert_allclose(np.load(io.BytesIO(out.stdout)), exe.run(_x())[0], rtol=1e-5)


def test_blas_library_records_openblas_and_its_package(tmp_path):
    from lamina.backends import available_targets

    if "blas" not in available_targets():
        pytest.skip("no blas target")
    path = tmp_path / "blas.so"
    lamina.compile(mlp_model((16, 8, 4)), targets=["blas"]).export(path)
    (need,) = _seal_record(path)["needs"]
    assert Path(need["library"]).name.startswith("libscipy_openblas")
    assert need["package"] == "scipy-openblas32"


def test_a_missing_runtime_library_is_named_with_what_to_do(tmp_path):
    """A library the BYOC code calls stays a dynamic dependency; when it is gone,
    loading names it and where it was, instead of dlopen's bare message."""
    from lamina.backends import ExternalFunction, register_target, unregister_target
    from lamina.backends.cc import compile_shared, compiler

    vendor = tmp_path / "vendor" / "libvendor_neg.so"
    vendor.parent.mkdir()
    src = tmp_path / "vendor.c"
    src.write_text("void vendor_neg(const float *x, float *y, long n) { for (long i = 0; i < n; i++) y[i] = -x[i]; }\n")
    subprocess.run(
        [compiler(), "-shared", "-fPIC", "-Wl,-soname,libvendor_neg.so", str(src), "-o", str(vendor)],
        check=True,
    )

    def codegen(fn):
        n = int(np.prod(fn.function_type.inputs.data[0].get_shape()))
        glue = (
            "void vendor_neg(const float *, float *, long);\n"
            f"void vendor_glue_{n}(float *x, float *y) {{ vendor_neg(x, y, {n}); }}\n"
        )
        lib = compile_shared(glue, link=[str(vendor)], name="vendor_glue")
        return ExternalFunction(f"vendor_glue_{n}", (lib,), source=glue)

    register_target("vendorneg", ops=["relay.negative"], codegen=codegen,
                    runtime_libraries=[str(vendor)], override=True)
    try:
        exe = lamina.compile(lamina.parse("""
func.func @main(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %0 = relay.negative %x : tensor<1x16xf32>
  func.return %0 : tensor<1x16xf32>
}"""), targets=["vendorneg"])
    finally:
        unregister_target("vendorneg")
    path = tmp_path / "m.so"
    exe.export(path)
    out = _run_fresh(path)
    assert out.returncode == 0, out.stderr.decode()[-2000:]
    vendor.rename(tmp_path / "moved.so")
    out = _run_fresh(path)
    assert out.returncode == 1
    message = out.stderr.decode()
    assert f"cannot load '{path}'" in message
    assert "needs the shared library libvendor_neg.so" in message
    assert f"at export it was {vendor}" in message and "export the model again" in message


def test_missing_library_advice_names_the_python_package():
    from lamina.runtime.library import _open_failure

    record = {"needs": [{"library": "/venv/site-packages/scipy_openblas32/lib/libscipy_openblas.so",
                         "package": "scipy-openblas32"}]}
    error = "libscipy_openblas.so: cannot open shared object file: No such file or directory"
    message = _open_failure(Path("/m.so"), error, record)
    assert "needs the shared library libscipy_openblas.so" in message
    assert "`pip install scipy-openblas32`" in message
    assert "LD_LIBRARY_PATH" in _open_failure(Path("/m.so"), error, None)
