"""cummax, cummin, aminmax (ops/extrema.py), nansum and nanmean (ops/stats.py) against
PyTorch: values, indices (NaN and ties), node names, gradients, dtypes, errors."""
import math
import re

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import assert_same_as_torch, torch_or_skip

from .test_vs_torch import compare_with_torch

NAN = math.nan

CASES = [
    ("cummax", lambda M, F, a: a.cummax(1).values, [(3, 4)]),
    ("cummin", lambda M, F, a: M.cummin(a, 0)[0], [(3, 4)]),
    ("aminmax", lambda M, F, a: M.aminmax(a).min * M.aminmax(a).max, [(3, 4)]),
    ("aminmax_dim", lambda M, F, a: a.aminmax(dim=0, keepdim=True)[1], [(3, 4)]),
    ("nansum", lambda M, F, a: a.nansum(1) + M.nansum(a), [(3, 4)]),
    ("nanmean", lambda M, F, a: a.nanmean(0, keepdim=True), [(3, 4)]),
]


@pytest.mark.parametrize("name,fn,shapes", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(name, fn, shapes):
    compare_with_torch(fn, shapes)


DATA = [[1.0, 3.0, 2.0, 3.0, NAN, 0.0], [2.0, 1.0, 1.0, 5.0, 4.0, 4.0]]
EDGES = [
    (lambda x: x.cummax(1).values, DATA),
    (lambda x: x.cummin(1).values, DATA),
    (lambda x: x.aminmax().min + 2 * x.aminmax().max, [[1.0, 3.0], [3.0, 0.0]]),
    (lambda x: x.nansum(), [1.0, NAN, 2.0]),
    (lambda x: x.nanmean(1, keepdim=True), [[NAN, NAN], [2.0, 3.0]]),
]


@pytest.mark.parametrize("i", range(len(EDGES)))
def test_nan_and_ties_grads_match_torch(i):
    torch = torch_or_skip()
    fn, data = EDGES[i]
    res = []
    for M in (vg, torch):
        x = M.tensor(data, dtype=M.float64, requires_grad=True)
        y = fn(x)
        y.sum().backward()
        res.append((y.detach().cpu().numpy(), x.grad.cpu().numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, equal_nan=True)


REPRS = [
    lambda M: M.tensor(DATA).cummax(1),
    lambda M: M.tensor(DATA).cummin(1),
    lambda M: M.tensor([1, 3, 2]).cummax(0),
    lambda M: M.tensor(3.0).cummax(0),
    lambda M: M.zeros(0).cummin(0),
    lambda M: M.aminmax(M.tensor([[1.0, 3.0], [3.0, 0.0]])),
    lambda M: M.tensor([[1.0, 3.0], [3.0, 0.0]]).aminmax(dim=1, keepdim=True),
    lambda M: M.tensor([True, False]).nansum(),
    lambda M: M.tensor([1, 2]).nansum(),
    lambda M: M.zeros(0).nanmean(),
    lambda M: M.zeros(0).nansum(),
]


@pytest.mark.parametrize("i", range(len(REPRS)))
def test_prints_as_torch(i):
    torch = torch_or_skip()
    ours = re.sub(r", device='\w+'", "", repr(REPRS[i](vg))).replace("viewgrad.", "torch.")
    assert ours == repr(REPRS[i](torch))


ERRORS = [
    (lambda M: M.zeros(0).aminmax(), "aminmax(): cannot compute aminmax over an empty dimension"),
    (lambda M: M.tensor([1, 2]).nanmean(), "nanmean(): expected input to have floating point"),
    (lambda M: M.ones(3).cummax(1), "Dimension out of range"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    fn, match = ERRORS[i]
    assert_same_as_torch(fn, match=match)


def test_aminmax_outputs_share_one_node():
    x = vg.randn(2, 3, requires_grad=True)
    r = vg.aminmax(x)
    assert r.min.grad_fn is r.max.grad_fn and r.min.grad_fn.name() == "AminmaxBackward0"
    assert isinstance(r, vg.return_types.aminmax)
