"""The compiler driver: `compile`.

    ONNX / graph module
      └─ graph optimizations (GRAPH_PIPELINE: TVM's build order, each pass from its
         own opt level; the BYOC passes only when targets are configured)
      └─ lowering (LOWERING_PIPELINE): relay -> te -> tir -> llvm
      └─ JIT for the host (lamina.codegen.jit) -> CompiledModel (its ModelRecord:
         the graph's interface and the entry ABI the lowering wrote); code for
         another target is not loaded: the model is only exported

The pipeline itself is `lamina.pipelines`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseResourceAttr,
    MemRefType,
    ModuleOp,
    TensorType,
)

# Importing the pass packages registers their passes.
from lamina.backends import load_external, parse_targets
from lamina.codegen.codegen import module_target
from lamina.codegen.export import ModuleExporter
from lamina.codegen.jit import jit_compile
from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.resources import blobs
from lamina.dialects.shapes import ASSUME_ATTR, assumptions_of, is_symbolic
from lamina.errors import CompileError, FrontendError, LaminaError
from lamina.frontends.onnx import from_onnx
from lamina.frontends.torch import from_torch
from lamina.ir import context, entry_function, io_names
from lamina.limits import check_size
from lamina.lowering.record import read_entry
from lamina.lowering.strategy import dispatch
from lamina.passes import PassContext, run_pipeline
from lamina.pipelines import DefaultPipeline
from lamina.runtime.model import CompiledModel, aligned, check_num_threads
from lamina.runtime.record import Assumption, ModelRecord, TensorSpec
from lamina.symbolic import Sym
from lamina.target import Target
from lamina.tuning.records import TuningRecords, load_records, warn


# ------------------------------------------------------------------ compiling
def _main(module: ModuleOp) -> func.FuncOp:
    fn = entry_function(module)
    if fn is None:
        raise LaminaError("the module has no graph function @main to compile")
    types = [*fn.function_type.inputs.data, *fn.function_type.outputs.data]
    lowered = next((t for t in types if isinstance(t, MemRefType)), None)
    if lowered is not None:
        raise LaminaError(
            f"the module is at the tir level (lowered: @main takes {lowered}, not "
            "tensors); compiling takes an ONNX model or a graph-level (relay) module "
            "(`lamina compile --emit relay`, or te), so compile the model it came "
            "from; lamina-opt runs passes on lower levels (e.g. `lamina-opt FILE.mlir "
            "-p lower -t llvm`)"
        )
    return fn


def require_bindable_sizes(graph: func.FuncOp) -> None:
    """Refuse a graph whose symbolic sizes its inputs do not give: every size
    must be the whole of some input dim (`seq`, not only `seq + 1`), so that the
    compiled model can bind it from the arrays it is run on."""
    names = io_names(graph.arg_attrs, "input", len(graph.function_type.inputs.data))
    # Data-dependent sizes are set by the model itself (relay.narrow, relay.dyn_*,
    # a relay.loop's stacks from its trip count).
    given: set[str] = set()
    for op in graph.walk():
        if isinstance(op, relay.NarrowOp):
            given.add(op.size.data)
        elif isinstance(op, relay.DynShapeOp | relay.DynArangeOp | relay.LoopOp):
            given.update(name for _, name in op.defined())
    needed: set[str] = set()
    for t in graph.function_type.inputs.data:
        for d in relay.shape_of(t) if isinstance(t, TensorType) else ():
            if isinstance(d, Sym):
                needed |= d.names
                if d.name is not None:
                    given.add(d.name)
    for t in graph.function_type.outputs.data:
        for d in relay.shape_of(t) if isinstance(t, TensorType) else ():
            if isinstance(d, Sym):
                needed |= d.names
    if needed <= given:
        return
    for t, name in zip(graph.function_type.inputs.data, names, strict=True):
        if not is_symbolic(t):
            continue
        dims = list(relay.shape_of(t))
        axes = [(i, str(d)) for i, d in enumerate(dims) if isinstance(d, Sym)]
        which = ", ".join(f"'{d}' (axis {i})" for i, d in axes)
        example = [d if isinstance(d, int) else 1 for d in dims]
        err = FrontendError(
            f"input '{name}' has {'a ' if len(axes) == 1 else ''}symbolic "
            f"dimension{'s' if len(axes) > 1 else ''} {which}, and size(s) "
            f"{sorted(needed - given)} cannot be bound from any input's shape; give "
            f"its size with input_shapes={{'{name}': {example}}}"
        )
        # The input and its dims (symbolic ones as names), for a caller that
        # words its own advice (the lamina command: --input-shape NAME=...).
        err.input_name = name  # type: ignore[attr-defined]
        err.input_dims = [d if isinstance(d, int) else str(d) for d in dims]  # type: ignore[attr-defined]
        raise err
    raise FrontendError(
        f"the outputs depend on size(s) {sorted(needed - given)} that no input's "
        "shape gives; fix them with input_shapes="
    )


def _specs(fn: func.FuncOp, outputs: bool) -> list[TensorSpec]:
    types = fn.function_type.outputs if outputs else fn.function_type.inputs
    attrs = fn.res_attrs if outputs else fn.arg_attrs
    prefix = "output" if outputs else "input"
    specs = []
    names = io_names(attrs, prefix, len(types.data))
    for i, (t, name) in enumerate(zip(types.data, names, strict=True)):
        if not isinstance(t, TensorType):
            raise LaminaError(f"@main's {prefix} #{i} is {t}, not a tensor")
        specs.append(TensorSpec(name, relay.shape_of(t), numpy_dtype(t.get_element_type())))
    return specs


def resource_types(module: ModuleOp) -> dict[str, TensorType]:
    """The tensor type of every weight blob the graph refers to."""
    types: dict[str, TensorType] = {}
    for op in module.walk():
        if isinstance(op, relay.ConstantOp) and isinstance(op.value, DenseResourceAttr):
            t = op.value.type
            assert isinstance(t, TensorType)
            types[op.value.resource_handle.data] = t
    return types


def param_arrays(keys: Sequence[str], types: dict[str, TensorType]) -> list[np.ndarray]:
    """The weights named by `keys`, as aligned arrays of their IR types."""
    out = []
    for key in keys:
        t = types.get(key)
        if t is None:  # created during lowering, e.g. from an inline dense constant
            stored = blobs.get(key)
            if stored is None:
                raise LaminaError(f"weight '{key}' has no data")
            out.append(aligned(stored, stored.dtype))
            continue
        dt = numpy_dtype(t.get_element_type())
        out.append(aligned(blobs.array(key, tuple(t.get_shape()), dt), dt))
    return out


def _with_byoc_targets(
    pctx: PassContext, names: list[str], num_threads: int | None
) -> PassContext:
    """`pctx` with the `byoc.targets` (and `byoc.num-threads`) config set, which
    the BYOC passes of the default pipeline (merge-composite ... external-codegen)
    and the targets' codegens read."""
    if not names:
        return pctx
    return pctx.replace(
        config={
            **pctx.config,
            "byoc.targets": ",".join(names),
            "byoc.num-threads": num_threads or pctx.target.num_threads,
        },
    )


