"""Compile C source into a shared library with the system C compiler, cached.

`compile_shared(source, link=[...])` returns the path of a `.so` built from
`source` with `cc -O3 -march=native -fPIC -shared` (`$CC` overrides the
compiler, `$LAMINA_CACHE_DIR` the cache directory: by default
`$XDG_CACHE_HOME/lamina/byoc` or `~/.cache/lamina/byoc`). Libraries are named
after a hash of the source, flags and compiler, so a model compiled twice
reuses them and concurrent builds never see a half-written file.

Each library is built from an object file kept next to it in the cache
(`<name>_<hash>.o`, with the source `.c`): `CompiledModel.export` links that
object into the exported library (`static_object`), so an exported model does
not depend on the cache; what the library itself links against (OpenBLAS, say)
stays a dynamic dependency.

Also: helpers to write C for static shapes (`CWriter`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import Float32Type, Float64Type, TensorType
from xdsl.ir import Attribute, SSAValue

from lamina.errors import CompileError
from lamina.process import run_tool

CFLAGS = ("-O3", "-march=native", "-fPIC", "-shared", "-std=gnu11", "-fno-math-errno")


def compiler() -> str:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        raise CompileError(
            "no C compiler found (cc, gcc or clang; or set $CC): the BYOC targets "
            "'c' and 'blas' compile their glue code with it"
        )
    return cc


def cache_dir() -> Path:
    env = os.environ.get("LAMINA_CACHE_DIR")
    if env:
        base = Path(env)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = (Path(xdg) if xdg else Path.home() / ".cache") / "lamina"
    path = base / "byoc"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        path = Path(tempfile.gettempdir()) / f"lamina-byoc-{os.getuid()}"
        path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass(frozen=True)
class BuiltLibrary:
    """How `compile_shared` built a library: what `static_object` needs to link
    it into another one instead of depending on the cached file."""

    path: str
    source: str
    compiler: str
    #: compile flags (CFLAGS without -shared, and the caller's compile flags)
    cflags: tuple[str, ...]
    #: library paths it links against
    link: tuple[str, ...]
    #: the caller's link flags (-l, -L, -Wl,...)
    ldflags: tuple[str, ...]


_built_lock = threading.Lock()
_BUILT: dict[str, BuiltLibrary] = {}


def _is_link_flag(flag: str) -> bool:
    return flag.startswith(("-l", "-L", "-Wl,")) or flag.endswith((".so", ".a")) or ".so." in flag


#: Compile flags that also tell the driver what to link (needed when linking too).
_BOTH = ("-fopenmp", "-pthread", "-fsanitize")


def _run_cc(cmd: list[str]) -> None:
    try:
        proc = run_tool(cmd, timeout=300)
    except subprocess.TimeoutExpired:
        raise CompileError(
            f"the C compiler did not finish in 300 s on generated code ({' '.join(cmd)})"
        ) from None
    if proc.returncode != 0:
        raise CompileError(
            f"the C compiler failed on generated code ({' '.join(cmd)}):\n"
            + proc.stderr[-4000:]
        )


def compile_shared(
    source: str, *, link: Sequence[str] = (), flags: Sequence[str] = (), name: str = "lib"
) -> str:
    """The path of a shared library built from `source` (cached by content).
    `link`: library paths to link against (their directory goes to the rpath)."""
    cc = compiler()
    args = [*CFLAGS, *flags]
    for lib in link:
        d = os.path.dirname(lib) or "."
        args += [lib, f"-Wl,-rpath,{d}"]
    key = hashlib.sha256("\0".join([cc, *args, source]).encode()).hexdigest()[:20]
    out = cache_dir() / f"{name}_{key}.so"
    cflags = tuple(f for f in (*CFLAGS, *flags) if f != "-shared" and not _is_link_flag(f))
    ldflags = tuple(f for f in flags if _is_link_flag(f) or f.startswith(_BOTH))
    record = BuiltLibrary(str(out), source, cc, cflags, tuple(link), ldflags)
    with _built_lock:
        _BUILT[str(out)] = record
    if out.exists():
        return str(out)
    fd, tmp_src = tempfile.mkstemp(suffix=".c", dir=out.parent)
    with os.fdopen(fd, "w") as f:
        f.write(source)
    tmp_obj, tmp_out = f"{tmp_src[:-2]}.o", f"{tmp_src[:-2]}.so"
    try:
        # the object first (kept: export links it in), then the library from it
        _run_cc([cc, "-c", tmp_src, "-o", tmp_obj, *cflags])
        _run_cc([cc, tmp_obj, "-o", tmp_out, *args, "-lm"])
        os.replace(tmp_obj, out.with_suffix(".o"))
        os.replace(tmp_out, out)
        # keep the source next to the library, for debugging
        os.replace(tmp_src, out.with_suffix(".c"))
    finally:
        for p in (tmp_src, tmp_obj, tmp_out):
            if os.path.exists(p):
                os.unlink(p)
    return str(out)


def built_library(path: str) -> BuiltLibrary | None:
    """How this process's `compile_shared` built the library at `path` (None if
    it did not build it)."""
    with _built_lock:
        return _BUILT.get(str(path))


def static_object(built: BuiltLibrary, workdir: str | os.PathLike[str]) -> str:
    """An object file of `built`'s code to link into another library: the one
    kept in the cache, else (the cache was cleared, or the library predates
    kept objects) compiled again from the source into `workdir`."""
    cached = Path(built.path).with_suffix(".o")
    if cached.is_file():
        return str(cached)
    work = Path(workdir)
    src = work / f"{Path(built.path).stem}.c"
    obj = src.with_suffix(".o")
    if not obj.exists():
        src.write_text(built.source)
        _run_cc([built.compiler, "-c", str(src), "-o", str(obj), *built.cflags])
    return str(obj)


def c_type(t: Attribute) -> str:
    """The C element type of a tensor (or element) type."""
    elem = t.get_element_type() if isinstance(t, TensorType) else t
    if isinstance(elem, Float32Type):
        return "float"
    if isinstance(elem, Float64Type):
        return "double"
    raise CompileError(f"no C type for {elem}")


def shape(t: Attribute) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def numel(t: Attribute) -> int:
    return int(np.prod(shape(t), dtype=np.int64))


def c_float(value: float, ctype: str) -> str:
    if np.isnan(value):
        return "(0.0/0.0)"
    if np.isinf(value):
        return "(1.0/0.0)" if value > 0 else "(-1.0/0.0)"
    text = repr(float(value))
    return f"{text}f" if ctype == "float" else text


class CWriter:
    """Builds one C function `void sym(void *a0, ...)` over static shapes:
    `scratch(n, ctype)` gives a per-thread buffer allocated once (shapes are
    static), `line()` appends code."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.globals: list[str] = []
        self.n_scratch = 0
        self.indent = 1

    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def scratch(self, count: int, ctype: str) -> str:
        """A name for a per-thread buffer of `count` elements (64-byte aligned)."""
        name = f"scratch{self.n_scratch}"
        self.n_scratch += 1
        nbytes = max(count, 1) * (4 if ctype == "float" else 8)
        nbytes = (nbytes + 63) // 64 * 64
        self.globals.append(f"static __thread {ctype} *{name};")
        self.line(f"if (!{name}) {name} = ({ctype} *)aligned_alloc(64, {nbytes});")
        return name

    def function(self, symbol: str, n_args: int, prelude: str = "") -> str:
        params = ", ".join(f"void *restrict a{i}" for i in range(n_args)) or "void"
        return "\n".join(
            [
                "#include <math.h>",
                "#include <stdlib.h>",
                "#include <string.h>",
                prelude,
                *self.globals,
                f"void {symbol}({params}) {{",
                *self.lines,
                "}",
                "",
            ]
        )




