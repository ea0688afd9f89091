"""The README's and docs/'s examples run as written.

Every page (README.md and docs/*.md) runs in its own empty folder, holding only
`mlp.onnx` (the 784-512-512-10 MLP of `lamina demo --save-mlp`), in the page's
order: each ```python block is executed (one namespace per page, so a block may
use the names of the blocks before it) and each `$ ...` line of any other code
block runs through bash. A command whose shown output is an error must fail with
exit code 1 and that error line; any other must succeed, and its lines saying
what it wrote or compiled must read as shown (numbers aside).

A block that cannot run here (it needs torch, a Ray cluster, an hour of
benchmarks) is marked in the Markdown by a comment on the line before it,
`<!-- not run: REASON -->`: exactly those are skipped, and each must give its
reason. Blocks of other languages (```sh synopses without `$ `, ```mlir, ```toml,
output) are text, not examples. docs/ops.md must be what its generator prints.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import onnx
import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CLI = ROOT / "docs" / "cli.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent  # where pip put `lamina` next to this Python
#: output lines compared with the page's (numbers and spacing aside)
ERRORS = ("lamina: error:", "lamina-opt: error:")
CHECKED = (*ERRORS, "wrote ", "compiled ", "no --input given", "  inputs:", "  outputs:")
NOT_RUN = re.compile(r"^<!-- not run:(.*)-->$")
FENCE = re.compile(r"^```([a-z]*)\n(.*?)^```", re.M | re.S)


@dataclass
class Example:
    command: str
    shown: list[str] = field(default_factory=list)

    @property
    def needs_no_graphviz(self) -> bool:
        """Shows the error of a machine without Graphviz's `dot`."""
        return "without Graphviz" in self.command


@dataclass
class Block:
    lang: str
    body: str
    line: int
    not_run: str | None  # the reason, when marked `<!-- not run: ... -->`

    @property
    def is_python(self) -> bool:
        return self.lang == "python"

    @property
    def examples(self) -> list[Example]:
        """The `$ ` commands with the lines shown after each, in order (none: a
        synopsis or a lone output, not an example)."""
        out: list[Example] = []
        if self.is_python or not any(line.startswith("$ ") for line in self.body.splitlines()):
            return out
        for line in self.body.splitlines():
            if line.startswith("$ "):
                out.append(Example(line[2:]))
            elif out:
                out[-1].shown.append(line)
        return out

    @property
    def runs(self) -> bool:
        return self.is_python or bool(self.examples)


def blocks(text: str) -> list[Block]:
    """The page's fenced code blocks, each with the `not run` reason of the
    comment right before it (blank lines between allowed)."""
    out = []
    for m in FENCE.finditer(text):
        before = [line for line in text[: m.start()].splitlines() if line.strip()]
        mark = NOT_RUN.match(before[-1].strip()) if before else None
        line = text.count("\n", 0, m.start()) + 1
        out.append(Block(m.group(1), m.group(2), line, mark.group(1).strip() if mark else None))
    return out


def examples(text: str) -> list[Example]:
    return [e for b in blocks(text) if b.not_run is None for e in b.examples]


def _shape(line: str) -> str:
    """`line` with numbers as N and runs of spaces as one."""
    line = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", line)
    return re.sub(r"\s+", " ", line).strip()


def _error(line: str) -> str:
    """An error line without a trailing parenthetical (details of other libraries)."""
    return re.sub(r" \(.*\)$", "", line.strip())


def run(example: Example, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        ["bash", "-c", example.command], cwd=cwd, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600,
    )


