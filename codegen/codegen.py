"""LLVM IR and object code for a target, from a module lowered to the llvm dialect.

The lowered module is translated to llvmlite IR (`lamina.codegen.translate`),
verified, optimized with LLVM's new pass manager for the target's CPU
(`target_machine`) and compiled. The target is the one the module was lowered
for (its `lamina.target_spec` attribute, which `lower-tir-to-llvm` sets), else
the host. LLVM's global context is shared by everything in the process that
touches LLVM: hold `LLVM_LOCK` while doing so.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import IO

import llvmlite.binding as llvm
import llvmlite.ir as ir
from xdsl.backend.llvm.convert import LLVMTarget
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr

from lamina.abi import TARGET_ATTR
from lamina.codegen.translate import convert_module
from lamina.errors import CompileError
from lamina.target import KINDS, Target

#: Held while using LLVM (translation, optimization, code generation, the JIT).
LLVM_LOCK = threading.RLock()
_initialized: set[str] = set()


def init_llvm(target: Target | None = None) -> None:
    """Initialize LLVM's code generator for `target` (default: the host), once."""
    native = target is None or target.arch == Target.host().arch
    with LLVM_LOCK:
        if "native" not in _initialized:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            _initialized.add("native")
        if not native and "all" not in _initialized:
            llvm.initialize_all_targets()
            llvm.initialize_all_asmprinters()
            _initialized.add("all")


def target_machine(
    target: Target | None = None, opt_level: int = 3, *, jit: bool = False
) -> llvm.TargetMachine:
    """LLVM's target machine for `target` (default: the host): its triple, CPU
    and features. Code is position independent, so objects can go into a shared
    library; `jit` selects the JIT code model (large on 64-bit hosts)."""
    target = target if target is not None else Target.host()
    init_llvm(target)
    try:
        found = llvm.Target.from_triple(target.triple)
    except RuntimeError as e:
        raise CompileError(f"LLVM has no code generator for '{target.triple}': {e}") from e
    return found.create_target_machine(
        cpu=target.cpu,
        features=target.llvm_features,
        opt=opt_level,
        reloc="pic",
        codemodel="jitdefault" if jit else "default",
        jit=jit,
    )


def module_target(module: ModuleOp) -> Target:
    """The target `module` was lowered for (its `lamina.target_spec`), else the host."""
    spec = module.attributes.get(TARGET_ATTR)
    return Target.parse(spec.data) if isinstance(spec, StringAttr) else Target.host()


def translate(module: ModuleOp, tm: llvm.TargetMachine) -> ir.Module:
    """The llvmlite IR of a lowered module, for the target machine `tm`."""
    return convert_module(module, target_triple=tm.triple, data_layout=str(tm.target_data))


def llvm_ir(module: ModuleOp, target: Target | None = None) -> str:
    """The (unoptimized) LLVM IR of a lowered module for `target` (default: the
    one it was lowered for)."""
    tm = target_machine(target or module_target(module))
    with LLVM_LOCK:
        return str(translate(module, tm))


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
        with LLVM_LOCK:
            _strength_reduction(tm)
            return tm.emit_object(mod)
    except RuntimeError as e:
        raise CompileError(f"code generation failed: {e}") from e


def _strength_reduction(tm: llvm.TargetMachine) -> None:
    """LLVM's loop strength reduction on, unless the target's memory operands
    index (`TargetKind.indexed_addressing`): on x86 it took 60% of the code
    generator's time on convolution kernels and the code ran no faster. (An
    LLVM option is global: set for each module's code generation.)"""
    kind = KINDS.get(tm.triple.split("-")[0])
    skip = kind is not None and kind.indexed_addressing
    if _LSR_SKIPPED[0] != skip:
        llvm.set_option("", f"-disable-lsr={'true' if skip else 'false'}")
        _LSR_SKIPPED[0] = skip


#: Whether LLVM's `-disable-lsr` is set now (it starts unset).
_LSR_SKIPPED = [False]


def definitions(mod: llvm.ModuleRef) -> list[llvm.ValueRef]:
    """The functions and globals `mod` defines with external linkage (what a
    library could export)."""
    return [
        value
        for value in [*mod.functions, *mod.global_variables]
        if not value.is_declaration and value.linkage.name not in ("internal", "private")
    ]


def compile_object(module: ModuleOp, opt_level: int = 3, target: Target | None = None) -> bytes:
    """Object code of a lowered module (position independent) for `target`
    (default: the one it was lowered for)."""
    check_opt_level(opt_level)
    tm = target_machine(target or module_target(module), opt_level)
    with LLVM_LOCK:
        mod = parse_ir(str(translate(module, tm)))
        optimize(mod, tm, opt_level)
        return emit_object(mod, tm)


def object_from_ir(optimized_ir: str, opt_level: int = 3, target: Target | None = None) -> bytes:
    """Object code of already optimized LLVM IR text (code generation only), for
    `target` (default: the host)."""
    tm = target_machine(target, opt_level)
    with LLVM_LOCK:
        return emit_object(parse_ir(optimized_ir), tm)


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
    "definitions",
    "emit_object",
    "init_llvm",
    "llvm_ir",
    "module_target",
    "object_from_ir",
    "optimize",
    "parse_ir",
    "target_machine",
    "translate",
]
