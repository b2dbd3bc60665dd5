"""elu, celu, selu and softplus at their kinks and at non-finite inputs, against PyTorch:
first derivatives (a NaN takes elu's slope-1 branch), second derivatives (elu's double
backward masks x < 0, softplus's beta*x < threshold), and the in-place forms."""
import math

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

# (no NaN: torch 2.13 gives elu a NaN its slope 1 or NaN depending on where its
# vectorised loop puts it; viewgrad follows the scalar kernel, x <= 0 the exp branch)
X = [0.0, -0.5, 0.5, -math.inf, math.inf, -0.0, 1e-300, -1e-300]

CASES = {
    "elu": lambda F, x: F.elu(x, 2.0),
    "elu alpha 1": lambda F, x: F.elu(x),
    "celu": lambda F, x: F.celu(x, 2.0),
    "selu": lambda F, x: F.selu(x),
    "softplus at its threshold": lambda F, x: F.softplus(x, 2.0, 1.0),
    "softplus threshold 0": lambda F, x: F.softplus(x, 1.0, 0.0),
    "elu_ of a copy": lambda F, x: F.elu(x * 1, 1.5, inplace=True),
    "selu_ of a copy": lambda F, x: F.selu(x * 1, inplace=True),
}


def _derivatives(L, fn, dtype):
    x = L.tensor(X, dtype=dtype, requires_grad=True)
    g, = L.autograd.grad(fn(L.nn.functional, x).sum(), x, create_graph=True)
    gg, = L.autograd.grad(g.sum(), x)
    return g.detach().tolist(), gg.tolist()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_derivatives_as_torch(name, dtype):
    torch = torch_or_skip()
    got = _derivatives(vg, CASES[name], getattr(vg, dtype))
    want = _derivatives(torch, CASES[name], getattr(torch, dtype))
    tol = 1e-12 if dtype == "float64" else 1e-6
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True)
