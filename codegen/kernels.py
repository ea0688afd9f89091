"""`compile-kernels`: each kernel lowered and optimized on its own, in
parallel, and cached across models.

Kernels are independent once lowered to TIR: a `tir.prim_func` reads and writes
only its arguments. `lamina.compile` runs this pass right after
`lower-te-to-tir` (`lamina.pipelines.COMPILE_LOWERING`): each kernel goes
through the rest of the lowering (`KERNEL_LOWERING`: the TIR passes and
`lower-tir-to-llvm`) and LLVM's optimizer alone, as MLIR's nested function
pipelines do, and is replaced in the module by an `llvm.func` declaration
carrying its optimized bitcode (`lamina.bitcode`, base64) and, compiled for the
host, its machine code (`lamina.object`: position independent, generated in the
same worker). The passes after it lower only `@main`; the JIT links the
kernels' objects with `@main`'s (`lamina.codegen.jit`), and the exporter
generates a position-independent object of each from its bitcode, for any
target (`kernel_objects`).

- **Content-addressed.** A kernel's symbol is its name without the uniquing
  suffix plus a hash of its TIR (`structure_digest`, its name left out), of whether a
  call may alias its buffers, of the target, the opt level, the pass context's
  settings and the compiler (`source_fingerprint`: lamina's sources, llvmlite,
  the host CPU); its cache key is that hash and the symbol (the bitcode
  defines the symbol: the same code named otherwise is another entry).
  Identical kernels of one model are compiled once, and a kernel any model
  compiled before comes from the cache (`lamina.codegen.cache`) without
  running a pass.
- **Parallel.** Kernels that miss are compiled in `compile-kernels.jobs`
  processes (default: the cores this process may use), forked so that they
  share the module without copying it, the most expensive first. A kernel that
  fails in a worker is compiled again here, so its error is raised as it would
  be without workers. One core, one kernel to compile, a daemonic process (no
  children), no `fork`, or a process running grpc's threads (Python's `grpc`, or
  Ray's: their fork handlers hang a fork) compile in this process.
- **Out of the way of debugging.** Under an instrument that must see every
  pass on the whole module (printing the IR, profiling) the pass does nothing:
  the later passes then lower every kernel in the module, as `--emit` does.
  Verification (`VerifyInstrument`) follows each kernel's passes.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import gc
import hashlib
import json
import multiprocessing
import os
import re
import signal
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import llvmlite.binding as llvm_binding
from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    i64,
)
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from lamina.codegen import codegen as llvm_codegen
from lamina.codegen.cache import cache_dir, cache_get, cache_put, identity
from lamina.codegen.codegen import LLVM_LOCK
from lamina.dialects import te, tir
from lamina.dialects.tir_extern import CallExternOp
from lamina.digest import structure_digest
from lamina.lowering.te_to_tir import KernelLowering
from lamina.lowering.tir_to_llvm import ALIASED_ATTR, CALLS_ATTR, noalias_unsafe
from lamina.lowering.tir_to_llvm.types import PTR
from lamina.passes import (
    PassContext,
    VerifyInstrument,
    record_statistic,
    register_config,
    register_pass,
    run_pipeline,
)
from lamina.pipelines import KERNEL_LOWERING

register_config(
    "compile-kernels.jobs",
    int,
    0,
    "processes compile-kernels compiles kernels in (0: the cores this process may use)",
)

#: The attribute of a kernel's declaration that holds its optimized LLVM
#: bitcode (base64).
BITCODE_ATTR = "lamina.bitcode"
#: The attribute with its object code for the host's JIT (base64), if compiled
#: for the host.
OBJECT_ATTR = "lamina.object"
_SUFFIX = re.compile(r"_\d+$")
_HASHED = re.compile(r"_[0-9a-f]{12}$")


@functools.cache
def source_fingerprint() -> bytes:
    """The compiler a kernel's bitcode comes from: lamina's Python sources and
    the cache's `identity` (a kernel is keyed by its TIR, so a change to a pass
    below it must change the key)."""
    h = hashlib.sha256()
    root = Path(__file__).resolve().parent.parent
    for rel in _sources(root):
        h.update(rel.encode() + b"\0" + (root / rel).read_bytes() + b"\0")
    h.update(identity())  # lamina's and llvmlite's versions, the host CPU
    return h.digest()


#: Folders of the source tree that are not the compiler.
_NOT_COMPILER = frozenset({"tests", "bench", "examples", "docs", "filecheck", "build", "__pycache__"})


def _sources(root: Path) -> list[str]:
    """The compiler's `.py` files under `root`, relative and sorted; hidden
    folders (a virtual environment, `.git`) and those of `_NOT_COMPILER` are
    not entered."""
    found = []
    for folder, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if not d.startswith(".") and d not in _NOT_COMPILER]
        rel = os.path.relpath(folder, root)
        found += [os.path.normpath(os.path.join(rel, f)) for f in files if f.endswith(".py")]
    return sorted(found)


@dataclass(frozen=True)
class _Unit:
    """One kernel to compile: the op, its TIR's digest, its content-addressed
    symbol and key."""

    op: tir.PrimFuncOp
    digest: str
    symbol: str
    key: str
    noalias: bool

    @functools.cached_property
    def lowering(self) -> Lowering:
        """What its declaration, and the cache's record of it, need."""
        op = self.op
        return Lowering(self.digest, len(op.args) - len(op.sizes), tuple(op.sizes), _calls(op))


