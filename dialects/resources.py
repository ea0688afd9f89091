"""Weights as `dense_resource` blobs, held as numpy arrays.

MLIR keeps large constants out of the IR: an attribute `dense_resource<key>` names a
blob that lives in the context and is printed (if at all) in the trailing
`{-# dialect_resources: ... #-}` section. xDSL implements the syntax but stores blobs
as hex strings. lamina replaces the builtin dialect's resource interface with
`BlobStore`, which keeps numpy arrays (no copy, no hex), prints blobs in MLIR's blob
format (a little-endian u32 alignment, then the raw bytes) and elides blobs above a
size so that text stays small. This is lamina's only change to xDSL's resources.

The store is process-wide, so a blob lives until it is released: `lamina.compile`
records the blobs it creates (`recording`) and releases them when it returns (the
compiled model holds its own aligned copies of the weights), so that compiling
again and again does not grow the process.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import numpy as np
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import Builtin

from lamina.errors import IRError

#: Blobs larger than this many bytes are elided when printing, unless asked for.
DEFAULT_ELIDE_LIMIT = 1024


class BlobStore(OpAsmDialectInterface):
    """A process-wide map from resource keys to numpy arrays."""

    def __init__(self) -> None:
        super().__init__()
        self._arrays: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self.elide_limit: int | None = DEFAULT_ELIDE_LIMIT
        self._renamed: dict[str, str] = {}
        self._recorders = threading.local()

    # --- used by lamina -------------------------------------------------
    def add(self, key: str, array: np.ndarray) -> str:
        """Store `array` under a fresh key derived from `key`; return the key."""
        with self._lock:
            key = self.declare_resource(_sanitize(key))
            self._arrays[key] = array
        for keys in getattr(self._recorders, "stack", ()):
            keys.append(key)
        return key

    @contextmanager
    def recording(self) -> Iterator[list[str]]:
        """The keys of the blobs this thread adds inside the block, for `release`."""
        stack: list[list[str]] = self._recorders.__dict__.setdefault("stack", [])
        keys: list[str] = []
        stack.append(keys)
        try:
            yield keys
        finally:
            stack.remove(keys)

    def release(self, keys: Iterable[str]) -> None:
        """Forget the blobs `keys`: their arrays are freed once nothing else holds
        them, and a module still naming one reads it as elided."""
        with self._lock:
            gone = set(keys)
            for key in gone:
                self._arrays.pop(key, None)
                self._blob_storage.pop(key, None)
            for original in [k for k, v in self._renamed.items() if v in gone]:
                del self._renamed[original]

    def keys(self) -> list[str]:
        """The keys of every blob held."""
        return list(self._arrays)

    def get(self, key: str) -> np.ndarray | None:
        return self._arrays.get(key)

    def array(self, key: str, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        """The blob `key` viewed as an array of `shape` and `dtype`."""
        arr = self._arrays.get(key)
        if arr is None:
            raise IRError(
                f"resource '{key}' has no data: it was elided when the IR was printed; "
                "print the IR with every weight: `lamina compile MODEL --emit LEVEL "
                "--print-resources` (or -o FILE), `lamina-opt --print-resources`, or "
                "`lamina.print_ir(m, resources_limit=None)`"
            )
        count = int(np.prod(shape, dtype=np.int64))
        if arr.dtype != dtype and arr.flags.c_contiguous and (
            arr.nbytes == count * dtype.itemsize
        ):
            arr = arr.reshape(-1).view(dtype)  # raw bytes, e.g. parsed from text
        if arr.dtype != dtype or arr.size != count:
            raise IRError(
                f"resource '{key}' holds {arr.size} elements of {arr.dtype}, "
                f"but its type is {'x'.join(map(str, shape)) or 'scalar'} of {dtype}"
            )
        return arr.reshape(shape)

    # --- OpAsmDialectInterface ------------------------------------------
    def begin_parse(self) -> None:
        """Start a new parse: forget which text keys were renamed."""
        self._renamed: dict[str, str] = {}

    def declare_resource(self, key: str) -> str:
        # xDSL's parser declares a key once where an attribute uses it and again in
        # the `{-# dialect_resources #-}` section; both must resolve to one blob.
        renamed = self._renamed
        if key in renamed and renamed[key] not in self._arrays:
            return renamed[key]
        original = key
        if key in self._blob_storage or key in self._arrays:
            counter = 0
            while f"{key}_{counter}" in self._blob_storage or (
                f"{key}_{counter}" in self._arrays
            ):
                counter += 1
            key = f"{key}_{counter}"
        self._blob_storage[key] = ""
        renamed[original] = key
        return key

    def parse_resource(self, key: str, val: str) -> None:
        if not val.startswith("0x"):
            raise ValueError(f"blob must be a hex string starting with 0x, got {val!r}")
        raw = bytes.fromhex(val[2:])
        if len(raw) < 4:
            raise ValueError("blob is shorter than its 4-byte alignment header")
        # The element type is only known from the attribute using the blob: keep the
        # bytes as unsigned words of the blob's alignment, for `array()` to view.
        align = int.from_bytes(raw[:4], "little")
        word = np.dtype(f"u{align}") if align in (1, 2, 4, 8) else np.dtype(np.uint8)
        data = raw[4:]
        if len(data) % word.itemsize:
            word = np.dtype(np.uint8)
        self._arrays[key] = np.frombuffer(data, dtype=word)
        self._blob_storage[key] = "0x"

    def lookup(self, key: str) -> str | None:
        arr = self._arrays.get(key)
        return None if arr is None else _to_hex(arr)

    def build_resources(self, keys: Iterable[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for key in keys:
            arr = self._arrays.get(key)
            if arr is None:
                continue
            if self.elide_limit is not None and arr.nbytes > self.elide_limit:
                continue
            out[key] = _to_hex(arr)
        return out


def _to_hex(arr: np.ndarray) -> str:
    align = max(arr.dtype.itemsize, 1)
    data = np.ascontiguousarray(arr)
    if data.dtype == np.bool_:
        data = data.astype(np.uint8)
    return "0x" + align.to_bytes(4, "little").hex().upper() + data.tobytes().hex().upper()


def _sanitize(key: str) -> str:
    out = "".join(c if c.isalnum() or c in "_." else "_" for c in key)
    if not out or not (out[0].isalpha() or out[0] == "_"):
        out = "r_" + out
    return out


def _install() -> BlobStore:
    for i, iface in enumerate(Builtin._interfaces):
        if isinstance(iface, BlobStore):
            return iface
        if isinstance(iface, OpAsmDialectInterface):
            store = BlobStore()
            Builtin._interfaces[i] = store
            return store
    store = BlobStore()
    Builtin._interfaces.append(store)
    return store


#: The store behind every `dense_resource` attribute in this process.
blobs: BlobStore = _install()


@contextmanager
def printing_resources(limit: int | None) -> Iterator[None]:
    """Print blobs up to `limit` bytes (None: all of them) inside the block."""
    old = blobs.elide_limit
    blobs.elide_limit = limit
    try:
        yield
    finally:
        blobs.elide_limit = old
