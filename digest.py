"""A digest of an op's structure, without printing it: what identifies a kernel
(structurally identical kernels are emitted once, `lower-relay-to-te`; a
compiled kernel's cache key, `compile-kernels`).

The digest covers everything the op's text shows but the names of its values
and blocks: each nested op's name, operands (by definition order), result
types, properties, attributes and successors, and each block's argument types,
in order. Attributes are immutable, so each one's text is computed once per
process (`str`, the printer's form) and reused; printing a whole kernel was
most of the cost of identifying it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection

from xdsl.ir import Attribute, Block, Operation, SSAValue

#: Text of the attributes met so far (cleared when it grows past `_MEMO_LIMIT`).
_MEMO: dict[Attribute, str] = {}
_MEMO_LIMIT = 1 << 16


def _text(attr: Attribute) -> str:
    try:
        return _MEMO[attr]
    except KeyError:
        pass
    except TypeError:  # an attribute holding unhashable data
        return str(attr)
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    text = _MEMO[attr] = str(attr)
    return text


def structure_digest(op: Operation, skip: Collection[str] = ()) -> str:
    """A SHA-256 (hex) of `op`'s structure: equal digests, ops equal up to the
    names of their values. `skip`: properties of `op` itself left out (its
    `sym_name`, to identify a kernel under any name)."""
    parts: list[str] = []  # each kind of part has its own first character
    values: dict[SSAValue, int] = {}
    blocks: dict[Block, int] = {}
    _feed(op, parts, values, blocks, frozenset(skip))
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


def _feed(
    op: Operation, parts: list[str], values: dict[SSAValue, int],
    blocks: dict[Block, int], skip: frozenset[str],
) -> None:
    parts.append(f"{op.name}/{len(op.operands)}/{len(op.results)}/{len(op.regions)}")
    for v in op.operands:  # a value from outside the op: by its type
        n = values.get(v)
        parts.append(f"%{n}" if n is not None else f"%?{_text(v.type)}")
    for r in op.results:
        values[r] = len(values)
        parts.append(":" + _text(r.type))
    for name in sorted(op.properties):
        if name not in skip:
            parts.append(f"<{name}={_text(op.properties[name])}")
    for name in sorted(op.attributes):
        parts.append(f"{{{name}={_text(op.attributes[name])}")
    for s in op.successors:
        parts.append(f"^{blocks.setdefault(s, len(blocks))}")
    for region in op.regions:
        parts.append("(")
        for block in region.blocks:
            parts.append(f"^{blocks.setdefault(block, len(blocks))}")
            for arg in block.args:
                values[arg] = len(values)
                parts.append(":" + _text(arg.type))
            for inner in block.ops:
                _feed(inner, parts, values, blocks, frozenset())
        parts.append(")")


__all__ = ["structure_digest"]
