"""The entry ABI of a lowered module (`lamina.runtime.record.EntryABI`) as its
module attributes: the one encoding of it into the IR, and back.

`lower-tir-to-llvm` writes it (`write_entry`) once it has lowered `@main`; the
driver and the JIT read it back (`read_entry`). The attribute names are
`lamina.abi`'s:

    lamina.external_libraries  ["/path/libx.so", ...]     (external-codegen's)
    lamina.host_functions      ["lamina_image_decode"]
    lamina.sizes               ["batch", "seq", ...]
    lamina.bounds              [["k", "n"], ["r", ""], ...]   ("": unbounded)
    lamina.exits               ["message", ...]
    lamina.dynamic_plan        [[first : i64, last : i64, "bytes"], ...]
    lamina.params              ["weight key", ...]
    lamina.workspace_size      N : i64
    lamina.intermediate_bytes  N : i64

The first six are left out when empty (none: a static model), the last
three always written.
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Attribute

from lamina.abi import (
    BOUNDS_ATTR,
    DYNAMIC_PLAN_ATTR,
    EXITS_ATTR,
    EXTERNAL_LIBRARIES_ATTR,
    HOST_FUNCTIONS_ATTR,
    INTERMEDIATE_BYTES_ATTR,
    PARAMS_ATTR,
    SIZES_ATTR,
    WORKSPACE_SIZE_ATTR,
)
from lamina.errors import LaminaError
from lamina.runtime.record import Bound, EntryABI, LiveRange
from lamina.symbolic import Sym

#: The attributes of the encoding, in the order `write_entry` writes them.
ENTRY_ATTRS: tuple[str, ...] = (
    EXTERNAL_LIBRARIES_ATTR,
    HOST_FUNCTIONS_ATTR,
    SIZES_ATTR,
    BOUNDS_ATTR,
    EXITS_ATTR,
    DYNAMIC_PLAN_ATTR,
    PARAMS_ATTR,
    WORKSPACE_SIZE_ATTR,
    INTERMEDIATE_BYTES_ATTR,
)


def _strings(items: tuple[str, ...]) -> ArrayAttr:
    return ArrayAttr([StringAttr(s) for s in items])


def entry_attributes(entry: EntryABI) -> dict[str, Attribute]:
    """`entry` as module attributes, in the order of `ENTRY_ATTRS` (the optional
    ones only when set)."""
    out: dict[str, Attribute] = {}
    if entry.external_libraries:
        out[EXTERNAL_LIBRARIES_ATTR] = _strings(entry.external_libraries)
    if entry.host_functions:
        out[HOST_FUNCTIONS_ATTR] = _strings(entry.host_functions)
    if entry.sizes:
        out[SIZES_ATTR] = _strings(entry.sizes)
    if entry.bounds:
        out[BOUNDS_ATTR] = ArrayAttr(
            [
                ArrayAttr([StringAttr(b.name), StringAttr("" if b.limit is None else str(b.limit))])
                for b in entry.bounds
            ]
        )
    if entry.exits:
        out[EXITS_ATTR] = _strings(entry.exits)
    if entry.dynamic_plan is not None:
        out[DYNAMIC_PLAN_ATTR] = ArrayAttr(
            [
                ArrayAttr([IntegerAttr(r.first, i64), IntegerAttr(r.last, i64), StringAttr(str(r.nbytes))])
                for r in entry.dynamic_plan
            ]
        )
    out[PARAMS_ATTR] = _strings(entry.params)
    out[WORKSPACE_SIZE_ATTR] = IntegerAttr(entry.workspace_size, i64)
    out[INTERMEDIATE_BYTES_ATTR] = IntegerAttr(entry.intermediate_bytes, i64)
    return out


def write_entry(module: ModuleOp, entry: EntryABI) -> None:
    """Set `module`'s entry ABI attributes to `entry` (replacing any it had)."""
    for name in ENTRY_ATTRS:
        module.attributes.pop(name, None)
    module.attributes.update(entry_attributes(entry))


def _bad(name: str, attr: Attribute) -> LaminaError:
    return LaminaError(f"the module attribute {name} = {attr} is not what lower-tir-to-llvm writes")


def _string_list(attrs: Mapping[str, Attribute], name: str) -> tuple[str, ...]:
    attr = attrs.get(name)
    if attr is None:
        return ()
    if not isinstance(attr, ArrayAttr) or not all(isinstance(a, StringAttr) for a in attr.data):
        raise _bad(name, attr)
    return tuple(a.data for a in attr.data)  # type: ignore[attr-defined]


def _int(attrs: Mapping[str, Attribute], name: str) -> int:
    attr = attrs.get(name)
    if attr is None:
        return 0
    if not isinstance(attr, IntegerAttr):
        raise _bad(name, attr)
    return attr.value.data


def _rows(attrs: Mapping[str, Attribute], name: str, types: tuple[type, ...]) -> list[list[object]]:
    """The rows of an array of arrays whose entries have `types`, as Python values."""
    attr = attrs.get(name)
    if attr is None:
        return []
    rows: list[list[object]] = []
    for row in attr.data if isinstance(attr, ArrayAttr) else [None]:
        if not (
            isinstance(row, ArrayAttr)
            and len(row.data) == len(types)
            and all(isinstance(a, t) for a, t in zip(row.data, types, strict=True))
        ):
            raise _bad(name, attr)
        rows.append([a.data if isinstance(a, StringAttr) else a.value.data for a in row.data])  # type: ignore[attr-defined]
    return rows


def entry_from_attributes(attrs: Mapping[str, Attribute]) -> EntryABI:
    """The entry ABI `entry_attributes` encoded into `attrs`; absent attributes
    take their defaults (a module not lowered to LLVM yet has none)."""
    plan = attrs.get(DYNAMIC_PLAN_ATTR)
    return EntryABI(
        params=_string_list(attrs, PARAMS_ATTR),
        workspace_size=_int(attrs, WORKSPACE_SIZE_ATTR),
        intermediate_bytes=_int(attrs, INTERMEDIATE_BYTES_ATTR),
        sizes=_string_list(attrs, SIZES_ATTR),
        bounds=tuple(
            Bound(str(n), Sym.parse(str(b)) if b else None)
            for n, b in _rows(attrs, BOUNDS_ATTR, (StringAttr, StringAttr))
        ),
        exits=_string_list(attrs, EXITS_ATTR),
        dynamic_plan=None
        if plan is None
        else tuple(
            LiveRange(int(a), int(b), Sym.parse(str(n)))  # type: ignore[call-overload]
            for a, b, n in _rows(attrs, DYNAMIC_PLAN_ATTR, (IntegerAttr, IntegerAttr, StringAttr))
        ),
        external_libraries=_string_list(attrs, EXTERNAL_LIBRARIES_ATTR),
        host_functions=_string_list(attrs, HOST_FUNCTIONS_ATTR),
    )


def read_entry(module: ModuleOp) -> EntryABI:
    """The entry ABI `lower-tir-to-llvm` wrote onto `module`."""
    return entry_from_attributes(module.attributes)


__all__ = ["ENTRY_ATTRS", "entry_attributes", "entry_from_attributes", "read_entry", "write_entry"]
