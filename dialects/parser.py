"""lamina's IR parser: xDSL's `Parser` with MLIR's limits on what text may ask for.

xDSL's parser trusts sizes written in the text: `i99999999999999999999` overflows
while computing the type's value range, and `dense<1.0> : tensor<4294967296xf32>`
expands the splat into billions of Python floats. MLIR refuses both while parsing;
`LaminaParser` does the same, as `ParseError`s pointing at the offending token:

- integer types are at most `MAX_INT_WIDTH` bits wide (MLIR's limit);
- shape dimensions fit in a signed 64-bit integer;
- an inline `dense<...>` literal has at most `MAX_DENSE_ELEMENTS` elements (larger
  constants belong in `dense_resource` blobs);
- integer literals fit their type and float literals their format (xDSL raises
  `ValueError` / `OverflowError` while building the attribute);
- string literals are lexed in linear time: xDSL's string regex backtracks
  exponentially on an unterminated string (`"abc...` to the end of the line).

It also reports what MLIR reports where MLIR reports it:

- every parsed op gets its source position as its location, a `FileLineColLoc`
  (`file:line:col` of the op's first token, as MLIR's parser records), unless the
  text gives one (`loc(...)`); verifier errors point there (`lamina.ir.verify`);
- a value used but never defined is reported at its first use, not at the end of
  the input;
- an input without operations (empty, or only comments) is an empty module, as
  `mlir-opt` reads it.

These are lamina's only changes to xDSL's parser; use `make_parser` (or
`lamina.parse`) wherever text is parsed.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import defaultdict

from xdsl.context import Context
from xdsl.dialects.builtin import (
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.lexer import Input, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from lamina.errors import IRError

#: MLIR's widest integer type (`IntegerType::kMaxWidth`).
MAX_INT_WIDTH = (1 << 24) - 1
#: The most elements an inline `dense<...>` literal (splats included) may have.
MAX_DENSE_ELEMENTS = 1 << 22
_MAX_DIM = (1 << 63) - 1


class LaminaLexer(MLIRLexer):
    """xDSL's lexer with a string-literal pattern that cannot backtrack: each
    character of the payload matches exactly one alternative."""

    _unescaped_characters_regex = re.compile(
        r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
    )


class LaminaParser(Parser):
    """xDSL's parser, refusing sizes that MLIR refuses (see the module doc)."""

    def __init__(
        self,
        ctx: Context,
        input: str | bytes,
        name: str = "<unknown>",
        line_offset: int = 0,
    ) -> None:
        if isinstance(input, bytes):
            try:
                input = input.decode("utf-8")
            except UnicodeDecodeError as e:
                raise IRError(
                    f"{name}: the input is not UTF-8 text (byte {e.start}: "
                    f"{input[e.start : e.start + 1]!r})"
                ) from None
        # Parser.__init__ with lamina's lexer.
        super(Parser, self).__init__(ParserState(LaminaLexer(Input(input, name))), ctx)
        self.ssa_values = dict()
        self.blocks = dict()
        self.forward_block_references = defaultdict(list)
        self.forward_ssa_references = dict()
        #: lines before the text (a chunk of `--split-input-file`), for locations
        self.line_offset = line_offset
        self._filename = StringAttr(name)
        self._line_starts: list[int] | None = None
        #: where each forward-referenced value name is first used
        self._first_use: dict[str, Span] = {}

    # --- locations --------------------------------------------------------------
    def location_of(self, pos: int) -> FileLineColLoc:
        """The `FileLineColLoc` of offset `pos` of the input (line and column from 1;
        lines counted from the start of the whole file)."""
        if self._line_starts is None:
            text = self.lexer.input.content
            self._line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
        line = bisect.bisect_right(self._line_starts, pos)
        col = pos - self._line_starts[line - 1] + 1
        return FileLineColLoc(
            self._filename, IntAttr(line + self.line_offset), IntAttr(col)
        )

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            op.location = self.location_of(start)
        return op

    # --- undefined values, reported where they are used -----------------------------
    def resolve_operand(self, operand: UnresolvedOperand, type: Attribute) -> SSAValue:
        name = operand.operand_name
        if name not in self.ssa_values:
            self._first_use.setdefault(name, operand.span)
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        """xDSL's `parse_module`, except that an input without operations is an
        empty module and an undefined value is reported at its first use."""
        if self._current_token.kind == MLIRTokenKind.EOF:
            if not allow_implicit_module:
                self.raise_error(
                    "expected a builtin.module operation, but the input is empty"
                )
            return ModuleOp([])
        if allow_implicit_module:
            ops: list[Operation] = []
            while self._current_token.kind != MLIRTokenKind.EOF:
                kind = self._current_token.kind
                if kind in (MLIRTokenKind.HASH_IDENT, MLIRTokenKind.EXCLAMATION_IDENT):
                    self._parse_alias_def()
                elif kind == MLIRTokenKind.FILE_METADATA_BEGIN:
                    self._parse_file_metadata_dictionary()
                elif (op := self.parse_optional_operation()) is not None:
                    ops.append(op)
                else:
                    self.raise_error(
                        f"expected an operation, got '{self._current_token.text}'"
                    )
            if len(ops) == 1 and isinstance(ops[0], ModuleOp):
                module = ops[0]
            else:
                module = ModuleOp(ops)
        else:
            op = self.parse_optional_operation()
            if not isinstance(op, ModuleOp):
                self._resume_from(0)
                self.raise_error("builtin.module operation expected", 0)
            module = op
        self._check_undefined_values()
        return module

    def _check_undefined_values(self) -> None:
        """A `ParseError` at the first use of a value that no op or block argument
        defines (MLIR's `use of undeclared SSA value name`)."""
        if not self.forward_ssa_references:
            return
        undefined = sorted(
            self.forward_ssa_references,
            key=lambda n: self._first_use[n].start if n in self._first_use else -1,
        )
        others = ", ".join(f"%{n}" for n in undefined[1:])
        more = f" (also undefined: {others})" if others else ""
        first = undefined[0]
        self.raise_error(
            f"use of undeclared SSA value name %{first}{more}",
            self._first_use.get(first),
        )

    def parse_optional_attribute(self) -> Attribute | None:
        start = self.pos
        try:
            return super().parse_optional_attribute()
        except (ValueError, OverflowError, NotImplementedError) as e:
            # Building a builtin attribute from an out-of-range literal.
            self.raise_error(f"invalid attribute: {e}", start, self.pos)

    def _parse_optional_integer_or_float_type(self) -> TypeAttribute | None:
        token = self._current_token
        if token.kind == MLIRTokenKind.BARE_IDENT:
            match = self._builtin_integer_type_regex.match(token.text)
            if match is not None and int(match.group(1)) > MAX_INT_WIDTH:
                self.raise_error(
                    f"integer type {token.text} is too wide: at most {MAX_INT_WIDTH} "
                    "bits"
                )
        return super()._parse_optional_integer_or_float_type()

    def parse_shape_dimension(self, allow_dynamic: bool = True) -> int:
        start = self._current_token.span
        dim = super().parse_shape_dimension(allow_dynamic)
        if dim > _MAX_DIM:
            self.raise_error(
                f"shape dimension {dim} does not fit in 64 bits", start.start, start.end
            )
        return dim

    def _parse_dense_literal_type(self):  # type: ignore[no-untyped-def]
        start = self._current_token.span.start
        t = super()._parse_dense_literal_type()
        count = math.prod(t.get_shape())
        if count > MAX_DENSE_ELEMENTS:
            self.raise_error(
                f"dense literal of {count} elements is too large to write inline (at "
                f"most {MAX_DENSE_ELEMENTS}); use a dense_resource blob",
                start,
                self.pos,
            )
        return t


def make_parser(
    ctx: Context, text: str | bytes, name: str = "<string>", line_offset: int = 0
) -> LaminaParser:
    """A lamina parser over `text`, named `name` in locations and errors;
    `line_offset` lines precede the text in that file (a `--split-input-file`
    chunk)."""
    return LaminaParser(ctx, text, name, line_offset)


__all__ = ["MAX_DENSE_ELEMENTS", "MAX_INT_WIDTH", "LaminaParser", "make_parser"]
