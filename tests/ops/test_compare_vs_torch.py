"""isclose, allclose, equal, count_nonzero, all and any (ops/compare.py) against PyTorch:
values, dtypes, dims (ints, tuples, empty tuples, 0-d, empty tensors) and errors."""
import math

import pytest

from tests.helpers import assert_same_as_torch

NAN, INF = math.nan, math.inf

SAME = [
    lambda M: M.isclose(M.tensor([1.0, 2.0, NAN]), M.tensor([1.0, 2.0001, NAN])),
    lambda M: M.isclose(M.tensor([1.0, 2.0, NAN]), M.tensor([1.0, 2.0001, NAN]), equal_nan=True),
    lambda M: M.isclose(M.tensor([1, 2]), M.tensor([1, 3])),
    lambda M: M.isclose(M.tensor([True, False]), M.tensor([True, True])),
    lambda M: M.isclose(M.tensor([1.0, 2.0]), M.tensor([[1.0], [2.0]])),
    lambda M: M.tensor([1.0, 2.0]).isclose(M.tensor([1.0, 2.1]), rtol=0.1),
    lambda M: M.isclose(M.tensor([INF, -INF]), M.tensor([INF, INF])),
    lambda M: M.allclose(M.tensor([1.0, 2.0]), M.tensor([1.0, 2.000001])),
    lambda M: M.allclose(M.tensor([1.0, 2.0]), M.tensor([[1.0, 2.0], [1.0, 2.0]])),
    lambda M: M.tensor([1.0, 2.0]).allclose(M.tensor([1.0, 2.1]), atol=0.2),
    lambda M: M.equal(M.tensor([1.0, 2.0]), M.tensor([1.0, 2.0])),
    lambda M: M.equal(M.tensor([1.0, 2.0]), M.tensor([1, 2])),
    lambda M: M.equal(M.tensor([1.0, 2.0]), M.tensor([[1.0, 2.0]])),
    lambda M: M.equal(M.tensor([1.0, NAN]), M.tensor([1.0, NAN])),
    lambda M: M.tensor([1.0, 2.0]).equal(M.tensor([1.0, 2.5], dtype=M.float64)),
    lambda M: M.count_nonzero(M.tensor([[0, 1, 2], [0, 0, 3]])),
    lambda M: M.count_nonzero(M.tensor([[0, 1, 2], [0, 0, 3]]), dim=1),
    lambda M: M.count_nonzero(M.tensor([[0, 1, 2], [0, 0, 3]]), dim=(0, 1)),
    lambda M: M.count_nonzero(M.tensor([[0.0, 1, 2], [0, 0, 3]]), 0),
    lambda M: M.tensor([[0.0, 1, 2], [0, 0, NAN]]).count_nonzero(-1),
    lambda M: M.count_nonzero(M.tensor(3.0)),
    lambda M: M.count_nonzero(M.tensor(3.0), 0),
    lambda M: M.count_nonzero(M.zeros(0, 3), 1),
    lambda M: M.all(M.tensor([[True, False], [True, True]])),
    lambda M: M.all(M.tensor([[True, False], [True, True]]), 1),
    lambda M: M.all(M.tensor([[True, False], [True, True]]), dim=0, keepdim=True),
    lambda M: M.any(M.tensor([[0.0, 1.0], [0.0, 0.0]]), 1),
    lambda M: M.any(M.tensor([[0, 1], [0, 0]], dtype=M.uint8)),
    lambda M: M.all(M.tensor([[0, 1], [0, 0]], dtype=M.uint8), 0),
    lambda M: M.any(M.tensor([[0, 1], [0, 0]]), (0, 1)),
    lambda M: M.any(M.tensor([[0, 1], [0, 0]]), ()),
    lambda M: M.tensor([[0, 1], [0, 0]]).all(dim=(0,)),
    lambda M: M.all(M.tensor(3.0), 0),
    lambda M: M.any(M.tensor(0.0), -1),
    lambda M: M.all(M.zeros(0)),
    lambda M: M.any(M.zeros(0)),
    lambda M: M.all(M.zeros(0, 3), 1),
    lambda M: M.tensor([1.0, NAN]).all(),
]


@pytest.mark.parametrize("i", range(len(SAME)))
def test_matches_torch(i):
    assert_same_as_torch(SAME[i])


ERRORS = [
    (lambda M: M.isclose(M.tensor([1.0, 2.0]), M.tensor([1.0], dtype=M.float64)), "Float did not match Double"),
    (lambda M: M.isclose(M.tensor([1, 2]), M.tensor([1.0, 2.0])), "Long did not match Float"),
    (lambda M: M.isclose(M.tensor([1.0, 2.0]), 1.0), "argument 'other' (position 2) must be Tensor, not float"),
    (lambda M: M.isclose(M.tensor([1.0]), M.tensor([1.0]), atol=-1), "atol must be greater than or equal to zero, but got -1"),
    (lambda M: M.isclose(M.tensor([1.0]), M.tensor([1.0]), rtol=-0.5), "rtol must be greater than or equal to zero, but got -0.5"),
    (lambda M: M.allclose(M.tensor([1.0, 2.0]), M.tensor([1.0, 2.0], dtype=M.float64)), "Float did not match Double"),
    (lambda M: M.allclose(M.tensor([1.0, 2.0]), M.tensor([1.0, 2.0, 3.0])),
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda M: M.equal(M.tensor([1.0, 2.0]), 1.0), "argument 'other' (position 2) must be Tensor, not float"),
    (lambda M: M.any(M.tensor([[0, 1], [0, 0]]), 2), "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda M: M.count_nonzero(M.ones(3), 1), "Dimension out of range"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    fn, match = ERRORS[i]
    assert_same_as_torch(fn, match=match)
