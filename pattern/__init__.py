"""Dataflow patterns over graph IR: TVM Relay's pattern language, on xDSL values.

- `language.py`: the patterns and their builders (`is_op`, `wildcard`,
  `is_constant`, `is_expr`, `is_tuple`, `has_attr`, `dominates`, `p | q`, ...);
- `matcher.py`: what each pattern matches (with backtracking), `Match`, and
  `pattern.match(value)` / `pattern.try_match(value)`;
- `rewrite.py`: `rewrite(callbacks, module)` with `(pattern, fn)` pairs or
  `PatternCallback`s (TVM's `DFPatternCallback`), to a fixpoint;
- `partition.py`: `partition(pattern, module, attrs=None, check=None)` (also
  `pattern.partition(...)`), each match wrapped into a `relay.fused` region op
  whose parameters come in the pattern's leaf order (TVM's), not the graph's.

Where TVM's matcher goes beyond structure, lamina follows it: commutative ops
match either operand order, multiply/divide chains match re-associated,
`has_attr` sees properties at their defaults (an op class's `DEFAULTS`), and a
dominator's paths skip leaf operands (arguments, constants).

The package sits above the pass infrastructure (the rewriter reads the running
pass's `pattern.max-iterations` and reports statistics to it) and below the
passes that use it (`simplify-expr`, `merge-composite`, the BYOC targets'
composite patterns).
"""

from lamina.pattern.language import (
    AltPattern,
    AttrPattern,
    CallPattern,
    ConstantPattern,
    ConstantValuePattern,
    DataTypePattern,
    DominatorPattern,
    ExprPattern,
    OpNamePattern,
    Pattern,
    ShapePattern,
    TupleGetItemPattern,
    TuplePattern,
    TypePattern,
    VarPattern,
    WildcardPattern,
    dominates,
    element_type_of,
    has_attr,
    has_dtype,
    has_shape,
    has_type,
    is_constant,
    is_expr,
    is_op,
    is_tuple,
    is_tuple_get_item,
    is_var,
    wildcard,
)
from lamina.pattern.matcher import Match, attr_to_python
from lamina.pattern.partition import partition
from lamina.pattern.rewrite import PatternCallback, RewriteResult, rewrite

__all__ = [
    "AltPattern",
    "AttrPattern",
    "CallPattern",
    "ConstantPattern",
    "ConstantValuePattern",
    "DataTypePattern",
    "DominatorPattern",
    "ExprPattern",
    "Match",
    "OpNamePattern",
    "Pattern",
    "PatternCallback",
    "RewriteResult",
    "ShapePattern",
    "TupleGetItemPattern",
    "TuplePattern",
    "TypePattern",
    "VarPattern",
    "WildcardPattern",
    "attr_to_python",
    "dominates",
    "element_type_of",
    "has_attr",
    "has_dtype",
    "has_shape",
    "has_type",
    "is_constant",
    "is_expr",
    "is_op",
    "is_tuple",
    "is_tuple_get_item",
    "is_var",
    "partition",
    "rewrite",
    "wildcard",
]
