"""The tags a compute says what it is with (`topi.schedule(result, tags.DENSE,
...)`) and a strategy registers its rules under (`register_schedule(key,
tags.DENSE)`; `lamina.lowering.strategy.registry`). A tag names what a compute
is, never its schedule: a strategy picks the template (`gemm`, `window`, ...),
and tuning records name templates, not tags.
"""

DENSE = "dense"
DENSE_PACK = "dense_pack"
MATMUL = "matmul"
CONV = "conv"
POOL = "pool"
CONV_NCHWC = "conv_nchwc"
WINDOW_NCHWC = "window_nchwc"
WINOGRAD_INPUT = "winograd_input"
WINOGRAD_OUTPUT = "winograd_output"
#: A reduction that adds in index order (`relay.sum {ordered}`).
ORDERED = "ordered"
#: A reduction that adds in index order in each of some lanes (a layer norm's variance).
ORDERED_LANES = "ordered_lanes"
#: Every compute that carries no schedule (`lower-te-to-tir`).
DEFAULT = "default"

__all__ = [
    "CONV",
    "CONV_NCHWC",
    "DEFAULT",
    "DENSE",
    "DENSE_PACK",
    "MATMUL",
    "ORDERED",
    "ORDERED_LANES",
    "POOL",
    "WINDOW_NCHWC",
    "WINOGRAD_INPUT",
    "WINOGRAD_OUTPUT",
]
