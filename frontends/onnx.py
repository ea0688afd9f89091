"""The ONNX importer: an ONNX model becomes a graph-level (relay) module.

Each ONNX node is converted by the function registered for its op type
(`@converter("Gemm")`, in `lamina.frontends.onnx_ops`), which receives a
`NodeContext` with the node's inputs as SSA values, its attributes and the model's
opset, and returns the SSA values of its outputs. Initializers become
`relay.constant dense_resource<...>` weights that share memory with the model (no
copy when the tensor holds raw data).

Shapes are static, so shape computations fold away while importing: a node whose
inputs are all constants (initializers, `Constant`s, `Shape`s of static tensors,
...) is evaluated by `onnx.reference` and becomes a constant. ONNX shape inference
runs first; every converted value is checked against the shape and element type
it infers, so a converter bug is reported at its node.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseResourceAttr,
    DictionaryAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from lamina.dialects import relay
from lamina.dialects.dtypes import element_type
from lamina.dialects.resources import blobs
from lamina.errors import FrontendError, LaminaError, UnsupportedOpError
from lamina.frontends.onnx_checks import (
    check_model,
    check_size,
    memory_budget,
    np_dtype,
    topological_order,
)

Converter = Callable[["NodeContext"], Sequence[SSAValue]]
CONVERTERS: dict[str, Converter] = {}


@dataclass(frozen=True)
class ConverterInfo:
    """What the supported-op table says about a converter."""

    emits: tuple[str, ...] = ()
    notes: str = ""


CONVERTER_INFO: dict[str, ConverterInfo] = {}


def converter(
    *op_types: str, emits: Sequence[str] = (), notes: str = ""
) -> Callable[[Converter], Converter]:
    """Register the converter of one or more ONNX op types; `emits` names the relay
    ops it produces (without `relay.`) and `notes` its limits, for the README's
    supported-op table."""

    def wrap(fn: Converter) -> Converter:
        for t in op_types:
            CONVERTERS[t] = fn
            CONVERTER_INFO[t] = ConverterInfo(tuple(emits), notes)
        return fn

    return wrap


def supported_ops() -> list[str]:
    return sorted(CONVERTERS)


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
                f"input #{i} ('{self.node.input[i]}') must be a constant; lamina needs "
                "static shapes"
            )
        # Computed from graph inputs: those are what must be given as constants.
        names = list(self.graph_inputs.values())
        first, rest = sources[0], [f"'{n}'" for n in sources[1:]]
        also = f" (and so must {', '.join(rest)})" if rest else ""
        raise self.error(
            f"graph input #{names.index(first)} ('{first}') must be a constant{also}: "
            f"input #{i} ('{self.node.input[i]}') of this node is computed from it, "
            "and lamina needs static shapes"
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
        return FrontendError(f"{_where(self.node, self.opset)}: {message}")

    def unsupported(self, message: str) -> UnsupportedOpError:
        return UnsupportedOpError(f"{_where(self.node, self.opset)}: {message}")


def _where(node: onnx.NodeProto, opset: int) -> str:
    name = f" '{node.name}'" if node.name else ""
    return f"ONNX node{name} ({node.op_type}, opset {opset})"


def shape(v: SSAValue) -> tuple[int, ...]:
    assert isinstance(v.type, TensorType)
    return tuple(v.type.get_shape())


# --------------------------------------------------------------------- loading
def load_model(model: str | os.PathLike[str] | bytes | onnx.ModelProto) -> onnx.ModelProto:
    """Load a model and check it (versions, structure, declared sizes against the
    memory budget) before reading its external data."""
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
            f"expected an ONNX model as a path, bytes or onnx.ModelProto, got "
            f"{type(model).__name__}"
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
    else:
        dims = []
        for i, d in enumerate(tt.shape.dim):
            if d.HasField("dim_value") and d.dim_value >= 0:
                dims.append(d.dim_value)
            else:
                sym = d.dim_param or "?"
                raise FrontendError(
                    f"input '{vi.name}' has a symbolic dimension '{sym}' (axis {i}); "
                    f"give its size with input_shapes={{'{vi.name}': [...]}}"
                )
    check_size(f"graph input '{vi.name}'", dims, dtype.itemsize)
    try:
        return TensorType(element_type(dtype), dims)
    except LaminaError as e:
        raise FrontendError(f"graph input '{vi.name}': {e}") from None


def tensor_to_array(t: onnx.TensorProto) -> np.ndarray:
    """An initializer as a numpy array, sharing memory with raw_data when possible."""
    dtype = np_dtype(t.data_type, f"initializer '{t.name}'")
    dims = tuple(t.dims)
    try:
        if t.HasField("raw_data") and dtype.kind in "fiub":
            return np.frombuffer(t.raw_data, dtype=dtype).reshape(dims)
        return numpy_helper.to_array(t)
    except (ValueError, TypeError) as e:
        raise FrontendError(
            f"initializer '{t.name}' (shape {list(dims)}, {dtype}) has data that does "
            f"not match its shape: {e}; the file is corrupt"
        ) from None


# --------------------------------------------------------------------- import
def constant(ctx: NodeContext | None, block: Block, arr: np.ndarray, name: str) -> SSAValue:
    """Emit a weight as a `relay.constant` backed by a blob."""
    t = TensorType(element_type(arr.dtype), arr.shape)
    key = blobs.add(name, arr)
    op = relay.ConstantOp(DenseResourceAttr.from_params(key, t))
    block.add_op(op)
    if ctx is not None:
        ctx.constants[op.output] = arr
    return op.output


#: Ops whose reference implementation loops in Python per element: never folded.
_SLOW_TO_FOLD = frozenset(
    {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool", "LRN", "Resize"}
)
#: Constant inputs up to this many elements (in total) are folded by evaluation.
FOLD_LIMIT = 1 << 20


def _fold(
    node: onnx.NodeProto, ins: list[SSAValue | None], consts: dict[SSAValue, np.ndarray], opset: int
) -> list[np.ndarray] | None:
    """Evaluate a node whose inputs are all constants with onnx.reference; None
    when it cannot (or should not) be folded."""
    if node.op_type in _SLOW_TO_FOLD or any(v is not None and v not in consts for v in ins):
        return None
    if sum(consts[v].size for v in ins if v is not None) > FOLD_LIMIT:
        return None
    if not any(v is not None for v in ins) and node.op_type != "Constant":
        return None  # no inputs: a source op (random, ...), not a computation
    _check_fold_size(node, [None if v is None else consts[v] for v in ins], opset)
    from onnx.reference import ReferenceEvaluator

    feeds = {name: consts[v] for name, v in zip(node.input, ins, strict=False) if v is not None}
    try:
        outs = ReferenceEvaluator(node, opsets={"": opset}).run(None, feeds)
    except Exception:  # the converter reports what is wrong, in its own words
        return None
    arrays = [np.asarray(o) for o in outs]
    if any(a.dtype.kind not in "biuf" for a in arrays):
        return None
    return arrays


def _check_fold_size(
    node: onnx.NodeProto, ins: list[np.ndarray | None], opset: int
) -> None:
    """Refuse to evaluate a node whose output, computed from constant inputs,
    would exceed the memory budget (e.g. ConstantOfShape of an absurd shape)."""
    op = node.op_type
    try:
        if op == "ConstantOfShape" and ins and ins[0] is not None:
            shape = [int(d) for d in ins[0].reshape(-1)]
        elif op == "Expand" and len(ins) > 1 and ins[0] is not None and ins[1] is not None:
            target = [int(d) for d in ins[1].reshape(-1)]
            shape = list(np.broadcast_shapes(ins[0].shape, tuple(max(d, 1) for d in target)))
        elif op == "Tile" and len(ins) > 1 and ins[0] is not None and ins[1] is not None:
            reps = [int(d) for d in ins[1].reshape(-1)]
            if len(reps) != ins[0].ndim:
                return
            shape = [a * r for a, r in zip(ins[0].shape, reps, strict=True)]
        elif op == "Range" and len(ins) > 2 and all(v is not None for v in ins[:3]):
            start, limit, delta = (float(np.asarray(v).reshape(-1)[0]) for v in ins[:3])  # type: ignore[union-attr]
            if delta == 0 or not np.isfinite([start, limit, delta]).all():
                return
            shape = [max(int(np.ceil((limit - start) / delta)), 0)]
        else:
            return
    except (ValueError, TypeError, OverflowError, IndexError):
        return  # the converter says what is wrong
    check_size(f"{_where(node, opset)}: its output", shape, 8)


@dataclass
class _Inferred:
    """What ONNX shape inference knows about every value: element type and shape
    (None for an unknown dimension)."""

    types: dict[str, tuple[int, tuple[int | None, ...] | None]]

    @classmethod
    def run(cls, proto: onnx.ModelProto, in_types: dict[str, TensorType]) -> _Inferred:
        """Infer on a copy of the graph without the weights' data (small
        initializers, which may be shapes, are kept) and with the input shapes
        actually used."""
        g = proto.graph
        try:  # inference is a check, not a requirement: a model it chokes on passes
            small = [t for t in g.initializer if np.prod(t.dims, dtype=np.int64) <= 64]
            small_names = {t.name for t in small}
            inputs = [
                onnx.helper.make_tensor_value_info(
                    name, _onnx_elem(t), list(t.get_shape())
                )
                for name, t in in_types.items()
            ] + [
                onnx.helper.make_tensor_value_info(t.name, t.data_type, list(t.dims))
                for t in g.initializer
                if t.name not in small_names and t.name not in in_types
            ]
            graph = onnx.helper.make_graph(
                list(g.node), g.name or "g", inputs, list(g.output), small, value_info=list(g.value_info)
            )
            model = onnx.helper.make_model(
                graph, opset_imports=list(proto.opset_import), ir_version=proto.ir_version
            )
            inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False)
        except Exception:
            return cls({})
        types: dict[str, tuple[int, tuple[int | None, ...] | None]] = {}
        for vi in [*inferred.graph.value_info, *inferred.graph.output]:
            if not vi.type.HasField("tensor_type"):
                continue
            tt = vi.type.tensor_type
            dims = None
            if tt.HasField("shape"):
                dims = tuple(
                    d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim
                )
            # An element type numpy does not know is as good as unknown.
            types[vi.name] = (tt.elem_type if _known_elem(tt.elem_type) else 0, dims)
        return cls(types)

    def check_budget(self, nodes: Sequence[onnx.NodeProto], opset: int) -> None:
        """Refuse any node output whose inferred size exceeds the memory budget."""
        budget = memory_budget()
        for node in nodes:
            for name in node.output:
                known = self.types.get(name)
                if not known or known[1] is None or None in known[1]:
                    continue
                elem, dims = known
                try:
                    itemsize = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem)).itemsize
                except (KeyError, ValueError, TypeError):
                    itemsize = 8
                check_size(
                    f"{_where(node, opset)}: output '{name}'",
                    [int(d) for d in dims],  # type: ignore[union-attr]
                    itemsize,
                    budget,
                )

    def check(self, ctx: NodeContext, name: str, value: SSAValue) -> None:
        """Raise if the converted value disagrees with what ONNX inferred."""
        known = self.types.get(name)
        t = value.type
        if known is None or not isinstance(t, TensorType):
            return
        elem, dims = known
        ours = _onnx_elem(t)
        if elem and elem != ours:
            raise ctx.error(
                f"output '{name}' has element type {onnx.helper.tensor_dtype_to_np_dtype(ours)}"
                f" but ONNX infers {onnx.helper.tensor_dtype_to_np_dtype(elem)}"
            )
        shape = tuple(t.get_shape())
        if dims is not None and (
            len(dims) != len(shape)
            or any(d is not None and d != s for d, s in zip(dims, shape, strict=False))
        ):
            shown = ["?" if d is None else d for d in dims]
            raise ctx.error(
                f"output '{name}' has shape {list(shape)} but ONNX infers {shown}"
            )


def _known_elem(elem: int) -> bool:
    try:
        onnx.helper.tensor_dtype_to_np_dtype(elem)
    except (KeyError, ValueError, TypeError):
        return False
    return True


def _onnx_elem(t: TensorType) -> int:
    from lamina.dialects.dtypes import numpy_dtype

    return onnx.helper.np_dtype_to_tensor_dtype(numpy_dtype(t.get_element_type()))


def from_onnx(
    model: str | os.PathLike[str] | onnx.ModelProto,
    input_shapes: dict[str, Sequence[int]] | None = None,
) -> ModuleOp:
    """Import an ONNX model (a path or a ModelProto) as a graph-level module."""
    proto = load_model(model)
    opset = _opset(proto)
    graph = proto.graph
    unsupported = [
        n for n in graph.node if n.op_type not in CONVERTERS or n.domain not in ("", "ai.onnx")
    ]
    if unsupported:
        listed = "; ".join(
            f"{n.op_type} (node '{n.name or '?'}', domain '{n.domain or 'ai.onnx'}')"
            for n in unsupported
        )
        raise UnsupportedOpError(
            f"the model uses {len(unsupported)} node(s) lamina does not support at "
            f"opset {opset}: {listed}"
        )
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
    inferred = _Inferred.run(proto, {vi.name: t for vi, t in zip(inputs, in_types, strict=True)})
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
    for node in nodes:
        ins: list[SSAValue | None] = []
        for name in node.input:
            if not name:
                ins.append(None)
            elif name in values:
                ins.append(values[name])
            else:
                raise FrontendError(
                    f"{_where(node, opset)}: input '{name}' is not produced by any "
                    "node, input or initializer (the graph is not topologically "
                    "sorted, or an initializer is missing)"
                )
        ctx = NodeContext(node, ins, opset, block, consts, arg_names)
        folded = _fold(node, ins, consts, opset)
        if folded is not None:
            outs = [
                ctx.constant(_as_inferred(a, inferred, name), name or "cst")
                for a, name in zip(folded, node.output, strict=False)
            ]
        else:
            try:
                outs = list(CONVERTERS[node.op_type](ctx))
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
        for name, v in zip(node.output, outs, strict=False):
            if name:
                if isinstance(v.type, TensorType):
                    check_size(
                        f"{_where(node, opset)}: output '{name}'",
                        shape(v),
                        max(_bits(v.type) // 8, 1),
                    )
                inferred.check(ctx, name, v)
                v.name_hint = _hint(name)
                values[name] = v
        missing = [n for n in node.output[len(outs) :] if n]
        if missing:
            raise ctx.unsupported(f"output(s) {missing} are not supported")
    results = []
    for o in graph.output:
        if o.name not in values:
            raise FrontendError(f"graph output '{o.name}' is not produced by any node")
        results.append(values[o.name])
    block.add_op(func.ReturnOp(*results))
    # Initializers and folded values that only fed shapes and attributes.
    for op in reversed(list(block.ops)):
        if isinstance(op, relay.ConstantOp) and not op.output.uses:
            block.erase_op(op)
    fn = func.FuncOp(
        "main",
        ([a.type for a in block.args], [r.type for r in results]),
        Region(block),
        arg_attrs=_name_attrs(vi.name for vi in inputs),
        res_attrs=_name_attrs(o.name for o in graph.output),
    )
    module = ModuleOp([fn])
    try:
        module.verify()
    except VerifyException as e:
        raise FrontendError(f"the imported graph does not verify: {e}") from None
    return module


def _bits(t: TensorType) -> int:
    el = t.get_element_type()
    width = getattr(el, "bitwidth", None) or getattr(getattr(el, "width", None), "data", 64)
    return int(width)


def _as_inferred(arr: np.ndarray, inferred: _Inferred, name: str) -> np.ndarray:
    """A folded value in the element type ONNX declares for it (the reference
    sometimes computes in a wider type)."""
    known = inferred.types.get(name)
    if known and known[0]:
        return arr.astype(onnx.helper.tensor_dtype_to_np_dtype(known[0]), copy=False)
    return arr


def _name_attrs(names: Any) -> ArrayAttr[DictionaryAttr]:
    return ArrayAttr([DictionaryAttr({"lamina.name": StringAttr(n)}) for n in names])


def _hint(name: str | bytes) -> str | None:
    if isinstance(name, bytes):  # protobuf hands out invalid UTF-8 names as bytes
        name = name.decode("utf-8", errors="replace")
    h = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return h if h and (h[0].isalpha() or h[0] == "_") and not h[0].isdigit() else None




# Register the converters (they import this module's registry).
from lamina.frontends import onnx_ops  # noqa: E402, F401
