"""`torch.compile(model, backend="lamina")` (lamina.dynamo) against eager torch:
a small model, a graph break, an op lamina does not convert (that region runs
in eager torch, reported once), a new input size (dynamo's recompile, then a
symbolic region), autograd and training mode (eager), weights changed after
the compile, and torch finding the backend by its entry point."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
import lamina.dynamo  # noqa: E402  (registers the backend without the installed entry point)

nn = torch.nn
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def fresh() -> None:
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    lamina.dynamo.reset()


def close(a: torch.Tensor, b: torch.Tensor, tol: float = 1e-4) -> bool:
    a, b = a.detach(), b.detach()
    return a.shape == b.shape and float((a - b).abs().max()) <= tol * max(1.0, float(b.abs().max()))


def convnet() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10),
    ).eval()


class Branchy(nn.Module):
    """A Python branch on a tensor's value (`.item()`: a graph break), and
    optionally an op lamina does not convert after it."""

    def __init__(self, bessel: bool = False) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.a, self.b, self.bessel = nn.Linear(8, 8), nn.Linear(8, 4), bessel

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.a(x))
        h = h * 2 if h.sum().item() > 0 else h - 1
        if self.bessel:
            h = torch.special.bessel_j0(h)
        return self.b(h)


def test_a_small_model_matches_eager() -> None:
    model = convnet()
    compiled = torch.compile(model, backend="lamina")
    x = torch.randn(2, 3, 16, 16)
    with torch.no_grad():
        y = compiled(x)
        assert close(y, model(x))
        assert close(compiled(x), y, 0.0)
    assert lamina.dynamo.fallbacks() == []


def test_a_graph_break_runs_and_is_listed(caplog: pytest.LogCaptureFixture) -> None:
    model = Branchy().eval()
    compiled = torch.compile(model, backend="lamina")
    with caplog.at_level(logging.WARNING, logger="lamina.dynamo"), torch.no_grad():
        for _ in range(2):
            x = torch.randn(3, 8)
            assert close(compiled(x), model(x))
    (reported,) = lamina.dynamo.fallbacks()
    assert reported.startswith("graph break") and "item()" in reported
    mine = [r.getMessage() for r in caplog.records if r.name == "lamina.dynamo"]
    assert mine == [f"lamina: {reported}"]


def test_an_unsupported_op_runs_its_region_in_eager_torch(caplog: pytest.LogCaptureFixture) -> None:
    model = Branchy(bessel=True).eval()
    compiled = torch.compile(model, backend="lamina")
    with caplog.at_level(logging.WARNING, logger="lamina.dynamo"), torch.no_grad():
        for sign in (1, -1, 1, -1):  # both branches
            x = sign * torch.rand(3, 8)
            assert close(compiled(x), model(x))
    eager = [m for m in lamina.dynamo.fallbacks() if m.startswith("region")]
    # the region after the break (captured twice: once per branch taken), the
    # one before it compiles
    (message,) = eager
    assert "aten.special_bessel_j0.default" in message
    assert "test_torch_compile.py" in message and "torch.special.bessel_j0(h)" in message
    assert sum(message in r.getMessage() for r in caplog.records) == 1


def test_a_new_input_size_recompiles_then_stays_symbolic(monkeypatch: pytest.MonkeyPatch) -> None:
    compiles = []
    real = lamina.dynamo.lamina_compile
    monkeypatch.setattr(lamina.dynamo, "lamina_compile", lambda m, **kw: compiles.append(m) or real(m, **kw))
    model = convnet()
    compiled = torch.compile(model, backend="lamina")
    with torch.no_grad():
        for n in (2, 5, 7, 3):  # 5: dynamo captures again with a symbolic batch
            x = torch.randn(n, 3, 16, 16)
            assert close(compiled(x), model(x))
    stats = torch._dynamo.utils.counters["stats"]
    assert stats["unique_graphs"] == 2  # the static capture, then the dynamic one
    assert len(compiles) == 2  # the dynamic one compiled once, its batch symbolic
    assert "tensor<?x3x16x16xf32" in str(compiles[1])
    with torch.no_grad():  # past the range dynamo's guards gave the batch
        x = torch.randn(32, 3, 16, 16)
        assert close(compiled(x), model(x))
    assert len(compiles) == stats["unique_graphs"]
    assert lamina.dynamo.fallbacks() == []


def test_autograd_and_training_mode_run_in_eager_torch() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8))
    compiled = torch.compile(model, backend="lamina")
    x = torch.randn(3, 4)
    y = compiled(x)  # grad on, weights require grad
    assert y.grad_fn is not None and close(y, model(x))
    with torch.no_grad():
        mean = model[1].running_mean.clone()
        compiled(x)  # training mode: updates the running statistics
        assert not torch.equal(model[1].running_mean, mean)
    grad, train = lamina.dynamo.fallbacks()
    assert "autograd" in grad and "in place" in train


def test_weights_changed_after_the_compile_are_read() -> None:
    model = convnet()
    compiled = torch.compile(model, backend="lamina")
    x = torch.randn(2, 3, 16, 16)
    with torch.no_grad():
        compiled(x)
        model[5].weight.mul_(2)  # in place: its version counter moves
        assert close(compiled(x), model(x))


def test_torch_finds_the_backend_by_its_entry_point(tmp_path: Path) -> None:
    """With lamina installed, `backend="lamina"` needs no `import lamina`: torch
    reads the `torch_dynamo_backends` entry point pyproject.toml declares."""
    assert 'lamina = "lamina.dynamo:backend"' in (ROOT / "pyproject.toml").read_text()
    info = tmp_path / "lamina_ep-0.dist-info"  # stands for the installed package's metadata
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lamina-ep\nVersion: 0\n")
    (info / "entry_points.txt").write_text("[torch_dynamo_backends]\nlamina = lamina.dynamo:backend\n")
    code = textwrap.dedent("""
        import sys, torch
        from torch._dynamo.backends.registry import lookup_backend
        assert "lamina" not in sys.modules
        fn = lookup_backend("lamina")
        import lamina.dynamo
        print(fn is lamina.dynamo.backend)
    """)
    path = [str(tmp_path), *sys.path]
    env = {"PYTHONPATH": ":".join(p for p in path if p), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
