"""`compile-kernels`: kernels compiled apart, in worker processes, cached by
content across models, linked by the JIT and the exporter alike."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import StringAttr

import lamina
from lamina.codegen import kernels
from lamina.dialects import tir
from lamina.errors import LoweringError
from lamina.passes import PassContext, StatisticsInstrument, run_pipeline
from lamina.tools.signals import signals_raise

MLP = """
func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x24xf32>) -> tensor<8x24xf32> {
  %0 = relay.matmul %a, %b : (tensor<8x16xf32>, tensor<16x24xf32>) -> tensor<8x24xf32>
  %1 = relay.relu %0 : tensor<8x24xf32>
  func.return %1 : tensor<8x24xf32>
}
"""
#: MLP's kernel, then a softmax: a kernel of its own.
MLP_SOFTMAX = """
func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x24xf32>) -> tensor<8x24xf32> {
  %0 = relay.matmul %a, %b : (tensor<8x16xf32>, tensor<16x24xf32>) -> tensor<8x24xf32>
  %1 = relay.relu %0 : tensor<8x24xf32>
  %2 = relay.softmax %1 {axis = 1 : i64} : tensor<8x24xf32>
  func.return %2 : tensor<8x24xf32>
}
"""


def _inputs(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal((8, 16)).astype(np.float32),
        rng.standard_normal((16, 24)).astype(np.float32),
    )


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _compile(text: str, **config: int) -> tuple[lamina.CompiledModel, dict[str, int]]:
    """The model, and compile-kernels' counters (kernels, cached, compiled)."""
    stats = StatisticsInstrument()
    ctx = PassContext(opt_level=3, instruments=[stats], config={f"compile-kernels.{k}": v for k, v in config.items()})
    exe = lamina.compile(lamina.parse(text), num_threads=1, pass_context=ctx)
    (record,) = [r for r in stats.records if r.name == "compile-kernels"]
    return exe, record.counters


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("LAMINA_CACHE", raising=False)
    return tmp_path


def test_a_kernel_another_model_compiled_comes_from_the_cache(fresh_cache: Path) -> None:
    a, b = _inputs()
    exe, first = _compile(MLP)
    assert first == {"kernels": 1, "compiled": 1}
    np.testing.assert_allclose(exe.run(a, b)[0], np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)
    exe, second = _compile(MLP_SOFTMAX)  # the matmul-relu kernel again, and a softmax
    assert second == {"kernels": 2, "cached": 1, "compiled": 1}
    want = _softmax(np.maximum(a @ b, 0))
    np.testing.assert_allclose(exe.run(a, b)[0], want, rtol=1e-5, atol=1e-6)


def _recalled(text: str) -> tuple[lamina.CompiledModel, dict[str, int], dict[str, int]]:
    """The model, and recall-kernels' and compile-kernels' counters."""
    stats = StatisticsInstrument()
    exe = lamina.compile(lamina.parse(text), num_threads=1, pass_context=PassContext(opt_level=3, instruments=[stats]))
    counters = {r.name: r.counters for r in stats.records}
    return exe, counters["recall-kernels"], counters["compile-kernels"]


def test_a_kernel_seen_before_builds_no_tir(fresh_cache: Path) -> None:
    """The second compile finds the kernel's lowering on record: lower-te-to-tir
    keeps its TE, and compile-kernels declares it from the cache."""
    a, b = _inputs(2)
    _, first, _ = _recalled(MLP_SOFTMAX)
    assert first.get("recalled", 0) == 0
    exe, recalled, compiled = _recalled(MLP_SOFTMAX)
    assert recalled == {"recalled": 2} and compiled == {"kernels": 2, "cached": 2}
    want = _softmax(np.maximum(a @ b, 0))
    np.testing.assert_allclose(exe.run(a, b)[0], want, rtol=1e-5, atol=1e-6)


