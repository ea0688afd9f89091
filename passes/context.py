"""Pass contexts (TVM's `tvm.transform.PassContext`) and what a running pass sees.

`PassContext(opt_level=2, required_passes=(), disabled_passes=(), instruments=(),
config={...})` holds the options every pass run sees; use it as `with
PassContext(...):` and reach it from inside a pass through `PassContext.current()`.
A pass runs when it is not disabled and is either required or at or below the
context's opt level (TVM's rule: disabled wins over required). Inside a pass,
`record_statistic` counts what it did and `max_iterations` caps fixpoint loops.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from lamina.errors import LaminaError
from lamina.passes.config import ConfigValue, config_option, register_config
from lamina.passes.registry import check_pass_names, pass_class, pass_opt_level
from lamina.target import Target

MAX_OPT_LEVEL = 3

register_config(
    "pattern.max-iterations",
    int,
    100,
    "rounds a pattern rewrite may take to reach its fixpoint before it is reported "
    "as not converging",
)


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


def current_target() -> Target:
    """The target of the running pass context (the host outside all of them)."""
    return PassContext.current().target


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
    """Hooks around each pass run (TVM's `tvm.instrument.PassInstrument`).

    `needs_whole_module`: whether it must see every pass run on the whole
    module (it prints or rewrites the IR between passes); a pass that compiles
    parts of the module on their own (`compile-kernels`) steps aside for such
    instruments."""

    needs_whole_module: ClassVar[bool] = True

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
        target: Target | str | None = None,
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
        self.required_passes = check_pass_names("required_passes", required_passes)
        self.disabled_passes = check_pass_names("disabled_passes", disabled_passes)
        self.instruments: tuple[PassInstrument, ...] = tuple(instruments)
        for inst in self.instruments:
            if not isinstance(inst, PassInstrument):
                raise LaminaError(
                    f"instruments must be PassInstrument objects, got {inst!r}"
                )
        checked: dict[str, ConfigValue] = {}
        for key, value in (config or {}).items():
            checked[key] = config_option(key).check(value)
        self.config: Mapping[str, ConfigValue] = MappingProxyType(checked)
        #: What the code is compiled for (None: the host, read when first asked).
        self._target = None if target is None else Target.parse(target)

    @property
    def target(self) -> Target:
        """The target every schedule, layout and kernel choice is made for."""
        return self._target if self._target is not None else Target.host()

    def replace(self, **changes: Any) -> PassContext:
        """A copy with some of the constructor's arguments changed."""
        args: dict[str, Any] = {
            "opt_level": self.opt_level,
            "required_passes": self.required_passes,
            "disabled_passes": self.disabled_passes,
            "instruments": self.instruments,
            "config": self.config,
            "target": self._target,
        }
        return PassContext(**{**args, **changes})

    def __repr__(self) -> str:
        return (
            f"PassContext(opt_level={self.opt_level}, required_passes="
            f"{self.required_passes}, disabled_passes={self.disabled_passes}, "
            f"config={dict(self.config)}, target='{self.target}')"
        )

    # --- config -----------------------------------------------------------
    def get_config(self, key: str) -> ConfigValue:
        """The value of `key`: the one given, else its declared default."""
        option = config_option(key)
        return self.config.get(key, option.default)

    # --- which passes run -------------------------------------------------
    def pass_enabled(self, p: ModulePass | type[ModulePass] | str) -> bool:
        """TVM's rule: disabled passes never run, required ones always do, others
        when their opt level is at most the context's."""
        if isinstance(p, str):
            cls = pass_class(p)
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


__all__ = [
    "MAX_OPT_LEVEL",
    "PassContext",
    "PassInfo",
    "PassInstrument",
    "current_pass",
    "max_iterations",
    "not_converged",
    "record_statistic",
]
