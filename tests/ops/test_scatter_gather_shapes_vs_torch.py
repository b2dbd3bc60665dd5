"""gather / scatter / scatter_add / scatter_reduce with an index smaller than self or
src, or empty, against PyTorch: the result's shape and values, both gradients (src's
checked against src's shape as PyTorch's engine checks it), and the errors in PyTorch's
words. Before: gather broadcast a size-1 index dim (a silently wrong result and
gradient), scatter's src gradient had the index's shape (accumulated into a src.grad of
the wrong shape), NumPy's IndexError for an index larger than self."""
import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

pytestmark = pytest.mark.host_only("compares with torch CPU tensors through .numpy()")

KINDS = ["gather", "scatter", "scatter_value", "scatter_add", "scatter_", "scatter_add_",
         "scatter_reduce_amax", "scatter_reduce_mean", "scatter_reduce_sum_"]


def _case(rng, grad_shapes_only):
    nd = int(rng.integers(1, 3))
    ssh = tuple(int(v) for v in rng.integers(1, 4, nd))
    ish = tuple(int(v) for v in rng.integers(0, 5, nd))
    d = int(rng.integers(-nd, nd))
    if grad_shapes_only:   # an index that fits self: what a backward can be asked of
        ish = tuple(v if k == d % nd else min(v, ssh[k]) for k, v in enumerate(ish))
    xsh = tuple(int(v) for v in rng.integers(1, 5, nd))
    idx = rng.integers(0, ssh[d], ish)
    return ssh, xsh, idx, d, rng.standard_normal(ssh), rng.standard_normal(xsh)


def _run(M, kind, S, X, idx, d, grads):
    s = M.tensor(S, requires_grad=grads)
    x = M.tensor(X, requires_grad=grads)
    i = M.tensor(idx)
    out = {"gather": lambda: s.gather(d, i),
           "scatter": lambda: s.scatter(d, i, x),
           "scatter_value": lambda: s.scatter(d, i, 1.5),
           "scatter_add": lambda: s.scatter_add(d, i, x),
           "scatter_": lambda: (s * 1).scatter_(d, i, x),
           "scatter_add_": lambda: (s * 1).scatter_add_(d, i, x),
           "scatter_reduce_amax": lambda: s.scatter_reduce(d, i, x, "amax"),
           "scatter_reduce_mean": lambda: s.scatter_reduce(d, i, x, "mean",
                                                           include_self=False),
           "scatter_reduce_sum_": lambda: (s * 1).scatter_reduce_(d, i, x, "sum")}[kind]()
    res = [tuple(out.shape), out.detach().numpy().copy()]
    if grads:
        w = M.tensor(np.linspace(-1, 2, out.numel()).reshape(tuple(out.shape)))
        gs = M.autograd.grad((out * w).sum(), [s, x], allow_unused=True)
        res += [None if g is None else g.numpy().copy() for g in gs]
    return res


def _outcome(M, *args):
    try:
        return "ok", _run(M, *args)
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        return "error", type(e).__name__, str(e)


def _same(ours, theirs):
    if ours[0] != theirs[0]:
        return False
    if ours[0] == "error":   # PyTorch's type and words (ours may add what to do next)
        return ours[1] == theirs[1] and ours[2].startswith(theirs[2])
    a, b = ours[1], theirs[1]
    if a[0] != b[0] or not np.allclose(a[1], b[1]):
        return False
    for g, h in zip(a[2:], b[2:]):
        if g is None or h is None:   # unused: None on one side, zeros on the other
            if not ((g is None or not g.any()) and (h is None or not h.any())):
                return False
        elif g.shape != h.shape or not np.allclose(g, h):
            return False
    return True


@pytest.mark.parametrize("grads", [False, True], ids=["values", "gradients"])
@pytest.mark.parametrize("kind", KINDS)
def test_index_shapes_as_torch(kind, grads):
    torch = torch_or_skip()
    rng = np.random.default_rng(hash((kind, grads)) % 2**32)
    for _ in range(120):
        ssh, xsh, idx, d, S, X = _case(rng, grads)
        ours = _outcome(vg, kind, S, X, idx, d, grads)
        theirs = _outcome(torch, kind, S, X, idx, d, grads)
        assert _same(ours, theirs), (kind, ssh, idx.shape, xsh, d, ours, theirs)


def test_gather_never_broadcasts_the_index():
    x = vg.tensor(np.arange(9.).reshape(3, 3), requires_grad=True)
    out = x.gather(0, vg.tensor([[1], [0], [2], [1]]))
    assert out.shape == (4, 1) and out.tolist() == [[3.], [0.], [6.], [3.]]
    out.sum().backward()
    assert x.grad.tolist() == [[1., 0., 0.], [2., 0., 0.], [1., 0., 0.]]


def test_src_larger_than_the_index_refuses_its_gradient_as_torch():
    x = vg.zeros(3, 3)
    src = vg.ones(4, 3, requires_grad=True)
    out = x.scatter(0, vg.tensor([[2, 0, 1]]), src)
    with pytest.raises(RuntimeError, match=r"Function ScatterBackward0 returned an invalid "
                       r"gradient at index 1 - got \[1, 3\] but expected shape compatible "
                       r"with \[4, 3\]"):
        out.sum().backward()
    assert src.grad is None


def test_an_empty_index_leaves_self_and_gives_src_zeros():
    src = vg.ones(1, 3, requires_grad=True)
    out = vg.zeros(2, 3).scatter_add(0, vg.zeros(0, 3, dtype=vg.int64), src)
    assert out.tolist() == [[0.] * 3] * 2
    out.sum().backward()
    assert src.grad.shape == (1, 3) and not src.grad.any()
