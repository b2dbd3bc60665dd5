"""add_/sub_ with alpha write into self's memory (Note [in-place ufuncs]): the numbers are
those of the out-of-place op, bit for bit, for every operand the fast way takes and the
ones it leaves to the general path (another dtype, a broadcast operand)."""
import numpy as np
import pytest

import viewgrad as vg


@pytest.mark.parametrize("name", ["add_", "sub_"])
@pytest.mark.parametrize("other_shape,other_dtype", [((3, 4), np.float32), ((4,), np.float32),
                                                     ((3, 4), np.float64), ((1, 4), np.float32)])
def test_alpha_in_place_matches_out_of_place(name, other_shape, other_dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    o = rng.standard_normal(other_shape).astype(other_dtype)
    x, other = vg.tensor(a), vg.tensor(o)
    # PyTorch computes in the promoted dtype and casts into self's
    expected = getattr(x, name[:-1])(other, alpha=0.37).cpu().numpy().astype(np.float32)
    buf = x.data_ptr() if hasattr(x, "data_ptr") else None
    v0 = x._version
    r = getattr(x, name)(other, alpha=0.37)
    assert r is x and x._version == v0 + 1
    assert x.dtype == vg.float32
    np.testing.assert_array_equal(x.cpu().numpy(), expected)
    if buf is not None:
        assert x.data_ptr() == buf   # written into its own memory


def test_alpha_in_place_keeps_the_gradient():
    w = vg.tensor([1.0, 2.0], requires_grad=True)
    x = vg.tensor([3.0, 4.0], requires_grad=True)
    y = w.clone()
    y.sub_(x * x, alpha=0.5)
    y.sum().backward()
    assert w.grad.tolist() == [1.0, 1.0] and x.grad.tolist() == [-3.0, -4.0]
