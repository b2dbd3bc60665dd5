"""Integers beside advanced indices (Note [integers beside advanced indices]), against
PyTorch, reading and writing: PyTorch applies the integers first (selects), so an
integer never moves the advanced dims to the front as NumPy's would. Before, viewgrad
took NumPy's rule: ``x[2, None, idx]`` had the shape (k, 1, 3) where PyTorch's is
(1, 3, k), a silently different result and gradient. A random sweep of keys (integers,
slices, index lists, masks, None) compares shapes, values and gradients, and the
refusal of index tensors that do not broadcast together (NumPy's words before, behind
"index out of range")."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .numpy()")


def _key(M, key):
    out = []
    for k in key:
        if isinstance(k, list):
            out.append(M.tensor(k, dtype=M.bool) if isinstance(k[0], bool) else M.tensor(k))
        else:
            out.append(k)
    return tuple(out)


CASES = [
    ((4, 3, 2), (2, None, [0, 2, 1])),
    ((2, 3, 1), (-2, slice(None), [0, 0])),
    ((4, 2, 1), (None, [True, True, True, False], slice(0, 2), -1)),
    ((4, 3, 4), (0, slice(None), [1, 3], None)),
    ((3, 2, 1), (0, slice(None), [[0], [0]])),
    ((1, 4, 3), (-1, slice(-5, -4), [[2, 1], [2, 2]])),
    ((4, 1, 3), (0, Ellipsis, [[-1, 1], [0, -3]])),
    ((2, 3, 4), ([1, 0], 1, [2, 3])),
    ((2, 3, 4), ([1, 0], slice(None), 2)),
]


def _run(M, shape, key, write):
    x = M.tensor(np.arange(float(np.prod(shape))).reshape(shape), requires_grad=True)
    y = x * 1
    k = _key(M, key)
    if write:
        sub = y[k]
        v = M.tensor(np.linspace(1, 2, sub.numel()).reshape(tuple(sub.shape)),
                     requires_grad=True)
        y[k] = v * 3
        out, leaves = y, [x, v]
    else:
        out, leaves = y[k], [x]
    w = M.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
    grads = M.autograd.grad((out * w).sum(), leaves)
    return tuple(out.shape), out.detach().numpy(), [g.numpy() for g in grads]


@pytest.mark.parametrize("write", [False, True], ids=["get", "set"])
@pytest.mark.parametrize("shape,key", CASES, ids=[str(i) for i in range(len(CASES))])
def test_integers_beside_advanced_indices_as_torch(shape, key, write):
    torch = torch_or_skip()
    ours, theirs = _run(vg, shape, key, write), _run(torch, shape, key, write)
    assert ours[0] == theirs[0]
    np.testing.assert_array_equal(ours[1], theirs[1])
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b)


def _outcome(M, shape, key, write):
    try:
        return _run(M, shape, key, write)
    except IndexError as e:
        return type(e).__name__, str(e)


def test_random_keys_as_torch():
    torch = torch_or_skip()
    rng = np.random.default_rng(7)
    for _ in range(400):
        shape = tuple(int(v) for v in rng.integers(1, 5, int(rng.integers(2, 4))))
        key, d = [], 0
        for _ in range(int(rng.integers(2, len(shape) + 2))):
            if d >= len(shape):
                break
            r, n = rng.random(), shape[d]
            if r < 0.3:
                key.append(int(rng.integers(-n, n)))
            elif r < 0.5:
                key.append(slice(int(rng.integers(0, n)), None, int(rng.choice([1, 2]))))
            elif r < 0.7:
                key.append(rng.integers(-n, n, int(rng.integers(1, 4))).tolist())
            elif r < 0.8:
                key.append((rng.random(n) < 0.6).tolist())
                if not any(key[-1]):
                    key[-1][0] = True
            elif r < 0.9:
                key.append(None)
                continue
            else:
                key.append(slice(None))
            d += 1
        for write in (False, True):
            ours = _outcome(vg, shape, tuple(key), write)
            theirs = _outcome(torch, shape, tuple(key), write)
            assert ours[0] == theirs[0], (shape, key, write, ours, theirs)
            if isinstance(ours[0], str):   # the same refusal (index tensors that do not
                assert ours == theirs      # broadcast together), in PyTorch's words
                continue
            np.testing.assert_array_equal(ours[1], theirs[1])
            for a, b in zip(ours[2], theirs[2]):
                np.testing.assert_allclose(a, b)
