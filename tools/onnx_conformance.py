"""ONNX's backend test suite as data: its cases, the ops each exercises, and which
of them are in lamina's scope.

Used by `tests/test_onnx_backend.py` (which cases to run: those whose every op has a
converter) and by `bench/conformance.py` (the pass rate over every in-scope case).

The node cases are built in memory by `onnx.backend.test.loader` (onnx >= 1.17 ships
no `data/node` folder); the `simple`, `pytorch-converted` and `pytorch-operator`
cases are read from onnx's `backend/test/data/<kind>/<test>/` folders.

In scope (`out_of_scope(model) is None`) is decided from the model alone:

- every node, including those of If/Loop/Scan bodies, is in the default domain
  (`""` / `ai.onnx`), so no `ai.onnx.ml`, `ai.onnx.preview(.training)`;
- every graph input and output is a tensor (no sequence, optional, map or sparse
  tensor) whose element type is one of f32, f64, int8, int16, int32, int64, uint8,
  uint16, bool (`IN_SCOPE_DTYPES`); the same holds for initializers, tensor attributes
  (e.g. Constant's value) and dtype attributes (Cast's `to`, `dtype`,
  `output_dtype`), so a hidden cast to fp16 is out too. Out: fp16, bf16, fp8, fp4,
  int2/int4/uint2/uint4, uint32/64, complex, string;
- no random op (RandomNormal*, RandomUniform*, Bernoulli, Multinomial), no training
  op (`*Grad`, Gradient, Adagrad, Adam, Momentum), no Dropout in training mode
  (a `training_mode` input that is not a constant false), and no sequence or optional
  op (Sequence*, SplitToSequence, ConcatFromSequence, Optional*).
"""

from __future__ import annotations

import glob
import json
import os
import re
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, numpy_helper

#: Element types a case may use and still be in scope.
IN_SCOPE_DTYPES = frozenset(
    {
        TensorProto.FLOAT,
        TensorProto.DOUBLE,
        TensorProto.INT8,
        TensorProto.INT16,
        TensorProto.INT32,
        TensorProto.INT64,
        TensorProto.UINT8,
        TensorProto.UINT16,
        TensorProto.BOOL,
    }
)
RANDOM_OPS = frozenset(
    {
        "RandomNormal",
        "RandomNormalLike",
        "RandomUniform",
        "RandomUniformLike",
        "Bernoulli",
        "Multinomial",
    }
)
TRAINING_OPS = frozenset({"Gradient", "Adagrad", "Adam", "Momentum"})
SEQUENCE_OPS = frozenset(
    {
        "SequenceAt",
        "SequenceConstruct",
        "SequenceEmpty",
        "SequenceErase",
        "SequenceInsert",
        "SequenceLength",
        "SequenceMap",
        "SplitToSequence",
        "ConcatFromSequence",
        "Optional",
        "OptionalGetElement",
        "OptionalHasElement",
    }
)
DEFAULT_DOMAINS = ("", "ai.onnx")
#: Attributes whose integer value is an element type.
_DTYPE_ATTRS = frozenset({"to", "dtype", "output_dtype"})
_EXPANDED = re.compile(r"_expanded(_ver\d+)?$")

DATA_DIR = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
MODEL_KINDS = ("simple", "pytorch-converted", "pytorch-operator")


@dataclass
class Case:
    """One test of onnx's backend suite (device-independent name, e.g. `test_add`)."""

    name: str
    kind: str  # node, simple, pytorch-converted, pytorch-operator
    model: onnx.ModelProto
    rtol: float
    atol: float
    model_dir: str | None = None
    _data: list[tuple[list[np.ndarray], list[np.ndarray]]] | None = None

    @property
    def data_sets(self) -> list[tuple[list[np.ndarray], list[np.ndarray]]]:
        """(inputs, expected outputs) pairs."""
        if self._data is None:
            assert self.model_dir is not None
            self._data = _read_data_sets(self.model_dir, self.model)
        return self._data


def _dtype_name(t: int) -> str:
    return TensorProto.DataType.Name(t).lower()


