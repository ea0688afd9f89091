"""The `--input` arrays of `lamina run` and `lamina bench`: .npy and .npz files
read, matched to a model's inputs by name and checked (or random inputs)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from lamina.errors import LaminaError
from lamina.runtime.model import CompiledModel
from lamina.runtime.record import ModelRecord


def _read_arrays(file: str, what: str) -> np.ndarray | dict[str, np.ndarray]:
    """The array of a .npy file, or the arrays by name of a .npz file."""
    if Path(file).is_dir():
        raise LaminaError(f"cannot read {what}: '{file}' is a directory")
    try:
        data = np.load(file, allow_pickle=False)
        if isinstance(data, np.lib.npyio.NpzFile):
            with data:
                return {k: data[k] for k in data.files}
        return data
    except (OSError, ValueError) as e:
        raise LaminaError(f"cannot read {what} from '{file}': {e}") from None


def _load_inputs(items: Sequence[str]) -> dict[str, tuple[np.ndarray, str]]:
    """`--input NAME=FILE.npy` and `--input FILE.npz` (its arrays by name, as
    `lamina run --output` and `quantize --calibration` have them): each input's
    array and the file it came from."""
    out: dict[str, tuple[np.ndarray, str]] = {}

    def add(name: str, arr: np.ndarray, file: str) -> None:
        if name in out:
            raise LaminaError(
                f"input '{name}' is given twice: by '{out[name][1]}' and '{file}'"
            )
        out[name] = (arr, file)

    for item in items:
        name, sep, file = item.partition("=")
        if not sep:
            if not item.lower().endswith(".npz"):
                raise LaminaError(
                    f"bad --input '{item}': expected NAME=FILE.npy, or FILE.npz (its "
                    "arrays by input name)"
                )
            data = _read_arrays(item, "inputs")
            if not isinstance(data, dict):
                raise LaminaError(
                    f"cannot read inputs from '{item}': it holds one unnamed array; "
                    "give --input NAME=FILE"
                )
            if not data:
                raise LaminaError(f"cannot read inputs from '{item}': it holds no arrays")
            for key, arr in data.items():
                add(key, arr, item)
            continue
        if not name:
            raise LaminaError(f"bad --input '{item}': expected NAME=FILE.npy")
        arr = _read_arrays(file, f"input '{name}'")
        if isinstance(arr, dict):
            if len(arr) != 1:
                raise LaminaError(
                    f"cannot read input '{name}' from '{file}': it holds {len(arr)} "
                    f"arrays ({', '.join(arr) or 'none'}); give --input {file} alone "
                    "(its arrays by input name), or NAME=FILE.npy"
                )
            arr = next(iter(arr.values()))
        add(name, arr, file)
    return out


def model_inputs(
    exe: CompiledModel | ModelRecord, items: Sequence[str], quiet: bool = False
) -> dict[str, np.ndarray]:
    """The `--input` arrays, checked against the model's inputs (names and
    dtypes: another dtype is an error saying how to convert, as onnxruntime's);
    random arrays (seed 0) when none are given."""
    loaded = _load_inputs(items)
    given = {name: arr for name, (arr, _) in loaded.items()}
    if not given:
        rng = np.random.default_rng(0)
        for spec in exe.inputs:
            symbolic = [(i, str(d)) for i, d in enumerate(spec.shape) if not isinstance(d, int)]
            if symbolic:
                which = ", ".join(f"'{d}' (axis {i})" for i, d in symbolic)
                example = ",".join(str(d) if isinstance(d, int) else "1" for d in spec.shape)
                raise LaminaError(
                    f"input '{spec.name}' has symbolic dimension(s) {which}: random inputs "
                    f"need sizes; give them with --input-shape {spec.name}=D1,D2,... (e.g. "
                    f"--input-shape {spec.name}={example}), or the arrays with --input"
                )
            if np.issubdtype(spec.dtype, np.floating):
                given[spec.name] = rng.standard_normal(spec.shape).astype(spec.dtype)
            else:
                given[spec.name] = rng.integers(0, 10, spec.shape).astype(spec.dtype)
        if not quiet:
            print(
                "no --input given: using random inputs "
                + ", ".join(s.describe() for s in exe.inputs)
            )
        return given
    known = {s.name for s in exe.inputs}
    for name, (_, file) in loaded.items():
        if name not in known:
            raise LaminaError(
                f"unknown input '{name}' (from '{file}'); the model's inputs are "
                + ", ".join(s.describe() for s in exe.inputs)
            )
    for spec in exe.inputs:
        if spec.name not in loaded:
            continue
        arr, file = loaded[spec.name]
        if arr.dtype != spec.dtype:
            raise LaminaError(
                f"input '{spec.name}' from '{file}' is {arr.dtype}, but the model takes "
                f"{spec.dtype}; lamina does not convert it: save it as {spec.dtype}, e.g. "
                f"numpy.save('{spec.name}.npy', array.astype(numpy.{spec.dtype}))"
            )
    return given


__all__ = ["model_inputs"]
