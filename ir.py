"""Contexts, parsing, verification and printing for every level of lamina's IR.

Errors in IR text are `IRError`s of one line, `file:line:col: message`: a parse
error where the parser stopped, a verifier error at the failing op (the parser
records each op's position as its location), as MLIR reports them.
"""

from __future__ import annotations

import io
from functools import cache

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, math, scf, vector
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FileLineColLoc,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Dialect, Operation
from xdsl.printer import Printer
from xdsl.utils.exceptions import (
    DiagnosticException,
    MultipleSpansParseError,
    ParseError,
)
from xdsl.utils.lexer import Span

from lamina.abi import ENTRY
from lamina.dialects import resources
from lamina.dialects.dominance import UseBeforeDefinition, verify_ssa_order
from lamina.dialects.llvm_ext import LLVMWithExt
from lamina.dialects.parser import make_parser
from lamina.dialects.qnn import QNN
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
        LLVMWithExt,
        relay_dialect(),
        QNN,
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
    """Parse IR text at any level into a module, raising `IRError` on bad input:
    one line, `name:line:col: message`, with the source line as its `context`."""
    resources.blobs.begin_parse()
    try:
        module = make_parser(context(), text, name).parse_module()
    except ParseError as e:
        raise parse_error(e) from None
    except DiagnosticException as e:
        raise IRError(one_line(str(e))) from None
    except RecursionError:
        raise IRError(f"{name}: the input is nested too deeply to parse") from None
    if verify:
        verify_ir(module, source=text)
    return module


# ------------------------------------------------------------------ diagnostics
def one_line(text: str) -> str:
    """A message as one line: its lines joined by '; ', caret lines dropped."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return "; ".join(ln for ln in lines if not set(ln) <= set("^ ~-|"))


def op_location(op: Operation) -> tuple[str, int, int] | None:
    """(file, line, column) of `op`, if its location is a file position (as the
    parser records it)."""
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return (loc.filename.data, loc.line.data, loc.column.data)
    return None


def source_context(
    source: str, line: int, col: int, width: int = 1, line_offset: int = 0
) -> str | None:
    """Line `line` (of a file whose first `line_offset` lines precede `source`) and
    a caret line marking `width` characters from column `col`."""
    lines = source.splitlines()
    index = line - line_offset - 1
    if not 0 <= index < len(lines):
        return None
    text = lines[index].rstrip()
    width = max(1, min(width, len(text) - col + 1))
    return f"{text}\n{' ' * (col - 1)}{'^' * width}"


def parse_error(e: ParseError) -> IRError:
    """A parse error as a one-line `IRError` at its span, with the source line."""
    span = e.span
    loc = span.get_location()
    context = _span_context(span)
    if isinstance(e, MultipleSpansParseError):
        refs = [
            f"{r.get_location()}: {m}\n{_span_context(r)}" for r, m in e.refs if m
        ]
        context = "\n".join([context or "", *refs]).strip() or None
    return IRError(one_line(e.msg), location=(loc.file, loc.line, loc.col), context=context)


def _span_context(span: Span) -> str | None:
    text = span.input.content
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    loc = span.get_location()
    return source_context(
        text, loc.line, loc.col, span.end - span.start, span.line_offset
    )


def _failing_op(module: Operation, message: str) -> Operation | None:
    """The op whose own checks raised `message`: in post-order (nested ops before
    the op holding them), the first that does not verify with that message, else
    the first that does not verify."""
    first = None
    for op in module.walk(region_first=True):
        try:
            op.verify()
        except DiagnosticException as e:
            if str(e) == message:
                return op
            first = first or op
        except Exception:  # a broken verifier: keep looking
            continue
    return first


def verify_error(
    module: Operation,
    error: DiagnosticException,
    source: str | None = None,
    line_offset: int = 0,
) -> IRError:
    """The `IRError` for `error` raised verifying `module`: one line at the failing
    op's location, naming the op, with the source line when `source` is given."""
    if isinstance(error, UseBeforeDefinition):
        op: Operation | None = error.op
    else:
        op = _failing_op(module, str(error))
    message = one_line(str(error)) or type(error).__name__
    if op is not None and op.name not in message:
        message = f"'{op.name}' op: {message}"
    location = op_location(op) if op is not None else None
    context = None
    if location is not None and source is not None:
        context = source_context(source, location[1], location[2], 1, line_offset)
    return IRError(message, location=location, context=context)


def verify_ir(
    module: Operation, *, source: str | None = None, line_offset: int = 0
) -> None:
    """Verify `module` (xDSL's verifier and the use-before-definition check); a
    failure is a one-line `IRError` at the failing op (see `verify_error`)."""
    try:
        module.verify()
        verify_ssa_order(module)
    except DiagnosticException as e:
        raise verify_error(module, e, source, line_offset) from None


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


def entry_function(module: ModuleOp) -> func.FuncOp | None:
    """The module's entry function `@main` (`lamina.abi.ENTRY`), if it has one."""
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == ENTRY:
            return op
    return None


def io_names(attrs: ArrayAttr[DictionaryAttr] | None, prefix: str, n: int) -> list[str]:
    """The `lamina.name` of each of `n` function arguments or results, given their
    attribute dictionaries; unnamed ones are `<prefix><index>`."""
    names = []
    for i in range(n):
        name = attrs.data[i].data.get("lamina.name") if attrs and i < len(attrs.data) else None
        names.append(name.data if isinstance(name, StringAttr) else f"{prefix}{i}")
    return names
