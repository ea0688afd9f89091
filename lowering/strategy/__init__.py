"""Strategies: which schedule each compute gets on a target (TVM's
`relay/op/strategy/`). The target-neutral computes (`lamina.lowering.topi`)
tag what they are; `registry` maps a tag to each target's rules, by priority;
the rules' templates size their knobs from the target (`lamina.target`). The
schedule language is `lamina.lowering.lang.schedule`.

- `registry`: `register_schedule(key, tag, plevel=...)`, `schedule_for`;
- `tags`: the tags (`tags.DENSE`, ...), one constant each;
- `cpu` (+ `conv_nchwc`, `window_nchwc`, `winograd`): the generic CPU strategy, every CPU
  architecture's fallback (x86-64, AArch64, RISC-V, WebAssembly);
- `knobs`, `dispatch`, `sites`: template knobs, tuning records' dispatch.
"""

from lamina.lowering.strategy import (
    conv_nchwc,
    cpu,
    registry,
    tags,
    window_nchwc,
    winograd,
)
from lamina.lowering.strategy.cpu import (
    gemm,
    injective,
    is_gemm_conv,
    reduction,
    schedule_conv,
    schedule_dense,
    schedule_matmul,
)
from lamina.lowering.strategy.defaults import default_for

__all__ = [
    "conv_nchwc",
    "cpu",
    "default_for",
    "gemm",
    "injective",
    "is_gemm_conv",
    "reduction",
    "registry",
    "schedule_conv",
    "schedule_dense",
    "schedule_matmul",
    "tags",
    "window_nchwc",
    "winograd",
]