def _context_key(ctx: PassContext) -> str:
    config = sorted((k, repr(v)) for k, v in ctx.config.items())
    return repr((ctx.opt_level, sorted(ctx.required_passes), sorted(ctx.disabled_passes), config))


def _compiled_by(*parts: str) -> str:
    """A SHA-256 (hex) of `parts` and the compiler (`source_fingerprint`)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode() + b"\0")
    h.update(source_fingerprint())
    return h.hexdigest()


def _address(name: str, digest: str, noalias: bool, ctx: PassContext) -> tuple[str, str]:
    """The symbol and cache key of kernel `name` whose TIR has `digest`."""
    content = _compiled_by(digest, str(noalias), str(ctx.target), _context_key(ctx))
    symbol = f"{_SUFFIX.sub('', name)}_{content[:12]}"
    # the bitcode defines `symbol`: the same code under another name is another entry
    return symbol, hashlib.sha256(f"{content}\0{symbol}".encode()).hexdigest()


def _unit(op: tir.PrimFuncOp, noalias: bool, ctx: PassContext) -> _Unit:
    digest = structure_digest(op, skip=("sym_name",))
    symbol, key = _address(op.sym_name.data, digest, noalias, ctx)
    return _Unit(op, digest, symbol, key, noalias)


# ------------------------------------------------------- recalled TE kernels
#: The module attribute through which recall-kernels hands compile-kernels the
#: TE digest of each kernel it could not mark (by name), whose lowering
#: compile-kernels then records.
_TE_DIGESTS = "lamina.te_digests"


@dataclass(frozen=True)
class Lowering:
    """What compile-kernels needs of a kernel's TIR without building it: its
    digest, its buffer and size arguments, and the runtime functions it calls.
    Recorded in the kernel cache under the kernel's TE (`_lowering_key`)."""

    digest: str
    buffers: int
    sizes: tuple[str, ...]
    calls: tuple[str, ...]

    def pack(self) -> bytes:
        return json.dumps([self.digest, self.buffers, self.sizes, self.calls]).encode()

    @staticmethod
    def unpack(blob: bytes) -> Lowering | None:
        try:
            digest, buffers, sizes, calls = json.loads(blob)
            return Lowering(str(digest), int(buffers), tuple(map(str, sizes)), tuple(map(str, calls)))
        except (ValueError, TypeError):  # another entry's bytes, or damaged
            return None

    def mark(self) -> DictionaryAttr:
        """The `te.LOWERED` attribute of a kernel with this lowering."""
        return DictionaryAttr({
            "digest": StringAttr(self.digest),
            "buffers": IntegerAttr(self.buffers, i64),
            "sizes": ArrayAttr([StringAttr(n) for n in self.sizes]),
            "calls": ArrayAttr([StringAttr(n) for n in self.calls]),
        })

    @staticmethod
    def marked(fn: te.FuncOp) -> Lowering | None:
        """The lowering `fn`'s `te.LOWERED` mark names (None: not one of
        `mark`'s, as a hand-written one may be)."""
        sizes = te.lowered_sizes(fn)
        try:
            d = fn.attributes[te.LOWERED].data  # type: ignore[attr-defined]
            return Lowering(
                d["digest"].data, d["buffers"].value.data, tuple(sizes),  # type: ignore[arg-type]
                tuple(c.data for c in d["calls"].data),
            )
        except (AttributeError, KeyError, TypeError):  # (sizes None: a TypeError)
            return None


