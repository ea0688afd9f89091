"""The torch importer: an `nn.Module` (with example inputs) or a
`torch.export.ExportedProgram` becomes a graph-level (relay) module of the form
`from_onnx` gives: an `@main` over tensors, inputs named after the program's
placeholders (the `forward` arguments), outputs after their place in what
`forward` returns (`output`, or `last_hidden_state`, `output_0`, ...).

`torch.export.export` traces the module (in eval mode) into an FX graph of ATen
ops; `run_decompositions()` brings it to the core ATen op set; each FX node is
then converted by the function registered for its op (`registry.CONVERTERS`).
Lifted parameters, buffers and constants become blob-backed `relay.constant`s
(sharing memory with the module's tensors). The sizes `torch.export.Dim`s make
dynamic become lamina's symbolic dims, named after the Dims; a finite upper
bound (and a lower bound above 2) is an assumption on `@main`
(`lamina.assume`), checked on every run.

torch is imported only here, when a model is imported.
"""

from __future__ import annotations

import inspect
import operator
import re
from collections.abc import Mapping, Sequence
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, SSAValue
from xdsl.utils.exceptions import VerifyException

from lamina.dialects import relay
from lamina.dialects.shapes import Assumption
from lamina.errors import FrontendError, LaminaError, UnsupportedOpError
from lamina.frontends.common import graph_module
from lamina.frontends.torch.context import (
    NodeContext,
    constant,
    describe,
    elem_of,
    numpy_dtype_of,
    source_of,
    sym_dim,
)
from lamina.frontends.torch.registry import CONVERTERS
from lamina.symbolic import Dim, Sym

#: Nodes that check what export assumed and compute nothing.
SKIPPED = frozenset({
    "aten._assert_tensor_metadata.default",
    "aten._assert_scalar.default",
    "aten._assert_async.msg",
    "aten.sym_constrain_range.default",
    "aten.sym_constrain_range_for_size.default",
})


def from_torch(
    module: Any,
    example_args: Sequence[Any] = (),
    dynamic_shapes: Any = None,
    *,
    example_kwargs: Mapping[str, Any] | None = None,
) -> ModuleOp:
    """Import a torch model as a graph-level module.

    `module` is an `nn.Module`, exported with `torch.export.export(module,
    example_args, kwargs=example_kwargs, dynamic_shapes=dynamic_shapes)` in eval
    mode (its mode is restored after), or an `ExportedProgram` already."""
    import torch  # lazy: torch is optional (the `torch` extra), imported only when asked

    if isinstance(module, torch.export.ExportedProgram):
        program, names = module, {}
    elif isinstance(module, torch.nn.Module):
        args = tuple(example_args) if isinstance(example_args, Sequence) else (example_args,)
        training = module.training
        module.eval()
        try:
            program = torch.export.export(
                module, args, kwargs=dict(example_kwargs or {}), dynamic_shapes=dynamic_shapes
            )
        except Exception as e:  # torch's own errors name the construct it cannot trace
            raise FrontendError(
                f"torch.export cannot export the model: {type(e).__name__}: {e}"
            ) from e
        finally:
            module.train(training)
        names = dim_names(module, len(args), dynamic_shapes)
    else:
        raise FrontendError(
            f"expected a torch.nn.Module or a torch.export.ExportedProgram, got "
            f"{type(module).__name__}"
        )
    try:
        program = program.run_decompositions(_decompositions())
    except Exception as e:
        raise FrontendError(
            f"torch cannot decompose the exported program to core ATen ops: "
            f"{type(e).__name__}: {e}"
        ) from e
    return import_program(program, names)


def dim_names(module: Any, nargs: int, dynamic_shapes: Any) -> dict[tuple[int, int], str]:
    """(user input, axis) -> the name of its `torch.export.Dim`, for the
    top-level tensor arguments of `dynamic_shapes` (a tuple in argument order,
    or a dict by argument name; each a dict axis -> Dim or a per-axis list)."""
    if dynamic_shapes is None:
        return {}
    specs: list[Any]
    if isinstance(dynamic_shapes, Mapping):
        params = list(inspect.signature(module.forward).parameters)
        specs = [dynamic_shapes.get(p) for p in params[:nargs]]
    else:
        specs = list(dynamic_shapes)
    out: dict[tuple[int, int], str] = {}
    for i, spec in enumerate(specs):
        items = (
            spec.items() if isinstance(spec, Mapping)
            else enumerate(spec) if isinstance(spec, list | tuple) else ()
        )
        for axis, d in items:
            name = getattr(d, "__name__", None)
            if isinstance(axis, int) and isinstance(name, str) and name.isidentifier():
                out[(i, axis)] = name
    return out


