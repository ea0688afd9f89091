"""Compile a graph-level module to native code and run it on numpy arrays.

`compile()` lowers relay -> te -> tir -> llvm, JIT-compiles the module for the host
CPU and returns a `CompiledModel`. The native entry point is
`void main(void **args, void **params, char *workspace)`: `args` holds the input
buffers then the output buffers, `params` the weights (numpy arrays, never printed
into LLVM IR) and `workspace` the planned arena for intermediates.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseResourceAttr,
    IntegerAttr,
    ModuleOp,
    TensorType,
)
from xdsl.passes import ModulePass

from lamina.dialects import relay
from lamina.dialects.resources import blobs
from lamina.errors import CompileError, InputError, LaminaError
from lamina.ir import io_names
from lamina.limits import check_size
from lamina.lowering.tir_to_llvm import BUFFER_SLACK
from lamina.runtime.dtypes import numpy_dtype

if TYPE_CHECKING:
    from lamina.passes.manager import PassContext

_ALIGN = 64
_ENTRY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


@dataclass(frozen=True)
class TensorSpec:
    """Name, shape and dtype of a model input or output."""

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype

    def describe(self) -> str:
        return f"{self.name}: {self.dtype}[{', '.join(map(str, self.shape))}]"


def aligned_empty(shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
    """An uninitialized C-contiguous array whose data is 64-byte aligned and
    followed by `BUFFER_SLACK` readable bytes (vector tails may load them)."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + _ALIGN + BUFFER_SLACK, dtype=np.uint8)
    offset = (-raw.ctypes.data) % _ALIGN
    return raw[offset : offset + nbytes].view(dtype).reshape(shape)


