"""What a node saves when only some inputs need a gradient, as PyTorch's generated code
saves it: a value two formulas take is saved whatever needs a gradient (addcdiv's
tensor2, so modifying it breaks the backward); a value one formula takes is saved only
for that input (index_add's index: with a source that needs no gradient, the graph can be
run twice); and a stale no_grad view's ``.grad`` reads None."""
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip


def _addcdiv_tensor2_modified(L):
    a = L.tensor([1., 2.], requires_grad=True)
    b = a * 1
    t = L.tensor([3., 4.])
    b.addcdiv_(t, t)
    t.mul_(2)
    b.sum().backward()
    return a.grad.tolist()


def _addcdiv_backward_twice(L):
    a = L.tensor([1., 2.], requires_grad=True)
    t = L.tensor([3., 4.])
    y = L.addcdiv(a, t, t)
    y.sum().backward()
    y.sum().backward()
    return a.grad.tolist()


def _index_add_backward_twice(L):
    a = L.ones(2, requires_grad=True)
    x = a.clone()
    x.index_add_(0, L.tensor([0]), L.ones(1))
    x.sum().backward()
    x.sum().backward()
    return a.grad.tolist()


def _scatter_add_backward_twice(L):
    a = L.ones(3, requires_grad=True)
    y = a.scatter_add(0, L.tensor([0, 2]), L.ones(2))
    y.sum().backward()
    y.sum().backward()
    return a.grad.tolist()


def _index_add_index_modified(L):
    a = L.ones(3, requires_grad=True)
    i = L.tensor([0, 2])
    y = a.index_add(0, i, L.ones(2))
    i.add_(0)
    y.sum().backward()
    return a.grad.tolist()


def _stale_no_grad_view_grad(L):
    a = L.ones(3, requires_grad=True)
    b = a.clone()
    with L.no_grad():
        v = b[0:1]
    b.mul_(2)
    return v.grad


@pytest.mark.parametrize("fn", [_addcdiv_tensor2_modified, _addcdiv_backward_twice,
                                _index_add_backward_twice, _scatter_add_backward_twice,
                                _index_add_index_modified, _stale_no_grad_view_grad],
                         ids=lambda f: f.__name__)
def test_as_torch(fn):
    torch = torch_or_skip()
    out = []
    for L in (vg, torch):
        try:
            out.append(("ok", fn(L)))
        except RuntimeError as e:
            out.append(("raises", "modified by an inplace operation" in str(e),
                        "second time" in str(e)))
    assert out[0] == out[1]


def test_detach_in_inference_mode_changes_nothing_as_torch():
    """Inference mode skips autograd's kernels, detach_'s too: PyTorch keeps the history."""
    torch = torch_or_skip()
    out = []
    for L in (vg, torch):
        a = L.ones(3, requires_grad=True)
        b = a * 2
        w = (a * 1)[:2]
        with L.inference_mode():
            b.detach_()
            w.detach_()   # (a view: not refused either)
            a.detach_()
        out.append((b.requires_grad, type(b.grad_fn).__name__, w.requires_grad,
                    a.requires_grad))
    assert out[0] == out[1]
