"""Lower TIR to xDSL's `llvm` dialect: the `lower-tir-to-llvm` pass.

Input: a module of `tir.prim_func` kernels, optionally one entry `func.func @main`
over memrefs (and `func.func` declarations of external kernels). Output: only
`llvm.func` ops, ready for `lamina.codegen.translate.convert_module`.

Each function is lowered in four sweeps, so that every step sees the information
it needs:

1. loop induction variables are retyped `index` -> `i64` (`control_flow`);
2. scalar ops (`arith`, `math`) and buffer accesses (`tir.load`/`tir.store`/
   `tir.call`) become llvm ops (`arith`, `buffers`); buffers still carry their
   memref types here, which give the shapes and element types that address
   arithmetic needs;
3. buffers become pointers (`buffers`): kernel arguments are retyped to
   `!llvm.ptr`, `tir.alloc` becomes an `llvm.alloca` hoisted to the entry block
   (or, in `@main`, a pointer into the workspace arena), `tir.constant` a pointer
   from the parameter table;
4. `tir.for`/`tir.if` regions are flattened into the function's CFG (outermost
   first, so that every region is still a single block when it is inlined;
   `control_flow`).

Kernel ABI: `llvm.func @k(!llvm.ptr {llvm.noalias, llvm.align = 64}, ...)`, external,
returning void. The runtime allocates every buffer 64-byte aligned (BUFFER_ALIGN);
`noalias` is dropped for a kernel that some `tir.call` passes the same buffer twice.

Entry ABI: `llvm.func @main(%args: !llvm.ptr, %params: !llvm.ptr, %workspace:
!llvm.ptr)`. `args` is an array of buffer pointers, inputs then outputs, in the order
of `@main`'s arguments; `params` is an array of weight pointers, in the order of the
module attribute `lamina.params` (PARAMS_ATTR: resource keys, in order of first
use); `workspace` is a 64-byte aligned arena of `lamina.workspace_size`
(WORKSPACE_SIZE_ATTR) bytes that holds every `tir.alloc global` of `@main` at an
offset planned by liveness (see `lamina.runtime.workspace.plan_workspace`).
`lamina.intermediate_bytes` (INTERMEDIATE_BYTES_ATTR) is what the allocs would
take without reuse. These and the other fields of the entry ABI (sizes, bounds,
exits, dynamic plan: `lamina.runtime.record.EntryABI`) are written by
`lamina.lowering.record.write_entry`, the one encoding of it.

Modules, bottom to top: `types` (type conversion, buffer checks), `memory` (live
ranges for the workspace planner), `emitter` (building llvm ops, module state), `arith` (the
scalar/vector op table, libm and libmvec calls), `buffers` (buffer access and
binding), `control_flow` (CFG flattening), `lower` (the pass).
"""

from lamina.abi import BUFFER_ALIGN, BUFFER_SLACK
from lamina.lowering.tir_to_llvm.buffers import ALIASED_ATTR, noalias_unsafe
from lamina.lowering.tir_to_llvm.lower import (
    CALLS_ATTR,
    LowerTirToLlvmPass,
    lower_module,
)
from lamina.lowering.tir_to_llvm.memory import WorkspacePlan, plan_workspace
from lamina.lowering.tir_to_llvm.types import byte_size, convert_type

__all__ = [
    "ALIASED_ATTR",
    "BUFFER_ALIGN",
    "BUFFER_SLACK",
    "CALLS_ATTR",
    "LowerTirToLlvmPass",
    "WorkspacePlan",
    "byte_size",
    "convert_type",
    "lower_module",
    "noalias_unsafe",
    "plan_workspace",
]
