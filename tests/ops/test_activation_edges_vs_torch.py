"""Activations and clamp at the edges, against PyTorch: -0. and NaN through the forward
(elu(-0.) is -0., clamp keeps -0. unless it is out of range), and gradients whose zeros
are +0. (PyTorch's backward kernels select 0, they do not multiply by a mask).

Where the input is NaN, PyTorch's own elu/selu/celu/hardtanh/leaky_relu backward kernels disagree
with themselves — the gradient passes or not depending on the dtype, on whether the
element falls in a vectorized block or the scalar tail, on in-place or not — so NaN is
compared only for the ops whose answer PyTorch gives consistently."""
import numpy as np
import pytest

import viewgrad as vg

torch = pytest.importorskip("torch", reason="torch is the oracle of these tests "
                                            "(pip install torch==2.13.0)")

NAN = float("nan")
VALUES = [-1.0, 2.0, 0.5, 0.0, -0.0, -0.5, 6.0, 7.0, -3.0, 3.0, 1.0, -1.0]
WEIGHTS = [2.0, -3.0, 4.0, -5.0, 6.0, -7.0, 8.0, -9.0, 10.0, -11.0, -12.0, 13.0]
CASES = {
    "leaky_relu": lambda F, y: F.leaky_relu(y, 0.1),
    "elu": lambda F, y: F.elu(y),
    "elu_alpha": lambda F, y: F.elu(y, 0.4),
    "selu": lambda F, y: F.selu(y),
    "celu": lambda F, y: F.celu(y, 0.7),
    "hardtanh": lambda F, y: F.hardtanh(y),
    "hardtanh_range": lambda F, y: F.hardtanh(y, -0.5, 2.0),
    "relu6": lambda F, y: F.relu6(y),
    "clamp": lambda F, y: y.clamp(-0.5, 0.5),
    "clamp_min": lambda F, y: y.clamp(min=0.0),
    "clamp_max": lambda F, y: y.clamp(max=0.0),
    "elu_inplace": lambda F, y: F.elu(y, inplace=True),
    "selu_inplace": lambda F, y: F.selu(y, inplace=True),
    "celu_inplace": lambda F, y: F.celu(y, 0.7, inplace=True),
    "hardtanh_inplace": lambda F, y: F.hardtanh(y, -0.5, 2.0, inplace=True),
}


def _run(lib, name, values, dtype):
    dt = getattr(lib, dtype)
    x = lib.tensor(values, dtype=dt, requires_grad=True)
    y = CASES[name](lib.nn.functional, x * 1.0)
    (g,) = (torch if lib is torch else vg).autograd.grad(
        (y * lib.tensor(WEIGHTS[:len(values)], dtype=dt)).sum(), x)
    return np.asarray(y.tolist()), np.asarray(g.tolist())


def _same(a, b):
    assert np.array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_allclose(np.nan_to_num(a), np.nan_to_num(b), rtol=2e-6, atol=1e-7)
    assert np.array_equal(a == 0, b == 0)
    assert np.array_equal(np.signbit(a[a == 0]), np.signbit(b[b == 0]))   # -0. against +0.


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_edges_as_torch(name, dtype):
    for ours, theirs in zip(_run(vg, name, VALUES, dtype), _run(torch, name, VALUES, dtype)):
        _same(ours, theirs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["clamp", "clamp_min", "clamp_max"])
def test_nan_as_torch(name, dtype):
    for values in ([NAN] + VALUES[:6], VALUES[:5] + [NAN] + VALUES[5:11]):
        for ours, theirs in zip(_run(vg, name, values, dtype),
                                _run(torch, name, values, dtype)):
            _same(ours, theirs)
