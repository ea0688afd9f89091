"""LLVM IR and object code for the host, from a module lowered to the llvm dialect.

The lowered module is translated to llvmlite IR (`lamina.codegen.translate`),
verified, optimized with LLVM's new pass manager for the host CPU
(`lamina.host.target_machine`) and compiled. LLVM's global context is shared by
everything in the process that touches LLVM: hold `LLVM_LOCK` while doing so.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import IO

import llvmlite.binding as llvm
import llvmlite.ir as ir
from xdsl.backend.llvm.convert import LLVMTarget
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from lamina import host
from lamina.codegen.translate import convert_module
from lamina.errors import CompileError

#: Held while using LLVM (translation, optimization, code generation, the JIT).
LLVM_LOCK = threading.RLock()


def translate(module: ModuleOp, tm: llvm.TargetMachine) -> ir.Module:
    """The llvmlite IR of a lowered module, for the target machine `tm`."""
    return convert_module(module, target_triple=tm.triple, data_layout=str(tm.target_data))


def llvm_ir(module: ModuleOp) -> str:
    """The (unoptimized) LLVM IR of a lowered module, for the host."""
    with LLVM_LOCK:
        return str(translate(module, host.target_machine()))


def parse_ir(text: str) -> llvm.ModuleRef:
    """LLVM's module for IR text, verified; a failure is a CompileError."""
    try:
        mod = llvm.parse_assembly(text)
        mod.verify()
    except RuntimeError as e:
        raise CompileError(
            f"LLVM rejected the generated IR: {e}. This is a bug in lamina's "
            "lowering; `lamina-opt FILE -p lower-tir-to-llvm -t llvm` shows the IR."
        ) from e
    return mod


def check_opt_level(opt_level: int) -> None:
    """A CompileError unless `opt_level` is one of LLVM's (0-3)."""
    if not 0 <= opt_level <= 3:
        raise CompileError(f"opt_level must be 0, 1, 2 or 3, got {opt_level}")


def optimize(mod: llvm.ModuleRef, tm: llvm.TargetMachine, opt_level: int) -> None:
    """Run LLVM's `-O<opt_level>` pipeline (vectorizers from O2) on `mod`."""
    if opt_level == 0:
        return
    pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    pto.loop_vectorization = opt_level >= 2
    pto.slp_vectorization = opt_level >= 2
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)


def emit_object(mod: llvm.ModuleRef, tm: llvm.TargetMachine) -> bytes:
    """Object code of an (optimized) LLVM module."""
    try:
        return tm.emit_object(mod)
    except RuntimeError as e:
        raise CompileError(f"code generation failed: {e}") from e


def compile_object(module: ModuleOp, opt_level: int = 3) -> bytes:
    """Object code of a lowered module for the host (position independent)."""
    check_opt_level(opt_level)
    with LLVM_LOCK:
        tm = host.target_machine(opt_level)
        mod = parse_ir(str(translate(module, tm)))
        optimize(mod, tm, opt_level)
        return emit_object(mod, tm)


def object_from_ir(optimized_ir: str, opt_level: int = 3) -> bytes:
    """Object code of already optimized LLVM IR text (code generation only)."""
    with LLVM_LOCK:
        return emit_object(parse_ir(optimized_ir), host.target_machine(opt_level))


@dataclass(frozen=True)
class LlvmTarget(LLVMTarget):
    """`-t llvm`: print the LLVM IR of a lowered module (with lamina's extensions)."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        print(llvm_ir(module), file=output)


__all__ = [
    "LLVM_LOCK",
    "LlvmTarget",
    "check_opt_level",
    "compile_object",
    "emit_object",
    "llvm_ir",
    "object_from_ir",
    "optimize",
    "parse_ir",
    "translate",
]
