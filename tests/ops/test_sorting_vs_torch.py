"""Sorting and order statistics (ops/sorting.py) and the named tuples they return
(viewgrad/return_types.py) against PyTorch: values, gradients, node names, indices, NaN
and ties, 0-d and empty inputs, errors, and how the tuples print."""
import math
import pickle
import re

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import assert_same_as_torch, torch_or_skip

from .test_vs_torch import compare_with_torch

NAN = math.nan

CASES = [
    ("sort", lambda M, F, a: a.sort(1).values, [(3, 4)]),
    ("sort_desc", lambda M, F, a: M.sort(a, 0, True)[0], [(3, 4)]),
    ("sort_stable", lambda M, F, a: a.sort(stable=True, dim=0).values, [(3, 4)]),
    ("msort", lambda M, F, a: a.msort(), [(3, 4)]),
    ("topk", lambda M, F, a: a.topk(2)[0], [(3, 4)]),
    ("topk_smallest", lambda M, F, a: M.topk(a, 2, 0, largest=False).values, [(3, 4)]),
    ("kthvalue", lambda M, F, a: a.kthvalue(2)[0], [(3, 4)]),
    ("kthvalue_keepdim", lambda M, F, a: M.kthvalue(a, 3, 0, keepdim=True).values, [(3, 4)]),
    ("median_all", lambda M, F, a: a.median(), [(3, 4)]),
    ("median_dim", lambda M, F, a: a.median(1).values + M.median(a, 0, True)[0].sum(), [(3, 4)]),
    ("mode", lambda M, F, a: a.mode(0).values, [(3, 4)]),
    ("max_min_dim", lambda M, F, a: a.max(1).values * a.min(-1)[0], [(3, 4)]),
]


@pytest.mark.parametrize("name,fn,shapes", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(name, fn, shapes):
    compare_with_torch(fn, shapes)


def _indices(name, fn):
    """The indices with viewgrad and torch (random inputs: no ties)."""
    torch = torch_or_skip()
    a = np.random.default_rng(3).standard_normal((4, 5))
    got = fn(vg.tensor(a)).indices.cpu().numpy()
    want = fn(torch.tensor(a)).indices.numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn", [
    lambda x: x.sort(0), lambda x: x.sort(descending=True), lambda x: x.topk(3),
    lambda x: x.topk(2, 0, largest=False), lambda x: x.kthvalue(2, 0),
    lambda x: x.median(1, keepdim=True), lambda x: x.mode(0), lambda x: x.max(1),
    lambda x: x.min(0, keepdim=True)])
def test_indices_match_torch(fn):
    _indices("", fn)


REPRS = [
    lambda M: M.tensor([[3.0, 1.0], [2.0, 5.0]]).max(1),
    lambda M: M.tensor([[3.0, 1.0], [2.0, 5.0]]).min(0, keepdim=True),
    lambda M: M.tensor([1, 2, 2, 1, 3, 3]).mode(),
    lambda M: M.tensor([[1.0, 1, 2]]).mode(0),
    lambda M: M.tensor([5.0, 5, 1, 1, 1, 5]).mode(),
    lambda M: M.tensor([3.0, 3, 1]).mode(keepdim=True),
    lambda M: M.tensor([2.0, NAN, 1, NAN]).sort(),
    lambda M: M.tensor([2.0, NAN, 1, NAN]).sort(descending=True),
    lambda M: M.tensor([2.0, NAN, 1, NAN]).topk(2),
    lambda M: M.tensor([2.0, NAN, 1, NAN]).median(0),
    lambda M: M.tensor([2.0, NAN, 1, NAN]).kthvalue(1),
    lambda M: M.tensor([[4.0, 2, 7], [3, 1, NAN]]).median(1),
    lambda M: M.tensor([[4.0, 2], [3, 1]]).median(1),
    lambda M: M.tensor([2.0, 2, 1, 2]).sort(descending=True, stable=True),
    lambda M: M.tensor([2.0, 2, 1, 2]).sort(stable=True),
    lambda M: M.tensor([3, 1, 2]).sort(),
    lambda M: M.tensor(3.0).sort(),
    lambda M: M.tensor(3.0).topk(1),
    lambda M: M.tensor(3.0).median(0),
    lambda M: M.tensor(3.0).kthvalue(1),
    lambda M: M.tensor(3.0).mode(),
    lambda M: M.tensor(3.0).max(0),
    lambda M: M.tensor(3.0).min(-1, keepdim=True),
    lambda M: M.return_types.max((1, 2)),
    lambda M: M.zeros(0).sort(),
    lambda M: M.zeros(0, 3).median(1),
    lambda M: M.tensor([True, False]).sort(),
]


