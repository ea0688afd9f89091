"""What a torch converter sees: `NodeContext`, one FX node of an exported
program (its ATen op, its arguments with tensors as SSA values and sizes as
lamina dims) and the block the converter emits relay ops into; it is a
`lamina.frontends.common.Builder`, so the builders every frontend shares take
it. Also the conversion of torch's symbolic sizes (sympy expressions over the
export's size symbols) to `lamina.symbolic` dims, and of torch dtypes to
element types.

This module is the bottom of the frontend: it imports nothing else of it, and
nothing of torch at import time (the importer hands it torch's objects).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DenseResourceAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import element_type, numpy_dtype
from lamina.dialects.resources import blobs
from lamina.errors import FrontendError, UnsupportedOpError
from lamina.frontends.common import elem
from lamina.symbolic import Dim, Sym

#: torch dtype names -> numpy dtypes (the ones lamina compiles).
_DTYPES = {
    "float32": np.float32,
    "float64": np.float64,
    "float16": np.float16,
    "int64": np.int64,
    "int32": np.int32,
    "int16": np.int16,
    "int8": np.int8,
    "uint8": np.uint8,
    "bool": np.bool_,
}


def numpy_dtype_of(dtype: Any) -> np.dtype:
    """The numpy dtype of a torch dtype; a `FrontendError` for those lamina has not."""
    name = str(dtype).removeprefix("torch.")
    if name not in _DTYPES:
        raise FrontendError(f"torch dtype {dtype} is not supported")
    return np.dtype(_DTYPES[name])


def elem_of(dtype: Any) -> Attribute:
    """The relay element type of a torch dtype."""
    return element_type(numpy_dtype_of(dtype))


def sym_dim(expr: Any, symbols: Mapping[str, Dim]) -> Dim:
    """A sympy expression over the export's size symbols as a lamina dim:
    `symbols` names each symbol's dim (by the symbol's name)."""
    import sympy  # lazy: comes with torch, which this frontend needs

    if isinstance(expr, int | sympy.Integer):
        return int(expr)
    if isinstance(expr, sympy.Symbol):
        return symbols.get(expr.name) or Sym.var(expr.name)
    args = [sym_dim(a, symbols) for a in expr.args]
    kind = type(expr).__name__
    if isinstance(expr, sympy.Add):
        out: Dim = 0
        for a in args:
            out = out + a
        return out
    if isinstance(expr, sympy.Mul):
        out = 1
        for a in args:
            out = out * a
        return out
    if kind in ("FloorDiv", "CleanDiv", "IntTrueDiv") and len(args) == 2:
        return args[0] // args[1]
    if kind in ("Mod", "PythonMod") and len(args) == 2:
        return args[0] % args[1]
    if isinstance(expr, sympy.Pow) and isinstance(args[1], int) and args[1] >= 0:
        out = 1
        for _ in range(args[1]):
            out = out * args[0]
        return out
    raise FrontendError(f"the symbolic size {expr} ({kind}) is not supported")


def source_of(node: Any) -> str:
    """Where an FX node comes from: the last frame of its stack trace (the
    model's own code), `file:line in fn: code`; empty when unknown."""
    trace = node.meta.get("stack_trace") or ""
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)\n\s*(.*)', trace)
    if not frames:
        return ""
    path, line, fn, code = frames[-1]
    return f"{path}:{line} in {fn}: {code.strip()}"


def describe(node: Any) -> str:
    """The node as messages name it: `FX node 'view_3' (aten.view.default)`."""
    return f"FX node '{node.name}' ({node.target})"


