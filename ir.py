"""Contexts, parsing and printing for every level of lamina's IR."""

from __future__ import annotations

import io
from functools import cache

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, llvm, math, scf, vector
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr
from xdsl.ir import Dialect
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError

from lamina.dialects import resources
from lamina.dialects.dominance import verify_ssa_order
from lamina.dialects.llvm_ext import LLVMExt
from lamina.dialects.parser import make_parser
from lamina.dialects.relay import relay_dialect
from lamina.dialects.te import TE
from lamina.dialects.tir import TIR
from lamina.errors import IRError
from lamina.plugins import plugin_dialects


@cache
def lamina_dialects() -> tuple[Dialect, ...]:
    """Every dialect lamina reads and writes: its own three levels and the xDSL
    dialects they are built from."""
    return (
        builtin.Builtin,
        func.Func,
        arith.Arith,
        math.Math,
        scf.Scf,
        vector.Vector,
        llvm.LLVM,
        LLVMExt,
        relay_dialect(),
        TE,
        TIR,
        *plugin_dialects(),
    )


def context() -> Context:
    """A fresh context with every lamina dialect loaded."""
    assert resources.blobs is not None
    ctx = Context()
    for dialect in lamina_dialects():
        ctx.load_dialect(dialect)
    return ctx


def parse(text: str, *, verify: bool = True, name: str = "<string>") -> ModuleOp:
    """Parse IR text at any level into a module, raising `IRError` on bad input."""
    resources.blobs.begin_parse()
    try:
        module = make_parser(context(), text, name).parse_module()
        if verify:
            module.verify()
            verify_ssa_order(module)
    except (ParseError, DiagnosticException) as e:
        raise IRError(str(e)) from None
    except RecursionError:
        raise IRError(f"{name}: the input is nested too deeply to parse") from None
    return module


def print_ir(
    module: ModuleOp, *, generic: bool = False, resources_limit: int | None = -1
) -> str:
    """Print a module. Weights above `resources.DEFAULT_ELIDE_LIMIT` bytes are
    elided unless `resources_limit` is None (print all) or a larger byte count."""
    limit = resources.DEFAULT_ELIDE_LIMIT if resources_limit == -1 else resources_limit
    out = io.StringIO()
    printer = Printer(stream=out, print_generic_format=generic)
    with resources.printing_resources(limit):
        printer.print_op(module)
        printer.print_metadata(lamina_dialects())
    out.write("\n")
    return out.getvalue()


def io_names(attrs: ArrayAttr[DictionaryAttr] | None, prefix: str, n: int) -> list[str]:
    """The `lamina.name` of each of `n` function arguments or results, given their
    attribute dictionaries; unnamed ones are `<prefix><index>`."""
    names = []
    for i in range(n):
        name = attrs.data[i].data.get("lamina.name") if attrs and i < len(attrs.data) else None
        names.append(name.data if isinstance(name, StringAttr) else f"{prefix}{i}")
    return names
