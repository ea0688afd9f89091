"""Print the README's table of supported ONNX ops, generated from the converter
registry: `python -m lamina.frontends.onnx.table`.

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


def main() -> None:
    print(table())


if __name__ == "__main__":
    main()
