"""Translation of xDSL's `llvm` dialect to LLVM IR (llvmlite), with lamina's fixes.

This is the one place where lamina patches over gaps in xDSL 0.74's emitter
(pinned) on the way to LLVM IR; everything else defers to `xdsl.backend.llvm`.
`convert_module` applies:

- the ops of `lamina.dialects.llvm_ext` (casts, `llvm.extractelement`) are
  translated;
- xDSL declares the intrinsics of `llvm.intr.exp`, `llvm.intr.maxnum`, ... under
  their unmangled names (`llvm.exp`), so a module that uses one of them at two types
  (f32 and vector<16xf32>) fails; lamina declares them type-mangled (`llvm.exp.f32`,
  `llvm.exp.v16f32`);
- `llvm.call_intrinsic` keeps its fast-math flags (xDSL refuses them);
- binary ops print their flags in LLVM's order (xDSL's emitter prints them in a
  frozenset's, so the text changed from run to run with the hash seed);
- `llvm.func` linkage is honoured (xDSL emits every function as external);
- a loop's latch branch marked `UNROLL_ATTR` gets `llvm.loop` metadata asking
  for a full unroll (xDSL has no loop annotations);
- the parallel loops outlined by the lowering get their thread-pool glue
  (`lamina.codegen.parallel`);
- xDSL's `NotImplementedError`s become `lamina.errors.CompileError`s.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import llvmlite.ir as ir
from llvmlite import binding
from xdsl.backend.llvm import convert as xdsl_convert
from xdsl.backend.llvm.convert_op import convert_op
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.utils.exceptions import LLVMTranslationException

from lamina.codegen.parallel import emit_parallel_glue
from lamina.dialects.llvm_ext import (
    ExtractElementOp,
    FPToSIOp,
    FPToUIOp,
    MaskedLoadOp,
    MaskedStoreOp,
    UIToFPOp,
)
from lamina.errors import CompileError
from lamina.lowering.tir_to_llvm.control_flow import UNROLL_ATTR
from lamina.lowering.tir_to_llvm.parallel import parallel_loops

ValueMap = dict[SSAValue, ir.Value]
_Converter = Callable[[Operation, ir.IRBuilder, ValueMap], None]

_CASTS: dict[type[Operation], str] = {
    FPToSIOp: "fptosi",
    FPToUIOp: "fptoui",
    UIToFPOp: "uitofp",
}

#: xDSL intrinsic ops whose emitter declares an unmangled intrinsic.
_MANGLED_INTRINSICS: dict[type[Operation], str] = {
    llvm.FAbsOp: "llvm.fabs",
    llvm.FExpOp: "llvm.exp",
    llvm.FCeilOp: "llvm.ceil",
    llvm.FSinOp: "llvm.sin",
    llvm.FFloorOp: "llvm.floor",
    llvm.FExp2Op: "llvm.exp2",
    llvm.FSqrtOp: "llvm.sqrt",
    llvm.FLogOp: "llvm.log",
    llvm.FCosOp: "llvm.cos",
    llvm.FLog2Op: "llvm.log2",
    llvm.FPowOp: "llvm.pow",
    llvm.VectorFMaxOp: "llvm.maxnum",
    llvm.VectorFMinOp: "llvm.minnum",
    llvm.FCopySignOp: "llvm.copysign",
}


def intrinsic_suffix(t: ir.Type) -> str:
    """LLVM's name mangling of an overloaded intrinsic's type: `f32`, `v16f32`."""
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{intrinsic_suffix(t.element)}"
    return str(t.intrinsic_name)


def _convert_cast(op: Operation, builder: ir.IRBuilder, vals: ValueMap) -> None:
    cast = getattr(builder, _CASTS[type(op)])
    vals[op.results[0]] = cast(vals[op.operands[0]], convert_type(op.results[0].type))


def _convert_extractelement(
    op: Operation, builder: ir.IRBuilder, vals: ValueMap
) -> None:
    assert isinstance(op, ExtractElementOp)
    vals[op.res] = builder.extract_element(vals[op.vector], vals[op.position])


def _declared(module: ir.Module, name: str, fnty: ir.FunctionType) -> ir.Function:
    """The function `name` of `module`, declared with type `fnty` on first use."""
    fn = module.globals.get(name)
    return fn if fn is not None else ir.Function(module, fnty, name)


_FASTMATH_ORDER = {f: i for i, f in enumerate(llvm.FastMathFlag)}


def _fastmath(attr: llvm.FastMathAttr | None) -> list[str]:
    """An op's fast-math flags in LLVM's order (xDSL keeps them in a frozenset,
    whose order changes from run to run with the hash seed)."""
    return [f.value for f in sorted(attr.data if attr else (), key=_FASTMATH_ORDER.__getitem__)]


def _convert_mangled_intrinsic(
    op: Operation, builder: ir.IRBuilder, vals: ValueMap
) -> None:
    args = [vals[v] for v in op.operands]
    ty = args[0].type
    name = f"{_MANGLED_INTRINSICS[type(op)]}.{intrinsic_suffix(ty)}"
    fn = _declared(builder.module, name, ir.FunctionType(ty, [a.type for a in args]))
    vals[op.results[0]] = builder.call(fn, args)


def _convert_call_intrinsic(op: Operation, builder: ir.IRBuilder, vals: ValueMap) -> None:
    """A call of an intrinsic by name, with its fast-math flags (in LLVM's order)."""
    assert isinstance(op, llvm.CallIntrinsicOp)
    if op.op_bundle_operands:
        raise NotImplementedError("operand bundles of llvm.call_intrinsic")
    args = [vals[v] for v in op.args]
    ret = convert_type(op.ress.type) if op.ress is not None else ir.VoidType()
    fn = _declared(builder.module, op.intrin.data, ir.FunctionType(ret, [a.type for a in args]))
    result = builder.call(fn, args, fastmath=_fastmath(op.fastmathFlags))
    if op.ress is not None:
        vals[op.ress] = result


def _typed_ptr(builder: ir.IRBuilder, ptr: ir.Value, pointee: ir.Type) -> ir.Value:
    """`ptr` as a pointer to `pointee` (llvmlite's IR builder has typed pointers;
    a vector access goes through the address of its first element)."""
    t = ptr.type
    if isinstance(t, ir.PointerType) and not t.is_opaque and t.pointee != pointee:
        return builder.bitcast(ptr, pointee.as_pointer())
    return ptr


def _convert_store(op: Operation, builder: ir.IRBuilder, vals: ValueMap) -> None:
    assert isinstance(op, llvm.StoreOp)
    value = vals[op.value]
    instr = builder.store(value, _typed_ptr(builder, vals[op.ptr], value.type))
    if op.alignment:
        instr.align = op.alignment.value.data


def _convert_masked_store(op: Operation, builder: ir.IRBuilder, vals: ValueMap) -> None:
    assert isinstance(op, MaskedStoreOp)
    value, mask = vals[op.value], vals[op.mask]
    ptr = _typed_ptr(builder, vals[op.data], value.type)
    align = ir.Constant(ir.IntType(32), op.alignment.value.data)
    fnty = ir.FunctionType(ir.VoidType(), [value.type, ptr.type, align.type, mask.type])
    name = f"llvm.masked.store.{intrinsic_suffix(value.type)}.p0"
    fn = _declared(builder.module, name, fnty)
    builder.call(fn, [value, ptr, align, mask])


def _convert_masked_load(op: Operation, builder: ir.IRBuilder, vals: ValueMap) -> None:
    assert isinstance(op, MaskedLoadOp)
    mask, pass_thru = vals[op.mask], vals[op.pass_thru]
    ptr = _typed_ptr(builder, vals[op.data], pass_thru.type)
    align = ir.Constant(ir.IntType(32), op.alignment.value.data)
    fnty = ir.FunctionType(pass_thru.type, [ptr.type, align.type, mask.type, pass_thru.type])
    name = f"llvm.masked.load.{intrinsic_suffix(pass_thru.type)}.p0"
    fn = _declared(builder.module, name, fnty)
    vals[op.res] = builder.call(fn, [ptr, align, mask, pass_thru])


#: xDSL's binary ops that carry flags, by their llvmlite builder method.
_BINOPS: dict[type[Operation], str] = {
    llvm.AddOp: "add",
    llvm.SubOp: "sub",
    llvm.MulOp: "mul",
    llvm.ShlOp: "shl",
    llvm.FAddOp: "fadd",
    llvm.FSubOp: "fsub",
    llvm.FMulOp: "fmul",
    llvm.FDivOp: "fdiv",
    llvm.FRemOp: "frem",
}


@functools.lru_cache(maxsize=8)
def _overflow_flags(bits: int) -> tuple[str, ...]:
    flags = llvm.OverflowAttr.from_int(bits).data
    return tuple(f.value for f in llvm.OverflowFlag if f in flags)


def _convert_binop(op: Operation, builder: ir.IRBuilder, vals: ValueMap) -> None:
    """A binary op with its flags in LLVM's order (xDSL's emitter iterates a
    frozenset, so its text would change from run to run), built directly."""
    if isinstance(op, llvm.AbstractFloatArithOp):
        flags = _fastmath(op.fastmathFlags)
    else:
        assert isinstance(op, llvm.ArithmeticBinOpOverflow)
        overflow = op.overflowFlags
        flags = list(_overflow_flags(overflow.value.data)) if overflow else []
    build = getattr(builder, _BINOPS[type(op)])
    vals[op.results[0]] = build(vals[op.operands[0]], vals[op.operands[1]], flags=flags)


#: lamina's converters, by op type (the others are xDSL's `convert_op`).
_CONVERTERS: dict[type[Operation], _Converter] = {
    llvm.StoreOp: _convert_store,
    MaskedStoreOp: _convert_masked_store,
    MaskedLoadOp: _convert_masked_load,
    ExtractElementOp: _convert_extractelement,
    llvm.CallIntrinsicOp: _convert_call_intrinsic,
    **dict.fromkeys(_CASTS, _convert_cast),
    **dict.fromkeys(_MANGLED_INTRINSICS, _convert_mangled_intrinsic),
    **dict.fromkeys(_BINOPS, _convert_binop),
}


def _convert_body(op: llvm.FuncOp, module: ir.Module) -> None:
    """Emit a function body (as xDSL's `_convert_func`, with lamina's ops)."""
    fn = module.get_global(op.sym_name.data)
    block_map: dict[Block, ir.Block] = {}
    vals: ValueMap = {}
    for i, block in enumerate(op.body.blocks):
        block_map[block] = fn.append_basic_block(name=block.name_hint or "")
        if i == 0:
            vals.update(zip(block.args, fn.args, strict=True))
    # Non-entry block arguments are phis; branches add their incoming values.
    for block in list(op.body.blocks)[1:]:
        builder = ir.IRBuilder(block_map[block])
        for arg in block.args:
            vals[arg] = builder.phi(convert_type(arg.type))
    for block in op.body.blocks:
        builder = ir.IRBuilder(block_map[block])
        if block_map[block].instructions:
            builder.position_after(block_map[block].instructions[-1])
        for inner in block.ops:
            converter = _CONVERTERS.get(type(inner))
            if converter is not None:
                converter(inner, builder, vals)
            else:
                convert_op(inner, builder, vals, block_map)
        if block.last_op is not None and UNROLL_ATTR in block.last_op.attributes:
            builder.block.terminator.set_metadata("llvm.loop", _unroll_full(module))


def _unroll_full(module: ir.Module) -> ir.MDValue:
    """A new loop ID (`!N = !{!N, !{!"llvm.loop.unroll.full"}}`): LLVM requires
    each loop's ID to be its own node, whose first operand is itself."""
    full = module.add_metadata([ir.MetaDataString(module, "llvm.loop.unroll.full")])
    loop = module.add_metadata([ir.MetaDataString(module, f"loop {len(module.metadata)}"), full])
    loop.operands = (loop, full)
    return loop


def _set_linkage(op: llvm.FuncOp, module: ir.Module) -> None:
    linkage = op.linkage.linkage.data
    if op.body.blocks and linkage != "external":
        module.get_global(op.sym_name.data).linkage = linkage


def convert_module(
    module: ModuleOp, *, target_triple: str | None = None, data_layout: str = ""
) -> ir.Module:
    """Translate a module of `llvm.func`s (and `llvm.mlir.global`s) to llvmlite IR.

    The triple is the module's `llvm.target_triple` attribute if set, else
    `target_triple`, else the host's.
    """
    try:
        return _convert_module(module, target_triple, data_layout)
    except (NotImplementedError, LLVMTranslationException, KeyError) as e:
        raise CompileError(
            f"cannot translate the module to LLVM IR: {e}. Lower every op to the "
            "llvm dialect first (e.g. with the lower-tir-to-llvm pass)."
        ) from e


def _convert_module(
    module: ModuleOp, target_triple: str | None, data_layout: str
) -> ir.Module:
    out = ir.Module()
    triple = module.attributes.get("llvm.target_triple")
    if triple is not None:
        if not isinstance(triple, StringAttr):
            raise CompileError(f"llvm.target_triple must be a string, got {triple}")
        out.triple = triple.data
    else:
        if target_triple is None:
            target_triple = binding.get_default_triple()
        out.triple = target_triple
    if data_layout:
        out.data_layout = data_layout

    globals_: list[llvm.GlobalOp] = []
    funcs: list[llvm.FuncOp] = []
    for op in module.ops:
        if isinstance(op, llvm.GlobalOp):
            globals_.append(op)
        elif isinstance(op, llvm.FuncOp):
            funcs.append(op)
        else:
            raise CompileError(
                f"'{op.name}' at module level cannot be translated to LLVM IR: only "
                "llvm.func and llvm.mlir.global can. Run lower-tir-to-llvm first."
            )
    # xDSL's module-level helpers are reused as they are (xDSL is pinned).
    for g in globals_:
        xdsl_convert._convert_global(g, out)  # pyright: ignore[reportPrivateUsage]
    for f in funcs:
        xdsl_convert._declare_func(f, out)  # pyright: ignore[reportPrivateUsage]
        _set_linkage(f, out)
    for f in funcs:
        if f.body.blocks:
            _convert_body(f, out)
    emit_parallel_glue(out, parallel_loops(module))
    return out


__all__ = ["convert_module", "intrinsic_suffix"]
