"""The converter registry: ONNX op type -> the function that converts its nodes.

`CONVERTERS` is a `lamina.registry.Registry`. lamina's converters register
themselves where they are defined, with the op table's notes:

    @converter("Gemm", emits=("relay.dense",))
    def _gemm(ctx: NodeContext) -> Sequence[SSAValue]: ...

and an installed plugin adds converters, without any edit to lamina, through the
entry-point group `lamina.onnx_converters` (the entry point's name is the ONNX
op type, its value a function of the same signature):

    [project.entry-points."lamina.onnx_converters"]
    MyOp = "my_pkg.onnx:convert_my_op"

A plugin converter is loaded when a model first uses its op; lamina's own
converters win over a plugin's. For the callers that treated the table as a dict,
`CONVERTERS[op]`, `CONVERTERS.get(op, default)`, `op in CONVERTERS`, iteration
and `len` keep working (they see plugin op types too).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import onnx
from xdsl.ir import SSAValue

from lamina.errors import LaminaError
from lamina.frontends.onnx.context import NodeContext
from lamina.plugins import ONNX_CONVERTERS_GROUP as CONVERTERS_GROUP
from lamina.registry import Registry

Converter = Callable[[NodeContext], Sequence[SSAValue]]



def _check_converter(name: str, obj: Any) -> Converter:
    """A converter is a function of one argument (the `NodeContext`)."""
    if not callable(obj):
        raise LaminaError(f"ONNX converter '{name}' is not callable: {obj!r}")
    try:
        inspect.signature(obj).bind(None)
    except TypeError:
        raise LaminaError(
            f"ONNX converter '{name}' must take one argument (the NodeContext): {obj!r}"
        ) from None
    except ValueError:  # no signature to inspect (a builtin): trust it
        pass
    return obj


#: ONNX op type -> converter: lamina's and the plugins'. Ops of the default domain
#: are keyed by their type (`"Relu"`), others by `"<domain>:<type>"`
#: (`"com.example:SquarePlus"`), see `converter_key`.
CONVERTERS: Registry[Converter] = Registry("ONNX converter", CONVERTERS_GROUP, _check_converter)

#: The names of ONNX's default domain.
DEFAULT_DOMAINS = ("", "ai.onnx")


def converter_key(op_type: str, domain: str = "") -> str:
    """The `CONVERTERS` key of an op: its type in the default domain, else
    `"<domain>:<type>"`."""
    return op_type if domain in DEFAULT_DOMAINS else f"{domain}:{op_type}"


def find_converter(node: onnx.NodeProto) -> Converter | None:
    """The converter of `node` (by its type and domain), or None."""
    return CONVERTERS.lookup(converter_key(node.op_type, node.domain))


def has_converter(node: onnx.NodeProto) -> bool:
    """Whether lamina or a plugin converts `node`'s op."""
    return converter_key(node.op_type, node.domain) in CONVERTERS


def unsupported_summary(
    nodes: Sequence[onnx.NodeProto], opset: int, graph: Sequence[onnx.NodeProto] = ()
) -> str:
    """The refusal of a model over `nodes` (which have no converter), one entry
    per op type: how many nodes, the first few names; an unnamed node by its
    index in `graph` (its graph's nodes), e.g. `Gemm (node #3, ...)`."""
    index = {(n.op_type, tuple(n.output)): i for i, n in enumerate(graph)}
    groups: dict[tuple[str, str], list[str]] = {}
    for n in nodes:
        if n.name:
            label = f"'{n.name}'"
        else:
            i = index.get((n.op_type, tuple(n.output)))
            label = f"#{i}" if i is not None else f"unnamed, output '{n.output[0]}'" if (
                n.output and n.output[0]
            ) else "unnamed"
        groups.setdefault((n.domain or "ai.onnx", n.op_type), []).append(label)
    entries = []
    for (domain, op), names in groups.items():
        shown = ", ".join(names[:3])
        more = f" and {len(names) - 3} more" if len(names) > 3 else ""
        label = f"{op} x{len(names)}" if len(names) > 1 else op
        which = "nodes" if len(names) > 1 else "node"
        entries.append(f"{label} ({which} {shown}{more}, domain '{domain}')")
    return (
        f"the model uses {len(nodes)} node(s) lamina does not support at opset "
        f"{opset}: {'; '.join(entries)}. A node with constant inputs is folded "
        "instead (fix symbolic shapes with input_shapes= to make more of them "
        "constant); a plugin can add a converter (see the README)"
    )


@dataclass(frozen=True)
class ConverterInfo:
    """What the supported-op table says about a converter."""

    emits: tuple[str, ...] = ()
    notes: str = ""


#: The op table's entries of lamina's own converters.
CONVERTER_INFO: dict[str, ConverterInfo] = {}


def converter(
    *op_types: str, emits: Sequence[str] = (), notes: str = ""
) -> Callable[[Converter], Converter]:
    """Register the converter of one or more ONNX op types; `emits` names the relay
    ops it produces (without `relay.`) and `notes` its limits, for the README's
    supported-op table."""

    def wrap(fn: Converter) -> Converter:
        for t in op_types:
            CONVERTERS.register(t, fn)
            CONVERTER_INFO[t] = ConverterInfo(tuple(emits), notes)
        return fn

    return wrap


def supported_ops() -> list[str]:
    """Every ONNX op type lamina can import (plugins' included), sorted."""
    return CONVERTERS.names()


__all__ = [
    "CONVERTERS",
    "CONVERTERS_GROUP",
    "CONVERTER_INFO",
    "DEFAULT_DOMAINS",
    "Converter",
    "ConverterInfo",
    "converter",
    "converter_key",
    "find_converter",
    "has_converter",
    "supported_ops",
    "unsupported_summary",
]
