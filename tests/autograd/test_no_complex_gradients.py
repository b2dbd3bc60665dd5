"""Note [no complex gradients] (autograd/graph.py): viewgrad computes with complex tensors
but refuses to differentiate them — its formulas are real calculus, PyTorch's complex
gradients conjugate Wirtinger derivatives, and before this refusal ``(z * w).abs().sum()``
gave z a gradient that differed from PyTorch's without a word."""
import numpy as np
import pytest

import viewgrad as vg

_WORDS = "viewgrad's autograd computes gradients of real tensors only"
_C64 = vg.tensor([1j]).dtype                  # (viewgrad names no complex dtypes: a
_C128 = vg.tensor(np.array([1j])).dtype        #  complex tensor's dtype serves)


@pytest.mark.parametrize("make", [
    lambda: vg.tensor([1 + 2j], requires_grad=True),
    lambda: vg.tensor([1 + 2j]).requires_grad_(),
    lambda: vg.ones(2, dtype=_C128, requires_grad=True),
    lambda: vg.zeros(2, 2, dtype=_C64).requires_grad_(True),
    lambda: vg.nn.Parameter(vg.tensor([1j, 2.0])),
], ids=["tensor", "requires_grad_", "ones", "zeros", "Parameter"])
def test_a_complex_leaf_cannot_require_grad(make):
    with pytest.raises(RuntimeError, match=_WORDS):
        make()


def _setter():
    t = vg.tensor([1j])
    t.requires_grad = True


@pytest.mark.parametrize("op", [
    lambda x: x * vg.tensor([1j, 2j]),
    lambda x: x.to(_C64),
    lambda x: x + vg.tensor(1 + 1j),
    lambda x: vg.stack([x, x]).to(_C128).sum(),
], ids=["mul", "to", "add_0d", "stack_to"])
def test_an_op_with_a_complex_result_from_a_grad_input_refuses(op):
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=_WORDS):
        op(x)


def test_the_setter_refuses_too():
    with pytest.raises(RuntimeError, match=_WORDS):
        _setter()


def test_complex_values_without_grad_are_computed_as_before():
    z = vg.tensor([1 + 2j, 2 - 1j])
    w = vg.tensor([0.5j, 3.0 + 0j])
    np.testing.assert_allclose((z * w).abs().cpu().numpy(), np.abs(np.array([1 + 2j, 2 - 1j])
                                                               * np.array([0.5j, 3.0])))
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    with vg.no_grad():   # no graph: nothing to differentiate
        assert (x * w).dtype == _C64
    assert (x.detach() * w).grad_fn is None