def aligned(arr: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A copy of `arr` as a C-contiguous, 64-byte aligned array of `dtype`, with
    the readable slack after it that compiled code may rely on (see
    `aligned_empty`)."""
    out = aligned_empty(arr.shape, dtype)
    np.copyto(out, arr, casting="no" if arr.dtype == dtype else "unsafe")
    return out


def _specs(fn: func.FuncOp, outputs: bool) -> list[TensorSpec]:
    types = fn.function_type.outputs if outputs else fn.function_type.inputs
    attrs = fn.res_attrs if outputs else fn.arg_attrs
    prefix = "output" if outputs else "input"
    specs = []
    names = io_names(attrs, prefix, len(types.data))
    for i, (t, name) in enumerate(zip(types.data, names, strict=True)):
        if not isinstance(t, TensorType):
            raise LaminaError(f"@main's {prefix} #{i} is {t}, not a tensor")
        specs.append(TensorSpec(name, tuple(t.get_shape()), numpy_dtype(t.get_element_type())))
    return specs


def _main(module: ModuleOp) -> func.FuncOp:
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == "main":
            return op
    raise LaminaError("the module has no graph function @main to compile")


def lowering_pipeline() -> list[ModulePass]:
    """relay -> te -> tir -> llvm, as passes."""
    from lamina.lowering.relay_to_te import LowerRelayToTePass
    from lamina.lowering.te_to_tir import LowerTeToTirPass
    from lamina.lowering.tir_to_llvm import LowerTirToLlvmPass
    from lamina.passes.tir_unroll import TirUnrollPass
    from lamina.passes.tir_vectorize import TirVectorizePass

    return [
        LowerRelayToTePass(),
        LowerTeToTirPass(),
        TirUnrollPass(),
        TirVectorizePass(),
        LowerTirToLlvmPass(),
    ]


def resource_types(module: ModuleOp) -> dict[str, TensorType]:
    """The tensor type of every weight blob the graph refers to."""
    types: dict[str, TensorType] = {}
    for op in module.walk():
        if isinstance(op, relay.ConstantOp) and isinstance(op.value, DenseResourceAttr):
            t = op.value.type
            assert isinstance(t, TensorType)
            types[op.value.resource_handle.data] = t
    return types


def param_arrays(keys: Sequence[str], types: dict[str, TensorType]) -> list[np.ndarray]:
    """The weights named by `keys`, as aligned arrays of their IR types."""
    out = []
    for key in keys:
        t = types.get(key)
        if t is None:  # created during lowering, e.g. from an inline dense constant
            stored = blobs.get(key)
            if stored is None:
                raise LaminaError(f"weight '{key}' has no data")
            out.append(aligned(stored, stored.dtype))
            continue
        dt = numpy_dtype(t.get_element_type())
        out.append(aligned(blobs.array(key, tuple(t.get_shape()), dt), dt))
    return out


def compile(
    model: Any,
    opt_level: int = 3,
    targets: Sequence[str] = (),
    num_threads: int | None = None,
    input_shapes: dict[str, Sequence[int]] | None = None,
    pass_context: PassContext | None = None,
) -> CompiledModel:
    """Compile an ONNX model (path or ModelProto) or a graph-level module.

    The standard pipeline for `opt_level` runs under `pass_context` (which, when
    given, also decides the opt level, required/disabled passes, config and
    instruments)."""
    from lamina.ir import context
    from lamina.passes.manager import PassContext, run_pipeline
    from lamina.runtime.jit import jit_compile

    target_names = _byoc_targets(targets)
    if isinstance(model, ModuleOp):
        module = model.clone()
    else:
        from lamina.frontends.onnx import from_onnx

        module = from_onnx(model, input_shapes)
    graph = _main(module)
    inputs, outputs = _specs(graph, False), _specs(graph, True)
    for spec in (*inputs, *outputs):  # before lowering allocates anything
        check_size(f"@main's tensor '{spec.name}'", spec.shape, spec.dtype.itemsize)
    types = resource_types(module)
    pctx = pass_context if pass_context is not None else PassContext(opt_level=opt_level)
    pctx = _with_byoc_targets(pctx, target_names, num_threads)
    run_pipeline(module, "default", pctx, mlir_ctx=context())
    keys = module.attributes.get("lamina.params")
    key_list = [k.data for k in keys.data] if isinstance(keys, ArrayAttr) else []
    params = param_arrays(key_list, types)
    ws = module.attributes.get("lamina.workspace_size")
    workspace = ws.value.data if isinstance(ws, IntegerAttr) else 0
    check_size("the compiled model's workspace", [workspace], 1, error=CompileError)
    if target_names:  # BYOC: load the external code, configure the targets
        from lamina.backends import load_external

        load_external(module, target_names, num_threads)
    native = jit_compile(module, opt_level=opt_level)
    exe = CompiledModel(native, inputs, outputs, params, workspace, num_threads)
    exe._lowered, exe._opt_level = module, opt_level  # for export()
    return exe


# ---------------------------------------------------------------- BYOC (issue 6)
def _byoc_targets(targets: Sequence[str] | str) -> list[str]:
    """Checked BYOC target names (unknown ones are a LaminaError naming the known)."""
    if not targets:
        return []
    from lamina.backends import parse_targets

    return parse_targets(targets)


def _with_byoc_targets(
    pctx: PassContext, names: list[str], num_threads: int | None
) -> PassContext:
    """`pctx` with the `byoc.targets` (and `byoc.num-threads`) config set, which
    the BYOC passes of the default pipeline (merge-composite ... external-codegen)
    and the targets' codegens read."""
    if not names:
        return pctx
    from lamina.passes.manager import PassContext

    return PassContext(
        opt_level=pctx.opt_level,
        required_passes=pctx.required_passes,
        disabled_passes=pctx.disabled_passes,
        instruments=pctx.instruments,
        config={
            **pctx.config,
            "byoc.targets": ",".join(names),
            "byoc.num-threads": num_threads or default_threads(),
        },
    )


class CompiledModel:
    """A compiled model: call `run(...)` with numpy arrays."""

    def __init__(
        self,
        native: Any,
        inputs: list[TensorSpec],
        outputs: list[TensorSpec],
        params: list[np.ndarray],
        workspace_size: int,
        num_threads: int | None = None,
    ):
        self._native = native
        self.inputs = inputs
        self.outputs = outputs
        self._params = params
        self._param_table = (ctypes.c_void_p * max(len(params), 1))(
            *[p.ctypes.data for p in params]
        )
        self.workspace_size = workspace_size
        #: The sum of every intermediate's size, which the arena (`workspace_size`,
        #: planned by liveness) shares out.
        self.intermediate_bytes: int = getattr(native, "intermediate_bytes", workspace_size)
        self._entry = _ENTRY(native.address("main"))
        self._local = threading.local()
        self.num_threads = num_threads or default_threads()
        # What export() needs: the lowered module, or the library it was loaded from.
        self._lowered: ModuleOp | None = None
        self._opt_level = 3
        self._library_path: str | os.PathLike[str] | None = None

    @property
    def input_names(self) -> list[str]:
        return [s.name for s in self.inputs]

    @property
    def output_names(self) -> list[str]:
        return [s.name for s in self.outputs]

    def _workspace(self) -> np.ndarray:
        ws = getattr(self._local, "workspace", None)
        if ws is None:
            ws = aligned_empty((max(self.workspace_size, 1),), np.dtype(np.uint8))
            self._local.workspace = ws
        return ws

    def _bind(self, args: Sequence[Any], kwargs: dict[str, Any]) -> list[np.ndarray]:
        n = len(self.inputs)
        if len(args) > n:
            raise InputError(f"the model takes {n} input(s), got {len(args)} positional")
        given: dict[str, Any] = {}
        for spec, a in zip(self.inputs, args, strict=False):
            given[spec.name] = a
        for name, a in kwargs.items():
            if name not in self.input_names:
                raise InputError(
                    f"unknown input '{name}'; the model's inputs are "
                    + ", ".join(s.describe() for s in self.inputs)
                )
            if name in given:
                raise InputError(f"input '{name}' given twice")
            given[name] = a
        missing = [s.describe() for s in self.inputs if s.name not in given]
        if missing:
            raise InputError("missing input(s): " + ", ".join(missing))
        bound = []
        staging = self._staging()
        for spec in self.inputs:
            arr = np.asarray(given[spec.name])
            if arr.shape != spec.shape:
                raise InputError(
                    f"input '{spec.name}': expected shape {spec.shape}, got {arr.shape}"
                )
            if arr.dtype != spec.dtype:
                raise InputError(
                    f"input '{spec.name}': expected dtype {spec.dtype}, got {arr.dtype}"
                )
            # Into this thread's padded input buffer (aligned, with BUFFER_SLACK).
            buf = staging[spec.name]
            np.copyto(buf, arr, casting="no")
            bound.append(buf)
        return bound

    def _staging(self) -> dict[str, np.ndarray]:
        bufs = getattr(self._local, "inputs", None)
        if bufs is None:
            bufs = {s.name: aligned_empty(s.shape, s.dtype) for s in self.inputs}
            self._local.inputs = bufs
        return bufs

    def run(self, *args: Any, **kwargs: Any) -> list[np.ndarray]:
        """Run on inputs given positionally or by name; returns the outputs."""
        ins = self._bind(args, kwargs)
        set_num_threads(self.num_threads)
        outs = [aligned_empty(s.shape, s.dtype) for s in self.outputs]
        table = (ctypes.c_void_p * max(len(ins) + len(outs), 1))(
            *[a.ctypes.data for a in (*ins, *outs)]
        )
        ws = self._workspace()
        # ctypes releases the GIL for the duration of the native call.
        self._entry(
            ctypes.addressof(table),
            ctypes.addressof(self._param_table),
            ws.ctypes.data,
        )
        return outs

    __call__ = run

    def export(self, path: str | os.PathLike[str]) -> None:
        """Write the model as one shared library; `lamina.load(path)` reloads it."""
        from lamina.runtime.export import export

        export(self, path)


def default_threads() -> int:
    """`LAMINA_NUM_THREADS`, else the number of CPUs."""
    env = os.environ.get("LAMINA_NUM_THREADS")
    return int(env) if env and env.isdigit() and int(env) > 0 else (os.cpu_count() or 1)


_gomp: ctypes.CDLL | None = None


def set_num_threads(n: int) -> None:
    """The team size of parallel loops run from the calling thread (libgomp's
    per-thread `omp_set_num_threads`)."""
    global _gomp
    if _gomp is None:
        from lamina.runtime.jit import runtime_libraries

        gomp = next(lib for lib in runtime_libraries() if "gomp" in lib)
        _gomp = ctypes.CDLL(gomp)
        _gomp.omp_set_num_threads.argtypes = [ctypes.c_int]
    _gomp.omp_set_num_threads(max(1, int(n)))
