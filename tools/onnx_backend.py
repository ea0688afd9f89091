"""ONNX's backend API (`onnx.backend.base`) for lamina, like `onnxruntime.backend`.

    import lamina.tools.onnx_backend as backend
    rep = backend.prepare(model)              # compile (or defer: see below)
    outputs = rep.run([x])                    # a namedtuple-like list of arrays
    outputs = backend.run_model(model, [x])
    outputs = backend.run_node(node, [x, y])  # one node, as a one-node model

`onnx.backend.test.BackendTest(lamina.tools.onnx_backend.LaminaBackend, __name__)`
runs ONNX's conformance suite on lamina.

A model with symbolic dimensions is compiled once with them symbolic (an input
with no shape at all gets one symbolic dim per axis of the first array it is run
on). Specialization is an option (`specialize=True`, or the environment variable
`LAMINA_ONNX_SPECIALIZE=1`), for comparison and for what symbolic dims do not
cover yet:

- an input with a symbolic (or unknown) dimension, or no shape at all, takes its shape
  from the array given to `run`; the model is compiled at the first `run` and again
  for each new combination of shapes (each compiled model is cached);
- an input that the importer reads as structure (a Reshape's `shape`, a Slice's
  `starts`, a Range's `limit`, or a graph input such a value is computed from),
  which it would otherwise compute with when the model runs, is bound to the
  value given to `run` as an initializer, and the compiled model is cached per
  such value. Only small shape-like values are bound: rank 0 or 1, at
  most `MAX_SPECIALIZED` elements, not bool; a data tensor (NonZero's input, say) is
  never turned into a constant (`specialize_constants=False` refuses always).

A model whose shapes are static and whose shape-like inputs are initializers is
compiled by `prepare` itself, so every import or compile error surfaces there.
An op lamina does not implement raises `lamina.UnsupportedOpError`, which is a
`NotImplementedError`, so harnesses can tell "unsupported" from "wrong".
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

from lamina.driver import compile as lamina_compile
from lamina.errors import FrontendError, InputError, LaminaError, UnsupportedOpError
from lamina.frontends.onnx import from_onnx, load_model, unwrap_model
from lamina.frontends.onnx.registry import has_converter, unsupported_summary

#: The importer's message for an input it needs as a constant (frontends/onnx.py,
#: `NodeContext.const_value`): "[graph ]input #i ('name') must be a constant".
_NEEDS_CONSTANT = re.compile(r"input #\d+ \('(?P<name>[^']*)'\) must be a constant")

#: The largest input (in elements) that is bound to its value; see the docstring.
MAX_SPECIALIZED = 16

#: prepare/run_model keywords lamina uses; any other keyword (e.g. the rtol/atol
#: that onnx's test runner forwards) is ignored, as onnxruntime's backend does.
_COMPILE_KWARGS = ("opt_level", "num_threads", "targets")


def supports_device(device: str) -> bool:
    """lamina compiles for the host CPU only."""
    try:
        return Device(device.upper()).type == DeviceType.CPU
    except (AttributeError, ValueError):
        return False


def _check_device(device: str | None) -> None:
    if device is not None and not supports_device(device):
        raise LaminaError(
            f"device '{device}' is not supported: lamina compiles for the host CPU; "
            "use device='CPU'"
        )


def _load(model: Any) -> onnx.ModelProto:
    model = unwrap_model(model)  # lamina.quantize's QuantizedModel: its QDQ model
    if isinstance(model, onnx.ModelProto):
        return model
    if isinstance(model, (bytes, bytearray)):
        try:
            return onnx.ModelProto.FromString(bytes(model))
        except Exception as e:  # protobuf's DecodeError
            raise FrontendError(f"the bytes are not a valid ONNX model ({e})") from None
    if isinstance(model, (str, os.PathLike)):
        return load_model(model)
    raise FrontendError(
        f"cannot prepare a {type(model).__name__}: give an onnx.ModelProto, a path to "
        "an .onnx file, its serialized bytes or lamina.quantize's QuantizedModel"
    )


def check_supported(model: onnx.ModelProto) -> None:
    """Raise `UnsupportedOpError` naming every node whose op lamina cannot import."""
    bad = [n for n in model.graph.node if not has_converter(n)]
    if bad:
        raise UnsupportedOpError(unsupported_summary(bad, _default_opset(model), model.graph.node))


def _default_opset(model: onnx.ModelProto) -> int:
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return 1


def _static_shape(vi: onnx.ValueInfoProto) -> tuple[int, ...] | None:
    """The input's shape if every dimension is known, else None."""
    t = vi.type
    if not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
        return None
    dims = []
    for d in t.tensor_type.shape.dim:
        if not d.HasField("dim_value") or d.dim_value < 0:
            return None
        dims.append(d.dim_value)
    return tuple(dims)


