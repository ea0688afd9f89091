"""The record of a compiled model: everything the runtime needs besides the code
and the weights, defined once.

    ModelRecord
      inputs, outputs    TensorSpec (name, shape with symbolic dims, dtype)
      assumptions        Assumption (expr <= limit, why): checked per run
      entry              EntryABI: what the lowering decided about `@main`
        params           the weight keys, in the order of the `params` table
        workspace_size   bytes of the arena (0 with a per-shape plan)
        intermediate_bytes  the sum of the intermediates' sizes (what it shares)
        sizes            the symbolic sizes `main` reads after the buffers
        bounds           Bound (name, limit or None): sizes the model sets itself
        exits            the messages `main` may stop with
        dynamic_plan     LiveRange (first, last, bytes): a per-shape arena plan
        external_libraries  the shared libraries BYOC code calls into
        host_functions      the runtime's functions the code calls (`lamina.abi.HOST_FUNCTIONS`)

Two encodings, each defined once:

- JSON (`ModelRecord.to_json` / `ModelRecord.from_json`): the metadata of an
  exported library (`lamina.codegen.export` writes it, `lamina.runtime.library`
  reads it back), all but the external libraries (linked into the library);
- module attributes (`lamina.lowering.record`): `lower-tir-to-llvm` writes the
  `EntryABI` onto the lowered module, the driver and the JIT read it back.

The record is pure data (numpy and `lamina.symbolic`): the runtime reads it
without loading the compiler.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from lamina.errors import LaminaError
from lamina.symbolic import Dim, Sym


class Assumption(NamedTuple):
    """What a model assumes of its sizes: `expr <= limit`, and why."""

    expr: Dim
    limit: int
    why: str


class Bound(NamedTuple):
    """A data-dependent size the model sets itself and its upper bound (buffers
    are planned at it); None: unbounded, planned at a capacity the runtime grows."""

    name: str
    limit: Dim | None


class LiveRange(NamedTuple):
    """An intermediate buffer of a symbolically shaped `@main`: its live range
    (first and last use, positions in `@main`) and its size in bytes."""

    first: int
    last: int
    nbytes: Dim


@dataclass(frozen=True)
class TensorSpec:
    """Name, shape and dtype of a model input or output."""

    name: str
    shape: tuple[Dim, ...]
    dtype: np.dtype

    def describe(self) -> str:
        return f"{self.name}: {self.dtype}[{', '.join(map(str, self.shape))}]"


@dataclass(frozen=True)
class EntryABI:
    """What `lower-tir-to-llvm` decided about the entry point `main` (see
    `lamina.abi`): the weights it reads, its arena, its symbolic sizes, the sizes
    it sets, the messages it may stop with and the libraries its code calls."""

    params: tuple[str, ...] = ()
    workspace_size: int = 0
    intermediate_bytes: int = 0
    sizes: tuple[str, ...] = ()
    bounds: tuple[Bound, ...] = ()
    exits: tuple[str, ...] = ()
    dynamic_plan: tuple[LiveRange, ...] | None = None
    external_libraries: tuple[str, ...] = ()
    host_functions: tuple[str, ...] = ()


@dataclass(frozen=True)
class ModelRecord:
    """A compiled model's interface and entry ABI (see the module docstring)."""

    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    entry: EntryABI = field(default_factory=EntryABI)
    assumptions: tuple[Assumption, ...] = ()

    @property
    def is_symbolic(self) -> bool:
        """Whether runs bind sizes (from the inputs, or set by the model)."""
        e = self.entry
        return bool(e.sizes or e.bounds or e.dynamic_plan is not None)

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        """The record as JSON values (symbolic dims as their text). The
        external libraries are left out: a library links them in (the seal
        records the dynamic ones it needs), and their paths (into lamina's
        cache) mean nothing to a library's user; `from_json` gives none."""
        e = self.entry
        return {
            "inputs": [_spec_json(s) for s in self.inputs],
            "outputs": [_spec_json(s) for s in self.outputs],
            "assumptions": [[str(a.expr), a.limit, a.why] for a in self.assumptions],
            "param_keys": list(e.params),
            "workspace_size": int(e.workspace_size),
            "intermediate_bytes": int(e.intermediate_bytes),
            "sizes": list(e.sizes),
            "bounds": [[b.name, None if b.limit is None else str(b.limit)] for b in e.bounds],
            "exits": list(e.exits),
            "host_functions": list(e.host_functions),
            "dynamic_plan": None
            if e.dynamic_plan is None
            else [[r.first, r.last, str(r.nbytes)] for r in e.dynamic_plan],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ModelRecord:
        """The record `to_json` gave; keys an older library's metadata lacks
        (format 1: `param_keys`, `intermediate_bytes`) take their defaults
        (none; the workspace size). A `LaminaError` if it is malformed."""
        try:
            workspace = int(data["workspace_size"])
            ranges = data.get("dynamic_plan")
            entry = EntryABI(
                params=tuple(str(k) for k in data.get("param_keys", [])),
                workspace_size=workspace,
                intermediate_bytes=int(data.get("intermediate_bytes", workspace)),
                sizes=tuple(str(n) for n in data.get("sizes", [])),
                bounds=tuple(
                    Bound(str(n), None if b is None else _dim(b)) for n, b in data.get("bounds", [])
                ),
                exits=tuple(str(m) for m in data.get("exits", [])),
                host_functions=tuple(str(f) for f in data.get("host_functions", [])),
                dynamic_plan=None
                if ranges is None
                else tuple(LiveRange(int(a), int(b), _dim(n)) for a, b, n in ranges),
            )
            return cls(
                inputs=tuple(_spec(d) for d in data["inputs"]),
                outputs=tuple(_spec(d) for d in data["outputs"]),
                entry=entry,
                assumptions=tuple(
                    Assumption(_dim(x), int(n), str(why)) for x, n, why in data.get("assumptions", [])
                ),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise LaminaError(f"a malformed model record ({type(e).__name__}: {e})") from None


def _dim(x: int | str) -> Dim:
    return Sym.parse(x) if isinstance(x, str) else int(x)


def _spec_json(spec: TensorSpec) -> dict[str, Any]:
    shape = [d if isinstance(d, int) else str(d) for d in spec.shape]  # symbolic: text
    return {"name": spec.name, "shape": shape, "dtype": spec.dtype.str}


def _spec(d: dict[str, Any]) -> TensorSpec:
    return TensorSpec(str(d["name"]), tuple(_dim(x) for x in d["shape"]), np.dtype(d["dtype"]))


__all__ = [
    "Assumption",
    "Bound",
    "EntryABI",
    "LiveRange",
    "ModelRecord",
    "TensorSpec",
]
