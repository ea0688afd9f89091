"""The tunable sites of a kernel, and the dispatch context that applies tuned
knobs to them (TVM's `ApplyHistoryBest`).

A site is a compute of a `te.func` that `lower-te-to-tir` materializes, with
the template call that schedules it: the call logged while the kernel was built
when the compute carries that call's schedule (`gemm`, `window`,
`conv_nchwc`), else the compute's default class (`injective`, `reduction`).
Sites are numbered by the compute's position among the kernel's computes, so a
record names its site by a number that the same kernel always gives again.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import StringAttr

from lamina.dialects import te
from lamina.errors import LaminaError
from lamina.lowering.lang.schedule import SCHEDULE_ATTR
from lamina.lowering.strategy.cpu import hinted
from lamina.lowering.strategy.defaults import default_call
from lamina.lowering.strategy.dispatch import Implementation, TemplateCall
from lamina.lowering.strategy.knobs import Knobs


@dataclass(frozen=True)
class Site:
    """One materialized compute of a kernel and the template call scheduling it."""

    index: int
    compute: te.ComputeOp
    call: TemplateCall[Any]

    @property
    def work(self) -> int:
        """Its loop nest's iterations: output points x reduce points."""
        reduce = hinted(self.compute.reduce_shape) if self.compute.reduce is not None else ()
        return math.prod(hinted(self.compute.extents)) * math.prod(reduce)


def kernel_sites(kernel: te.FuncOp, calls: list[TemplateCall[Any]]) -> list[Site]:
    """The tunable sites of `kernel`, given the template calls logged while it
    was built. A compute whose schedule no logged call gave (a hand-written one,
    another strategy's) is not a site."""
    outputs = set(kernel.output.values)
    unused = list(calls)
    sites: list[Site] = []
    computes = [op for op in kernel.body.block.ops if isinstance(op, te.ComputeOp)]
    for index, op in enumerate(computes):
        attr = op.attributes.get(SCHEDULE_ATTR)
        if isinstance(attr, StringAttr):
            call = next((c for c in unused if str(c.render()) == attr.data), None)
            if call is None:
                continue
            unused.remove(call)
            sites.append(Site(index, op, call))
        elif op.reduce is not None or op.result in outputs:
            sites.append(Site(index, op, default_call(op)))
    return sites


def anchor(sites: list[Site]) -> Site | None:
    """The site with the most work (the first of equals): the one a kernel's
    tuning searches (AutoTVM's anchor op)."""
    return max(sites, key=lambda s: s.work, default=None)


def reschedule(site: Site, knobs: Knobs) -> None:
    """Give `site`'s compute the schedule `knobs` make of its template."""
    site.compute.attributes[SCHEDULE_ATTR] = StringAttr(str(site.call.render(knobs)))


@dataclass(frozen=True)
class Choice:
    """A tuned kernel's knobs: for its site `site` (scheduled by `template`),
    the knobs as a JSON object."""

    site: int
    template: str
    knobs: Mapping[str, Any]


@dataclass
class ApplyBest:
    """The dispatch context of a compile with tuning records: each kernel whose
    workload has a choice gets its knobs at that site; a choice that does not
    fit its kernel (another template there, knobs outside its space: a record
    from an older lamina) is left out, with a note."""

    choices: Mapping[str, Choice]
    #: The workloads whose kernels got their tuned knobs (and the graph
    #: workloads given their implementation).
    applied: set[str] = field(default_factory=set)
    #: What was left out, and why.
    notes: list[str] = field(default_factory=list)
    #: The implementation of each graph workload that has a faster one than
    #: its default (`conv2d-winograd`'s convolutions).
    implementations: Mapping[str, Implementation] = field(default_factory=dict)

    def implementation(self, workload: str) -> Implementation | None:
        impl = self.implementations.get(workload)
        if impl is not None:
            self.applied.add(workload)
        return impl

    def kernel_built(self, kernel: te.FuncOp, workload: str, calls: list[TemplateCall[Any]]) -> None:
        choice = self.choices.get(workload)
        if choice is None:
            return
        name = kernel.sym_name.data
        site = next((s for s in kernel_sites(kernel, calls) if s.index == choice.site), None)
        if site is None or site.call.name != choice.template:
            found = f"a {site.call.name} site" if site is not None else "no such site"
            self.notes.append(
                f"kernel {name} (workload {workload}): the record tunes a {choice.template} "
                f"at site {choice.site}, the kernel has {found}; default schedule kept"
            )
            return
        try:
            knobs = site.call.knobs.from_json(choice.knobs)
        except LaminaError as e:
            self.notes.append(f"kernel {name} (workload {workload}): bad knobs in the record: {e}")
            return
        why = site.call.space().check(knobs)
        if why is not None:
            self.notes.append(f"kernel {name} (workload {workload}): knobs {knobs} rejected: {why}")
            return
        reschedule(site, knobs)
        self.applied.add(workload)


__all__ = ["SCHEDULE_ATTR", "ApplyBest", "Choice", "Site", "anchor", "kernel_sites", "reschedule"]
