"""Lowerings between levels (MLIR's `Conversion/XToY`): relay -> te
(`relay_to_te` with the compute library `topi` and the schedules), te -> tir
(`te_to_tir`), tir -> llvm (`tir_to_llvm`). Importing the package registers the
lowering passes."""

from lamina.lowering import relay_to_te, te_to_tir, tir_to_llvm  # noqa: F401
