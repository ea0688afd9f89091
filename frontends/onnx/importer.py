"""The ONNX importer: an ONNX model becomes a graph-level (relay) module.

Each ONNX node is converted by the function registered for its op type in
`CONVERTERS` (`@converter("Gemm")` in the converter modules of this package, or
a plugin's entry point in the group `lamina.onnx_converters`), which receives a
`NodeContext` with the node's inputs as SSA values, its attributes and the model's
opset, and returns the SSA values of its outputs. Initializers become
`relay.constant dense_resource<...>` weights that share memory with the model (no
copy when the tensor holds raw data).

Shapes are static, so shape computations fold away while importing: a node whose
inputs are all constants (initializers, `Constant`s, `Shape`s of static tensors,
...) is evaluated by `onnx.reference` and becomes a constant (`folding`). ONNX
shape inference runs first; every converted value is checked against the shape
and element type it infers, so a converter bug is reported at its node
(`inference`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ModuleOp,
    TensorType,
)
from xdsl.ir import Block, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from lamina.dialects import relay
from lamina.dialects.dtypes import element_type
from lamina.dialects.shapes import Assumption
from lamina.errors import FrontendError, LaminaError, UnsupportedOpError
from lamina.frontends.common import graph_module
from lamina.frontends.onnx.checks import (
    check_model,
    check_size,
    implicit_inputs,
    np_dtype,
    topological_order,
)
from lamina.frontends.onnx.context import NodeContext, constant, describe_node, shape
from lamina.frontends.onnx.folding import fold
from lamina.frontends.onnx.inference import Inferred, as_inferred
from lamina.frontends.onnx.known_sizes import KnownSizes
from lamina.frontends.onnx.registry import (
    find_converter,
    has_converter,
    unsupported_summary,
)
from lamina.symbolic import Dim, Sym, names_of


def load_model(model: Any) -> onnx.ModelProto:
    """Load a model and check it (versions, structure, declared sizes against the
    memory budget) before reading its external data. `lamina.quantize`'s
    `QuantizedModel` is read as its QDQ `.model`."""
    model = unwrap_model(model)
    if isinstance(model, onnx.ModelProto):
        check_model(model)
        return model
    if isinstance(model, bytes | bytearray):
        proto = onnx.ModelProto()
        try:
            proto.ParseFromString(bytes(model))
        except Exception as e:  # protobuf's DecodeError
            raise FrontendError(
                f"cannot read the ONNX model from {len(model)} bytes: not a valid ONNX "
                f"protobuf ({type(e).__name__}: {e})"
            ) from None
        check_model(proto)
        return proto
    if not isinstance(model, str | os.PathLike):
        raise FrontendError(
            f"expected an ONNX model as a path, bytes, an onnx.ModelProto or "
            f"lamina.quantize's QuantizedModel, got {type(model).__name__}"
        )
    path = Path(model)
    if not path.is_file():
        raise FrontendError(f"cannot read ONNX model '{path}': no such file")
    try:
        proto = onnx.load(str(path), load_external_data=False)
    except Exception as e:  # onnx raises DecodeError and friends
        raise FrontendError(
            f"cannot read ONNX model '{path}': the file is not a valid ONNX protobuf "
            f"({type(e).__name__}: {e})"
        ) from None
    check_model(proto)
    _load_external_data(proto, path.parent)
    return proto


def unwrap_model(model: Any) -> Any:
    """The ONNX model inside a wrapper holding one as `.model` (`lamina.quantize`'s
    `QuantizedModel`, which this layer cannot import); anything else as given."""
    inner = getattr(model, "model", None)
    return inner if isinstance(inner, onnx.ModelProto) else model


def _load_external_data(proto: onnx.ModelProto, base: Path) -> None:
    """Load external tensors, refusing any path that escapes the model's folder."""
    root = base.resolve()
    for t in onnx.external_data_helper._get_all_tensors(proto):
        if not onnx.external_data_helper.uses_external_data(t):
            continue
        info = {e.key: e.value for e in t.external_data}
        target = (root / info.get("location", "")).resolve()
        if root not in target.parents or not target.is_file():
            raise FrontendError(
                f"initializer '{t.name}' refers to external data "
                f"'{info.get('location')}' outside the model's folder {root} (or "
                "missing); move the data next to the model"
            )
    try:
        onnx.load_external_data_for_model(proto, str(root))
    except (OSError, ValueError) as e:
        raise FrontendError(f"cannot read the model's external data: {e}") from None


