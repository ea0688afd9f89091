"""ONNX shape inference as a check on the converters: it runs once before
importing, every converted value is compared with the element type and shape it
infers (so a converter bug is reported at its node), and every inferred size is
checked against the memory budget before anything is allocated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import onnx
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.frontends.onnx.checks import check_size, memory_budget
from lamina.frontends.onnx.context import NodeContext, describe_node

#: Attributes whose default ONNX's shape inference reads otherwise than the
#: schema (and onnxruntime, and onnx.reference): STFT's onesided is 1, its
#: inference takes 0.
_INFERENCE_DEFAULTS = {"STFT": {"onesided": 1}}


def _defaults_spelled_out(node: onnx.NodeProto) -> onnx.NodeProto:
    """`node`, with the attributes whose defaults inference misreads given."""
    missing = {
        k: v for k, v in _INFERENCE_DEFAULTS.get(node.op_type, {}).items() if all(a.name != k for a in node.attribute)
    }
    if node.domain not in ("", "ai.onnx") or not missing:
        return node
    spelled = onnx.NodeProto()
    spelled.CopyFrom(node)
    spelled.attribute.extend(onnx.helper.make_attribute(k, v) for k, v in missing.items())
    return spelled


@dataclass
class Inferred:
    """What ONNX shape inference knows about every value: element type and shape
    (None for an unknown dimension)."""

    types: dict[str, tuple[int, tuple[int | None, ...] | None]]

    @classmethod
    def run(cls, proto: onnx.ModelProto, in_types: dict[str, TensorType]) -> Inferred:
        """Infer on a copy of the graph without the weights' data (small
        initializers, which may be shapes, are kept) and with the input shapes
        actually used."""
        g = proto.graph
        try:  # inference is a check, not a requirement: a model it chokes on passes
            small = [t for t in g.initializer if np.prod(t.dims, dtype=np.int64) <= 64]
            small_names = {t.name for t in small}
            inputs = [
                onnx.helper.make_tensor_value_info(
                    name, onnx_elem(t), [d if isinstance(d, int) else str(d) for d in relay.shape_of(t)]
                )
                for name, t in in_types.items()
            ] + [
                onnx.helper.make_tensor_value_info(t.name, t.data_type, list(t.dims))
                for t in g.initializer
                if t.name not in small_names and t.name not in in_types
            ]
            graph = onnx.helper.make_graph(
                [_defaults_spelled_out(n) for n in g.node], g.name or "g", inputs, list(g.output), small, value_info=list(g.value_info)
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
        for index, node in enumerate(nodes):
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
                    f"{describe_node(node, opset, index)}: output '{name}'",
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
        ours = onnx_elem(t)
        if elem and elem != ours:
            raise ctx.error(
                f"output '{name}' has element type {onnx.helper.tensor_dtype_to_np_dtype(ours)}"
                f" but ONNX infers {onnx.helper.tensor_dtype_to_np_dtype(elem)}"
            )
        shape = tuple(t.get_shape())
        if dims is not None and (
            len(dims) != len(shape)
            # a symbolic dim of ours (-1) holds any size the model declares
            or any(d is not None and s >= 0 and d != s for d, s in zip(dims, shape, strict=False))
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


def onnx_elem(t: TensorType) -> int:
    return onnx.helper.np_dtype_to_tensor_dtype(numpy_dtype(t.get_element_type()))


def as_inferred(arr: np.ndarray, inferred: Inferred, name: str) -> np.ndarray:
    """A folded value in the element type ONNX declares for it (the reference
    sometimes computes in a wider type)."""
    known = inferred.types.get(name)
    if known and known[0] and arr.dtype != object:  # object: symbolic dims
        return arr.astype(onnx.helper.tensor_dtype_to_np_dtype(known[0]), copy=False)
    return arr


__all__ = ["Inferred", "as_inferred"]
