"""`tir-cse`: common subexpression elimination for lowered kernels.

It makes what xDSL's `cse` makes (the same ops kept, replaced and erased), at a
fraction of its cost on unrolled and vectorized kernels, where `cse` spent most
of its time asking traits for the effects of every op, again for every op it
compared with, and copying its table of known ops into every loop body:

- effects are read from each op class's traits once; an op with the effects of
  its regions (`RecursiveMemoryEffect`) has those of its ops, computed once;
- known ops are keyed by a tuple (name, operands, result types, properties,
  attributes; regions compared structurally), in one table whose entries made in
  a region are undone when it ends;
- whether a read may be reused (no op writing in between, in its block) is a
  count of the block's writing ops, not a walk between the two.

Uses of a replaced op are all redirected: in SSA-dominance regions, which
lamina's kernels are, none of its users can have been visited before it.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass
from functools import cache

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnregisteredOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import (
    EffectInstance,
    IsolatedFromAbove,
    IsTerminator,
    MemoryAllocEffect,
    MemoryEffect,
    MemoryEffectKind,
    MemoryFreeEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoMemoryEffect,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)
from xdsl.transforms.common_subexpression_elimination import (
    has_other_side_effecting_op_in_between,
)

from lamina.passes.registry import register_pass

Effects = Set[EffectInstance] | None  # None: unknown

#: Effect traits whose effects do not depend on the op.
_FIXED_TRAITS: tuple[type[MemoryEffect], ...] = (
    NoMemoryEffect, MemoryReadEffect, MemoryWriteEffect, MemoryAllocEffect, MemoryFreeEffect,
)


def _fixed(trait: MemoryEffect) -> bool:
    """Whether `trait`'s effects are one of the fixed traits' (not overridden)."""
    method = type(trait).get_effects.__func__  # type: ignore[attr-defined]
    return any(method is t.get_effects.__func__ for t in _FIXED_TRAITS)  # type: ignore[attr-defined]


def _recursive(trait: MemoryEffect) -> bool:
    """Whether `trait`'s effects are its op's regions' (`RecursiveMemoryEffect`)."""
    method = type(trait).get_effects.__func__  # type: ignore[attr-defined]
    return method is RecursiveMemoryEffect.get_effects.__func__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class _OpClass:
    """What `cse` asks an op's traits, answered once per op class."""

    terminator: bool  # never simplified (unregistered ops count as terminators)
    isolated: bool  # its regions start with no known ops
    removable: bool  # dead when its results are unused and it has no effects but reads
    known: bool  # it has effect traits (else its effects are unknown)
    fixed: frozenset[EffectInstance]  # the effects of its fixed traits
    recursive: bool  # plus those of the ops in its regions
    other: tuple[MemoryEffect, ...]  # plus those of traits asked op by op


@cache
def _op_class(cls: type[Operation]) -> _OpClass:
    traits = cls.get_traits_of_type(MemoryEffect)
    fixed: set[EffectInstance] = set()
    for t in traits:
        if _fixed(t):
            fixed |= type(t).get_effects(None)  # type: ignore[arg-type]
    return _OpClass(
        terminator=cls.has_trait(IsTerminator),
        isolated=cls.has_trait(IsolatedFromAbove, value_if_unregistered=True),
        removable=not cls.has_trait(IsTerminator, value_if_unregistered=False)
        and not cls.has_trait(SymbolOpInterface, value_if_unregistered=False),
        known=bool(traits),
        fixed=frozenset(fixed),
        recursive=any(_recursive(t) for t in traits),
        other=tuple(t for t in traits if not _fixed(t) and not _recursive(t)),
    )


def _effects(op: Operation) -> Effects:
    """`xdsl.traits.get_effects(op)`, with the traits' answers taken per class."""
    info = _op_class(type(op))
    if not info.known:
        return None
    if not info.recursive and not info.other:
        return info.fixed
    effects = set(info.fixed)
    if info.recursive:
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    inner = _effects(child)
                    if inner is None:
                        return None
                    effects |= inner
    for trait in info.other:
        more = trait.get_effects(op)
        if more is None:
            return None
        effects |= more
    return effects


def _writes(effects: Effects) -> bool:
    """Whether an op with `effects` may write (unknown effects may)."""
    return effects is None or any(e.kind is MemoryEffectKind.WRITE for e in effects)


def _dead(op: Operation, info: _OpClass, effects: Effects) -> bool:
    """`is_trivially_dead(op)`: no result used, no effect outside it but reads."""
    if not info.removable or effects is None or any(r.first_use is not None for r in op.results):
        return False
    return all(
        e.kind is MemoryEffectKind.READ
        or (e.kind is MemoryEffectKind.ALLOC and isinstance(e.value, SSAValue) and op.is_ancestor(e.value.owner))
        for e in effects
    )


