"""The activations PyTorch computes in one node are one node here, with PyTorch's node
name and values, gradients and second derivatives: selu and elu (EluBackward0), celu,
gelu(approximate='tanh'), mish, hardsigmoid, hardswish, logsigmoid, glu — and the ones
PyTorch composes (softsign, tanhshrink, softmin, relu6) show PyTorch's composite nodes.
PyTorch is the oracle (skipped, saying why, when it is not installed)."""
import numpy as np
import pytest

import viewgrad as vg

from ..helpers import torch_or_skip

X = np.linspace(-4.5, 4.5, 24).reshape(4, 6) + 0.0123   # away from the kinks at ±3, 0

CASES = {
    "selu": lambda F, x: F.selu(x), "elu": lambda F, x: F.elu(x, 0.5),
    "celu": lambda F, x: F.celu(x, 0.7), "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "gelu": lambda F, x: F.gelu(x), "mish": lambda F, x: F.mish(x),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x), "hardswish": lambda F, x: F.hardswish(x),
    "logsigmoid": lambda F, x: F.logsigmoid(x), "glu": lambda F, x: F.glu(x),
    "glu_dim0": lambda F, x: F.glu(x, 0), "softsign": lambda F, x: F.softsign(x),
    "tanhshrink": lambda F, x: F.tanhshrink(x), "softmin": lambda F, x: F.softmin(x, 1),
    "relu6": lambda F, x: F.relu6(x), "silu": lambda F, x: F.silu(x),
}


def _host(t):
    t = t.detach().cpu()
    return t.numpy(force=True) if hasattr(t, "_is_zerotensor") else t.numpy()


def _run(m, fn):
    x = m.tensor(X, requires_grad=True)
    y = fn(m.nn.functional, x)
    (g,) = m.autograd.grad((y * y).sum(), x, create_graph=True)
    try:
        (gg,) = m.autograd.grad(g.sum(), x)
    except RuntimeError:   # PyTorch: "derivative for aten::hardsigmoid_backward is not
        return y.grad_fn.name(), _host(y), _host(g)   # implemented": first order only
    return y.grad_fn.name(), _host(y), _host(g), _host(gg)


@pytest.mark.parametrize("name", sorted(CASES))
def test_activation_node_is_pytorchs(name):
    torch = torch_or_skip()
    theirs, ours = _run(torch, CASES[name]), _run(vg, CASES[name])
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_glu_needs_an_even_dimension():
    torch = torch_or_skip()
    for m in (torch, vg):
        with pytest.raises(RuntimeError, match="Halving dimension must be even"):
            m.nn.functional.glu(m.zeros(3, 5))
