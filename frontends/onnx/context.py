"""What a converter sees: `NodeContext`, one ONNX node's inputs as SSA values,
its attributes and the model's opset, and the block the converter emits relay ops
into. Also the small helpers the importer and the converters share: `shape` of a
value, `constant` (a weight as a blob-backed `relay.constant`) and
`describe_node`, the "ONNX node 'n' (Op, opset k)" prefix of every error.

This module is the bottom of the frontend: it imports nothing else of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from xdsl.dialects.builtin import DenseResourceAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import element_type
from lamina.dialects.resources import blobs
from lamina.dialects.shapes import dims_attr
from lamina.errors import FrontendError, UnsupportedOpError
from lamina.symbolic import Dim, Sym, SymbolicError


@dataclass
class NodeContext:
    """What a converter sees: the node, its inputs and a way to emit ops."""

    node: onnx.NodeProto
    inputs: list[SSAValue | None]
    opset: int
    block: Block
    constants: dict[SSAValue, np.ndarray] = field(default_factory=dict)
    #: The ONNX names of the graph's inputs (the block's arguments).
    graph_inputs: dict[SSAValue, str] = field(default_factory=dict)
    #: What converters assume of the symbolic sizes (`expr <= limit`, and why),
    #: checked when the model runs: shared by every node of the graph.
    assumptions: list[tuple[Dim, int, str]] = field(default_factory=list)
    #: The size names in use (the inputs' and the data-dependent ones so far).
    sizes: set[str] = field(default_factory=set)
    #: The values visible at this node, by ONNX name (a subgraph reads them).
    scope: dict[str, SSAValue] = field(default_factory=dict)
    #: The importer converting this graph (`importer.GraphImporter`), which
    #: converts the node's subgraphs: `ctx.importer.body(...)`.
    importer: Any = None
    #: The node's position in its graph (None: not from a graph's node list).
    index: int | None = None

    def fresh_size(self, hint: str) -> str:
        """A new size name for a data-dependent size, after `hint`."""
        base = re.sub(r"\W", "_", hint).strip("_") or "size"
        base = base if not base[0].isdigit() else f"n_{base}"
        name, k = base, 1
        while name in self.sizes:
            name, k = f"{base}_{k}", k + 1
        self.sizes.add(name)
        return name

    def assume(self, expr: Dim, limit: int, why: str) -> None:
        """Assume `expr <= limit` (decided now if it can be, else at run time)."""
        try:
            if expr <= limit:
                return
        except SymbolicError:
            self.assumptions.append((expr, limit, f"{self.where()} {why}"))
            return
        raise self.error(f"{why}, but {expr} > {limit}")

    def emit(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def emit_all(self, op: Operation) -> list[SSAValue]:
        """Emit a multi-result op; its results."""
        self.block.add_op(op)
        return list(op.results)

    def attr(self, name: str, default: Any = None) -> Any:
        for a in self.node.attribute:
            if a.name == name:
                value = onnx.helper.get_attribute_value(a)
                return value.decode() if isinstance(value, bytes) else value
        return default

    def has_attr(self, name: str) -> bool:
        return any(a.name == name for a in self.node.attribute)

    def input(self, i: int) -> SSAValue:
        if i >= len(self.inputs) or self.inputs[i] is None:
            raise self.error(f"input #{i} is required")
        v = self.inputs[i]
        assert v is not None
        return v

    def optional_input(self, i: int) -> SSAValue | None:
        return self.inputs[i] if i < len(self.inputs) else None

    def is_const(self, i: int) -> bool:
        v = self.optional_input(i)
        return v is not None and v in self.constants

    def const_value(self, i: int) -> np.ndarray:
        """The value of input `i`, which must be a constant (e.g. a shape)."""
        v = self.input(i)
        if v in self.constants:
            return self.constants[v]
        sources = self.graph_inputs_of(v)
        if not sources or sources == [self.node.input[i]]:
            raise self.error(
                f"input #{i} ('{self.node.input[i]}') must be a constant: lamina reads "
                "its value while compiling (make it an initializer)"
            )
        # Computed from graph inputs: those are what must be given as constants.
        names = list(self.graph_inputs.values())
        first, rest = sources[0], [f"'{n}'" for n in sources[1:]]
        also = f" (and so must {', '.join(rest)})" if rest else ""
        raise self.error(
            f"graph input #{names.index(first)} ('{first}') must be a constant{also}: "
            f"input #{i} ('{self.node.input[i]}') of this node is computed from it, "
            "and lamina reads its value while compiling (make it an initializer)"
        )

    def graph_inputs_of(self, v: SSAValue) -> list[str]:
        """The graph inputs that `v` is computed from, in graph order."""
        seen: set[SSAValue] = set()
        stack, found = [v], set()
        while stack:
            u = stack.pop()
            if u in seen:
                continue
            seen.add(u)
            if u in self.graph_inputs:
                found.add(u)
            elif isinstance(u.owner, Operation):
                stack.extend(u.owner.operands)
        return [name for a, name in self.graph_inputs.items() if a in found]

    def known_element(self, v: SSAValue, i: int) -> Dim | None:
        """Element `i` (flat) of the run-time integer `v` as a dim, when it is a
        constant or a size some op set from the same value before (the
        importer's `known_sizes`); None when only the run knows it."""
        return None if self.importer is None else self.importer.known_element(v, i, self.block)

    def at_run_time(self, i: int) -> bool:
        """Whether input `i`, read as structure (a shape, axes, a count), is
        given only when the model runs, so that the converter computes its
        ONNX rules then (`runtime_shapes`). When the import allows no such
        inputs (`from_onnx(..., run_time_values=False)`), it raises the
        "must be a constant" error naming the input instead."""
        v = self.optional_input(i)
        if v is None or v in self.constants:
            return False
        if self.importer is not None and not self.importer.run_time_values:
            self.const_value(i)  # raises
        return True

    def optional_const(self, i: int) -> np.ndarray | None:
        """The constant value of optional input `i`, None when it is absent."""
        return None if self.optional_input(i) is None else self.const_value(i)

    def constant(self, value: np.ndarray | Any, name: str = "cst") -> SSAValue:
        """Emit `value` as a `relay.constant` (tracked as a known constant)."""
        return constant(self, self.block, np.asarray(value), name)

    @property
    def num_outputs(self) -> int:
        """How many outputs the node declares (unused trailing ones included)."""
        return len(self.node.output)

    def output_used(self, i: int) -> bool:
        return i < len(self.node.output) and bool(self.node.output[i])

    def only_first_output(self) -> None:
        """Refuse a node that asks for any output but the first."""
        for i in range(1, len(self.node.output)):
            if self.node.output[i]:
                raise self.unsupported(
                    f"output #{i} ('{self.node.output[i]}') is not supported; only "
                    "the first output can be computed"
                )

    def error(self, message: str) -> FrontendError:
        return FrontendError(f"{self.where()}: {message}")

    def unsupported(self, message: str) -> UnsupportedOpError:
        return UnsupportedOpError(f"{self.where()}: {message}")

    def where(self) -> str:
        """The node, for a message: `describe_node`'s with its index."""
        return describe_node(self.node, self.opset, self.index)


def describe_node(node: onnx.NodeProto, opset: int | None, index: int | None = None) -> str:
    """The node as messages name it: `ONNX node 'name' (Op, opset k)`; an
    unnamed one by its index in its graph and its first output."""
    what = node.op_type if opset is None else f"{node.op_type}, opset {opset}"
    if node.name:
        return f"ONNX node '{node.name}' ({what})"
    where = [f" #{index}"] if index is not None else []
    if node.output and node.output[0]:
        where.append(f" writing '{node.output[0]}'")
    return f"unnamed ONNX node{''.join(where)} ({what})"


def shape(v: SSAValue) -> tuple[Dim, ...]:
    """`v`'s shape, symbolic dims as expressions."""
    return relay.shape_of(v.type)


def constant(ctx: NodeContext | None, block: Block, arr: np.ndarray, name: str) -> SSAValue:
    """Emit a weight as a `relay.constant` backed by a blob; an integer array
    holding symbolic dims (a folded shape computation) as a `relay.dims`."""
    if arr.dtype == object:
        return _dims(ctx, block, arr, name)
    t = TensorType(element_type(arr.dtype), arr.shape)
    key = blobs.add(name, arr)
    op = relay.ConstantOp(DenseResourceAttr.from_params(key, t))
    block.add_op(op)
    if ctx is not None:
        ctx.constants[op.output] = arr
    return op.output


def _dims(ctx: NodeContext | None, block: Block, arr: np.ndarray, name: str) -> SSAValue:
    flat = [d if isinstance(d, Sym) else int(d) for d in arr.reshape(-1)]
    if not any(isinstance(d, Sym) for d in flat):
        return constant(ctx, block, np.array(flat, np.int64).reshape(arr.shape), name)
    op: Operation = relay.DimsOp(dims=dims_attr(flat))
    block.add_op(op)
    if arr.shape != (len(flat),):
        op = relay.ReshapeOp(op.results[0], shape=dims_attr(arr.shape))
        block.add_op(op)
    if ctx is not None:
        ctx.constants[op.results[0]] = arr
    return op.results[0]


__all__ = ["NodeContext", "constant", "describe_node", "shape"]
