"""Custom autograd.Function: forward/backward, save_for_backward (version-checked),
needs_input_grad, mark_dirty, mark_non_differentiable, once_differentiable."""
import numpy as np
import pytest

import viewgrad as vg


class Cube(vg.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x ** 3 * scale

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2 * ctx.scale, None


def test_custom_function_forward_backward_and_name():
    x = vg.randn(4, dtype=vg.float64, requires_grad=True)
    y = Cube.apply(x, 2.0)
    assert y.grad_fn.name() == "CubeBackward"
    assert y.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    assert vg.autograd.gradcheck(lambda t: Cube.apply(t, 2.0), (x,))
    assert vg.autograd.gradgradcheck(lambda t: Cube.apply(t, 2.0), (x,))


def test_needs_input_grad():
    got = {}

    class F(vg.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            got["n"] = ctx.needs_input_grad
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, g

    F.apply(vg.ones(2, requires_grad=True), vg.ones(2))
    assert got["n"] == (True, False)


def test_saved_tensor_version_checked():
    x = vg.randn(3, dtype=vg.float64, requires_grad=True)
    b = x.clone()
    y = Cube.apply(b, 1.0)
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_mark_dirty_rebases_history():
    class AddOneInPlace(vg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = vg.randn(3, dtype=vg.float64, requires_grad=True)
    b = x.clone()
    out = AddOneInPlace.apply(b)
    # add_ bumps the version once and mark_dirty once more, as in PyTorch
    assert out is b and b.grad_fn.name() == "AddOneInPlaceBackward" and b._version == 2
    (b * 2).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), 2.0)


def test_mark_non_differentiable_and_multiple_outputs():
    class SortLike(vg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = x.argmax(0)
            ctx.mark_non_differentiable(idx)
            return x * 2, idx

        @staticmethod
        def backward(ctx, g, gidx):
            assert gidx is None or float(gidx.abs().sum()) == 0
            return g * 2

    x = vg.randn(3, requires_grad=True)
    y, idx = SortLike.apply(x)
    assert idx.grad_fn is None and not idx.requires_grad and y.grad_fn is not None
    y.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), 2.0)


def test_wrong_number_or_shape_of_gradients():
    class Bad(vg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return vg.ones(5, dtype=g.dtype)

    with pytest.raises(RuntimeError, match=r"returned an invalid gradient at index 0 - got "
                                           r"\[5\] but expected shape compatible with \[3\]"):
        Bad.apply(vg.randn(3, requires_grad=True)).sum().backward()

    class TooMany(vg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        TooMany.apply(vg.randn(3, requires_grad=True)).sum().backward()


def test_once_differentiable_builds_no_graph():
    class Sq(vg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @vg.autograd.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = vg.randn(3, requires_grad=True)
    (g,) = vg.autograd.grad(Sq.apply(x).sum(), x, create_graph=True)
    assert g.grad_fn is None
