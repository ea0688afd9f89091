"""`external-codegen`: compile each outlined function with its target's codegen.

Every `func.func` with `lamina.compiler = "<t>"` (from partition-graph) goes to
target `<t>`'s codegen, which returns an external C symbol (see
`lamina.backends.registry` for the ABI). Each `func.call` of the function
becomes `te.call @<symbol>(...)`: from there lamina lowers it as it lowers its
own kernels (destination-passing `tir.call`, then an external `llvm.func`
declaration called from `@main`). The outlined function is erased.

The shared libraries that define the symbols (and the targets' runtime
libraries) are listed in the module attribute `lamina.external_libraries`;
`lamina.compile` loads them into the process before JIT compilation
(`lamina.backends.load_external`). Symbols given as addresses are registered
with LLVM at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from lamina.abi import EXTERNAL_LIBRARIES_ATTR
from lamina.backends import add_symbols
from lamina.backends.registry import ExternalFunction, get_target
from lamina.dialects import te
from lamina.dialects.shapes import is_symbolic
from lamina.errors import LaminaError
from lamina.passes import record_statistic
from lamina.passes.registry import register_pass
from lamina.transforms.byoc.regions import COMPILER, str_attr

LIBRARIES = EXTERNAL_LIBRARIES_ATTR


def _codegen(fn: func.FuncOp, target_name: str) -> ExternalFunction:
    target = get_target(target_name)
    ftype = fn.function_type
    if not target.symbolic and any(is_symbolic(t) for t in (*ftype.inputs, *ftype.outputs)):
        raise LaminaError(
            f"target '{target_name}' compiles static shapes only, but @{fn.sym_name.data} "
            f"is over symbolic dims ({ftype}); leave its ops to lamina (annotate-target "
            "does) or fix the sizes with input_shapes="
        )
    try:
        ext = target.codegen(fn)
    except LaminaError as e:
        raise LaminaError(
            f"target '{target_name}' could not compile @{fn.sym_name.data}: {e}"
        ) from e
    except Exception as e:
        raise LaminaError(
            f"target '{target_name}': its codegen failed on @{fn.sym_name.data} "
            f"({type(e).__name__}: {e}); this is a bug in the target"
        ) from e
    if not isinstance(ext, ExternalFunction):
        raise LaminaError(
            f"target '{target_name}': codegen returned {ext!r}, not an ExternalFunction"
        )
    return ext


def external_codegen(module: ModuleOp) -> list[ExternalFunction]:
    outlined = [
        op
        for op in module.ops
        if isinstance(op, func.FuncOp) and str_attr(op, COMPILER) is not None
    ]
    if not outlined:
        return []
    libs: list[str] = []
    existing = module.attributes.get(LIBRARIES)
    if isinstance(existing, ArrayAttr):
        libs += [a.data for a in existing.data if isinstance(a, StringAttr)]
    calls: dict[str, list[func.CallOp]] = {}
    for op in module.walk():
        if isinstance(op, func.CallOp):
            calls.setdefault(op.callee.string_value(), []).append(op)
    results = []
    for fn in outlined:
        target_name = str_attr(fn, COMPILER)
        assert target_name is not None
        if not fn.body.blocks:
            raise LaminaError(
                f"@{fn.sym_name.data} (target '{target_name}') has no body to compile"
            )
        ext = _codegen(fn, target_name)
        if ext.symbols:
            add_symbols(ext.symbols)
        for lib in [*get_target(target_name).libraries(), *ext.libraries]:
            if lib not in libs:
                libs.append(lib)
        for call in calls.get(fn.sym_name.data, []):
            new = te.CallOp(ext.symbol, list(call.arguments), [r.type for r in call.res])
            Rewriter.replace_op(call, new)
        Rewriter.erase_op(fn)
        results.append(ext)
        record_statistic(f"compiled.{target_name}")
    module.attributes[LIBRARIES] = ArrayAttr([StringAttr(p) for p in libs])
    return results


@register_pass
@dataclass(frozen=True)
class ExternalCodegenPass(ModulePass):
    """Compile outlined BYOC functions to external symbols called from the graph."""

    name = "external-codegen"
    opt_level: ClassVar[int] = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        external_codegen(op)


__all__ = ["LIBRARIES", "ExternalCodegenPass", "external_codegen"]
