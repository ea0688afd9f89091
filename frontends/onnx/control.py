"""Converters of control flow: If, Loop and Scan become `relay.if` and
`relay.loop`, their subgraphs regions isolated from above (the outer values a
body reads are the op's operands; outer constants are copied in).

An If on a constant condition is inlined: only the branch taken is converted.
A Loop needs a trip count `M` (a while loop, with `M` left out, is refused);
its scan outputs are stacked over `M` rows (a size the loop sets when `M` is
given at run time) and cut to the iterations run (`relay.narrow`) unless the
condition is constantly true. A Scan is a loop
over its scan axis whose body takes slices (`relay.take` at the iteration, or
from the end for a reverse direction); before opset 9 its leading batch axis is
unrolled, and its sequence_lens mask the steps past each entry's length.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import onnx
from xdsl.dialects.builtin import ArrayAttr, IntegerType, StringAttr, TensorType, i1
from xdsl.ir import Block, Region, SSAValue

from lamina.dialects import relay
from lamina.dialects.dtypes import numpy_dtype
from lamina.dialects.shapes import dims_attr
from lamina.frontends.onnx.context import NodeContext, constant, shape
from lamina.frontends.onnx.helpers import _axis, _cast, _elem, _ints, _rank, _reshape
from lamina.frontends.onnx.registry import converter
from lamina.symbolic import Dim, Sym

I64 = IntegerType(64)
SCALAR_I64 = TensorType(I64, [])
SCALAR_I1 = TensorType(i1, [])


def _scalar(ctx: NodeContext, v: SSAValue, elem: IntegerType, what: str) -> SSAValue:
    n = 1
    for d in shape(v):
        n = n * d
    if n != 1:
        raise ctx.error(f"{what} must hold one element, got shape {list(shape(v))}")
    return _cast(ctx, _reshape(ctx, v, []), elem)


def _where(ctx: NodeContext, name: str) -> str:
    return f"{ctx.node.op_type} node '{ctx.node.name or ctx.node.output[0]}' {name}"


def _inline(ctx: NodeContext, region: Region, captured: list[SSAValue]) -> list[SSAValue]:
    """The ops of a body moved into the current block, its arguments replaced
    by `captured`; the values it yields."""
    block = region.block
    for arg, value in zip(block.args, captured, strict=True):
        arg.replace_all_uses_with(value)
    end = block.last_op
    assert isinstance(end, relay.YieldOp)
    results = list(end.values)
    for op in list(block.ops):
        if op is end:
            break
        op.detach()
        ctx.block.add_op(op)
    return results


@converter("If", emits=("relay.if",), notes="both branches of one type; a constant condition inlines its branch")
def _if(ctx: NodeContext) -> Sequence[SSAValue]:
    then_g: onnx.GraphProto = ctx.attr("then_branch")
    else_g: onnx.GraphProto = ctx.attr("else_branch")
    importer = ctx.importer
    if ctx.is_const(0):
        taken = then_g if bool(np.asarray(ctx.const_value(0)).reshape(-1)[0]) else else_g
        return importer.inline(taken, ctx.block, ctx.scope, _where(ctx, "branch"))
    cond = _scalar(ctx, ctx.input(0), i1, "the condition")
    capture = importer.captures([then_g, else_g], ctx.scope)
    then_r, ins = importer.body(then_g, [], ctx.scope, _where(ctx, "then_branch"), capture)
    else_r, _ = importer.body(else_g, [], ctx.scope, _where(ctx, "else_branch"), capture)
    types = [[t for t in r.block.last_op.operand_types] for r in (then_r, else_r)]  # type: ignore[union-attr]
    if types[0] != types[1]:
        raise ctx.error(
            "its branches yield different types, (" + ", ".join(map(str, types[0])) + ") and ("
            + ", ".join(map(str, types[1])) + "); lamina needs them equal"
        )
    op = relay.IfOp(cond, ins, then_r, else_r)
    return ctx.emit_all(op)


def _always_true(ctx: NodeContext, cond: SSAValue | None, region: Region) -> bool:
    """Whether a loop's condition is true on entry and the body passes it on
    unchanged (or yields a constant true)."""
    if cond is not None and not (ctx.is_const(1) and bool(np.asarray(ctx.const_value(1)).all())):
        return False
    out = region.block.last_op.operands[0]  # type: ignore[union-attr]
    if out is region.block.args[1]:
        return True
    owner = out.owner
    return isinstance(owner, relay.ConstantOp) and ctx.constants.get(out) is not None and bool(
        np.asarray(ctx.constants[out]).all()
    )


@converter(
    "Loop", emits=("relay.loop", "relay.narrow"),
    notes="with a trip count M (no while loops), constant or run-time (the scan outputs' rows a size it sets)",
)
def _loop(ctx: NodeContext) -> Sequence[SSAValue]:
    body: onnx.GraphProto = ctx.attr("body")
    trips_in = ctx.optional_input(0)
    if trips_in is None:
        raise ctx.unsupported("a Loop without a trip count M (a while loop) is not supported")
    trips = _scalar(ctx, trips_in, I64, "M")
    cond_in = ctx.optional_input(1)
    cond = (
        _scalar(ctx, cond_in, i1, "cond")
        if cond_in is not None
        else ctx.constant(np.array(True))
    )
    carried = [ctx.input(i) for i in range(2, len(ctx.node.input))]
    types = [SCALAR_I64, SCALAR_I1, *(v.type for v in carried)]
    region, captured = ctx.importer.body(body, types, ctx.scope, _where(ctx, "body"))
    n_scans = len(body.output) - 1 - len(carried)
    declared = [_declared(o) for o in body.output[1 + len(carried) :]]
    _match_yields(ctx, region, [None, *(v.type for v in carried), *declared])
    rows: Dim | None = None
    sets: str | None = None
    if n_scans and ctx.is_const(0):
        rows = max(0, int(np.asarray(ctx.const_value(0)).reshape(-1)[0]))
    elif n_scans:  # the stacks' rows: a size the loop sets from M (not negative) when it runs
        ctx.at_run_time(0)  # (refused without run-time values)
        sets = ctx.fresh_size("trips")
        trips = ctx.emit(relay.MaximumOp(trips, ctx.constant(np.array(0, np.int64))))
    op = relay.LoopOp(trips, cond, [*carried, *captured], len(carried), region, rows, trips_size=sets)
    results = ctx.emit_all(op)
    finals, stacks, count = results[: len(carried)], results[len(carried) : -1], results[-1]
    if stacks and not _always_true(ctx, cond_in, region):
        size = ctx.fresh_size("iterations")
        stacks = [
            ctx.emit(relay.NarrowOp(s, count, axis=relay.i64_attr(0), size=StringAttr(size)))
            for s in stacks
        ]
    return [*finals, *stacks]


def _declared(vi: onnx.ValueInfoProto) -> tuple[int, ...] | None:
    """The static shape a subgraph declares for an output, None if it has none."""
    t = vi.type.tensor_type
    if not vi.type.HasField("tensor_type") or not t.HasField("shape"):
        return None
    if not all(d.HasField("dim_value") for d in t.shape.dim):
        return None
    return tuple(d.dim_value for d in t.shape.dim)


def _match_yields(ctx: NodeContext, region: Region, targets: Sequence[TensorType | tuple[int, ...] | None]) -> None:
    """Give the body's yielded values whose dims are sizes set when the model
    runs the dims they must have (Relax's `match_cast`): a carried value its
    type on entry, a scan output the shape its subgraph declares. The dims are
    compared when the model runs (a mismatch stops it, naming the node), then
    the value is retyped (`relay.dyn_reshape` to a static shape)."""
    block = region.block
    end = block.last_op
    assert isinstance(end, relay.YieldOp)
    for i, (v, target) in enumerate(zip(end.operands, targets, strict=True)):
        want = tuple(relay.shape_of(target)) if isinstance(target, TensorType) else target
        have = shape(v)
        if want is None or have == want or len(have) != len(want):
            continue
        differ = [a for a, (h, w) in enumerate(zip(have, want, strict=True)) if h != w]
        if not all(isinstance(have[a], Sym) and isinstance(want[a], int) for a in differ):
            continue  # the verifier names the mismatch
        match = Block()  # built apart, then moved before the yield
        ok: SSAValue | None = None
        for a in differ:
            same = _add(match, relay.EqualOp(_dim_tensor(match, have[a]), _dim_tensor(match, want[a])))
            ok = same if ok is None else _add(match, relay.LogicalAndOp(ok, same))
        assert ok is not None
        message = (
            f"{ctx.where()}: its body yields #{i} of shape "
            f"{list(have)} when the model runs, where the loop needs {list(want)}"
        )
        checked = _add(match, relay.CheckOp(v, ok, message=StringAttr(message)))
        target = constant(None, match, np.array(want, np.int64), "shape")
        names = ArrayAttr([StringAttr("")] * len(want))
        end.operands[i] = _add(match, relay.DynReshapeOp(checked, target, sizes=names, dims=dims_attr(want)))
        for op in list(match.ops):
            op.detach()
            block.insert_op_before(op, end)


@converter(
    "Scan",
    emits=("relay.loop", "relay.take"),
    notes="axes and directions; opset 8's batch axis and sequence_lens (constant or run-time)",
)
def _scan(ctx: NodeContext) -> Sequence[SSAValue]:
    if ctx.opset < 9:
        return _scan8(ctx)
    body: onnx.GraphProto = ctx.attr("body")
    m = int(ctx.attr("num_scan_inputs"))
    values = [ctx.input(i) for i in range(len(ctx.node.input))]
    state, scans = values[: len(values) - m], values[len(values) - m :]
    in_axes = [_axis(ctx, a, _rank(x)) for a, x in zip(ctx.attr("scan_input_axes", [0] * m), scans, strict=True)]
    in_dirs = list(ctx.attr("scan_input_directions", [0] * m))
    finals, stacks = _scan_loop(ctx, body, state, scans, in_axes, in_dirs, None)
    out_axes = list(ctx.attr("scan_output_axes", [0] * len(stacks)))
    out_dirs = list(ctx.attr("scan_output_directions", [0] * len(stacks)))
    outs = []
    for s, axis, backwards in zip(stacks, out_axes, out_dirs, strict=True):
        if backwards:  # the stack read from its last row
            rows = shape(s)
            s = ctx.emit(
                relay.StridedSliceOp(
                    s,
                    begin=dims_attr([rows[0] - 1, *([0] * (len(rows) - 1))]),
                    end=dims_attr([-1, *rows[1:]]),
                    strides=relay.i64_array([-1, *([1] * (len(rows) - 1))]),
                )
            )
        axis = _axis(ctx, axis, _rank(s))
        if axis:
            perm = [*range(1, axis + 1), 0, *range(axis + 1, _rank(s))]
            s = ctx.emit(relay.TransposeOp(s, perm=relay.i64_array(perm)))
        outs.append(s)
    return [*finals, *outs]


def _scan8(ctx: NodeContext) -> Sequence[SSAValue]:
    """Scan before opset 9: inputs `(sequence_lens, state..., scan...)` with a
    leading batch axis (the scan axis is 1), the body run per batch entry.
    The batch is unrolled: each entry is a scan of its own over its slices,
    its results stacked back along the batch."""
    body: onnx.GraphProto = ctx.attr("body")
    m = int(ctx.attr("num_scan_inputs"))
    values = [ctx.input(i) for i in range(1, len(ctx.node.input))]
    state, scans = values[: len(values) - m], values[len(values) - m :]
    in_dirs = list(ctx.attr("directions", [0] * m))
    if len(in_dirs) != m:
        raise ctx.error(f"directions {in_dirs} needs one flag per scan input ({m})")
    batches = {shape(x)[0] for x in values if _rank(x)}
    if len(batches) != 1 or any(_rank(x) == 0 for x in values) or any(_rank(x) < 2 for x in scans):
        raise ctx.error(
            "its states and scan inputs must share a leading batch axis, and the scan "
            f"inputs have a sequence axis after it; got shapes {[list(shape(x)) for x in values]}"
        )
    (batch,) = batches
    if not isinstance(batch, int):
        raise ctx.error(f"the batch axis (size {batch}) must be static: lamina unrolls it")
    lens = _sequence_lens(ctx, {shape(x)[1] for x in scans}, batch)

    def entry(x: SSAValue, b: int) -> SSAValue:
        return ctx.emit(relay.TakeOp(x, ctx.constant(np.array(b, np.int64)), axis=relay.i64_attr(0)))

    per_entry = []
    for b in range(batch):
        finals, stacks = _scan_loop(
            ctx, body, [entry(x, b) for x in state], [entry(x, b) for x in scans],
            [0] * m, in_dirs, None if lens is None else entry(lens, b),
        )
        per_entry.append([_reshape(ctx, v, [1, *shape(v)]) for v in (*finals, *stacks)])
    return [
        vs[0] if len(vs) == 1 else ctx.emit(relay.ConcatenateOp(*vs, axis=relay.i64_attr(0)))
        for vs in zip(*per_entry, strict=True)
    ]


def _sequence_lens(ctx: NodeContext, lengths: set[Dim], batch: int) -> SSAValue | None:
    """Opset-8 Scan's sequence_lens as i64 `[batch]`, or None when every entry
    scans the whole sequence (no input, or a constant of full lengths)."""
    if len(lengths) != 1:
        raise ctx.error(f"its scan inputs have different sequence lengths: {sorted(map(str, lengths))}")
    if ctx.optional_input(0) is None:
        return None
    lens = ctx.input(0)
    if shape(lens) != (batch,) or not relay.is_int(_elem(lens)):
        raise ctx.error(f"sequence_lens must be [{batch}] integers (one per batch entry), got {lens.type}")
    (length,) = lengths
    if ctx.is_const(0):
        given = _ints(ctx.const_value(0))
        if isinstance(length, int) and any(not 0 <= n <= length for n in given):
            raise ctx.error(f"sequence_lens {given} must lie in 0..{length} (the sequence length)")
        if all(n == length for n in given):
            return None
    return _cast(ctx, lens, I64)


def _scan_loop(
    ctx: NodeContext,
    body: onnx.GraphProto,
    state: list[SSAValue],
    scans: list[SSAValue],
    in_axes: list[int],
    in_dirs: list[int],
    length_of: SSAValue | None,
) -> tuple[list[SSAValue], list[SSAValue]]:
    """A scan as a `relay.loop` over its scan axis: the final states and the
    scan outputs stacked along a new leading axis. With `length_of` (an i64
    scalar, the sequence's length when shorter than the axis), the steps past
    it keep the state and stack zeros, and a backward input is read from the
    length's last element."""
    m = len(scans)
    lengths = {shape(x)[a] for x, a in zip(scans, in_axes, strict=True)}
    if len(lengths) != 1:
        raise ctx.error(f"its scan inputs have different lengths along their scan axes: {sorted(map(str, lengths))}")
    (length,) = lengths
    trips = (
        ctx.constant(np.array(length, np.int64))
        if isinstance(length, int)
        else _reshape(ctx, ctx.emit(relay.DimsOp(dims=dims_attr([length]))), [])
    )
    k = len(state)
    extra = [] if length_of is None else [length_of]

    def bind(block: Block) -> list[SSAValue]:
        """The body's inputs from the loop's arguments: the state, then each
        scan input's slice at this iteration."""
        step = block.args[0]
        elems = []
        for x, axis, backwards in zip(block.args[2 + k : 2 + k + m], in_axes, in_dirs, strict=True):
            at = step
            if backwards:
                last = (
                    _dim_tensor(block, length - 1)
                    if length_of is None
                    else _add(block, relay.SubtractOp(block.args[2 + k + m], constant(None, block, np.array(1, np.int64), "one")))
                )
                at = _add(block, relay.SubtractOp(last, step))
            elems.append(_add(block, relay.TakeOp(x, at, axis=relay.i64_attr(axis))))
        return [*block.args[2 : 2 + k], *elems]

    types = [SCALAR_I64, SCALAR_I1, *(v.type for v in state), *(v.type for v in scans), *(v.type for v in extra)]
    region, captured = ctx.importer.body(body, types, ctx.scope, _where(ctx, "body"), bind=bind)
    block = region.block
    end = block.last_op
    assert isinstance(end, relay.YieldOp)
    results = list(end.values)
    end.detach()
    end.erase()
    if length_of is not None:  # past the length: keep the state, stack zeros
        running = _add(block, relay.LessOp(block.args[0], block.args[2 + k + m]))
        olds = [*block.args[2 : 2 + k], *(None for _ in results[k:])]
        for i, (new, old) in enumerate(zip(results, olds, strict=True)):
            if old is None:
                old = constant(None, block, np.zeros((), numpy_dtype(_elem(new))), "zero")
            results[i] = _add(block, relay.WhereOp(running, new, old))
    block.add_op(relay.YieldOp(block.args[1], *results))  # the condition stays true
    op = relay.LoopOp(
        trips, ctx.constant(np.array(True)), [*state, *scans, *extra, *captured], k, region, length
    )
    outs = ctx.emit_all(op)
    return outs[:k], outs[k:-1]


def switch(
    ctx: NodeContext,
    selector: SSAValue,
    cases: Sequence[tuple[Sequence[int], int]],
    inputs: Sequence[SSAValue],
    build: Callable[[int, Block, list[SSAValue]], list[SSAValue]],
) -> list[SSAValue]:
    """Dispatch on a run-time i64 scalar over a small set of variants (an axis
    given as a value): a chain of `relay.if`s, case `(values, key)` taken when
    `selector` is one of `values`, the last case otherwise. `build(key, block,
    args)` emits one variant into `block`, over `args` (the bodies' `inputs`);
    the variants must have one result type."""
    operands = [selector, *inputs]

    def new_block() -> Block:
        return Block(arg_types=[v.type for v in operands])

    def body(key: int) -> Region:
        block = new_block()
        block.add_op(relay.YieldOp(*build(key, block, list(block.args[1:]))))
        return Region(block)

    def chain(at: int) -> Region:
        if at == len(cases) - 1:
            return body(cases[at][1])
        block = new_block()
        taken = _equals_any(block, block.args[0], cases[at][0])
        op = relay.IfOp(taken, list(block.args), body(cases[at][1]), chain(at + 1))
        block.add_op(op)
        block.add_op(relay.YieldOp(*op.results))
        return Region(block)

    return _inline(ctx, chain(0), operands)


def _equals_any(block: Block, v: SSAValue, values: Sequence[int]) -> SSAValue:
    """`v` (an i64 scalar) equals one of `values`, as a tensor<i1>."""
    out: SSAValue | None = None
    for k in values:
        same = _add(block, relay.EqualOp(v, constant(None, block, np.array(k, np.int64), "case")))
        out = same if out is None else _add(block, relay.LogicalOrOp(out, same))
    assert out is not None
    return out


def _add(block: Block, op: relay.RelayOp) -> SSAValue:
    block.add_op(op)
    return op.results[0]


def _dim_tensor(block: Block, d: Dim) -> SSAValue:
    """`d` as an i64 scalar tensor made in `block`."""
    if isinstance(d, Sym):
        dims_op = _add(block, relay.DimsOp(dims=dims_attr([d])))
        return _add(block, relay.ReshapeOp(dims_op, shape=dims_attr([])))
    return constant(None, block, np.array(d, np.int64), "scan_last")