@pytest.mark.parametrize("i", range(len(REPRS)))
def test_named_tuples_print_as_torch(i):
    torch = torch_or_skip()
    ours = REPRS[i](vg)
    for text, want in ((repr(ours), repr(REPRS[i](torch))), (str(ours), str(REPRS[i](torch)))):
        # the test device shows itself; viewgrad's dtypes print as viewgrad.int64
        assert re.sub(r", device='\w+'", "", text).replace("viewgrad.", "torch.") == want


VALUES = [
    lambda M: M.tensor([2.0, 2, 2, 3, 5]).median(),
    lambda M: M.tensor([2.0, NAN, 1]).median(),
    lambda M: M.zeros(0).median(),
    lambda M: M.tensor([[1, 5], [3, 2]]).median(),
    lambda M: M.tensor([2.0, 2, 1, 2]).argsort(),
    lambda M: M.tensor([2.0, 2, 1, 2]).argsort(descending=True, stable=True),
    lambda M: M.argsort(M.tensor([[3.0, 1], [0, 2]]), 0),
    lambda M: M.tensor([True, False, True]).sort().values,
    lambda M: tuple(M.zeros(0, 3).sort(1)),
    lambda M: tuple(M.zeros(0, 3).median(1)),
    lambda M: tuple(M.zeros(0).topk(0)),
    lambda M: tuple(M.zeros(2, 0).max(0)),
]


@pytest.mark.parametrize("i", range(len(VALUES)))
def test_values_match_torch(i):
    assert_same_as_torch(VALUES[i])


ERRORS = [
    (lambda M: M.ones(3).topk(4), "selected index k out of range"),
    (lambda M: M.ones(3).topk(-1), "selected index k out of range"),
    (lambda M: M.ones(3).kthvalue(4), "kthvalue(): selected number k out of range for dimension 0"),
    (lambda M: M.ones(2, 3).kthvalue(0), "kthvalue(): selected number k out of range for dimension 1"),
    (lambda M: M.zeros(0, 3).median(0), "median(): Expected reduction dim 0 to have non-zero size."),
    (lambda M: M.zeros(0).mode(), "mode(): Expected reduction dim 0 to have non-zero size."),
    (lambda M: M.ones(3).sort(1), "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda M: M.ones(3).sort(True), "sort() received an invalid combination of arguments"),
    (lambda M: M.return_types.max((1, 2, 3)), None),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    fn, match = ERRORS[i]
    assert_same_as_torch(fn, match=match)


def test_named_tuple_is_a_tuple_with_fields():
    x = vg.tensor([[3.0, 1.0], [2.0, 5.0]], requires_grad=True)
    r = x.max(1)
    assert isinstance(r, tuple) and isinstance(r, vg.return_types.max) and len(r) == 2
    values, indices = r
    assert values is r.values is r[0] and indices is r.indices is r[1]
    assert type(r).__name__ == "max" and r.n_fields == 2
    assert isinstance(x.sort(), vg.return_types.sort) and isinstance(x.mode(), vg.return_types.mode)
    assert pickle.loads(pickle.dumps(vg.return_types.topk((1, 2)))) == (1, 2)
    assert r.values.grad_fn.name() == "MaxBackward0" and r.indices.grad_fn is None


def test_median_ties_share_the_gradient_as_torch():
    torch = torch_or_skip()
    for M in (vg, torch):
        x = M.tensor([[2.0, 1.0], [2.0, 3.0]], requires_grad=True)
        x.median().backward()
        np.testing.assert_allclose(x.grad.cpu().numpy(), [[0.5, 0.0], [0.5, 0.0]])


def test_torch_return_types_resolves_under_the_hook():
    from viewgrad.compat import torch_imports
    with torch_imports():
        import torch
        from torch.return_types import sort
        assert sort is vg.return_types.sort
        assert isinstance(torch.tensor([2.0, 1.0]).sort(), torch.return_types.sort)


def test_sort_values_double_backward():
    x = vg.tensor([[0.3, -1.2, 2.0], [1.5, 0.1, -0.7]], dtype=vg.float64, requires_grad=True)
    assert vg.autograd.gradgradcheck(lambda t: (t.sort(1).values ** 2).cumsum(1), [x])
    assert vg.autograd.gradgradcheck(lambda t: t.topk(2, 1)[0] ** 3, [x])
