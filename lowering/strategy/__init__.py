"""Strategies: which schedule each compute gets, one module per target class
(TVM's `relay/op/strategy/`). A strategy pairs the computes of the compute
library (`lamina.lowering.topi`) with schedule templates sized from the host
(`lamina.host`); the schedule language is `lamina.lowering.schedule`.

- `cpu`: the CPU host (the only target class lamina compiles for).
"""

from lamina.lowering.strategy import cpu
from lamina.lowering.strategy.cpu import (
    default_for,
    gemm,
    injective,
    is_gemm_conv,
    reduction,
    schedule_conv,
    schedule_dense,
    schedule_matmul,
)

__all__ = [
    "cpu",
    "default_for",
    "gemm",
    "injective",
    "is_gemm_conv",
    "reduction",
    "schedule_conv",
    "schedule_dense",
    "schedule_matmul",
]
