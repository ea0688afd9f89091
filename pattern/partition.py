"""Partitioning by a pattern: `partition(pattern, module, attrs=None, check=None)`.

Each accepted match is wrapped into a `relay.fused` region op
(`dialects/relay_region.py`, built by `dialects/outline.py`) carrying `attrs` and
`lamina.partitioned_from` (TVM's "PartitionedFromPattern", e.g.
`"matmul_add_relu_"`). Matches inside existing `relay.fused` bodies are not
partitioned again.

Policies:

- Overlap: all matches in a block are found first; the larger (more ops) wins, then
  the earlier (by the position of its root op); a match overlapping an accepted
  one is dropped.
- Escaping values: a group's results are the results of its root op. Any other
  matched value that is also used outside the match refuses that partition (the
  ops are left as they are). Constants are the one exception: they are cheap, so
  a constant matched by `is_constant()`, `is_expr(...)` or an op pattern is cloned
  into the region (the original stays for its other users, or is erased).
  Constants matched by `wildcard()` become inputs, as in TVM.
- Parameters: the region's operands (and its block's arguments) come in the
  pattern's leaf order, as TVM orders a partitioned function's parameters, not
  in the order the graph first uses them: the values bound to the pattern's
  leaves (`wildcard()`, `is_var`, a lifted constant) and the operands of its
  fuzzy calls (`is_op(...)(None)`), walking the pattern operands first, left to
  right (see `Match.inputs`). For `gamma * (x - mean) / sqrt(var + eps) + beta`
  they are `gamma, x, mean, var, beta` although the graph may compute
  `var + eps` first. (`fuse-ops` and the BYOC region passes, which have no
  pattern, keep first-use order.)
- `check(match) -> bool` vetoes a match before the overlap policy applies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr, f64, i64
from xdsl.ir import Attribute, Operation, SSAValue

from lamina.dialects.outline import outline_fused
from lamina.dialects.relay_region import FusedOp
from lamina.errors import LaminaError
from lamina.passes import record_statistic
from lamina.pattern.language import Pattern, entry_point
from lamina.pattern.matcher import Match, match_blocks, try_match


def _to_attribute(value: Any) -> Attribute:
    if isinstance(value, Attribute):
        return value
    if isinstance(value, bool):
        return IntegerAttr.from_bool(value)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, str):
        return StringAttr(value)
    raise LaminaError(f"partition: cannot make an attribute of {value!r}")


def _escapes(match: Match, inner: set[Operation]) -> bool:
    root_op = match.op
    for op in inner:
        if op is root_op:
            continue
        for r in op.results:
            if any(use.operation not in inner for use in r.uses):
                return True
    return False


def _wrap(
    match: Match,
    attrs: dict[str, Attribute],
    position: Mapping[Operation, int],
    params: Sequence[SSAValue],
) -> FusedOp:
    inner = sorted(match._ops, key=position.__getitem__)
    consts = sorted(match.constants, key=position.__getitem__)
    label = "".join(op.name.removeprefix("relay.") + "_" for op in inner)
    return outline_fused(
        inner,
        {**attrs, "lamina.partitioned_from": StringAttr(label)},
        outputs="last",
        constants=consts,
        input_order=params,
    )


@entry_point
def partition(
    pattern: Pattern,
    module: Operation,
    attrs: Mapping[str, Any] | None = None,
    check: Callable[[Match], bool] | None = None,
) -> list[FusedOp]:
    """Wrap every accepted match of `pattern` into a `relay.fused` op carrying
    `attrs` (see the module docstring for the overlap and escaping-value
    policies); return the new ops."""
    extra = {k: _to_attribute(v) for k, v in (attrs or {}).items()}
    names = pattern.root_names()
    created: list[FusedOp] = []
    for block in list(match_blocks(module, into_fused=False)):
        position = {op: i for i, op in enumerate(block.ops)}
        found: list[Match] = []
        for op in list(block.ops):
            if names is not None and op.name not in names:
                continue
            m = try_match(pattern, op)
            if m is None or m.op is not op or op not in m._ops:
                continue
            if any(o.parent is not block for o in (*m._ops, *m.constants)):
                continue
            if check is not None and not check(m):
                continue
            found.append(m)
        found.sort(key=lambda m: (-len(m._ops), position[m.op]))  # type: ignore[index]
        taken: set[Operation] = set()
        accepted: list[Match] = []
        for m in found:
            inner = set(m._ops)
            if inner & taken or _escapes(m, inner):
                continue
            taken |= inner
            accepted.append(m)
        accepted.sort(key=lambda m: position[m.op])  # type: ignore[index]
        # The parameter orders come from the graph as matched; a group's input may
        # be the root of one wrapped before it, which then reads its region's result.
        params = [m.inputs for m in accepted]
        renamed: dict[SSAValue, SSAValue] = {}
        for m, order in zip(accepted, params, strict=True):
            fused = _wrap(m, extra, position, [renamed.get(v, v) for v in order])
            renamed.update(zip(m.outputs, fused.results, strict=True))
            created.append(fused)
    record_statistic("partition.groups", len(created))
    return created


__all__ = ["partition"]
