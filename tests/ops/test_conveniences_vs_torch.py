"""ops/conveniences.py against PyTorch: fill_diagonal_ (its graph a CopySlices, its
version moves once or twice), sum_to_size (SumBackward1 with keepdim, then a view; itself
when nothing is reduced; its error), absolute_/negative_, and the conjugate family of a
real tensor (the tensor itself)."""
import numpy as np
import pytest

from tests.helpers import assert_same_as_torch, short


def _fill(M, shape, wrap):
    x = M.tensor(np.arange(float(np.prod(shape))).reshape(shape), requires_grad=True)
    z = x * 1
    z.fill_diagonal_(-1.5, wrap=wrap)
    g = M.tensor(np.linspace(-1, 1, int(np.prod(shape))).reshape(shape))
    (z * g).sum().backward()
    return z, x.grad, z._version, short(z.grad_fn.name())


@pytest.mark.parametrize("shape", [(3, 3), (4, 5), (7, 3), (3, 3, 3), (2, 2, 2, 2)], ids=str)
@pytest.mark.parametrize("wrap", [False, True])
def test_fill_diagonal_is_torchs(shape, wrap):
    assert_same_as_torch(lambda M: _fill(M, shape, wrap))


@pytest.mark.parametrize("call,words", [
    (lambda M: M.ones(3).fill_diagonal_(0), True),
    (lambda M: M.ones(2, 3, 3).fill_diagonal_(0), True),
    # (viewgrad names the in-place op first: "fill_: a view of a leaf Variable ...")
    (lambda M: M.ones(2, 3, requires_grad=True).fill_diagonal_(0), False),
])
def test_fill_diagonal_refusals_are_torchs(call, words):
    assert_same_as_torch(call, wording_too=words, match="leaf Variable" if not words else None)


@pytest.mark.parametrize("shape,size", [((2, 3), (1, 3)), ((2, 3), (3,)), ((2, 3), (2, 3)),
                                        ((4, 2, 3), (2, 1)), ((4, 2, 3), (1, 1, 1)),
                                        ((2, 3), (4,)), ((2, 3), (2, 3, 1))], ids=str)
def test_sum_to_size_is_torchs(shape, size):
    def run(M):
        x = M.tensor(np.arange(float(np.prod(shape))).reshape(shape), requires_grad=True)
        y = x.sum_to_size(*size)
        names = short(y.grad_fn.name()) if y.grad_fn is not None else None
        (y * 2).sum().backward()
        return y, x.grad, names, y is x
    assert_same_as_torch(run, wording_too=True)


def test_aliases_and_the_conjugate_family_of_a_real_tensor():
    def run(M):
        x = M.ones(3, requires_grad=True)
        a, b = x * -2, x * 3
        a.absolute_()
        b.negative_()
        return (a, b, short(a.grad_fn.name()), short(b.grad_fn.name()), x.conj() is x,
                x.resolve_conj() is x, x.resolve_neg() is x, x.conj_physical() is x,
                x.is_conj(), x.is_neg())
    assert_same_as_torch(run)