def _opset(proto: onnx.ModelProto) -> int:
    for o in proto.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return 1


def _tensor_type(vi: onnx.ValueInfoProto, input_shapes: dict[str, Sequence[int]]) -> TensorType:
    tt = vi.type.tensor_type
    if not vi.type.HasField("tensor_type"):
        raise FrontendError(f"graph input '{vi.name}' is not a tensor")
    dtype = np_dtype(tt.elem_type, f"graph input '{vi.name}'")
    if tt.elem_type == onnx.TensorProto.STRING:
        raise FrontendError(
            f"graph input '{vi.name}' is a tensor of strings (ONNX type string), which "
            "lamina does not support: it compiles numeric tensors only; do the string "
            "processing (e.g. tokenizing into int64 ids) before the model and give it "
            "the numbers, or remove the input from the model"
        )
    if vi.name in input_shapes:
        dims = [int(d) for d in input_shapes[vi.name]]
        declared = len(tt.shape.dim) if tt.HasField("shape") else None
        if declared is not None and declared != len(dims):
            raise FrontendError(
                f"input_shapes gives input '{vi.name}' {len(dims)} dimension(s) "
                f"{dims}, but the model declares it with {declared}"
            )
        if any(d < 0 for d in dims):
            raise FrontendError(
                f"input_shapes gives input '{vi.name}' a negative dimension: {dims}"
            )
        _check_static_dims(vi, dims)
    else:
        dims = []
        for i, d in enumerate(tt.shape.dim):
            if d.HasField("dim_value") and d.dim_value >= 0:
                dims.append(d.dim_value)
            else:  # a symbolic dim: equal names are the same size
                dims.append(Sym.var(_dim_name(d.dim_param or f"{vi.name}_{i}")))
    check_size(f"graph input '{vi.name}'", dims, dtype.itemsize)
    try:
        return relay.tensor(dims, element_type(dtype))
    except LaminaError as e:
        onnx_type = onnx.TensorProto.DataType.Name(tt.elem_type).lower()
        raise FrontendError(
            f"graph input '{vi.name}' has ONNX element type {onnx_type}, which lamina "
            f"does not support ({e}); convert the input to a supported type (e.g. "
            "float32) before the model"
        ) from None


def _check_static_dims(vi: onnx.ValueInfoProto, dims: list[int]) -> None:
    """`input_shapes` only sizes symbolic dimensions: a static one given another
    size is refused here (else a node's shape inference would be blamed)."""
    declared = [
        d.dim_value if d.HasField("dim_value") and d.dim_value >= 0 else None
        for d in vi.type.tensor_type.shape.dim
    ]
    wrong = [i for i, (d, g) in enumerate(zip(declared, dims, strict=True)) if d is not None and d != g]
    if not wrong:
        return
    shape = "[" + ", ".join(
        str(d) if d is not None else (vi.type.tensor_type.shape.dim[i].dim_param or "?")
        for i, d in enumerate(declared)
    ) + "]"
    if all(d is not None for d in declared):
        raise FrontendError(
            f"input_shapes gives input '{vi.name}' the shape {dims}, but the input is "
            f"static, {shape}: input_shapes only fixes symbolic dimensions; leave "
            f"'{vi.name}' out (or re-export the model with the shape you want)"
        )
    axes = ", ".join(f"axis {i} is {declared[i]}" for i in wrong)
    raise FrontendError(
        f"input_shapes gives input '{vi.name}' the shape {dims}, but its shape is "
        f"{shape} ({axes}, static): input_shapes only fixes symbolic dimensions; keep "
        "the static sizes"
    )


def _dim_name(name: str) -> str:
    """An ONNX `dim_param` as a dimension name (an identifier)."""
    out = re.sub(r"\W", "_", name)
    return out if out and not out[0].isdigit() else f"d_{out}"


