"""The losses PyTorch computes in one node are one node here too, with PyTorch's name,
``next_functions``, values, gradients for input AND target, and double backward:
binary_cross_entropy(_with_logits) (weight, pos_weight), smooth_l1_loss (beta; beta=0
falls back to l1 as PyTorch does) and huber_loss, each reduction. PyTorch is the oracle
(skipped, saying why, when it is not installed)."""
import numpy as np
import pytest

import viewgrad as vg

from ..helpers import torch_or_skip

rng = np.random.default_rng(0)
P = rng.uniform(0.05, 0.95, (3, 4))
T = rng.uniform(0, 1, (3, 4))
Z = rng.normal(size=(3, 4)) * 2
W = rng.uniform(0.5, 2, (4,))

CASES = [("binary_cross_entropy", P, {}), ("binary_cross_entropy", P, {"weight": W}),
         ("binary_cross_entropy_with_logits", Z, {}),
         ("binary_cross_entropy_with_logits", Z, {"weight": W, "pos_weight": W * 1.5}),
         ("smooth_l1_loss", Z, {}), ("smooth_l1_loss", Z, {"beta": 0.5}),
         ("smooth_l1_loss", Z, {"beta": 0.0}), ("huber_loss", Z, {"delta": 0.7})]


def _run(m, name, x, extra, reduction):
    xs = [m.tensor(x, requires_grad=True), m.tensor(T, requires_grad=True)]
    kw = {k: (m.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in extra.items()}
    r = getattr(m.nn.functional, name)(*xs, reduction=reduction, **kw)
    grads = m.autograd.grad(r.sum(), xs, create_graph=True)
    second = m.autograd.grad(sum((g * g).sum() for g in grads), xs, allow_unused=True)
    fn = r.grad_fn
    return {"value": _host(r), "grads": [_host(g) for g in grads],
            "second": [np.zeros(x.shape) if g is None else _host(g) for g in second],
            "name": fn.name(), "edges": len(fn.next_functions)}


def _host(t):
    t = t.detach().cpu()
    return t.numpy(force=True) if hasattr(t, "_is_zerotensor") else t.numpy()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name,x,extra", CASES)
def test_loss_node_is_pytorchs(name, x, extra, reduction):
    torch = torch_or_skip()
    theirs, ours = _run(torch, name, x, extra, reduction), _run(vg, name, x, extra, reduction)
    assert (ours["name"], ours["edges"]) == (theirs["name"], theirs["edges"])
    np.testing.assert_allclose(ours["value"], theirs["value"], rtol=1e-10)
    for a, b in zip(ours["grads"] + ours["second"], theirs["grads"] + theirs["second"]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_loss_errors_are_pytorchs():
    torch = torch_or_skip()
    for m in (torch, vg):
        F = m.nn.functional
        with pytest.raises(ValueError, match="must be the same as input size"):
            F.binary_cross_entropy_with_logits(m.zeros(3), m.zeros(3, 1))
        with pytest.raises(ValueError, match="is different to the input size"):
            F.binary_cross_entropy(m.zeros(3) + 0.5, m.zeros(3, 1))
        with pytest.raises(RuntimeError, match="between 0 and 1"):
            F.binary_cross_entropy(m.tensor([1.5]), m.tensor([1.0]))
        with pytest.raises(ValueError, match="is not a valid value for reduction"):
            F.huber_loss(m.zeros(2), m.zeros(2), reduction="avg")
