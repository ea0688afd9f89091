"""Native code for lowered modules: LLVM IR text, object code and an MCJIT engine.

Input is a module of `llvm.func`s (after `lower-tir-to-llvm`); it is translated to
llvmlite IR by `lamina.dialects.llvm_ext.convert_module`, verified, optimized with
LLVM's new pass manager for the host CPU and compiled. LLVM is initialized once per
process, lazily; compilation holds a lock (LLVM's global context is shared).
"""

from __future__ import annotations

import ctypes.util
import hashlib
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import llvmlite.binding as llvm
import llvmlite.ir as ir
from xdsl.backend.llvm.convert import LLVMTarget
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, StringAttr

from lamina.dialects.llvm_ext import convert_module
from lamina.errors import CompileError

_lock = threading.RLock()
_initialized = False


# Shared libraries native code may call into: libm (tanhf, erff, ...; LLVM also emits
# expf and friends) and libgomp (`GOMP_parallel` runs parallel loops on its persistent
# thread pool). The JIT loads them into the process; exported libraries link them.
RUNTIME_LIBRARIES = ("m", "gomp")


def runtime_libraries() -> list[str]:
    """Paths (or sonames) of the runtime libraries, for loading or linking
    (libmvec too, when the system has it: vector math calls it)."""
    out = [_MVEC] if _MVEC is not None else []
    for name in RUNTIME_LIBRARIES:
        found = ctypes.util.find_library(name)
        if found is None:
            raise CompileError(
                f"the runtime library lib{name} was not found; install it (on Debian: "
                f"`apt install {'libgomp1' if name == 'gomp' else 'libc6'}`)"
            )
        out.append(found)
    return out


_MVEC = ctypes.util.find_library("mvec")


def has_libmvec() -> bool:
    """Whether glibc's vector math library (libmvec) is there to call."""
    return _MVEC is not None


def _initialize() -> None:
    """Initialize LLVM's native target and load the runtime libraries."""
    global _initialized
    with _lock:
        if _initialized:
            return
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        # libgomp reads its wait policy when it loads. Unless the user set one:
        # pool threads wait actively (no futex wake-up between kernels: ResNet-18
        # runs 1.9x faster on 2 threads than on 1, against 1.5x with libgomp's
        # default) but only for libgomp's default spin count, then sleep, so an
        # idle model does not keep a core busy.
        if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
            os.environ["OMP_WAIT_POLICY"] = "active"
            os.environ["GOMP_SPINCOUNT"] = "300000"
        for lib in runtime_libraries():
            llvm.load_library_permanently(lib)
        _bind_half_conversions()
        _initialized = True


def _bind_half_conversions() -> None:
    """Point LLVM's f16 conversion libcalls (`fptrunc double to half` has no
    instruction) at libgcc's: left to the JIT's own lookup, a kernel converting
    f64 to f16 jumped to a bad address (a segmentation fault)."""
    import ctypes

    try:
        libgcc = ctypes.CDLL("libgcc_s.so.1")
    except OSError:  # pragma: no cover - not a glibc system
        return
    for name in ("__truncdfhf2", "__truncsfhf2", "__extendhfsf2"):
        fn = getattr(libgcc, name, None)
        if fn is not None:
            llvm.add_symbol(name, ctypes.cast(fn, ctypes.c_void_p).value)


def host_target_machine(opt_level: int = 3, *, jit: bool = False) -> llvm.TargetMachine:
    """A target machine for the host CPU (its name and features).

    Code is position independent, so objects can go into a shared library; `jit`
    selects the JIT code model (large on 64-bit hosts) instead of the small one.
    """
    _initialize()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=opt_level,
        reloc="pic",
        codemodel="jitdefault" if jit else "default",
        jit=jit,
    )


def _translate(module: ModuleOp, tm: llvm.TargetMachine) -> ir.Module:
    return convert_module(
        module, target_triple=tm.triple, data_layout=str(tm.target_data)
    )


def llvm_ir(module: ModuleOp) -> str:
    """The (unoptimized) LLVM IR of a lowered module, for the host."""
    with _lock:
        return str(_translate(module, host_target_machine()))


def _parse(text: str) -> llvm.ModuleRef:
    try:
        mod = llvm.parse_assembly(text)
        mod.verify()
    except RuntimeError as e:
        raise CompileError(
            f"LLVM rejected the generated IR: {e}. This is a bug in lamina's "
            "lowering; `lamina-opt FILE -p lower-tir-to-llvm -t llvm` shows the IR."
        ) from e
    return mod


def _check_opt_level(opt_level: int) -> None:
    if not 0 <= opt_level <= 3:
        raise CompileError(f"opt_level must be 0, 1, 2 or 3, got {opt_level}")


def _optimize(mod: llvm.ModuleRef, tm: llvm.TargetMachine, opt_level: int) -> None:
    if opt_level == 0:
        return
    pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    pto.loop_vectorization = opt_level >= 2
    pto.slp_vectorization = opt_level >= 2
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)


def _compile(
    module: ModuleOp, opt_level: int, jit: bool
) -> tuple[llvm.ModuleRef, llvm.TargetMachine]:
    _check_opt_level(opt_level)
    tm = host_target_machine(opt_level, jit=jit)
    mod = _parse(str(_translate(module, tm)))
    _optimize(mod, tm, opt_level)
    return mod, tm


