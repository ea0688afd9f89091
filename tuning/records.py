"""The tuning database: JSON lines, one measured candidate per line.

    {"lamina_records": 1, "workload": "3f9c0a4e5b1d2c77", "task": "fused_conv2d_nchwc_add_relu",
     "site": 0, "template": "conv_nchwc", "knobs": {"cols": 7, "rows": 2, ...},
     "default": false, "status": "ok", "seconds": 0.000412, "flops": 231211008,
     "weight": 2, "threads": 1, "cpu": "znver4", "features": "9d41c0e2b7aa",
     "schedule": "split(i3, 7); ...", "error": null, "time": 1767225600.0}

A record is keyed by its kernel's workload hash (`lamina.lowering.relay_to_te.
workload_key`) and the CPU it was measured on: LLVM's name for it and a digest of
its feature string. Records for another CPU are ignored, with a note. `status`
is `ok` (then `seconds` is the median time per call), or why the candidate is
bad: `crash`, `timeout`, `wrong` (its output differs from the default
schedule's) or `error` (it did not build). `schedule` is what the knobs
rendered to when measured (for people; compiling re-renders the knobs).

Lines are appended and flushed one by one, so an interrupted tuning keeps every
measurement; a torn last line (a killed process) is skipped with a note.

A graph op with several implementations (a 3x3 convolution: direct or
Winograd's) has one implementation line per implementation, written when a
tuning starts, that lists the kernels it calls:

    {"lamina_implementation": 1, "workload": "a1b2c3d4e5f60718",
     "op": "conv2d 1x64x56x56 * 64x64x3x3 padding 1,1,1,1 f32",
     "implementation": "winograd", "knobs": {"m": 4}, "kernels": ["3f9c...", ...],
     "cpu": "znver4", "features": "9d41c0e2b7aa", "time": 1767225600.0}

`workload` is the op's (`conv2d-winograd`'s conv workload), `kernels` one
kernel workload per call (over every instance of the op in the model). An
implementation's time is the sum of its kernels' best times, when every one
has an `ok` record; a compile gives the op its fastest implementation.
These lines are format `lamina_implementation` 1; a lamina that does not know
them skips them with a note and reads the kernel records as before.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import warnings
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

from lamina.errors import LaminaError
from lamina.lowering.strategy.dispatch import Implementation
from lamina.lowering.strategy.registry import DEFAULT_IMPLEMENTATION
from lamina.lowering.strategy.sites import ApplyBest, Choice
from lamina.passes import current_target

#: The format's version, the value of every line's `lamina_records` field.
VERSION = 1
#: The version of implementation lines (their `lamina_implementation` field).
IMPLEMENTATION_VERSION = 1

_R = TypeVar("_R")  # a record class

STATUSES = ("ok", "crash", "timeout", "wrong", "error")


class TuningNote(UserWarning):
    """Something about tuning records worth saying (records for another CPU,
    a torn line, a record that no longer fits its kernel)."""


@dataclass(frozen=True)
class CpuKey:
    """The CPU records are for: LLVM's name and a digest of its features."""

    cpu: str
    features: str

    @staticmethod
    def host() -> CpuKey:
        """The CPU of the running pass context's target (the host by default)."""
        target = current_target()
        return CpuKey(target.cpu, hashlib.sha256(target.feature_string.encode()).hexdigest()[:12])

    def __str__(self) -> str:
        return f"{self.cpu} (features {self.features})"


