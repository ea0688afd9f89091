"""Annotate: which nodes of a float ONNX model run quantized (TVM's
`relay.quantize` annotate pass, on ONNX).

A `Unit` is a node quantized with what follows it: the products (Conv 2-D,
Gemm, MatMul) with a bias Add of a constant and a Relu or Clip after them
(what qnn-fold-qdq folds into one integer product and requantize), Add and Mul
(with a Relu/Clip), Concat, the average pools and ReduceMean, and the ops that run on the
integers with their input's scale (MaxPool, Reshape, Flatten, Transpose,
Squeeze, Unsqueeze). The activation tensors units read are the ones to
calibrate; a same-scale op's output takes its input's scale. Every other node
that reads a float activation stays in float and is listed with why.

Batch normalizations after convolutions are folded into them first
(`fold_batch_norms`), as onnxruntime's quantization pre-processing does.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from lamina.errors import LaminaError

PRODUCTS = frozenset({"Conv", "Gemm", "MatMul"})
BINARY = frozenset({"Add", "Mul"})
#: Ops that run on the integers with their input's scale and zero point.
SAME_SCALE = frozenset({"MaxPool", "Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze"})
AVERAGES = frozenset({"AveragePool", "GlobalAveragePool", "ReduceMean"})
ACTIVATIONS = frozenset({"Relu", "Clip"})
#: Nodes that read activations but compute nothing worth listing as float.
NOT_LISTED = frozenset({"Shape", "Size", "Identity", "Constant", "ConstantOfShape"})


@dataclass(frozen=True)
class LeftInFloat:
    """A node the quantizer left in float, and why."""

    node: str
    op: str
    reason: str

    def __str__(self) -> str:
        return f"{self.node} ({self.op}): {self.reason}"


@dataclass
class Unit:
    """A node quantized together with its fused tail (bias Add, Relu/Clip).

    `inputs`: the activations it reads quantized; `weight`: (input index,
    channel axis or None) of a constant weight quantized per channel (None:
    per tensor, a vector's); `bias`: the input
    index of a Conv/Gemm bias quantized to i32; `constants`: the input indices
    of an Add/Mul's constant operands (quantized per tensor)."""

    anchor: onnx.NodeProto
    tail: list[onnx.NodeProto] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    weight: tuple[int, int | None] | None = None
    bias: int | None = None
    constants: list[int] = field(default_factory=list)

    @property
    def output(self) -> str:
        return (self.tail[-1] if self.tail else self.anchor).output[0]


@dataclass
class Plan:
    """What to quantize: the units, the activations to calibrate (in graph
    order), the same-scale links (output -> input) and what stays float."""

    units: list[Unit]
    tensors: list[str]
    same: dict[str, str]
    left: list[LeftInFloat]

    def root(self, tensor: str) -> str:
        """The calibrated tensor whose scale `tensor` takes."""
        while tensor in self.same:
            tensor = self.same[tensor]
        return tensor


def node_name(node: onnx.NodeProto) -> str:
    """How the quantizer names a node: its name, else its first output."""
    return node.name or node.output[0]


class _Graph:
    """Lookups over a model: initializers, float activations, consumers."""

    def __init__(self, model: onnx.ModelProto) -> None:
        inferred = onnx.shape_inference.infer_shapes(model)
        g = inferred.graph
        self.inits = {i.name: i for i in model.graph.initializer}
        self.float = {
            v.name for v in [*g.input, *g.value_info, *g.output]
            if v.type.tensor_type.elem_type == TensorProto.FLOAT and v.name not in self.inits
        }
        self.rank = {v.name: len(v.type.tensor_type.shape.dim) for v in [*g.input, *g.value_info, *g.output]}
        self.outputs = {o.name for o in model.graph.output}
        self.consumers: dict[str, list[onnx.NodeProto]] = defaultdict(list)
        for node in model.graph.node:
            for name in node.input:
                self.consumers[name].append(node)

    def only_consumer(self, tensor: str) -> onnx.NodeProto | None:
        users = self.consumers.get(tensor, [])
        return users[0] if len(users) == 1 and tensor not in self.outputs else None

    def constant(self, name: str) -> np.ndarray | None:
        init = self.inits.get(name)
        return None if init is None else numpy_helper.to_array(init)


def _attr(node: onnx.NodeProto, name: str, default: object = None) -> object:
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def _activation_tail(g: _Graph, tensor: str) -> list[onnx.NodeProto]:
    """A Relu, or a Clip with constant bounds, that alone reads `tensor`."""
    node = g.only_consumer(tensor)
    if node is None or node.op_type not in ACTIVATIONS:
        return []
    if node.op_type == "Clip" and any(n and n not in g.inits for n in node.input[1:]):
        return []
    return [node]


def _product(g: _Graph, node: onnx.NodeProto) -> Unit | str:
    """A Conv/Gemm/MatMul unit, or why it stays float."""
    x, w = node.input[0], node.input[1]
    if x not in g.float:
        return "input-not-float"
    unit = Unit(node, inputs=[x])
    if node.op_type == "MatMul" and w in g.float:  # two activations (attention)
        unit.inputs.append(w)
    elif w not in g.inits:
        return "weight-not-constant"
    elif node.op_type == "Conv":
        if g.constant(w).ndim != 4:  # type: ignore[union-attr]
            return "not-2d"
        unit.weight = (1, 0)
    elif node.op_type == "Gemm":
        unit.weight = (1, 0 if _attr(node, "transB", 0) else 1)
    else:
        rank = g.constant(w).ndim  # type: ignore[union-attr]
        unit.weight = (1, rank - 1 if rank > 1 else None)
    if len(node.input) > 2 and node.input[2]:
        if node.input[2] not in g.inits:
            return "bias-not-constant"
        if node.op_type == "Conv" or (_attr(node, "alpha", 1.0) == 1.0 and _attr(node, "beta", 1.0) == 1.0):
            unit.bias = 2
    out = node.output[0]
    add = g.only_consumer(out)
    if add is not None and add.op_type == "Add" and any(i in g.inits for i in add.input):
        unit.tail.append(add)
        out = add.output[0]
    unit.tail += _activation_tail(g, out)
    return unit


def _unit(g: _Graph, node: onnx.NodeProto) -> Unit | str:
    """The unit `node` anchors, or why it stays float."""
    op = node.op_type
    if op in PRODUCTS:
        return _product(g, node)
    if op in BINARY:
        ins = list(node.input)
        if not any(i in g.float for i in ins) or not all(i in g.float or i in g.inits for i in ins):
            return "operand-not-float"
        unit = Unit(node, inputs=[i for i in ins if i in g.float], constants=[k for k, i in enumerate(ins) if i in g.inits])
        unit.tail = _activation_tail(g, node.output[0])
        return unit
    if op == "Concat":
        if not all(i in g.float for i in node.input):
            return "operand-not-float"
        return Unit(node, inputs=list(node.input))
    if op in SAME_SCALE or op in AVERAGES:
        if node.input[0] not in g.float:
            return "input-not-float"
        if op == "MaxPool" and len(node.output) > 1 and node.output[1]:
            return "indices"
        if op == "AveragePool" and (_attr(node, "ceil_mode", 0) or (any(_attr(node, "pads", [])) and not _attr(node, "count_include_pad", 0))):
            return "window-count-varies"
        return Unit(node, inputs=[node.input[0]])
    if op in ACTIVATIONS:
        return "after-a-float-op"  # a Relu/Clip after a quantized op is fused into it
    return "no-integer-form"


def annotate(model: onnx.ModelProto, skip: Iterable[str] = ()) -> Plan:
    """The units of `model` (batch norms already folded) and what stays float.
    `skip`: names of nodes (or of their first output) to leave in float."""
    g = _Graph(model)
    skipped = set(skip)
    names = {node_name(n) for n in model.graph.node} | {o for n in model.graph.node for o in n.output}
    unknown = sorted(skipped - names)
    if unknown:
        raise LaminaError(
            f"quantize: skip names {unknown} match no node (give a node's name, or its first output's)"
        )
    units: list[Unit] = []
    left: list[LeftInFloat] = []
    absorbed: set[int] = set()
    for node in model.graph.node:
        if id(node) in absorbed:
            continue
        got: Unit | str = "skipped" if {node_name(node), node.output[0]} & skipped else _unit(g, node)
        if isinstance(got, Unit) and any({node_name(t), t.output[0]} & skipped for t in got.tail):
            got.tail = got.tail[: next(k for k, t in enumerate(got.tail) if {node_name(t), t.output[0]} & skipped)]
        if isinstance(got, str):
            if node.op_type not in NOT_LISTED and any(i in g.float for i in node.input):
                left.append(LeftInFloat(node_name(node), node.op_type, got))
            continue
        units.append(got)
        absorbed.update(id(t) for t in got.tail)
    tensors = list(dict.fromkeys(t for u in units for t in u.inputs))
    same = {u.output: u.inputs[0] for u in units if u.anchor.op_type in SAME_SCALE and u.output in tensors}
    return Plan(units, [t for t in tensors if t not in same], same, left)


# ------------------------------------------------------------ batch norms
def fold_batch_norms(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of `model` with each BatchNormalization that alone reads a Conv
    (constant weight, bias and statistics) folded into it."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    g = _Graph(out)
    drop: set[int] = set()
    for conv in out.graph.node:
        bn = g.only_consumer(conv.output[0]) if conv.op_type == "Conv" else None
        if bn is None or bn.op_type != "BatchNormalization" or len([o for o in bn.output if o]) != 1:
            continue
        params = [g.constant(n) for n in [conv.input[1], *bn.input[1:5]]]
        bias = g.constant(conv.input[2]) if len(conv.input) > 2 and conv.input[2] else None
        if any(p is None for p in params) or (len(conv.input) > 2 and conv.input[2] and bias is None):
            continue
        w, gamma, beta, mean, var = (p.astype(np.float64) for p in params)  # type: ignore[union-attr]
        factor = gamma / np.sqrt(var + float(_attr(bn, "epsilon", 1e-5)))  # type: ignore[arg-type]
        b = (np.zeros_like(mean) if bias is None else bias.astype(np.float64)) - mean
        w_name, b_name = f"{conv.input[1]}_bn_folded", f"{bn.output[0]}_bias_folded"
        out.graph.initializer.extend([
            numpy_helper.from_array((w * factor.reshape(-1, 1, 1, 1)).astype(np.float32), w_name),
            numpy_helper.from_array((b * factor + beta).astype(np.float32), b_name),
        ])
        del conv.input[1:]
        conv.input.extend([w_name, b_name])
        conv.output[0] = bn.output[0]
        drop.add(id(bn))
    kept = [n for n in out.graph.node if id(n) not in drop]
    del out.graph.node[:]
    out.graph.node.extend(kept)
    used = {i for n in out.graph.node for i in n.input}
    live = [i for i in out.graph.initializer if i.name in used]
    del out.graph.initializer[:]
    out.graph.initializer.extend(live)
    return out


__all__ = [
    "LeftInFloat",
    "Plan",
    "Unit",
    "annotate",
    "fold_batch_norms",
    "node_name",
]
