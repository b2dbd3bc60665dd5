"""AccumulateGrad and the gradient layout contract (tested through strides and identity)."""
import numpy as np

import viewgrad as vg


def test_dense_non_contiguous_param_gets_grad_with_its_strides():
    p = vg.randn(3, 2).t().requires_grad_()     # (2, 3) with strides (1, 2)
    assert p.stride() == (1, 2) and p.is_leaf
    (p * 2).sum().backward()
    assert p.grad.stride() == (1, 2)            # PyTorch: same strides as the param
    np.testing.assert_allclose(p.grad.cpu().numpy(), 2.0)


def test_non_dense_param_gets_row_major_grad():
    p = vg.randn(6, 4)[:, ::2].requires_grad_()  # strides (4, 2): not dense
    (p * 2).sum().backward()
    assert p.stride() == (4, 2) and p.grad.stride() == (2, 1)


def test_stolen_gradient_is_the_very_buffer():
    x = vg.randn(4, requires_grad=True)
    seen = {}

    def spy(g):
        seen["ptr"] = g.data_ptr()  # keep no reference to g, so it can be stolen
    x.register_hook(spy)
    (x * 3).sum().backward()
    assert x.grad.data_ptr() == seen["ptr"]
    assert x.grad_fn is None and x.grad.grad_fn is None
    acc = x.grad_fn or (x * 1).grad_fn.next_functions[0][0]
    assert acc.name() == "torch::autograd::AccumulateGrad"


def test_gradient_still_referenced_is_copied():
    x = vg.randn(4, requires_grad=True)
    g = vg.ones(4)
    (x * 1).backward(g)      # MulBackward0 makes a new tensor: stolen (no one else holds it)
    y = x.detach().clone().requires_grad_()
    y.backward(g)            # the leaf's gradient IS the user's g, which the user holds
    assert y.grad.data_ptr() != g.data_ptr()
    np.testing.assert_allclose(y.grad.cpu().numpy(), 1.0)


def test_accumulate_in_place_when_grad_mode_off():
    x = vg.randn(3, requires_grad=True)
    (x * 2).sum().backward()
    first = x.grad
    ptr = first.data_ptr()
    (x * 3).sum().backward()
    assert x.grad is first and x.grad.data_ptr() == ptr   # in place
    np.testing.assert_allclose(x.grad.cpu().numpy(), 5.0)


def test_accumulate_out_of_place_under_create_graph():
    x = vg.randn(3, dtype=vg.float64, requires_grad=True)
    (x * x).sum().backward(create_graph=True)
    first = x.grad
    assert first.grad_fn is not None            # differentiable (copied under grad mode)
    (x * x).sum().backward(create_graph=True)
    assert x.grad is not first and x.grad.grad_fn is not None
    np.testing.assert_allclose(x.grad.detach().cpu().numpy(), 4 * x.detach().cpu().numpy())
    # the gradient of the gradient flows
    (gg,) = vg.autograd.grad(x.grad.sum(), x)
    np.testing.assert_allclose(gg.cpu().numpy(), 4.0)


def test_accumulate_grad_node_is_unique_and_weakly_held():
    import gc
    import weakref
    x = vg.randn(3, requires_grad=True)
    a1 = (x * 1).grad_fn.next_functions[0][0]
    y = x * 2
    assert y.grad_fn.next_functions[0][0] is a1
    ref = weakref.ref(a1)
    del a1, y
    gc.collect()
    assert ref() is None  # the leaf does not keep its accumulator alive


def test_accumulation_across_backward_calls():
    x = vg.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(3):
        (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), [6.0, 12.0])
    x.grad = None
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), [2.0, 4.0])