@dataclass(frozen=True)
class Record:
    """One measured candidate of one task (see the module's docstring)."""

    workload: str
    task: str
    site: int
    template: str
    knobs: dict[str, Any]
    default: bool
    status: str
    seconds: float | None
    flops: int
    weight: int
    threads: int
    cpu: str
    features: str
    schedule: str
    error: str | None = None
    time: float = 0.0

    @property
    def target(self) -> CpuKey:
        return CpuKey(self.cpu, self.features)

    @property
    def ok(self) -> bool:
        return self.status == "ok" and self.seconds is not None

    @property
    def gflops(self) -> float:
        """GFLOP/s of a good candidate (0 for a bad one)."""
        return self.flops / self.seconds / 1e9 if self.ok and self.seconds else 0.0

    def to_line(self) -> str:
        return json.dumps({"lamina_records": VERSION, **asdict(self)}, separators=(", ", ": "))

    @staticmethod
    def from_json(data: Any) -> Record:
        """A record from one line's object; a LaminaError saying what is wrong."""
        record = _from_line(Record, data, "lamina_records", VERSION, "format version")
        _check_types(record, _TYPES)
        if record.status not in STATUSES:
            raise LaminaError(f"status {record.status!r} is not one of {', '.join(STATUSES)}")
        if record.status == "ok" and (
            record.seconds is None or not math.isfinite(record.seconds) or record.seconds <= 0
        ):
            raise LaminaError(f"an ok record with seconds {record.seconds!r}")
        return record


@dataclass(frozen=True)
class ImplementationRecord:
    """One implementation of a graph op and the kernels it calls (see the
    module's docstring)."""

    workload: str
    op: str
    implementation: str
    knobs: dict[str, Any]
    kernels: list[str]
    cpu: str
    features: str
    time: float = 0.0

    @property
    def target(self) -> CpuKey:
        return CpuKey(self.cpu, self.features)

    @property
    def choice(self) -> Implementation:
        return Implementation.of(self.implementation, self.knobs)

    def to_line(self) -> str:
        return json.dumps(
            {"lamina_implementation": IMPLEMENTATION_VERSION, **asdict(self)}, separators=(", ", ": ")
        )

    @staticmethod
    def from_json(data: dict[str, Any]) -> ImplementationRecord:
        """An implementation line's record; a LaminaError saying what is wrong."""
        record = _from_line(
            ImplementationRecord, data, "lamina_implementation", IMPLEMENTATION_VERSION,
            "implementation format version",
        )
        _check_types(record, _IMPLEMENTATION_TYPES)
        if not all(isinstance(k, str) for k in record.kernels) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in record.knobs.values()
        ):
            raise LaminaError("kernels must be workloads (strings) and knobs integers")
        return record


_TYPES: dict[str, tuple[type, ...]] = {
    "workload": (str,), "task": (str,), "site": (int,), "template": (str,), "knobs": (dict,),
    "default": (bool,), "status": (str,), "seconds": (float, int, type(None)), "flops": (int,),
    "weight": (int,), "threads": (int,), "cpu": (str,), "features": (str,), "schedule": (str,),
    "error": (str, type(None)), "time": (float, int),
}


_IMPLEMENTATION_TYPES: dict[str, tuple[type, ...]] = {
    "workload": (str,), "op": (str,), "implementation": (str,), "knobs": (dict,), "kernels": (list,),
    "cpu": (str,), "features": (str,),
}


def _from_line(cls: type[_R], data: Any, key: str, version: int, what: str) -> _R:
    """A `cls` from one line's object whose format version is under `key`; a
    LaminaError saying what is wrong."""
    if not isinstance(data, dict):
        raise LaminaError("not a JSON object")
    given = data.get(key)
    if given != version:
        raise LaminaError(f"{what} {given!r}, this lamina reads {version}")
    try:
        return cls(**{k: v for k, v in data.items() if k != key})
    except TypeError as e:
        raise LaminaError(str(e).replace(f"{cls.__name__}.__init__() ", "")) from None


def _check_types(record: Record | ImplementationRecord, types: dict[str, tuple[type, ...]]) -> None:
    for name, allowed in types.items():
        value = getattr(record, name)
        if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
            raise LaminaError(f"field '{name}' is {value!r}")


def _open_error(path: Path, why: str) -> LaminaError:
    return LaminaError(f"cannot read tuning records '{path}': {why}")


