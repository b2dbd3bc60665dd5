"""Note [overlapping writes] (backend/strided.py): an in-place write whose elements, or
whose operand's, share memory in a way PyTorch's cheap tests cannot see is refused where
the result depends on the order of the writes (NumPy would silently compute something
else); an elementwise op of the written tensor alone runs position by position, as
PyTorch's loop; every write PyTorch computes deterministically matches it."""
import itertools

import numpy as np
import pytest

import viewgrad as vg
from viewgrad import backend as B
from tests.helpers import torch_or_skip


def _unfold_mul(L):
    b = L.arange(4, dtype=L.float64)
    b.unfold(0, 3, 1).mul_(2)
    return b


def _unfold_setitem(L):
    b = L.arange(6.)
    b.unfold(0, 3, 1)[L.tensor([0])] = 0.5
    return b


def _broadcast_alias(L):
    x = L.tensor([[1., 2.], [3., 4.]])
    x.add_(x[:, :1])
    return x


def _unfold_of_a_graph(L):
    a = L.tensor([1., 2., 3., 4.], requires_grad=True)
    b = a * 1
    b.unfold(0, 2, 1).mul_(2)
    return b


ORDER_DEPENDENT = [_unfold_setitem, _broadcast_alias, _unfold_of_a_graph]


@pytest.mark.parametrize("fn", ORDER_DEPENDENT, ids=lambda f: f.__name__)
def test_order_dependent_writes_are_refused(fn):
    with pytest.raises(RuntimeError, match=r"single memory location.*clone\(\)"):
        fn(vg)


def _unfold_exp(L):
    b = L.arange(5, dtype=L.float64) / 4
    b.unfold(0, 3, 1).exp_()
    return b


def _strided_add_number(L):
    b = L.arange(8, dtype=L.float32)
    b.as_strided((3, 2), (2, 1), 1).add_(0.5)
    return b


def _unfold_clamp(L):
    b = L.arange(6, dtype=L.float64)
    b.unfold(0, 4, 1).clamp_(1.0, 3.0)
    return b


def _fill_unfold(L):
    b = L.arange(6.)
    b.unfold(0, 3, 1).fill_(1.5)
    return b


def _zero_unfold(L):
    b = L.arange(6.)
    b.unfold(0, 3, 1).zero_()
    return b


def _same_column(L):
    x = L.tensor([[1., 2.], [3., 4.]])
    x[:, 0].add_(x[:, 0])
    return x


def _other_column(L):
    x = L.tensor([[1., 2.], [3., 4.]])
    x[:, 0].add_(x[:, 1])
    return x


def _self_and_detached(L):
    b = L.arange(6.).reshape(2, 3)
    b.mul_(b)
    b.add_(b.detach())
    return b


def _transposed_partial(L):
    x = L.tensor([[1., 2.], [3., 4.]])
    x.mul_(x.t())
    return x


@pytest.mark.parametrize("fn", [_unfold_mul, _unfold_exp, _strided_add_number, _unfold_clamp,
                                _fill_unfold, _zero_unfold, _same_column, _other_column,
                                _self_and_detached, _transposed_partial],
                         ids=lambda f: f.__name__)
def test_deterministic_writes_as_torch(fn):
    torch = torch_or_skip()
    out = []
    for L in (vg, torch):
        try:
            out.append(fn(L).tolist())
        except RuntimeError as e:
            out.append(("raises", "single memory location" in str(e)))
    assert out[0] == out[1]


@pytest.mark.host_only("builds NumPy geometries directly")
def test_internal_overlap_is_exact():
    rng = np.random.default_rng(0)
    buf = np.zeros(64)
    for _ in range(2000):
        nd = int(rng.integers(1, 4))
        shape = tuple(int(v) for v in rng.integers(1, 4, nd))
        strides = tuple(int(v) for v in rng.integers(0, 6, nd))
        if sum((n - 1) * s for n, s in zip(shape, strides)) >= 64:
            continue
        a = np.lib.stride_tricks.as_strided(buf, shape, [s * 8 for s in strides])
        offsets = [sum(i * s for i, s in zip(ix, strides))
                   for ix in itertools.product(*(range(n) for n in shape))]
        assert B.has_internal_overlap(a) == (len(set(offsets)) < len(offsets)), (shape, strides)