def iter_nodes(graph: onnx.GraphProto) -> Iterator[onnx.NodeProto]:
    """Every node of `graph`, then of its subgraphs (If/Loop/Scan bodies)."""
    for node in graph.node:
        yield node
        for a in node.attribute:
            if a.type == AttributeProto.GRAPH:
                yield from iter_nodes(a.g)
            elif a.type == AttributeProto.GRAPHS:
                for g in a.graphs:
                    yield from iter_nodes(g)


def _iter_graphs(graph: onnx.GraphProto) -> Iterator[onnx.GraphProto]:
    yield graph
    for node in graph.node:
        for a in node.attribute:
            if a.type == AttributeProto.GRAPH:
                yield from _iter_graphs(a.g)
            elif a.type == AttributeProto.GRAPHS:
                for g in a.graphs:
                    yield from _iter_graphs(g)


def op_name(node: onnx.NodeProto) -> str:
    """`Add` for the default domain, `ai.onnx.ml:LabelEncoder` otherwise."""
    if node.domain in DEFAULT_DOMAINS:
        return node.op_type
    return f"{node.domain}:{node.op_type}"


def op_types(model: onnx.ModelProto) -> frozenset[str]:
    """Every op the model uses, subgraphs included (see `op_name`)."""
    return frozenset(op_name(n) for n in iter_nodes(model.graph))


def _type_reason(t: onnx.TypeProto) -> str | None:
    kind = t.WhichOneof("value")
    if kind != "tensor_type":
        return f"{(kind or 'untyped').replace('_type', '')} value"
    if t.tensor_type.elem_type not in IN_SCOPE_DTYPES:
        return f"dtype {_dtype_name(t.tensor_type.elem_type)}"
    return None


def _const_false(graph: onnx.GraphProto, name: str) -> bool:
    for t in graph.initializer:
        if t.name == name:
            return not bool(numpy_helper.to_array(t).any())
    for n in graph.node:
        if n.op_type == "Constant" and name in n.output:
            for a in n.attribute:
                if a.name == "value":
                    return not bool(numpy_helper.to_array(a.t).any())
    return False


def out_of_scope(model: onnx.ModelProto) -> str | None:
    """Why the model is out of scope (see the module's docstring), or None."""
    for g in _iter_graphs(model.graph):
        for vi in (*g.input, *g.output):
            if g is model.graph or vi.type.WhichOneof("value") is not None:
                r = _type_reason(vi.type)
                if r:
                    return r
        for t in g.initializer:
            if t.data_type not in IN_SCOPE_DTYPES:
                return f"dtype {_dtype_name(t.data_type)}"
        if g.sparse_initializer:
            return "sparse tensor"
        for node in g.node:
            if node.domain not in DEFAULT_DOMAINS:
                return f"domain {node.domain}"
            op = node.op_type
            if op in RANDOM_OPS:
                return f"random op {op}"
            if op in TRAINING_OPS or op.endswith("Grad"):
                return f"training op {op}"
            if op in SEQUENCE_OPS:
                return f"sequence/optional op {op}"
            if (
                op == "Dropout"
                and len(node.input) > 2
                and node.input[2]
                and not _const_false(g, node.input[2])
            ):
                return "Dropout in training mode"
            for a in node.attribute:
                if (
                    a.type == AttributeProto.TENSOR
                    and a.t.data_type not in IN_SCOPE_DTYPES
                ):
                    return f"dtype {_dtype_name(a.t.data_type)}"
                if a.type == AttributeProto.SPARSE_TENSOR:
                    return "sparse tensor"
                if (
                    a.name in _DTYPE_ATTRS
                    and a.type == AttributeProto.INT
                    and a.i not in IN_SCOPE_DTYPES
                ):
                    return f"dtype {_dtype_name(a.i)}"
    return None


