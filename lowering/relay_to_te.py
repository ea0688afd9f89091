"""`lower-relay-to-te`: every graph op becomes a call to a `te.func` kernel.

Each relay op (other than constants) in a graph function is replaced by
`te.call @kernel(operands)`, where `@kernel` is a new `te.func` whose placeholders
are the op's operands and whose computes come from the compute library
(`lamina.lowering.topi`); an op with an extern kernel (a scatter, top-k, a scan)
calls a `tir.prim_func` written directly instead. Constants stay in the graph:
they are the model's weights.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from lamina.abi import IMAGE_DECODE
from lamina.dialects import relay, te, tir
from lamina.dialects.relay_region import FusedOp, YieldOp
from lamina.digest import structure_digest
from lamina.errors import LoweringError
from lamina.lowering.concat_slices import in_place
from lamina.lowering.lang.schedule import SCHEDULE_ATTR
from lamina.lowering.strategy import dispatch
from lamina.lowering.topi import Kernel, compute_for, extern_kernel, is_extern
from lamina.passes.registry import register_pass

#: C library functions that compiled code may call (LLVM lowers `llvm.exp.f64` to
#: `exp`, tanh and erf are libm calls, ...) and the runtime's (`lamina.abi`): a
#: kernel must not take their names.
_LIBM = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "pow", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "floor", "ceil", "round", "roundeven", "trunc", "rint", "nearbyint", "lround", "fabs", "fmod", "remainder", "fmin", "fmax", "copysign", "fma", "ldexp", "frexp", "modf", "hypot"]
RESERVED_SYMBOLS = frozenset(
    [*_LIBM, *(f + "f" for f in _LIBM), "abs", "labs", "memcpy", "memmove", "memset", IMAGE_DECODE]
)


class SymbolNamer:
    """Unique symbol names within a module: `dense`, `dense_1`, ...; names of C
    library functions are never given out (`exp` becomes `exp_1`)."""

    def __init__(self, module: ModuleOp):
        self.used = {
            op.properties["sym_name"].data  # type: ignore[union-attr]  # any symbol op
            for op in module.ops
            if "sym_name" in op.properties  # any symbol op
        } | RESERVED_SYMBOLS

    def __call__(self, base: str) -> str:
        name, n = base, 0
        while name in self.used:
            n += 1
            name = f"{base}_{n}"
        self.used.add(name)
        return name


def build_kernel(op: relay.RelayOp, name: str) -> te.FuncOp:
    """A `te.func` computing `op` from placeholders for its operands."""
    kernel = te.FuncOp(name)
    block = kernel.body.block
    placeholders = []
    for i, operand in enumerate(op.operands):
        assert isinstance(operand.type, TensorType)
        ph = te.PlaceholderOp(f"in{i}", operand.type)
        block.add_op(ph)
        placeholders.append(ph.result)
    out = compute_for(op)(Kernel(block), op, placeholders)
    block.add_op(te.OutputOp([out] if isinstance(out, SSAValue) else out))
    return kernel


def kernel_name(op: Operation) -> str:
    if isinstance(op, FusedOp):
        names = [kernel_name(o) for o in op.body.block.ops if _is_compute(o)]
        return "fused_" + "_".join(names[:4]) + ("_etc" if len(names) > 4 else "")
    return op.name.removeprefix("relay.").replace(".", "_")


def _is_compute(op: Operation) -> bool:
    return isinstance(op, relay.RelayOp) and not isinstance(op, relay.ConstantOp)


def hoist_constants(group: FusedOp) -> None:
    """Move constants out of a fused group: weights are kernel inputs."""
    block = group.body.block
    for const in [o for o in block.ops if isinstance(o, relay.ConstantOp)]:
        const.detach()
        group.parent_block().insert_op_before(const, group)  # type: ignore[union-attr]
        arg = block.insert_arg(const.output.type, len(block.args))
        const.output.replace_all_uses_with(arg)
        group.operands = [*group.operands, const.output]


def build_fused_kernel(group: FusedOp, name: str) -> te.FuncOp:
    """One `te.func` for a whole fused group: its ops' computes, chained."""
    kernel = te.FuncOp(name)
    block = kernel.body.block
    values: dict[SSAValue, SSAValue] = {}
    for i, arg in enumerate(group.body.block.args):
        assert isinstance(arg.type, TensorType)
        ph = te.PlaceholderOp(f"in{i}", arg.type)
        block.add_op(ph)
        values[arg] = ph.result
    k = Kernel(block)
    for op in group.body.block.ops:
        if isinstance(op, YieldOp):
            block.add_op(te.OutputOp([values[v] for v in op.operands]))
            break
        if not isinstance(op, relay.RelayOp):
            raise LoweringError(f"{op.name} inside relay.fused cannot be lowered to TE")
        out = compute_for(op)(k, op, [values[v] for v in op.operands])
        outs = [out] if isinstance(out, SSAValue) else list(out)
        values.update(zip(op.results, outs, strict=True))
    return kernel


