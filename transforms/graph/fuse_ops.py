"""`fuse-ops`: group graph ops into `relay.fused` regions, TVM's FuseOps.

The algorithm is TVM's (src/relay/transforms/fuse_ops.cc), on one block at a time:

1. The dataflow graph: a node per op of the block (constants excluded: weights stay
   parameters), edges to its users labelled with the user's op-pattern kind (a
   broadcast whose result has the operand's shape counts as elementwise). A node
   used outside the block's graph (by `func.return`, another region, ...) is an
   external reference.
2. The post-dominator tree: a node's parent is the lowest common ancestor of its
   users, and the edge carries the most complex kind on the way (external
   references and unused nodes are roots).
3. Grouping, by union-find, in topological order:
   - phase 0: an out-elementwise-fusable op (matmul, dense) joins its
     post-dominator when the relation is elementwise and every op on the paths is
     at most broadcast; an elementwise/broadcast op joins its post-dominator when
     the relation is at most injective (or a reduction) and the paths allow it;
   - phase 1: injective ops (reshape, transpose) join along injective paths.
   A group never grows beyond `max_depth` ops (`fuse-ops{max-depth=N}`, else the
   `fuse-ops.max-depth` pass config, 256 by default: TVM's).
4. Every group of two or more ops becomes a `relay.fused` op (attributes
   `lamina.primitive` and `lamina.group = "matmul_add_relu"`); single ops stay as
   they are. A group has one output, its post-dominating sink.

Opaque ops (softmax, anything without a kind, a concatenation computed in
place) are never fused. Ops inside existing
`relay.fused` bodies are left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType, UnitAttr
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator

from lamina.dialects import relay
from lamina.dialects.outline import outline_fused
from lamina.dialects.relay import OpPattern
from lamina.dialects.relay_region import FusedOp
from lamina.errors import LaminaError
from lamina.lowering.concat_slices import in_place
from lamina.passes import PassContext, record_statistic, register_config, register_pass

register_config(
    "fuse-ops.max-depth",
    int,
    256,
    "the most ops fuse-ops puts in one group (TVM's relay.FuseOps.max_depth)",
)

ELEMWISE, BROADCAST, INJECTIVE = OpPattern.ELEMWISE, OpPattern.BROADCAST, OpPattern.INJECTIVE
COMM_REDUCE, OUT_FUSABLE = OpPattern.COMM_REDUCE, OpPattern.OUT_ELEMWISE_FUSABLE
TUPLE, OPAQUE = OpPattern.TUPLE, OpPattern.OPAQUE


def op_pattern(op: Operation) -> OpPattern:
    """The op-pattern kind of a graph op (opaque for anything else). A
    concatenation computed in place (`in_place`: it costs nothing) is opaque:
    fused, it would read every operand at every point and select one, and
    each producer fused into it would compute every point; apart, each
    producer writes its own slice once."""
    if in_place(op):
        return OPAQUE
    if isinstance(op, relay.RelayOp) and len(op.results) == 1:
        return op.PATTERN
    return OPAQUE


class _Node:
    __slots__ = ("extern", "index", "op", "outputs", "pattern")

    def __init__(self, op: Operation, index: int) -> None:
        self.op = op
        self.index = index
        self.pattern = op_pattern(op)
        self.outputs: list[tuple[_Node, OpPattern]] = []
        self.extern = False


class _TreeNode:
    __slots__ = ("depth", "node", "parent", "pattern")

    def __init__(
        self, node: _Node, parent: _TreeNode | None, depth: int, pattern: OpPattern
    ) -> None:
        self.node = node
        self.parent = parent
        self.depth = depth
        self.pattern = pattern


class _Group:
    __slots__ = ("anchor", "num_nodes", "parent", "pattern")

    def __init__(self, pattern: OpPattern) -> None:
        self.parent: _Group | None = None
        self.pattern = pattern
        self.num_nodes = 1
        self.anchor = pattern == OUT_FUSABLE

    def root(self) -> _Group:
        g = self
        while g.parent is not None:
            g = g.parent
        node = self
        while node is not g:  # path compression
            assert node.parent is not None
            node.parent, node = g, node.parent
        return g


def _graph(block: Block) -> list[_Node]:
    nodes: dict[Operation, _Node] = {}
    order: list[_Node] = []
    for op in block.ops:
        if isinstance(op, relay.ConstantOp) or op.has_trait(IsTerminator):
            continue
        node = _Node(op, len(order))
        nodes[op] = node
        order.append(node)
    for node in order:
        for result in node.op.results:
            for use in result.uses:
                user = nodes.get(use.operation)
                if user is None:
                    node.extern = True
                    continue
                edge = user.pattern
                operand_t = result.type
                user_t = user.op.results[0].type if user.op.results else None
                if (
                    edge == BROADCAST
                    and isinstance(operand_t, TensorType)
                    and isinstance(user_t, TensorType)
                    and operand_t.get_shape() == user_t.get_shape()
                ):
                    edge = ELEMWISE
                node.outputs.append((user, edge))
    return order


def _lca(
    a: _TreeNode | None, b: _TreeNode | None, pattern: OpPattern
) -> tuple[_TreeNode | None, OpPattern]:
    while a is not b:
        if a is None or b is None:
            return None, pattern
        if a.depth < b.depth:
            pattern = max(pattern, b.pattern)
            b = b.parent
        elif b.depth < a.depth:
            pattern = max(pattern, a.pattern)
            a = a.parent
        else:
            pattern = max(pattern, a.pattern, b.pattern)
            a, b = a.parent, b.parent
    return a, pattern


def _post_dominator_tree(order: list[_Node]) -> list[_TreeNode]:
    tree: list[_TreeNode | None] = [None] * len(order)
    for node in reversed(order):
        if node.extern or not node.outputs:
            tree[node.index] = _TreeNode(node, None, 1, OPAQUE)
            continue
        pattern = ELEMWISE
        parent: _TreeNode | None = None
        for i, (user, edge) in enumerate(node.outputs):
            user_tree = tree[user.index]
            assert user_tree is not None
            if i == 0:
                parent = user_tree
            else:
                parent, pattern = _lca(parent, user_tree, pattern)
            pattern = max(pattern, edge)
        depth = parent.depth + 1 if parent is not None else 1
        tree[node.index] = _TreeNode(node, parent, depth, pattern)
    return tree  # type: ignore[return-value]


class _Partitioner:
    def __init__(self, order: list[_Node], max_depth: int) -> None:
        self.order = order
        self.max_depth = max_depth
        self.groups = [_Group(n.pattern) for n in order]
        self.visited: set[int] = set()

    def _check_path(
        self, src: _Node, sink: _Node, fcond: Callable[[OpPattern, bool], bool]
    ) -> bool:
        self.visited = set()
        return all(self._check_path_(u, sink, fcond) for u, _ in src.outputs)

    def _check_path_(
        self, src: _Node, sink: _Node, fcond: Callable[[OpPattern, bool], bool]
    ) -> bool:
        if src.index in self.visited:
            return True
        self.visited.add(src.index)
        group = self.groups[src.index].root()
        if not fcond(group.pattern, src is sink):
            return False
        if src is sink:
            return True
        return all(self._check_path_(u, sink, fcond) for u, _ in src.outputs)

    def _count_upto_sink(self, src: _Node, sink: _Node) -> int:
        if src is sink or src.index in self.visited:
            return 0
        self.visited.add(src.index)
        total = self.groups[src.index].num_nodes
        return total + sum(self._count_upto_sink(u, sink) for u, _ in src.outputs)

    def _count_with_new_child(self, child: _Node, sink: _Node) -> int:
        self.visited = set()
        return self.groups[sink.index].root().num_nodes + self._count_upto_sink(
            child, sink
        )

    def _merge(self, child: _Group, parent: _Group) -> None:
        child, parent = child.root(), parent.root()
        if child is parent:
            return
        parent.num_nodes += child.num_nodes
        child.parent = parent
        if child.anchor:
            parent.anchor = True
            parent.pattern = max(child.pattern, parent.pattern)

    def _commit_(self, src: _Node, sink: _Node, target: _Group) -> None:
        if src is sink or src.index in self.visited:
            return
        self.visited.add(src.index)
        self._merge(self.groups[src.index], target)
        for u, _ in src.outputs:
            self._commit_(u, sink, target)

    def _commit(self, src: _Node, sink: _Node) -> None:
        self.visited = set()
        self._commit_(src, sink, self.groups[sink.index])

    def run(self, tree: list[_TreeNode], phase: int) -> None:
        for node in self.order:
            group = self.groups[node.index]
            dom = tree[node.index]
            if group.pattern == OPAQUE or dom.parent is None:
                continue
            sink = dom.parent.node
            sink_group = self.groups[sink.index]
            if sink_group.root() is group.root() or sink_group.pattern == TUPLE:
                continue
            if self._count_with_new_child(node, sink) > self.max_depth:
                continue
            if group.pattern == OUT_FUSABLE:
                if phase == 0 and dom.pattern == ELEMWISE and self._check_path(
                    node, sink, lambda k, is_sink: k <= BROADCAST
                ):
                    self._commit(node, sink)
            elif group.pattern <= BROADCAST:
                if dom.pattern <= INJECTIVE or dom.pattern == COMM_REDUCE:

                    def fcond(k: OpPattern, is_sink: bool) -> bool:
                        if not is_sink:
                            return k <= INJECTIVE
                        return k <= BROADCAST or k in (COMM_REDUCE, INJECTIVE, OUT_FUSABLE)

                    if self._check_path(node, sink, fcond):
                        self._commit(node, sink)
            elif (
                group.pattern in (INJECTIVE, TUPLE)
                and phase == 1
                and self._check_path(node, sink, lambda k, is_sink: k <= INJECTIVE)
            ):
                self._commit(node, sink)

    def members(self) -> list[list[_Node]]:
        by_root: dict[int, list[_Node]] = {}
        for node in self.order:
            by_root.setdefault(id(self.groups[node.index].root()), []).append(node)
        return list(by_root.values())


def fuse_block(block: Block, max_depth: int) -> list[FusedOp]:
    """Fuse the graph ops of `block`; return the new `relay.fused` ops."""
    order = _graph(block)
    if len(order) < 2:
        return []
    tree = _post_dominator_tree(order)
    part = _Partitioner(order, max_depth)
    for phase in (0, 1):
        part.run(tree, phase)
    created = []
    for members in part.members():
        if len(members) < 2:
            continue
        ops = [n.op for n in members]  # in block order: `order` is
        inside = set(ops)
        if any(
            use.operation not in inside
            for op in ops[:-1]
            for r in op.results
            for use in r.uses
        ):  # pragma: no cover - the post-dominator construction rules this out
            raise LaminaError(
                "fuse-ops: a group's intermediate value escapes: "
                + ", ".join(op.name for op in ops)
            )
        label = "_".join(op.name.removeprefix("relay.") for op in ops)
        attrs = {"lamina.primitive": UnitAttr(), "lamina.group": StringAttr(label)}
        created.append(outline_fused(ops, attrs, outputs="last"))
    return created


def fuse_ops(module: Operation, max_depth: int) -> list[FusedOp]:
    """Fuse every graph block of `module` (not the bodies of `relay.fused` ops)."""
    if max_depth < 1:
        raise LaminaError(f"fuse-ops: max-depth must be at least 1, got {max_depth}")
    created: list[FusedOp] = []
    blocks = [
        b
        for op in module.walk()
        if not isinstance(op, FusedOp) and not _inside_fused(op)
        for r in op.regions
        for b in r.blocks
    ]
    for block in blocks:
        created += fuse_block(block, max_depth)
    record_statistic("fuse-ops.groups", len(created))
    record_statistic(
        "fuse-ops.fused-ops", sum(len(list(f.body.block.ops)) - 1 for f in created)
    )
    return created


def _inside_fused(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, FusedOp):
            return True
        parent = parent.parent_op()
    return False


@register_pass
@dataclass(frozen=True)
class FuseOpsPass(ModulePass):
    """Group graph ops into `relay.fused` regions (TVM's FuseOps)."""

    name = "fuse-ops"
    opt_level: ClassVar[int] = 2
    max_depth: int | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        depth = self.max_depth
        if depth is None:
            depth = int(PassContext.current().get_config("fuse-ops.max-depth"))
        fuse_ops(op, depth)


__all__ = ["FuseOpsPass", "fuse_block", "fuse_ops", "op_pattern"]
