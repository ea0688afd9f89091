"""Draw a graph-level module as Graphviz DOT, for `lamina viz`.

Each graph op of `@main` is a node and each tensor an edge labelled with its shape;
weights (`relay.constant`) are not drawn but listed in their user's label. Every
`relay.fused` group is a coloured cluster (nested groups nest), and so is every
BYOC partition: a `func.func` with a `lamina.compiler` attribute called from
`@main`, drawn with its body inside and labelled with its target.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from lamina.dialects import relay
from lamina.dialects.relay_region import FusedOp, YieldOp
from lamina.errors import LaminaError
from lamina.fileio import write_atomic, write_atomic_with
from lamina.ir import entry_function, io_names

FUSED_COLOURS = ("#fde2e2", "#e2f0fd", "#e5f8e0", "#fdf3d8", "#efe2fd", "#dff7f4")
TARGET_COLOURS = ("#ffb3a7", "#9fc5f8", "#b6d7a8", "#ffd966", "#c9a7f8")
FORMATS = ("dot", "svg", "png")
INSTALL_HINT = (
    "install Graphviz (`apt install graphviz`, `brew install graphviz`) or write a "
    ".dot file instead"
)


def _shape(t: Attribute) -> str:
    if isinstance(t, TensorType):
        dims = "x".join(str(d) for d in relay.shape_of(t)) or "scalar"
        return f"{dims} {t.get_element_type()}"
    return str(t)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


@dataclass(frozen=True)
class _Const:
    label: str


@dataclass
class _Drawing:
    module: ModuleOp
    lines: list[str] = field(default_factory=list)
    #: edges go last, outside every cluster (an edge inside a cluster would pull
    #: both of its ends into it)
    edges: list[str] = field(default_factory=list)
    count: int = 0
    clusters: int = 0
    targets: dict[str, str] = field(default_factory=dict)
    functions: dict[str, func.FuncOp] = field(default_factory=dict)

    def new_id(self, prefix: str = "n") -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("  " * depth + line)


Env = dict[SSAValue, "str | _Const | None"]


def _partition(d: _Drawing, op: Operation) -> tuple[func.FuncOp, str] | None:
    """The BYOC function `op` calls and its target, if it is such a call."""
    if not isinstance(op, func.CallOp):
        return None
    fn = d.functions.get(op.callee.root_reference.data)
    if fn is None:
        return None
    target = fn.attributes.get("lamina.compiler")
    if not isinstance(target, StringAttr) or not fn.body.blocks:
        return None
    return fn, target.data


def _edge(d: _Drawing, src: str, dst: str, value: SSAValue) -> None:
    d.edges.append(f"  {src} -> {dst} [label={_quote(_shape(value.type))}];")


def _draw_op(d: _Drawing, op: Operation, env: Env, depth: int) -> None:
    name = op.name.removeprefix("relay.")
    node = d.new_id()
    weights = [
        src.label for src in (env.get(v) for v in op.operands) if isinstance(src, _Const)
    ]
    label = "\n".join([name, *(f"w {w}" for w in weights[:3])])
    if len(weights) > 3:
        label += f"\n+{len(weights) - 3} weights"
    d.emit(depth, f"{node} [label={_quote(label)}];")
    for v in op.operands:
        src = env.get(v)
        if isinstance(src, str):
            _edge(d, src, node, v)
    for r in op.results:
        env[r] = node


def _cluster(
    d: _Drawing,
    label: str,
    colour: str,
    body: Block,
    operands: tuple[SSAValue, ...],
    results: tuple[SSAValue, ...],
    env: Env,
    depth: int,
    bold: bool = False,
) -> None:
    d.clusters += 1
    d.emit(depth, f"subgraph cluster_{d.clusters} {{")
    style = "filled,rounded,bold" if bold else "filled,rounded"
    d.emit(depth + 1, f"label={_quote(label)}; style={_quote(style)}; fillcolor={_quote(colour)};")
    inner: Env = dict(env)
    for arg, operand in zip(body.args, operands, strict=False):
        inner[arg] = env.get(operand)
    _draw_block(d, body, inner, depth + 1)
    d.emit(depth, "}")
    last = body.last_op
    if last is not None and last.operands:
        for r, v in zip(results, last.operands, strict=False):
            env[r] = inner.get(v)


def _fused_label(op: FusedOp, index: int) -> str:
    kinds = [o.name.removeprefix("relay.") for o in op.body.block.ops if not isinstance(o, YieldOp)]
    kinds = [k for k in kinds if k != "constant"]
    attr = op.attributes.get("lamina.composite")
    if isinstance(attr, StringAttr):
        return f"composite {attr.data}"
    ops = "+".join(kinds[:4]) + ("+..." if len(kinds) > 4 else "")
    return f"fused #{index}: {ops}"


def _draw_block(d: _Drawing, block: Block, env: Env, depth: int) -> None:
    for op in block.ops:
        if op.name == "relay.constant":
            env[op.results[0]] = _Const(_shape(op.results[0].type).split(" ")[0])
        elif isinstance(op, YieldOp | func.ReturnOp):
            continue
        elif isinstance(op, FusedOp):
            colour = FUSED_COLOURS[d.clusters % len(FUSED_COLOURS)]
            _cluster(
                d,
                _fused_label(op, d.clusters),
                colour,
                op.body.block,
                tuple(op.inputs),
                tuple(op.results),
                env,
                depth,
            )
        elif (part := _partition(d, op)) is not None:
            fn, target = part
            colour = d.targets.setdefault(
                target, TARGET_COLOURS[len(d.targets) % len(TARGET_COLOURS)]
            )
            _cluster(
                d,
                f"{target}: @{fn.sym_name.data}",
                colour,
                fn.body.block,
                tuple(op.operands),
                tuple(op.results),
                env,
                depth,
                bold=True,
            )
        else:
            _draw_op(d, op, env, depth)


def _main(module: ModuleOp) -> func.FuncOp:
    op = entry_function(module)
    if op is None:
        raise LaminaError("the module has no graph function @main to draw")
    types = [*op.function_type.inputs.data, *op.function_type.outputs.data]
    if not all(isinstance(t, TensorType) for t in types):
        raise LaminaError(
            "viz draws graph-level (relay) modules, but @main works on "
            "buffers; give the model or its relay-level IR"
        )
    return op


def to_dot(module: ModuleOp, title: str = "") -> str:
    """The graph of `module`'s `@main` as DOT text."""
    main = _main(module)
    d = _Drawing(module)
    d.functions = {
        op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)
    }
    d.emit(0, "digraph lamina {")
    d.emit(1, f"graph [rankdir=TB, fontname=Helvetica, fontsize=11, label={_quote(title)}, labelloc=t];")
    d.emit(1, 'node [shape=box, style="rounded,filled", fillcolor=white, fontname=Helvetica, fontsize=10];')
    d.emit(1, "edge [fontname=Helvetica, fontsize=8, color=gray40];")
    env: Env = {}
    block = main.body.block
    in_names = io_names(main.arg_attrs, "input", len(block.args))
    for arg, name in zip(block.args, in_names, strict=True):
        node = d.new_id("in")
        label = _quote(name + "\n" + _shape(arg.type))
        d.emit(1, f'{node} [label={label}, shape=ellipse, fillcolor="#dde8ff"];')
        env[arg] = node
    _draw_block(d, block, env, 1)
    ret = block.last_op
    if isinstance(ret, func.ReturnOp):
        out_names = io_names(main.res_attrs, "output", len(ret.operands))
        for v, name in zip(ret.operands, out_names, strict=True):
            node = d.new_id("out")
            label = _quote(name + "\n" + _shape(v.type))
            d.emit(1, f'{node} [label={label}, shape=ellipse, fillcolor="#ffe9c7"];')
            src = env.get(v)
            if isinstance(src, str):
                _edge(d, src, node, v)
    d.lines += d.edges
    d.emit(0, "}")
    return "\n".join(d.lines) + "\n"


