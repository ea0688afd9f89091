"""Every pass lamina knows, by name: lamina's own and the xDSL ones it reuses."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def _lower_relay_to_te() -> type[ModulePass]:
    from lamina.lowering.relay_to_te import LowerRelayToTePass

    return LowerRelayToTePass


def _lower_te_to_tir() -> type[ModulePass]:
    from lamina.lowering.te_to_tir import LowerTeToTirPass

    return LowerTeToTirPass


def _lower_tir_to_llvm() -> type[ModulePass]:
    from lamina.lowering.tir_to_llvm import LowerTirToLlvmPass

    return LowerTirToLlvmPass


def _tir_unroll() -> type[ModulePass]:
    from lamina.passes.tir_unroll import TirUnrollPass

    return TirUnrollPass


def _tir_vectorize() -> type[ModulePass]:
    from lamina.passes.tir_vectorize import TirVectorizePass

    return TirVectorizePass


def _alter_op_layout() -> type[ModulePass]:
    from lamina.passes.alter_op_layout import AlterOpLayoutPass

    return AlterOpLayoutPass


def _fold_constant() -> type[ModulePass]:
    from lamina.passes.fold_constant import FoldConstantPass

    return FoldConstantPass


def _fuse_ops() -> type[ModulePass]:
    from lamina.passes.fuse_ops import FuseOpsPass

    return FuseOpsPass


def _simplify_expr() -> type[ModulePass]:
    from lamina.passes.simplify_expr import SimplifyExprPass

    return SimplifyExprPass


def _simplify_inference() -> type[ModulePass]:
    from lamina.passes.simplify_inference import SimplifyInferencePass

    return SimplifyInferencePass


def _canonicalize() -> type[ModulePass]:
    from lamina.passes.canonicalize import CanonicalizePass

    return CanonicalizePass


def _byoc(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        import importlib

        return getattr(importlib.import_module(f"lamina.passes.{module}"), cls)

    return load


def _manager(cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        from lamina.passes import manager

        return getattr(manager, cls)

    return load


def _xdsl(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        import importlib

        return getattr(importlib.import_module(module), cls)

    return load


#: Pass name -> factory of its class (imports stay lazy, as in xDSL's universe).
LAMINA_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "lower-relay-to-te": _lower_relay_to_te,
    "lower-te-to-tir": _lower_te_to_tir,
    "lower-tir-to-llvm": _lower_tir_to_llvm,
    "tir-unroll": _tir_unroll,
    "tir-vectorize": _tir_vectorize,
    "fold-constant": _fold_constant,
    "alter-op-layout": _alter_op_layout,
    "fuse-ops": _fuse_ops,
    "simplify-expr": _simplify_expr,
    # xDSL's canonicalize plus relay's canonical forms (passes/canonicalize.py).
    "canonicalize": _canonicalize,
    "cse": _xdsl(
        "xdsl.transforms.common_subexpression_elimination",
        "CommonSubexpressionElimination",
    ),
    "dce": _xdsl("xdsl.transforms.dead_code_elimination", "DeadCodeElimination"),
    "simplify-inference": _simplify_inference,
    # BYOC (bring your own codegen): see lamina.backends.
    "merge-composite": _byoc("merge_composite", "MergeCompositePass"),
    "annotate-target": _byoc("annotate_target", "AnnotateTargetPass"),
    "merge-compiler-regions": _byoc(
        "merge_compiler_regions", "MergeCompilerRegionsPass"
    ),
    "partition-graph": _byoc("partition_graph", "PartitionGraphPass"),
    "external-codegen": _byoc("external_codegen", "ExternalCodegenPass"),
    # Named pipelines, usable as passes (`-p default`); see passes/manager.py.
    "optimize": _manager("OptimizePipeline"),
    "lower": _manager("LowerPipeline"),
    "default": _manager("DefaultPipeline"),
}


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """lamina's passes, plus those of installed plugins (entry points
    `lamina.passes`; lamina's own names win)."""
    from lamina.plugins import plugin_passes

    return {**plugin_passes(), **LAMINA_PASSES}  # (a fresh dict: callers may edit it)
