"""The ONNX importer: an ONNX model becomes a graph-level (relay) module.

Each ONNX node is converted by the function registered for its op type
(`@converter("Gemm")`), which receives a `NodeContext` with the node's inputs as
SSA values, its attributes and the model's opset, and returns the SSA values of
its outputs. Initializers become `relay.constant dense_resource<...>` weights that
share memory with the model (no copy when the tensor holds raw data).
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
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from lamina.dialects import relay
from lamina.dialects.resources import blobs
from lamina.errors import FrontendError, UnsupportedOpError
from lamina.runtime.dtypes import element_type

Converter = Callable[["NodeContext"], Sequence[SSAValue]]
CONVERTERS: dict[str, Converter] = {}


def converter(*op_types: str) -> Callable[[Converter], Converter]:
    """Register the converter of one or more ONNX op types."""

    def wrap(fn: Converter) -> Converter:
        for t in op_types:
            CONVERTERS[t] = fn
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

    def emit(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def attr(self, name: str, default: Any = None) -> Any:
        for a in self.node.attribute:
            if a.name == name:
                return onnx.helper.get_attribute_value(a)
        return default

    def input(self, i: int) -> SSAValue:
        if i >= len(self.inputs) or self.inputs[i] is None:
            raise self.error(f"input #{i} is required")
        v = self.inputs[i]
        assert v is not None
        return v

    def optional_input(self, i: int) -> SSAValue | None:
        return self.inputs[i] if i < len(self.inputs) else None

    def const_value(self, i: int) -> np.ndarray:
        """The value of input `i`, which must be a constant (e.g. a shape)."""
        v = self.input(i)
        if v not in self.constants:
            raise self.error(
                f"input #{i} ('{self.node.input[i]}') must be a constant; lamina needs "
                "static shapes"
            )
        return self.constants[v]

    def error(self, message: str) -> FrontendError:
        return FrontendError(f"{_where(self.node, self.opset)}: {message}")


def _where(node: onnx.NodeProto, opset: int) -> str:
    name = f" '{node.name}'" if node.name else ""
    return f"ONNX node{name} ({node.op_type}, opset {opset})"


def shape(v: SSAValue) -> tuple[int, ...]:
    assert isinstance(v.type, TensorType)
    return tuple(v.type.get_shape())


# --------------------------------------------------------------------- loading
def load_model(model: str | os.PathLike[str] | onnx.ModelProto) -> onnx.ModelProto:
    """Load a model (without external data) and check it."""
    if isinstance(model, onnx.ModelProto):
        return model
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
    onnx.load_external_data_for_model(proto, str(root))


def _opset(proto: onnx.ModelProto) -> int:
    for o in proto.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return 1


def _tensor_type(vi: onnx.ValueInfoProto, input_shapes: dict[str, Sequence[int]]) -> TensorType:
    tt = vi.type.tensor_type
    if not vi.type.HasField("tensor_type"):
        raise FrontendError(f"graph input '{vi.name}' is not a tensor")
    dtype = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
    if vi.name in input_shapes:
        dims = [int(d) for d in input_shapes[vi.name]]
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
    return TensorType(element_type(dtype), dims)


def tensor_to_array(t: onnx.TensorProto) -> np.ndarray:
    """An initializer as a numpy array, sharing memory with raw_data when possible."""
    dtype = onnx.helper.tensor_dtype_to_np_dtype(t.data_type)
    dims = tuple(t.dims)
    if t.HasField("raw_data") and np.dtype(dtype).kind in "fiub":
        return np.frombuffer(t.raw_data, dtype=dtype).reshape(dims)
    return numpy_helper.to_array(t)


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
    in_types = [_tensor_type(vi, shapes) for vi in inputs]
    block = Block(arg_types=in_types)
    values: dict[str, SSAValue] = {}
    consts: dict[SSAValue, np.ndarray] = {}
    for vi, arg in zip(inputs, block.args, strict=True):
        arg.name_hint = _hint(vi.name)
        values[vi.name] = arg
    for t in graph.initializer:
        arr = tensor_to_array(t)
        ctx = NodeContext(onnx.NodeProto(), [], opset, block, consts)
        v = constant(ctx, block, arr, t.name)
        v.name_hint = _hint(t.name)
        values[t.name] = v
    for node in graph.node:
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
        ctx = NodeContext(node, ins, opset, block, consts)
        try:
            outs = CONVERTERS[node.op_type](ctx)
        except VerifyException as e:
            raise ctx.error(str(e)) from None
        for name, v in zip(node.output, outs, strict=False):
            if name:
                v.name_hint = _hint(name)
                values[name] = v
    results = []
    for o in graph.output:
        if o.name not in values:
            raise FrontendError(f"graph output '{o.name}' is not produced by any node")
        results.append(values[o.name])
    block.add_op(func.ReturnOp(*results))
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


def _name_attrs(names: Any) -> ArrayAttr[DictionaryAttr]:
    return ArrayAttr([DictionaryAttr({"lamina.name": StringAttr(n)}) for n in names])


def _hint(name: str) -> str | None:
    h = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return h if h and (h[0].isalpha() or h[0] == "_") and not h[0].isdigit() else None


# ----------------------------------------------------------------- converters
@converter("Add", "Sub", "Mul", "Div")
def _binary(ctx: NodeContext) -> Sequence[SSAValue]:
    op = {
        "Add": relay.AddOp,
        "Sub": relay.SubtractOp,
        "Mul": relay.MultiplyOp,
        "Div": relay.DivideOp,
    }[ctx.node.op_type]
    return [ctx.emit(op(ctx.input(0), ctx.input(1)))]


@converter("Relu")
def _relu(ctx: NodeContext) -> Sequence[SSAValue]:
    return [ctx.emit(relay.ReluOp(ctx.input(0)))]


@converter("MatMul")
def _matmul(ctx: NodeContext) -> Sequence[SSAValue]:
    return [ctx.emit(relay.MatmulOp(ctx.input(0), ctx.input(1)))]


@converter("Gemm")
def _gemm(ctx: NodeContext) -> Sequence[SSAValue]:
    alpha, beta = float(ctx.attr("alpha", 1.0)), float(ctx.attr("beta", 1.0))
    return [
        ctx.emit(
            relay.DenseOp(
                ctx.input(0),
                ctx.input(1),
                ctx.optional_input(2),
                transpose_a=_unit(ctx.attr("transA", 0)),
                transpose_b=_unit(ctx.attr("transB", 0)),
                alpha=relay.f64_attr(alpha) if alpha != 1.0 else None,
                beta=relay.f64_attr(beta) if beta != 1.0 else None,
            )
        )
    ]


def _unit(flag: int) -> Attribute | None:
    from xdsl.dialects.builtin import UnitAttr

    return UnitAttr() if flag else None


@converter("Softmax")
def _softmax(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    rank = len(shape(x))
    if ctx.opset >= 13:
        axis = relay.normalize_axis("Softmax", int(ctx.attr("axis", -1)), rank)
        return [ctx.emit(relay.SoftmaxOp(x, axis=relay.i64_attr(axis)))]
    # Before opset 13: coerce to 2-D at `axis`, softmax over the flattened tail.
    axis = relay.normalize_axis("Softmax", int(ctx.attr("axis", 1)), rank) if rank else 0
    s = shape(x)
    rows, cols = int(np.prod(s[:axis], dtype=np.int64)), int(np.prod(s[axis:], dtype=np.int64))
    if axis == rank - 1:
        return [ctx.emit(relay.SoftmaxOp(x, axis=relay.i64_attr(axis)))]
    flat = ctx.emit(relay.ReshapeOp(x, shape=relay.i64_array([rows, cols])))
    sm = ctx.emit(relay.SoftmaxOp(flat, axis=relay.i64_attr(1)))
    return [ctx.emit(relay.ReshapeOp(sm, shape=relay.i64_array(s)))]


@converter("Reshape")
def _reshape(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    src = shape(x)
    target = [int(v) for v in ctx.const_value(1).reshape(-1)]
    allowzero = int(ctx.attr("allowzero", 0))
    out = [src[i] if (d == 0 and not allowzero) else d for i, d in enumerate(target)]
    if out.count(-1) > 1:
        raise ctx.error(f"shape {target} has more than one -1")
    if -1 in out:
        known = int(np.prod([d for d in out if d != -1], dtype=np.int64))
        total = int(np.prod(src, dtype=np.int64))
        if known == 0 or total % known:
            raise ctx.error(f"cannot reshape {list(src)} to {target}")
        out[out.index(-1)] = total // known
    return [ctx.emit(relay.ReshapeOp(x, shape=relay.i64_array(out)))]


@converter("Transpose")
def _transpose(ctx: NodeContext) -> Sequence[SSAValue]:
    x = ctx.input(0)
    perm = ctx.attr("perm")
    if perm is None:
        perm = list(reversed(range(len(shape(x)))))
    return [ctx.emit(relay.TransposeOp(x, perm=relay.i64_array(perm)))]