def _lowering_key(te_digest: str, ctx: PassContext) -> str:
    return _compiled_by("lowering", te_digest, str(ctx.target), _context_key(ctx))


def recall_kernels(module: ModuleOp, ctx: PassContext) -> None:
    """Mark each `te.func` whose lowering the cache recorded `te.LOWERED`;
    hand compile-kernels the TE digests of the others."""
    unknown: dict[str, Attribute] = {}
    recalled = 0
    for fn in module.ops:
        if not isinstance(fn, te.FuncOp):
            continue
        digest = structure_digest(fn, skip=("sym_name",))
        blob = cache_get(_lowering_key(digest, ctx))
        lowering = Lowering.unpack(blob) if blob is not None else None
        if lowering is None:
            unknown[fn.sym_name.data] = StringAttr(digest)
        else:
            fn.attributes[te.LOWERED] = lowering.mark()
            recalled += 1
    record_statistic("recalled", recalled)
    if unknown:
        module.attributes[_TE_DIGESTS] = DictionaryAttr(unknown)


def _recalled(module: ModuleOp, unsafe: set[str], ctx: PassContext) -> dict[str, tuple[str, Code, Lowering]]:
    """The marked kernels whose code the cache holds (by name: their symbol,
    code and lowering), replaced in the module by their declarations; a marked
    kernel whose code is gone (or compiled with other aliasing) is lowered to
    TIR here, as lower-te-to-tir would have, and compiled with the others."""
    found: dict[str, tuple[str, Code, Lowering]] = {}
    for fn in [op for op in module.ops if isinstance(op, te.FuncOp) and te.LOWERED in op.attributes]:
        name = fn.sym_name.data
        lowering = Lowering.marked(fn)
        blob = None
        if lowering is not None:
            symbol, key = _address(name, lowering.digest, name not in unsafe, ctx)
            blob = cache_get(key)
        if lowering is None or blob is None:
            del fn.attributes[te.LOWERED]
            Rewriter.replace_op(fn, KernelLowering(fn).run())
        else:
            code = Code.unpack(blob)
            found[name] = (symbol, code, lowering)
            Rewriter.replace_op(fn, _declaration(symbol, lowering, code))
    return found


@dataclass(frozen=True)
class Code:
    """A compiled kernel: its optimized LLVM bitcode (what the exporter makes
    objects of, for any target) and, for the host, the JIT's object code
    (position independent, symbols visible), empty otherwise."""

    bitcode: bytes
    obj: bytes = b""

    def pack(self) -> bytes:
        """One blob (the cache's entry)."""
        return len(self.bitcode).to_bytes(8, "little") + self.bitcode + self.obj

    @staticmethod
    def unpack(blob: bytes) -> Code:
        n = int.from_bytes(blob[:8], "little")
        return Code(blob[8 : 8 + n], blob[8 + n :])


def _code(unit: _Unit, ctx: PassContext) -> Code:
    """One kernel's code: KERNEL_LOWERING on a module of its own, LLVM's
    optimizer, and for the host the JIT's object code (generated here, in
    parallel, rather than by the JIT)."""
    fn = unit.op.clone()
    fn.sym_name = StringAttr(unit.symbol)
    module = ModuleOp([fn])
    if not unit.noalias:
        module.attributes[ALIASED_ATTR] = ArrayAttr([StringAttr(unit.symbol)])
    checks = [i for i in ctx.instruments if isinstance(i, VerifyInstrument)]
    run_pipeline(module, KERNEL_LOWERING, ctx.replace(instruments=checks))
    target = llvm_codegen.module_target(module)
    tm = llvm_codegen.target_machine(target, ctx.opt_level)
    with LLVM_LOCK:
        mod = llvm_codegen.parse_ir(str(llvm_codegen.translate(module, tm)))
        mod.name = unit.symbol
        llvm_codegen.optimize(mod, tm, ctx.opt_level)
        obj = llvm_codegen.emit_object(mod, tm) if target.is_host else b""
        return Code(mod.as_bitcode(), obj)


# ------------------------------------------------------------- worker processes
#: What forked workers compile: set by the parent just before it forks.
_PENDING: tuple[list[_Unit], PassContext] | None = None


