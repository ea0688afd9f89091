"""ONNX ImageDecoder: images decoded when the model runs, through the
runtime's decoder (`lamina.runtime.image`, Pillow), in the JIT and in an
exported library (whose C runtime takes a registered decoder)."""

from __future__ import annotations

import ctypes
import io
import re
from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper

import lamina
from lamina import abi
from lamina.errors import FrontendError, InputError
from lamina.runtime import image

PIL = pytest.importorskip("PIL.Image")
HEADER = Path(lamina.__file__).resolve().parent / "runtime" / "c" / "lamina.h"


def _model(pixel_format: str = "RGB", length: int | str = "n") -> bytes:
    node = helper.make_node("ImageDecoder", ["data"], ["img"], pixel_format=pixel_format, name="dec")
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("data", TensorProto.UINT8, [length])],
        [helper.make_tensor_value_info("img", TensorProto.UINT8, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]).SerializeToString()


def _encode(pixels: np.ndarray, fmt: str) -> np.ndarray:
    f = io.BytesIO()
    PIL.fromarray(pixels).save(f, format=fmt)
    return np.frombuffer(f.getvalue(), np.uint8)


def _expected(encoded: np.ndarray, pixel_format: str) -> np.ndarray:
    img = PIL.open(io.BytesIO(encoded.tobytes()))
    if pixel_format == "Grayscale":
        return np.asarray(img.convert("L"))[:, :, None]
    rgb = np.asarray(img.convert("RGB"))
    return rgb[:, :, ::-1] if pixel_format == "BGR" else rgb


@pytest.fixture(scope="module")
def models() -> dict[str, lamina.CompiledModel]:
    """One model per pixel format, each compiled once for every test."""
    return {f: lamina.compile(_model(f)) for f in abi.PIXEL_FORMATS}


@pytest.mark.parametrize("fmt", ["PNG", "BMP", "TIFF", "PPM"])
@pytest.mark.parametrize("pixel_format", list(abi.PIXEL_FORMATS))
def test_lossless_round_trips(models: dict[str, lamina.CompiledModel], fmt: str, pixel_format: str) -> None:
    rng = np.random.default_rng(len(fmt) * 7 + len(pixel_format))
    h, w = (int(v) for v in rng.integers(1, 70, 2))
    pixels = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    encoded = _encode(pixels, fmt)
    (out,) = models[pixel_format].run(encoded)
    np.testing.assert_array_equal(out, _expected(encoded, pixel_format))
    if pixel_format == "RGB":  # lossless: the pixels themselves
        np.testing.assert_array_equal(out, pixels)


def test_one_model_many_sizes(models: dict[str, lamina.CompiledModel]) -> None:
    """Sizes grow and shrink between runs of one compiled model (the runtime
    grows the sizes' capacity and runs again), JPEG and grayscale sources too."""
    rng = np.random.default_rng(3)
    exe = models["BGR"]
    for h, w, fmt in [(5, 9, "PNG"), (120, 33, "JPEG"), (2, 2, "BMP"), (200, 301, "PNG"), (31, 7, "JPEG")]:
        pixels = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        encoded = _encode(pixels, fmt)
        (out,) = exe.run(encoded)
        assert out.shape == (h, w, 3)
        np.testing.assert_array_equal(out, _expected(encoded, "BGR"))
    gray = _encode(rng.integers(0, 256, (6, 11), dtype=np.uint8), "PNG")  # mode L, RGB asked
    np.testing.assert_array_equal(models["RGB"].run(gray)[0], _expected(gray, "RGB"))


def test_static_length(models: dict[str, lamina.CompiledModel]) -> None:
    encoded = _encode(np.full((4, 5, 3), 7, np.uint8), "PNG")
    exe = lamina.compile(_model("Grayscale", len(encoded)))
    np.testing.assert_array_equal(exe.run(encoded)[0], _expected(encoded, "Grayscale"))


