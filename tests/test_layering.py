"""lamina is one layered house: each layer imports only from the layers below it.

The test reads every import of the package's source (module-level, function-level
and type-only ones alike) and fails on:

- an import from a higher layer into a lower one;
- an import cycle between modules, or between units at any level: every package
  and sub-package is a unit (a module belongs to the package holding it, a
  top-level module is its own unit), so `dialects/` and `dialects/relay/` are two
  units that must not import each other both ways. The one edge that is not a
  dependency is a package's own `__init__` re-exporting its modules and
  sub-packages;
- a function-level `lamina` import without a comment saying why it is lazy;
- a source file over `MAX_LINES` lines.

The layers, bottom to top (docs/architecture.md draws them):

    leaf utilities   errors, limits, fileio, abi, system, registry, plugins, version,
                     process, symbolic
    target           target/ (the Target; host: the one reader of this machine)
    runtime          runtime/ (the model record, compiled models, load, the seal,
                     the per-shape workspace plan): runs a model without the
                     compiler
    dialects         dialects/ (relay, te, tir, llvm_ext, dtypes, constants, ...), ir,
                     digest
    pass infra       passes/{config,registry,context,instruments,pipeline}
    pattern          pattern/ (the dataflow pattern language)
    conversions      frontends/, transforms/{graph,tir,byoc}, lowering/, backends/
    pipelines        pipelines (the pass pipeline, defined once; registers every pass)
    codegen          codegen/ (LLVM IR translation, parallel glue, object code,
                     the JIT and its object cache, export, peak measurement)
    tuning           tuning/ (auto-scheduling: tasks, search, measurement, records)
    driver           driver (the pipeline and compile), the package's __init__,
                     quantization/ (the quantizer: calibrates on compiled models),
                     dynamo (the torch.compile backend: compiles dynamo's graphs)
    tools            tools/ (lamina, lamina-opt, demo, viz, bench helpers)
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOT_PACKAGE = {"tests", "bench", "examples", "filecheck", "docs", "build", "shared"}
MAX_LINES = 800

#: Import cycles between units that are known and being taken apart: each entry
#: is the exact set of units of one cycle (a strongly connected component of the
#: unit graph). Any other cycle fails, and so does an entry that no longer
#: matches a cycle (delete it when the cycle is gone).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "leaf utilities",
        (
            "lamina.errors",
            "lamina.limits",
            "lamina.fileio",
            "lamina.abi",
            "lamina.system",
            "lamina.registry",
            "lamina.plugins",
            "lamina.version",
            "lamina.process",
            "lamina.symbolic",
        ),
    ),
    ("target", ("lamina.target",)),
    ("runtime", ("lamina.runtime",)),
    ("dialects", ("lamina.dialects", "lamina.ir", "lamina.digest")),
    ("pass infrastructure", ("lamina.passes",)),
    ("pattern", ("lamina.pattern",)),
    (
        "conversions",
        (
            "lamina.frontends",
            "lamina.transforms",
            "lamina.transforms.graph",
            "lamina.transforms.tir",
            "lamina.transforms.byoc",
            "lamina.lowering",
            "lamina.backends",
        ),
    ),
    ("pipelines", ("lamina.pipelines",)),
    ("codegen", ("lamina.codegen",)),
    ("tuning", ("lamina.tuning",)),
    ("driver", ("lamina.driver", "lamina", "lamina.quantization", "lamina.dynamo")),
    ("tools", ("lamina.tools",)),
)


@dataclass(frozen=True)
class Import:
    source: str  # importing module
    target: str  # imported module
    line: int
    lazy: bool  # inside a function
    commented: bool  # a comment on its line or the line above


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["lamina", *parts])


def package_modules() -> dict[str, Path]:
    """Every module of the package, by dotted name."""
    out = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).parts
        if rel[0] in NOT_PACKAGE or any(p.startswith(".") for p in rel):
            continue
        out[_module_name(path)] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The package module `name` refers to (a module, or the package holding
    an imported attribute)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """Every `lamina` import in `path`, resolved to package modules."""
    text = path.read_text()
    lines = text.splitlines()
    is_pkg = path.name == "__init__.py"
    out: list[Import] = []

    def commented(node: ast.stmt) -> bool:
        span = lines[node.lineno - 1 : (node.end_lineno or node.lineno)]
        above = lines[node.lineno - 2] if node.lineno >= 2 else ""
        return any("#" in s for s in span) or above.strip().startswith("#")

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            targets: list[str] = []
            if isinstance(child, ast.Import):
                targets = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = module.split(".")
                    if not is_pkg:
                        base = base[:-1]
                    base = base[: len(base) - (child.level - 1)]
                    prefix = ".".join(base + ([child.module] if child.module else []))
                else:
                    prefix = child.module or ""
                targets = [f"{prefix}.{a.name}" for a in child.names]
            for t in targets:
                if t == "lamina" or t.startswith("lamina."):
                    resolved = _resolve(t, modules)
                    if resolved is not None and resolved != module:
                        out.append(
                            Import(module, resolved, child.lineno, lazy, commented(child))  # type: ignore[arg-type]
                        )
            inner = lazy or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            visit(child, inner)

    visit(ast.parse(text), False)
    return out


def layer_of(module: str) -> int:
    """The index in LAYERS of the layer holding `module` (longest prefix)."""
    best, best_len = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            exact_only = p == "lamina"
            hit = module == p if exact_only else module == p or module.startswith(p + ".")
            if hit and len(p) > best_len:
                best, best_len = index, len(p)
    return best


def unit_of(module: str, modules: dict[str, Path]) -> str:
    """The package a module belongs to (a package's own `__init__` is its unit;
    a top-level module is its own unit). Every package and sub-package is a
    unit of its own: `lamina.dialects.relay.base` is in `lamina.dialects.relay`,
    not in `lamina.dialects`."""
    if modules[module].name == "__init__.py":
        return module
    parent = module.rpartition(".")[0]
    return module if parent == "lamina" else parent


def is_reexport(i: Import, modules: dict[str, Path]) -> bool:
    """Whether `i` is a package's own `__init__` importing one of its modules or
    sub-packages (to re-export it): the only import that is not a dependency of
    one unit on another."""
    return modules[i.source].name == "__init__.py" and i.target.startswith(i.source + ".")


def unit_graph(
    modules: dict[str, Path], imports: list[Import]
) -> dict[str, dict[str, list[Import]]]:
    """The units' dependencies: unit -> the units it imports -> the imports."""
    out: dict[str, dict[str, list[Import]]] = defaultdict(lambda: defaultdict(list))
    for i in imports:
        a, b = unit_of(i.source, modules), unit_of(i.target, modules)
        if a != b and not is_reexport(i, modules):
            out[a][b].append(i)
    return out


