"""Winograd convolution as an implementation tuning chooses: tuning records
that measured it faster change the build (and the default build stays direct
otherwise), the implementation lines' format, the model's latency and the task
scheduler counting each convolution's fastest implementation, and a tuning run
that measures every implementation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest

import lamina
from lamina.errors import LaminaError
from lamina.lowering.strategy.dispatch import Implementation
from lamina.tuning import TaskState, load_records, read_records
from lamina.tuning.records import (
    CpuKey,
    ImplementationRecord,
    Record,
    RecordWriter,
    read_all,
)
from lamina.tuning.tasks import extract
from lamina.tuning.tuner import latency, weights_in_race
from tests.test_winograd import LANES, RNG, _model


def _write(path: Path, model: onnx.ModelProto, seconds: dict[str, float]) -> dict[str, str]:
    """Kernel records for every task of `model` (each implementation's kernels
    at `seconds[implementation]` each) and the implementation lines; the ops'
    descriptions by workload."""
    ex = extract(model)
    target = CpuKey.host()
    time_of: dict[str, float] = {}
    for impl in ex.implementations:
        for w in impl.kernels:
            time_of[w] = min(time_of.get(w, 1.0), seconds[str(impl.implementation)])
    with RecordWriter(path) as writer:
        for impl in ex.implementations:
            writer.write(ImplementationRecord(
                impl.workload, impl.op, impl.implementation.name, dict(impl.implementation.knobs),
                list(impl.kernels), target.cpu, target.features,
            ))
        for t in ex.tasks:
            writer.write(Record(
                t.workload, t.name, t.site, t.template, t.default().to_json(), True, "ok",
                time_of.get(t.workload, 1e-6), t.flops, t.weight, 1, target.cpu, target.features, "",
            ))
    return {i.workload: i.op for i in ex.implementations}


def test_a_record_choosing_winograd_changes_the_build(tmp_path: Path) -> None:
    model = _model(1, LANES, LANES, (12, 12), (1, 1, 1, 1))
    x = RNG.standard_normal((1, LANES, 12, 12)).astype(np.float32)
    (want,) = lamina.compile(model, num_threads=1).run(x)

    path = tmp_path / "winograd.jsonl"
    ops = _write(path, model, {"direct": 1e-3, "winograd m=2": 1e-4, "winograd m=4": 1e-5})
    records = load_records(path)
    (op,) = ops
    assert records.chosen() == {op: Implementation.of("winograd", {"m": 4})}
    exe = lamina.compile(model, num_threads=1, tuning_records=records)
    assert op in records.applied
    kernels = [f.sym_name.data for f in exe.exporter.module.body.block.ops if hasattr(f, "sym_name")]
    assert any("winograd_input_transform" in k for k in kernels)
    (got,) = exe.run(x)
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()

    path = tmp_path / "direct.jsonl"
    _write(path, model, {"direct": 1e-5, "winograd m=2": 1e-4, "winograd m=4": 1e-3})
    records = load_records(path)
    assert records.chosen() == {}
    exe = lamina.compile(model, num_threads=1, tuning_records=records)
    assert records.applied == set()
    assert not any("winograd" in f.sym_name.data for f in exe.exporter.module.body.block.ops if hasattr(f, "sym_name"))


def test_implementation_lines_are_a_format_of_their_own(tmp_path: Path) -> None:
    """Kernel-record readers skip them without a note (a lamina without them
    reads the kernel records as before); a bad one is noted; an implementation
    whose kernels are not all measured is not chosen."""
    model = _model(1, LANES, LANES, (12, 12), (1, 1, 1, 1))
    path = tmp_path / "r.jsonl"
    _write(path, model, {"direct": 1e-3, "winograd m=2": 1e-4, "winograd m=4": 1e-5})
    lines = path.read_text().splitlines()
    impl_lines = [json.loads(line) for line in lines if "lamina_implementation" in line]
    assert len(impl_lines) == 3 and {d["implementation"] for d in impl_lines} == {"direct", "winograd"}
    with pytest.raises(LaminaError, match="format version None"):
        Record.from_json(impl_lines[0])  # what a lamina before them says (and skips)
    records, notes = read_records(path)
    assert notes == [] and len(records) == len(lines) - 3
    bad = dict(impl_lines[0], kernels="not a list")
    path.write_text("\n".join([json.dumps(bad), *lines[3:]]) + "\n")
    _, impls, notes = read_all(path)
    assert impls == [] and "field 'kernels'" in notes[0]
    # the Winograd kernels' records missing: nothing to compare, the default kept
    winograd = {w for d in impl_lines if d["implementation"] == "winograd" for w in d["kernels"]}
    kept = [line for line in lines if not any(f'"workload": "{w}"' in line for w in winograd)]
    path.write_text("\n".join(kept) + "\n")
    assert load_records(path).chosen() == {}


def test_latency_and_the_scheduler_count_the_fastest_implementation() -> None:
    model = _model(1, LANES, LANES, (12, 12), (1, 1, 1, 1))
    ex = extract(model)
    by_impl = {str(i.implementation): i for i in ex.implementations}
    assert set(by_impl) == {"direct", "winograd m=2", "winograd m=4"}
    assert all(len(i.kernels) == 3 for k, i in by_impl.items() if k != "direct")
    states = {t.workload: TaskState(t, t.space()) for t in ex.tasks}
    for s in states.values():
        s.measured[s.task.default()] = 1e-6
        s.default_seconds = 1e-6
    for w in by_impl["direct"].kernels:
        states[w].measured[states[w].task.default()] = states[w].default_seconds = 1e-3
    for w in by_impl["winograd m=2"].kernels:
        states[w].measured[states[w].task.default()] = states[w].default_seconds = 1e-4
    others = sum(1e-6 for c in ex.calls if c.origin is None)
    direct = 1e-3 * len(by_impl["direct"].kernels)
    assert latency(list(states.values()), ex.calls, ex.implementations, tuned=False) == pytest.approx(others + direct)
    tuned = latency(list(states.values()), ex.calls, ex.implementations, tuned=True)
    assert tuned == pytest.approx(others + 3e-6)  # m = 4's kernels, at 1 us each
    weights = weights_in_race(list(states.values()), ex.implementations)
    assert all(weights[w] == 0 for i in ("direct", "winograd m=2") for w in by_impl[i].kernels)
    assert all(weights[w] > 0 for w in by_impl["winograd m=4"].kernels)


def test_a_tuning_run_measures_every_implementation(tmp_path: Path) -> None:
    """The implementation lines first, then every task's default; the report
    shows the implementations and the one a compile picks."""
    pytest.importorskip("xgboost")
    model = _model(1, LANES, LANES, (12, 12), (1, 1, 1, 1))
    tasks = extract(model).tasks
    path = tmp_path / "r.jsonl"
    summary = lamina.tune(model, path, trials=len(tasks), workers=1)
    records, impls, notes = read_all(path)
    assert notes == [] and len(impls) == 3 and len(records) == len(tasks)
    assert path.read_text().splitlines()[0].startswith('{"lamina_implementation": 1')
    assert summary.latency(True) <= summary.latency(False)
    loaded = load_records(path)
    assert set(loaded.implementation_times()) == {impls[0].workload}
    again = lamina.tune(model, path, trials=1, workers=1)  # resumes: no second set of lines
    assert again.trials == 1 and len(read_all(path)[1]) == 3
