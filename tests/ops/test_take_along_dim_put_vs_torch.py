"""take_along_dim and put_ against torch 2.13 (values, gradients, node names, refusals)
and finite differences."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import raised, torch_or_skip

CASES = {
    "dim1": lambda M, x: M.take_along_dim(x, M.tensor([[0], [2]]), 1),
    "dim0_broadcast": lambda M, x: x.take_along_dim(M.tensor([[1], [0]]), 0),
    "flat": lambda M, x: M.take_along_dim(x, M.tensor([5, 0, 5])),
    "negative_dim": lambda M, x: M.take_along_dim(x, M.tensor([[2, 1, 0]]), -1),
    "argsort": lambda M, x: M.take_along_dim(x, x.argsort(1), 1),
    "put_": lambda M, x: (x * 1).put_(M.tensor([1, -2]), M.tensor([7.0, -1.0],
                                                                    dtype=M.float64)),
    "put_accumulate": lambda M, x: (x * 1).put_(M.tensor([1, 1]), M.tensor(
        [7.0, 2.0], dtype=M.float64), accumulate=True),
    "take": lambda M, x: x.take(M.tensor([[5, -6], [0, 1]])),
}


def _run(M, name):
    x = M.tensor([[0.5, -1.0, 2.0], [3.0, 0.25, -4.0]], dtype=M.float64, requires_grad=True)
    y = CASES[name](M, x)
    w = M.arange(float(y.numel()), dtype=M.float64).reshape(tuple(y.shape)) + 1
    (y * w).sum().backward()
    return y.tolist(), x.grad.tolist(), y.grad_fn.name()


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_grads_and_nodes_match_torch(name):
    torch = torch_or_skip()
    assert _run(vg, name) == _run(torch, name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    x = vg.tensor(np.random.default_rng(0).standard_normal((2, 3)), requires_grad=True)
    assert vg.autograd.gradcheck(lambda t: CASES[name](vg, t), (x,))


REFUSALS = {
    "float_indices": lambda M: M.take_along_dim(M.ones(2, 3), M.tensor([[0.0]]), 1),
    "fewer_dims": lambda M: M.take_along_dim(M.ones(2, 3), M.tensor([0]), 0),
    "dim_range": lambda M: M.take_along_dim(M.ones(2, 3), M.tensor([[0]]), 2),
    "put_out_of_range": lambda M: M.ones(2, 3).put_(M.tensor([6]), M.tensor([1.0])),
    "put_negative_out_of_range": lambda M: M.ones(2, 3).put(M.tensor([-7]), M.tensor([1.0])),
    "take_out_of_range": lambda M: M.ones(2, 3).take(M.tensor([0, 6])),
    "put_dtypes": lambda M: M.ones(2, 3).put(M.tensor([0]), M.tensor([1.0], dtype=M.float64)),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusals_match_torch(name):
    torch = torch_or_skip()
    ours, theirs = raised(lambda: REFUSALS[name](vg)), raised(lambda: REFUSALS[name](torch))
    assert theirs is not None and ours is not None, (ours, theirs)
    assert ours[0] == theirs[0] and ours[1].startswith(theirs[1][:30]), (ours, theirs)