@dataclass
class NodeContext:
    """What a converter sees: the FX node, its arguments and a way to emit ops."""

    node: Any  # torch.fx.Node
    block: Block
    #: The SSA values of the nodes converted so far (a multi-result node: a list).
    values: dict[Any, Any]
    #: The export's size symbols, by name, as lamina dims.
    symbols: dict[str, Dim] = field(default_factory=dict)

    @property
    def op(self) -> str:
        return str(self.node.target)

    # --- arguments ---------------------------------------------------------
    def arg(self, i: int, name: str | None = None, default: Any = None) -> Any:
        """Argument `i` as FX gives it (positional, else keyword `name`)."""
        if i < len(self.node.args):
            return self.node.args[i]
        if name is not None and name in self.node.kwargs:
            return self.node.kwargs[name]
        return default

    def is_tensor(self, a: Any) -> bool:
        return isinstance(self.values.get(a) if _hashable(a) else None, SSAValue)

    def tensor(self, a: Any, like: SSAValue | Attribute | None = None) -> SSAValue:
        """An argument as an SSA value: a converted node's, or a Python number as
        a rank-0 constant of `like`'s element type (a value's, or one given)."""
        if _hashable(a) and a in self.values:
            v = self.values[a]
            if isinstance(v, SSAValue):
                return v
            raise self.error(f"argument {a} is not a tensor")
        if isinstance(a, bool | int | float):
            el = like if isinstance(like, Attribute) or like is None else elem(like)
            dtype = numpy_dtype(el) if el is not None else np.asarray(a).dtype
            return self.constant(np.array(a, dtype=dtype))
        raise self.error(f"argument {a!r} is not a tensor or a number")

    def input(self, i: int = 0, name: str | None = None) -> SSAValue:
        """Tensor argument `i`."""
        return self.tensor(self.arg(i, name))

    def dim(self, d: Any) -> Dim:
        """A size argument: an int, a SymInt, or a node computing one."""
        if isinstance(d, int):
            return d
        val = d.meta.get("val") if hasattr(d, "meta") else d
        node = getattr(val, "node", None)
        if node is not None and hasattr(node, "expr"):
            return sym_dim(node.expr, self.symbols)
        if isinstance(val, int):
            return val
        raise self.error(f"argument {d!r} is not a size")

    def dims(self, ds: Sequence[Any]) -> list[Dim]:
        return [self.dim(d) for d in ds]

    # --- what torch says of the result --------------------------------------
    def out_val(self, i: int | None = None) -> Any:
        val = self.node.meta.get("val")
        return val[i] if i is not None else val

    def out_elem(self, i: int | None = None) -> Attribute:
        """The element type of the result (of result `i`) as torch computed it."""
        return elem_of(self.out_val(i).dtype)

    def out_shape(self, i: int | None = None) -> list[Dim]:
        return self.dims(list(self.out_val(i).shape))

    def result_used(self, i: int) -> bool:
        """Whether any node reads result `i` of this multi-result node."""
        return any(u.args[1] == i for u in self.node.users)

    # --- emitting ----------------------------------------------------------
    def emit(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def emit_all(self, op: Operation) -> list[SSAValue]:
        self.block.add_op(op)
        return list(op.results)

    def constant(self, value: np.ndarray | Any, name: str = "cst") -> SSAValue:
        """`value` as a blob-backed `relay.constant`."""
        return constant(self.block, np.asarray(value), name)

    # --- errors ------------------------------------------------------------
    def where(self) -> str:
        src = source_of(self.node)
        return describe(self.node) + (f" at {src}" if src else "")

    def error(self, message: str) -> FrontendError:
        return FrontendError(f"{self.where()}: {message}")

    def unsupported(self, message: str) -> UnsupportedOpError:
        return UnsupportedOpError(f"{self.where()}: {message}")


def constant(block: Block, arr: np.ndarray, name: str) -> SSAValue:
    """A weight as a `relay.constant` backed by a blob."""
    t = TensorType(element_type(arr.dtype), arr.shape)
    op = relay.ConstantOp(DenseResourceAttr.from_params(blobs.add(name, arr), t))
    block.add_op(op)
    return op.output


def _hashable(a: Any) -> bool:
    try:
        hash(a)
    except TypeError:
        return False
    return True


__all__ = ["NodeContext", "constant", "describe", "elem_of", "numpy_dtype_of", "source_of", "sym_dim"]
