"""The JIT: lowered modules compiled for the host and loaded into the process.

`jit_compile` translates a module of `llvm.func`s (after `lower-tir-to-llvm`),
optimizes it for the host (`lamina.codegen.codegen`) and loads it with MCJIT,
reusing object code from the disk cache (`lamina.codegen.cache`) when the module
is unchanged. The first JIT compile loads the runtime libraries native code calls
(libm, libmvec) into the process and compiles lamina's thread pool
(`lamina.codegen.pool`) into an engine of its own, whose functions every model's
code then calls: one pool, and one set of worker threads, per process however
many models it compiles. `NativeModule.address` also finds the pool's functions,
so the runtime sets the team size of a JIT-compiled model as of a library's.

LLVM calls the object cache back from C, through ctypes, where an exception
(a KeyboardInterrupt above all) would be printed and swallowed: the callbacks
record it and `jit_compile` raises it once `finalize_object` has returned, and
SIGINT is held back meanwhile (`_sigint_deferred`). A NativeModule owns its
MCJIT engine: when it is collected, the engine and its code are freed.
"""

from __future__ import annotations

import ctypes
import hashlib
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import llvmlite.binding as llvm
from xdsl.dialects.builtin import ModuleOp

from lamina.abi import IMAGE_DECODE, SET_NUM_THREADS
from lamina.codegen.cache import cache_get, cache_key, cache_put
from lamina.codegen.codegen import (
    LLVM_LOCK,
    check_opt_level,
    init_llvm,
    module_target,
    optimize,
    parse_ir,
    target_machine,
    translate,
)
from lamina.codegen.kernels import kernel_bitcode
from lamina.codegen.pool import EXPORTS, pool_ir
from lamina.errors import CompileError, LaminaError
from lamina.lowering.record import read_entry
from lamina.runtime import image
from lamina.runtime.record import EntryABI
from lamina.system import runtime_libraries
from lamina.target import Target

_initialized = False
#: The thread pool's engine (kept alive for the process) and its functions.
_pool: tuple[llvm.ExecutionEngine, dict[str, int]] | None = None


def _initialize() -> None:
    """Initialize LLVM's native target, load the runtime libraries and the pool."""
    global _initialized
    with LLVM_LOCK:
        if _initialized:
            return
        init_llvm()
        for lib in runtime_libraries():
            llvm.load_library_permanently(lib)
        _bind_half_conversions()
        # the runtime's image decoder (Pillow, imported at its first call)
        llvm.add_symbol(IMAGE_DECODE, image.decoder_address())
        _load_pool()
        _initialized = True


def _load_pool() -> None:
    """Compile the thread pool for the host, once, and bind its functions by name
    for the code of every model compiled after."""
    global _pool
    target = Target.host()
    tm = target_machine(target, 3, jit=True)
    mod = parse_ir(pool_ir(target, str(tm.target_data)))
    optimize(mod, tm, 3)
    engine = llvm.create_mcjit_compiler(mod, tm)
    engine.finalize_object()
    addresses = {name: engine.get_function_address(name) for name in EXPORTS}
    for name, address in addresses.items():
        llvm.add_symbol(name, address)
    _pool = (engine, addresses)


def pool_address(name: str) -> int:
    """The address of the process's thread pool function `name`."""
    with LLVM_LOCK:
        _initialize()
        assert _pool is not None
        return _pool[1][name]


_SETTER = ctypes.CFUNCTYPE(None, ctypes.c_int32)


def set_num_threads(n: int) -> None:
    """The team size of parallel loops JIT-compiled code runs (process-wide)."""
    _SETTER(pool_address(SET_NUM_THREADS))(max(1, int(n)))


def _bind_half_conversions() -> None:
    """Point LLVM's f16 conversion libcalls (`fptrunc double to half` has no
    instruction) at libgcc's: left to the JIT's own lookup, a kernel converting
    f64 to f16 jumped to a bad address (a segmentation fault)."""
    try:
        libgcc = ctypes.CDLL("libgcc_s.so.1")
    except OSError:  # pragma: no cover - not a glibc system
        return
    for name in ("__truncdfhf2", "__truncsfhf2", "__extendhfsf2"):
        fn = getattr(libgcc, name, None)
        if fn is not None:
            llvm.add_symbol(name, ctypes.cast(fn, ctypes.c_void_p).value)


@dataclass(eq=False)
class NativeModule:
    """JIT-compiled code; keeps its execution engine (and so the code) alive.

    `entry` is the entry ABI `lower-tir-to-llvm` wrote onto the module (empty
    when there is no `@main`); `optimized_ir` is empty when the code came from
    the disk cache.
    """

    engine: llvm.ExecutionEngine
    optimized_ir: str
    entry: EntryABI

    @property
    def params(self) -> tuple[str, ...]:
        return self.entry.params

    @property
    def workspace_size(self) -> int:
        return self.entry.workspace_size

    @property
    def intermediate_bytes(self) -> int:
        return self.entry.intermediate_bytes

    def address(self, name: str) -> int:
        """The address of the compiled function `name` (or of the thread pool's)."""
        with LLVM_LOCK:
            addr = self.engine.get_function_address(name)
        if not addr and name in EXPORTS:
            addr = pool_address(name)
        if not addr:
            raise CompileError(f"no function @{name} in the compiled module")
        return addr


