"""An optimizer's groups and state read as PyTorch's (Note [an optimizer's group keys],
Note [an optimizer's counters as tensors], viewgrad/optim/__init__.py): every group key
PyTorch's has, in its order, with the values given; the state's entries with the same
names and kinds (a step count is a 0-d float tensor); SGD without momentum keeps no
state. Each optimizer takes three steps from the same weights on both sides."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

CASES = [("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
         ("Adam", {}), ("Adam", {"amsgrad": True, "weight_decay": 0.1}),
         ("Adam", {"decoupled_weight_decay": True}), ("AdamW", {}), ("RMSprop", {}),
         ("RMSprop", {"momentum": 0.9, "centered": True}), ("Adagrad", {"lr_decay": 0.1}),
         ("Adadelta", {}), ("Adamax", {}), ("NAdam", {}), ("NAdam", {"decoupled_weight_decay": True}),
         ("RAdam", {}), ("ASGD", {"t0": 1}), ("Rprop", {}), ("SGD", {"lr": 0.1, "foreach": True}),
         ("Adam", {"foreach": False, "fused": None, "capturable": False})]


def _kind(v):
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return ("tensor", str(v.dtype).split(".")[-1], tuple(v.shape))
    return type(v).__name__


def _run(M, name, kw):
    m = M.nn.Linear(2, 1)
    with M.no_grad():
        m.weight.copy_(M.tensor([[0.3, -0.2]]))
        m.bias.copy_(M.tensor([0.1]))
    opt = getattr(M.optim, name)(m.parameters(), **kw)
    x, y = M.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, -1.0]]), M.tensor([[1.0], [0.0], [2.0]])
    for _ in range(3):
        opt.zero_grad()
        M.nn.functional.mse_loss(m(x), y).backward()
        opt.step()
    sd = opt.state_dict()
    groups = [list((k, v) for k, v in g.items()) for g in sd["param_groups"]]
    state = {i: {k: _kind(v) for k, v in s.items()} for i, s in sd["state"].items()}
    values = {i: {k: np.asarray(v.detach().cpu().numpy() if hasattr(v, "detach") else v,
                                dtype=np.float64) for k, v in s.items()}
              for i, s in sd["state"].items()}
    return groups, state, values, repr(opt)


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_groups_and_state_are_torchs(name, kw):
    torch = torch_or_skip()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = _run(vg, name, kw), _run(torch, name, kw)
    assert ours[0] == theirs[0]           # every key, in PyTorch's order, same values
    assert ours[1] == theirs[1]           # the same entries, of the same kinds
    assert ours[3] == theirs[3]           # repr(optimizer)
    for i in theirs[2]:
        for k in theirs[2][i]:
            np.testing.assert_allclose(ours[2][i][k], theirs[2][i][k], rtol=1e-4, atol=1e-6,
                                       err_msg=f"{name} state[{i}][{k!r}]")


def test_step_count_is_a_tensor_and_an_old_count_still_loads():
    p = vg.zeros(2, requires_grad=True)
    opt = vg.optim.Adam([p])
    p.grad = vg.ones(2)
    opt.step()
    step = opt.state[p]["step"]
    assert isinstance(step, vg.Tensor) and step.item() == 1.0 and step.dim() == 0
    sd = opt.state_dict()
    sd["state"][0]["step"] = 7   # a count saved as a number (an earlier viewgrad)
    opt2 = vg.optim.Adam([p])
    opt2.load_state_dict(sd)
    p.grad = vg.ones(2)
    opt2.step()
    assert opt2.state[p]["step"].item() == 8.0


def test_sgd_without_momentum_keeps_no_state():
    p = vg.zeros(2, requires_grad=True)
    opt = vg.optim.SGD([p], lr=0.1)
    p.grad = vg.ones(2)
    opt.step()
    assert opt.state_dict()["state"] == {} and len(opt.state) == 0