def tensor_to_array(t: onnx.TensorProto) -> np.ndarray:
    """An initializer as a numpy array, sharing memory with raw_data when possible."""
    dtype = np_dtype(t.data_type, f"initializer '{t.name}'")
    dims = tuple(t.dims)
    try:
        if t.HasField("raw_data") and dtype.kind in "fiub":
            raw = t.raw_data  # (a copy: read once)
            expected = int(np.prod(dims, dtype=np.int64)) * dtype.itemsize
            if len(raw) != expected:
                raise FrontendError(
                    f"initializer '{t.name}' holds {len(raw)} bytes of data but its shape "
                    f"{list(dims)} of {dtype} needs {expected}; the file is corrupt"
                )
            return np.frombuffer(raw, dtype=dtype).reshape(dims)
        return numpy_helper.to_array(t)
    except (ValueError, TypeError) as e:
        raise FrontendError(
            f"initializer '{t.name}' (shape {list(dims)}, {dtype}) has data that does "
            f"not match its shape: {e}; the file is corrupt"
        ) from None


def from_onnx(
    model: Any,
    input_shapes: dict[str, Sequence[int]] | None = None,
    *,
    run_time_values: bool = True,
) -> ModuleOp:
    """Import an ONNX model (a path, its bytes, a ModelProto or `lamina.quantize`'s
    QuantizedModel) as a graph-level module.

    An input a node reads as structure (a Reshape's shape, a Slice's starts, a
    Range's limit) that is not a constant is computed with when the model runs
    (`runtime_shapes`); with `run_time_values=False` the import refuses it
    instead, naming the input (what specializing on values needs)."""
    proto = load_model(model)
    opset = _opset(proto)
    graph = proto.graph
    shapes = dict(input_shapes or {})
    init_names = {t.name for t in graph.initializer}
    inputs = [vi for vi in graph.input if vi.name not in init_names]
    unknown = sorted(set(shapes) - {vi.name for vi in inputs})
    if unknown:
        raise FrontendError(
            f"input_shapes names {', '.join(repr(n) for n in unknown)}, which the "
            f"model has no input of; its inputs are "
            f"{', '.join(repr(vi.name) for vi in inputs) or 'none'}"
        )
    in_types = [_tensor_type(vi, shapes) for vi in inputs]
    nodes = topological_order(
        graph.node, [*(vi.name for vi in inputs), *init_names]
    )
    inferred = Inferred.run(proto, {vi.name: t for vi, t in zip(inputs, in_types, strict=True)})
    inferred.check_budget(nodes, opset)
    block = Block(arg_types=in_types)
    values: dict[str, SSAValue] = {}
    consts: dict[SSAValue, np.ndarray] = {}
    arg_names: dict[SSAValue, str] = {}
    for vi, arg in zip(inputs, block.args, strict=True):
        arg.name_hint = _hint(vi.name)
        values[vi.name] = arg
        arg_names[arg] = vi.name
    for t in graph.initializer:
        arr = tensor_to_array(t)
        ctx = NodeContext(onnx.NodeProto(), [], opset, block, consts)
        v = constant(ctx, block, arr, t.name)
        v.name_hint = _hint(t.name)
        values[t.name] = v
    assumptions: list[Assumption] = []
    taken: set[str] = set()  # size names: the inputs', then data-dependent ones
    for arg in block.args:
        taken |= names_of(relay.shape_of(arg.type))
    importer = GraphImporter(opset, inferred, consts, arg_names, assumptions, taken, run_time_values)
    unsupported = importer.convert(nodes, block, values)
    if unsupported:
        raise UnsupportedOpError(unsupported_summary(unsupported, opset, graph.node))
    results = []
    for o in graph.output:
        if o.name not in values:
            raise FrontendError(f"graph output '{o.name}' is not produced by any node")
        results.append(values[o.name])
    block.add_op(func.ReturnOp(*results))
    # Initializers and folded values that only fed shapes and attributes.
    for op in reversed(list(block.ops)):
        shape_only = isinstance(op, relay.ConstantOp | relay.DimsOp) or (
            isinstance(op, relay.ReshapeOp) and isinstance(op.data.owner, relay.DimsOp)
        )
        if shape_only and not op.output.uses:
            block.erase_op(op)
    return graph_module(
        block, results, (vi.name for vi in inputs), (o.name for o in graph.output), assumptions
    )


