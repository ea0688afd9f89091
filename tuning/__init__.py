"""Auto-scheduling: schedule search with a learned cost model, tuning records,
and measurement in isolated processes, locally or on a Ray cluster.

    summary = lamina.tune("model.onnx", "records.jsonl", trials=500)   # = tune()
    exe = lamina.compile("model.onnx", tuning_records="records.jsonl")

The modules, in the order a tuning uses them:

- `tasks`: the model's unique kernels (workload hash, weight = calls);
- `space`: moves in a template's knob space (the knobs themselves are the
  strategy's: `lamina.lowering.strategy.cpu`);
- `features`, `cost_model`, `search`: loop-nest features, the XGBoost model,
  evolutionary and random search;
- `measure`, `worker`, `runners`: building, checking and timing candidates in
  worker processes, on this machine or on Ray;
- `records`: the JSON-lines database, and what `lamina.compile` reads of it;
- `tuner`: the task scheduler and the loop (`tune`).
"""

from lamina.tuning.records import (
    CpuKey,
    Record,
    TuningNote,
    TuningRecords,
    load_records,
    read_records,
)
from lamina.tuning.runners import LocalRunner, RayRunner, make_runner
from lamina.tuning.search import EvolutionarySearch, RandomSearch, TaskState
from lamina.tuning.tasks import Task, extract_tasks
from lamina.tuning.tuner import RoundDone, TuneSummary, pick_task, tune

__all__ = [
    "CpuKey",
    "EvolutionarySearch",
    "LocalRunner",
    "RandomSearch",
    "RayRunner",
    "Record",
    "RoundDone",
    "Task",
    "TaskState",
    "TuneSummary",
    "TuningNote",
    "TuningRecords",
    "extract_tasks",
    "load_records",
    "make_runner",
    "pick_task",
    "read_records",
    "tune",
]