def test_a_recalled_kernel_whose_code_is_gone_is_lowered_then(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its lowering is on record but its code is not (evicted, or compiled with
    other aliasing): compile-kernels lowers its TE and compiles it."""
    a, b = _inputs(3)
    _recalled(MLP)
    address = kernels._address
    monkeypatch.setattr(kernels, "_address", lambda *args: tuple(k + "0" for k in address(*args)))
    exe, recalled, compiled = _recalled(MLP)
    assert recalled == {"recalled": 1} and compiled == {"kernels": 1, "compiled": 1}
    np.testing.assert_allclose(exe.run(a, b)[0], np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("jobs", [1, 2])
def test_workers_and_this_process_build_the_same_model(
    fresh_cache: Path, jobs: int, tmp_path: Path
) -> None:
    """Kernels compiled in two forked workers or here: the same symbols, the same
    values, through the JIT and through an exported library."""
    a, b = _inputs(1)
    with lamina.codegen.cache.disabled():
        exe, counters = _compile(MLP_SOFTMAX, jobs=jobs)
    assert counters == {"kernels": 2, "compiled": 2}
    want = _softmax(np.maximum(a @ b, 0))
    np.testing.assert_allclose(exe.run(a, b)[0], want, rtol=1e-5, atol=1e-6)
    library = tmp_path / f"mlp{jobs}.so"
    exe.export(library)
    np.testing.assert_allclose(lamina.load(library).run(a, b)[0], want, rtol=1e-5, atol=1e-6)


def test_a_kernel_that_fails_in_a_worker_raises_its_error_here(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker's failure is not lost nor turned into a pickling error: the kernel
    is compiled again in this process, which raises the error itself."""
    compile_one = kernels._code

    def failing(unit: kernels._Unit, ctx: PassContext) -> kernels.Code:
        if unit.symbol.startswith("softmax"):
            raise LoweringError(f"cannot lower @{unit.symbol}")
        return compile_one(unit, ctx)

    monkeypatch.setattr(kernels, "_code", failing)  # inherited by the forked workers
    with pytest.raises(LoweringError, match=r"cannot lower @softmax_[0-9a-f]{12}"):
        _compile(MLP_SOFTMAX, jobs=2)


def _kernel() -> tir.PrimFuncOp:
    module = lamina.parse(MLP)
    with PassContext(opt_level=3) as ctx:
        run_pipeline(module, ["optimize", "lower-relay-to-te", "lower-te-to-tir"], ctx)
    (op,) = [op for op in module.ops if isinstance(op, tir.PrimFuncOp)]
    return op


def test_the_key_is_the_content_and_how_it_is_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel's key ignores its name, and changes with its aliasing, the pass
    context and the compiler's sources (a change to a pass below the TIR)."""
    op, ctx = _kernel(), PassContext(opt_level=3)
    base = kernels._unit(op, True, ctx)
    assert base.symbol.startswith(f"{op.sym_name.data}_") and len(base.symbol.split("_")[-1]) == 12
    op.sym_name = StringAttr(f"{op.sym_name.data}_7")  # a uniquing suffix: the same kernel
    assert kernels._unit(op, True, ctx).key == base.key
    op.sym_name = StringAttr("another_name")  # the same code, but it defines another symbol
    renamed = kernels._unit(op, True, ctx)
    assert renamed.symbol == f"another_name_{base.symbol[-12:]}" and renamed.key != base.key
    assert kernels._unit(op, False, ctx).key != base.key
    assert kernels._unit(op, True, PassContext(opt_level=2)).key != base.key
    assert kernels._unit(op, True, ctx.replace(disabled_passes=["tir-unroll"])).key != base.key
    monkeypatch.setattr(kernels, "source_fingerprint", lambda: b"another compiler")
    assert kernels._unit(op, True, ctx).key != base.key


@pytest.mark.parametrize("module", ["grpc", "ray"])
def test_no_fork_beside_grpc_threads(fresh_cache: Path, monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    """A process running grpc (Python's, or Ray's driver, which runs grpc's C++
    core without importing Python's) compiles kernels in itself: grpc's fork
    handlers hung a fork there."""
    import sys
    import types

    monkeypatch.setitem(sys.modules, module, types.ModuleType(module))

    def no_fork(*args: object, **kwargs: object) -> None:
        raise AssertionError("compile-kernels forked beside grpc")

    monkeypatch.setattr(kernels.multiprocessing, "get_context", no_fork)
    a, b = _inputs(2)
    with lamina.codegen.cache.disabled():
        exe, counters = _compile(MLP_SOFTMAX, jobs=2)
    assert counters == {"kernels": 2, "compiled": 2}
    np.testing.assert_allclose(exe.run(a, b)[0], _softmax(np.maximum(a @ b, 0)), rtol=1e-5, atol=1e-6)


def test_a_worker_ends_quietly_on_sigterm():
    """The pool ends its workers with SIGTERM. A worker forked from the `lamina`
    command inherits its handler (raise `Terminated`, which an idle worker
    printed as a traceback): the worker's start resets it, so SIGTERM ends it."""
    if any(m in sys.modules for m in kernels.FORK_UNSAFE):
        pytest.skip("no fork beside grpc's threads (see kernels.FORK_UNSAFE)")
    ready, told = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker
        try:
            with signals_raise():  # the command's handlers, inherited
                kernels._worker_start()
                os.write(told, b"x")
                time.sleep(60)
        finally:
            os._exit(3)  # a handler that raised ends up here
    os.read(ready, 1)
    os.kill(pid, signal.SIGTERM)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM
