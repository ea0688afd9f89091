"""The `lower-tir-to-llvm` pass: each function through the four sweeps, and the
entry ABI that tells the runtime what `@main` needs (`EntryABI`, written onto
the module by `lamina.lowering.record`; see the package docstring for the
sweeps and the ABI)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from lamina.abi import HOST_FUNCTIONS, PARAMS_ATTR, TARGET_ATTR
from lamina.dialects import tir
from lamina.errors import LoweringError
from lamina.lowering.record import read_entry, write_entry
from lamina.lowering.tir_to_llvm.arith import SCALAR_LOWERINGS
from lamina.lowering.tir_to_llvm.buffers import (
    ACCESS_LOWERINGS,
    bind_kernel_sizes,
    kernel_arg_attrs,
    lower_checks,
    lower_kernel_buffers,
    lower_main_buffers,
    main_arg_attrs,
    main_sizes,
    noalias_unsafe,
)
from lamina.lowering.tir_to_llvm.control_flow import (
    flatten_control_flow,
    retype_induction_vars,
)
from lamina.lowering.tir_to_llvm.emitter import (
    Constants,
    Emitter,
    EntryBuilder,
    Lowering,
    ModuleState,
)
from lamina.lowering.tir_to_llvm.parallel import outline_parallel_loops
from lamina.lowering.tir_to_llvm.types import PTR
from lamina.passes import current_target
from lamina.passes.registry import register_pass
from lamina.runtime.record import Bound, EntryABI
from lamina.symbolic import Sym


# =================================================================== sweep 2
def _lower_return(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    if op.operands:
        raise LoweringError(
            f"{op.name} with values: functions lowered to LLVM return nothing; "
            "write results into output buffers (destination-passing style)"
        )
    e.put(llvm.ReturnOp())
    return []


_LOWERINGS: dict[type[Operation], Lowering] = {
    **SCALAR_LOWERINGS,
    **ACCESS_LOWERINGS,
    tir.ReturnOp: _lower_return,
    func.ReturnOp: _lower_return,
}


def _lower_scalar_ops(fn: Operation, state: ModuleState, where: str) -> None:
    """Sweep 2: every op but buffers and control flow becomes llvm ops."""
    kept = (
        tir.ForOp, tir.IfOp, tir.YieldOp, tir.AllocOp, tir.ConstantOp, tir.SizeOp, tir.SetSizeOp,
        tir.CheckOp, tir.ViewOp,
    )
    entry = fn.regions[0].blocks[0]
    consts = Constants(EntryBuilder(entry))
    for op in list(fn.walk()):
        if op is fn or isinstance(op, kept):
            continue
        lowering = _LOWERINGS.get(type(op))
        if lowering is None:
            raise LoweringError(
                f"{where}: no lowering to LLVM for '{op.name}'. lower-tir-to-llvm "
                "handles tir, arith and math ops; lower other dialects to these first."
            )
        values = lowering(op, Emitter(op, state, consts))
        for old, new in zip(op.results, values, strict=True):
            old.replace_all_uses_with(new)
        Rewriter.erase_op(op)


# ======================================================================= functions
def _new_func(
    name: str, body: Operation, arg_attrs: ArrayAttr[DictionaryAttr] | None
) -> llvm.FuncOp:
    region = body.regions[0]
    assert region.first_block is not None
    ftype = llvm.LLVMFunctionType(
        [a.type if a.type == i64 else PTR for a in region.first_block.args], llvm.LLVMVoidType()
    )
    props: dict[str, Attribute | None] = {"arg_attrs": arg_attrs}
    return llvm.FuncOp(
        name,
        ftype,
        linkage=llvm.LinkageAttr("external"),
        body=Rewriter.move_region_contents_to_new_regions(region),
        other_props=props,
    )


def _lower_kernel(
    fn: tir.PrimFuncOp, state: ModuleState, noalias: bool
) -> llvm.FuncOp:
    where = f"tir.prim_func @{fn.sym_name.data}"
    num_args = len(fn.args)
    nsizes = len(fn.sizes)
    bind_kernel_sizes(fn)
    retype_induction_vars(fn)
    _lower_scalar_ops(fn, state, where)
    lower_kernel_buffers(fn)
    flatten_control_flow(fn)
    return _new_func(fn.sym_name.data, fn, kernel_arg_attrs(num_args - nsizes, noalias, nsizes))


def _lower_main(fn: func.FuncOp, state: ModuleState) -> tuple[llvm.FuncOp, EntryABI]:
    """@main as `main`, and its entry ABI but the weights (known once every
    function is lowered)."""
    if fn.function_type.outputs.data:
        raise LoweringError(
            "@main must return nothing: outputs are its last buffer arguments "
            "(destination-passing style)"
        )
    retype_induction_vars(fn)
    _lower_scalar_ops(fn, state, "@main")
    sizes = main_sizes(fn)
    bounds = [
        Bound(op.size.data, None if op.bound is None else Sym.parse(op.bound.data))
        for op in fn.walk()
        if isinstance(op, tir.SetSizeOp)
    ]
    plan, ranges, status_slot = lower_main_buffers(fn, state)
    flatten_control_flow(fn)
    exits = lower_checks(fn, fn.regions[0].blocks[0].args[0], status_slot)
    new = _new_func("main", fn, main_arg_attrs())
    entry = EntryABI(
        workspace_size=plan.size,
        intermediate_bytes=plan.unshared_size,
        sizes=tuple(sizes),
        bounds=tuple(bounds),
        exits=tuple(exits),
        dynamic_plan=ranges,
    )
    return new, entry


def _declare_external(fn: func.FuncOp, state: ModuleState) -> None:
    name = fn.sym_name.data
    if fn.function_type.outputs.data or not all(
        isinstance(t, MemRefType) for t in fn.function_type.inputs
    ):
        raise LoweringError(
            f"func.func @{name}: external functions called from @main must take "
            "buffers (memrefs) and return nothing"
        )
    state.declare(name, [PTR] * len(fn.function_type.inputs), llvm.LLVMVoidType())


def _check_function(op: Operation) -> None:
    if isinstance(op, tir.PrimFuncOp | llvm.FuncOp):
        return
    if isinstance(op, func.FuncOp):
        if op.sym_name.data == "main" or op.is_declaration:
            return
        raise LoweringError(
            f"func.func @{op.sym_name.data}: only the entry function @main is lowered; "
            "compile outlined (BYOC) functions with their target's codegen first"
        )
    raise LoweringError(
        f"'{op.name}' at module level: lower-tir-to-llvm expects tir.prim_func "
        "kernels and the entry func.func @main"
    )


# ========================================================================== module
#: On a kernel's `llvm.func` declaration that holds its compiled code
#: (`compile-kernels`): the C functions the kernel calls.
CALLS_ATTR = "lamina.calls"


def _compiled_calls(module: ModuleOp) -> set[str]:
    """The functions the kernels compiled apart (`CALLS_ATTR`) call."""
    return {
        name.data
        for op in module.ops
        if isinstance(op, llvm.FuncOp) and isinstance(calls := op.attributes.get(CALLS_ATTR), ArrayAttr)
        for name in calls.data
        if isinstance(name, StringAttr)
    }


def lower_module(module: ModuleOp) -> None:
    """Lower all of `module` to `llvm.func`s (see the package docstring)."""
    module.attributes[TARGET_ATTR] = StringAttr(str(current_target()))
    outline_parallel_loops(module)
    ops = list(module.ops)
    for op in ops:
        _check_function(op)
    kernels = {
        op.sym_name.data: len(op.function_type.inputs)
        for op in ops
        if isinstance(op, tir.PrimFuncOp | llvm.FuncOp)
    }
    state = ModuleState(module, kernels)
    unsafe = noalias_unsafe(module)
    entry: EntryABI | None = None
    for op in ops:
        if isinstance(op, tir.PrimFuncOp):
            new = _lower_kernel(op, state, op.sym_name.data not in unsafe)
        elif isinstance(op, func.FuncOp) and op.sym_name.data == "main":
            new, entry = _lower_main(op, state)
        elif isinstance(op, func.FuncOp):
            _declare_external(op, state)
            Rewriter.erase_op(op)
            continue
        else:
            continue
        Rewriter.replace_op(op, new)
    if entry is not None or PARAMS_ATTR not in module.attributes:
        # (a module without @main, or lowered again, keeps the entry it has)
        libraries = read_entry(module).external_libraries  # external-codegen's
        entry = entry or EntryABI()
        compiled = _compiled_calls(module)
        calls = tuple(f for f in HOST_FUNCTIONS if f in state.decls or f in compiled)
        write_entry(
            module,
            replace(entry, params=tuple(state.params), external_libraries=libraries, host_functions=calls),
        )


@register_pass
@dataclass(frozen=True)
class LowerTirToLlvmPass(ModulePass):
    """Lower `tir.prim_func` kernels and the entry `func.func @main` to `llvm.func`s."""

    name = "lower-tir-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_module(op)


__all__ = ["CALLS_ATTR", "LowerTirToLlvmPass", "lower_module"]
