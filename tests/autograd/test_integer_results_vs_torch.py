"""Note [integer results have no history], against PyTorch: a result of an integer or
bool dtype never requires grad and has no grad_fn, whatever its inputs, so no gradient
flows back through a cast to an integer. Before, ``x.long()`` kept a ToCopyBackward0
and ``(x.long() * x).sum()`` gave x the gradient 2x where PyTorch gives x.long(): a
silently wrong gradient."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .numpy()")

PROGRAMS = {
    "long times x": lambda M, x: x.long() * x,
    "int32 then float": lambda M, x: x.to(M.int32).float() * x,
    "round then long": lambda M, x: (x * 3).round().long() * x + x,
    "int sum": lambda M, x: x.int().sum() * x,
    "to(dtype=) keyword": lambda M, x: x.to(dtype=M.int64).double() * x.sin(),
    "type(LongTensor)": lambda M, x: x.type(M.LongTensor).to(x.dtype) * x,
    "bool mask times x": lambda M, x: (x > 2).to(x.dtype) * x,
    "copy_ into an int": lambda M, x: M.zeros(3, dtype=M.int64).copy_(x * 2) * x,
    "setitem into an int": lambda M, x: _setitem(M, x),
    "int view written": lambda M, x: _int_view(M, x),
    "floor_divide by int": lambda M, x: (x.long() // 2).double() * x,
}


def _setitem(M, x):
    b = M.zeros(3, dtype=M.int64)
    b[1:] = (x * 2)[:2]
    return b * x


def _int_view(M, x):
    base = M.zeros(4, dtype=M.int64)
    base[1:].copy_(x * 3)
    return base[1:] * x


def _run(M, name):
    x = M.tensor([1.5, 2.5, -0.5], dtype=M.float64, requires_grad=True)
    out = PROGRAMS[name](M, x)
    out.sum().backward()
    return out.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_gradients_never_flow_through_integers_as_torch(name):
    torch = torch_or_skip()
    ours, theirs = _run(vg, name), _run(torch, name)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b)


@pytest.mark.parametrize("cast", ["long", "int", "short", "bool", "to_int8", "argmax",
                                  "max_indices", "floor_long", "sum_of_int"])
def test_integer_results_have_no_grad_fn(cast):
    torch = torch_or_skip()

    def run(M):
        x = M.tensor([1.5, 2.5], requires_grad=True) * 1
        y = {"long": lambda: x.long(), "int": lambda: x.int(), "short": lambda: x.short(),
             "bool": lambda: x.bool(), "to_int8": lambda: x.to(M.int8),
             "argmax": lambda: x.argmax(), "max_indices": lambda: x.max(0)[1],
             "floor_long": lambda: x.floor().long(),
             "sum_of_int": lambda: x.long().sum()}[cast]()
        return y.requires_grad, y.grad_fn is None, y.is_leaf
    assert run(vg) == run(torch) == (False, True, True)
