"""The README's `lamina` and `lamina-opt` examples run as written.

Every `$ ...` line of the code blocks in the README's sections on the `lamina`
command and on `lamina-opt` runs through bash, in order, in one empty folder (the examples make their
own models with `lamina demo --save-model/--save-mlp`). A command whose shown output
is an error must fail with exit code 1 and that error line; any other must succeed,
and its lines saying what it wrote or compiled must read as shown (numbers aside).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
SECTIONS = ("## The `lamina` command", "## lamina-opt")
BIN = Path(sys.executable).parent  # where pip put `lamina` next to this Python
#: output lines compared with the README's (numbers and spacing aside)
ERRORS = ("lamina: error:", "lamina-opt: error:")
CHECKED = (*ERRORS, "wrote ", "compiled ", "no --input given", "  inputs:", "  outputs:")


@dataclass
class Example:
    command: str
    shown: list[str] = field(default_factory=list)

    @property
    def needs_no_graphviz(self) -> bool:
        """Shows the error of a machine without Graphviz's `dot`."""
        return "without Graphviz" in self.command


def examples(text: str) -> list[Example]:
    """The `$ ` commands of the sections' code blocks with the lines shown after
    each, in order."""
    sections = [text.split(title, 1)[1].split("\n## ", 1)[0] for title in SECTIONS]
    out: list[Example] = []
    for block in re.findall(r"^```[a-z]*\n(.*?)^```", "\n".join(sections), re.M | re.S):
        lines = block.splitlines()
        if not any(line.startswith("$ ") for line in lines):
            continue  # a synopsis or a lone output, not an example
        for line in lines:
            if line.startswith("$ "):
                out.append(Example(line[2:]))
            else:
                out[-1].shown.append(line)
    return out


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


def check(example: Example, proc: subprocess.CompletedProcess[str]) -> None:
    where = f"README example `$ {example.command}`"
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


def test_the_readme_has_lamina_examples():
    commands = [e.command for e in examples(README.read_text())]
    assert commands[0] == "lamina demo --save-model resnet.onnx --save-mlp mlp.onnx"
    assert any(c.startswith("lamina compile mlp.mlir") for c in commands)
    assert sum(c.startswith("lamina ") for c in commands) >= 15


def test_readme_examples_run_as_written(tmp_path):
    for example in examples(README.read_text()):
        if not example.needs_no_graphviz:  # that one: the test below
            check(example, run(example, tmp_path))


@pytest.mark.skipif(
    shutil.which("dot") is not None,
    reason="Graphviz is installed: the README shows the error of a machine without it",
)
def test_readme_example_without_graphviz(tmp_path):
    found = examples(README.read_text())
    (example,) = [e for e in found if e.needs_no_graphviz]
    model = next(e for e in found if "--save-mlp" in e.command)
    check(model, run(model, tmp_path))
    check(example, run(example, tmp_path))


def test_the_readme_op_table_is_the_registry_s():
    """The README's table of ONNX ops is `python -m lamina.frontends.onnx.table`'s."""
    from lamina.frontends.onnx.table import table

    assert table() in README.read_text(), "regenerate the README's op table (python -m lamina.frontends.onnx.table)"
