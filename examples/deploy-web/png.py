"""The example's picture, `image.png`: drawn with numpy, written and read with a
minimal PNG codec (8-bit RGB, no interlacing, no colour-space chunks, so a
browser decodes it to exactly these bytes).

    python png.py            # rewrites image.png (128x128, deterministic)

`read_png` reads back what `write_png` writes (it refuses any other PNG);
tests/test_deploy_web.py uses it to preprocess the picture as the page does.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
SIZE = 128  # the demo CNN's input is 3x128x128: the page needs no resampling


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def write_png(path: str | Path, rgb: np.ndarray) -> None:
    """Write `rgb` (height x width x 3, uint8) as a PNG: IHDR, one IDAT, IEND."""
    height, width, channels = rgb.shape
    if rgb.dtype != np.uint8 or channels != 3:
        raise ValueError("write_png takes height x width x 3 uint8 pixels")
    rows = np.concatenate([np.zeros((height, 1), np.uint8), rgb.reshape(height, width * 3)], axis=1)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    Path(path).write_bytes(
        SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows.tobytes(), 9))
        + _chunk(b"IEND", b"")
    )


def read_png(path: str | Path) -> np.ndarray:
    """The pixels (height x width x 3, uint8) of a PNG `write_png` wrote."""
    data = Path(path).read_bytes()
    if not data.startswith(SIGNATURE):
        raise ValueError(f"{path} is not a PNG")
    at, chunks = len(SIGNATURE), {}
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        chunks[kind] = chunks.get(kind, b"") + data[at + 8 : at + 8 + length]
        at += 12 + length
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    if (depth, color, interlace) != (8, 2, 0):
        raise ValueError(f"{path}: read_png reads 8-bit RGB without interlacing only")
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, 1 + width * 3)
    if rows[:, 0].any():
        raise ValueError(f"{path}: read_png reads unfiltered rows only")
    return rows[:, 1:].reshape(height, width, 3).copy()


def draw(size: int = SIZE) -> np.ndarray:
    """A small landscape: a sky gradient, a sun, hills, a striped field."""
    y, x = np.mgrid[0:size, 0:size].astype(np.float64) / size
    sky = np.stack([80 + 100 * y, 140 + 80 * y, 230 - 30 * y], axis=-1)
    sun = (x - 0.72) ** 2 + (y - 0.25) ** 2 < 0.012
    hills = y > 0.55 + 0.08 * np.sin(7 * x)
    field = y > 0.8
    image = sky
    image[sun] = (250, 210, 60)
    image[hills] = np.stack([40 + 60 * y, 120 + 40 * np.sin(5 * x), 50 + 0 * x], axis=-1)[hills]
    stripes = (np.floor(x * 16 + y * 8) % 2)[..., None]
    image[field] = (stripes * (170, 140, 60) + (1 - stripes) * (200, 170, 80))[field]
    return np.clip(np.rint(image), 0, 255).astype(np.uint8)


if __name__ == "__main__":
    out = Path(__file__).with_name("image.png")
    write_png(out, draw())
    print(f"wrote {out} ({out.stat().st_size} bytes)")