def _explain(cycle: list[str], edges: dict[str, dict[str, list[Import]]]) -> str:
    """The imports that tie the units of `cycle` together, one line per edge."""
    lines = [f"cycle between {', '.join(cycle)}:"]
    for a in cycle:
        for b in sorted(set(edges.get(a, {})) & set(cycle)):
            first = sorted({(i.source, i.line, i.target) for i in edges[a][b]})
            shown = "; ".join(f"{s}:{n} imports {t}" for s, n, t in first[:3])
            more = f" (+{len(first) - 3} more)" if len(first) > 3 else ""
            lines.append(f"  {a} -> {b}: {shown}{more}")
    return "\n".join(lines)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            strong(v)
    return out


@pytest.fixture(scope="module")
def graph() -> tuple[dict[str, Path], list[Import]]:
    modules = package_modules()
    imports = [i for m, p in modules.items() for i in imports_of(m, p, modules)]
    return modules, imports


def test_every_module_has_a_layer(graph: tuple[dict[str, Path], list[Import]]) -> None:
    modules, _ = graph
    assert [m for m in modules if layer_of(m) < 0] == []


def test_no_import_from_a_higher_layer(graph: tuple[dict[str, Path], list[Import]]) -> None:
    _, imports = graph
    backward = [
        f"{i.source}:{i.line} imports {i.target} "
        f"({LAYERS[layer_of(i.source)][0]} <- {LAYERS[layer_of(i.target)][0]})"
        for i in imports
        if layer_of(i.target) > layer_of(i.source)
    ]
    assert backward == [], "\n".join(backward)