def _int_attr(module: ModuleOp, name: str) -> int:
    attr = module.attributes.get(name)
    return attr.value.data if isinstance(attr, IntegerAttr) else 0


def _params(module: ModuleOp) -> tuple[str, ...]:
    attr = module.attributes.get("lamina.params")
    if not isinstance(attr, ArrayAttr):
        return ()
    return tuple(k.data for k in attr.data if isinstance(k, StringAttr))


@dataclass(eq=False)
class NativeModule:
    """JIT-compiled code; keeps its execution engine (and so the code) alive.

    `params`, `workspace_size` and `intermediate_bytes` are the entry ABI's module
    attributes set by `lower-tir-to-llvm` (empty/0 when there is no `@main`);
    `optimized_ir` is empty when the code came from the disk cache.
    """

    engine: llvm.ExecutionEngine
    optimized_ir: str
    params: tuple[str, ...]
    workspace_size: int
    intermediate_bytes: int

    def address(self, name: str) -> int:
        """The address of the compiled function `name`."""
        with _lock:
            addr = self.engine.get_function_address(name)
        if not addr:
            raise CompileError(f"no function @{name} in the compiled module")
        return addr


def cache_dir() -> Path | None:
    """Where compiled objects are cached (`LAMINA_CACHE_DIR`, else
    `~/.cache/lamina`); None when `LAMINA_CACHE=0` turns the cache off."""
    if os.environ.get("LAMINA_CACHE", "1") == "0":
        return None
    root = os.environ.get("LAMINA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "lamina"
    )
    return Path(root)


def _cache_key(text: str, tm: llvm.TargetMachine, opt_level: int) -> str:
    """The structural hash of a module: its LLVM IR, the target and the versions."""
    import llvmlite

    h = hashlib.sha256()
    for part in (text, tm.triple, llvm.get_host_cpu_name(), tm.target_data and str(tm.target_data),
                 llvm.get_host_cpu_features().flatten(), str(opt_level), llvmlite.__version__, "2"):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _cache_get(key: str) -> bytes | None:
    folder = cache_dir()
    if folder is None:
        return None
    try:
        raw = (folder / f"{key}.o").read_bytes()
    except OSError:
        return None
    digest, data = raw[:32], raw[32:]
    # A damaged entry is a miss (MCJIT would crash on bad object code).
    return data if hashlib.sha256(data).digest() == digest else None


CACHE_MAX_ENTRIES = 2000


def _trim_cache(folder: Path) -> None:
    """Keep the cache bounded: past `CACHE_MAX_ENTRIES` objects, drop the least
    recently written half."""
    entries = list(folder.glob("*.o"))
    if len(entries) <= CACHE_MAX_ENTRIES:
        return
    entries.sort(key=lambda p: p.stat().st_mtime)
    for old in entries[: len(entries) // 2]:
        old.unlink(missing_ok=True)


def _cache_put(key: str, data: bytes) -> None:
    """Store object code atomically; a cache that cannot be written is skipped."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _trim_cache(folder)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{key}.")
        with os.fdopen(fd, "wb") as f:
            f.write(hashlib.sha256(data).digest() + data)
        os.replace(tmp, folder / f"{key}.o")
    except OSError:
        pass


def jit_compile(module: ModuleOp, opt_level: int = 3) -> NativeModule:
    """Compile a lowered module for the host and load it with MCJIT. Object code
    is cached on disk by the module's structural hash (see `cache_dir`), so an
    unchanged model skips LLVM's optimizer and code generator."""
    with _lock:
        _check_opt_level(opt_level)
        tm = host_target_machine(opt_level, jit=True)
        text = str(_translate(module, tm))
        key = _cache_key(text, tm, opt_level)
        cached = _cache_get(key)
        mod = _parse(text)
        if cached is None:
            _optimize(mod, tm, opt_level)
        try:
            engine = llvm.create_mcjit_compiler(mod, tm)
            engine.set_object_cache(
                lambda _m, data: _cache_put(key, data) if cached is None else None,
                lambda _m: cached,
            )
            engine.finalize_object()
        except RuntimeError as e:
            raise CompileError(f"JIT compilation failed: {e}") from e
        return NativeModule(
            engine,
            str(mod) if cached is None else "",  # a cache hit skipped the optimizer
            _params(module),
            _int_attr(module, "lamina.workspace_size"),
            _int_attr(module, "lamina.intermediate_bytes"),
        )


def compile_object(module: ModuleOp, opt_level: int = 3) -> bytes:
    """Object code of a lowered module for the host (position independent)."""
    with _lock:
        mod, tm = _compile(module, opt_level, jit=False)
        try:
            return tm.emit_object(mod)
        except RuntimeError as e:
            raise CompileError(f"code generation failed: {e}") from e


@dataclass(frozen=True)
class LlvmTarget(LLVMTarget):
    """`-t llvm`: print the LLVM IR of a lowered module (with lamina's extensions)."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        print(llvm_ir(module), file=output)


__all__ = [
    "LlvmTarget",
    "NativeModule",
    "cache_dir",
    "compile_object",
    "host_target_machine",
    "jit_compile",
    "llvm_ir",
    "runtime_libraries",
]
