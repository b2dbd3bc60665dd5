"""Views with no elements have PyTorch's geometry (Note [empty views], backend/strided.py):
the storage offset and strides PyTorch's arithmetic gives them (``x[:, 1:1]`` of a 2×3
starts 1 element into the storage; ``x[:, 1:1:2]`` has the stride 2), where NumPy's
slicing would restart an empty slice at 0 with step 1 and its reshape would pick strides
of its own. Compared with torch 2.13, case by case and over random chains of views.

Left out of the random chains, knowingly: an empty view of an *expanded* tensor. Its
strides may be 0 in PyTorch, and an empty array whose strides are all 0 is what NumPy
makes for every fresh empty result, which ``stride()`` reports as PyTorch reports a fresh
one (contiguous); the two cannot be told apart from the array.
"""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only(
    "compares data pointers of NumPy arrays: the strict device's arrays keep NumPy's own "
    "geometry for empty slices")


def _geometry(t):
    return tuple(t.shape), tuple(t.stride()), t.is_contiguous(), t.storage_offset()


CASES = {
    "cols 1:1": lambda x: x[:, 1:1],
    "rows 1:1": lambda x: x[1:1],
    "rows 1:1, cols 2:": lambda x: x[1:1, 2:],
    "cols 2:1": lambda x: x[:, 2:1],
    "cols 1:1:2": lambda x: x[:, 1:1:2],
    "rows past the end": lambda x: x[5:],
    "cols past the end": lambda x: x[:, 3:],
    "rows 2:2": lambda x: x[2:2],
    "narrow to nothing": lambda x: x.narrow(1, 3, 0),
    "narrow in the middle": lambda x: x.narrow(0, 1, 0),
    "flatten of an empty view": lambda x: x[:, 1:1].flatten(),
    "reshape of an empty view": lambda x: x[:, 1:1].reshape(0, 2),
    "view of an empty view, same shape": lambda x: x[:, 1:1].view(2, 0),
    "unsqueeze of an empty view": lambda x: x[:, 1:1].unsqueeze(0),
    "transposed, then empty": lambda x: x.t()[1:1],
    "transposed, empty cols": lambda x: x.t()[:, 2:2],
    "empty, then sliced again": lambda x: x[:, 2:2][:, :],
    "row, then empty": lambda x: x[1][3:],
    "slice of a slice": lambda x: x[1:][1:],
    "split's empty piece": lambda x: x.split([3, 0], dim=1)[1],
    "chunk of an empty view": lambda x: x[:, 1:1].chunk(2)[1],
    "select on an empty view": lambda x: x[:, 2:2].select(0, 1),
    "a step, then empty": lambda x: x[:, ::2][:, 1:1],
    "unbind of an empty view": lambda x: x[1:1].unbind(1)[2],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_empty_view_geometry_as_torch(name):
    torch = torch_or_skip()
    got = _geometry(CASES[name](vg.arange(6.0).reshape(2, 3)))
    want = _geometry(CASES[name](torch.arange(6.0).reshape(2, 3)))
    assert got == want, name


def test_an_empty_view_still_shares_its_base_and_backward_runs():
    torch = torch_or_skip()
    for M in (vg, torch):
        x = M.arange(6.0).reshape(2, 3).requires_grad_()
        y = x * 1
        v = y[:, 1:1]
        assert v._base is y
        v.mul_(2)   # nothing to write: a version bump and a CopySlices all the same
        assert y._version == 1
        y.sum().backward()
        assert x.grad.tolist() == [[1.0] * 3] * 2


def _chain(rng, M, x):
    """A random chain of views (the steps and their arguments from ``rng``), or None when
    it expands (see the module's docstring) or a step refuses."""
    for _ in range(int(rng.integers(1, 6))):
        nd = x.dim()
        k = int(rng.integers(0, 11))
        if k == 0 and nd:
            d = int(rng.integers(0, nd))
            n = x.shape[d]
            s = int(rng.integers(0, n + 1))
            x = x.narrow(d, s, int(rng.integers(0, n - s + 1)))
        elif k == 1:
            x = x.unsqueeze(int(rng.integers(-nd - 1, nd + 1)))
        elif k == 2 and nd:
            x = x.squeeze(int(rng.integers(0, nd)))
        elif k == 3 and nd >= 2:
            a, b = (int(v) for v in rng.choice(nd, 2, replace=False))
            x = x.transpose(a, b)
        elif k == 4 and nd:
            x = x.permute(*[int(v) for v in rng.permutation(nd)])
        elif k == 5:
            try:
                x = x.view(-1)
            except RuntimeError:
                return None
        elif k == 6 and nd:
            d = int(rng.integers(0, nd))
            idx = [slice(None)] * nd
            s = int(rng.integers(0, x.shape[d] + 2))
            idx[d] = slice(s, s + int(rng.integers(0, 3)), int(rng.integers(1, 3)))
            x = x[tuple(idx)]
        elif k == 7 and nd:
            x = x[None]
        elif k == 8 and nd >= 2:
            try:
                x = x.flatten(0, 1)
            except RuntimeError:
                return None
        elif k == 9 and nd:
            x = x.flatten()
        elif k == 10 and nd and x.shape[-1] and x.shape[-1] % 2 == 0:
            x = x.unflatten(-1, (2, x.shape[-1] // 2))
    return x


def test_random_chains_of_views_with_empty_results_as_torch():
    torch = torch_or_skip()
    empty = 0
    for seed in range(600):
        rng = np.random.default_rng(seed)
        shape = tuple(int(s) for s in rng.integers(1, 4, int(rng.integers(1, 5))))
        base = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
        transposed = rng.random() < 0.5 and len(shape) >= 2
        res = []
        for M in (vg, torch):
            x = M.tensor(base.copy())
            if transposed:
                x = x.transpose(0, -1).contiguous().transpose(0, -1)
            y = _chain(np.random.default_rng(seed + 10_000), M, x)
            res.append(None if y is None else _geometry(y))
        assert res[0] == res[1], (seed, res)
        empty += res[1] is not None and 0 in res[1][0]
    assert empty >= 100   # (the chains reach empty views often enough to test them)