def import_program(program: Any, names: Mapping[tuple[int, int], str] | None = None) -> ModuleOp:
    """Convert a decomposed `ExportedProgram` to a graph-level module; `names`
    gives the dynamic sizes of the user inputs their names (`dim_names`)."""
    from torch.export.graph_signature import (  # lazy: torch is optional
        InputKind,
        OutputKind,
    )

    graph = program.graph_module.graph
    sig = program.graph_signature
    specs = {s.arg.name: s for s in sig.input_specs}
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    users = [n for n in placeholders if specs[n.name].kind == InputKind.USER_INPUT]
    symbols = _symbols(users, names or {})
    in_types = []
    for n in users:
        val = n.meta.get("val")
        if not hasattr(val, "shape"):
            raise FrontendError(
                f"input '{n.name}' is {type(val).__name__}, not a tensor: lamina compiles "
                "models over tensors (pass other arguments as constants of the module)"
            )
        dims = [sym_dim(d.node.expr, symbols) if hasattr(d, "node") else int(d) for d in val.shape]
        in_types.append(relay.tensor(dims, elem_of(val.dtype)))
    block = Block(arg_types=in_types)
    values: dict[Any, Any] = {}
    for n, arg in zip(users, block.args, strict=True):
        arg.name_hint = _hint(n.name)
        values[n] = arg
    for n in placeholders:
        spec = specs[n.name]
        if spec.kind == InputKind.USER_INPUT:
            continue
        if spec.kind not in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
            raise FrontendError(f"input '{n.name}' of kind {spec.kind.name} is not supported")
        t = program.state_dict.get(spec.target)
        if t is None:
            t = program.constants.get(spec.target)
        if t is None:
            raise FrontendError(f"{spec.kind.name.lower()} '{spec.target}' has no value")
        arr = t.detach().cpu().contiguous()
        numpy_dtype_of(arr.dtype)  # refuses what lamina does not compile
        values[n] = constant(block, arr.numpy(), spec.target or n.name)
    unsupported = _convert(graph, block, values, symbols)
    if unsupported:
        raise UnsupportedOpError(unsupported_summary(unsupported))
    out_node = next(n for n in graph.nodes if n.op == "output")
    kinds = [s.kind for s in sig.output_specs]
    results: list[SSAValue] = []
    for kind, o in zip(kinds, out_node.args[0], strict=True):
        if kind != OutputKind.USER_OUTPUT:
            continue  # a buffer's update (running statistics): not an inference result
        v = values.get(o)
        if not isinstance(v, SSAValue):
            raise FrontendError(f"output {o!r} is not a tensor lamina computed")
        results.append(v)
    block.add_op(func.ReturnOp(*results))
    return graph_module(
        block, results, (n.name for n in users), output_names(program, len(results)),
        _assumptions(program, symbols),
    )


def _symbols(users: Sequence[Any], names: Mapping[tuple[int, int], str]) -> dict[str, Dim]:
    """The export's size symbols that are whole input dims, as named sizes."""
    symbols: dict[str, Dim] = {}
    for i, n in enumerate(users):
        for axis, d in enumerate(getattr(n.meta.get("val"), "shape", ())):
            expr = getattr(getattr(d, "node", None), "expr", None)
            if expr is None or not expr.is_Symbol or expr.name in symbols:
                continue
            name = names.get((i, axis)) or f"{n.name}_{axis}"
            symbols[expr.name] = Sym.var(re.sub(r"\W", "_", name))
    return symbols


def _assumptions(program: Any, symbols: Mapping[str, Dim]) -> list[Assumption]:
    """The Dims' ranges as assumptions: a finite max, and a min above 2 (torch's
    default minimum, 2, is its 0/1 specialization, not a limit of the model)."""
    out: list[Assumption] = []
    for sym, vr in program.range_constraints.items():
        dim = symbols.get(getattr(sym, "name", ""))
        if not isinstance(dim, Sym):
            continue
        upper, lower = _finite(vr.upper), _finite(vr.lower)
        if upper is not None and upper < 2**62:
            out.append((dim, upper, f"torch.export.Dim '{dim}' has max={upper}"))
        if lower is not None and lower > 2:
            out.append((-dim, -lower, f"torch.export.Dim '{dim}' has min={lower}"))
    return out


def _finite(bound: Any) -> int | None:
    """A range's end as an int, None when infinite (torch's `int_oo` says it
    is finite, and does not convert)."""
    try:
        return int(bound)
    except (TypeError, ValueError, AttributeError, OverflowError):
        return None


