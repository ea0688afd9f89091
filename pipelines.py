"""lamina's pipeline, defined once: the graph optimizations in TVM's build order
and the lowering relay -> te -> tir -> llvm, as pass-name lists and as the named
pseudo-passes `optimize`, `lower` and `default` (`lamina-opt -p default`,
`run_pipeline(m, "default", ctx)`), which expand pass by pass so that instruments
see each pass. `lower_to` stops the pipeline at a level (`lamina compile --emit`).

Importing this module registers every pass: the driver compiles with it, and the
tuner builds tasks with it.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

import lamina.lowering
import lamina.transforms.byoc
import lamina.transforms.graph
import lamina.transforms.tir  # noqa: F401
from lamina.errors import LaminaError
from lamina.passes import PassContext, PipelinePass, register_pass, run_pipeline

#: lamina's graph-level optimizations in the order TVM's build runs them; each runs
#: from its own opt level (O0: qnn-canonicalize; O1: + qnn-fold-qdq, simplify-inference, fold-constant; O2: + canonicalize,
#: conv-dead-taps, cse, dce, fuse-ops; O3: + simplify-expr, conv-phases, alter-op-layout).
GRAPH_PIPELINE: tuple[str, ...] = (
    "qnn-fold-qdq",  # O1+: QDQ chains as integer qnn ops, before they are canonicalized
    "qnn-legalize",  # always: integer products onto the host's int8 kernels
    "qnn-canonicalize",  # always: the qnn ops as relay ops
    "simplify-inference",
    "canonicalize",
    "simplify-expr",
    # O1+: constants folded before the passes that read weights (a weight
    # PyTorch's linear transposes is a constant only once folded); again below
    "fold-constant",
    # BYOC, only when targets are configured (`byoc.targets`, which
    # lamina.compile(targets=...) sets): targets see the graph's own ops, before
    # lamina's layout choices; external-codegen compiles the outlined functions.
    "merge-composite",
    "annotate-target",
    "merge-compiler-regions",
    "partition-graph",
    "external-codegen",
    "conv-dead-taps",  # O2: kernel taps that read only padding (dilated convs on small maps)
    "conv2d-winograd",  # O3: the 3x3 convolutions tuning chose Winograd for
    "conv-phases",  # O3: 1-D and 3-D convolutions strided along their last axis
    "alter-op-layout",
    "fold-constant",
    "cse",
    "dce",
    "fuse-ops",
)

#: The BYOC passes of GRAPH_PIPELINE: left out unless the context configures
#: targets (`byoc.targets`).
BYOC_PASSES: frozenset[str] = frozenset(
    ("merge-composite", "annotate-target", "merge-compiler-regions", "partition-graph",
     "external-codegen")
)

#: relay -> te -> tir -> llvm.
LOWERING_PIPELINE: tuple[str, ...] = (
    "lower-relay-to-te",
    "lower-te-to-tir",
    # `unrolled` loops are LLVM's to copy (lower-tir-to-llvm marks them), not
    # tir-unroll's: the same code, 3x less time in the passes below
    "tir-vectorize",
    "tir-cse",  # O2+: the vectorized index arithmetic, once (less for LLVM to chew)
    "lower-tir-to-llvm",
)

#: What `lamina.compile` lowers with: LOWERING_PIPELINE with `compile-kernels`
#: (lamina.codegen.kernels, registered when lamina is imported) after
#: lower-te-to-tir, which compiles each kernel on its own (in parallel, cached),
#: so that the passes after it lower `@main` alone; and `recall-kernels` before
#: it, which marks the TE kernels the cache knows, so that their TIR is not built.
_TIR_STARTS = LOWERING_PIPELINE.index("lower-te-to-tir") + 1
#: The lowering after lower-te-to-tir: what `compile-kernels` runs on each kernel.
KERNEL_LOWERING: tuple[str, ...] = LOWERING_PIPELINE[_TIR_STARTS:]
COMPILE_LOWERING: tuple[str, ...] = (
    *LOWERING_PIPELINE[: _TIR_STARTS - 1], "recall-kernels", "lower-te-to-tir", "compile-kernels",
    *KERNEL_LOWERING,
)

#: Where each level ends: the lowering to the next one starts (TIR passes between
#: lower-te-to-tir and lower-tir-to-llvm belong to the tir level).
LEVEL_ENDS: dict[str, str | None] = {
    "relay": "lower-relay-to-te",
    "te": "lower-te-to-tir",
    "tir": "lower-tir-to-llvm",
    "llvm": None,
}


def graph_passes(ctx: PassContext | None = None) -> list[str]:
    """GRAPH_PIPELINE under `ctx` (default: the current context): the BYOC passes
    only if it configures targets."""
    ctx = ctx if ctx is not None else PassContext.current()
    byoc = bool(ctx.config.get("byoc.targets"))
    return [n for n in GRAPH_PIPELINE if byoc or n not in BYOC_PASSES]


def lowering_passes(level: str = "llvm") -> list[str]:
    """LOWERING_PIPELINE up to the end of `level` (relay, te, tir or llvm)."""
    if level not in LEVEL_ENDS:
        raise LaminaError(f"unknown level '{level}'; the levels are {', '.join(LEVEL_ENDS)}")
    end = LEVEL_ENDS[level]
    names = list(LOWERING_PIPELINE)
    return names if end is None else names[: names.index(end)]


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
    names = graph_passes(ctx) + (list(COMPILE_LOWERING) if lower else [])
    return [n for n in names if ctx.pass_enabled(n)]


@register_pass
class OptimizePipeline(PipelinePass):
    """Graph-level optimizations allowed at the context's opt level."""

    name = "optimize"

    def names(self) -> list[str]:
        return graph_passes()


@register_pass
class LowerPipeline(PipelinePass):
    """relay -> te -> tir -> llvm."""

    name = "lower"

    def names(self) -> list[str]:
        return list(LOWERING_PIPELINE)


@register_pass
class DefaultPipeline(PipelinePass):
    """`optimize`, then `lower` with each kernel compiled apart
    (`COMPILE_LOWERING`): what `lamina.compile` runs."""

    name = "default"

    def names(self) -> list[str]:
        return graph_passes() + list(COMPILE_LOWERING)


def lower_to(module: ModuleOp, level: str, ctx: PassContext) -> ModuleOp:
    """Run the graph optimizations of `ctx` and lower `module` (in place) to the
    end of `level`: relay, te, tir or llvm."""
    passes = lowering_passes(level)
    with ctx:  # named pipelines expand under the current context
        run_pipeline(module, ["optimize", *passes], ctx)
    return module


__all__ = [
    "BYOC_PASSES",
    "COMPILE_LOWERING",
    "GRAPH_PIPELINE",
    "KERNEL_LOWERING",
    "LEVEL_ENDS",
    "LOWERING_PIPELINE",
    "DefaultPipeline",
    "LowerPipeline",
    "OptimizePipeline",
    "graph_passes",
    "lower_to",
    "lowering_passes",
    "standard_pipeline",
]
