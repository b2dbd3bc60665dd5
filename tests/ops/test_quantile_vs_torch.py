"""quantile and nanquantile against torch 2.13: every interpolation, scalar and tensor q,
dim None/0/-1 with and without keepdim, NaN slices; values and gradients; gradcheck; the
refusals."""
import itertools

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import raised, torch_or_skip

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 6))
XN = X.copy()
XN[1, 2] = np.nan
XN[2, :] = np.nan
MODES = ["linear", "lower", "higher", "midpoint", "nearest"]


def _run(M, data, fn, q, dim, keepdim, mode):
    a = M.tensor(data, requires_grad=True)
    qq = M.tensor([0.1, 0.75, 0.5], dtype=M.float64) if q == "vec" else q
    y = getattr(a, fn)(qq, dim=dim, keepdim=keepdim, interpolation=mode)
    (y * M.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)))).nansum().backward()
    return np.array(y.tolist()), np.array(a.grad.tolist())


@pytest.mark.parametrize("data,fn", [("plain", "quantile"), ("nan", "quantile"),
                                     ("nan", "nanquantile"), ("plain", "nanquantile")])
@pytest.mark.parametrize("mode", MODES)
def test_matches_torch(data, fn, mode):
    torch = torch_or_skip()
    x = X if data == "plain" else XN
    for q, (dim, keepdim) in itertools.product(
            [0.0, 0.3, 0.5, 1.0, "vec"], [(None, False), (None, True), (1, False), (0, True),
                                          (-1, True)]):
        ours, theirs = _run(vg, x, fn, q, dim, keepdim, mode), \
            _run(torch, x, fn, q, dim, keepdim, mode)
        for a, b in zip(ours, theirs):
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, equal_nan=True)


@pytest.mark.parametrize("mode", MODES)
def test_gradcheck(mode):
    x = vg.tensor(X, requires_grad=True)
    assert vg.autograd.gradcheck(
        lambda a: a.quantile(vg.tensor([0.2, 0.65], dtype=vg.float64), dim=1,
                             interpolation=mode), (x,))


REFUSALS = {
    "q_above": lambda M: M.ones(3).quantile(1.5),
    "q_tensor_range": lambda M: M.ones(3).quantile(M.tensor([0.2, 1.2])),
    "q_2d": lambda M: M.ones(3).quantile(M.tensor([[0.5]])),
    "q_dtype": lambda M: M.ones(3).quantile(M.tensor([0.5], dtype=M.float64)),
    "mode": lambda M: M.ones(3).quantile(0.5, interpolation="x"),
    "int_input": lambda M: M.tensor([1, 2]).quantile(0.5),
    "empty": lambda M: M.ones(0).quantile(0.5),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusals_match_torch(name):
    torch = torch_or_skip()
    ours, theirs = raised(lambda: REFUSALS[name](vg)), raised(lambda: REFUSALS[name](torch))
    assert theirs is not None and ours == theirs


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_logcumsumexp_matches_torch_far_below_the_maximum_and_twice(dim):
    """A prefix 1000 below the maximum keeps its value (a shift by the maximum would give
    -inf), and the double backward is PyTorch's (a part of the gradient with no term must
    not make it NaN)."""
    torch = torch_or_skip()
    x = np.array([[-1000.0, 0.0, 2.0, -3.0], [5.0, 5.0, 5.0, 5.0], [0.3, -0.2, 0.5, 0.1]])
    g = np.array([[1.0, 2.0, -3.0, 0.5], [0.0, 1.0, 1.0, 2.0], [3.0, -1.0, 2.0, 1.0]])
    outs = []
    for M in (vg, torch):
        a = M.tensor(x, requires_grad=True)
        y = M.logcumsumexp(a, dim)
        gx, = M.autograd.grad(y, a, M.tensor(g), create_graph=True)
        h, = M.autograd.grad((gx * gx).sum(), a)
        outs.append([np.array(t.tolist()) for t in (y, gx, h)] + [y.grad_fn.name()])
    for a, b in zip(outs[0][:3], outs[1][:3]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert outs[0][3] == outs[1][3] == "LogcumsumexpBackward0"


def _graph(fn, depth=0):
    """Each node's name and saved values, down the whole graph."""
    if fn is None or depth > 14:
        return ""
    saved = []
    for a in sorted(x for x in dir(fn) if x.startswith("_saved_")):
        v = getattr(fn, a)
        if hasattr(v, "shape"):
            v = ("tensor", tuple(v.shape))
        saved.append((a, v))
    kids = [_graph(n, depth + 1) for n, _ in fn.next_functions if n is not None]
    return type(fn).__name__ + str(saved) + ("(" + ",".join(kids) + ")" if kids else "")


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("shape,dim", [((2, 3, 4), None), ((2, 3, 4), 0), ((2, 3, 4), 1),
                                       ((2, 3, 4), -1), ((5,), 0), ((3, 4), 1)])
@pytest.mark.parametrize("vector_q", [False, True])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("interpolation", ["linear", "lower", "midpoint"])
def test_the_graph_is_torchs(name, shape, dim, vector_q, keepdim, interpolation):
    """PyTorch's quantile_compute step for step: the sort (of the dim moved last), the view,
    the gathers, lerp_ in place, and squeeze_ (or unsqueeze_, transpose_, squeeze_) on top,
    each node with PyTorch's saved values."""
    torch = torch_or_skip()
    x0 = np.random.default_rng(0).standard_normal(shape)
    x0.reshape(-1)[1] = np.nan
    graphs = []
    for M in (torch, vg):
        x = M.tensor(x0, requires_grad=True)
        q = M.tensor([0.2, 0.9], dtype=M.float64) if vector_q else 0.3
        r = getattr(M, name)(x, q, dim=dim, keepdim=keepdim, interpolation=interpolation)
        graphs.append(_graph(r.grad_fn))
    assert graphs[1] == graphs[0]