def _worker_start() -> None:
    """A worker inherits LLVM_LOCK held by the parent's forking thread: free it.
    It also inherits the parent's signal handlers (the `lamina` command's raise
    `Terminated` on SIGTERM, with which the pool ends its workers: a traceback
    per idle worker): SIGTERM ends a worker, and SIGINT is the parent's."""
    with contextlib.suppress(RuntimeError):  # a worker forked later, without it
        LLVM_LOCK.release()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _worker_compile(index: int) -> tuple[int, Code | None]:
    assert _PENDING is not None
    units, ctx = _PENDING
    try:
        return index, _code(units[index], ctx)
    except BaseException:  # compiled again in the parent, which raises the error
        return index, None


def _jobs(ctx: PassContext) -> int:
    jobs = int(ctx.get_config("compile-kernels.jobs"))
    if jobs > 0:
        return jobs
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


#: Modules whose threads make a fork hang: grpc's fork handlers wait for its
#: threads, in the parent or the child. Ray's driver runs grpc's C++ core
#: (threads kept after `ray.shutdown`) without importing Python's `grpc`.
FORK_UNSAFE = ("grpc", "ray")


def _can_fork() -> bool:
    return (
        "fork" in multiprocessing.get_all_start_methods()
        and not multiprocessing.current_process().daemon
        and not any(name in sys.modules for name in FORK_UNSAFE)
    )


def _compile(units: list[_Unit], ctx: PassContext) -> dict[str, Code]:
    """The code of every unit, in `_jobs` forked processes where it pays."""
    jobs = min(_jobs(ctx), len(units))
    done: dict[str, Code] = {}
    if jobs > 1 and _can_fork():
        global _PENDING
        order = sorted(range(len(units)), key=lambda i: -_cost(units[i].op))
        _PENDING = (units, ctx)
        try:
            with LLVM_LOCK:  # no other thread is inside LLVM while forking
                pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_worker_start)
            try:
                for index, code in pool.imap_unordered(_worker_compile, order, chunksize=1):
                    if code is not None:
                        done[units[index].symbol] = code
            finally:
                pool.terminate()
                pool.join()
        finally:
            _PENDING = None
    for unit in units:  # the rest, and any a worker could not compile
        if unit.symbol not in done:
            done[unit.symbol] = _code(unit, ctx)
    return done


@contextlib.contextmanager
def _frozen_heap() -> Iterator[None]:
    """The objects alive now left out of the garbage collector's passes while
    kernels compile (and in the workers forked meanwhile, which inherit them):
    a kernel's passes make cyclic IR garbage that triggers collections, and each
    full one walked the whole model, 40% of the passes' time."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _cost(op: tir.PrimFuncOp) -> int:
    return sum(1 for _ in op.walk())


# ---------------------------------------------------------------------- the pass
def _calls(op: tir.PrimFuncOp) -> tuple[str, ...]:
    """The runtime's functions a kernel calls (lower-tir-to-llvm records them)."""
    return tuple(sorted({c.callee.string_value() for c in op.walk() if isinstance(c, CallExternOp)}))


def _declaration(symbol: str, lowering: Lowering, code: Code) -> llvm.FuncOp:
    """The kernel's `llvm.func` declaration (buffers as pointers, sizes as
    i64), carrying its bitcode and object code."""
    inputs = [PTR] * lowering.buffers + [i64] * len(lowering.sizes)
    decl = llvm.FuncOp(
        symbol, llvm.LLVMFunctionType(inputs, llvm.LLVMVoidType()),
        linkage=llvm.LinkageAttr("external"),
    )
    decl.attributes[BITCODE_ATTR] = StringAttr(base64.b64encode(code.bitcode).decode())
    if code.obj:
        decl.attributes[OBJECT_ATTR] = StringAttr(base64.b64encode(code.obj).decode())
    if lowering.calls:  # the runtime's functions the model needs
        decl.attributes[CALLS_ATTR] = ArrayAttr([StringAttr(c) for c in lowering.calls])
    return decl


