"""Buffers for `lower-tir-to-llvm`: access, and the ABI that binds them.

Sweep 2 lowers buffer accesses (`tir.load`/`tir.store`/`tir.masked_store`) to
address arithmetic and loads/stores, and `tir.call` to a call passing buffer
pointers (`ACCESS_LOWERINGS`); buffers still carry their memref types then, which
give the shapes and element types the addresses need.

Sweep 3 makes buffers pointers. In a kernel, arguments become `!llvm.ptr` and a
`tir.alloc` a static `llvm.alloca` at the entry. In `@main`, arguments are loaded
from the `args` table, `tir.constant` weights from the `params` table, and global
allocs become pointers into the `workspace` arena (see `memory`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseResourceAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    UnitAttr,
    VectorType,
    i1,
    i8,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from lamina.abi import BUFFER_ALIGN, REPLAN
from lamina.dialects import llvm_ext, tir
from lamina.errors import LoweringError
from lamina.lowering.tir_to_llvm.emitter import (
    Emitter,
    EntryBuilder,
    Lowering,
    ModuleState,
    gep,
    int_binop,
    kernel_sizes,
    llvm_dim,
    load,
    lowers,
    result_type,
    store,
)
from lamina.lowering.tir_to_llvm.memory import live_range
from lamina.lowering.tir_to_llvm.types import (
    PTR,
    buffer_strides,
    byte_size,
    check_buffer,
    convert_type,
    numel,
    scalar_type,
)
from lamina.runtime.record import LiveRange
from lamina.runtime.workspace import WorkspacePlan, plan_workspace
from lamina.symbolic import Dim, Sym, monotone_in

ACCESS_LOWERINGS: dict[type[Operation], Lowering] = {}


# =================================================================== buffer access
def _address(e: Emitter, buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
    """`&buffer[indices]`, row-major over the buffer's element type."""
    mtype = check_buffer(buffer.type, e.anchor.name)
    if not indices:
        return buffer
    # The offset is folded where it is constant (the indices of unrolled code
    # are), as an int; else built in the order of the indices.
    linear: SSAValue | int = 0
    for idx, stride in zip(indices, buffer_strides(mtype), strict=True):
        k = e.index_value(idx)
        term: SSAValue | int
        if k is not None and isinstance(stride, int):
            term = k * stride
        else:
            term = idx if stride == 1 else e.emit(int_binop(llvm.MulOp, idx, e.dim(stride)))
        linear = _add_offsets(e, linear, term)
    offset = linear if isinstance(linear, SSAValue) else e.const(linear, i64)
    return e.emit(gep(buffer, offset, convert_type(mtype.get_element_type())))


def _add_offsets(e: Emitter, a: SSAValue | int, b: SSAValue | int) -> SSAValue | int:
    """`a + b`, folded when either is a constant 0 or both are constants."""
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if isinstance(b, int) and b == 0:
        return a
    if isinstance(a, int) and a == 0:
        return b
    lhs = a if isinstance(a, SSAValue) else e.const(a, i64)
    rhs = b if isinstance(b, SSAValue) else e.const(b, i64)
    return e.emit(int_binop(llvm.AddOp, lhs, rhs))


