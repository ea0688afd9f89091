"""The pass manager: pass contexts, opt levels, instruments and standard pipelines.

Passes are xDSL `ModulePass`es and pipelines use xDSL's syntax
(`"canonicalize,fuse-ops{max-depth=8}"`, parsed by `PassPipeline.parse_spec`);
this module adds what TVM's `tvm.transform` has on top:

- `PassContext(opt_level=2, required_passes=(), disabled_passes=(), instruments=(),
  config={...})`: the options every pass run sees, usable as `with PassContext(...):`
  and reachable from inside a pass through `PassContext.current()`. `config` is
  typed: every key is declared with `register_config` (type, default, help), and an
  unknown key or a value of the wrong type is a `LaminaError`.
- opt levels: a pass declares the lowest opt level it runs at as a class variable
  (`opt_level: ClassVar[int] = 2`, TVM's `PassInfo.opt_level`); xDSL's passes get
  theirs from `EXTERNAL_OPT_LEVELS` (anything else: 0, always runs). A pass runs
  when it is not disabled and is either required or at or below the context's
  level (TVM's rule: disabled wins over required).
- instruments (TVM's `PassInstrument`): `TimingInstrument` (a per-pass timing table
  in MLIR's format), `PrintIRInstrument` (IR before/after named passes or all),
  `VerifyInstrument` (verify after each pass; a failure names the pass that broke
  the IR), `StatisticsInstrument` (ops before/after each pass, plus the counters a
  pass reports with `record_statistic`, e.g. pattern applications).
- standard pipelines, by pass name, modelled on TVM's build: `standard_pipeline`
  and the pseudo-passes `optimize` (graph-level passes allowed at the context's opt
  level), `lower` (relay -> te -> tir -> llvm) and `default` (both), which
  `lamina-opt -p default --opt-level 2` and `run_pipeline(m, "default", ctx)`
  expand pass by pass (instruments see each pass).

`run_pipeline(module, pipeline, ctx)` runs a pipeline (text or passes) under a
context; `lamina.compile` uses it.
"""

from __future__ import annotations

import difflib
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import IO, ClassVar, TypeAlias

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException

from lamina.errors import InternalError, IRError, LaminaError

# --------------------------------------------------------------------------- config
ConfigValue: TypeAlias = int | float | bool | str


@dataclass(frozen=True)
class ConfigOption:
    """A typed `PassContext.config` key: `fuse-ops.max-depth: int = 256`."""

    key: str
    type: type
    default: ConfigValue
    help: str

    def check(self, value: object) -> ConfigValue:
        """`value` if it has this option's type (an int is a float), else a
        LaminaError that says what was expected."""
        ok = (
            isinstance(value, bool)
            if self.type is bool
            else isinstance(value, int | float) and not isinstance(value, bool)
            if self.type is float
            else isinstance(value, self.type) and not isinstance(value, bool)
        )
        if not ok:
            raise LaminaError(
                f"pass config '{self.key}' expects {self.type.__name__}, got "
                f"{type(value).__name__} {value!r} ({self.help})"
            )
        return float(value) if self.type is float else value  # type: ignore[arg-type]

    def parse(self, text: str) -> ConfigValue:
        """The value of `text` (as written on a command line) for this option."""
        try:
            if self.type is bool:
                lowered = text.strip().lower()
                if lowered not in ("true", "false", "1", "0"):
                    raise ValueError(text)
                return lowered in ("true", "1")
            return self.check(self.type(text))
        except ValueError:
            raise LaminaError(
                f"pass config '{self.key}' expects {self.type.__name__}, got {text!r}"
            ) from None


_CONFIG: dict[str, ConfigOption] = {}


def register_config(
    key: str, type_: type, default: ConfigValue, help: str
) -> ConfigOption:
    """Declare a `PassContext.config` key (TVM's `TVM_REGISTER_PASS_CONFIG_OPTION`).
    Passes declare theirs at import time, named `<pass-name>.<option>`."""
    if type_ not in (int, float, bool, str):
        raise LaminaError(f"pass config '{key}': type must be int, float, bool or str")
    option = ConfigOption(key, type_, default, help)
    option.check(default)
    existing = _CONFIG.get(key)
    if existing is not None and existing != option:
        raise LaminaError(f"pass config '{key}' is already declared as {existing}")
    _CONFIG[key] = option
    return option


def config_options() -> Mapping[str, ConfigOption]:
    """Every declared config key."""
    return MappingProxyType(_CONFIG)