class _Regions:
    """An op's regions in its key: equal when structurally equivalent."""

    __slots__ = ("op",)

    def __init__(self, op: Operation):
        self.op = op

    def __hash__(self) -> int:
        return 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Regions) and all(
            s.is_structurally_equivalent(o) for s, o in zip(self.op.regions, other.op.regions, strict=True)
        )


def op_key(op: Operation, operands: Sequence[SSAValue] | None = None) -> tuple[object, ...]:
    """What makes two ops compute the same thing (xDSL's `OperationInfo`):
    name, operands (`operands` if given, else the op's), result types,
    properties, attributes and regions (compared structurally)."""
    name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
    key = (
        name,
        tuple(op.operands if operands is None else operands),
        op.result_types,
        frozenset(op.properties.items()),
        frozenset(op.attributes.items()),
    )
    return (*key, _Regions(op)) if op.regions else key


def pure(op: Operation) -> bool:
    """Whether `op` has no effects and no regions: `cse` replaces it by an
    earlier one of the same key wherever that one is in scope."""
    return not op.regions and _effects(op) == frozenset()


class _Driver:
    """One run of the elimination (xDSL's `CSEDriver`)."""

    def __init__(self) -> None:
        self.known: dict[tuple[object, ...], Operation] = {}
        #: (key, the entry it replaced) for each entry made, to undo scope by scope
        self.undo: list[tuple[tuple[object, ...], Operation | None]] = []
        #: each known read's count of writing ops before it in its block
        self.writes_before: dict[Operation, int] = {}
        self.dead: list[Operation] = []

    def remember(self, key: tuple[object, ...], op: Operation) -> None:
        self.undo.append((key, self.known.get(key)))
        self.known[key] = op

    def region(self, region: Region) -> None:
        if len(region.blocks) != 1:
            return
        mark = len(self.undo)
        self.block(region.block)
        while len(self.undo) > mark:
            key, old = self.undo.pop()
            if old is None:
                del self.known[key]
            else:
                self.known[key] = old

    def block(self, block: Block) -> None:
        writes = 0  # ops before the current one in the block that may write
        for op in block.ops:
            info = _op_class(type(op))
            if op.regions:
                if info.isolated:
                    outer = self.known, self.undo
                    self.known, self.undo = {}, []
                    for region in op.regions:
                        self.region(region)
                    self.known, self.undo = outer
                else:
                    for region in op.regions:
                        self.region(region)
            effects = _effects(op)
            if not info.terminator:
                self.operation(op, info, effects, writes)
            writes += _writes(effects)

    def operation(self, op: Operation, info: _OpClass, effects: Effects, writes: int) -> None:
        if _dead(op, info, effects):
            self.dead.append(op)
            return
        if any(len(r.blocks) > 1 for r in op.regions) or effects is None:
            return
        reads = bool(effects)
        if reads and any(e.kind is not MemoryEffectKind.READ for e in effects):
            return
        key = op_key(op)
        existing = self.known.get(key)
        if existing is not None and (not reads or self.reusable(existing, op, writes)):
            self.replace(op, existing)
            return
        self.remember(key, op)
        if reads:
            self.writes_before[op] = writes

    def reusable(self, existing: Operation, op: Operation, writes: int) -> bool:
        """Whether the read `existing` gives `op`'s result: same block, no write between."""
        if existing.parent_block() is not op.parent_block():
            return False
        before = self.writes_before.get(existing)
        if before is None:  # an entry not made as a read: ask the ops between
            return not has_other_side_effecting_op_in_between(existing, op)
        return before == writes

    def replace(self, op: Operation, existing: Operation) -> None:
        for old, new in zip(op.results, existing.results, strict=True):
            old.replace_all_uses_with(new)
        self.dead.append(op)

    def erase(self) -> None:
        for op in reversed(self.dead):  # users before what they use
            if op.parent is not None:
                op.parent.erase_op(op)


def tir_cse(op: Operation) -> None:
    """Eliminate common subexpressions in `op`'s regions."""
    driver = _Driver()
    for region in op.regions:
        driver.region(region)
    driver.erase()


@register_pass
@dataclass(frozen=True)
class TirCsePass(ModulePass):
    """Common subexpression elimination (xDSL's `cse`, for kernels' sizes)."""

    name = "tir-cse"
    opt_level = 2

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        tir_cse(op)


__all__ = ["TirCsePass", "op_key", "pure", "tir_cse"]
