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

This is lamina's only change to xDSL's parser; use `make_parser` (or `lamina.parse`)
wherever text is parsed.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict

from xdsl.context import Context
from xdsl.ir import Attribute, TypeAttribute
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.lexer import Input
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

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
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


def make_parser(ctx: Context, text: str | bytes, name: str = "<string>") -> Parser:
    """A lamina parser over `text`."""
    return LaminaParser(ctx, text, name)


__all__ = ["MAX_DENSE_ELEMENTS", "MAX_INT_WIDTH", "LaminaParser", "make_parser"]
