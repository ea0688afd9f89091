"""Pass instruments (TVM's `tvm.instrument`): hooks a `PassContext` runs around
every pass.

- `TimingInstrument`: a per-pass timing table in MLIR's `--mlir-timing` format;
- `PrintIRInstrument`: the IR before/after named passes or all of them
  (`--mlir-print-ir-before/after`);
- `VerifyInstrument`: verify after each pass; a failure names the pass that broke
  the IR and is reported at the failing op's location;
- `StatisticsInstrument`: ops before/after each pass plus the counters a pass
  reports with `record_statistic` (`--mlir-pass-statistics`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException

from lamina.errors import IRError
from lamina.ir import print_ir, verify_error
from lamina.passes.context import PassInfo, PassInstrument
from lamina.passes.registry import check_pass_names

_RULE = "===" + "-" * 73 + "==="


def _banner(title: str) -> list[str]:
    return [_RULE, f"... {title} ...".center(len(_RULE)).rstrip(), _RULE]


class TimingInstrument(PassInstrument):
    """Wall time per pass, summed over runs of the same pass; `table()` renders
    MLIR's `--mlir-timing` report."""

    needs_whole_module = False

    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self.runs: dict[str, int] = {}
        self._start: list[float] = []

    def reset(self) -> None:
        self.timings.clear()
        self.runs.clear()

    @property
    def total(self) -> float:
        return sum(self.timings.values())

    def run_before_pass(self, module: ModuleOp, info: PassInfo) -> None:
        self._start.append(time.perf_counter())

    def run_after_pass(self, module: ModuleOp, info: PassInfo) -> None:
        elapsed = time.perf_counter() - self._start.pop()
        self.timings[info.name] = self.timings.get(info.name, 0.0) + elapsed
        self.runs[info.name] = self.runs.get(info.name, 0) + 1

    def table(self) -> str:
        total = self.total
        lines = [
            *_banner("Execution time report"),
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for name, seconds in [*self.timings.items(), ("Total", total)]:
            share = 100.0 * seconds / total if total > 0 else 100.0
            lines.append(f"  {seconds:8.4f} ({share:5.1f}%)  {name}")
        return "\n".join(lines) + "\n"


def _print_module(module: ModuleOp, stream: IO[str], generic: bool) -> None:
    stream.write(print_ir(module, generic=generic))


class PrintIRInstrument(PassInstrument):
    """Print the IR before and/or after passes, MLIR's `--mlir-print-ir-before/after`.

    `before`/`after`: pass names, or "all" (or True) for every pass. The IR goes to
    `stream` (default: stderr, as mlir-opt) under a header
    `// -----// IR Dump After cse //----- //`. An unknown pass name is an error
    naming the option that gave it: `labels`, by default the command-line flags
    `--print-ir-before` and `--print-ir-after`."""

    def __init__(
        self,
        before: Iterable[str] | str | bool = (),
        after: Iterable[str] | str | bool = (),
        stream: IO[str] | None = None,
        generic: bool = False,
        *,
        labels: tuple[str, str] = ("--print-ir-before", "--print-ir-after"),
    ) -> None:
        self.before = self._names(before, labels[0])
        self.after = self._names(after, labels[1])
        self.stream = stream
        self.generic = generic

    @staticmethod
    def _names(spec: Iterable[str] | str | bool, label: str) -> frozenset[str] | None:
        """None means every pass."""
        if spec is True or spec == "all":
            return None
        if spec is False:
            return frozenset()
        if isinstance(spec, str):
            spec = spec.split(",")
        names = frozenset(n.strip() for n in spec if n.strip())
        if "all" in names:
            return None
        check_pass_names(label, names)
        return names

    def _dump(self, when: str, module: ModuleOp, info: PassInfo) -> None:
        stream = self.stream or sys.stderr
        stream.write(f"// -----// IR Dump {when} {info.name} //----- //\n")
        _print_module(module, stream, self.generic)
        stream.write("\n")
        stream.flush()

    def run_before_pass(self, module: ModuleOp, info: PassInfo) -> None:
        if self.before is None or info.name in self.before:
            self._dump("Before", module, info)

    def run_after_pass(self, module: ModuleOp, info: PassInfo) -> None:
        if self.after is None or info.name in self.after:
            self._dump("After", module, info)


class VerifyInstrument(PassInstrument):
    """Verify the module after each pass; a failure is an `IRError` naming the pass
    that left the IR invalid."""

    needs_whole_module = False

    def run_after_pass(self, module: ModuleOp, info: PassInfo) -> None:
        try:
            module.verify()
        except DiagnosticException as error:
            e = verify_error(module, error)
            raise IRError(
                f"the IR does not verify after pass '{info.name}' (pass "
                f"#{info.index + 1} of {info.count}); that pass broke it: {e.reason}",
                location=e.location,
            ) from None


def count_ops(module: ModuleOp) -> int:
    """Operations in `module`, nested ones included, the module itself excluded."""
    return sum(1 for _ in module.walk()) - 1


@dataclass
class PassStatistics:
    name: str
    ops_before: int
    ops_after: int
    counters: dict[str, int]


class StatisticsInstrument(PassInstrument):
    """Per pass run: the number of operations before and after, and the counters
    the pass reported (`record_statistic`, e.g. pattern applications). `report()`
    renders MLIR's `--mlir-pass-statistics` format."""

    needs_whole_module = False

    def __init__(self) -> None:
        self.records: list[PassStatistics] = []
        self._before: list[int] = []

    def run_before_pass(self, module: ModuleOp, info: PassInfo) -> None:
        self._before.append(count_ops(module))

    def run_after_pass(self, module: ModuleOp, info: PassInfo) -> None:
        self.records.append(
            PassStatistics(
                info.name, self._before.pop(), count_ops(module), dict(info.statistics)
            )
        )

    def report(self) -> str:
        lines = _banner("Pass statistics report")
        for rec in self.records:
            rows = [
                (rec.ops_before, "ops-before", "operations before the pass"),
                (rec.ops_after, "ops-after", "operations after the pass"),
                *((v, k, "reported by the pass") for k, v in rec.counters.items()),
            ]
            width = max(len(str(v)) for v, _, _ in rows)
            lines.append(rec.name)
            lines += [f"  (S) {v:>{width}} {k} - {d}" for v, k, d in rows]
        return "\n".join(lines) + "\n"


__all__ = [
    "PassStatistics",
    "PrintIRInstrument",
    "StatisticsInstrument",
    "TimingInstrument",
    "VerifyInstrument",
    "count_ops",
]
