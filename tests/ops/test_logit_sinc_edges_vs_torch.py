"""logit and sinc backward at their edges, as torch 2.13 computes them: logit's gradient
outside [0, 1] is NaN (logit itself is), not ``grad / (x (1 - x))``; sinc's is 0 wherever
``x * x * pi`` is 0 — at 0 and where x² underflows (1e-310 gave NaN) — and elsewhere
``(grad * (pi x cos(pi x) - sin(pi x))) / (x * x * pi)``, operation for operation, so the
bits are torch's. Plain and create_graph."""
import math

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors through .numpy()")

EDGES = [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 1e-310, -1e-310, 1e-160, 3e-162, 1e-200,
         math.inf, -math.inf, math.nan, 0.999999, 1e-300, 7.5, -3.25, 1e300]


def _grad(M, name, xs, create):
    x = M.tensor(xs, dtype=M.float64, requires_grad=True)
    y = M.sinc(x) if name == "sinc" else M.logit(x)
    g, = M.autograd.grad(y.sum(), x, create_graph=create)
    return g.detach().numpy()


@pytest.mark.parametrize("create", [False, True])
@pytest.mark.parametrize("name", ["sinc", "logit"])
def test_edges_as_torch(name, create):
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    xs = EDGES + list(rng.standard_normal(40) * 3) + list(rng.random(40))
    with np.errstate(all="ignore"):
        ours, theirs = _grad(vg, name, xs, create), _grad(torch, name, xs, create)
    assert np.array_equal(ours, theirs, equal_nan=True), [
        (x, a, b) for x, a, b in zip(xs, ours, theirs) if not (a == b or (a != a and b != b))]


def _second(M, name, xs):
    """The double backward at the edges, w.r.t. x and the incoming gradient: PyTorch
    computes the masked quotient and then masks it, so where the first derivative is
    taken as 0 (sinc at 0, copysign at x == 0) the second is NaN, not a silent 0."""
    x = M.tensor(xs, dtype=M.float64, requires_grad=True)
    go = M.full((len(xs),), 0.75, dtype=M.float64, requires_grad=True)
    y = M.sinc(x) if name == "sinc" else M.copysign(x, -1.5 if name == "copysign_s" else
                                                     M.tensor([1.0, -1.0] * (len(xs) // 2)
                                                              + [1.0] * (len(xs) % 2),
                                                              dtype=M.float64))
    g, = M.autograd.grad(y, x, go, create_graph=True)
    return [t.detach().numpy() for t in M.autograd.grad((g * g).sum(), (x, go))]


@pytest.mark.parametrize("name", ["sinc", "copysign", "copysign_s"])
def test_second_derivatives_at_the_edges_as_torch(name):
    torch = torch_or_skip()
    rng = np.random.default_rng(5)
    xs = [x for x in EDGES if name == "sinc" or abs(x) < 1e300] + list(
        rng.standard_normal(20) * 3)
    with np.errstate(all="ignore"):
        ours, theirs = _second(vg, name, xs), _second(torch, name, xs)
    for a, b in zip(ours, theirs):   # (the same NaNs; values to rounding: the graph of
        # the first backward is built from other, equivalent operations)
        assert np.allclose(a, b, rtol=1e-12, atol=0, equal_nan=True), [
            (x, p, q) for x, p, q in zip(xs, a, b) if not (np.isclose(p, q, rtol=1e-12) or (
                p != p and q != q))]
    assert np.isnan(ours[0][xs.index(0.0)])   # (the edge itself: NaN, as torch)
