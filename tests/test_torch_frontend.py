"""The torch frontend (`lamina.from_torch`, `lamina.compile(nn.Module,
example_inputs=...)`) against eager torch: converters op by op, torchvision's
models where torchvision is installed (whole architectures in small
configurations are tests/test_torch_models.py's), a dynamic batch compiled
once, and the refusal of an unsupported op."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import lamina  # noqa: E402
from lamina.errors import UnsupportedOpError  # noqa: E402

nn = torch.nn
ROOT = Path(__file__).resolve().parents[1]


def run_both(model: nn.Module, *args: torch.Tensor, tol: float = 1e-4, **kw) -> float:
    """Compile `model`, run it and eager torch on `args`; the largest error
    relative to the result's largest magnitude (asserted below `tol`)."""
    model = model.eval()
    exe = lamina.compile(model, example_inputs=args, **kw)
    with torch.no_grad():
        ref = model(*args)
    refs = [ref] if isinstance(ref, torch.Tensor) else list(ref.values()) if isinstance(ref, dict) else list(ref)
    outs = exe.run(*[a.numpy() for a in args])
    worst = 0.0
    for o, r in zip(outs, refs, strict=True):
        r = r.numpy()
        assert o.shape == r.shape and o.dtype == r.dtype, (o.shape, o.dtype, r.shape, r.dtype)
        if r.dtype == np.bool_ or np.issubdtype(r.dtype, np.integer):
            np.testing.assert_array_equal(o, r)
            continue
        err = float(np.abs(o - r).max() / max(np.abs(r).max(), 1e-6))
        worst = max(worst, err)
    assert worst <= tol, worst
    return worst


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def rand(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape)))


# ------------------------------------------------------------ op by op
UNARY = {
    "relu": torch.relu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "silu": nn.functional.silu,
    "gelu": nn.functional.gelu,
    "gelu_tanh": lambda x: nn.functional.gelu(x, approximate="tanh"),
    "hardtanh": nn.functional.relu6,
    "hardswish": nn.functional.hardswish,
    "hardsigmoid": nn.functional.hardsigmoid,
    "leaky_relu": lambda x: nn.functional.leaky_relu(x, 0.2),
    "elu": nn.functional.elu,
    "softplus": nn.functional.softplus,
    "exp_neg_erf": lambda x: torch.exp(-x) + torch.erf(x),
    "sqrt_rsqrt": lambda x: torch.sqrt(x.abs() + 1) * torch.rsqrt(x.abs() + 1),
    "pow": lambda x: x.pow(3.0) + x**2,
    "clamp": lambda x: x.clamp(-0.5, 0.7),
    "scalar_arith": lambda x: (2 - x) * 3 / 4 + 1,
    "softmax": lambda x: torch.softmax(x, -1) + torch.log_softmax(x, 1),
    "where": lambda x: torch.where(x > 0, x, 0.5 * x),
    "to_int": lambda x: (x * 10).to(torch.int64),
    "compare": lambda x: (x >= 0) & (x < 1) | (x == 2),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name: str) -> None:
    run_both(Fn(UNARY[name]), rand(2, 3, 8))


@settings(max_examples=4, deadline=None)
@given(
    a=st.lists(st.sampled_from([1, 3]), min_size=1, max_size=3),
    b=st.lists(st.sampled_from([1, 3]), min_size=1, max_size=3),
)
def test_broadcast_binary(a: list[int], b: list[int]) -> None:
    run_both(Fn(lambda x, y: (x + y) * y - x / (y.abs() + 1)), rand(*a), rand(*b))


@settings(max_examples=4, deadline=None)
@given(
    n=st.integers(1, 3), c=st.sampled_from([4, 6]), hw=st.integers(5, 9),
    k=st.sampled_from([1, 3]), stride=st.sampled_from([1, 2]), groups=st.sampled_from([1, 2]),
)
def test_conv_bn_pool(n: int, c: int, hw: int, k: int, stride: int, groups: int) -> None:
    model = nn.Sequential(
        nn.Conv2d(c, 8, k, stride=stride, padding=k // 2, groups=groups),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2, ceil_mode=hw % 2 == 1),
    )
    with torch.no_grad():
        model[1].running_mean.uniform_(-1, 1)
        model[1].running_var.uniform_(0.5, 2)
    run_both(model, rand(n, c, hw, hw))


def test_avg_pools_and_linear() -> None:
    model = nn.Sequential(
        nn.AvgPool2d(3, stride=2, padding=1),
        nn.AdaptiveAvgPool2d(2),
        nn.Flatten(),
        nn.Linear(16, 5),
    )
    run_both(model, rand(2, 4, 8, 8))


def test_layer_norm_and_matmuls() -> None:
    ln = nn.LayerNorm(8)

    def f(x, y):
        a = ln(x) @ y  # matmul
        b = torch.bmm(x, y)
        return torch.mm(a[0], b[1].t()) + x.mean() + x.sum(dim=(0, 2)).amax()

    run_both(Fn(f), rand(2, 5, 8), rand(2, 8, 5))


def test_attention_rows_with_no_key_give_zeros() -> None:
    """scaled_dot_product_attention decomposes to `_safe_softmax`: a query
    whose every key is masked out (-inf) gets zeros, not NaN; it is converted
    as one softmax (`safe`), not as the decomposition's extra passes."""
    mask = torch.zeros(1, 1, 8, 8)
    mask[..., 3, :] = float("-inf")  # no key at all
    mask[..., 5, 2:] = float("-inf")  # two keys

    def f(q, k, v):
        return nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)

    q, k, v = rand(1, 2, 8, 4), rand(1, 2, 8, 4), rand(1, 2, 8, 4)
    run_both(Fn(f), q, k, v)
    softmaxes = [line for line in lamina.print_ir(lamina.from_torch(Fn(f), (q, k, v))).splitlines() if "softmax" in line]
    assert len(softmaxes) == 1 and "safe" in softmaxes[0], softmaxes


