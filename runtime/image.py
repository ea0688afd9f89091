"""The host's image decoder: `lamina_image_decode` (`lamina.abi.IMAGE_DECODE`)
for models with an ONNX ImageDecoder, decoding with Pillow as ONNX's reference
does.

Compiled code calls it twice per image (TVM's packed functions into the
runtime, here one C-ABI function): once for the header (`capacity` 0), whose
shape names the output's sizes, then to write the pixels into a buffer of that
shape. The first call decodes the whole image, so that corrupt data stops the
run before any size is set, and keeps the pixels for the second call on the
same bytes (one image per thread).

Pixel formats are ONNX's: RGB, BGR (RGB reversed), and Grayscale, Pillow's
`convert("L")`. An image Pillow opens in another mode than RGB (grayscale,
palette, RGBA, CMYK) is converted to RGB first: ONNX's reference would return
its raw array (`[H, W]` or `[H, W, 4]`), which is not the op's `[H, W, 3]`.

Pillow is optional: it is imported at the first decode, and `require_pillow`
(called when a model that decodes images is compiled or loaded) says what to
install.
"""

from __future__ import annotations

import _thread
import ctypes
import importlib.util
import io
import threading
from typing import Any

import numpy as np

from lamina.abi import (
    IMAGE_CORRUPT,
    IMAGE_ERRORS,
    IMAGE_FAILED,
    IMAGE_RESHAPED,
    IMAGE_UNKNOWN_FORMAT,
    PIXEL_FORMATS,
)
from lamina.errors import LaminaError

#: `IMAGE_DECODE`'s C signature.
DECODER = ctypes.CFUNCTYPE(
    ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32,
    ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p,
)
_CHANNELS = {PIXEL_FORMATS["RGB"]: 3, PIXEL_FORMATS["BGR"]: 3, PIXEL_FORMATS["Grayscale"]: 1}


class ImageDecodeError(LaminaError):
    """An image that cannot be decoded; `code` is its `IMAGE_ERRORS` number."""

    def __init__(self, code: int, detail: str = ""):
        super().__init__(IMAGE_ERRORS[code] + (f" ({detail})" if detail else ""))
        self.code = code


def require_pillow() -> None:
    """Refuse, with what to install, when Pillow is missing."""
    if importlib.util.find_spec("PIL") is None:
        raise LaminaError(
            "this model decodes images (ONNX ImageDecoder), which lamina does with "
            "Pillow, and Pillow is not installed: pip install pillow"
        )


def decode(data: bytes, pixel_format: int) -> np.ndarray:
    """The image encoded in `data` as uint8 `[height, width, channels]` (a
    view, possibly strided)."""
    if pixel_format not in _CHANNELS:
        raise ImageDecodeError(IMAGE_FAILED, f"unknown pixel format code {pixel_format}")
    import PIL.Image  # lazy: Pillow is optional, needed only by models that decode images

    try:
        img: Any = PIL.Image.open(io.BytesIO(data))
        img.load()
    except PIL.Image.UnidentifiedImageError:
        raise ImageDecodeError(IMAGE_UNKNOWN_FORMAT) from None
    except (OSError, SyntaxError, ValueError, EOFError) as e:
        raise ImageDecodeError(IMAGE_CORRUPT, str(e)) from None
    if pixel_format == PIXEL_FORMATS["Grayscale"]:
        return np.asarray(img.convert("L"))[:, :, None]
    rgb = np.asarray(img if img.mode == "RGB" else img.convert("RGB"))
    return rgb[:, :, ::-1] if pixel_format == PIXEL_FORMATS["BGR"] else rgb


_kept = threading.local()


def _decoded(data: bytes, pixel_format: int, keep: bool) -> np.ndarray:
    """`decode`, served from the image the thread's header call kept when the
    bytes are the same; kept for the next call if `keep`."""
    last = getattr(_kept, "image", None)
    _kept.image = None
    if last is not None and last[1] == pixel_format and last[0] == data:
        image = last[2]
    else:
        image = decode(data, pixel_format)
    if keep:
        _kept.image = (data, pixel_format, image)
    return image


def decode_into(data: int, size: int, pixel_format: int, out: int | None, capacity: int, shape: int) -> int:
    """`lamina_image_decode` on raw addresses (see `lamina.abi.IMAGE_DECODE`):
    0, or an error code. It never raises: it runs as a C callback."""
    try:
        raw = ctypes.string_at(data, size) if size > 0 else b""
        image = _decoded(raw, pixel_format, keep=capacity == 0)
        (ctypes.c_int64 * 3).from_address(shape)[:] = image.shape
        if capacity == 0:
            return 0
        if capacity < image.size or not out:
            return IMAGE_RESHAPED
        pixels = np.ascontiguousarray(image)  # (held: memmove reads it)
        ctypes.memmove(out, pixels.ctypes.data, pixels.size)
        return 0
    except ImageDecodeError as e:
        return e.code
    except KeyboardInterrupt:  # swallowed by ctypes: raised again in the main thread
        _thread.interrupt_main()
        return IMAGE_FAILED
    except Exception:  # a C caller can take a status only
        return IMAGE_FAILED


#: The ctypes callback compiled code calls (kept alive for the process).
_CALLBACK = DECODER(decode_into)


def decoder_address() -> int:
    """The address of the Pillow decoder's C entry point."""
    address = ctypes.cast(_CALLBACK, ctypes.c_void_p).value
    assert address is not None
    return address


__all__ = [
    "DECODER",
    "ImageDecodeError",
    "decode",
    "decode_into",
    "decoder_address",
    "require_pillow",
]
