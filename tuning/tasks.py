"""Tasks: the unique kernels of a model, each with what tuning it needs.

`extract_tasks` runs the graph optimizations and `lower-relay-to-te` that
`lamina.compile` runs (the pipelines `optimize` and `lower-relay-to-te`, by
name) under a dispatch context that sees every kernel as it is built (TVM's
task extraction). A task is one workload (`workload_key`: the kernel's text
without its name and schedules), weighted by how many times the model calls
it, and tunes its anchor site (the materialized compute with the most work)
over the knobs of the template that schedules it. Kernels over symbolic sizes
are not tasks (their sizes are only known at run time).

A graph op with several implementations (a 3x3 convolution: direct, or
Winograd's F(m x m, 3 x 3) for each tile size `m`, `conv2d-winograd`) has the
kernels of each as tasks: `extract` builds the model once per implementation
(every eligible op given that one, each op's kernels marked with its origin)
and lists, per op workload and implementation, the kernels it calls
(`OpImplementation`). A compile then gives each op the implementation whose
kernels' best times sum to the least (TVM's choice among an op strategy's
implementations by their best records).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import onnx
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Operation

from lamina.dialects import relay, te
from lamina.dialects.resources import blobs
from lamina.dialects.shapes import is_symbolic
from lamina.dialects.te import ReduceKind
from lamina.errors import LaminaError
from lamina.frontends.onnx import from_onnx
from lamina.ir import context, print_ir
from lamina.lowering.lang.schedule import Schedule
from lamina.lowering.strategy import dispatch
from lamina.lowering.strategy.cpu import hinted
from lamina.lowering.strategy.dispatch import ORIGIN_ATTR, Implementation, TemplateCall
from lamina.lowering.strategy.knobs import Knobs, Space
from lamina.lowering.strategy.registry import op_implementations
from lamina.lowering.strategy.sites import SCHEDULE_ATTR, Site, anchor, kernel_sites
from lamina.passes import PassContext, run_pipeline
from lamina.pipelines import OptimizePipeline
from lamina.transforms.graph.conv2d_winograd import ORIGINS

#: The kernel's name in a task's standalone module.
KERNEL = "kernel"


@dataclass
class Task:
    """One kernel to tune: its workload hash, its name in the model, the
    standalone module that calls it (te level: `@main` calls `@kernel` on its
    inputs), its anchor site and the template call scheduling it, the calls per
    inference (`weight`), the flops of one call, and the anchor's extents,
    reduce extents and element bits."""

    workload: str
    name: str
    module: ModuleOp
    site: int
    call: TemplateCall[Any]
    weight: int
    flops: int
    extents: tuple[int, ...]
    reduce_extents: tuple[int, ...]
    elem_bits: int

    @property
    def template(self) -> str:
        return self.call.name

    def space(self) -> Space[Any]:
        return self.call.space()

    def default(self) -> Knobs:
        return self.call.default()  # type: ignore[no-any-return]

    def schedule(self, knobs: Knobs | None = None) -> Schedule:
        """The anchor's schedule for `knobs` (default: the host's)."""
        return self.call.render(knobs)

    def text(self, knobs: Knobs | None = None) -> str:
        """The standalone module with the anchor scheduled by `knobs`, as text
        (what a worker builds and times)."""
        module = self.module.clone()
        computes = [op for op in module.walk() if isinstance(op, te.ComputeOp)]
        computes[self.site].attributes[SCHEDULE_ATTR] = StringAttr(str(self.schedule(knobs)))
        return print_ir(module, resources_limit=None)


def standalone(kernel: te.FuncOp) -> ModuleOp:
    """A te-level module whose `@main` calls (a copy of) `kernel` on its inputs
    and returns its outputs: the kernel alone, compilable by the lowering."""
    copy = kernel.clone()
    copy.sym_name = StringAttr(KERNEL)
    ins = [p.result.type for p in copy.placeholders]
    outs = [v.type for v in copy.output.values]
    main = func.FuncOp("main", (ins, outs))
    block = main.body.block
    call = te.CallOp(KERNEL, list(block.args), outs)
    block.add_ops([call, func.ReturnOp(*call.results)])
    return ModuleOp([main, copy])


def _flops(sites: Sequence[Site]) -> int:
    """Work of one call: a multiply-add of a sum reduction counts two flops,
    any other point one."""
    return sum(
        s.work * (2 if s.compute.reduce is not None and s.compute.reduce.data == ReduceKind.SUM else 1)
        for s in sites
    )


def _static(kernel: te.FuncOp) -> bool:
    types = [p.result.type for p in kernel.placeholders] + [v.type for v in kernel.output.values]
    return all(isinstance(t, TensorType) and not is_symbolic(t) for t in types)


@dataclass(frozen=True)
class KernelCall:
    """One kernel call of a build: the kernel's workload and, when it belongs
    to a graph op with several implementations, that op's workload (`origin`)."""

    workload: str
    origin: str | None = None


@dataclass(frozen=True)
class OpImplementation:
    """One implementation of a graph op of the model: the op's workload and
    description, the implementation, and the workloads of the kernels it calls
    (one per call, over every instance of the op in the model)."""

    workload: str
    op: str
    implementation: Implementation
    kernels: tuple[str, ...]


