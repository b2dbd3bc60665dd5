"""F.pdist as PyTorch records it: one PdistBackward0 node (saved self, p, result) whose
gradient is PyTorch's _pdist_backward — values and gradients on random rows with ties,
duplicates and every kind of p — and a double backward that records
PdistBackwardBackward0 and refuses when reached, as torch's does."""
import math

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compared with torch CPU tensors through .numpy()")

PS = [0, 0.5, 1, 1.5, 2, 3, math.inf]


def _run(M, x, p):
    t = M.tensor(x, requires_grad=True)
    y = M.nn.functional.pdist(t, p)
    fn = y.grad_fn
    info = (fn.name(), fn._saved_p, tuple(fn._saved_result.shape), fn._saved_self is t)
    y.backward(M.tensor(np.linspace(-1.0, 2.0, y.shape[0])))
    return y.detach().numpy(), t.grad.numpy(), info


@pytest.mark.parametrize("p", PS)
def test_values_gradients_and_node_as_torch(p):
    torch = torch_or_skip()
    rng = np.random.default_rng(int(p * 10) if p != math.inf else 99)
    for _ in range(40):
        # (n >= 1: torch 2.13's pdist backward crashes the process on a (0, m>0) input)
        n, m = int(rng.integers(1, 6)), int(rng.integers(0, 4))
        x = rng.standard_normal((n, m))
        if n > 1 and rng.random() < 0.3:
            x[1] = x[0]                     # a zero distance
        if rng.random() < 0.3:
            x = np.round(x)                 # ties (the inf-norm's maxima)
        ours, theirs = _run(vg, x, p), _run(torch, x, p)
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-11, atol=1e-14)
        assert ours[2] == theirs[2]


def test_double_backward_refuses_as_torch():
    torch = torch_or_skip()
    out = []
    for M in (torch, vg):
        x = M.tensor(np.random.default_rng(0).standard_normal((4, 3)), requires_grad=True)
        g, = M.autograd.grad(M.nn.functional.pdist(x, 1.5).sum(), x, create_graph=True)
        edges = [None if f is None else type(f).__name__ for f, _ in g.grad_fn.next_functions]
        with pytest.raises(NotImplementedError) as e:
            g.sum().backward()
        out.append((g.grad_fn.name(), edges, str(e.value)))
    assert out[1] == out[0]


def test_first_order_gradcheck():
    x = vg.tensor(np.random.default_rng(2).standard_normal((4, 3)), requires_grad=True)
    for p in (0.5, 1.5, 2, 3):
        assert vg.autograd.gradcheck(lambda t: vg.nn.functional.pdist(t, p), (x,))