@dataclass
class GraphImporter:
    """Converts the nodes of a graph, or of a subgraph (an If/Loop/Scan body),
    into a block; the state the graph's nodes share."""

    opset: int
    inferred: Inferred
    consts: dict[SSAValue, np.ndarray]
    arg_names: dict[SSAValue, str]
    assumptions: list[Assumption]
    taken: set[str]
    #: Whether structure inputs may be given when the model runs (`from_onnx`).
    run_time_values: bool = True
    #: The sizes set from run-time values so far (`known_sizes`).
    known: KnownSizes = field(default_factory=KnownSizes)

    def convert(
        self, nodes: Sequence[onnx.NodeProto], block: Block, values: dict[str, SSAValue]
    ) -> list[onnx.NodeProto]:
        """Convert `nodes` into `block`, naming their outputs in `values`; the
        nodes lamina has no converter for, unless their inputs are constant and
        they fold (the nodes they feed are skipped, and only listed if they have
        no converter either)."""
        opset, consts, inferred = self.opset, self.consts, self.inferred
        unsupported: list[onnx.NodeProto] = []
        skipped: set[str] = set()
        for index, node in enumerate(nodes):
            if any(name in skipped for name in node.input):
                if not has_converter(node):
                    unsupported.append(node)
                skipped.update(node.output)
                continue
            ins: list[SSAValue | None] = []
            for name in node.input:
                if not name:
                    ins.append(None)
                elif name in values:
                    ins.append(values[name])
                else:
                    raise FrontendError(
                        f"{describe_node(node, opset, index)}: input '{name}' is not produced by any "
                        "node, input or initializer (the graph is not topologically "
                        "sorted, or an initializer is missing)"
                    )
            ctx = NodeContext(
                node, ins, opset, block, consts, self.arg_names, self.assumptions, self.taken,
                scope=values, importer=self, index=index,
            )
            for v in ins:  # a run-time value whose every element is a known size
                if v is not None and v not in consts:
                    known = self.known.value(v, consts, block)
                    if known is not None:
                        consts[v] = known
            last = block.last_op
            folded = fold(node, ins, consts, opset) if not implicit_inputs(node) else None
            if folded is not None:
                outs = [
                    ctx.constant(as_inferred(a, inferred, name), name or "cst")
                    for a, name in zip(folded, node.output, strict=False)
                ]
            elif not has_converter(node):
                unsupported.append(node)
                skipped.update(node.output)
                continue
            else:
                try:
                    # lamina's own converter or a plugin's (loaded on first use; a
                    # plugin that fails to load is reported at this node)
                    convert = find_converter(node)
                    if convert is None:
                        raise ctx.unsupported("no converter is registered for it")
                    outs = list(convert(ctx))
                except FrontendError:
                    raise
                except (VerifyException, LaminaError) as e:  # name the node
                    raise ctx.error(str(e)) from None
                except Exception as e:
                    # A node the converter did not expect (attributes or inputs out of
                    # their range): still one error naming the node.
                    raise ctx.error(
                        f"cannot convert it ({type(e).__name__}: {e}); check the node's "
                        "attributes and inputs against the ONNX spec"
                    ) from e
            op = last.next_op if last is not None else block.first_op
            while op is not None:
                self.known.record(op, consts)
                op = op.next_op
            for name, v in zip(node.output, outs, strict=False):
                if name:
                    if isinstance(v.type, TensorType):
                        check_size(
                            f"{ctx.where()}: output '{name}'",
                            shape(v),
                            max(_bits(v.type) // 8, 1),
                        )
                    inferred.check(ctx, name, v)
                    v.name_hint = _hint(name)
                    values[name] = v
            missing = [n for n in node.output[len(outs) :] if n]
            if missing:
                raise ctx.unsupported(f"output(s) {missing} are not supported")
        return unsupported

    def inline(self, graph: onnx.GraphProto, block: Block, outer: dict[str, SSAValue], where: str) -> list[SSAValue]:
        """A subgraph's nodes converted into `block` itself (an If's branch on a
        constant condition), reading the outer values directly; its outputs."""
        return self._convert_graph(graph, block, dict(outer), where)

    def _convert_graph(
        self, graph: onnx.GraphProto, block: Block, values: dict[str, SSAValue], where: str
    ) -> list[SSAValue]:
        """A subgraph's initializers and nodes converted into `block`, given the
        values it reads (`values`, completed with its own); its outputs."""
        for t in graph.initializer:
            arr = tensor_to_array(t)
            values[t.name] = constant(None, block, arr, t.name)
            self.consts[values[t.name]] = arr
        unsupported = self.convert(topological_order(graph.node, list(values)), block, values)
        if unsupported:
            raise UnsupportedOpError(f"{where}: " + unsupported_summary(unsupported, self.opset, graph.node))
        missing = [o.name for o in graph.output if o.name not in values]
        if missing:
            raise FrontendError(f"{where}: output(s) {missing} are not produced by any node")
        return [values[o.name] for o in graph.output]

    def known_element(self, v: SSAValue, i: int, block: Block) -> Dim | None:
        """Element `i` of run-time `v` as a dim, if it is known (`known_sizes`)."""
        return self.known.element(v, i, self.consts, block)

    def captures(self, graphs: Sequence[onnx.GraphProto], outer: dict[str, SSAValue]) -> list[str]:
        """The outer values some of `graphs` read, constants left out (they are
        copied into each body)."""
        names: list[str] = []
        for g in graphs:
            names += [n for n in _free_names(g) if n in outer and n not in names]
        return [n for n in names if outer[n] not in self.consts]

    def body(
        self,
        graph: onnx.GraphProto,
        arg_types: Sequence[TensorType],
        outer: dict[str, SSAValue],
        where: str,
        capture: Sequence[str] | None = None,
        bind: Callable[[Block], list[SSAValue]] | None = None,
    ) -> tuple[Region, list[SSAValue]]:
        """A subgraph as a region isolated from above: its arguments are
        `arg_types` (the subgraph's inputs, unless `bind` makes those from the
        arguments), then the outer values it reads (`capture`, by default its
        own; returned: the op's operands for them). Outer constants are copied
        in instead, so converters inside still see them as constants."""
        free = [n for n in _free_names(graph) if n in outer]
        captured = list(capture) if capture is not None else self.captures([graph], outer)
        block = Block(arg_types=[*arg_types, *(outer[n].type for n in captured)])
        values: dict[str, SSAValue] = {}
        inputs = bind(block) if bind is not None else list(block.args[: len(graph.input)])
        for vi, arg in zip(graph.input, inputs, strict=True):
            arg.name_hint = _hint(vi.name)
            values[vi.name] = arg
        for n, arg in zip(captured, block.args[len(arg_types) :], strict=True):
            arg.name_hint = _hint(n)
            values[n] = arg
        for n in free:
            if n not in values:
                values[n] = constant(None, block, self.consts[outer[n]], n)
                self.consts[values[n]] = self.consts[outer[n]]
        block.add_op(relay.YieldOp(*self._convert_graph(graph, block, values, where)))
        return Region(block), [outer[n] for n in captured]


def _free_names(graph: onnx.GraphProto) -> list[str]:
    """The outer-scope names a subgraph reads."""
    holder = onnx.NodeProto()
    holder.attribute.append(onnx.helper.make_attribute("body", graph))
    return implicit_inputs(holder)


def _bits(t: TensorType) -> int:
    el = t.get_element_type()
    width = getattr(el, "bitwidth", None) or getattr(getattr(el, "width", None), "data", 64)
    return int(width)


def _hint(name: str | bytes) -> str | None:
    if isinstance(name, bytes):  # protobuf hands out invalid UTF-8 names as bytes
        name = name.decode("utf-8", errors="replace")
    h = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return h if h and (h[0].isalpha() or h[0] == "_") and not h[0].isdigit() else None


__all__ = ["from_onnx", "load_model", "tensor_to_array", "unwrap_model"]
