"""``Tensor.resize_`` and ``resize_as_`` against torch 2.13 (Note [resize_ over a storage],
ops/resize.py): the shape, strides, storage offset, version and values after each resize,
and the refusals, case by case. The one place viewgrad differs is named and tested on its
own: it will not grow a storage that other tensors share (PyTorch moves it under all of
them), and says so."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip


def _state(t):
    flat = t.flatten()[:6].tolist() if t.numel() else []
    return tuple(t.shape), tuple(t.stride()), t.storage_offset(), t._version, flat


def _outcome(f, M):
    try:
        return _state(f(M))
    except (RuntimeError, TypeError) as e:
        return type(e).__name__, str(e).split(" (")[0][:60]


def _twice(M):
    x = M.arange(6.0)
    x.resize_(2, 2)
    return x.resize_(2, 3)   # back over the same storage: the values were kept


def _view_shrinks(M):
    z = M.arange(6.0)
    v = z[2:4]
    v.resize_(3)
    assert v._base is z
    return v


def _view_then_base(M):
    z = M.arange(6.0)
    z[2:4].resize_(3)
    return z   # (the shared version moved)


def _grows(M):
    a = M.arange(3.0)
    return a.resize_(5)[:3]   # (the new elements are uninitialised)


def _grows_2d(M):
    a = M.arange(4.0).reshape(2, 2)   # (a view of arange's storage: it holds it too)
    return a.clone().resize_(3, 3)[0, :2]


def _in_inference_mode(M):
    with M.inference_mode():
        t = M.ones(3)
        t.resize_(5)
        return M.tensor(list(t.shape))


def _inference_outside(M):
    with M.inference_mode():
        t = M.ones(3)
    return t.resize_(5)


def _requires_grad_in_no_grad(M):
    p = M.ones(3, requires_grad=True)
    with M.no_grad():
        return p.resize_(2)


def _saved_then_resized(M):
    w = M.ones(3, requires_grad=True)
    c = M.full((3,), 2.0)
    y = (w * c).sum()
    c.resize_(2)
    y.backward()


CASES = {
    "shrink": lambda M: M.arange(6.0).resize_(2, 2),
    "the same size: nothing moves": lambda M: M.arange(6.0).reshape(2, 3).t().resize_(3, 2),
    "twice": _twice,
    "transposed, resized": lambda M: M.arange(6.0).reshape(2, 3).t().resize_(6),
    "a view shrinks": _view_shrinks,
    "its base's version": _view_then_base,
    "grows": _grows,
    "a clone grows": _grows_2d,
    "to a 0-d": lambda M: M.ones(3).resize_(()),
    "to nothing": lambda M: M.ones(3).resize_(0),
    "a list": lambda M: M.ones(2).resize_([1, 2]),
    "a Size": lambda M: M.ones(2).resize_(M.ones(1, 2).shape),
    "resize_as_": lambda M: M.ones(2, 3).resize_as_(M.ones(3)),
    "an integer tensor": lambda M: M.ones(3, dtype=M.int64).resize_(4)[:3],
    "requires grad": lambda M: M.ones(3, requires_grad=True).resize_(2),
    "has a history": lambda M: (M.ones(3, requires_grad=True) * 2).resize_(2),
    "requires grad, in no_grad": _requires_grad_in_no_grad,
    "a float size": lambda M: M.ones(2).resize_(2.0),
    "a str size": lambda M: M.ones(2).resize_("a"),
    "a negative size": lambda M: M.ones(2).resize_(2, -1),
    "in inference mode": _in_inference_mode,
    "an inference tensor outside": _inference_outside,
    "a saved tensor resized": _saved_then_resized,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_resize_as_torch(name):
    torch = torch_or_skip()
    assert _outcome(CASES[name], vg) == _outcome(CASES[name], torch)


@pytest.mark.host_only("from_numpy shares a NumPy array's memory")
def test_resize_of_a_from_numpy_tensor_as_torch():
    torch = torch_or_skip()
    for M in (vg, torch):
        a = np.arange(3.0)
        t = M.from_numpy(a)
        t.resize_(2)   # (within the array: allowed, and still its memory)
        t[0] = 7.0
        assert a[0] == 7.0
        with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
            t.resize_(5)


def test_a_shared_storage_is_not_grown_and_the_error_says_why():
    z = vg.arange(6.0)
    v = z[2:4]
    with pytest.raises(RuntimeError, match=r"needs 12 elements of storage from offset 2.*"
                                           r"Resize a clone instead"):
        v.resize_(10)
    assert v.shape == (2,) and v._version == 0   # nothing changed
    d = vg.arange(3.0)
    alias = d.detach()
    with pytest.raises(RuntimeError, match="other tensors hold it"):
        d.resize_(4)
    del alias
    assert d.resize_(4).shape == (4,)   # alone now: grown, its values kept
    assert d[:3].tolist() == [0.0, 1.0, 2.0]


def test_memory_format_is_refused_with_a_reason():
    with pytest.raises(RuntimeError, match="no memory formats"):
        vg.ones(3).resize_(2, memory_format="channels_last")
