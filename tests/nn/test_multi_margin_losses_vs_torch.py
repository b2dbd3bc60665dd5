"""multi_margin_loss and multilabel_margin_loss (functional and modules) against torch 2.13
(values and gradients for every reduction, batched and single samples), finite
differences, and PyTorch's refusals."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import raised, torch_or_skip

RNG = np.random.default_rng(2)
X = RNG.standard_normal((4, 5))
IDX = RNG.integers(0, 5, 4)
W = RNG.random(5) + 0.5
MT = np.array([[3, 0, -1, 1, 2], [1, -1, 0, 0, 0], [4, 3, 2, 1, 0], [-1, 2, 3, 0, 1]])
CASES = {
    "multi_margin": lambda M, a, r: M.nn.functional.multi_margin_loss(a, M.tensor(IDX),
                                                                      reduction=r),
    "multi_margin_p2_weight": lambda M, a, r: M.nn.functional.multi_margin_loss(
        a, M.tensor(IDX), p=2, margin=0.7, weight=M.tensor(W), reduction=r),
    "multi_margin_single": lambda M, a, r: M.nn.functional.multi_margin_loss(
        a[0], M.tensor(IDX[0]), reduction=r),
    "multi_margin_module": lambda M, a, r: M.nn.MultiMarginLoss(margin=0.5, reduction=r)(
        a, M.tensor(IDX)),
    "multilabel_margin": lambda M, a, r: M.nn.functional.multilabel_margin_loss(
        a, M.tensor(MT), reduction=r),
    "multilabel_margin_single": lambda M, a, r: M.nn.functional.multilabel_margin_loss(
        a[1], M.tensor(MT[1]), reduction=r),
    "multilabel_margin_module": lambda M, a, r: M.nn.MultiLabelMarginLoss(reduction=r)(
        a, M.tensor(MT)),
}


def _run(M, name, reduction):
    a = M.tensor(X, requires_grad=True)
    loss = CASES[name](M, a, reduction)
    (loss * M.tensor(np.arange(1.0, loss.numel() + 1).reshape(tuple(loss.shape)))).sum() \
        .backward()
    return np.array(loss.tolist()), a.grad.cpu().numpy() if M is vg else a.grad.numpy()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_torch(name, reduction):
    torch = torch_or_skip()
    for ours, theirs in zip(_run(vg, name, reduction), _run(torch, name, reduction)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    assert vg.autograd.gradcheck(lambda a: CASES[name](vg, a, "sum"),
                                 (vg.tensor(X, requires_grad=True),))


REFUSALS = {
    "p3": lambda M: M.nn.functional.multi_margin_loss(M.ones(2, 3), M.tensor([0, 1]), p=3),
    "target_range": lambda M: M.nn.functional.multi_margin_loss(M.ones(2, 3),
                                                                M.tensor([0, 3])),
    "multilabel_shape": lambda M: M.nn.functional.multilabel_margin_loss(
        M.ones(2, 3), M.tensor([0, 1])),
    "module_p3": lambda M: M.nn.MultiMarginLoss(p=3),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusals_match_torch(name):
    torch = torch_or_skip()
    ours, theirs = raised(lambda: REFUSALS[name](vg)), raised(lambda: REFUSALS[name](torch))
    assert theirs is not None and ours is not None, (ours, theirs)
    assert ours[0] == theirs[0], (ours, theirs)


def test_multi_margin_double_backward_node_as_torch():
    # PyTorch's NotImplemented node lists only the inputs that need a gradient (the
    # incoming gradient here does not), and refuses when reached
    torch = torch_or_skip()
    out = []
    for M in (torch, vg):
        x = M.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
        g, = M.autograd.grad(M.nn.functional.multi_margin_loss(x, M.tensor([0, 1, 3])), x,
                             create_graph=True)
        edges = [None if f is None else type(f).__name__ for f, _ in g.grad_fn.next_functions]
        out.append((g.grad_fn.name(), edges, raised(lambda: g.sum().backward())))
    assert out[1] == out[0]
