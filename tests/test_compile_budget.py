"""A loose guard on compile work: a change that makes compiling 3x slower fails
here, not in a benchmark nobody ran.

Time is not asserted (it varies with the machine and its load); the Python
function calls of one cold compile are, counted by cProfile: deterministic for a
given host kind, and where compile time goes (`bench/compile.py` measures the
time itself). The budget is 3x the count measured when it was set (noted
beside it, with the host): raise it only with a reason in the commit.
"""

from __future__ import annotations

import cProfile
import pstats

import lamina
from lamina.codegen import cache
from lamina.tools.models import transformer_block

#: 3x the 6.8 M calls of a cold compile of `transformer_block()` at opt level 3,
#: one process (2026-11-29, znver4).
BUDGET_CALLS = 20_500_000


def test_a_cold_compile_stays_within_its_call_budget() -> None:
    model = transformer_block()
    ctx = lamina.PassContext(opt_level=3, config={"compile-kernels.jobs": 1})  # all work in here
    with cache.disabled():
        lamina.compile(model, num_threads=1)  # lazy imports and LLVM's set-up: not counted
        profiler = cProfile.Profile()
        profiler.enable()
        try:
            lamina.compile(model, num_threads=1, pass_context=ctx)
        finally:
            profiler.disable()
    calls = pstats.Stats(profiler).total_calls  # type: ignore[attr-defined]
    assert calls > 1_000_000, "the compile did not run here (no kernel compiled?)"
    assert calls <= BUDGET_CALLS, (
        f"a cold compile of transformer_block() made {calls:,} Python calls, over the "
        f"budget of {BUDGET_CALLS:,} (3x the count when set): find what grew with "
        "cProfile or `lamina compile --time-passes`"
    )