class _ObjectCache:
    """The engine's object-cache callbacks, for one module: `getbuffer` serves
    the disk cache's object code, `notify` stores freshly compiled code. They
    run inside LLVM (a ctypes callback), where an exception would be swallowed:
    the first is kept in `error` for `reraise`."""

    def __init__(self, key: str, cached: bytes | None):
        self.key = key
        self.cached = cached
        self.error: BaseException | None = None

    def notify(self, _module: llvm.ModuleRef, data: bytes) -> None:
        try:
            if self.cached is None:
                cache_put(self.key, data)
        except BaseException as e:  # re-raised by reraise()
            self.error = self.error or e

    def getbuffer(self, _module: llvm.ModuleRef) -> bytes | None:
        return self.cached

    def reraise(self) -> None:
        """Raise what a callback raised, now that control is back in Python."""
        self.cached = None  # the engine keeps the callbacks: drop the code
        err, self.error = self.error, None
        if err is not None:
            raise err


@contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold SIGINT back inside the block, then deliver it to the handler that was
    there. LLVM calls the object cache back into Python, where a KeyboardInterrupt
    would be raised inside a ctypes callback and swallowed (the command went on,
    exited 0 and stored nothing). Only the main thread runs Python's signal
    handlers; a handler not set from Python (None), SIG_IGN and SIG_DFL (which
    never enter Python) are left alone."""
    previous = (
        signal.getsignal(signal.SIGINT)
        if threading.current_thread() is threading.main_thread()
        else None
    )
    deferred = previous is not None and previous not in (signal.SIG_IGN, signal.SIG_DFL)
    pending: list[int] = []
    if deferred:
        try:
            signal.signal(signal.SIGINT, lambda signum, _frame: pending.append(signum))
        except ValueError:  # not the main interpreter
            deferred = False
    try:
        yield
    finally:
        if deferred:
            signal.signal(signal.SIGINT, previous)
            if pending:
                signal.raise_signal(signal.SIGINT)  # runs `previous` right away


def jit_compile(module: ModuleOp, opt_level: int = 3) -> NativeModule:
    """Compile a lowered module for the host and load it with MCJIT, the
    kernels `compile-kernels` compiled (their optimized bitcode) linked in. Object code is cached
    on disk by the module's structural hash (see `cache_dir`), so an unchanged
    model skips LLVM's optimizer and code generator."""
    check_opt_level(opt_level)
    with LLVM_LOCK:
        _initialize()
        target = module_target(module)
        if not target.is_host:
            raise CompileError(
                f"this model was compiled for {target.describe()}, which is not this "
                f"machine ({Target.host().describe()}): it cannot run here; export it "
                "instead of running it"
            )
        entry = read_entry(module)
        if IMAGE_DECODE in entry.host_functions:
            try:
                image.require_pillow()
            except LaminaError as e:
                raise CompileError(str(e)) from None
        tm = target_machine(target, opt_level, jit=True)
        text = str(translate(module, tm))
        kernels = kernel_bitcode(module)  # compile-kernels' code, optimized already
        digests = "".join(f"; kernel {n} {hashlib.sha256(c).hexdigest()}\n" for n, c in kernels.items())
        key = cache_key(text + digests, tm, opt_level, target)
        cached = cache_get(key)
        mod = parse_ir(text)
        if cached is None:
            optimize(mod, tm, opt_level)
        optimized = "" if cached is not None else str(mod)  # @main's (export reuses it)
        for code in kernels.values() if cached is None else ():  # a hit holds their code
            mod.link_in(llvm.parse_bitcode(code))  # one module: MCJIT's code for several did not run
        callbacks = _ObjectCache(key, cached)
        try:
            engine = llvm.create_mcjit_compiler(mod, tm)
            engine.set_object_cache(callbacks.notify, callbacks.getbuffer)
            with _sigint_deferred():
                engine.finalize_object()
        except RuntimeError as e:
            raise CompileError(f"JIT compilation failed: {e}") from e
        callbacks.reraise()
        missing = [name for name in kernels if not engine.get_function_address(name)]
        if missing:  # a call to it would jump to address 0
            raise CompileError(
                f"the code of kernel(s) {', '.join(missing)} does not define them; "
                "this is a bug in lamina (`LAMINA_CACHE=0` rules out a damaged cache)"
            )
        return NativeModule(
            engine,
            optimized,  # empty: a cache hit skipped the optimizer
            entry,
        )


__all__ = ["NativeModule", "jit_compile", "pool_address", "set_num_threads"]
