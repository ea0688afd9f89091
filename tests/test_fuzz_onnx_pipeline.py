"""Mutated ONNX models through the whole pipeline, not just the importer.

A fixed sample of bench/fuzz_onnx.py's mutants (fixed seeds, `--compile 1
--compare`) goes through `lamina.compile` and runs; where the mutant is valid and
deterministic (onnx's checker with full shape inference accepts it, it has no
random op, and onnxruntime or `onnx.reference` runs it) lamina's outputs must equal
theirs. Any failure must be a `LaminaError`: another exception, a crash of native
code (each mutant runs in a forked child), a hang or a wrong result fails, unless
it is a known bug listed in `KNOWN` (strictly: a listed bug no longer found fails
too). `tests/test_bad_onnx.py` runs a larger sample through the importer only.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

#: The sample: seed models (every len/SEED_MODELS-th importable node test model),
#: mutants, and the seed of the mutator. About 10 s of CPU: of the 60 mutants, 45
#: are refused (LaminaError), 15 compile and run, 6 of them are compared and match.
SEED_MODELS = 80
MUTANTS = 60
SEED = 20261127

#: Failures the sample finds that are known lamina bugs: {signature: the bug}.
#: Strict: each must still be found (fixed: remove it here and its xfail below).
KNOWN: dict[str, str] = {}


FUZZ = Path(__file__).resolve().parent.parent / "bench" / "fuzz_onnx.py"


@pytest.fixture(scope="module")
def fuzz() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lamina_bench_fuzz_onnx", FUZZ)
    assert spec and spec.loader
    module = sys.modules.get(spec.name)
    if module is None or not hasattr(module, "outcome_isolated"):
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module


@pytest.fixture
def cold_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compile for real: a cached object would hide a code generation failure."""
    monkeypatch.setenv("LAMINA_CACHE", "0")


def test_mutants_compile_run_and_match_the_reference(tmp_path: Path) -> None:
    # In a fresh process, which forks a child per mutant: a child forked from this
    # one, after other tests ran parallel code, could not use OpenMP's threads.
    result = tmp_path / "result.json"
    proc = subprocess.run(
        [sys.executable, str(FUZZ), "--mutations", str(MUTANTS), "--seed", str(SEED),
         "--seed-models", str(SEED_MODELS), "--compile", "1", "--compare",
         "--out", str(tmp_path), "--json", str(result)],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "LAMINA_CACHE": "0"},  # compile for real
    )
    assert result.exists(), proc.stdout + proc.stderr
    summary = json.loads(result.read_text())
    found, outcomes = summary["failures"], summary["outcomes"]
    reports = {p.name: p.read_text()[:2000] for p in sorted(tmp_path.glob("failure-*.txt"))}
    new = {sig: n for sig, n in found.items() if sig not in KNOWN}
    assert not new, (new, reports)
    fixed = set(KNOWN) - set(found)
    assert not fixed, f"no longer found (fixed?): remove them from KNOWN: {fixed}"
    assert sum(outcomes.values()) == MUTANTS, outcomes
    # The sample reaches past the importer: some mutants compile, run and are
    # compared with onnxruntime and onnx.reference (if a change to the mutator or
    # the seeds makes this fail, pick a sample that does).
    assert outcomes.get("matched", 0) >= 5, outcomes
    assert outcomes.get("refused", 0) >= 1, outcomes


def _relu(elem: int = TensorProto.FLOAT) -> onnx.ModelProto:
    g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "g",
        [helper.make_tensor_value_info("x", elem, [2, 3])],
        [helper.make_tensor_value_info("y", elem, [2, 3])],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def test_the_checker_sees_each_outcome(fuzz: ModuleType, cold_cache: None) -> None:
    """The harness itself: a valid model matches, an invalid one (refused by
    lamina) is a LaminaError, and a wrong result would be reported."""
    assert fuzz.outcome_isolated(_relu(), True, 20.0, True) == ("matched", None)
    bad = _relu()
    bad.graph.node[0].op_type = "NoSuchOp"
    assert fuzz.outcome_isolated(bad, True, 20.0, True) == ("refused", None)
    assert fuzz.outcome_isolated(_relu(), False, 20.0) == ("imported", None)
    a = np.array([1.0, np.nan], np.float32)
    assert fuzz.compare([a], [a.copy()], "Relu") is None
    report = fuzz.compare([a], [a + 1], "Relu")
    assert report and "Mismatch: output 0 differs" in report
    report = fuzz.compare([a], [a.astype(np.float64)], "Relu")
    assert report and "float32[2]" in report and "float64[2]" in report


def test_pow_of_an_integer_base_by_a_float_exponent(cold_cache: None) -> None:
    """ONNX's Pow computes x ** y and gives the base's type; onnxruntime and
    onnx.reference compute in floating point (int(3 ** 1.5) = 5), and so does
    lamina (it cast the exponent to int first, 3 ** 1 = 3, until the fuzz sample
    found it)."""
    import lamina

    g = helper.make_graph(
        [helper.make_node("Pow", ["x", "y"], ["z"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.INT32, [4]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("z", TensorProto.INT32, [4])],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)])
    x = np.array([3, 2, 0, 4], np.int32)
    y = np.array([1.5, -0.5, 0.5, 2.0], np.float32)
    expected = (x.astype(np.float64) ** y.astype(np.float64)).astype(np.int32)  # [5, 0, 0, 16]
    np.testing.assert_array_equal(lamina.compile(model).run(x, y)[0], expected)