@lowers(ACCESS_LOWERINGS, tir.LoadOp)
def _lower_load(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    assert isinstance(op, tir.LoadOp)
    ptr = _address(e, op.buffer, op.indices)
    t = result_type(op)
    align = byte_size(scalar_type(op.result.type))
    if _is_bool_vector(t):  # bools are bytes in memory; <N x i1> would be bits
        wide = e.emit(load(ptr, _bytes_of(t), align))
        return [e.emit(llvm.TruncOp(wide, t))]
    return [e.emit(load(ptr, t, align))]


def _is_bool_vector(t: Attribute) -> bool:
    return isinstance(t, VectorType) and t.get_element_type() == i1


def _bytes_of(t: Attribute) -> VectorType:
    assert isinstance(t, VectorType)
    return VectorType(i8, t.get_shape())


@lowers(ACCESS_LOWERINGS, tir.StoreOp)
def _lower_store(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    assert isinstance(op, tir.StoreOp)
    ptr = _address(e, op.buffer, op.indices)
    align = byte_size(scalar_type(op.value.type))
    value = op.value
    if _is_bool_vector(convert_type(value.type)):
        value = e.emit(llvm.ZExtOp(value, _bytes_of(convert_type(value.type))))
    e.put(store(value, ptr, align))
    return []


@lowers(ACCESS_LOWERINGS, tir.MaskedStoreOp)
def _lower_masked_store(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    assert isinstance(op, tir.MaskedStoreOp)
    ptr = _address(e, op.buffer, op.indices)
    align = byte_size(scalar_type(op.value.type))
    e.put(llvm_ext.MaskedStoreOp(op.value, ptr, op.mask, alignment=align))
    return []


@lowers(ACCESS_LOWERINGS, tir.MaskedLoadOp)
def _lower_masked_load(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    assert isinstance(op, tir.MaskedLoadOp)
    ptr = _address(e, op.buffer, op.indices)
    align = byte_size(scalar_type(op.result.type))
    return [e.emit(llvm_ext.MaskedLoadOp(ptr, op.mask, op.pass_thru, align))]


@lowers(ACCESS_LOWERINGS, tir.CallOp)
def _lower_call(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    assert isinstance(op, tir.CallOp)
    callee = op.callee.string_value()
    for i, a in enumerate(op.args):
        if not isinstance(a.type, IndexType | IntegerType):  # else a size
            check_buffer(a.type, f"tir.call @{callee} argument #{i}")
    e.state.declare(callee, [convert_type(a.type) for a in op.args], llvm.LLVMVoidType())
    e.put(llvm.CallOp(callee, *op.args))
    return []


@lowers(ACCESS_LOWERINGS, tir.CallExternOp)
def _lower_call_extern(op: Operation, e: Emitter) -> Sequence[SSAValue]:
    """A C function the runtime provides: buffers as pointers, `index` as i64."""
    assert isinstance(op, tir.CallExternOp)
    callee = op.callee.string_value()
    for i, a in enumerate(op.args):
        if isinstance(a.type, MemRefType):
            check_buffer(a.type, f"tir.call_extern @{callee} argument #{i}")
    result = convert_type(op.result.type)
    e.state.declare(callee, [convert_type(a.type) for a in op.args], result)
    return [e.emit(llvm.CallOp(callee, *op.args, return_type=result))]


# ========================================================================= binding
def _i64(b: EntryBuilder, value: int) -> SSAValue:
    return b.insert(llvm.ConstantOp(IntegerAttr(value, i64), i64)).result


def _lower_alloca(op: tir.AllocOp, b: EntryBuilder) -> None:
    """A stack buffer, hoisted to the entry block by `b` (sized there from the
    kernel's size arguments if its shape is symbolic)."""
    mtype = check_buffer(op.result.type, "tir.alloc")
    n = llvm_dim(numel(mtype), kernel_sizes(op), lambda o: b.insert(o).results[0], lambda k: _i64(b, k))
    elem = convert_type(mtype.get_element_type())
    alloca = b.insert(llvm.AllocaOp(n, elem, alignment=BUFFER_ALIGN))
    op.result.replace_all_uses_with(alloca.res)
    Rewriter.erase_op(op)


def _slot_value(b: EntryBuilder, table: SSAValue, index: int) -> SSAValue:
    """Load the i64 `table[index]` from an array of 8-byte slots (`lamina.abi`)."""
    gep = b.insert(llvm.GEPOp(table, [index], i64, inbounds=True))
    return b.insert(llvm.LoadOp(gep.result, i64, alignment=8)).dereferenced_value


def _slot_address(
    b: EntryBuilder, table: SSAValue, index: int, slot: Attribute = i64
) -> SSAValue:
    """Load pointer `table[index]` from an array of `slot`s: 8-byte ones
    (`args`, `lamina.abi`: a 32-bit target's pointer is the slot's low half, all
    targets being little-endian), or pointers (`params`: `slot` PTR)."""
    gep = b.insert(llvm.GEPOp(table, [index], slot, inbounds=True))
    return b.insert(llvm.LoadOp(gep.result, PTR, alignment=8)).dereferenced_value


def lower_kernel_buffers(fn: tir.PrimFuncOp) -> None:
    """Sweep 3 of a kernel: arguments are pointers, allocs static allocas."""
    entry = fn.body.block
    at_entry = EntryBuilder(entry)
    for op in list(fn.walk()):
        if isinstance(op, tir.AllocOp):
            _lower_alloca(op, at_entry)
        elif isinstance(op, tir.ConstantOp):
            raise LoweringError(
                f"tir.constant in kernel @{fn.sym_name.data}: weights are bound in "
                "@main only; pass them to the kernel as buffer arguments"
            )
        elif isinstance(op, tir.CheckOp | tir.SetSizeOp):
            raise LoweringError(f"{op.name} in kernel @{fn.sym_name.data}: only @main stops or sets sizes")
    for i, arg in enumerate(entry.args):
        if isinstance(arg.type, IntegerType):  # a size argument (i64 since sweep 1)
            continue
        check_buffer(arg.type, f"@{fn.sym_name.data} argument #{i}")
        Rewriter.replace_value_with_new_type(arg, PTR)
    lower_views(fn)


def lower_views(fn: Operation) -> None:
    """Each `tir.view` (its source bound to a pointer already) as the address
    of its first element."""
    for op in [o for o in fn.walk() if isinstance(o, tir.ViewOp)]:
        t = op.result.type
        assert isinstance(t, MemRefType)
        nbytes = op.offset.value.data * byte_size(t.get_element_type())
        gep = llvm.GEPOp.from_mixed_indices(op.source, [nbytes], i8, inbounds=True)
        Rewriter.replace_op(op, gep)


def bind_kernel_sizes(fn: tir.PrimFuncOp) -> None:
    """Sweep 1 of a kernel: `tir.size` ops are its size arguments, which are i64."""
    sizes = fn.size_args()
    defined: dict[str, tir.SetSizeOp] = {}
    for op in list(fn.walk()):
        if isinstance(op, tir.SetSizeOp):
            if op.size.data in defined:
                raise LoweringError(f"@main: size '{op.size.data}' is set twice (tir.set_size)")
            defined[op.size.data] = op
    for op in list(fn.walk()):
        if isinstance(op, tir.SizeOp) and op.size.data not in defined:
            if op.size.data not in sizes:
                raise LoweringError(
                    f"tir.prim_func @{fn.sym_name.data}: tir.size \"{op.size.data}\" is "
                    f"not one of its sizes {fn.sizes}"
                )
            op.result.replace_all_uses_with(sizes[op.size.data])
            Rewriter.erase_op(op)
    for arg in sizes.values():
        Rewriter.replace_value_with_new_type(arg, i64)


def lower_main_buffers(
    fn: func.FuncOp, state: ModuleState
) -> tuple[WorkspacePlan, tuple[LiveRange, ...] | None, int]:
    """Bind @main's buffers: arguments, parameters and the workspace arena.
    Returns the arena's plan, or (symbolic sizes) its buffers' live ranges for
    the runtime to plan per shape, and the `args` slot of the exit status (the
    last one)."""
    if len(fn.body.blocks) != 1:
        raise LoweringError("@main must have a single block")
    entry = fn.body.block
    args = entry.insert_arg(PTR, 0)
    params = entry.insert_arg(PTR, 1)
    workspace = entry.insert_arg(PTR, 2)
    for name, arg in zip(
        ("args", "params", "workspace"), (args, params, workspace), strict=True
    ):
        arg.name_hint = name
    position = {op: i for i, op in enumerate(entry.ops)}
    at_entry = EntryBuilder(entry)

    allocs = [op for op in entry.ops if isinstance(op, tir.AllocOp)]
    for op in fn.walk():
        if isinstance(op, tir.AllocOp) and op.parent_block() is not entry:
            raise LoweringError("tir.alloc in @main must be at its top level")
    buffers = list(entry.args[3:])
    sizes = main_sizes(fn)
    nbytes = [
        numel(m) * byte_size(m.get_element_type())
        for a in allocs
        for m in [check_buffer(a.result.type, "tir.alloc")]
    ]
    ranges = [(*live_range(a.result, entry, position), n) for a, n in zip(allocs, nbytes, strict=True)]
    dynamic = any(isinstance(n, Sym) for n in nbytes)
    live: tuple[LiveRange, ...] | None = None
    if dynamic:  # planned per shape at run time, by the same planner
        plan = WorkspacePlan((), 0, 0)
        live = tuple(LiveRange(*r) for r in ranges)
    else:
        plan = plan_workspace(ranges)  # type: ignore[arg-type]
    defined: dict[str, tir.SetSizeOp] = {}
    for op in list(fn.walk()):
        if isinstance(op, tir.SetSizeOp):
            if op.size.data in defined:
                raise LoweringError(f"@main: size '{op.size.data}' is set twice (tir.set_size)")
            defined[op.size.data] = op
    for op in list(fn.walk()):
        if isinstance(op, tir.SizeOp) and op.size.data not in defined:
            if op.size.data not in sizes:
                raise LoweringError(
                    f"@main: tir.size \"{op.size.data}\" is not a size of its buffers {sizes}"
                )
            slot = _slot_value(at_entry, args, len(buffers) + sizes.index(op.size.data))
            op.result.replace_all_uses_with(slot)
            Rewriter.erase_op(op)
    for i, arg in enumerate(buffers):
        check_buffer(arg.type, f"@main argument #{i}")
        arg.replace_all_uses_with(_slot_address(at_entry, args, i))
        entry.erase_arg(arg)
    for op in list(fn.walk()):
        if isinstance(op, tir.ConstantOp):
            _bind_param(op, params, state, at_entry)
    for k, alloc in enumerate(allocs):
        if dynamic and alloc.scope.data != tir.AllocScope.LOCAL:
            slot = len(buffers) + len(sizes) + k
            offset: int | SSAValue = _slot_value(at_entry, args, slot)
        else:
            offset = plan.offsets[k] if not dynamic else 0
        _bind_workspace(alloc, workspace, offset, at_entry)
    lower_views(fn)
    if defined:
        _require_monotone(defined, [*nbytes, *(numel(b.type) for b in buffers)])
        _bind_defined_sizes(fn, defined, args, len(buffers), sizes, at_entry)
    return plan, live, len(buffers) + len(sizes) + (len(allocs) if dynamic else 0)


def _require_monotone(defined: dict[str, tir.SetSizeOp], extents: Sequence[Dim]) -> None:
    """Every buffer grows with each unbounded size (none shrinks as one grows),
    so a buffer planned at the sizes' capacities holds any smaller values."""
    for name, op in defined.items():
        if op.bound is None:
            for n in extents:
                if not monotone_in(n, name):
                    raise LoweringError(
                        f"@main: a buffer of {n} elements or bytes shrinks as size '{name}' "
                        "(set by the data, unbounded) grows, so no capacity fits every value"
                    )


def _bind_defined_sizes(
    fn: func.FuncOp,
    defined: dict[str, tir.SetSizeOp],
    args: SSAValue,
    first_slot: int,
    sizes: list[str],
    at_entry: EntryBuilder,
) -> None:
    """Data-dependent sizes: at each `tir.set_size`, the count its kernel wrote
    is the size from there on, stored in its `args` slot (if it has one) for
    the caller to read. A bounded size is clamped to `0..bound`. An unbounded
    one must not be negative, and must fit the capacity the caller planned
    with (the slot's value on entry): a `tir.check` before the next op stops
    the run otherwise. A size set inside a loop or branch is set each time
    the op runs, against the same capacity."""
    values: dict[str, SSAValue] = {}
    uses = [op for op in fn.walk() if isinstance(op, tir.SizeOp)]
    slots = {n: _slot_value(at_entry, args, first_slot + sizes.index(n)) for n in sizes if n not in defined}
    for name, op in defined.items():
        b = Builder(InsertPoint.before(op))

        def put(o: Operation, b: Builder = b) -> SSAValue:
            return b.insert(o).results[0]

        def const(k: int, b: Builder = b) -> SSAValue:
            return put(llvm.ConstantOp(IntegerAttr(k, i64), i64))

        def slot_of(name: str = name, put: Callable[[Operation], SSAValue] = put) -> SSAValue:
            return put(llvm.GEPOp(args, [first_slot + sizes.index(name)], i64, inbounds=True))

        at = op.count if op.element is None else put(llvm.GEPOp(op.count, [op.element], i64, inbounds=True))
        count = put(llvm.LoadOp(at, i64, alignment=8))
        slot = None
        if op.bound is not None:
            bound = llvm_dim(Sym.parse(op.bound.data), {**slots, **values}, put, const)
            low = put(llvm.ICmpOp(count, const(0), _predicate("slt")))
            count = put(llvm.SelectOp(low, const(0), count))
            high = put(llvm.ICmpOp(count, bound, _predicate("sgt")))
            count = put(llvm.SelectOp(high, bound, count))
        else:  # every unbounded size has a slot (main_sizes)
            slot = slot_of()
            ok = put(llvm.ICmpOp(count, const(0), _predicate("sge")))
            b.insert(tir.CheckOp(ok, f"the data set size '{name}' to a negative value"))
            # The capacity is the slot's value on entry (a size set in a loop
            # overwrites the slot with its value each time).
            capacity = _slot_value(at_entry, args, first_slot + sizes.index(name))
            fits = put(llvm.ICmpOp(count, capacity, _predicate("sle")))
            after = op.next_op
            while isinstance(after, tir.SetSizeOp):  # after the sizes set together
                after = after.next_op
            assert after is not None
            Rewriter.insert_op(tir.CheckOp(fits, REPLAN), InsertPoint.before(after))
        if name in sizes:
            b.insert(llvm.StoreOp(count, slot or slot_of(), alignment=8))
        values[name] = count
        Rewriter.erase_op(op)
    for use in uses:
        if use.size.data in values:
            use.result.replace_all_uses_with(values[use.size.data])
            Rewriter.erase_op(use)


def _predicate(name: str) -> IntegerAttr:
    return IntegerAttr(llvm.ICmpPredicateFlag(name).to_int(), i64)


def main_sizes(fn: func.FuncOp) -> list[str]:
    """The sizes in @main's `args` slots, in order: those its buffer arguments
    depend on, then the unbounded sizes it sets (the caller writes their
    capacity there, @main their value)."""
    names = tir.size_names(fn.function_type.inputs.data)
    for op in fn.walk():
        if isinstance(op, tir.SetSizeOp) and op.bound is None and op.size.data not in names:
            names.append(op.size.data)
    return names


def lower_checks(fn: Operation, args: SSAValue, status_slot: int) -> list[str]:
    """After control flow is flattened: each `tir.check` branches to an exit
    that writes its message's number (from 1) into `args[status_slot]` and
    returns. The messages, in the order of their numbers."""
    messages: list[str] = []
    for op in [o for o in fn.walk() if isinstance(o, tir.CheckOp)]:
        if op.message.data not in messages:
            messages.append(op.message.data)
        code = messages.index(op.message.data) + 1
        block = op.parent_block()
        assert block is not None and block.parent is not None and op.next_op is not None
        cont = block.split_before(op.next_op)
        fail = Block()
        block.parent.add_block(fail)
        fb = Builder(InsertPoint.at_end(fail))
        slot = fb.insert(llvm.GEPOp(args, [status_slot], i64, inbounds=True))
        value = fb.insert(llvm.ConstantOp(IntegerAttr(code, i64), i64))
        fb.insert(llvm.StoreOp(value.result, slot.result, alignment=8))
        fb.insert(llvm.ReturnOp())
        Rewriter.replace_op(op, llvm.CondBrOp(op.cond, cont, [], fail, []))
    return messages


def _bind_workspace(
    op: tir.AllocOp, workspace: SSAValue, offset: int | SSAValue, at_entry: EntryBuilder
) -> None:
    if op.scope.data == tir.AllocScope.LOCAL:
        _lower_alloca(op, at_entry)
        return
    b = Builder(InsertPoint.before(op))
    gep = b.insert(
        llvm.GEPOp.from_mixed_indices(workspace, [offset], i8, inbounds=True)
    )
    if isinstance(offset, int):
        gep.attributes["lamina.workspace_offset"] = IntegerAttr(offset, i64)
    op.result.replace_all_uses_with(gep.result)
    Rewriter.erase_op(op)


def _bind_param(
    op: tir.ConstantOp, params: SSAValue, state: ModuleState, at_entry: EntryBuilder
) -> None:
    check_buffer(op.result.type, "tir.constant")
    value: DenseResourceAttr = op.value
    index = state.param_index(value.resource_handle.data)
    ptr = _slot_address(at_entry, params, index, PTR)
    op.result.replace_all_uses_with(ptr)
    Rewriter.erase_op(op)


# ===================================================================== kernel ABI
#: A module attribute: names of kernels some call (not in the module) passes
#: one buffer twice.
ALIASED_ATTR = "lamina.aliased"


def noalias_unsafe(module: ModuleOp) -> set[str]:
    """Kernels that some call passes the same buffer twice (no `noalias` then),
    and those the module's `ALIASED_ATTR` names (a kernel compiled apart from
    its callers: `lamina.codegen.kernels`)."""
    listed = module.attributes.get(ALIASED_ATTR)
    unsafe = {a.data for a in listed.data} if isinstance(listed, ArrayAttr) else set()  # type: ignore[attr-defined]
    for op in module.walk():
        if isinstance(op, tir.CallOp) and len(set(op.args)) != len(op.args):
            unsafe.add(op.callee.string_value())
    return unsafe


def kernel_arg_attrs(n: int, noalias: bool, sizes: int = 0) -> ArrayAttr[DictionaryAttr]:
    """The attributes of a kernel's `n` buffer arguments: aligned, and `noalias`
    unless a call may pass one buffer twice (its `sizes` size arguments have none)."""
    attrs: dict[str, Attribute] = {"llvm.align": IntegerAttr(BUFFER_ALIGN, i64)}
    if noalias:
        attrs["llvm.noalias"] = UnitAttr()
    plain = DictionaryAttr({})
    return ArrayAttr([DictionaryAttr(attrs) for _ in range(n)] + [plain] * sizes)


def main_arg_attrs() -> ArrayAttr[DictionaryAttr]:
    """The attributes of @main's `args`, `params` and `workspace` arguments."""
    table = DictionaryAttr({"llvm.noalias": UnitAttr()})
    arena = DictionaryAttr(
        {"llvm.noalias": UnitAttr(), "llvm.align": IntegerAttr(BUFFER_ALIGN, i64)}
    )
    return ArrayAttr([table, table, arena])


__all__ = [
    "ACCESS_LOWERINGS",
    "REPLAN",
    "bind_kernel_sizes",
    "kernel_arg_attrs",
    "lower_checks",
    "lower_kernel_buffers",
    "lower_main_buffers",
    "main_arg_attrs",
    "main_sizes",
    "noalias_unsafe",
]