def bcast_index(out: Sequence[int], src: Sequence[int], ivs: Sequence[str]) -> str:
    """C expression: the flat index into `src`, numpy-broadcast to `out`, at the
    loop variables `ivs`."""
    src = (1,) * (len(out) - len(src)) + tuple(src)
    terms, stride = [], 1
    for d in reversed(range(len(out))):
        if src[d] != 1:
            terms.append(f"{ivs[d]}*{stride}" if stride != 1 else ivs[d])
        stride *= src[d]
    return " + ".join(reversed(terms)) or "0"


class FunctionGen:
    """C for one outlined `func.func`: `names` are the argument buffers (`a0`,
    `a1`, ... cast to their element types), `outputs` the output buffers of each
    returned value (a value returned twice has two)."""

    def __init__(self, fn: func.FuncOp) -> None:
        self.fn = fn
        self.w = CWriter()
        self.names: dict[SSAValue, str] = {}
        block = fn.body.block
        n_in = len(block.args)
        ret = block.last_op
        assert isinstance(ret, func.ReturnOp)
        for i, a in enumerate(block.args):
            self.names[a] = f"(({c_type(a.type)} *)a{i})"
        self.outputs: dict[SSAValue, list[str]] = {}
        for j, v in enumerate(ret.arguments):
            self.outputs.setdefault(v, []).append(f"(({c_type(v.type)} *)a{n_in + j})")
        self.n_args = n_in + len(ret.arguments)


__all__ = [
    "BuiltLibrary",
    "CWriter",
    "FunctionGen",
    "bcast_index",
    "built_library",
    "c_float",
    "c_type",
    "compile_shared",
    "compiler",
    "numel",
    "shape",
    "static_object",
]