def _config_option(key: str) -> ConfigOption:
    option = _CONFIG.get(key)
    if option is None:
        close = difflib.get_close_matches(key, _CONFIG, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise LaminaError(
            f"unknown pass config '{key}'{hint} Known keys: "
            + ", ".join(sorted(_CONFIG))
        )
    return option


register_config(
    "fuse-ops.max-depth",
    int,
    256,
    "the most ops fuse-ops puts in one group (TVM's relay.FuseOps.max_depth)",
)
register_config(
    "byoc.targets",
    str,
    "",
    "BYOC targets, comma-separated, that merge-composite, annotate-target and "
    "the other BYOC passes offload to when not given `targets=`; "
    "lamina.compile(targets=[...]) sets it",
)
register_config(
    "byoc.num-threads",
    int,
    0,
    "threads a BYOC target's library may use in the compiled model (0: the "
    "library's own setting); lamina.compile(num_threads=...) sets it",
)
register_config(
    "pattern.max-iterations",
    int,
    100,
    "rounds a pattern rewrite may take to reach its fixpoint before it is reported "
    "as not converging",
)


# ----------------------------------------------------------------------- opt levels
#: Opt levels of the xDSL passes lamina reuses (lamina's own passes declare theirs
#: as a class variable `opt_level`). Any other pass has level 0: it always runs.
EXTERNAL_OPT_LEVELS: dict[str, int] = {"canonicalize": 2, "cse": 2, "dce": 2}

MAX_OPT_LEVEL = 3


def pass_opt_level(p: ModulePass | type[ModulePass]) -> int:
    """The lowest opt level at which `p` runs."""
    cls = p if isinstance(p, type) else type(p)
    level = cls.__dict__.get("opt_level")
    if level is None:
        for base in cls.__mro__[1:]:
            if isinstance(base.__dict__.get("opt_level"), int):
                level = base.__dict__["opt_level"]
                break
    if isinstance(level, int) and not isinstance(level, bool):
        return level
    return EXTERNAL_OPT_LEVELS.get(cls.name, 0)


@cache
def _xdsl_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    from xdsl.universe import Universe

    return dict(Universe.get_multiverse().all_passes)


def _known_pass_names() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass by name: xDSL's (as xdsl-opt knows them) and lamina's."""
    from lamina.passes.registry import all_passes

    return {**_xdsl_passes(), **all_passes()}


def _lamina_pass_list() -> str:
    from lamina.passes.registry import all_passes

    return ", ".join(sorted(all_passes())) + " (plus xDSL's: see lamina-opt --help)"


def _check_pass_names(what: str, names: Iterable[str]) -> tuple[str, ...]:
    if isinstance(names, str):
        names = [n for n in names.split(",") if n]
    out = tuple(names)
    known = _known_pass_names()
    for name in out:
        if not isinstance(name, str) or name not in known:
            close = difflib.get_close_matches(str(name), known, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise LaminaError(
                f"{what}: unknown pass '{name}'{hint}; lamina's passes are "
                + _lamina_pass_list()
            )
    return out


# ----------------------------------------------------------------------- pass info
@dataclass
class PassInfo:
    """What instruments learn about a pass run."""

    name: str
    opt_level: int
    pass_: ModulePass
    #: position in the (expanded) pipeline, and the pipeline's length
    index: int = 0
    count: int = 1
    #: counters the pass reported with `record_statistic`
    statistics: dict[str, int] = field(default_factory=dict)


_CURRENT_PASS: ContextVar[PassInfo | None] = ContextVar(
    "lamina_current_pass", default=None
)


def current_pass() -> PassInfo | None:
    """The pass `run_pipeline` is running, if any."""
    return _CURRENT_PASS.get()


def record_statistic(name: str, value: int = 1) -> None:
    """Add `value` to the counter `name` of the running pass (shown by
    `StatisticsInstrument`); a no-op outside `run_pipeline`."""
    info = _CURRENT_PASS.get()
    if info is not None and value:
        info.statistics[name] = info.statistics.get(name, 0) + value


def max_iterations() -> int:
    """The cap on the rounds of any fixpoint loop in a pass (the running context's
    `pattern.max-iterations`)."""
    return int(PassContext.current().get_config("pattern.max-iterations"))


def not_converged(what: str, cap: int, detail: str = "") -> LaminaError:
    """The error of a fixpoint loop still changing the IR after `cap` rounds,
    naming the pass that runs it."""
    info = _CURRENT_PASS.get()
    where = f" in pass '{info.name}'" if info is not None else ""
    more = f"; {detail}" if detail else ""
    return LaminaError(
        f"{what}{where} did not converge after {cap} iterations{more}; this is a "
        "bug in a rewrite (one undoes another); raise pattern.max-iterations if the "
        "rewrite is just long"
    )


# --------------------------------------------------------------------- instruments
class PassInstrument:
    """Hooks around each pass run (TVM's `tvm.instrument.PassInstrument`)."""

    def enter_pass_ctx(self) -> None:
        """Called when the `PassContext` holding this instrument is entered."""

    def exit_pass_ctx(self) -> None:
        """Called when it is exited."""

    def should_run(self, module: ModuleOp, info: PassInfo) -> bool:
        """Return False to skip the pass."""
        return True

    def run_before_pass(self, module: ModuleOp, info: PassInfo) -> None:
        """Called before a pass that will run."""

    def run_after_pass(self, module: ModuleOp, info: PassInfo) -> None:
        """Called after a pass that ran (not if it raised)."""


_RULE = "===" + "-" * 73 + "==="


def _banner(title: str) -> list[str]:
    return [_RULE, f"... {title} ...".center(len(_RULE)).rstrip(), _RULE]


class TimingInstrument(PassInstrument):
    """Wall time per pass, summed over runs of the same pass; `table()` renders
    MLIR's `--mlir-timing` report."""

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
    from lamina.ir import print_ir

    stream.write(print_ir(module, generic=generic))


class PrintIRInstrument(PassInstrument):
    """Print the IR before and/or after passes, MLIR's `--mlir-print-ir-before/after`.

    `before`/`after`: pass names, or "all" (or True) for every pass. The IR goes to
    `stream` (default: stderr, as mlir-opt) under a header
    `// -----// IR Dump After cse //----- //`."""

    def __init__(
        self,
        before: Iterable[str] | str | bool = (),
        after: Iterable[str] | str | bool = (),
        stream: IO[str] | None = None,
        generic: bool = False,
    ) -> None:
        self.before = self._names(before)
        self.after = self._names(after)
        self.stream = stream
        self.generic = generic

    @staticmethod
    def _names(spec: Iterable[str] | str | bool) -> frozenset[str] | None:
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
        _check_pass_names("PrintIRInstrument", names)
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

    def run_after_pass(self, module: ModuleOp, info: PassInfo) -> None:
        try:
            module.verify()
        except DiagnosticException as e:
            raise IRError(
                f"the IR does not verify after pass '{info.name}' (pass "
                f"#{info.index + 1} of {info.count}); that pass broke it:\n{e}"
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


# ----------------------------------------------------------------------- context
class PassContext:
    """Options for running passes (TVM's `tvm.transform.PassContext`).

    `with PassContext(opt_level=3, config={"fuse-ops.max-depth": 8}): ...` makes it
    the context `PassContext.current()` returns (contexts nest; outside all of them
    `current()` is a default context at opt level 2)."""

    _stack: ClassVar[ContextVar[tuple[PassContext, ...]]] = ContextVar(
        "lamina_pass_context", default=()
    )
    _default: ClassVar[PassContext | None] = None

    def __init__(
        self,
        opt_level: int = 2,
        required_passes: Iterable[str] = (),
        disabled_passes: Iterable[str] = (),
        instruments: Iterable[PassInstrument] = (),
        config: Mapping[str, ConfigValue] | None = None,
    ) -> None:
        if (
            not isinstance(opt_level, int)
            or isinstance(opt_level, bool)
            or not 0 <= opt_level <= MAX_OPT_LEVEL
        ):
            raise LaminaError(
                f"opt_level must be an integer from 0 to {MAX_OPT_LEVEL}, got "
                f"{opt_level!r}"
            )
        self.opt_level = opt_level
        self.required_passes = _check_pass_names("required_passes", required_passes)
        self.disabled_passes = _check_pass_names("disabled_passes", disabled_passes)
        self.instruments: tuple[PassInstrument, ...] = tuple(instruments)
        for inst in self.instruments:
            if not isinstance(inst, PassInstrument):
                raise LaminaError(
                    f"instruments must be PassInstrument objects, got {inst!r}"
                )
        checked: dict[str, ConfigValue] = {}
        for key, value in (config or {}).items():
            checked[key] = _config_option(key).check(value)
        self.config: Mapping[str, ConfigValue] = MappingProxyType(checked)

    def __repr__(self) -> str:
        return (
            f"PassContext(opt_level={self.opt_level}, required_passes="
            f"{self.required_passes}, disabled_passes={self.disabled_passes}, "
            f"config={dict(self.config)})"
        )

    # --- config -----------------------------------------------------------
    def get_config(self, key: str) -> ConfigValue:
        """The value of `key`: the one given, else its declared default."""
        option = _config_option(key)
        return self.config.get(key, option.default)

    # --- which passes run -------------------------------------------------
    def pass_enabled(self, p: ModulePass | type[ModulePass] | str) -> bool:
        """TVM's rule: disabled passes never run, required ones always do, others
        when their opt level is at most the context's."""
        if isinstance(p, str):
            known = _known_pass_names()
            if p not in known:
                _check_pass_names("pass_enabled", [p])
            cls = known[p]()
        else:
            cls = p if isinstance(p, type) else type(p)
        if cls.name in self.disabled_passes:
            return False
        if cls.name in self.required_passes:
            return True
        return pass_opt_level(cls) <= self.opt_level

    # --- scoping ------------------------------------------------------------
    @classmethod
    def current(cls) -> PassContext:
        """The innermost entered context, or the default one."""
        stack = cls._stack.get()
        if stack:
            return stack[-1]
        if cls._default is None:
            cls._default = PassContext()
        return cls._default

    def __enter__(self) -> PassContext:
        self._stack.set((*self._stack.get(), self))
        for inst in self.instruments:
            inst.enter_pass_ctx()
        return self

    def __exit__(self, *exc: object) -> None:
        stack = self._stack.get()
        assert stack and stack[-1] is self, "PassContext exited out of order"
        self._stack.set(stack[:-1])
        for inst in self.instruments:
            inst.exit_pass_ctx()

    @contextmanager
    def _active(self) -> Iterator[PassContext]:
        """This context as the current one (entered unless it already is)."""
        stack = self._stack.get()
        if stack and stack[-1] is self:
            yield self
            return
        with self:
            yield self


# ------------------------------------------------------------------- pipelines
#: lamina's graph-level optimizations in the order TVM's build runs them; each runs
#: from its own opt level (O1: simplify-inference, fold-constant; O2: + canonicalize,
#: cse, dce, fuse-ops; O3: + simplify-expr). Names not registered are left out.
GRAPH_PIPELINE: tuple[str, ...] = (
    "simplify-inference",
    "canonicalize",
    "simplify-expr",
    # BYOC, only when targets are configured (`byoc.targets`, which
    # lamina.compile(targets=...) sets): targets see the graph's own ops, before
    # lamina's layout choices; external-codegen compiles the outlined functions.
    # See BYOC_PASSES.
    "merge-composite",
    "annotate-target",
    "merge-compiler-regions",
    "partition-graph",
    "external-codegen",
    "alter-op-layout",
    "fold-constant",
    "cse",
    "dce",
    "fuse-ops",
)

#: The BYOC passes of GRAPH_PIPELINE: left out unless the context configures
#: targets (`byoc.targets`).
BYOC_PASSES: frozenset[str] = frozenset(
    (
        "merge-composite",
        "annotate-target",
        "merge-compiler-regions",
        "partition-graph",
        "external-codegen",
    )
)


def _graph_passes(ctx: PassContext | None = None) -> list[str]:
    """GRAPH_PIPELINE's registered passes, BYOC ones only if targets are set."""
    ctx = ctx if ctx is not None else PassContext.current()
    byoc = bool(ctx.config.get("byoc.targets"))
    return [n for n in _registered(GRAPH_PIPELINE) if byoc or n not in BYOC_PASSES]


#: relay -> te -> tir -> llvm.
LOWERING_PIPELINE: tuple[str, ...] = (
    "lower-relay-to-te",
    "lower-te-to-tir",
    "tir-unroll",
    "tir-vectorize",
    "cse",  # O2+: the unrolled index arithmetic, once (less for LLVM to chew)
    "lower-tir-to-llvm",
)


def _registered(names: Iterable[str]) -> list[str]:
    known = _known_pass_names()
    return [n for n in names if n in known]


def standard_pipeline(
    opt_level: int | PassContext | None = None, *, lower: bool = True
) -> list[str]:
    """Names of the passes the standard pipeline runs at `opt_level` (an int, or a
    context whose level, required and disabled passes apply; default: the current
    context): the graph optimizations allowed at that level, then the lowering
    to LLVM unless `lower=False`."""
    ctx = (
        PassContext.current()
        if opt_level is None
        else opt_level
        if isinstance(opt_level, PassContext)
        else PassContext(opt_level=opt_level)
    )
    names = _graph_passes(ctx) + (
        list(LOWERING_PIPELINE) if lower else []
    )
    return [n for n in names if ctx.pass_enabled(n)]


class PipelinePass(ModulePass):
    """A named pipeline usable as a pass (MLIR's `PassPipelineRegistration`): it
    expands to the passes of `names()` under the current `PassContext`, and
    `run_pipeline` runs those one by one."""

    name: ClassVar[str] = "pipeline"
    opt_level: ClassVar[int] = 0

    def names(self) -> list[str]:
        raise NotImplementedError

    def expand(self) -> list[ModulePass]:
        return resolve_pipeline(",".join(self.names()))

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        run_pipeline(op, self.expand(), PassContext.current(), mlir_ctx=ctx)


@dataclass(frozen=True)
class OptimizePipeline(PipelinePass):
    """Graph-level optimizations allowed at the context's opt level."""

    name = "optimize"

    def names(self) -> list[str]:
        return _graph_passes()


@dataclass(frozen=True)
class LowerPipeline(PipelinePass):
    """relay -> te -> tir -> llvm."""

    name = "lower"

    def names(self) -> list[str]:
        return list(LOWERING_PIPELINE)


@dataclass(frozen=True)
class DefaultPipeline(PipelinePass):
    """`optimize` then `lower`: what `lamina.compile` runs."""

    name = "default"

    def names(self) -> list[str]:
        return _graph_passes() + list(LOWERING_PIPELINE)


PIPELINE_PASSES: tuple[type[PipelinePass], ...] = (
    OptimizePipeline,
    LowerPipeline,
    DefaultPipeline,
)


def resolve_pipeline(
    pipeline: str | Sequence[ModulePass | str] | PassPipeline,
) -> list[ModulePass]:
    """Passes from xDSL pipeline text (`"cse,fuse-ops{max-depth=8}"`), a list of
    passes and/or pass texts, or a `PassPipeline`; named pipelines are expanded."""
    if isinstance(pipeline, PassPipeline):
        items: list[ModulePass | str] = list(pipeline.passes)
    elif isinstance(pipeline, str):
        items = [pipeline] if pipeline.strip() else []
    else:
        items = list(pipeline)
    known = _known_pass_names()
    out: list[ModulePass] = []
    for item in items:
        if isinstance(item, str):
            try:
                parsed = PassPipeline.parse_spec(known, item).passes
            except (ValueError, ArgSpecParseError) as e:
                raise LaminaError(
                    f"bad pass pipeline '{item}': {e}; lamina's passes are "
                    + _lamina_pass_list()
                ) from None
        elif isinstance(item, ModulePass):
            parsed = (item,)
        else:
            raise LaminaError(f"not a pass or a pipeline: {item!r}")
        for p in parsed:
            out += p.expand() if isinstance(p, PipelinePass) else [p]
    return out


def run_pipeline(
    module: ModuleOp,
    pipeline: str | Sequence[ModulePass | str] | PassPipeline,
    ctx: PassContext | None = None,
    *,
    mlir_ctx: Context | None = None,
) -> ModuleOp:
    """Run `pipeline` on `module` in place under `ctx` (default: the current
    context) and return the module. Passes the context does not enable are
    skipped; instruments see every pass that runs."""
    ctx = ctx if ctx is not None else PassContext.current()
    if mlir_ctx is None:
        from lamina.ir import context

        mlir_ctx = context()
    with ctx._active():
        passes = resolve_pipeline(pipeline)  # named pipelines expand under ctx
        for index, p in enumerate(passes):
            if not ctx.pass_enabled(p):
                continue
            info = PassInfo(p.name, pass_opt_level(p), p, index, len(passes))
            if not all(inst.should_run(module, info) for inst in ctx.instruments):
                continue
            for inst in ctx.instruments:
                inst.run_before_pass(module, info)
            token = _CURRENT_PASS.set(info)
            try:
                p.apply(mlir_ctx, module)
            except (LaminaError, DiagnosticException):
                raise
            except Exception as e:  # a bug: still a LaminaError, naming the pass
                raise InternalError(
                    f"internal error in pass '{info.name}': {type(e).__name__}: {e}; "
                    "this is a bug in lamina, please report it",
                    info.name,
                ) from e
            finally:
                _CURRENT_PASS.reset(token)
            for inst in ctx.instruments:
                inst.run_after_pass(module, info)
    return module


__all__ = [
    "EXTERNAL_OPT_LEVELS",
    "GRAPH_PIPELINE",
    "LOWERING_PIPELINE",
    "ConfigOption",
    "DefaultPipeline",
    "LowerPipeline",
    "OptimizePipeline",
    "PassContext",
    "PassInfo",
    "PassInstrument",
    "PipelinePass",
    "PrintIRInstrument",
    "StatisticsInstrument",
    "TimingInstrument",
    "VerifyInstrument",
    "config_options",
    "count_ops",
    "current_pass",
    "max_iterations",
    "not_converged",
    "pass_opt_level",
    "record_statistic",
    "register_config",
    "resolve_pipeline",
    "run_pipeline",
    "standard_pipeline",
]
