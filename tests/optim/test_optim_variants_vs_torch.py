"""Adamax, NAdam, RAdam, ASGD and Rprop against torch 2.13: six steps of a small problem
for every option combination, in float64 and float32 (PyTorch keeps some of their numbers
in 0-d float32 tensors: viewgrad rounds them the same way), and PyTorch's refusals."""
import itertools

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import raised, torch_or_skip

GRID = {
    "Adamax": dict(lr=[0.05], weight_decay=[0, 0.1], maximize=[False, True]),
    "NAdam": dict(lr=[0.05], weight_decay=[0, 0.1], momentum_decay=[0.004, 0.01],
                  decoupled_weight_decay=[False, True], maximize=[False, True]),
    "RAdam": dict(lr=[0.05], betas=[(0.9, 0.999), (0.5, 0.6)], weight_decay=[0, 0.1],
                  decoupled_weight_decay=[False, True], maximize=[False, True]),
    "ASGD": dict(lr=[0.05], lambd=[1e-4, 0.1], t0=[2, 1e6], weight_decay=[0, 0.1],
                 maximize=[False, True]),
    "Rprop": dict(lr=[0.01], etas=[(0.5, 1.2), (0.3, 1.5)], step_sizes=[(1e-6, 50), (1e-3, 0.02)],
                  maximize=[False, True]),
}
CONFIGS = [(name, dict(zip(g, vals))) for name, g in GRID.items()
           for vals in itertools.product(*g.values())]


def _run(M, name, kw, dtype, steps=6):
    rng = np.random.default_rng(0)
    w0, x = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))
    w = M.nn.Parameter(M.tensor(w0, dtype=getattr(M, dtype)))
    opt = getattr(M.optim, name)([w], **kw)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((M.tensor(x, dtype=getattr(M, dtype)) @ w.T).tanh() ** 2).sum() \
            + (w ** 4).sum() * 0.01
        loss.backward()
        opt.step()
    return np.array(w.detach().tolist())


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,kw", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in
                                                  enumerate(CONFIGS)])
def test_steps_match_torch(name, kw, dtype):
    torch = torch_or_skip()
    tol = dict(rtol=1e-9, atol=1e-11) if dtype == "float64" else dict(rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(_run(vg, name, kw, dtype), _run(torch, name, kw, dtype), **tol)


REFUSALS = {
    "Adamax lr": ("Adamax", dict(lr=-1)),
    "NAdam momentum_decay": ("NAdam", dict(momentum_decay=-1)),
    "RAdam beta": ("RAdam", dict(betas=(1.0, 0.9))),
    "RAdam eps": ("RAdam", dict(eps=-1)),
    "ASGD weight_decay": ("ASGD", dict(weight_decay=-1)),
    "Rprop etas": ("Rprop", dict(etas=(1.5, 1.2))),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refusals_match_torch(case):
    torch = torch_or_skip()
    name, kw = REFUSALS[case]
    ours = raised(lambda: getattr(vg.optim, name)([vg.nn.Parameter(vg.ones(2))], **kw))
    theirs = raised(lambda: getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))],
                                                       **kw))
    assert ours == theirs and theirs is not None