def check(example: Example, proc: subprocess.CompletedProcess[str], page: str = "docs/cli.md") -> None:
    where = f"{page} example `$ {example.command}`"
    errors = [line for line in example.shown if line.startswith(ERRORS)]
    got = proc.stdout.splitlines()
    if errors:
        assert proc.returncode == 1, f"{where}: exit {proc.returncode}, not 1:\n{proc.stdout}"
        assert [_error(line) for line in got] == [_error(line) for line in errors], where
        return
    assert proc.returncode == 0, f"{where}: exit {proc.returncode}:\n{proc.stdout}"
    shapes = {_shape(line) for line in got}
    for line in example.shown:
        if line.startswith(CHECKED):
            assert _shape(line) in shapes, f"{where}: no line like {line!r} in:\n{proc.stdout}"


@pytest.fixture(scope="module")
def mlp(tmp_path_factory) -> Path:
    from lamina.tools.demo import mlp_model

    path = tmp_path_factory.mktemp("models") / "mlp.onnx"
    onnx.save(mlp_model(), path)
    return path


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.mark.parametrize("page", [p for p in PAGES if any(b.runs for b in blocks(p.read_text()))], ids=_name)
def test_page_examples_run_as_written(page, mlp, tmp_path, monkeypatch):
    shutil.copy(mlp, tmp_path / "mlp.onnx")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__main__"}
    for block in blocks(page.read_text()):
        if block.not_run is not None:
            continue
        if block.is_python:
            code = compile(block.body, f"{_name(page)}:{block.line + 1}", "exec")
            exec(code, namespace)  # the page's own example
        for example in block.examples:
            if not example.needs_no_graphviz:  # that one: test_example_without_graphviz
                check(example, run(example, tmp_path), _name(page))


def test_every_skipped_block_says_why():
    """Each `<!-- not run -->` marks a block that would run, and gives a reason."""
    for page in PAGES:
        text = page.read_text()
        skipped = [b for b in blocks(text) if b.not_run is not None]
        where = _name(page)
        marks = sum(1 for line in text.splitlines() if NOT_RUN.match(line.strip()))
        assert len(skipped) == marks, f"{where}: a `not run` comment before no block"
        for b in skipped:
            assert b.not_run, f"{where}:{b.line}: `<!-- not run: -->` without a reason"
            assert b.runs, f"{where}:{b.line}: marked `not run` but has nothing to run"
    assert not [b for b in blocks(README.read_text()) if b.not_run], "the README's examples all run"


def test_the_pages_have_examples():
    commands = [e.command for e in examples(CLI.read_text())]
    assert commands[0] == "lamina demo --save-model resnet.onnx --save-mlp mlp.onnx"
    assert any(c.startswith("lamina compile mlp.mlir") for c in commands)
    assert sum(c.startswith("lamina ") for c in commands) >= 15
    readme = blocks(README.read_text())
    assert any(b.is_python for b in readme) and any(b.examples for b in readme)
    assert "make demo" in README.read_text() and "make test" in README.read_text()
    assert len(README.read_text().splitlines()) <= 320, "keep the README to a first hour"


@pytest.mark.skipif(
    shutil.which("dot") is not None,
    reason="Graphviz is installed: docs/cli.md shows the error of a machine without it",
)
def test_example_without_graphviz(tmp_path):
    found = examples(CLI.read_text())
    (example,) = [e for e in found if e.needs_no_graphviz]
    model = next(e for e in found if "--save-mlp" in e.command)
    check(model, run(model, tmp_path))
    check(example, run(example, tmp_path))


def test_the_op_table_is_the_registry_s():
    """docs/ops.md is `python -m lamina.frontends.onnx.table`'s output."""
    from lamina.frontends.onnx.table import page

    assert (ROOT / "docs" / "ops.md").read_text() == page(), (
        "regenerate docs/ops.md: python -m lamina.frontends.onnx.table > docs/ops.md"
    )


def test_docs_list_every_pass():
    """docs/passes.md names every pass and pipeline lamina registers."""
    import lamina.driver  # noqa: F401 - registers every pass
    from lamina.passes.registry import PASSES

    text = (ROOT / "docs" / "passes.md").read_text()
    missing = sorted(name for name in PASSES.own() if f"`{name}`" not in text)
    assert not missing, f"docs/passes.md does not list {missing}"