#: Set to 1 to specialize by default (see the module docstring).
SPECIALIZE_ENV = "LAMINA_ONNX_SPECIALIZE"


def specialize_default() -> bool:
    return os.environ.get(SPECIALIZE_ENV, "0").strip() not in ("", "0")


def _has_shape(vi: onnx.ValueInfoProto) -> bool:
    return vi.type.HasField("tensor_type") and vi.type.tensor_type.HasField("shape")


def _small(shape: Sequence[int]) -> bool:
    return len(shape) <= 1 and int(np.prod(shape, dtype=np.int64)) <= MAX_SPECIALIZED


def _specializable(a: np.ndarray) -> bool:
    """Whether a run-time value may be bound as a constant (small, shape-like)."""
    return a.dtype != np.bool_ and _small(a.shape)


class LaminaRep(BackendRep):
    """A prepared model: `run(inputs)` returns its outputs, compiled by lamina."""

    def __init__(
        self,
        model: onnx.ModelProto,
        specialize_constants: bool | None = None,
        specialize: bool | None = None,
        **compile_kwargs: Any,
    ) -> None:
        self.model = model
        self.specialize = specialize_default() if specialize is None else specialize
        self.specialize_constants = (
            self.specialize if specialize_constants is None else specialize_constants
        )
        self._compile_kwargs = compile_kwargs
        #: Whether structure inputs may be values the model computes when it runs
        #: (off while specializing, until one is not a graph input to bind).
        self._run_time_values = not self.specialize_constants
        init = {t.name for t in model.graph.initializer}
        #: The inputs `run` takes, in order (initializers listed as inputs are not).
        self.inputs = [vi for vi in model.graph.input if vi.name not in init]
        self.input_names = [vi.name for vi in self.inputs]
        self.output_names = [o.name for o in model.graph.output]
        self._static = {vi.name: _static_shape(vi) for vi in self.inputs}
        #: Inputs found to be needed as constants (bound to their run-time values).
        self.frozen: list[str] = []
        self._why: dict[str, FrontendError] = {}
        self._cache: dict[Any, Any] = {}
        check_supported(model)
        if all(
            s is not None or (not self.specialize and _has_shape(vi))
            for vi, s in zip(self.inputs, self._static.values(), strict=True)
        ):
            self._compile_for(None)

    # ------------------------------------------------------------- compiling
    def _compile_for(self, given: Mapping[str, np.ndarray] | None) -> Any:
        """The compiled model for these inputs (None: from the declared shapes)."""
        while True:
            if given is None and self.frozen:
                return None  # needs run-time values
            key = self._key(given)
            if key in self._cache:
                return self._cache[key]
            for name in self.frozen:
                if given is not None and not _specializable(given[name]):
                    raise self._why[name]
            model, shapes = self._specialized(given)
            try:
                # Specializing on values: structure inputs must be constants, so
                # that the import names each one to bind (see _constant_needed).
                module = from_onnx(model, shapes, run_time_values=self._run_time_values)
                exe = lamina_compile(module, **self._compile_kwargs)
            except UnsupportedOpError:
                raise
            except FrontendError as e:
                name = self._constant_needed(e)
                if name is None and not self._run_time_values and _NEEDS_CONSTANT.search(str(e)):
                    # Computed inside the model (e.g. from a loop's iteration
                    # number), not a graph input to bind: read it at run time.
                    self._run_time_values = True
                    continue
                if name is None:
                    raise
                self.frozen.append(name)
                self._why[name] = e
                continue
            self._cache[key] = exe
            return exe

    def _constant_needed(self, e: FrontendError) -> str | None:
        """The graph input the importer needs as a constant, if that's the error
        and the input may be bound to its value."""
        m = _NEEDS_CONSTANT.search(str(e))
        if not (self.specialize_constants and m):
            return None
        name = m.group("name")
        if name not in self.input_names or name in self.frozen:
            return None
        vi = self.inputs[self.input_names.index(name)]
        elem = vi.type.tensor_type.elem_type
        shape = self._static[name]
        if elem == onnx.TensorProto.BOOL or (shape is not None and not _small(shape)):
            return None
        return name

    def _key(self, given: Mapping[str, np.ndarray] | None) -> tuple[Any, ...]:
        """What the compiled model depends on: dynamic shapes and frozen values."""
        key: list[Any] = []
        if given is None:
            return ()
        for name in self.input_names:
            a = given[name]
            if name in self.frozen:
                key.append((name, a.dtype.str, a.shape, a.tobytes()))
            elif self._static[name] is None and self.specialize:
                key.append((name, a.shape))
            elif not _has_shape(self.inputs[self.input_names.index(name)]):
                key.append((name, a.ndim))  # symbolic dims of this rank
        return tuple(key)

    def _specialized(
        self, given: Mapping[str, np.ndarray] | None
    ) -> tuple[onnx.ModelProto, dict[str, tuple[int, ...]]]:
        shapes: dict[str, tuple[int, ...]] = {}
        if given is not None and self.specialize:
            for name in self.input_names:
                if name not in self.frozen and self._static[name] is None:
                    shapes[name] = tuple(given[name].shape)
        shapeless = [vi.name for vi in self.inputs if not _has_shape(vi)]
        if not self.frozen and (self.specialize or not shapeless):
            return self.model, shapes
        assert given is not None
        model = onnx.ModelProto()
        model.CopyFrom(self.model)
        if not self.specialize:  # one symbolic dim per axis of the given array
            for vi in model.graph.input:
                if vi.name in shapeless:
                    dims = vi.type.tensor_type.shape.dim
                    for axis in range(given[vi.name].ndim):
                        dims.add().dim_param = f"{vi.name}_{axis}"
        keep = [vi for vi in model.graph.input if vi.name not in self.frozen]
        del model.graph.input[:]
        model.graph.input.extend(keep)
        for name in self.frozen:
            model.graph.initializer.append(numpy_helper.from_array(given[name], name))
        return model, shapes

    # --------------------------------------------------------------- running
    def _bind(self, inputs: Any) -> dict[str, np.ndarray]:
        names = self.input_names
        if isinstance(inputs, Mapping):
            unknown = [k for k in inputs if k not in names]
            if unknown:
                raise InputError(
                    f"unknown input(s) {unknown}; the model's inputs are {names}"
                )
            given = dict(inputs)
        else:
            if isinstance(inputs, np.ndarray) or np.isscalar(inputs):
                inputs = [inputs]
            inputs = list(inputs)
            if len(inputs) != len(names):
                raise InputError(
                    f"the model takes {len(names)} input(s) {names}, got {len(inputs)}"
                )
            given = dict(zip(names, inputs, strict=True))
        missing = [n for n in names if n not in given]
        if missing:
            raise InputError(f"missing input(s): {missing}")
        return {n: np.asarray(given[n]) for n in names}

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Run on a list (in input order), a dict (by name) or a single array."""
        given = self._bind(inputs)
        exe = self._compile_for(given)
        feeds = {n: given[n] for n in exe.input_names}
        outs = exe.run(**feeds)
        return namedtupledict("Outputs", self.output_names)(*outs)


class LaminaBackend(Backend):
    """onnx.backend.base.Backend for lamina (host CPU)."""

    @classmethod
    def is_compatible(
        cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any
    ) -> bool:
        """Only the device is checked, as onnxruntime does: onnx's runner skips an
        incompatible model, and an unsupported op must fail loudly (with
        `UnsupportedOpError` from `prepare`), not turn into a skip."""
        return supports_device(device)

    @classmethod
    def prepare(cls, model: Any, device: str = "CPU", **kwargs: Any) -> LaminaRep:
        """Import and (when shapes are static) compile `model`.

        Keywords: `opt_level`, `num_threads`, `targets` (as `lamina.compile`),
        `specialize` (default: `LAMINA_ONNX_SPECIALIZE`, else False),
        `specialize_constants` (default: as `specialize`) and `check` (run onnx's
        checker, default True); others are ignored.
        """
        _check_device(device)
        proto = _load(model)
        if kwargs.get("check", True):
            try:
                # A path lets the checker handle models over protobuf's 2 GiB.
                path = isinstance(model, (str, os.PathLike))
                onnx.checker.check_model(os.fspath(model) if path else proto)
            except onnx.checker.ValidationError as e:
                raise FrontendError(f"the model is not valid ONNX: {e}") from None
        compile_kwargs = {k: kwargs[k] for k in _COMPILE_KWARGS if k in kwargs}
        return LaminaRep(
            proto,
            specialize_constants=kwargs.get("specialize_constants"),
            specialize=kwargs.get("specialize"),
            **compile_kwargs,
        )

    @classmethod
    def run_model(
        cls, model: Any, inputs: Any, device: str = "CPU", **kwargs: Any
    ) -> tuple[Any, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(
        cls,
        node: onnx.NodeProto,
        inputs: Any,
        device: str = "CPU",
        outputs_info: Sequence[tuple[np.dtype, tuple[int, ...]]] | None = None,
        **kwargs: Any,
    ) -> tuple[Any, ...]:
        """Run one node: it becomes a one-node model over its inputs' types.

        `inputs` is a list matching the node's non-empty inputs, or a dict by name.
        `opset_version` (a keyword) picks the opset; the default is onnx's newest.
        """
        _check_device(device)
        model = node_model(
            node, inputs, outputs_info, kwargs.pop("opset_version", None)
        )
        return cls.prepare(model, device, check=False, **kwargs).run(
            _node_feeds(node, inputs)
        )

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return supports_device(device)


def _node_feeds(node: onnx.NodeProto, inputs: Any) -> dict[str, np.ndarray]:
    names = list(dict.fromkeys(n for n in node.input if n))
    if isinstance(inputs, Mapping):
        return {n: np.asarray(inputs[n]) for n in names}
    if isinstance(inputs, np.ndarray):
        inputs = [inputs]
    inputs = list(inputs)
    real = [n for n in node.input if n]
    if len(inputs) == len(real):  # one array per (possibly repeated) input name
        return {n: np.asarray(a) for n, a in zip(real, inputs, strict=True)}
    if len(inputs) != len(names):
        raise InputError(
            f"node {node.op_type} has {len(names)} input(s) {names}, got {len(inputs)}"
        )
    return {n: np.asarray(a) for n, a in zip(names, inputs, strict=True)}


def node_model(
    node: onnx.NodeProto,
    inputs: Any,
    outputs_info: Sequence[tuple[Any, Sequence[int]]] | None = None,
    opset_version: int | None = None,
) -> onnx.ModelProto:
    """A model whose graph is `node` alone, typed from the input arrays."""
    feeds = _node_feeds(node, inputs)
    graph_inputs = [
        helper.make_tensor_value_info(
            n, helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape)
        )
        for n, a in feeds.items()
    ]
    outs = [o for o in node.output if o]
    if outputs_info is not None:
        graph_outputs = [
            helper.make_tensor_value_info(
                n, helper.np_dtype_to_tensor_dtype(np.dtype(dt)), list(shape)
            )
            for n, (dt, shape) in zip(outs, outputs_info, strict=False)
        ]
    else:
        graph_outputs = [helper.make_empty_tensor_value_info(n) for n in outs]
    graph = helper.make_graph(
        [node], f"lamina_run_node_{node.op_type}", graph_inputs, graph_outputs
    )
    version = opset_version or onnx.defs.onnx_opset_version()
    opsets = [helper.make_opsetid("", version)]
    if node.domain not in ("", "ai.onnx"):
        opsets.append(helper.make_opsetid(node.domain, 1))
    return helper.make_model(graph, opset_imports=opsets)


is_compatible = LaminaBackend.is_compatible
prepare = LaminaBackend.prepare
run_model = LaminaBackend.run_model
run_node = LaminaBackend.run_node
run = run_model

__all__ = [
    "LaminaBackend",
    "LaminaRep",
    "check_supported",
    "is_compatible",
    "node_model",
    "prepare",
    "run",
    "run_model",
    "run_node",
    "supports_device",
]