def compile(
    model: Any,
    opt_level: int = 3,
    targets: Sequence[str] = (),
    num_threads: int | None = None,
    input_shapes: dict[str, Sequence[int]] | None = None,
    pass_context: PassContext | None = None,
    tuning_records: str | os.PathLike[str] | TuningRecords | None = None,
    target: str | Target | None = None,
    jit: bool = True,
    example_inputs: Sequence[Any] | None = None,
    dynamic_shapes: Any = None,
) -> CompiledModel:
    """Compile an ONNX model (path, bytes, ModelProto or `lamina.quantize`'s
    QuantizedModel), a graph-level module, or a torch `nn.Module` (traced with
    `example_inputs`, a tuple, and `dynamic_shapes` by `lamina.from_torch`) or
    `torch.export.ExportedProgram`.

    The standard pipeline for `opt_level` runs under `pass_context` (which, when
    given, also decides the opt level, required/disabled passes, config and
    instruments).

    `tuning_records` (a file `lamina tune` wrote, or its `load_records`) gives
    each kernel with a record for this CPU its best schedule; the others keep
    the default. What the records leave out (another CPU's, a record that no
    longer fits its kernel) is said in `TuningNote` warnings.

    `target` (a `Target` or its string, `lamina.target`) is what the code is
    for; the default is this machine (or `pass_context`'s target). Code for
    another machine is not loaded into this process, nor is any with
    `jit=False`: such a model only exports (`lamina compile -o` runs LLVM once,
    for the library).

    The weight blobs the compile creates (imported, folded, relaid out) are
    released when it returns: the model holds aligned copies of its weights."""
    check_num_threads(num_threads)  # before any work: a bad count fails at once
    records = None
    if tuning_records is not None:
        records = (
            tuning_records
            if isinstance(tuning_records, TuningRecords)
            else load_records(tuning_records)
        )
        warn(records.notes)
    tuned = records.dispatch() if records is not None else None
    with blobs.recording() as created, dispatch.using(tuned):
        try:
            if is_torch_model(model):
                if input_shapes is not None:
                    raise FrontendError(
                        "input_shapes is for ONNX models; a torch model's sizes are its "
                        "example inputs' (make some dynamic with dynamic_shapes=)"
                    )
                model = from_torch(model, _example_inputs(model, example_inputs), dynamic_shapes)
            return _compile(
                model, opt_level, targets, num_threads, input_shapes, pass_context, target, jit
            )
        finally:
            blobs.release(created)
            if tuned is not None:
                warn(tuned.notes)


