"""Realize: the QDQ ONNX model of a plan and its calibrated ranges (TVM's
realize step, written as onnxruntime's QDQ format, which lamina's importer and
`qnn-fold-qdq` turn into integer ops and onnxruntime runs as int8).

- activations: u8, asymmetric, from the range widened to hold 0:
  `scale = (max - min) / 255`, `zero_point = rint(-min / scale)` (as
  onnxruntime computes them); a QuantizeLinear -> DequantizeLinear pair after
  each calibrated tensor, read by every consumer (a graph output keeps the
  float value); a same-scale op's output reuses its input's scale;
- weights: s8, symmetric (`scale = max|w| / 127`, zero point 0), per output
  channel (a conv's axis 0, a Gemm's N axis, a MatMul's last axis) or per tensor;
- a Conv/Gemm bias: i32 at `x_scale * w_scale`, zero point 0;
- an Add/Mul's constant operand: u8 per tensor, from its own range.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

from lamina.errors import LaminaError
from lamina.quantization.annotate import Plan, Unit

#: DequantizeLinear per axis needs opset 13.
MIN_OPSET = 13
I32_MAX = np.iinfo(np.int32).max


def activation_params(lo: float, hi: float) -> tuple[np.float32, np.uint8]:
    """u8 scale and zero point of the range [lo, hi] (widened to hold 0)."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    scale = np.float32((hi - lo) / 255.0) if hi > lo else np.float32(1.0)
    zp = np.uint8(np.clip(np.rint(-lo / np.float64(scale)), 0, 255))
    return scale, zp


def weight_params(w: np.ndarray, axis: int | None) -> tuple[np.ndarray, np.ndarray]:
    """s8 symmetric: the integers and the scale (a vector along `axis`, or a scalar)."""
    reduce = tuple(a for a in range(w.ndim) if a != axis) if axis is not None else None
    top = np.abs(w.astype(np.float64)).max(axis=reduce, keepdims=axis is not None) if w.size else np.zeros(())
    scale = np.where(top > 0, top / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.rint(w / scale.astype(np.float64)), -127, 127).astype(np.int8)
    return q, scale.reshape(-1) if axis is not None else scale.reshape(())


class _Writer:
    """New nodes and initializers of the QDQ model."""

    def __init__(self) -> None:
        self.inits: list[onnx.TensorProto] = []
        self.done: dict[str, str] = {}

    def const(self, name: str, value: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def dequantize(self, name: str, q: np.ndarray, scale: np.ndarray, zp: np.ndarray, axis: int | None) -> tuple[str, onnx.NodeProto]:
        attrs = {"axis": axis} if axis is not None and np.ndim(scale) == 1 else {}
        node = helper.make_node(
            "DequantizeLinear",
            [self.const(f"{name}_quantized", q), self.const(f"{name}_scale", scale), self.const(f"{name}_zero_point", zp)],
            [f"{name}_dequantized"], name=f"{name}_DequantizeLinear", **attrs,
        )
        return node.output[0], node


def _pair(w: _Writer, t: str, scale: np.float32, zp: np.uint8) -> list[onnx.NodeProto]:
    s, z = w.const(f"{t}_scale", np.asarray(scale)), w.const(f"{t}_zero_point", np.asarray(zp))
    return [
        helper.make_node("QuantizeLinear", [t, s, z], [f"{t}_quantized"], name=f"{t}_QuantizeLinear"),
        helper.make_node("DequantizeLinear", [f"{t}_quantized", s, z], [f"{t}_dequantized"], name=f"{t}_DequantizeLinear"),
    ]


def _constants(unit: Unit, node: onnx.NodeProto, inits: dict[str, np.ndarray], params: dict[str, tuple[np.float32, np.uint8]],
               per_channel: bool, w: _Writer) -> list[onnx.NodeProto]:
    """Rewire `unit`'s weight, bias and constant operands to dequantized
    integers (in place on `node`); the DequantizeLinear nodes they need."""
    out: list[onnx.NodeProto] = []
    w_scale: np.ndarray | None = None
    if unit.weight is not None:
        k, axis = unit.weight
        axis = axis if per_channel else None
        q, w_scale = weight_params(inits[node.input[k]], axis)
        name, dq = w.dequantize(f"{node.input[k]}_{node.output[0]}", q, w_scale, np.zeros(w_scale.shape, np.int8), axis)
        node.input[k] = name
        out.append(dq)
    if unit.bias is not None and w_scale is not None:
        b = inits[node.input[unit.bias]].astype(np.float64)
        unit_scale = (params[unit.inputs[0]][0] * w_scale).astype(np.float32)
        ints = np.rint(b / unit_scale.astype(np.float64))
        if b.ndim == 1 and np.abs(ints).max(initial=0) <= I32_MAX:
            name, dq = w.dequantize(f"{node.input[unit.bias]}_{node.output[0]}", ints.astype(np.int32), unit_scale,
                                    np.zeros(unit_scale.shape, np.int32), 0)
            node.input[unit.bias] = name
            out.append(dq)
    for k in unit.constants:
        c = inits[node.input[k]]
        scale, zp = activation_params(float(c.min(initial=0)), float(c.max(initial=0)))
        q = np.clip(np.rint(c / np.float64(scale)) + int(zp), 0, 255).astype(np.uint8)
        name, dq = w.dequantize(f"{node.input[k]}_{node.output[0]}", q, np.asarray(scale), np.asarray(zp), None)
        node.input[k] = name
        out.append(dq)
    return out


def realize(model: onnx.ModelProto, plan: Plan, ranges: dict[str, tuple[float, float]], per_channel: bool = True) -> onnx.ModelProto:
    """The QDQ model: `model` with the plan's activations, weights, biases and
    constants quantized (`ranges`: each calibrated tensor's [min, max])."""
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    if opset < MIN_OPSET:
        raise LaminaError(
            f"quantize: the model's opset {opset} is older than {MIN_OPSET} (DequantizeLinear per "
            f"axis); convert it first: onnx.version_converter.convert_version(model, {MIN_OPSET})"
        )
    missing = [t for t in plan.tensors if t not in ranges]
    if missing:
        raise LaminaError(f"quantize: no calibrated range for {missing[:5]}")
    quantized = [*plan.tensors, *plan.same]
    params = {t: activation_params(*ranges[plan.root(t)]) for t in quantized}
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    units = {id(u.anchor): u for u in plan.units}
    w = _Writer()
    nodes: list[onnx.NodeProto] = []
    for t in quantized:
        if t in {i.name for i in model.graph.input}:
            nodes += _pair(w, t, *params[t])
    for original in model.graph.node:
        node = onnx.NodeProto()
        node.CopyFrom(original)
        for k, name in enumerate(node.input):
            if name in params:
                node.input[k] = f"{name}_dequantized"
        unit = units.get(id(original))
        if unit is not None:
            nodes += _constants(unit, node, inits, params, per_channel, w)
        nodes.append(node)
        for o in node.output:
            if o in params:
                nodes += _pair(w, o, *params[o])
    out = onnx.ModelProto()
    out.CopyFrom(model)
    del out.graph.node[:]
    out.graph.node.extend(nodes)
    out.graph.initializer.extend(w.inits)
    used = {i for n in out.graph.node for i in n.input}
    live = [i for i in out.graph.initializer if i.name in used]
    del out.graph.initializer[:]
    out.graph.initializer.extend(live)
    return out


__all__ = ["MIN_OPSET", "activation_params", "realize", "weight_params"]
