"""viewgrad.optim: SGD/Adam/AdamW follow PyTorch's update rules step for step (torch as the
test-only oracle), update parameters in place under no_grad (the version moves, the object
stays), and zero_grad / state_dict behave as PyTorch's."""
import numpy as np
import pytest

import viewgrad as vg
from viewgrad import nn, optim

CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, amsgrad=True, betas=(0.8, 0.9), weight_decay=0.1)),
]


@pytest.mark.parametrize("name,kw", CONFIGS)
def test_matches_torch(name, kw):
    torch = pytest.importorskip("torch", reason="torch is the test-only oracle")
    rng = np.random.default_rng(0)
    w0, X = rng.standard_normal((3, 4)), rng.standard_normal((5, 3))
    tw = torch.tensor(w0, requires_grad=True)
    vw = vg.tensor(w0, dtype=vg.float64, requires_grad=True)
    to, vo = getattr(torch.optim, name)([tw], **kw), getattr(optim, name)([vw], **kw)
    for _ in range(6):
        to.zero_grad()
        vo.zero_grad()
        (torch.tensor(X) @ tw).tanh().sum().backward()
        (vg.tensor(X, dtype=vg.float64) @ vw).tanh().sum().backward()
        to.step()
        vo.step()
    np.testing.assert_allclose(vw.detach().cpu().numpy(), tw.detach().cpu().numpy(), rtol=1e-10)


@pytest.mark.parametrize("name,kw", CONFIGS)
def test_updates_in_place_and_bumps_version(name, kw):
    p = nn.Parameter(vg.randn(3))
    opt = getattr(optim, name)([p], **kw)
    data_ptr, v = p.data_ptr(), p._version
    (p * p).sum().backward()
    opt.step()
    assert p.data_ptr() == data_ptr and p._version > v and p.is_leaf and p.requires_grad


def test_step_invalidates_graphs_that_saved_the_parameter():
    """The classic mistake: backward through a loss computed before optimizer.step()."""
    w = nn.Parameter(vg.randn(3))
    opt = optim.SGD([w], lr=0.1)
    loss = (w * w).sum()  # MulBackward0 saves w
    loss.backward(retain_graph=True)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_zero_grad():
    p = nn.Parameter(vg.ones(2))
    opt = optim.SGD([p], lr=0.1)
    (p * 3).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert p.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None
    opt.step()  # no grad: nothing happens
    assert p.tolist() == [1.0, 1.0]


def test_param_groups_and_state_dict():
    a, b = nn.Parameter(vg.ones(2)), nn.Parameter(vg.ones(3))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[1]["lr"] == 0.5
    (a.sum() + b.sum()).backward()
    opt.step()
    assert a.tolist() == pytest.approx([0.9, 0.9]) and b.tolist() == pytest.approx([0.5] * 3)
    sd = opt.state_dict()
    assert sd["param_groups"][1]["params"] == [1] and "momentum_buffer" in sd["state"][0]
    opt2 = optim.SGD([{"params": [a]}, {"params": [b]}], lr=1.0, momentum=0.9)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[1]["lr"] == 0.5
    assert opt2.state[a]["momentum_buffer"].tolist() == [1.0, 1.0]


def test_bad_arguments():
    p = nn.Parameter(vg.ones(2))
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.SGD([p], lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum"):
        optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([])
    with pytest.raises(TypeError, match="iterable of Tensors"):
        optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([p * 2], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
