"""The JIT: lowered modules compiled for the host and loaded into the process.

`jit_compile` translates a module's `@main` and glue (after `lower-tir-to-llvm`)
to LLVM IR, optimizes it for the host (`lamina.codegen.codegen`), generates its
object code, and links it with the object code `compile-kernels` generated for
each kernel in an ORC JIT (LLVM's LLJIT with JITLink, which places every
object's sections in one block of memory, so small-code-model objects load as a
linker would link them). `@main`'s object is cached on disk by the module's
text and its kernels' digests (see `cache_dir`), so an unchanged model runs no
LLVM at all. The first JIT compile loads the runtime libraries native code calls
(libm, libmvec) into the process and compiles lamina's thread pool
(`lamina.codegen.pool`) once, whose functions every model's code then calls:
one pool, and one set of worker threads, per process however many models it
compiles. `NativeModule.address` also finds the pool's functions, so the
runtime sets the team size of a JIT-compiled model as of a library's. A
NativeModule owns its JIT: when it is collected, the code is freed.
"""

from __future__ import annotations

import ctypes
import hashlib
from dataclasses import dataclass

import llvmlite.binding as llvm
from xdsl.dialects import llvm as llvm_dialect
from xdsl.dialects.builtin import ModuleOp

from lamina.abi import IMAGE_DECODE, SET_NUM_THREADS
from lamina.codegen.cache import cache_get, cache_key, cache_put
from lamina.codegen.codegen import (
    LLVM_LOCK,
    check_opt_level,
    emit_object,
    init_llvm,
    module_target,
    optimize,
    parse_ir,
    target_machine,
    translate,
)
from lamina.codegen.kernels import BITCODE_ATTR, kernel_codes
from lamina.codegen.pool import EXPORTS, pool_ir
from lamina.errors import CompileError, LaminaError
from lamina.lowering.record import read_entry
from lamina.runtime import image
from lamina.runtime.record import EntryABI
from lamina.system import bind_symbol, bound_symbols, runtime_libraries
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
        bind_symbol(IMAGE_DECODE, image.decoder_address())
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
        bind_symbol(name, address)
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
            bind_symbol(name, ctypes.cast(fn, ctypes.c_void_p).value)  # type: ignore[arg-type]


@dataclass(eq=False)
class NativeModule:
    """JIT-compiled code; keeps its JIT (and so the code) alive.

    `entry` is the entry ABI `lower-tir-to-llvm` wrote onto the module (empty
    when there is no `@main`); `optimized_ir` is `@main`'s optimized IR, empty
    when its code came from the disk cache. `engine` is the linked library's
    resource tracker, `jit` the LLJIT that holds it.
    """

    engine: llvm.orcjit.ResourceTracker  # (freed before `jit`: fields are released in order)
    optimized_ir: str
    entry: EntryABI
    jit: llvm.LLJIT
    addresses: dict[str, int]

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
        addr = self.addresses.get(name, 0)
        if not addr and name in EXPORTS:
            addr = pool_address(name)
        if not addr:
            raise CompileError(f"no function @{name} in the compiled module")
        return addr


def _defined(module: ModuleOp) -> list[str]:
    """The functions the lowered module defines (not the kernels' declarations)."""
    return [
        op.sym_name.data
        for op in module.ops
        if isinstance(op, llvm_dialect.FuncOp) and op.body.blocks and BITCODE_ATTR not in op.attributes
    ]


def _link(objects: list[bytes], exports: list[str], tm: llvm.TargetMachine) -> tuple[llvm.LLJIT, llvm.orcjit.ResourceTracker]:
    """An LLJIT (JITLink) with `objects` linked as one library against the
    process's symbols and lamina's (`bound_symbols`), and `exports` looked up."""
    jit = llvm.create_lljit_compiler(tm, use_jit_link=True)
    builder = llvm.JITLibraryBuilder().add_current_process()
    for obj in objects:
        builder.add_object_img(obj)
    for name, address in bound_symbols().items():
        builder.import_symbol(name, address)
    for name in exports:
        builder.export_symbol(name)
    return jit, builder.link(jit, "model")


def jit_compile(module: ModuleOp, opt_level: int = 3) -> NativeModule:
    """Compile a lowered module for the host and load it: `@main`'s object
    code (from the disk cache when the module is unchanged) linked with the
    kernels' objects `compile-kernels` generated."""
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
        tm = target_machine(target, opt_level)  # position independent, the default code model
        text = str(translate(module, tm))
        kernels = kernel_codes(module)
        digests = "".join(f"; kernel {n} {hashlib.sha256(c.bitcode).hexdigest()}\n" for n, c in kernels.items())
        key = cache_key(f"{text}{digests}; @main's object alone\n", tm, opt_level, target)
        main = cache_get(key)
        optimized = ""
        if main is None:
            mod = parse_ir(text)
            optimize(mod, tm, opt_level)
            optimized = str(mod)  # (export reuses it)
            main = emit_object(mod, tm)
            cache_put(key, main)
        code = [main]
        for kernel in kernels.values():  # generated here if compile-kernels did not
            code.append(kernel.obj or emit_object(llvm.parse_bitcode(kernel.bitcode), tm))
        exports = [*_defined(module), *kernels]
        try:
            jit, tracker = _link(code, exports, tm)
        except RuntimeError as e:
            raise CompileError(f"JIT compilation failed: {e}") from e
        addresses = {name: tracker[name] for name in exports}
        missing = [name for name in kernels if not addresses.get(name)]
        if missing:  # a call to it would jump to address 0
            raise CompileError(
                f"the code of kernel(s) {', '.join(missing)} does not define them; "
                "this is a bug in lamina (`LAMINA_CACHE=0` rules out a damaged cache)"
            )
        return NativeModule(tracker, optimized, entry, jit, addresses)


__all__ = ["NativeModule", "jit_compile", "pool_address", "set_num_threads"]
