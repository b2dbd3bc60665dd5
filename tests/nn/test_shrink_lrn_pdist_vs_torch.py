"""hardshrink, softshrink (functions, the method, the modules), local_response_norm and
pdist against torch 2.13: values, gradients, node names where PyTorch records one op, NaN
and -0. at the edges, refusals; and finite differences."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import raised, torch_or_skip

EDGES = [float("nan"), -0.5, -0.2, 0.0, -0.0, 0.2, 0.5, 1.0, -3.0]
RNG = np.random.default_rng(4)
CASES = {
    "hardshrink": (np.array(EDGES), lambda M, a: M.nn.functional.hardshrink(a, 0.2)),
    "hardshrink_method": (np.array(EDGES), lambda M, a: a.hardshrink()),
    "hardshrink_module": (np.array(EDGES), lambda M, a: M.nn.Hardshrink(0.3)(a)),
    "softshrink": (np.array(EDGES), lambda M, a: M.nn.functional.softshrink(a, 0.2)),
    "softshrink_module": (np.array(EDGES), lambda M, a: M.nn.Softshrink()(a)),
    "lrn_4d": (RNG.standard_normal((2, 5, 4, 3)),
               lambda M, a: M.nn.functional.local_response_norm(a, 3, 0.3, 0.6, 1.5)),
    "lrn_3d": (RNG.standard_normal((2, 5, 7)), lambda M, a: M.nn.LocalResponseNorm(2)(a)),
    "lrn_5d": (RNG.standard_normal((1, 4, 2, 2, 2)),
               lambda M, a: M.nn.functional.local_response_norm(a, 4, 0.2)),
    "pdist": (RNG.standard_normal((5, 3)), lambda M, a: M.nn.functional.pdist(a)),
    "pdist_p1": (RNG.standard_normal((4, 6)), lambda M, a: M.nn.functional.pdist(a, 1.0)),
    "pdist_p3": (RNG.standard_normal((3, 2)), lambda M, a: M.nn.functional.pdist(a, 3)),
}


def _run(M, name):
    x, f = CASES[name]
    a = M.tensor(x, requires_grad=True)
    y = f(M, a)
    (y * M.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)))).sum().backward()
    node = y.grad_fn.name() if name.startswith(("hard", "soft")) else None
    return np.array(y.tolist()), np.array(a.grad.tolist()), node


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    torch = torch_or_skip()
    ours, theirs = _run(vg, name), _run(torch, name)
    for a, b in zip(ours[:2], theirs[:2]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, equal_nan=True)
        assert np.array_equal(np.signbit(a[a == 0]), np.signbit(b[b == 0]))   # -0. vs +0.
    assert ours[2] == theirs[2]


@pytest.mark.parametrize("name", [n for n in sorted(CASES) if not n.startswith(("hard", "soft"))])
def test_gradcheck(name):
    x, f = CASES[name]
    assert vg.autograd.gradcheck(lambda a: f(vg, a), (vg.tensor(x, requires_grad=True),))


REFUSALS = {
    "softshrink_negative": lambda M: M.nn.functional.softshrink(M.ones(2), -1.0),
    "lrn_2d": lambda M: M.nn.functional.local_response_norm(M.ones(2, 3), 2),
    "pdist_3d": lambda M: M.nn.functional.pdist(M.ones(2, 3, 4)),
    "pdist_negative_p": lambda M: M.nn.functional.pdist(M.ones(2, 3), -1),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusals_match_torch(name):
    torch = torch_or_skip()
    ours, theirs = raised(lambda: REFUSALS[name](vg)), raised(lambda: REFUSALS[name](torch))
    assert theirs is not None and ours == theirs


def test_module_reprs_are_torchs():
    torch = torch_or_skip()
    for make in (lambda M: M.nn.Hardshrink(0.3), lambda M: M.nn.Softshrink(),
                 lambda M: M.nn.LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2.0)):
        assert repr(make(vg)) == repr(make(torch))
