"""Every op of every lamina dialect has a round-trip FileCheck test.

A round-trip file is a `filecheck/dialects/*.mlir` file whose RUN lines print the
input in the generic form and parse it again (`--print-op-generic | lamina-opt`,
or the `%lamina_roundtrip` substitution); an op is covered when it occurs in such
a file's IR or in its FileCheck patterns (an implicit terminator such as `tir.yield`
is printed only in the generic form), not just in a prose comment. A new op
without one fails here: add it to the round-trip file of its dialect (custom and generic form),
and its invalid cases to a `*-invalid.mlir` file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from xdsl.ir import Dialect

from lamina.dialects import relay
from lamina.dialects.llvm_ext import LLVMExt
from lamina.dialects.qnn import QNN
from lamina.dialects.relay import Relay
from lamina.dialects.te import TE
from lamina.dialects.tir import TIR

DIALECTS_DIR = Path(__file__).resolve().parent.parent / "filecheck" / "dialects"
ROUND_TRIP_RUN = re.compile(r"--print-op-generic\s*\|\s*lamina-opt|%lamina_roundtrip")
#: A FileCheck directive (`// CHECK:`, `// GENERIC-NEXT:`, ...), but not `// RUN:`.
DIRECTIVE = re.compile(r"^\s*//\s*(?!RUN:)[A-Z][A-Z0-9_]*(-[A-Z]+)?:")


def _round_trip_files() -> dict[str, str]:
    """{file name: its IR and FileCheck patterns, without prose comments} for
    each round-trip file."""
    out = {}
    for path in sorted(DIALECTS_DIR.glob("*.mlir")):
        text = path.read_text()
        run_lines = [ln for ln in text.splitlines() if ln.lstrip().startswith("// RUN:")]
        if any(ROUND_TRIP_RUN.search(ln) for ln in run_lines):
            out[path.name] = "\n".join(
                ln if DIRECTIVE.match(ln) else ln.split("//", 1)[0]
                for ln in text.splitlines()
            )
    return out


def _occurs(op_name: str, ir: str) -> bool:
    """`op_name` used as an op in `ir`: custom (`relay.add %x`) or generic
    (`"relay.add"(%x)`) form, not as the prefix of a longer name."""
    return re.search(r"(?<![\w.])" + re.escape(op_name) + r"(?![\w.])", ir) is not None


FILES = _round_trip_files()
DIALECTS: list[tuple[str, Dialect]] = [
    ("relay", Relay), ("te", TE), ("tir", TIR), ("llvm_ext", LLVMExt), ("qnn", QNN),
]


def test_round_trip_files_exist():
    assert {"relay.mlir", "te.mlir", "tir.mlir"} <= set(FILES), sorted(FILES)


def test_relay_dialect_holds_every_relay_op():
    """RELAY_OPS (what the op registry and the converters use) is in the dialect
    checked below."""
    names = {op.name for op in Relay.operations}
    assert {op.name for op in relay.RELAY_OPS} <= names


@pytest.mark.parametrize("dialect_name,dialect", DIALECTS, ids=[n for n, _ in DIALECTS])
def test_every_op_round_trips(dialect_name: str, dialect: Dialect):
    ops = sorted(op.name for op in dialect.operations)
    assert ops, f"dialect {dialect_name} has no ops?"
    missing = [
        name for name in ops if not any(_occurs(name, ir) for ir in FILES.values())
    ]
    assert not missing, (
        f"{dialect_name} ops with no round-trip test in filecheck/dialects/ "
        f"(round-trip files: {', '.join(FILES)}): {missing}"
    )


def test_the_occurrence_check_is_exact():
    ir = '%0 = relay.add_n %x\n"relay.maxpool"(%y)\nrelay.max_pool2d %z'
    assert _occurs("relay.add_n", ir) and _occurs("relay.max_pool2d", ir)
    assert not _occurs("relay.add", ir)
    assert not _occurs("relay.max", ir) and not _occurs("max_pool2d", ir)
