"""Checks on an ONNX model before lamina imports it: versions, graph structure and a
memory budget, so a bad or hostile model fails with one clear `FrontendError`
before anything is allocated.

The budget (`lamina.limits`: `LAMINA_MEMORY_BUDGET`, bytes with an optional K/M/G/T
suffix; default 16 GiB or half the machine's memory) bounds every single tensor
lamina would hold: graph inputs, initializers (checked on their
declared dimensions, before external data is read), and every intermediate whose
shape ONNX shape inference or the importer knows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import onnx

from lamina import limits
from lamina.errors import FrontendError, LaminaError
from lamina.frontends.onnx.context import describe_node

DEFAULT_BUDGET = limits.DEFAULT_BUDGET
#: The oldest ONNX IR version lamina reads (opset imports appeared in IR version 3).
MIN_IR_VERSION = 3


def memory_budget() -> int:
    """The per-tensor memory budget (`lamina.limits`), as a `FrontendError`."""
    try:
        return limits.memory_budget()
    except LaminaError as e:
        raise FrontendError(str(e)) from None


def check_size(
    what: str, shape: Sequence[int], itemsize: int, budget: int | None = None
) -> None:
    """`lamina.limits.check_size`, raising `FrontendError`."""
    limits.check_size(
        what, shape, itemsize, memory_budget() if budget is None else budget, FrontendError
    )


def np_dtype(elem_type: int, what: str) -> np.dtype:
    """The numpy dtype of an ONNX element type, or a `FrontendError` naming `what`."""
    try:
        return np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type))
    except (KeyError, ValueError, TypeError):
        name = onnx.TensorProto.DataType.Name(elem_type) if elem_type in (
            onnx.TensorProto.DataType.values()
        ) else str(elem_type)
        raise FrontendError(
            f"{what} has element type {name}, which lamina cannot read"
        ) from None


def check_model(proto: onnx.ModelProto) -> None:
    """Versions, outputs and initializers (declared sizes against the budget);
    run before external data is loaded."""
    newest_ir = onnx.IR_VERSION
    if proto.ir_version < MIN_IR_VERSION or proto.ir_version > newest_ir:
        hint = " (a truncated or corrupt file?)" if proto.ir_version == 0 else ""
        raise FrontendError(
            f"the model's ONNX IR version is {proto.ir_version}{hint}; lamina reads IR "
            f"versions {MIN_IR_VERSION} to {newest_ir} (onnx {onnx.__version__}); "
            "re-export the model with a supported IR version"
        )
    newest_opset = onnx.defs.onnx_opset_version()
    default = [o for o in proto.opset_import if o.domain in ("", "ai.onnx")]
    if not default and any(n.domain in ("", "ai.onnx") for n in proto.graph.node):
        raise FrontendError(
            "the model imports no opset for the default ONNX domain but uses its ops; "
            "add an opset_import (e.g. version 17)"
        )
    for o in default:
        if not 1 <= o.version <= newest_opset:
            raise FrontendError(
                f"the model imports default-domain opset {o.version}; lamina reads "
                f"opsets 1 to {newest_opset} (onnx {onnx.__version__}); convert the "
                "model with onnx.version_converter"
            )
    graph = proto.graph
    _check_attributes(graph.node)
    if not graph.output:
        raise FrontendError(
            f"graph '{graph.name}' has no outputs (a truncated or corrupt file?); an "
            "ONNX model must declare at least one output"
        )
    budget = memory_budget()
    for t in graph.initializer:
        what = f"initializer '{t.name}'"
        dtype = np_dtype(t.data_type, what)
        check_size(what, list(t.dims), dtype.itemsize, budget)
        # (its data's size is checked as it is read, `tensor_to_array`: reading
        # `raw_data` copies it, 0.1 s for BERT's weights)


#: Attributes whose values index axes or count outputs: beyond 32 bits they cannot
#: be valid, and onnx's C++ shape inference crashes on some (LayerNormalization's
#: `axis` = 2**31 is a segmentation fault), so they are refused before it runs.
_SMALL_INT_ATTRIBUTES = frozenset({"axis", "axes", "num_outputs", "perm", "group"})


def _check_attributes(nodes: Iterable[onnx.NodeProto]) -> None:
    for node in nodes:
        for a in node.attribute:
            if a.name not in _SMALL_INT_ATTRIBUTES:
                continue
            values = [a.i] if a.type == onnx.AttributeProto.INT else list(a.ints)
            bad = [v for v in values if not -(1 << 31) <= v < 1 << 31]
            if bad:
                raise FrontendError(
                    f"{_where(node)}: attribute {a.name} = {bad[0]} is out of range; "
                    "fix the model's attribute"
                )
            # Shape inference aborts (a failed C++ assertion) when these disagree.
            if a.name == "num_outputs" and values and values[0] != len(node.output):
                raise FrontendError(
                    f"{_where(node)}: num_outputs is {values[0]} but the node has "
                    f"{len(node.output)} output(s); they must agree"
                )


def _where(node: onnx.NodeProto) -> str:
    return describe_node(node, None)


def implicit_inputs(node: onnx.NodeProto) -> list[str]:
    """The outer-scope names `node`'s subgraphs (If/Loop/Scan bodies) read, in
    order of first use."""
    names: list[str] = []
    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            graphs = [a.g]
        elif a.type == onnx.AttributeProto.GRAPHS:
            graphs = list(a.graphs)
        else:
            continue
        for g in graphs:
            inner = {i.name for i in g.input} | {t.name for t in g.initializer}
            inner |= {o for n in g.node for o in n.output}
            used = [x for n in g.node for x in (*n.input, *implicit_inputs(n))]
            used += [o.name for o in g.output]
            names += [x for x in used if x and x not in inner and x not in names]
    return names


def topological_order(
    nodes: Sequence[onnx.NodeProto], available: Iterable[str]
) -> list[onnx.NodeProto]:
    """`nodes` in an order where every input is defined before use (ONNX requires
    topological order; unsorted graphs are sorted). Undefined inputs - missing
    initializers or graph inputs - are all listed at once, and a cycle is reported
    with the nodes on it."""
    defined = set(available) | {""}
    producer: dict[str, int] = {}
    for i, n in enumerate(nodes):
        for o in n.output:
            if o:
                producer.setdefault(o, i)
    inputs = [[*n.input, *implicit_inputs(n)] for n in nodes]
    undefined = [
        f"'{name}' (input of {_where(n)})"
        for n, names in zip(nodes, inputs, strict=True)
        for name in names
        if name not in defined and name not in producer
    ]
    if undefined:
        raise FrontendError(
            f"{len(undefined)} value(s) are used but never defined by a graph input, "
            f"an initializer or a node: {'; '.join(undefined)}; add the missing "
            "initializers or inputs"
        )
    deps = [
        {producer[x] for x in names if x and x not in defined and x in producer}
        for names in inputs
    ]
    if all(d < i for i, ds in enumerate(deps) for d in ds):
        return list(nodes)
    users: list[list[int]] = [[] for _ in nodes]
    pending = [len(ds) for ds in deps]
    for i, ds in enumerate(deps):
        for d in ds:
            users[d].append(i)
    ready = [i for i, p in enumerate(pending) if p == 0]
    order: list[int] = []
    while ready:
        i = ready.pop(0)
        order.append(i)
        for u in users[i]:
            pending[u] -= 1
            if pending[u] == 0:
                ready.append(u)
    if len(order) < len(nodes):
        stuck = [i for i, p in enumerate(pending) if p > 0]
        cycle = _find_cycle(stuck, deps)
        path = " -> ".join(_where(nodes[i]) for i in cycle)
        raise FrontendError(
            f"the graph has a cycle: {path}; ONNX graphs must be acyclic (loops "
            "belong in a Loop node)"
        )
    return [nodes[i] for i in order]


def _find_cycle(stuck: list[int], deps: list[set[int]]) -> list[int]:
    """One cycle among the `stuck` nodes, as node indices (first repeated last)."""
    stuck_set = set(stuck)
    i, seen, path = stuck[0], {}, []
    while i not in seen:
        seen[i] = len(path)
        path.append(i)
        i = next(d for d in sorted(deps[i]) if d in stuck_set)
    cycle = path[seen[i] :]
    return [*reversed(cycle), cycle[-1]]


__all__ = [
    "DEFAULT_BUDGET",
    "check_model",
    "check_size",
    "memory_budget",
    "np_dtype",
    "topological_order",
]
