"""Auto-scheduling (lamina.tuning): knob spaces, records, a small tuning run
through worker processes, records applied by `lamina.compile` and the command
line, resuming, and bad candidates (a crash, a hang, a wrong result) survived
and reported. The Ray runner is tested in tests/test_tuning_ray.py."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import lamina
from lamina.errors import LaminaError
from lamina.lowering.lang.schedule import LoopNest
from lamina.lowering.strategy import conv_nchwc, cpu, defaults
from lamina.lowering.strategy.dispatch import TemplateCall
from lamina.passes import PassContext
from lamina.target import Target
from lamina.tools.cli import main as cli
from lamina.tuning import (
    CpuKey,
    LocalRunner,
    TaskState,
    TuningNote,
    extract_tasks,
    load_records,
    pick_task,
    read_records,
    tune,
)
from lamina.tuning.measure import MeasureInput, MeasureResult
from lamina.tuning.records import Record, RecordWriter

pytest.importorskip("xgboost")


def _model(rows: int = 24) -> object:
    """x[rows, 64] @ w[64, 48], relu: one GEMM task (its weight packed in
    column panels: `relay.dense_pack`)."""
    w = np.random.default_rng(0).standard_normal((64, 48)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Relu", ["m"], ["y"])]
    graph = helper.make_graph(
        nodes, "mm", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, 48])],
        [numpy_helper.from_array(w, "w")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


# ------------------------------------------------------------------ spaces
#: The calls' target: knobs and spaces are the target's, not the host's.
AVX512 = Target.parse("x86_64-linux-gnu -mcpu=znver4")
#: Targets every space is checked on: 32 and 16 vector registers, 512-, 256- and
#: 128-bit vectors.
TARGETS = [AVX512, Target.parse("x86_64-linux-gnu -mcpu=znver3"), Target.parse("aarch64-linux-gnu")]
CALLS: list[TemplateCall[object]] = [
    TemplateCall("gemm", cpu.gemm, cpu.GemmKnobs, ((30, 40), 0, (1,), 32, 1, 16, False), AVX512),
    TemplateCall("gemm", cpu.gemm, cpu.GemmKnobs, ((2, 7, 5, 6), 1, (2, 3), 32, 3, 8, False), AVX512),
    TemplateCall("gemm", cpu.gemm, cpu.GemmKnobs, ((3, 11, 64), 1, (2,), 32, 1, 256, True, 16), AVX512),
    TemplateCall("window", cpu.window, cpu.WindowKnobs, ((1, 4, 9, 13), 2, 32), AVX512),
    TemplateCall("conv_nchwc", conv_nchwc.conv_nchwc, conv_nchwc.NchwcKnobs, ((1, 2, 5, 7, 16), 32), AVX512),
    TemplateCall("conv_nchwc", conv_nchwc.conv_nchwc, conv_nchwc.NchwcKnobs, ((1, 3, 40, 16), 32), AVX512),
    TemplateCall("conv_nchwc", conv_nchwc.conv_nchwc, conv_nchwc.NchwcKnobs, ((1, 2, 4, 5, 7, 16), 32), AVX512),
    TemplateCall("injective", cpu.injective, cpu.InjectiveKnobs, ((3, 70), 32), AVX512),
    TemplateCall("transpose", defaults.transpose, defaults.TransposeKnobs, ((2, 40, 3, 70), 1, 32), AVX512),
    TemplateCall("reduction", cpu.reduction, cpu.ReductionKnobs, ((5,), (40,), 32), AVX512),
    TemplateCall("reduction", cpu.reduction, cpu.ReductionKnobs, ((3,), (1500,), 32), AVX512),
    TemplateCall("reduction", cpu.reduction, cpu.ReductionKnobs, ((8, 1, 768), (196,), 32, False), AVX512),
]
REDUCE = {
    "gemm": lambda a: (a[5], *(1,) * (a[4] - 1)), "window": lambda a: (3, 3),
    "conv_nchwc": lambda a: (2, *[3] * (len(a[0]) - 3), 16), "injective": lambda a: (), "transpose": lambda a: (), "reduction": lambda a: a[1],
}


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.arch + "-" + t.cpu)
@pytest.mark.parametrize("call", CALLS, ids=lambda c: c.name)
def test_every_point_of_a_space_is_a_valid_schedule(call: TemplateCall[object], target: Target) -> None:
    """On every target, the default is a point of its space (its registers
    hold the default's tile); every valid point renders a schedule the lowering
    accepts; the defaults render what the templates give without knobs."""
    call = dataclasses.replace(call, target=target)
    space = call.space()
    default = call.default()
    assert default in space
    with PassContext(target=target):
        assert call.render(default) == call.template(*call.args)
    points = list(space)
    assert 1 <= len(points) <= space.size
    for knobs in points:
        LoopNest.of(call.args[0], REDUCE[call.name](call.args)).apply(call.render(knobs)).check()


def test_invalid_points_are_rejected_before_they_are_built() -> None:
    space = CALLS[0].space()
    spill = cpu.GemmKnobs(mr=16, nr=48, col_block=1, kc=0, unroll_k=1, grain=16)
    assert "vector registers" in (space.check(spill) or "")
    assert "not one of" in (space.check(cpu.GemmKnobs(6, 32, 1, 0, 3, 16)) or "")  # 3 is no choice
    assert "do not divide" in (space.check(cpu.GemmKnobs(6, 16, 2, 0, 1, 16)) or "")  # 3 tiles of 16
    packed = CALLS[2].space()
    assert packed.choices["kc"] == (0, 64, 128)  # K blocks that divide K = 256
    assert all(nr % 16 == 0 for nr in packed.choices["nr"])  # whole panels of 16


def test_long_rows_keep_several_registers_of_partials() -> None:
    """A softmax row of 1500 keeps REDUCE_VECTORS registers of partial results
    (independent chains); a row of 40 one register, a row of 8 none."""
    lanes = AVX512.lanes(32)
    assert cpu.ReductionKnobs.default(AVX512, (3,), (1500,)).vector == cpu.REDUCE_VECTORS * lanes
    assert cpu.ReductionKnobs.default(AVX512, (3,), (40,)).vector == lanes
    assert cpu.ReductionKnobs.default(AVX512, (3,), (8,)).vector == 0


def test_knobs_json() -> None:
    k = conv_nchwc.NchwcKnobs(7, 2, 1, True, 4)
    assert conv_nchwc.NchwcKnobs.from_json(json.loads(json.dumps(k.to_json()))) == k
    for bad, why in [
        ({**k.to_json(), "rows": "2"}, "expected int"),
        ({**k.to_json(), "kernel_outer": 1}, "expected bool"),
        ({"cols": 7}, "missing field"),
        ({**k.to_json(), "tile": 3}, "unknown field"),
    ]:
        with pytest.raises(LaminaError, match=why):
            conv_nchwc.NchwcKnobs.from_json(bad)


# ----------------------------------------------------------------- records
def _record(**kw: object) -> Record:
    target = CpuKey.host()
    fields: dict[str, object] = dict(
        workload="0123456789abcdef", task="k", site=0, template="gemm",
        knobs=cpu.GemmKnobs(6, 32, 1, 0, 1, 16).to_json(), default=True, status="ok",
        seconds=1e-4, flops=1000, weight=1, threads=1, cpu=target.cpu,
        features=target.features, schedule="", error=None, time=0.0,
    )
    fields.update(kw)
    return Record(**fields)  # type: ignore[arg-type]


def test_records_for_another_cpu_and_torn_lines_are_left_out_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    with RecordWriter(path) as w:
        w.write(_record())
        w.write(_record(cpu="some-other-cpu", seconds=1e-6))
    with path.open("a") as f:
        f.write('{"lamina_records": 1, "workload": "12')  # a killed run's last line
    records = load_records(path)
    assert [r.cpu for r in records.records] == [CpuKey.host().cpu]
    assert any("another CPU" in n and "some-other-cpu" in n for n in records.notes)
    assert any("not tuning records" in n and "line 3" in n for n in records.notes)
    with RecordWriter(path) as w:  # appending after a torn line starts a new line
        w.write(_record(seconds=2e-4))
    assert len(read_records(path)[0]) == 3
    with pytest.raises(LaminaError, match="no such file"):
        load_records(tmp_path / "missing.jsonl")
    with pytest.raises(LaminaError, match="is a folder"):
        load_records(tmp_path)


def test_the_scheduler_picks_the_heaviest_task_first() -> None:
    tasks = extract_tasks(_model())
    light, heavy = (TaskState(tasks[0], tasks[0].space()) for _ in range(2))
    light.measured[tasks[0].default()] = 1e-5
    heavy.measured[tasks[0].default()] = 1e-4
    assert pick_task([light, heavy]) is heavy
    heavy.broken = "its default schedule failed"
    assert pick_task([light, heavy]) is light


# ------------------------------------------------------------------ tuning
def _candidates(records: Sequence[Record]) -> set[str]:
    """The distinct knobs of the candidates (not the default) among `records`;
    asserts that none was measured twice."""
    knobs = [json.dumps(r.knobs, sort_keys=True) for r in records if not r.default]
    assert len(set(knobs)) == len(knobs), "a candidate measured twice"
    return set(knobs)


def test_tune_then_compile_with_the_records(tmp_path: Path) -> None:
    """A small run: the default and candidates measured in worker processes,
    the records written as they come; a compile with them gives the same
    outputs; a second run resumes (nothing measured twice)."""
    path = tmp_path / "records.jsonl"
    summary = tune(_model(), path, trials=10, batch=4, workers=1, timeout=60)
    records, notes = read_records(path)
    assert notes == [] and summary.trials == len(records) == 10
    # the default first, and again in each round (1 + 3 rounds of 4, the last cut to 1)
    assert [r.default for r in records] == [True, True, False, False, False, True, False, False, False, False]
    assert all(r.status == "ok" and r.target == CpuKey.host() for r in records)
    assert len(_candidates(records)) == 7  # all different

    x = np.random.default_rng(1).standard_normal((24, 64)).astype(np.float32)
    want = lamina.compile(_model(), num_threads=1).run(x)[0]
    loaded = load_records(path)
    exe = lamina.compile(_model(), num_threads=1, tuning_records=loaded)
    np.testing.assert_allclose(exe.run(x)[0], want, rtol=1e-5, atol=1e-5)
    best = loaded.best()[records[0].workload]
    assert loaded.applied == (set() if best.default else {best.workload})

    again = tune(_model(), path, trials=4, batch=4, workers=1)
    assert again.trials == 4
    after, _ = read_records(path)
    assert len(_candidates(after)) == 7 + 3  # the default again, 3 new candidates


def test_records_of_another_model_change_nothing(tmp_path: Path) -> None:
    """Records are keyed by workload: another shape's kernel keeps its default."""
    path = tmp_path / "r.jsonl"
    with RecordWriter(path) as w:
        w.write(_record(default=False, knobs=cpu.GemmKnobs(2, 16, 3, 0, 1, 4).to_json()))
    records = load_records(path)
    lamina.compile(_model(), tuning_records=records)
    assert records.applied == set()


def test_a_record_that_no_longer_fits_its_kernel_is_noted(tmp_path: Path) -> None:
    (task,) = extract_tasks(_model())
    path = tmp_path / "r.jsonl"
    bad = cpu.GemmKnobs(16, 64, 1, 0, 1, 16).to_json()  # overflows the registers
    with RecordWriter(path) as w:
        w.write(_record(workload=task.workload, default=False, knobs=bad))
    with pytest.warns(TuningNote, match="rejected"):
        lamina.compile(_model(), tuning_records=path)


# ------------------------------------------------------------------ faults
def _faulty(text: str, fault: str) -> str:
    """The candidate `text` (the GEMM kernel of `_model`) made bad on purpose."""
    if fault == "wrong":
        out = text.replace("arith.mulf", "arith.addf")
    elif fault == "crash":  # a read a terabyte past the input (unscheduled: not clamped)
        out = re.sub(r'schedule = "[^"]*"', 'schedule = ""', text)
        out = re.sub(
            r"(\s*)(%\d+) = te.read (%\d+)\[(%\d+), (%\d+)\] : tensor<24x64xf32>",
            r"\1%far = arith.constant 1000000000000 : index\1\2 = te.read \3[%far, \5] : tensor<24x64xf32>",
            out, count=1,
        )
    else:  # a reduction of 2**40 steps, every read in bounds
        out = re.sub(r"reduce sum \((%\d+)\) \[64\]", "reduce sum (\\1) [1099511627776]", text)
        out = re.sub(
            r"(\s*)(%\d+) = te.read (%\d+)\[(%\d+), (%\d+)\] : tensor<24x64xf32>",
            r"\1%z = arith.constant 0 : index\1\2 = te.read \3[\4, %z] : tensor<24x64xf32>", out, count=1,
        )
        out = re.sub(
            r"te.read (%\d+)\[(%\d+), (%\d+), (%\d+)\] : (tensor<\d+x64x\d+xf32>)", r"te.read \1[\2, %z, \4] : \5", out,
        )
    assert out != text
    return out


class _Saboteur:
    """A runner that makes the 1st, 2nd and 3rd candidates it sees (not the
    default's measurements) bad."""

    def __init__(self, inner: LocalRunner):
        self.inner = inner
        self.parallelism = inner.parallelism
        self.seen = 0

    def run(self, jobs: Sequence[MeasureInput]) -> list[MeasureResult]:
        out = []
        for job in jobs:
            fault = None
            if job.candidate != job.reference:
                fault = {0: "crash", 1: "timeout", 2: "wrong"}.get(self.seen)
                self.seen += 1
            if fault is not None:
                job = MeasureInput(job.reference, _faulty(job.candidate, fault), job.threads, job.seed)
            out += self.inner.run([job])
        return out

    def close(self) -> None:
        self.inner.close()


def test_bad_candidates_are_survived_and_reported(tmp_path: Path) -> None:
    """A crash (SIGSEGV), a hang (past the timeout) and a wrong result are
    recorded as such; the run goes on and measures the rest."""
    path = tmp_path / "r.jsonl"
    with LocalRunner(1, timeout=8) as inner:
        summary = tune(_model(), path, trials=6, batch=5, runner=_Saboteur(inner), search="random")
    records, _ = read_records(path)
    assert summary.trials == 6
    statuses = [(r.default, r.status) for r in records]
    assert statuses == [
        (True, "ok"), (True, "ok"), (False, "crash"), (False, "timeout"), (False, "wrong"), (False, "ok"),
    ], statuses
    crash, hang, wrong = records[2:5]
    assert "SIGSEGV" in (crash.error or "")
    assert "no result within 8 s" in (hang.error or "")
    assert "differs from the default schedule" in (wrong.error or "")
    assert load_records(path).best()[records[0].workload].status == "ok"


# ----------------------------------------------------------- command line
def test_the_tune_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import onnx

    model = tmp_path / "mm.onnx"
    onnx.save(_model(), str(model))
    records = tmp_path / "r.jsonl"
    assert cli(["tune", str(model), "-o", str(records), "--trials", "5", "--search", "random"]) == 0
    out = capsys.readouterr().out
    assert "fused_dense_pack_relu" in out and "records:" in out
    assert cli(["tune", "--report", str(records)]) == 0
    assert "fused_dense_pack_relu" in capsys.readouterr().out
    so = tmp_path / "mm.so"
    assert cli(["compile", str(model), "-o", str(so), "--tuning-records", str(records)]) == 0
    assert "applied to" in capsys.readouterr().err
    assert cli(["tune", "--report", str(tmp_path / "none.jsonl")]) == 1
    assert "no such file" in capsys.readouterr().err
    assert cli(["tune", str(model)]) == 1  # no -o
    assert "-o RECORDS.jsonl" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli(["tune", str(model), "-o", str(records), "--time-budget", "soon"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cli(["tune", str(model), "-o", str(records), "--runner", "slurm"]) == 1
    assert "unknown runner 'slurm'" in capsys.readouterr().err


def _processes_with(marker: str) -> list[int]:
    """The processes whose environment holds `marker`."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if marker.encode() in environ.read_bytes():
                found.append(int(environ.parent.name))
        except OSError:
            continue  # ended meanwhile, or not ours to read
    return found


def test_ctrl_c_keeps_every_measurement(tmp_path: Path) -> None:
    """SIGINT in the middle of `lamina tune`: exit 130, every line written is a
    record, no worker process is left, and the same command resumes."""
    import signal
    import subprocess
    import sys
    import time

    import onnx

    model = tmp_path / "mm.onnx"
    onnx.save(_model(), str(model))
    records = tmp_path / "r.jsonl"
    marker = f"LAMINA_TUNE_TEST={tmp_path}"
    env = {**os.environ, "LAMINA_TUNE_TEST": str(tmp_path)}
    cmd = [str(Path(sys.executable).parent / "lamina"), "tune", str(model), "-o", str(records)]
    proc = subprocess.Popen([*cmd, "--trials", "500"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not records.exists() or records.read_text().count("\n") < 3):
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "the same command resumes" in err and err.rstrip().endswith("lamina: interrupted")
    kept, notes = read_records(records)
    assert notes == [] and len(kept) >= 3
    assert _processes_with(marker) == []  # its workers ended with it
    done = subprocess.run([*cmd, "--trials", "2"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    again, _ = read_records(records)
    assert len(again) == len(kept) + 2
    _candidates(again)
