"""Shared helpers for lamina's tests."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

_HERE = str(Path(__file__).parent)


def pytest_collectstart(collector: pytest.Collector) -> None:
    """Test modules share helpers (`from tests.test_onnx_ops import check`), so
    `tests` must be this folder whatever pytest collected first: xDSL installs
    a `tests` folder into site-packages, and a namespace package's path is
    recomputed from sys.path (which need not hold the repository), so it is
    pinned here as a plain list."""
    package = sys.modules.get("tests")
    if package is None:
        package = sys.modules["tests"] = types.ModuleType("tests")
    if list(getattr(package, "__path__", [])) != [_HERE]:
        package.__path__ = [_HERE]


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `lamina` command's tables honour `COLUMNS`, which pytest-xdist's workers
    set to 80: tests check the tables' contents, not the runner's terminal, so
    they see no `COLUMNS` (a test of the width sets it)."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(autouse=True)
def _default_sigint() -> None:
    """Each test starts with Python's own SIGINT handler, whatever an earlier
    test in the same worker left (in one CI run something in the torch tests'
    stack left SIGINT ignored, which subprocesses inherit): the signal tests
    check lamina's handling from the default."""
    signal.signal(signal.SIGINT, signal.default_int_handler)


settings.register_profile(
    "ci",
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=10, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def _install_plugin(source: Path, site: Path, build: Path) -> None:
    copy = build / "src"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation",
         "--no-index", "--quiet", "--target", str(site), str(copy)],
        capture_output=True, text=True, timeout=300, cwd=build,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    if proc.returncode != 0:
        pytest.fail(f"pip could not install {source.name}:\n{proc.stdout}\n{proc.stderr}")


@pytest.fixture(scope="session")
def install_plugin(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """`install_plugin(source)`: pip-install the plugin package at `source` into a
    fresh folder that subprocesses put on PYTHONPATH (the environment running the
    tests is left as it was), offline: no dependencies, no build isolation, from a
    copy (setuptools builds in the source tree). Returns the folder."""

    def install(source: Path) -> Path:
        site = tmp_path_factory.mktemp(f"{source.name}-site")
        _install_plugin(source, site, tmp_path_factory.mktemp(f"{source.name}-build"))
        return site

    return install
