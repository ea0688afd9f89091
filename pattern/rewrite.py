"""Rewriting by patterns: `rewrite(callbacks, module)`, TVM's `rewrite`.

Callbacks are `(pattern, fn)` pairs or `PatternCallback` objects (TVM's
`DFPatternCallback`); `fn(match)` returns the new value (an SSA value, an op whose
results replace the matched op's, a list of values) or None to leave the match
alone. New ops may be returned unattached (and may use the matched values,
`relu(match.root)`): they are inserted right after the matched op.

Rounds (each callback in turn, ops in block order, `relay.fused` bodies included)
run until one changes nothing; more than `max_iterations` rounds that change
something (default: the `pattern.max-iterations` pass config) is a `LaminaError`
naming the callbacks that kept firing. A `PatternCallback(rewrite_once=True)`
fires in the first round only. Matched ops left without uses are erased. Each
callback's count is reported to the running pass as `rewrite.<name>`.

Types are local: relay ops infer their result type when built, so a callback's
new ops are typed on construction. A replacement of a different type re-infers
the types of the users of the replaced value, and of their users while types keep
changing, never the whole module; a user that cannot be re-typed (such as
`func.return`) makes that a `LaminaError` naming the callback.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TypeAlias

from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue
from xdsl.rewriter import Rewriter
from xdsl.traits import is_side_effect_free
from xdsl.utils.exceptions import VerifyException

from lamina.dialects import relay
from lamina.errors import LaminaError
from lamina.passes import max_iterations as pass_max_iterations
from lamina.passes import record_statistic
from lamina.pattern.language import Pattern
from lamina.pattern.matcher import Match, match_blocks, try_match

RewriteResult: TypeAlias = SSAValue | Operation | Sequence[SSAValue] | None


class PatternCallback:
    """A rewrite (TVM's `DFPatternCallback`): set `pattern`, override `callback`.
    With `rewrite_once`, it only fires in the first round of `rewrite`."""

    pattern: Pattern
    rewrite_once: bool = False

    def __init__(self, pattern: Pattern | None = None, rewrite_once: bool = False):
        if pattern is not None:
            self.pattern = pattern
        self.rewrite_once = rewrite_once

    @property
    def name(self) -> str:
        return type(self).__name__

    def callback(self, match: Match) -> RewriteResult:
        raise NotImplementedError


class _Callback:
    def __init__(
        self, name: str, pattern: Pattern, fn: Callable[[Match], RewriteResult], once: bool
    ) -> None:
        self.name = name
        self.pattern = pattern
        self.fn = fn
        self.once = once
        self.names = pattern.root_names()


def _callbacks(
    callbacks: PatternCallback
    | tuple[Pattern, Callable[[Match], RewriteResult]]
    | Sequence[PatternCallback | tuple[Pattern, Callable[[Match], RewriteResult]]],
) -> list[_Callback]:
    if isinstance(callbacks, PatternCallback) or (
        isinstance(callbacks, tuple)
        and len(callbacks) == 2
        and isinstance(callbacks[0], Pattern)
    ):
        callbacks = [callbacks]  # type: ignore[list-item]
    out = []
    for cb in callbacks:  # type: ignore[union-attr]
        if isinstance(cb, PatternCallback):
            if not isinstance(getattr(cb, "pattern", None), Pattern):
                raise LaminaError(f"callback {cb.name} has no pattern")
            out.append(_Callback(cb.name, cb.pattern, cb.callback, cb.rewrite_once))
        elif isinstance(cb, tuple) and len(cb) == 2 and isinstance(cb[0], Pattern):
            fn = cb[1]
            name = getattr(fn, "__name__", None) or repr(cb[0])
            out.append(_Callback(name, cb[0], fn, False))
        else:
            raise LaminaError(
                f"a rewrite callback is a PatternCallback or a (pattern, function) "
                f"pair, got {cb!r}"
            )
    return out


def _candidates(root: Operation, names: frozenset[str] | None, into_fused: bool):
    for block in list(match_blocks(root, into_fused)):
        for op in list(block.ops):
            if names is None or op.name in names:
                yield op


def _new_values(name: str, match: Match, new: RewriteResult) -> list[SSAValue] | None:
    """The values replacing the match's root (one) or its op's results (all)."""
    if new is None:
        return None
    if isinstance(new, Operation):
        if len(new.results) == 1:
            return [new.results[0]]
        new = list(new.results)
    if isinstance(new, SSAValue):
        return [new]
    values = list(new)
    if not all(isinstance(v, SSAValue) for v in values):
        raise LaminaError(
            f"rewrite callback '{name}' must return an SSA value, an op, a list of "
            f"values or None, got {new!r}"
        )
    if match.op is None or len(values) != len(match.op.results):
        count = len(match.op.results) if match.op is not None else 1
        raise LaminaError(
            f"rewrite callback '{name}' returned {len(values)} values for an op with "
            f"{count} results"
        )
    return values


def _insert_new_ops(
    values: Sequence[SSAValue], block: Block, after: Operation | None
) -> set[Operation]:
    """Insert the unattached ops that `values` depend on, producers first, after
    `after` (None: at the start of `block`); return them."""
    order: list[Operation] = []
    seen: set[Operation] = set()

    def visit(op: Operation) -> None:
        if op in seen or op.parent is not None:
            return
        seen.add(op)
        for operand in op.operands:
            if isinstance(operand, OpResult):
                visit(operand.op)
        order.append(op)

    for v in values:
        if isinstance(v, OpResult):
            visit(v.op)
    if order:
        if after is not None:
            block.insert_ops_after(order, after)
        elif block.first_op is not None:
            block.insert_ops_before(order, block.first_op)
        else:
            block.add_ops(order)
    return seen


def _retype_users(name: str, old_type: Attribute, value: SSAValue) -> None:
    """Re-infer the result types of `value`'s users (and theirs, while they
    change) after `value` replaced a value of `old_type`."""
    work = [value]
    while work:
        v = work.pop()
        for use in list(v.uses):
            user = use.operation
            if isinstance(user, relay.RelayOp) and not isinstance(user, relay.ConstantOp):
                try:
                    new_t = type(user).infer_type(user.operand_types, dict(user.properties))
                except VerifyException as e:
                    raise LaminaError(
                        f"rewrite callback '{name}' replaced a {old_type} by a "
                        f"{value.type}, and its user {user.name} does not accept it: {e}"
                    ) from None
                if len(user.results) == 1 and new_t != user.results[0].type:
                    work.append(Rewriter.replace_value_with_new_type(user.results[0], new_t))
            else:
                raise LaminaError(
                    f"rewrite callback '{name}' replaced a {old_type} by a {value.type}, "
                    f"but its user {user.name} cannot be re-typed; return a value of "
                    f"type {old_type}"
                )


def _erase_dead(ops: Iterable[Operation]) -> None:
    """Erase those of `ops` (in reverse order) that are attached, unused and free
    of side effects."""
    for op in reversed(list(ops)):
        if (
            op.parent is not None
            and not any(r.uses for r in op.results)
            and is_side_effect_free(op)
        ):
            Rewriter.erase_op(op)


def _is_before(a: Operation, b: Operation) -> bool:
    op = a.next_op
    while op is not None:
        if op is b:
            return True
        op = op.next_op
    return False


def _apply(cb: _Callback, match: Match) -> bool:
    values = _new_values(cb.name, match, cb.fn(match))
    if values is None:
        return False
    root_op = match.op
    olds = [match.root] if len(values) == 1 else list(root_op.results)  # type: ignore[union-attr]
    if all(n is o for n, o in zip(values, olds, strict=True)):
        return False
    # New ops go right after the matched op (they may use its results), or at the
    # start of the block of a matched block argument.
    block = root_op.parent if root_op is not None else match.root.owner
    assert isinstance(block, Block)
    inserted = _insert_new_ops(values, block, root_op)
    for v in values:
        if (
            root_op is not None
            and isinstance(v, OpResult)
            and v.op not in inserted
            and v.op is not root_op
            and v.op.parent is block
            and _is_before(root_op, v.op)
        ):
            raise LaminaError(
                f"rewrite callback '{cb.name}' returned {v.op.name}'s result, "
                "which is defined after the matched op"
            )
    for old, new in zip(olds, values, strict=True):
        if old is new:
            continue
        old_type = old.type
        # New ops may use the old value (`relu(match.root)`): keep those uses.
        old.replace_uses_with_if(new, lambda use: use.operation not in inserted)
        if new.type != old_type:
            _retype_users(cb.name, old_type, new)
    inner = list(match.ops)
    if root_op is not None and root_op not in inner:
        inner.append(root_op)
    _erase_dead([*match.constants, *inner])
    return True


def rewrite(
    callbacks: PatternCallback
    | tuple[Pattern, Callable[[Match], RewriteResult]]
    | Sequence[PatternCallback | tuple[Pattern, Callable[[Match], RewriteResult]]],
    module: Operation,
    *,
    max_iterations: int | None = None,
) -> int:
    """Apply the callbacks to every match in `module` (rounds in block order, each
    callback in turn) until a round changes nothing; return the number of
    rewrites. Reports `rewrite.<callback>` counts to the running pass."""
    cbs = _callbacks(callbacks)
    cap = max_iterations if max_iterations is not None else pass_max_iterations()
    total: Counter[str] = Counter()
    for iteration in range(cap + 1):
        fired: Counter[str] = Counter()
        for cb in cbs:
            if cb.once and iteration > 0:
                continue
            for op in _candidates(module, cb.names, into_fused=True):
                if op.parent is None:  # erased by an earlier rewrite
                    continue
                match = try_match(cb.pattern, op)
                if match is not None and _apply(cb, match):
                    fired[cb.name] += 1
        if not fired:
            break
        if iteration == cap:
            still = ", ".join(f"{n} ({c} rewrites)" for n, c in fired.items())
            raise LaminaError(
                f"pattern rewrite did not converge after {cap} iterations; still "
                f"firing in the last one: {still}. A callback probably undoes "
                "another or rewrites its own result; raise pattern.max-iterations "
                "if the rewrite is just long"
            )
        total += fired
    for name, count in total.items():
        record_statistic(f"rewrite.{name}", count)
    return sum(total.values())


__all__ = ["PatternCallback", "RewriteResult", "rewrite"]