def test_layout_ops() -> None:
    def f(x):
        y = x.view(2, 12).permute(1, 0).reshape(4, 3, 2).transpose(0, 2)
        z = torch.cat([y, y * 2], dim=1)[:, 1:5, ::2]
        w = z.unsqueeze(0).expand(3, -1, -1, -1, -1).clone().squeeze(0)
        a, b = x.split([1, 2], dim=1)
        return w.select(1, 0).sum(0) + z[1, -1], torch.cat([b, a], 1), x[..., 1]

    run_both(Fn(f), rand(2, 3, 4))


def test_embedding_index_arange_full() -> None:
    emb = nn.Embedding(10, 4)

    def f(ids):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        mask = torch.zeros(3)
        rows = torch.arange(2).unsqueeze(1)
        picked = ids[rows, pos]  # index.Tensor
        return emb(ids) + emb(pos) + emb(picked).cumsum(1) + mask.sum(), torch.scalar_tensor(2.0) * ids.ne(3).any(1)

    run_both(Fn(f), torch.tensor([[1, 2, 3], [4, 5, 6]]))


def test_assignments_and_strided_views() -> None:
    """What functionalization leaves of in-place writes (copy, slice_scatter,
    select_scatter, index_put, scatter), index_select and as_strided."""

    def f(x, idx):
        y = x.clone()
        y[:, 1:3] = 7.0  # copy + slice_scatter
        y[0] = x[1] * 2  # select_scatter
        y[:, ::2, 1] = x[:, 1::2, 0]  # a strided slice_scatter
        z = x.clone()
        z[idx] = x[0, 0]  # index_put
        w = torch.zeros(3, 5).index_put_((torch.cat([idx, idx]),), torch.ones(5), accumulate=True)
        s = torch.zeros(2, 4, 5).scatter(1, idx.view(1, -1, 1).expand(2, -1, 5), x[:, :2] + 1)
        a = torch.zeros(2, 4, 5).scatter_add(2, idx.view(1, 1, -1).expand(2, 4, -1), x[..., :2])
        t = x.index_select(1, idx) + x.as_strided((2, 2, 5), (20, 5, 1), 5)
        return y, z, w, s, a, t, x.permute(0, 2, 1).contiguous().as_strided((2, 5, 4), (20, 1, 5))

    run_both(Fn(f), rand(2, 4, 5), torch.tensor([1, 0]))


# ---------------------------------------------------------- whole models
@pytest.mark.parametrize("arch", ["resnet18", "mobilenet_v2"])
def test_torchvision(arch: str) -> None:
    tv = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    model = getattr(tv.models, arch)()
    err = run_both(model, rand(1, 3, 64, 64))
    print(f"{arch}: max relative error {err:.2e}")


# --------------------------------------------------------------- dynamic
def test_dynamic_batch_compiles_once() -> None:
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 8 * 8, 3)).eval()
    batch = torch.export.Dim("batch", max=16)
    exe = lamina.compile(model, example_inputs=(rand(2, 3, 8, 8),), dynamic_shapes=({0: batch},))
    assert str(exe.inputs[0].shape[0]) == "batch"
    for n in (1, 5):
        x = rand(n, 3, 8, 8)
        with torch.no_grad():
            ref = model(x).numpy()
        np.testing.assert_allclose(exe.run(x.numpy())[0], ref, rtol=1e-4, atol=1e-5)
    with pytest.raises(lamina.InputError, match="max=16"):
        exe.run(rand(17, 3, 8, 8).numpy())


# ----------------------------------------------------------------- errors
class Bessel(nn.Module):
    def forward(self, x):
        y = torch.special.bessel_j0(x)  # no converter
        return torch.special.bessel_j1(y) + torch.special.bessel_j0(x * 2)


def test_unsupported_ops_are_listed_at_once() -> None:
    with pytest.raises(UnsupportedOpError) as e:
        lamina.from_torch(Bessel(), (rand(3),))
    msg = str(e.value)
    assert "aten.special_bessel_j0.default" in msg and "aten.special_bessel_j1.default" in msg
    assert "FX nodes 'special_bessel_j0', 'special_bessel_j0_1'" in msg
    assert "test_torch_frontend.py" in msg and "in forward: y = torch.special.bessel_j0(x)" in msg


def test_compile_needs_example_inputs() -> None:
    with pytest.raises(lamina.FrontendError, match="example_inputs="):
        lamina.compile(nn.ReLU())


def test_docs_example_runs() -> None:
    """docs/torch.md's example (marked not run for test_readme, whose install
    has no torch) runs here."""
    text = (ROOT / "docs" / "torch.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for code in blocks:
        exec(compile(code, "docs/torch.md", "exec"), {})


def test_lamina_imports_torch_only_when_asked() -> None:
    import subprocess
    import sys

    code = (
        "import sys, lamina, lamina.frontends.torch, lamina.driver; "
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