def test_bad_images_stop_the_run(models: dict[str, lamina.CompiledModel]) -> None:
    exe = models["RGB"]
    with pytest.raises(InputError, match=r"ONNX node 'dec' \(ImageDecoder, opset 20\): could not decode "
                       r"the image: not a known image format"):
        exe.run(np.arange(200, dtype=np.uint8))
    noise = np.random.default_rng(2).integers(0, 256, (40, 40, 3), dtype=np.uint8)
    whole = _encode(noise, "PNG")
    truncated = whole[: whole.size // 2]
    with pytest.raises(InputError, match="corrupt or truncated"):
        exe.run(truncated)
    good = _encode(np.ones((3, 4, 3), np.uint8), "PNG")
    assert exe.run(good)[0].shape == (3, 4, 3)  # the model still runs


def test_import_refusals() -> None:
    with pytest.raises(FrontendError, match="pixel_format must be one of RGB, BGR, Grayscale, got 'CMYK'"):
        lamina.compile(_model("CMYK"))
    node = helper.make_node("ImageDecoder", ["data"], ["img"])
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("data", TensorProto.INT8, ["n"])],
        [helper.make_tensor_value_info("img", TensorProto.UINT8, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    with pytest.raises(FrontendError, match="must be a 1-D uint8 tensor"):
        lamina.compile(model)


def test_missing_pillow_is_a_compile_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(image.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(lamina.CompileError, match="pip install pillow"):
        lamina.compile(_model("BGR"))


def test_decoder_entry_point() -> None:
    """The C entry point on its own: a header-only call, then the pixels; a
    short buffer and bad data are status codes, never exceptions."""
    pixels = np.random.default_rng(1).integers(0, 256, (3, 5, 3), dtype=np.uint8)
    data = _encode(pixels, "PNG")
    shape = np.zeros(3, np.int64)
    out = np.zeros(45, np.uint8)
    call = image.DECODER(image.decoder_address())
    assert call(data.ctypes.data, data.size, 0, None, 0, shape.ctypes.data) == 0
    assert shape.tolist() == [3, 5, 3]
    assert call(data.ctypes.data, data.size, 0, out.ctypes.data, 44, shape.ctypes.data) == abi.IMAGE_RESHAPED
    assert call(data.ctypes.data, data.size, 0, out.ctypes.data, 45, shape.ctypes.data) == 0
    np.testing.assert_array_equal(out.reshape(3, 5, 3), pixels)
    assert call(data.ctypes.data, 10, 0, None, 0, shape.ctypes.data) == abi.IMAGE_UNKNOWN_FORMAT
    assert call(data.ctypes.data, data.size, 9, None, 0, shape.ctypes.data) == abi.IMAGE_FAILED


def test_exported_library(models: dict[str, lamina.CompiledModel], tmp_path: Path) -> None:
    """A loaded library gets Pillow's decoder through its C runtime's hook;
    without one, the run stops saying so."""
    path = tmp_path / "dec.so"
    models["BGR"].export(path)
    lib = lamina.load(path)
    rng = np.random.default_rng(5)
    for h, w in [(9, 4), (50, 61)]:
        encoded = _encode(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), "PNG")
        np.testing.assert_array_equal(lib.run(encoded)[0], _expected(encoded, "BGR"))
    unset = ctypes.CDLL(str(path)).dec_set_image_decoder
    unset.argtypes = [ctypes.c_void_p]
    unset(None)
    try:
        with pytest.raises(InputError, match="no image decoder is registered with the runtime"):
            lib.run(_encode(np.zeros((2, 2, 3), np.uint8), "PNG"))
    finally:
        unset(image.decoder_address())


def test_header_agrees_with_abi() -> None:
    """lamina.h's codes are `lamina.abi`'s."""
    defines = dict(re.findall(r"#define (LAMINA_(?:IMAGE|PIXEL)_\w+) (\d+)", HEADER.read_text()))
    assert {k: int(v) for k, v in defines.items() if k.startswith("LAMINA_PIXEL_")} == {
        f"LAMINA_PIXEL_{name.upper()}": code for name, code in abi.PIXEL_FORMATS.items()
    }
    codes = {name: getattr(abi, name) for name in dir(abi) if name.startswith("IMAGE_") and name[6:] != "ERRORS"}
    codes.pop("IMAGE_DECODE")
    assert {k: int(v) for k, v in defines.items() if k.startswith("LAMINA_IMAGE_")} == {
        f"LAMINA_{name}": code for name, code in codes.items()
    }
    assert sorted(codes.values()) == sorted(abi.IMAGE_ERRORS)