def clusters(dot: str) -> Iterator[str]:
    """The labels of the clusters of a DOT text written by `to_dot`."""
    for line in dot.splitlines():
        line = line.strip()
        if line.startswith("label=") and "fillcolor" in line:
            yield line.split('"')[1]


def count(dot: str) -> tuple[int, int]:
    """Op nodes and clusters of a DOT text written by `to_dot`."""
    nodes = len(re.findall(r"^\s*n\d+ \[label=", dot, re.MULTILINE))
    return nodes, dot.count("subgraph cluster_")


def render(dot: str, path: str | Path) -> str:
    """Write `dot` to `path` as DOT, SVG or PNG (by its suffix); returns the format."""
    target = Path(path)
    fmt = target.suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise LaminaError(
            f"cannot write '{target}': unknown format '.{fmt}'; use .dot, .svg or .png"
        )
    if fmt == "dot":
        write_atomic(target, dot)
        return fmt
    exe = shutil.which("dot")
    if exe is None:
        raise LaminaError(
            f"cannot write '{target}': {fmt.upper()} needs Graphviz's `dot` program, "
            f"which was not found; {INSTALL_HINT}"
        )

    def produce(tmp: Path) -> None:
        proc = subprocess.run(
            [exe, f"-T{fmt}", "-o", str(tmp)], input=dot.encode(), capture_output=True
        )
        if proc.returncode != 0:
            raise LaminaError(
                f"cannot write '{target}': Graphviz failed: "
                + proc.stderr.decode(errors="replace").strip().splitlines()[0]
            )

    write_atomic_with(target, produce)
    return fmt


__all__ = ["FORMATS", "INSTALL_HINT", "clusters", "count", "render", "to_dot"]