def _origin(op: Operation | None) -> tuple[str, str] | None:
    """The (workload, description) of the graph op a kernel's source was made
    from (the first marked op in it), if any."""
    for inner in op.walk() if op is not None else ():
        attr = inner.attributes.get(ORIGIN_ATTR)
        if isinstance(attr, StringAttr):
            key, _, text = attr.data.partition(" ")
            return key, text
    return None


@dataclass
class TaskExtraction:
    """The dispatch context of task extraction: one task per workload, its
    weight counted over the kernels built, and every call in order."""

    tasks: dict[str, Task] = field(default_factory=dict)
    #: Kernels left out, and why (symbolic sizes, nothing to tune).
    skipped: list[str] = field(default_factory=list)
    #: Every kernel built, in the order the model calls them.
    calls: list[KernelCall] = field(default_factory=list)
    #: The description of each origin seen.
    ops: dict[str, str] = field(default_factory=dict)

    def implementation(self, workload: str) -> Implementation | None:
        return None  # (the extraction's pass config says which)

    def kernel_built(self, kernel: te.FuncOp, workload: str, calls: list[TemplateCall[Any]]) -> None:
        origin = _origin(dispatch.source())
        if origin is not None:
            self.ops[origin[0]] = origin[1]
        self.calls.append(KernelCall(workload, origin[0] if origin is not None else None))
        if workload in self.tasks:
            self.tasks[workload].weight += 1
            return
        name = kernel.sym_name.data
        if not _static(kernel):
            self.skipped.append(f"{name}: symbolic sizes")
            return
        sites = kernel_sites(kernel, calls)
        best = anchor(sites)
        if best is None:
            self.skipped.append(f"{name}: no materialized compute to schedule")
            return
        op = best.compute
        elem = op.result.type.get_element_type()  # type: ignore[union-attr]
        bits = max(getattr(elem, "bitwidth", 32) or 32, 8)
        reduce = hinted(op.reduce_shape) if op.reduce is not None else ()
        self.tasks[workload] = Task(
            workload, name, standalone(kernel), best.index, best.call, 1, _flops(sites),
            hinted(op.extents), reduce, bits,
        )


@dataclass
class Extraction:
    """A model's tasks (heaviest first), the kernel calls of its default build
    and the implementations of its graph ops that have several."""

    tasks: list[Task]
    calls: list[KernelCall]
    implementations: list[OpImplementation]


def _build(module: ModuleOp, opt_level: int, config: dict[str, Any]) -> TaskExtraction:
    """The kernels of `module` as a compile at `opt_level` builds them, with the
    pass configuration `config` (an implementation's variant: every eligible
    op built that way)."""
    extraction = TaskExtraction()
    ctx = PassContext(opt_level=opt_level, config={ORIGINS.key: True, **config})
    with dispatch.using(extraction):
        run_pipeline(module, [OptimizePipeline.name, "lower-relay-to-te"], ctx, mlir_ctx=context())
    return extraction


def extract(
    model: str | os.PathLike[str] | onnx.ModelProto | ModuleOp,
    input_shapes: dict[str, Sequence[int]] | None = None,
    opt_level: int = 3,
) -> Extraction:
    """The tasks of an ONNX model (path or ModelProto) or a graph-level module
    as `lamina.compile` at `opt_level` would build its kernels, in every
    implementation of its graph ops that have several (see the module's
    docstring)."""
    # A convolution's implementations from the strategy registry, the default
    # first (the one graph op with several: `conv2d-winograd` marks the ops
    # each builds with their origin).
    default_impl, *others = op_implementations(relay.Conv2DOp.name)
    with blobs.recording() as created:
        try:
            module = model.clone() if isinstance(model, ModuleOp) else from_onnx(model, input_shapes)
            default = _build(module.clone(), opt_level, default_impl.config(()))
            variants = {Implementation(default_impl.name): default}
            if default.ops:  # (ops with other implementations)
                for impl in others:
                    for knobs in impl.variants:
                        build = _build(module.clone(), opt_level, impl.config(knobs))
                        variants[Implementation(impl.name, knobs)] = build
        finally:
            blobs.release(created)
    tasks = dict(default.tasks)
    for build in variants.values():
        for workload, task in build.tasks.items():
            tasks.setdefault(workload, task)
    if not tasks:
        raise LaminaError(
            "the model has no kernel to tune (every kernel is over symbolic sizes or "
            "an extern kernel); fix symbolic sizes with input_shapes="
        )
    implementations = [
        OpImplementation(key, text, impl, tuple(c.workload for c in build.calls if c.origin == key))
        for key, text in default.ops.items()
        for impl, build in variants.items()
    ]
    ordered = sorted(tasks.values(), key=lambda t: -t.weight * t.flops)
    return Extraction(ordered, default.calls, implementations)


def extract_tasks(
    model: str | os.PathLike[str] | onnx.ModelProto | ModuleOp,
    input_shapes: dict[str, Sequence[int]] | None = None,
    opt_level: int = 3,
) -> list[Task]:
    """The tasks of an ONNX model (path or ModelProto) or a graph-level module,
    heaviest first (weight x flops), as `lamina.compile` at `opt_level` would
    build its kernels, those of every implementation included (`extract`)."""
    return extract(model, input_shapes, opt_level).tasks


__all__ = [
    "KERNEL",
    "Extraction",
    "KernelCall",
    "OpImplementation",
    "Task",
    "TaskExtraction",
    "extract",
    "extract_tasks",
    "standalone",
]
