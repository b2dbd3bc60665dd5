"""Adaptive max pooling in one, two and three dims against PyTorch: values, the indices
of the maxima (ties and NaN), gradients, node names, the module's repr, and PyTorch's
refusals (rank, empty dims, output_size, dtype) in PyTorch's order."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .numpy()")


def _case(rng):
    nsp = int(rng.choice([1, 2, 3]))
    sizes = tuple(int(v) for v in rng.integers(1, 7, nsp))
    lead = ((int(rng.integers(1, 3)),) if rng.random() < 0.7 else ()) + (int(rng.integers(1, 3)),)
    a = rng.standard_normal(lead + sizes)
    if rng.random() < 0.4:
        a = np.round(a)   # ties: the first maximum wins
    if rng.random() < 0.15:
        a.flat[rng.integers(a.size)] = np.nan   # NaN wins (the last one)
    if rng.random() < 0.5:
        a = a.astype(np.float32)
    if rng.random() < 0.3:
        out = int(rng.integers(1, 6))
    else:
        out = tuple(int(v) if rng.random() < 0.8 or nsp == 1 else None
                    for v in rng.integers(1, 8, nsp))
    return nsp, a, out


@pytest.mark.parametrize("seed", range(6))
def test_values_indices_and_gradients_as_torch(seed):
    torch = torch_or_skip()
    rng = np.random.default_rng(seed)
    for _ in range(40):
        nsp, a, out = _case(rng)
        name = f"adaptive_max_pool{nsp}d"
        tx = torch.tensor(a, requires_grad=True)
        vx = vg.tensor(a, requires_grad=True)
        ty, ti = getattr(torch.nn.functional, name)(tx, out, True)
        vy, vi = getattr(vg.nn.functional, name)(vx, out, True)
        assert type(vy.grad_fn).__name__ == type(ty.grad_fn).__name__
        assert tuple(vy.shape) == tuple(ty.shape) and vi.dtype == vg.int64
        np.testing.assert_array_equal(vi.numpy(), ti.numpy())
        np.testing.assert_array_equal(vy.detach().numpy(), ty.detach().numpy())
        w = rng.standard_normal(tuple(ty.shape))
        (ty * torch.tensor(w, dtype=ty.dtype)).sum().backward()
        (vy * vg.tensor(w, dtype=vy.dtype)).sum().backward()
        np.testing.assert_allclose(vx.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_second_derivative_and_module():
    torch = torch_or_skip()
    a = np.random.default_rng(1).standard_normal((2, 2, 3, 4, 5))
    outs = []
    for M in (vg, torch):
        x = M.tensor(a, requires_grad=True)
        y = M.nn.AdaptiveMaxPool3d((2, None, 3))(x)
        g, = M.autograd.grad((y * y).sum(), x, create_graph=True)
        gg, = M.autograd.grad((g * g).sum(), x)
        outs.append((y.detach().numpy(), g.detach().numpy(), gg.numpy()))
    for v, t in zip(*outs):
        np.testing.assert_allclose(v, t, rtol=1e-12, atol=1e-12)
    assert str(vg.nn.AdaptiveMaxPool3d((2, 3, None))) == str(torch.nn.AdaptiveMaxPool3d(
        (2, 3, None)))
    assert vg.autograd.gradcheck(lambda x: vg.nn.functional.adaptive_max_pool3d(x, 2),
                                 (vg.tensor(a[0, :1], requires_grad=True),))


def test_empty_batch():
    torch = torch_or_skip()
    for M in (vg, torch):
        x = M.zeros((0, 2, 3, 4, 5), requires_grad=True)
        y = M.nn.functional.adaptive_max_pool3d(x, 2)
        y.sum().backward()
        assert tuple(y.shape) == (0, 2, 2, 2, 2) and tuple(x.grad.shape) == tuple(x.shape)


REFUSALS = [
    ("adaptive_max_pool2d", (2, 3), 2, "float64"),
    ("adaptive_max_pool3d", (2, 3, 4), 2, "float64"),
    ("adaptive_max_pool2d", (1, 0, 3, 4), 2, "float64"),
    ("adaptive_max_pool2d", (2, 0, 4), 2, "float64"),
    ("adaptive_max_pool2d", (0, 3, 4), 2, "float64"),      # dim 0 of an unbatched input
    ("adaptive_max_pool3d", (1, 2, 0, 4, 5), (2, 2, 2), "float64"),
    ("adaptive_max_pool2d", (1, 2, 3, 4), (2, 2, 2), "float64"),
    ("adaptive_max_pool3d", (1, 2, 3, 4, 5), (2, 2), "float64"),
    ("adaptive_max_pool2d", (2, 3), (2, 2, 2), "float64"),
    ("adaptive_max_pool2d", (1, 2, 3, 4), -1, "float64"),
    ("adaptive_max_pool3d", (1, 2, 3, 4, 5), (0, 1, 2), "float64"),
    ("adaptive_max_pool2d", (1, 2, 3, 4), (None, 2), "float64"),
    ("adaptive_max_pool2d", (1, 2, 3, 4), 2, "int64"),
    ("adaptive_max_pool3d", (1, 2, 3, 4, 5), 2, "bool"),
    ("adaptive_max_pool2d", (1, 0, 3, 4), 2, "int64"),     # the empty dim first
    ("adaptive_max_pool1d", (2, 3), (2, 2), "float64"),
    ("adaptive_max_pool1d", (2, 3, 4, 5), 2, "float64"),
    ("adaptive_max_pool1d", (2, 0, 5), 2, "float64"),
    ("adaptive_max_pool1d", (2, 3), 2, "uint8"),
]


@pytest.mark.parametrize("name, shape, out, dtype", REFUSALS)
def test_refusals_as_torch(name, shape, out, dtype):
    torch = torch_or_skip()
    results = []
    for M in (vg, torch):
        x = M.zeros(shape, dtype=getattr(M, dtype))
        try:
            results.append(("ok", tuple(getattr(M.nn.functional, name)(x, out).shape)))
        except Exception as e:   # noqa: BLE001 - what each raises is the comparison
            results.append((type(e).__name__, str(e)))
    assert results[0] == results[1]
