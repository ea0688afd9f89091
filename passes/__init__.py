"""Passes: the infrastructure (this package's modules) and the passes themselves,
grouped by the level they rewrite (`graph`, `tir`, `byoc`; the lowerings between
levels live in `lamina.lowering`).

    from lamina.passes import PassContext, run_pipeline, register_pass

Infrastructure, bottom to top: `config` (typed config keys), `registry` (every
pass by name), `context` (PassContext, what a running pass sees), `instruments`,
`pipeline` (resolve and run pipelines).
"""

from lamina.passes.config import (
    ConfigOption,
    ConfigValue,
    config_option,
    config_options,
    register_config,
)
from lamina.passes.context import (
    MAX_OPT_LEVEL,
    PassContext,
    PassInfo,
    PassInstrument,
    current_pass,
    current_target,
    max_iterations,
    not_converged,
    record_statistic,
)
from lamina.passes.instruments import (
    PassStatistics,
    PrintIRInstrument,
    StatisticsInstrument,
    TimingInstrument,
    VerifyInstrument,
    count_ops,
)
from lamina.passes.pipeline import PipelinePass, resolve_pipeline, run_pipeline
from lamina.passes.registry import (
    EXTERNAL_OPT_LEVELS,
    PASSES,
    all_passes,
    check_pass_names,
    pass_class,
    pass_opt_level,
    register_pass,
)

__all__ = [
    "EXTERNAL_OPT_LEVELS",
    "MAX_OPT_LEVEL",
    "PASSES",
    "ConfigOption",
    "ConfigValue",
    "PassContext",
    "PassInfo",
    "PassInstrument",
    "PassStatistics",
    "PipelinePass",
    "PrintIRInstrument",
    "StatisticsInstrument",
    "TimingInstrument",
    "VerifyInstrument",
    "all_passes",
    "check_pass_names",
    "config_option",
    "config_options",
    "count_ops",
    "current_pass",
    "current_target",
    "max_iterations",
    "not_converged",
    "pass_class",
    "pass_opt_level",
    "record_statistic",
    "register_config",
    "register_pass",
    "resolve_pipeline",
    "run_pipeline",
]
