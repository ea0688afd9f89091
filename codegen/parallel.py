"""The thread-pool glue of outlined parallel loops (MLIR keeps OpenMP glue in
its translation to LLVM IR, not in a dialect; so does lamina).

`emit_parallel_glue` defines the launcher of each loop that
`lamina.lowering.tir_to_llvm.parallel.outline_parallel_loops` outlined: it packs the buffer
pointers (then a run-time bound and the sizes, as i64) and calls
`lamina_parallel_for(worker, data, count)` of lamina's thread pool
(`lamina.codegen.pool`) with the loop's iteration count; `worker(data, lo, hi)`
runs the body on iterations `lo .. hi` of the count (`lb + i * step`). The team
size is the pool's (`lamina_get_max_threads`, set by the runtime from
`num_threads` or `LAMINA_NUM_THREADS`); with one thread the launcher calls the
body directly.
"""

from __future__ import annotations

import llvmlite.ir as ir

from lamina.codegen.pool import GET_MAX_THREADS, PARALLEL_FOR
from lamina.lowering.tir_to_llvm.parallel import ParallelLoop

_I64 = ir.IntType(64)
_I32 = ir.IntType(32)
_PTR = ir.PointerType()  # opaque, as xDSL's llvm.ptr


def _function(module: ir.Module, name: str, ftype: ir.FunctionType) -> ir.Function:
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ftype, name)
    return fn


def _range(b: ir.IRBuilder, lo: ir.Value, hi: ir.Value) -> ir.Value:
    """The body's `range` argument: a stack pair of i64, `[lo, hi)`."""
    rng = b.alloca(_I64, size=ir.Constant(_I64, 2))
    b.store(lo, rng)
    b.store(hi, b.gep(rng, [ir.Constant(_I64, 1)], source_etype=_I64))
    return rng


def _count(b: ir.IRBuilder, ub: ir.Value, p: ParallelLoop) -> ir.Value:
    """Iterations of `lb .. ub` by `step` (none if `ub <= lb`)."""
    span = b.sub(ub, ir.Constant(_I64, p.lb))
    n = b.sdiv(b.add(span, ir.Constant(_I64, p.step - 1)), ir.Constant(_I64, p.step))
    return b.select(b.icmp_signed(">", n, ir.Constant(_I64, 0)), n, ir.Constant(_I64, 0))


def emit_parallel_glue(module: ir.Module, loops: list[ParallelLoop]) -> None:
    """Define each loop's launcher and worker in `module` (llvmlite IR)."""
    void = ir.VoidType()
    worker_t = ir.FunctionType(void, [_PTR, _I64, _I64])
    pfor = _function(module, PARALLEL_FOR, ir.FunctionType(void, [_PTR, _PTR, _I64]))
    max_fn = _function(module, GET_MAX_THREADS, ir.FunctionType(_I32, []))
    for p in loops:
        launch = module.globals[p.launch]
        body = module.globals[p.body]
        # called from the launcher (one thread) and the worker (a team): inlined,
        # LLVM would optimize and generate the loop nest three times
        body.attributes.add("noinline")
        # worker(data, lo, hi): iterations lo .. hi of the count, then the body
        worker = ir.Function(module, worker_t, f"{p.body}_worker")
        worker.linkage = "internal"
        b = ir.IRBuilder(worker.append_basic_block("entry"))
        table, first, last = worker.args
        # data: the buffers, then (i64 in pointer slots) a run-time bound, the sizes
        slots = p.buffers + (p.ub is None) + p.sizes
        scalars = [
            b.load(b.gep(table, [ir.Constant(_I64, i)], source_etype=_I64), typ=_I64)
            for i in range(p.buffers + (p.ub is None), slots)
        ]
        step = ir.Constant(_I64, p.step)
        rng = _range(
            b,
            b.add(ir.Constant(_I64, p.lb), b.mul(first, step)),
            b.add(ir.Constant(_I64, p.lb), b.mul(last, step)),
        )
        args = [
            b.load(b.gep(table, [ir.Constant(_I64, i)], source_etype=_PTR), typ=_PTR)
            for i in range(p.buffers)
        ]
        b.call(body, [*args, rng, *scalars])
        b.ret_void()
        # launch(buffers...): one thread runs the body on every iteration itself;
        # more pack the pointers and hand the iterations to the pool.
        b = ir.IRBuilder(launch.append_basic_block("entry"))
        threads = b.call(max_fn, [])
        alone, team = launch.append_basic_block("alone"), launch.append_basic_block("team")
        b.cbranch(b.icmp_signed("<=", threads, ir.Constant(_I32, 1)), alone, team)
        b.position_at_end(alone)
        bufs, rest = list(launch.args[: p.buffers]), list(launch.args[p.buffers :])
        ub = rest.pop(0) if p.ub is None else ir.Constant(_I64, p.ub)
        rng = _range(b, ir.Constant(_I64, p.lb), ub)
        b.call(body, [*bufs, rng, *rest])
        b.ret_void()
        b.position_at_end(team)
        data = b.alloca(_PTR, size=ir.Constant(_I64, max(len(launch.args), 1)))
        for i, a in enumerate(launch.args):
            etype = _PTR if i < p.buffers else _I64
            b.store(a, b.gep(data, [ir.Constant(_I64, i)], source_etype=etype))
        b.call(pfor, [worker, data, _count(b, ub, p)])
        b.ret_void()


__all__ = ["emit_parallel_glue"]
