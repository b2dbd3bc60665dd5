"""The seed example: b = a.clone(); x = b[2]; x.mul_(y)."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import graph_text, short, torch_or_skip


@pytest.fixture(params=[False, True], ids=["geometry", "replay"])
def replay(request):
    vg.autograd.set_view_replay(request.param)
    yield request.param
    vg.autograd.set_view_replay(False)


def seed(M, replay=False):
    a = M.tensor([1.0, 2.0, 3.0], dtype=M.float64, requires_grad=True)
    y = M.tensor(4.0, dtype=M.float64, requires_grad=True)
    b = a.clone()
    x = b[2]
    before = (graph_text(b, "b"), graph_text(x, "x"))
    x.mul_(y)
    return a, y, b, x, before


def test_seed_graph_before_and_after(replay):
    a, y, b, x, before = seed(vg)
    assert before == ("b:\nCloneBackward0\n  AccumulateGrad",
                      "x:\nSelectBackward0\n  CloneBackward0\n    AccumulateGrad")
    cs = b.grad_fn
    assert cs.name() == "torch::autograd::CopySlices" and cs.fn.name() == "MulBackward0"
    nf = cs.next_functions
    assert nf[0][0].name() == "CloneBackward0"
    assert nf[1][0].name() == "torch::autograd::AccumulateGrad" and nf[1][0].variable is y
    # fn's own first edge is the view's OLD grad_fn; CopySlices hides it from the graph.
    assert cs.fn.next_functions[0][0].name() == "SelectBackward0"
    expected_x = "SelectBackward0" if replay else "AsStridedBackward0"
    assert x.grad_fn.name() == expected_x
    assert x.grad_fn.next_functions[0][0] is cs
    assert graph_text(b, "b") == ("b:\nCopySlices (fn=MulBackward0)\n  CloneBackward0\n"
                                  "    AccumulateGrad\n  AccumulateGrad")
    assert x._version == b._version == 1


def test_seed_gradients_finite_differences(replay):
    def f(a, y):
        b = a.clone()
        b[2].mul_(y)
        return (b * vg.tensor([1.0, -2.0, 3.0], dtype=vg.float64)).sum()
    a = vg.tensor([1.0, 2.0, 3.0], dtype=vg.float64, requires_grad=True)
    y = vg.tensor(4.0, dtype=vg.float64, requires_grad=True)
    assert vg.autograd.gradcheck(f, (a, y))
    assert vg.autograd.gradgradcheck(f, (a, y))
    f(a, y).backward()
    np.testing.assert_allclose(a.grad.cpu().numpy(), [1.0, -2.0, 12.0])
    np.testing.assert_allclose(y.grad.cpu().numpy(), 9.0)


def test_seed_matches_torch(replay):
    torch = torch_or_skip()
    torch._C._set_view_replay_enabled(replay)
    try:
        ta, ty, tb, tx, tbefore = seed(torch)
        names = (tb.grad_fn.name(), tx.grad_fn.name(),   # (PyTorch's own name()s, its C++
                 [e[0].name() for e in tb.grad_fn.next_functions])   # namespace included)
    finally:
        torch._C._set_view_replay_enabled(False)
    a, y, b, x, before = seed(vg)
    assert (b.grad_fn.name(), x.grad_fn.name(),
            [e[0].name() for e in b.grad_fn.next_functions]) == names
    # torch's CopySlices does not expose `fn`, so compare the plain names
    assert [line.split(" (")[0] for line in before] == list(tbefore)
    (b * 2).sum().backward()
    (tb * 2).sum().backward()
    np.testing.assert_allclose(a.grad.cpu().numpy(), ta.grad.cpu().numpy())
    np.testing.assert_allclose(y.grad.cpu().numpy(), ty.grad.cpu().numpy())
