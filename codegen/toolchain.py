"""The C toolchain that assembles and links a model for its target.

For the host's architecture it is the system C compiler (`$CC`, else `cc`). For
any other target it is Zig's clang (`python -m ziglang cc -target ...`), a cross
compiler and linker for every Linux triple and for WebAssembly (WASI) from one
pip package, the `cross` extra: `pip install 'lamina[cross]'`. Zig links Linux
libraries against its own glibc stubs of `GLIBC_FLOOR` (so they load on that
glibc and newer) and WebAssembly against wasi-libc.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import sys

from lamina.errors import CompileError
from lamina.target import Target

#: The oldest glibc the Linux libraries of other targets need.
GLIBC_FLOOR = "2.28"
#: The pip extra with the cross toolchain.
CROSS_EXTRA = "lamina[cross]"


def is_cross(target: Target) -> bool:
    """Whether `target` is another architecture than this machine's."""
    return target.arch != Target.host().arch


def zig_triple(target: Target) -> str:
    """Zig's spelling of `target`'s triple (`aarch64-linux-gnu.2.28`, `wasm32-wasi`)."""
    if target.arch == "wasm32":
        return "wasm32-wasi"
    parts = target.triple.split("-")
    if "linux" not in parts:
        raise CompileError(
            f"cannot link for '{target.triple}': lamina links Linux and WebAssembly "
            "targets (e.g. aarch64-linux-gnu, riscv64-linux-gnu, wasm32)"
        )
    abi = next((p for p in parts if p.startswith("musl")), None)
    return f"{target.arch}-linux-{abi}" if abi else f"{target.arch}-linux-gnu.{GLIBC_FLOOR}"


def zig_cc(target: Target) -> list[str]:
    """Zig's C compiler driver for `target` (an error naming the extra if missing)."""
    if importlib.util.find_spec("ziglang") is None:
        raise CompileError(
            f"linking for {target.triple} needs a cross toolchain: install lamina's "
            f"cross extra, `pip install '{CROSS_EXTRA}'` (Zig's clang, from PyPI)"
        )
    return [sys.executable, "-m", "ziglang", "cc", "-target", zig_triple(target)]


def c_compiler(target: Target | None = None) -> list[str]:
    """The C compiler driver that assembles and links for `target` (default:
    the host): `$CC` or `cc` for the host's architecture, Zig's clang for
    another (`zig_cc`)."""
    if target is not None and is_cross(target):
        return zig_cc(target)
    cmd = shlex.split(os.environ.get("CC", "cc")) or ["cc"]
    if shutil.which(cmd[0]) is None:
        raise CompileError(
            f"cannot export a shared library: the C compiler '{cmd[0]}' was not "
            "found; install one (on Debian: `apt install gcc`) or set $CC"
        )
    return cmd


__all__ = ["CROSS_EXTRA", "GLIBC_FLOOR", "c_compiler", "is_cross", "zig_cc", "zig_triple"]