def _convert(graph: Any, block: Block, values: dict[Any, Any], symbols: dict[str, Dim]) -> list[Any]:
    """Convert the graph's call nodes into `block`; the nodes without a
    converter (those they feed are skipped, and listed if unsupported too)."""
    unsupported: list[Any] = []
    skipped: set[Any] = set()
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        op = str(node.target)
        if node.target is operator.getitem:
            if node.args[0] in skipped:
                skipped.add(node)
                continue
            v = values[node.args[0]][node.args[1]]
            if v is None:
                raise FrontendError(f"{describe(node)}: result {node.args[1]} was not computed")
            values[node] = v
            continue
        val = node.meta.get("val")
        if op in SKIPPED or (val is not None and not _has_tensor(val)):
            continue  # a check, or size arithmetic (read where it is used)
        if any(a in skipped for a in node.all_input_nodes) or op not in CONVERTERS:
            if op not in CONVERTERS:
                unsupported.append(node)
            skipped.add(node)
            continue
        ctx = NodeContext(node, block, values, symbols)
        try:
            outs = list(CONVERTERS[op](ctx))
        except FrontendError:
            raise
        except (VerifyException, LaminaError) as e:
            raise ctx.error(str(e)) from None
        except Exception as e:
            raise ctx.error(f"cannot convert it ({type(e).__name__}: {e})") from e
        _check(ctx, outs)
        values[node] = outs[0] if len(outs) == 1 and not isinstance(val, list | tuple) else outs
    return unsupported


def _has_tensor(val: Any) -> bool:
    if isinstance(val, list | tuple):
        return any(_has_tensor(v) for v in val)
    return hasattr(val, "shape") and hasattr(val, "dtype")


def _check(ctx: NodeContext, outs: list[SSAValue | None]) -> None:
    """Each result has the shape and element type torch says (a converter bug
    is reported at its node)."""
    val = ctx.out_val()
    vals = list(val) if isinstance(val, list | tuple) else [val]
    for i, (v, ref) in enumerate(zip(outs, vals, strict=False)):
        if v is None or ref is None:
            continue
        want = relay.tensor(ctx.dims(list(ref.shape)), elem_of(ref.dtype))
        if v.type != want:
            raise ctx.error(f"result {i} is {v.type}, but torch computes {want}")
        v.name_hint = _hint(ctx.node.name)


def unsupported_summary(nodes: Sequence[Any]) -> str:
    """The refusal of a program over `nodes` (which have no converter): one
    entry per ATen op, its nodes and where the first comes from."""
    groups: dict[str, list[Any]] = {}
    for n in nodes:
        groups.setdefault(str(n.target), []).append(n)
    entries = []
    for op, ns in groups.items():
        shown = ", ".join(f"'{n.name}'" for n in ns[:3])
        more = f" and {len(ns) - 3} more" if len(ns) > 3 else ""
        src = source_of(ns[0])
        at = f", at {src}" if src else ""
        entries.append(f"{op} (FX node{'s' if len(ns) > 1 else ''} {shown}{more}{at})")
    return (
        f"the model uses {len(nodes)} node(s) of {len(groups)} ATen op(s) lamina's "
        f"torch frontend does not support: {'; '.join(entries)}"
    )


def output_names(program: Any, n: int) -> list[str]:
    """The results' names from where `forward` returns them: `output` for a
    lone tensor, else the path (`last_hidden_state`, `output_1`, `a_0`)."""
    from torch.utils import _pytree as pytree  # lazy: torch is optional

    spec = program.call_spec.out_spec
    if spec is None or (n == 1 and spec.is_leaf()):
        return ["output"] * n
    try:
        paths = [pytree.keystr(p) for p, _ in pytree.tree_flatten_with_path(
            pytree.tree_unflatten(list(range(spec.num_leaves)), spec))[0]]
    except Exception:  # a container pytree cannot rebuild: positions
        paths = []
    names = []
    for i in range(n):
        raw = paths[i] if i < len(paths) and len(paths) == n else ""
        name = re.sub(r"\W+", "_", raw).strip("_")
        if not name or name[0].isdigit():
            name = f"output_{name}" if name else f"output_{i}"
        names.append(name)
    return names


def _hint(name: str) -> str | None:
    h = re.sub(r"\W", "_", name)
    return h if h and not h[0].isdigit() else None


def _decompositions() -> dict[Any, Any]:
    """torch's core ATen decompositions but `_safe_softmax` (scaled dot-product
    attention's), which is converted as it is: decomposed, it adds two passes
    over the attention scores (`x == -inf`, any, where) to the softmax."""
    import torch  # the caller imported it: a torch model is being converted

    table = torch.export.default_decompositions()
    table.pop(torch.ops.aten._safe_softmax.default, None)
    return table


__all__ = ["dim_names", "from_torch", "import_program", "output_names", "unsupported_summary"]

