"""Note [products with zeros] (ops/stats.py): prod's and cumprod's backward follow PyTorch's
prod_backward branch for branch — ``grad * result / x`` with no zero in the input (an
infinite entry's gradient is inf/inf = NaN there), the product of the others with zeros,
all zeros for the full product with two zeros or more outside create_graph — so the
gradients at 0, -0, inf, NaN and overflowing products are torch 2.13's, bit for bit."""
import math

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors through .numpy()")

INF, NAN = math.inf, math.nan
VALUES = (0.0, -0.0, 1.0, 2.0, -3.0, INF, -INF, NAN, 1e200, 1e-300, 0.5)
FIXED = ([2.0, INF, 3.0], [0.0, INF, 3.0], [INF, INF, 2.0], [0.0, 0.0, INF], [NAN, 1.0, 2.0],
         [0.0, NAN, 2.0], [1e200, 1e200, 1e-300], [-INF, 2.0, 0.0], [], [5.0])


def _cases():
    rng = np.random.default_rng(7)
    out = list(FIXED)
    for _ in range(120):
        out.append([float(rng.choice(VALUES)) for _ in range(int(rng.integers(1, 5)))])
    return out


def _grad(M, c, kind, create):
    x = M.tensor(c, dtype=M.float64, requires_grad=True)
    if kind == "all":
        y = x.prod()
    elif kind == "dim":
        y = x.reshape(1, -1).prod(1).sum()
    elif kind == "dim_keepdim":
        y = x.reshape(1, -1).prod(1, keepdim=True).sum()
    else:   # one entry per slice
        y = x.reshape(-1, 1).prod(1).sum() if len(c) else x.sum()
    g, = M.autograd.grad(y, x, create_graph=create)
    return g.detach().numpy()


@pytest.mark.parametrize("create", [False, True])
@pytest.mark.parametrize("kind", ["all", "dim", "dim_keepdim", "dim_single"])
def test_prod_gradients_at_special_values_are_torchs(kind, create):
    torch = torch_or_skip()
    for c in _cases():
        with np.errstate(all="ignore"):
            ours, theirs = _grad(vg, c, kind, create), _grad(torch, c, kind, create)
        assert np.array_equal(ours, theirs, equal_nan=True), (c, ours, theirs)


def _cumprod_grad(M, c, create, dim):
    x = M.tensor(c, dtype=M.float64, requires_grad=True)
    y = x.reshape(2, -1) if dim else x
    g, = M.autograd.grad(y.cumprod(dim).sum(), x, create_graph=create)
    return g.detach().numpy()


@pytest.mark.parametrize("create", [False, True])
def test_cumprod_gradients_at_special_values_are_torchs(create):
    """cumprod's backward (Note [products with zeros]): before the first zero of a slice,
    at it (up to the second zero), after it; a slice of one entry; as torch, bit for
    bit."""
    torch = torch_or_skip()
    for c in _cases():
        with np.errstate(all="ignore"):
            ours, theirs = _cumprod_grad(vg, c, create, 0), _cumprod_grad(torch, c, create, 0)
        assert np.array_equal(ours, theirs, equal_nan=True), (c, ours, theirs)
        if len(c) % 2 == 0 and c:   # two rows, along dim 1
            with np.errstate(all="ignore"):
                ours, theirs = (_cumprod_grad(vg, c, create, 1),
                                _cumprod_grad(torch, c, create, 1))
            assert np.array_equal(ours, theirs, equal_nan=True), (c, ours, theirs)