def structural_key(kernel: te.FuncOp | tir.PrimFuncOp) -> str:
    """A digest of the kernel with its name left out: equal keys, equal kernels."""
    return structure_digest(kernel, skip=("sym_name",))


def _kernel_text(kernel: te.FuncOp) -> str:
    """The kernel's text with its name left out (what tuning records key)."""
    name = kernel.sym_name
    kernel.sym_name = StringAttr("_")
    out = io.StringIO()
    Printer(stream=out).print_op(kernel)
    kernel.sym_name = name
    return out.getvalue()


def workload_key(kernel: te.FuncOp) -> str:
    """The kernel's workload hash (16 hex digits of a SHA-256): its text without
    its name and its computes' schedules, so that a kernel is one workload
    whatever schedules it carries (tuning records are keyed by it)."""
    kept = []
    for op in kernel.walk():
        if isinstance(op, te.ComputeOp) and SCHEDULE_ATTR in op.attributes:
            kept.append((op, dict(op.attributes)))
            del op.attributes[SCHEDULE_ATTR]
    try:
        text = _kernel_text(kernel)
    finally:
        for op, attrs in kept:  # (in their order: the text must not change)
            op.attributes.clear()
            op.attributes.update(attrs)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _check_new_size(op: Operation, name: str, counts: dict[str, SSAValue]) -> None:
    """A size set by the data has a name of its own: no input's, set once."""
    fn = op.parent_op()
    while fn is not None and not isinstance(fn, func.FuncOp):
        fn = fn.parent_op()
    if fn is not None and name in tir.size_names([tir.memref_of(t) for t in fn.function_type.inputs]):
        raise LoweringError(
            f"{op.name}: size '{name}' is already an input's size; a size set by "
            "the data needs a name of its own"
        )
    if name in counts:
        raise LoweringError(f"{op.name}: size '{name}' is set twice; name each size set by the data once")