def is_torch_model(model: Any) -> bool:
    """Whether `model` is a torch `nn.Module` or `ExportedProgram`, without
    importing torch: a model can only be one when torch is imported already."""
    torch = sys.modules.get("torch")
    try:
        kinds = (torch.nn.Module, torch.export.ExportedProgram)  # type: ignore[union-attr]
    except AttributeError:  # not imported (or not torch under that name)
        return False
    return isinstance(model, kinds)


def _example_inputs(model: Any, example_inputs: Sequence[Any] | None) -> tuple[Any, ...]:
    if example_inputs is None:
        if type(model).__name__ == "ExportedProgram":
            return ()
        raise FrontendError(
            f"compiling a torch module ({type(model).__name__}) needs example_inputs=, "
            "a tuple of tensors it is traced with (torch.export.export)"
        )
    return tuple(example_inputs) if isinstance(example_inputs, list | tuple) else (example_inputs,)


def _compile(
    model: Any,
    opt_level: int,
    targets: Sequence[str],
    num_threads: int | None,
    input_shapes: dict[str, Sequence[int]] | None,
    pass_context: PassContext | None,
    target: str | Target | None = None,
    jit: bool = True,
) -> CompiledModel:
    target_names = parse_targets(targets) if targets else []
    module = model.clone() if isinstance(model, ModuleOp) else from_onnx(model, input_shapes)
    graph = _main(module)
    require_bindable_sizes(graph)
    assumptions = [Assumption(*a) for a in assumptions_of(graph.attributes.get(ASSUME_ATTR))]
    inputs, outputs = _specs(graph, False), _specs(graph, True)
    for spec in (*inputs, *outputs):  # before lowering allocates anything
        check_size(f"@main's tensor '{spec.name}'", spec.shape, spec.dtype.itemsize)
    types = resource_types(module)
    pctx = pass_context if pass_context is not None else PassContext(opt_level=opt_level)
    if target is not None:
        pctx = pctx.replace(target=target)
    pctx = _with_byoc_targets(pctx, target_names, num_threads)
    run_pipeline(module, DefaultPipeline.name, pctx, mlir_ctx=context())
    entry = read_entry(module)
    params = param_arrays(entry.params, types)
    check_size("the compiled model's workspace", [entry.workspace_size], 1, error=CompileError)
    if target_names:  # BYOC: load the external code, configure the targets
        load_external(module, target_names, num_threads)
    # Code for another machine is not loaded here: it is exported and run there.
    lowered_for = module_target(module)
    native = jit_compile(module, opt_level=opt_level) if jit and lowered_for.is_host else None
    record = ModelRecord(tuple(inputs), tuple(outputs), entry, tuple(assumptions))
    return CompiledModel(
        record, native, params, num_threads=num_threads,
        exporter=ModuleExporter(module, opt_level), target=str(lowered_for),
    )


__all__ = ["compile", "param_arrays", "resource_types"]