def read_records(path: str | os.PathLike[str]) -> tuple[list[Record], list[str]]:
    """Every record of the file at `path` (any CPU), and notes on the lines that
    are not records (skipped; implementation lines are not kernel records, and
    are skipped without a note: `read_all` reads them)."""
    records, _, notes = read_all(path)
    return records, notes


def read_all(
    path: str | os.PathLike[str],
) -> tuple[list[Record], list[ImplementationRecord], list[str]]:
    """Every kernel record and implementation line of the file at `path` (any
    CPU), and notes on the lines that are neither (skipped)."""
    p = Path(path)
    if not p.exists():
        raise _open_error(p, "no such file")
    if p.is_dir():
        raise _open_error(p, "it is a folder; give the .jsonl file `lamina tune -o` wrote")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise _open_error(p, f"{type(e).__name__}: {e}") from None
    records: list[Record] = []
    implementations: list[ImplementationRecord] = []
    bad: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if isinstance(data, dict) and "lamina_implementation" in data:
                implementations.append(ImplementationRecord.from_json(data))
            else:
                records.append(Record.from_json(data))
        except json.JSONDecodeError as e:
            bad.append((number, f"not JSON ({e.msg})"))
        except LaminaError as e:
            bad.append((number, str(e)))
    notes = []
    if bad:
        number, why = bad[0]
        notes.append(
            f"{p}: skipped {len(bad)} line(s) that are not tuning records "
            f"(line {number}: {why})"
        )
    return records, implementations, notes


@dataclass
class TuningRecords:
    """The records of one file for one CPU (default: this one), with notes on
    what was left out. `lamina.compile(..., tuning_records=...)` takes it (or
    the file's path)."""

    path: Path | None
    target: CpuKey
    records: list[Record]
    notes: list[str] = field(default_factory=list)
    #: The workloads whose tuned knobs compiles have applied (kept up to date
    #: by every compile given these records), and the graph workloads given
    #: an implementation other than their default.
    applied: set[str] = field(default_factory=set)
    #: The implementation lines (this CPU's).
    implementations: list[ImplementationRecord] = field(default_factory=list)

    def best(self) -> dict[str, Record]:
        """The fastest good record of each workload."""
        out: dict[str, Record] = {}
        for r in self.records:
            if r.ok and (r.workload not in out or r.seconds < out[r.workload].seconds):  # type: ignore[operator]
                out[r.workload] = r
        return out

    def implementation_times(self) -> dict[str, dict[Implementation, float]]:
        """Per graph workload, the time of each of its implementations whose
        kernels all have a good record: the sum of their best times."""
        best = self.best()
        out: dict[str, dict[Implementation, float]] = {}
        for impl in self.implementations:
            if impl.kernels and all(w in best for w in impl.kernels):
                seconds = sum(best[w].seconds or 0.0 for w in impl.kernels)
                out.setdefault(impl.workload, {})[impl.choice] = seconds
        return out

    def chosen(self) -> dict[str, Implementation]:
        """The graph workloads whose fastest implementation is not their
        default one, and that implementation (a tie keeps the default)."""
        out = {}
        for workload, times in self.implementation_times().items():
            default = next((t for i, t in times.items() if i.name == DEFAULT_IMPLEMENTATION), None)
            if default is None:
                continue  # (nothing to compare with)
            impl, seconds = min(times.items(), key=lambda item: item[1])
            if seconds < default and impl.name != DEFAULT_IMPLEMENTATION:
                out[workload] = impl
        return out

    def latency(self, tuned: bool = True) -> float:
        """The time per inference of the kernels measured both ways (weight x
        default or best time), in seconds. Tuned, each graph op whose default
        implementation is timed counts at its fastest implementation instead
        of its default's kernels; kernels only another implementation calls
        count by default never."""
        by = self.by_workload()
        best = self.best()
        default = {
            w: min(r.seconds for r in rs if r.default and r.ok and r.seconds is not None)
            for w, rs in by.items()
            if any(r.default and r.ok for r in rs)
        }
        direct = Counter(
            w for i in self.implementations if i.implementation == DEFAULT_IMPLEMENTATION for w in i.kernels
        )
        others = {w for i in self.implementations if i.implementation != DEFAULT_IMPLEMENTATION for w in i.kernels}
        measured = [w for w in by if w in best and w in default and (w in direct or w not in others)]
        if not tuned:
            return sum(by[w][0].weight * default[w] for w in measured)
        timed = {
            op: times for op, times in self.implementation_times().items()
            if any(i.name == DEFAULT_IMPLEMENTATION for i in times)
        }
        replaced = Counter(
            w for i in self.implementations
            if i.implementation == DEFAULT_IMPLEMENTATION and i.workload in timed for w in i.kernels
        )
        total = sum(min(times.values()) for times in timed.values())
        return total + sum((by[w][0].weight - replaced[w]) * (best[w].seconds or 0.0) for w in measured)

    def dispatch(self) -> ApplyBest:
        """The dispatch context that gives each kernel its best record's knobs
        (a workload whose best is the default schedule keeps it) and each graph
        op with several implementations its fastest."""
        choices = {
            w: Choice(r.site, r.template, r.knobs) for w, r in self.best().items() if not r.default
        }
        return ApplyBest(choices, self.applied, implementations=self.chosen())

    def by_workload(self) -> dict[str, list[Record]]:
        out: dict[str, list[Record]] = {}
        for r in self.records:
            out.setdefault(r.workload, []).append(r)
        return out