@register_pass
@dataclass(frozen=True)
class LowerRelayToTePass(ModulePass):
    """Lower graph ops to TE kernels called from the graph."""

    name = "lower-relay-to-te"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        namer = SymbolNamer(op)
        seen: dict[str, str] = {}
        for fn in list(op.ops):
            if isinstance(fn, func.FuncOp) and fn.body.blocks:
                for block in fn.body.blocks:
                    self._lower_block(op, block, namer, seen)

    def _lower_block(
        self, module: ModuleOp, block: Block, namer: SymbolNamer, seen: dict[str, str]
    ) -> None:
        """Lower each op or group of `block`; structurally identical kernels (same
        text but for their name) are emitted once and called from every site.
        The dispatch context, if any, sees each kernel as it is built (and may
        give it tuned schedules) before it is compared.

        A kernel is a function of its graph op's structure alone (the computes
        read operands' types, never their data: constants are hoisted out of
        groups first). So without a dispatch context, which must see every
        site, an op structurally equal to one already lowered (BERT's twelve
        layers) calls that op's kernel without building its computes again.
        `seen` keys both kinds of digest, which never collide (SHA-256)."""
        counts: dict[str, SSAValue] = {}  # data-dependent sizes, by name
        for op in list(block.ops):
            if isinstance(op, relay.IfOp | relay.LoopOp):  # control flow: its bodies
                if isinstance(op, relay.LoopOp):
                    self._set_sizes(op, counts)
                for region in op.regions:
                    self._lower_block(module, region.block, namer, seen)
                continue
            if isinstance(op, relay.CheckOp):  # a check in the graph, no kernel
                Rewriter.insert_op(te.CheckOp(op.cond, op.message.data), InsertPoint.before(op))
                op.output.replace_all_uses_with(op.data)
                Rewriter.erase_op(op)
                continue
            if isinstance(op, relay.DynShapeOp | relay.DynArangeOp):
                self._set_sizes(op, counts)
            if in_place(op):
                continue  # its operands are computed in its buffer (lower-te-to-tir)
            if isinstance(op, FusedOp):
                hoist_constants(op)
            elif not _is_compute(op):
                continue
            tuning = dispatch.current()  # (tuning records, or the tuner's task extraction)
            graph_key = structure_digest(op) if tuning is None else None
            name = seen.get(graph_key) if graph_key is not None else None
            if name is None:
                name = self._kernel(module, op, namer, seen, tuning)
                if graph_key is not None:
                    seen[graph_key] = name
            if isinstance(op, relay.NarrowOp):
                self._set_size(op, counts)
            Rewriter.replace_op(op, te.CallOp(name, op.operands, [r.type for r in op.results]))

    @staticmethod
    def _kernel(
        module: ModuleOp, op: Operation, namer: SymbolNamer, seen: dict[str, str],
        tuning: dispatch.DispatchContext | None,
    ) -> str:
        """Build the kernel of `op` (a group or a compute op), shown to the
        dispatch context if any, and add it to `module` unless a structurally
        identical one is there: the name of the kernel to call."""
        kernel: te.FuncOp | tir.PrimFuncOp
        try:
            with dispatch.template_log() as calls:
                if isinstance(op, FusedOp):
                    kernel = build_fused_kernel(op, namer(kernel_name(op)))
                elif isinstance(op, relay.RelayOp) and is_extern(op):
                    kernel = extern_kernel(op, namer(kernel_name(op)))
                else:
                    assert isinstance(op, relay.RelayOp)
                    kernel = build_kernel(op, namer(kernel_name(op)))
        except VerifyException as e:
            raise LoweringError(f"{op.name}: {e}") from None
        if tuning is not None and isinstance(kernel, te.FuncOp):
            with dispatch.building(op):
                tuning.kernel_built(kernel, workload_key(kernel), calls)
        key = structural_key(kernel)
        name = seen.get(key)
        if name is None:
            name = seen[key] = kernel.sym_name.data
            module.body.block.add_op(kernel)
        return name

    @staticmethod
    def _set_sizes(
        op: relay.DynShapeOp | relay.DynArangeOp | relay.LoopOp, counts: dict[str, SSAValue]
    ) -> None:
        """The sizes a shape given as data (or a loop's trip count, its stacks'
        rows) sets, before the op runs: unbounded (the runtime plans them at a
        capacity and grows it)."""
        count = (
            op.shape if isinstance(op, relay.DynShapeOp)
            else op.trip_count if isinstance(op, relay.LoopOp)
            else op.count
        )
        for index, name in op.defined():
            _check_new_size(op, name, counts)
            counts[name] = count
            Rewriter.insert_op(te.SetSizeOp(name, count, None, index), InsertPoint.before(op))

    @staticmethod
    def _set_size(op: relay.NarrowOp, counts: dict[str, SSAValue]) -> None:
        """The narrow's count becomes its size before the narrow runs; every
        narrow naming one size must read the same count."""
        name = op.size.data
        if name not in counts:
            _check_new_size(op, name, counts)
            counts[name] = op.count
            Rewriter.insert_op(te.SetSizeOp(name, op.count, op.bound), InsertPoint.before(op))
        elif counts[name] is not op.count:
            raise LoweringError(
                f"relay.narrow: size '{name}' is set by two different counts; "
                "name each data-dependent size once"
            )
