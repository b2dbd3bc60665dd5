"""Every error condition of DESIGN §4 step 1 and §5, with its message."""
import pytest

import viewgrad as vg


def leaf(*shape):
    return vg.randn(*shape, dtype=vg.float64, requires_grad=True)


def test_inplace_on_leaf_requiring_grad():
    a = leaf(3)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation"):
        a.mul_(2)
    assert a._version == 0  # refused before anything changed


def test_inplace_on_leaf_under_no_grad_is_allowed_and_bumps_version():
    a = leaf(3)
    with vg.no_grad():
        a.add_(1)
    assert a._version == 1 and a.is_leaf


def test_inplace_on_view_of_leaf():
    a = leaf(3)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        a[0].mul_(2)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        a[0] = 1.0


@pytest.mark.parametrize("make,node", [
    # PyTorch names the forward op (forward_op_name): UnbindBackward0 -> Unbind
    (lambda b: b.unbind()[0], "Unbind"),
    (lambda b: b.split(1)[1], "Split"),
    (lambda b: b.chunk(3)[2], "Split"),
])
def test_inplace_on_multi_output_view(make, node):
    b = leaf(3).clone()
    v = make(b)
    with pytest.raises(RuntimeError, match=rf"Output \d of {node} is a view and is being "
                                           r"modified inplace\. This view is the output of a "
                                           r"function that returns multiple views.*out-of-place"):
        v.mul_(2)


def test_multi_output_view_without_grad_is_fine():
    b = vg.randn(3)
    v = b.unbind()[0]
    v.mul_(2)
    assert b._version == 1


def test_view_made_in_no_grad_then_modified_with_grad():
    b = leaf(3).clone()
    with vg.no_grad():
        v = b[:2]
    assert v.requires_grad and v.grad_fn is None  # like PyTorch
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being "
                                           "modified inplace with grad mode enabled"):
        v.mul_(2)
    with vg.no_grad():
        v.mul_(2)  # both inside no_grad: allowed


def test_view_returned_by_custom_function():
    class Identity(vg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x  # an input returned as-is becomes a view

        @staticmethod
        def backward(ctx, g):
            return g

    b = leaf(3).clone()
    out = Identity.apply(b)
    assert out._base is b
    with pytest.raises(RuntimeError, match="Output 0 of Identity is a view and is being "
                                           "modified inplace. This view was created inside a "
                                           "custom Function.*cloning the output"):
        out.mul_(2)
    out.clone().mul_(2)  # the advice works


def test_overlapping_memory():
    b = leaf(3).clone()
    e = b.expand(2, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor "
                                           "refers to a single memory location. Please clone"):
        e.add_(1)
    with pytest.raises(RuntimeError, match="single memory location"):
        e.zero_()   # (with a graph; PyTorch refuses its backward instead)
    z = vg.zeros(3)
    z.expand(4, 3).fill_(2.0)   # no graph: a fill writes one value, as PyTorch allows
    assert z.tolist() == [2.0, 2.0, 2.0]


def test_saved_input_modified():
    a = leaf(3)
    b = a.clone()
    y = b * b
    b.add_(1)
    with pytest.raises(RuntimeError) as ei:
        y.sum().backward()
    msg = str(ei.value)
    assert msg.startswith("one of the variables needed for gradient computation has been "
                          "modified by an inplace operation: [float64 [3]], which is output 0 "
                          "of Add, is at version 1; expected version 0 instead. Hint:")


def test_saved_output_modified_through_view():
    a = leaf(3)
    e = a.exp()
    e[1].mul_(2)  # exp saved its result; modifying it through a view breaks backward
    with pytest.raises(RuntimeError, match=r"\[float64 \[3\]\], which is output 0 of "
                                           r"Exp, is at version 1; expected version 0"):
        e.sum().backward()


def test_exp_saves_result_so_modifying_input_is_fine():
    a = leaf(3)
    b = a.clone()
    e = b.exp()
    b.add_(1)
    e.sum().backward()  # no error: exp saved its output, not its input
    assert a.grad is not None


def test_mul_by_constant_saves_nothing():
    a = leaf(3)
    b = a.clone()
    y = b * 2
    b.add_(1)
    y.sum().backward()  # nothing saved: fine


def test_detach_shares_version_counter():
    a = leaf(3)
    b = a.clone()
    y = b * b
    b.detach()[0].add_(1)  # a disjoint-looking alias still bumps the shared counter
    assert b._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_data_bypasses_version_counter():
    a = leaf(3)
    b = a.clone()
    y = b * b
    b.data.add_(1)  # .data: new version counter, silently wrong grads (documented)
    assert b._version == 0
    y.sum().backward()


def test_second_backward_error_and_retain_graph():
    a = leaf(3)
    y = (a * a).sum()
    y.backward(retain_graph=True)
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_leaf_version_moved_under_no_grad_then_saved_check():
    a = leaf(3)
    y = a * a
    with vg.no_grad():
        a.add_(1)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        y.sum().backward()


@pytest.mark.parametrize("fn,msg", [
    (lambda: vg.ones(2, 3) + vg.ones(4),
     r"The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton dimension 1"),
    (lambda: vg.ones(2, 3) @ vg.ones(2, 3), r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"),
    (lambda: vg.ones(3, requires_grad=True).mul(2).backward(), "grad can be implicitly created only for scalar outputs"),
    (lambda: vg.ones(3).sum().backward(), "does not require grad and does not have a grad_fn"),
    (lambda: vg.autograd.grad(vg.ones(3, requires_grad=True).sum(), vg.ones(3)), "does not require grad"),
    (lambda: vg.ones(2, 3, dtype=vg.float32) @ vg.ones(3, 2, dtype=vg.float64), "same dtype"),
    (lambda: vg.ones(2, 3).view(4), r"shape '\[4\]' is invalid for input of size 6"),
    (lambda: vg.ones(2, 3).t().view(6), "Use .reshape"),
    (lambda: vg.ones(3)[5], "out of bounds"),
    (lambda: vg.ones(3).add_(vg.ones(2, 3)), "doesn't match the broadcast shape"),
    (lambda: vg.ones(1).add_(vg.ones(3)), "doesn't match the broadcast shape"),
    # (PyTorch's infer_size words: the operands do not broadcast at all)
    (lambda: vg.ones(3).mul_(vg.ones(2)), "must match the size of tensor b"),
    (lambda: vg.ones(3, dtype=vg.int64).div_(2), "can't be cast to the desired output type"),
    (lambda: vg.ones(3, dtype=vg.int64).requires_grad_(), "floating point"),
])
def test_bad_input_errors(fn, msg):
    with pytest.raises((RuntimeError, ValueError, IndexError), match=msg):
        fn()
