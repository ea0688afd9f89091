"""Print docs/ops.md, the table of supported ONNX ops, generated from the
converter registry: `python -m lamina.frontends.onnx.table > docs/ops.md`
(`tests/test_readme.py` checks that the file is what this prints).

One row per ONNX op: the relay ops its converter emits, the opset versions of
the op that ONNX defines (all of them are handled; an op of another domain,
`<domain>:<type>`, gives its domain instead), and the converter's notes. Only lamina's own converters are listed (a plugin's are not
lamina's to document).
"""

from __future__ import annotations

import onnx

from lamina.frontends.onnx.registry import CONVERTER_INFO, CONVERTERS


def _versions(op_type: str) -> str:
    if ":" in op_type:
        return f"domain {op_type.split(':')[0]}"
    versions = sorted(
        {
            s.since_version
            for s in onnx.defs.get_all_schemas_with_history()
            if s.name == op_type and s.domain in ("", "ai.onnx")
        }
    )
    return ", ".join(map(str, versions))


def table() -> str:
    rows = [
        "| ONNX op | relay ops | opset versions | notes |",
        "|---|---|---|---|",
    ]
    for op_type in sorted(CONVERTERS.own()):
        info = CONVERTER_INFO[op_type]
        emits = ", ".join(f"`{e}`" for e in info.emits) or "(folded / identity)"
        rows.append(f"| {op_type} | {emits} | {_versions(op_type)} | {info.notes} |")
    return "\n".join(rows)


#: docs/ops.md above the table.
INTRO = """\
# ONNX op coverage

The ONNX ops `lamina.from_onnx` imports, one row per op: the relay (or qnn) ops
its converter emits, the opset versions of the op that ONNX defines (every one of
them is handled; an op of another domain gives its domain instead) and what the
converter supports beyond the op's basics. How the import works (folding, shape
inference, errors, the memory budget) is in
[python-api.md](python-api.md#importing-onnx); a plugin adds converters as
[adding-an-op.md](adding-an-op.md) shows (a plugin's are not listed here).

This page is generated from the converter registry; do not edit it, run
`python -m lamina.frontends.onnx.table > docs/ops.md`.
"""


def page() -> str:
    """docs/ops.md: its title, its introduction and the table."""
    return f"{INTRO}\n{table()}\n"


def main() -> None:
    print(page(), end="")


if __name__ == "__main__":
    main()
