"""Tasks: the unique kernels of a model, each with what tuning it needs.

`extract_tasks` runs the graph optimizations and `lower-relay-to-te` that
`lamina.compile` runs (the pipelines `optimize` and `lower-relay-to-te`, by
name) under a dispatch context that sees every kernel as it is built (TVM's
task extraction). A task is one workload (`workload_key`: the kernel's text
without its name and schedules), weighted by how many times the model calls
it, and tunes its anchor site (the materialized compute with the most work)
over the knobs of the template that schedules it. Kernels over symbolic sizes
are not tasks (their sizes are only known at run time).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import onnx
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType

from lamina.dialects import te
from lamina.dialects.resources import blobs
from lamina.dialects.shapes import is_symbolic
from lamina.dialects.te import ReduceKind
from lamina.errors import LaminaError
from lamina.frontends.onnx import from_onnx
from lamina.ir import context, print_ir
from lamina.lowering.schedule import Schedule
from lamina.lowering.strategy import dispatch
from lamina.lowering.strategy.cpu import hinted
from lamina.lowering.strategy.dispatch import TemplateCall
from lamina.lowering.strategy.knobs import Knobs, Space
from lamina.lowering.strategy.sites import SCHEDULE_ATTR, Site, anchor, kernel_sites
from lamina.passes import PassContext, run_pipeline

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


@dataclass
class TaskExtraction:
    """The dispatch context of task extraction: one task per workload, its
    weight counted over the kernels built."""

    tasks: dict[str, Task] = field(default_factory=dict)
    #: Kernels left out, and why (symbolic sizes, nothing to tune).
    skipped: list[str] = field(default_factory=list)

    def kernel_built(self, kernel: te.FuncOp, workload: str, calls: list[TemplateCall[Any]]) -> None:
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


def extract_tasks(
    model: str | os.PathLike[str] | onnx.ModelProto | ModuleOp,
    input_shapes: dict[str, Sequence[int]] | None = None,
    opt_level: int = 3,
) -> list[Task]:
    """The tasks of an ONNX model (path or ModelProto) or a graph-level module,
    heaviest first (weight x flops), as `lamina.compile` at `opt_level` would
    build its kernels."""
    with blobs.recording() as created:
        try:
            module = model.clone() if isinstance(model, ModuleOp) else from_onnx(model, input_shapes)
            extraction = TaskExtraction()
            ctx = PassContext(opt_level=opt_level)
            with dispatch.using(extraction):
                run_pipeline(module, ["optimize", "lower-relay-to-te"], ctx, mlir_ctx=context())
        finally:
            blobs.release(created)
    tasks = list(extraction.tasks.values())
    if not tasks:
        raise LaminaError(
            "the model has no kernel to tune (every kernel is over symbolic sizes or "
            "an extern kernel); fix symbolic sizes with input_shapes="
        )
    return sorted(tasks, key=lambda t: -t.weight * t.flops)


__all__ = ["KERNEL", "Task", "TaskExtraction", "extract_tasks", "standalone"]