def symbolize(model: onnx.ModelProto) -> onnx.ModelProto:
    """`model` with every graph-input dim above 1 symbolic: one size per distinct
    value (`s28`), so dims that are equal stay equal; outputs lose their shapes
    (lamina infers them)."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    init = {t.name for t in out.graph.initializer}
    for vi in out.graph.input:
        if vi.name in init or not vi.type.HasField("tensor_type"):
            continue
        for d in vi.type.tensor_type.shape.dim:
            if d.HasField("dim_value") and d.dim_value > 1:
                value = d.dim_value
                d.Clear()
                d.dim_param = f"s{value}"
    for vi in out.graph.output:
        if vi.type.HasField("tensor_type"):
            vi.type.tensor_type.ClearField("shape")
    return out


def target_op(case: Case, by_name: dict[str, Case]) -> str:
    """The op a case tests: its node's op, or for `*_expanded` cases (a function
    body inlined) the op of the case it expands. Model cases group as `<kind>`."""
    if case.kind != "node":
        return f"<{case.kind}>"
    base = by_name.get(_EXPANDED.sub("", case.name), case)
    nodes = base.model.graph.node
    return op_name(nodes[0]) if len(nodes) == 1 else "<multi-node>"


# --------------------------------------------------------------------- loading
@cache
def node_cases() -> tuple[Case, ...]:
    """onnx's node test cases (built in memory: takes a few seconds)."""
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings():  # the generators overflow casts on purpose
        warnings.simplefilter("ignore")
        loaded = load_model_tests(kind="node")
    out = []
    for t in loaded:
        assert t.model is not None and t.data_sets is not None
        data = [
            ([_array(x) for x in ins], [_array(y) for y in outs])
            for ins, outs in t.data_sets
        ]
        out.append(Case(t.name, "node", t.model, t.rtol, t.atol, None, data))
    return tuple(out)


def _array(x: object) -> object:
    return numpy_helper.to_array(x) if isinstance(x, TensorProto) else x


@cache
def model_cases(kind: str) -> tuple[Case, ...]:
    """The cases of one on-disk kind (`simple`, `pytorch-converted`, ...)."""
    root = os.path.join(DATA_DIR, kind)
    out = []
    for name in sorted(os.listdir(root)):
        d = os.path.join(root, name)
        path = os.path.join(d, "model.onnx")
        if not os.path.isfile(path):
            continue
        rtol, atol = 1e-3, 1e-7
        meta = os.path.join(d, "data.json")
        if os.path.exists(meta):
            with open(meta) as f:
                data = json.load(f)
            rtol, atol = data.get("rtol", rtol), data.get("atol", atol)
        out.append(Case(name, kind, onnx.load(path), rtol, atol, d))
    return tuple(out)


def cases(kinds: Iterable[str] = ("node",)) -> list[Case]:
    out: list[Case] = []
    for k in kinds:
        out.extend(node_cases() if k == "node" else model_cases(k))
    return out


def _read_data_sets(
    model_dir: str, model: onnx.ModelProto
) -> list[tuple[list[np.ndarray], list[np.ndarray]]]:
    sets = []
    for d in sorted(glob.glob(os.path.join(model_dir, "test_data_set*"))):
        ins = [_read(f) for f in _numbered(d, "input")]
        outs = [_read(f) for f in _numbered(d, "output")]
        sets.append((ins, outs))
    return sets


def _numbered(d: str, prefix: str) -> list[str]:
    n = len(glob.glob(os.path.join(d, f"{prefix}_*.pb")))
    return [os.path.join(d, f"{prefix}_{i}.pb") for i in range(n)]


def _read(path: str) -> np.ndarray:
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


# ----------------------------------------------------------------- selection
def supported_by(model: onnx.ModelProto, ops: Iterable[str]) -> bool:
    """True if every op of the model (subgraphs included) is in `ops`."""
    return op_types(model) <= frozenset(ops)


def runnable_cases(
    converters: Iterable[str], kinds: Iterable[str] = ("node",)
) -> dict[str, list[str]]:
    """For each op with a converter, the in-scope cases that exercise it and use
    no op without a converter: `{op: [test names]}` (ops with no case omitted)."""
    ops = frozenset(converters)
    by_op: dict[str, list[str]] = {}
    for c in cases(kinds):
        used = op_types(c.model)
        if not used <= ops or out_of_scope(c.model) is not None:
            continue
        for op in sorted(used):
            by_op.setdefault(op, []).append(c.name)
    return by_op