def test_no_module_import_cycles(graph: tuple[dict[str, Path], list[Import]]) -> None:
    _, imports = graph
    by_module: dict[str, set[str]] = defaultdict(set)
    for i in imports:
        by_module[i.source].add(i.target)
    assert _cycles(by_module) == []


def test_no_unit_import_cycles(graph: tuple[dict[str, Path], list[Import]]) -> None:
    modules, imports = graph
    edges = unit_graph(modules, imports)
    found = _cycles(edges)
    assert found == [], "\n".join(_explain(c, edges) for c in found)


def test_lazy_imports_say_why(graph: tuple[dict[str, Path], list[Import]]) -> None:
    _, imports = graph
    silent = [f"{i.source}:{i.line} imports {i.target}" for i in imports if i.lazy and not i.commented]
    assert silent == [], "function-level imports need a comment saying why:\n" + "\n".join(silent)


def test_no_file_is_too_long(graph: tuple[dict[str, Path], list[Import]]) -> None:
    modules, _ = graph
    long = {
        m: n
        for m, p in modules.items()
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_the_checker_sees_a_backward_import(tmp_path: Path) -> None:
    """The test itself: the runtime importing the lowering is caught."""
    modules = {"lamina.runtime.x": tmp_path / "x.py", "lamina.lowering.y": tmp_path / "y.py"}
    modules["lamina.runtime.x"].write_text(
        "def f():\n    from lamina.lowering.y import z\n    return z\n"
    )
    (found,) = imports_of("lamina.runtime.x", modules["lamina.runtime.x"], modules)
    assert found.target == "lamina.lowering.y" and found.lazy and not found.commented
    assert layer_of(found.target) > layer_of(found.source)
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]


def test_the_checker_sees_a_cycle_into_a_sub_package(tmp_path: Path) -> None:
    """The test itself: `dialects/quant.py` importing `dialects/relay/` while
    `dialects/relay/` imports `dialects/shapes.py` is a cycle between the units
    `lamina.dialects` and `lamina.dialects.relay` (which exempting every edge into
    a sub-package hid), while `dialects/__init__` re-exporting `relay` is not."""
    files = {
        "lamina.dialects": ("dialects/__init__.py", "from lamina.dialects import relay\n"),
        "lamina.dialects.shapes": ("dialects/shapes.py", ""),
        "lamina.dialects.quant": (
            "dialects/quant.py",
            "from lamina.dialects.relay.base import R\n",
        ),
        "lamina.dialects.relay": ("dialects/relay/__init__.py", "from . import base\n"),
        "lamina.dialects.relay.base": (
            "dialects/relay/base.py",
            "from lamina.dialects.shapes import dims\n",
        ),
    }
    modules: dict[str, Path] = {}
    for name, (rel, text) in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        modules[name] = path
    imports = [i for m, p in modules.items() for i in imports_of(m, p, modules)]
    assert unit_of("lamina.dialects.relay.base", modules) == "lamina.dialects.relay"
    assert unit_of("lamina.dialects.quant", modules) == "lamina.dialects"
    edges = unit_graph(modules, imports)
    assert _cycles(edges) == [["lamina.dialects", "lamina.dialects.relay"]]
    assert "lamina.dialects.quant:1 imports lamina.dialects.relay.base" in _explain(
        ["lamina.dialects", "lamina.dialects.relay"], edges
    )
    # the re-export alone is no cycle: without quant's import the graph is a DAG
    del modules["lamina.dialects.quant"]
    imports = [i for m, p in modules.items() for i in imports_of(m, p, modules)]
    assert _cycles(unit_graph(modules, imports)) == []