def load_records(
    path: str | os.PathLike[str], target: CpuKey | None = None
) -> TuningRecords:
    """The records at `path` for `target` (default: this CPU); records for
    other CPUs are left out with a note naming them."""
    target = target or CpuKey.host()
    records, implementations, notes = read_all(path)
    mine = [r for r in records if r.target == target]
    others = Counter(str(r.target) for r in records if r.target != target)
    if others:
        which = ", ".join(f"{n} for {t}" for t, n in others.most_common())
        notes.append(
            f"{path}: ignored {sum(others.values())} record(s) tuned on another CPU ({which}); "
            f"this CPU is {target}: tune on it with `lamina tune`"
        )
    impls = [i for i in implementations if i.target == target]
    return TuningRecords(Path(path), target, mine, notes, implementations=impls)


def warn(notes: Iterable[str]) -> None:
    """Issue each note as a `TuningNote` warning."""
    for note in notes:
        warnings.warn(note, TuningNote, stacklevel=3)


class RecordWriter:
    """Appends records to a file, each line flushed as it is written."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        if self.path.is_dir():
            raise LaminaError(f"cannot write tuning records to '{self.path}': it is a folder")
        if not self.path.parent.is_dir():
            raise LaminaError(
                f"cannot write tuning records to '{self.path}': folder '{self.path.parent}' does not exist"
            )
        self._file: IO[str] | None = None
        self._torn = False
        # A file whose last line was torn (a killed run) gets a newline first.
        if self.path.exists() and self.path.stat().st_size:
            with self.path.open("rb") as f:
                f.seek(-1, os.SEEK_END)
                self._torn = f.read(1) != b"\n"

    def write(self, record: Record | ImplementationRecord) -> None:
        if self._file is None:
            try:
                self._file = self.path.open("a", encoding="utf-8")
            except OSError as e:
                raise LaminaError(f"cannot write tuning records to '{self.path}': {e.strerror}") from None
            if self._torn:
                self._file.write("\n")
        self._file.write(record.to_line() + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = [
    "DEFAULT_IMPLEMENTATION",
    "IMPLEMENTATION_VERSION",
    "STATUSES",
    "VERSION",
    "CpuKey",
    "ImplementationRecord",
    "Record",
    "RecordWriter",
    "TuningNote",
    "TuningRecords",
    "load_records",
    "read_all",
    "read_records",
    "warn",
]
