"""examples/deploy-web: the demo CNN compiled for wasm32 classifies the example's
picture in headless Chromium, as lamina's native build of the same model does on
the same pixels (preprocessed in numpy as the page does)."""

from __future__ import annotations

import functools
import html
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import lamina

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "deploy-web"
MEAN = np.array([0.485, 0.456, 0.406])  # classify.mjs's normalization
STD = np.array([0.229, 0.224, 0.225])


def _png() -> ModuleType:
    """The example's png.py (the picture's codec), loaded from its file."""
    spec = importlib.util.spec_from_file_location("deploy_web_png", EXAMPLE / "png.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        if found := shutil.which(name):
            return found
    pytest.skip("needs headless Chromium (Debian: apt-get install chromium)")


class _Quiet(SimpleHTTPRequestHandler):
    """A static file server that logs nothing and serves .mjs as JavaScript
    (module scripts need a JavaScript MIME type)."""

    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".mjs": "text/javascript",
                      ".wasm": "application/wasm"}

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path, str]]:
    """The example built into tmp_path (`make`), served on a free localhost port:
    its URL, the demo CNN's ONNX file and the Chromium to open it with."""
    chromium = _chromium()
    pytest.importorskip("ziglang", reason="needs ziglang (the cross extra) to compile for wasm32")
    if shutil.which("make") is None:
        pytest.skip("needs make")
    lamina_cmd = f"{sys.executable} -m lamina.tools.cli"
    subprocess.run(
        ["make", "-C", str(EXAMPLE), f"BUILD={tmp_path / 'build'}", f"WEB={tmp_path / 'web'}",
         f"LAMINA={lamina_cmd}"],
        check=True, capture_output=True, text=True,
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(tmp_path / "web")))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", tmp_path / "build" / "cnn.onnx", chromium
    finally:
        server.shutdown()
        server.server_close()


def _page_result(chromium: str, url: str, profile: Path) -> dict:
    """The JSON the page writes into <pre id="result">, from Chromium's DOM after
    the page ran (under virtual time: the page's clock stands still, so its
    latency reads 0)."""
    out = subprocess.run(
        [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
         "--virtual-time-budget=30000", "--dump-dom", url],
        capture_output=True, text=True, timeout=120,
    )
    found = re.search(r'<pre id="result">(.*?)</pre>', out.stdout, re.S)
    if found is None or not found.group(1):
        pytest.fail(f"the page wrote no result; chromium said:\n{out.stderr[-2000:]}")
    return json.loads(html.unescape(found.group(1)))


def test_the_committed_picture_is_what_png_py_draws() -> None:
    png = _png()
    pixels = png.read_png(EXAMPLE / "image.png")
    assert pixels.shape == (128, 128, 3)
    np.testing.assert_array_equal(pixels, png.draw())
    assert (EXAMPLE / "image.png").stat().st_size < 50_000


def test_the_page_classifies_the_picture_as_lamina_does(served, tmp_path: Path) -> None:
    url, onnx_file, chromium = served
    result = _page_result(chromium, url, tmp_path / "profile")
    assert "error" not in result, result["error"]
    pixels = _png().read_png(EXAMPLE / "image.png")
    x = ((pixels / 255 - MEAN) / STD).transpose(2, 0, 1)[None].astype(np.float32)
    assert result["input_sum"] == pytest.approx(float(x.astype(np.float64).sum()), rel=1e-9)
    (logits,) = lamina.compile(onnx_file).run(x)
    want = np.argsort(-logits[0], kind="stable")[:5]
    got = [t["class"] for t in result["top5"]]
    assert got == want.tolist()
    scale = float(np.abs(logits).max())
    np.testing.assert_allclose([t["logit"] for t in result["top5"]], logits[0, want], atol=1e-4 * scale)
    assert result["runs"] == 5 and result["latency_ms"] >= 0