def compile_kernels(module: ModuleOp, ctx: PassContext) -> None:
    """Replace every `tir.prim_func` of `module`, and every `te.func` marked
    `te.LOWERED`, by its compiled declaration."""
    te_digests = module.attributes.pop(_TE_DIGESTS, None)
    unsafe = noalias_unsafe(module)
    recalled = _recalled(module, unsafe, ctx)
    renamed = {name: symbol for name, (symbol, _, _) in recalled.items()}
    kernels = [op for op in module.ops if isinstance(op, tir.PrimFuncOp)]
    units = [_unit(op, op.sym_name.data not in unsafe, ctx) for op in kernels]
    if isinstance(te_digests, DictionaryAttr):  # record how each was lowered
        for unit in units:
            digest = te_digests.data.get(unit.op.sym_name.data)
            if isinstance(digest, StringAttr):
                cache_put(_lowering_key(digest.data, ctx), unit.lowering.pack())
    codes: dict[str, Code] = {}
    missing: dict[str, _Unit] = {}
    for unit in units:
        if unit.symbol in codes or unit.symbol in missing:
            continue
        cached = cache_get(unit.key)
        if cached is not None:
            codes[unit.symbol] = Code.unpack(cached)
        else:
            missing[unit.symbol] = unit
    record_statistic("kernels", len(kernels) + len(recalled))
    record_statistic("cached", len(codes) + len(recalled))
    record_statistic("compiled", len(missing))
    with _frozen_heap():
        compiled = _compile(list(missing.values()), ctx)
    for symbol, code in compiled.items():
        cache_put(missing[symbol].key, code.pack())
        codes[symbol] = code
    renamed |= {u.op.sym_name.data: u.symbol for u in units}
    for op in module.walk():
        if isinstance(op, tir.CallOp) and op.callee.string_value() in renamed:
            op.callee = SymbolRefAttr(renamed[op.callee.string_value()])
    declared = {symbol for symbol, _, _ in recalled.values()}
    for unit in units:
        if unit.symbol in declared:
            Rewriter.erase_op(unit.op)
            continue
        declared.add(unit.symbol)
        Rewriter.replace_op(unit.op, _declaration(unit.symbol, unit.lowering, codes[unit.symbol]))


def kernel_name(symbol: str) -> str:
    """The name a compiled kernel's symbol was made from (its hash taken off)."""
    return _HASHED.sub("", symbol)


def kernel_codes(module: ModuleOp) -> dict[str, Code]:
    """The code of the kernels `compile-kernels` compiled, by symbol, in module
    order (the object code empty where the declaration carries none: compiled
    for another target, or read from text without it)."""

    def data(op: llvm.FuncOp, attr: str) -> bytes:
        value = op.attributes.get(attr)
        return base64.b64decode(value.data) if isinstance(value, StringAttr) else b""

    return {
        op.sym_name.data: Code(data(op, BITCODE_ATTR), data(op, OBJECT_ATTR))
        for op in module.ops
        if isinstance(op, llvm.FuncOp) and BITCODE_ATTR in op.attributes
    }


def kernel_objects(module: ModuleOp, tm: Any) -> list[bytes]:
    """Position-independent object code of those kernels for the target
    machine `tm` (the exporter's), every symbol they define hidden (inside
    the library only)."""
    objects = []
    with LLVM_LOCK:
        for code in kernel_codes(module).values():
            mod = llvm_binding.parse_bitcode(code.bitcode)
            for value in llvm_codegen.definitions(mod):  # inside the library only
                value.visibility = "hidden"
            objects.append(llvm_codegen.emit_object(mod, tm))
    return objects


@register_pass
@dataclass(frozen=True)
class RecallKernelsPass(ModulePass):
    """Mark the TE kernels whose lowering the kernel cache recorded
    (`te.LOWERED`), before lower-te-to-tir: it keeps them, and compile-kernels
    declares them from the cache without building their TIR."""

    name = "recall-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pctx = PassContext.current()
        if cache_dir() is not None and not any(i.needs_whole_module for i in pctx.instruments):
            recall_kernels(op, pctx)


@register_pass
@dataclass(frozen=True)
class CompileKernelsPass(ModulePass):
    """Lower and optimize each `tir.prim_func` on its own (in parallel, cached
    by content) and replace it by an `llvm.func` declaration holding its bitcode."""

    name = "compile-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pctx = PassContext.current()
        if not any(i.needs_whole_module for i in pctx.instruments):
            compile_kernels(op, pctx)


__all__ = [
    "BITCODE_ATTR",
    "FORK_UNSAFE",
    "OBJECT_ATTR",
    "Code",
    "CompileKernelsPass",
    "Lowering",
    "RecallKernelsPass",
    "compile_kernels",
    "kernel_codes",
    "kernel_name",
    "kernel_objects",
    "recall_kernels",
    "source_fingerprint",
]
