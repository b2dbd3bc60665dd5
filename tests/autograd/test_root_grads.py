"""The gradients given to backward()/grad() (issue 15): Tensors or None only, as PyTorch
demands — numbers, lists and arrays get PyTorch's TypeError; a wrong shape its RuntimeError;
another dtype is cast to the output's dtype (PyTorch's validate_outputs)."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

GARBAGE = [[1, 2], (1, 2), [[1, 2]], np.array([1.0, 2.0]), 3, 3.0, True, "ab"]
CALLS = {
    "Tensor.backward": lambda m, x, y, g: y.backward(g),
    "autograd.backward": lambda m, x, y, g: m.autograd.backward(y, grad_tensors=g),
    "grad, bare": lambda m, x, y, g: m.autograd.grad(y, x, grad_outputs=g),
    "grad, in a list": lambda m, x, y, g: m.autograd.grad(y, x, grad_outputs=[g]),
}


def _error(m, call, g):
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with pytest.raises(Exception) as info:
        CALLS[call](m, x, y, g)
    return info.value, x


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("g", GARBAGE, ids=repr)
def test_non_tensor_gradients_raise_pytorchs_type_error(call, g):
    err, x = _error(vg, call, g)
    assert type(err) is TypeError
    assert "gradients can be either Tensors or None, but got" in str(err)
    assert x.grad is None
    torch = torch_or_skip()
    terr, _ = _error(torch, call, g)
    assert type(terr) is TypeError
    # PyTorch's own words come first (its message for backward(3) is tuple()'s)
    assert str(err).startswith(str(terr)), (str(err), str(terr))


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("gshape,yshape", [((3,), (2,)), ((1, 2), (2,)), ((), (2,)),
                                           ((1,), ())])
def test_gradient_of_the_wrong_shape(call, gshape, yshape):
    def run(m):
        x = m.ones(yshape, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            CALLS[call](m, x, x * 2, m.ones(gshape))
        return str(info.value)
    msg = run(vg)
    assert msg.startswith("Mismatch in shape: grad_output[0] has a shape of ")
    torch = torch_or_skip()
    assert msg.replace("viewgrad.Size", "torch.Size") == run(torch)


@pytest.mark.parametrize("dtype", ["float64", "float16", "int64", "bool"])
@pytest.mark.parametrize("call", ["Tensor.backward", "grad, bare"])
def test_gradient_of_another_dtype_is_cast_to_the_outputs(call, dtype):
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.retain_grad()
        r = CALLS[call](m, x, y, m.ones(2, dtype=getattr(m, dtype)))
        g = r[0] if r is not None else x.grad
        return str(g.dtype).split(".")[-1], g.tolist(), (
            None if y.grad is None else str(y.grad.dtype).split(".")[-1])
    got = run(vg)
    assert got[0] == "float32" and got[1] == [3.0, 3.0]
    torch = torch_or_skip()
    assert got == run(torch)


def test_float64_output_keeps_its_dtype():
    x = vg.tensor([1.0, 2.0], dtype=vg.float64, requires_grad=True)
    (g,) = vg.autograd.grad(x * 2, x, vg.ones(2))
    assert g.dtype == vg.float64


def test_tensor_and_none_still_work():
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).backward((vg.tensor([1.0, 1.0]),))
    assert x.grad.tolist() == [2.0, 2.0]
    s = vg.tensor(2.0, requires_grad=True)
    (s * 5).backward(None)
    assert s.grad.item() == 5.0
