"""Results a differential fuzz found differing from PyTorch 2.13 (dtype, value or raise),
each compared with torch: three-tensor ops in their common dtype (addcmul, addcdiv), clamp
of a bool tensor by numbers, a Python number first (remainder, floor_divide, div with a
rounding mode, the bitwise ops), bool + number * alpha, out='s cast check and resize,
unique's NaNs, searchsorted in the pair's common dtype, split's negative sizes, bool pow."""
import warnings

import numpy as np
import pytest

import viewgrad as vg
from tests.helpers import torch_or_skip

NAN = float("nan")

CASES = {
    "addcmul int self, float tensors": lambda L, T: L.addcmul(T([1]), T([2.]), T([3.])),
    "addcmul float16": lambda L, T: L.addcmul(T([1]), T([2.], dtype=L.float16),
                                              T([3.], dtype=L.float16)),
    "addcmul 0-d": lambda L, T: L.addcmul(T(1), T([2], dtype=L.int32), T(3, dtype=L.uint8)),
    "addcmul bool tensor": lambda L, T: L.addcmul(T([1.]), T([True]), T([2.])),
    "addcmul all bool": lambda L, T: L.addcmul(T([True]), T([True]), T([False])),
    "addcdiv int self": lambda L, T: L.addcdiv(T([1]), T([2.]), T([3.]), value=0.5),
    "addcmul float64 0-d": lambda L, T: L.addcmul(T([1.]), T([2.]), T(3., dtype=L.float64)),
    "clamp bool min": lambda L, T: L.clamp(T([True, False]), min=-2),
    "clamp bool both": lambda L, T: L.clamp(T([True, False]), 0, 4),
    "clamp bool max": lambda L, T: L.clamp(T([True, False]), max=0),
    "clamp bool by bool": lambda L, T: L.clamp(T([True, False]), True),
    "clamp bool by bools": lambda L, T: L.clamp(T([True, False]), False, True),
    "clamp bool float": lambda L, T: L.clamp(T([True, False]), 0.5),
    "clip bool": lambda L, T: L.clip(T([True, False]), 0, 4),
    "clamp_ bool int": lambda L, T: T([True]).clamp_(0, 4),
    "clamp_ int float": lambda L, T: T([1, 2]).clamp_(0.5),
    "clamp_ int8 float": lambda L, T: T([1, 2], dtype=L.int8).clamp_(0.5, 3),
    "clamp_ float16 overflow": lambda L, T: T([1.], dtype=L.float16).clamp_(1e6),
    "clamp uint8 -1": lambda L, T: L.clamp(T([1, 2], dtype=L.uint8), -1),
    "clamp int8 300": lambda L, T: L.clamp(T([1], dtype=L.int8), -300, 300),
    "div trunc 0-d int8": lambda L, T: L.div(T(-2, dtype=L.int8), -1, rounding_mode="trunc"),
    "div floor 0-d int16": lambda L, T: L.div(T(-7, dtype=L.int16), 2, rounding_mode="floor"),
    "div floor number first": lambda L, T: L.div(5, T([2, 3]), rounding_mode="floor"),
    "div trunc number first float": lambda L, T: L.div(5.5, T([2., -3.]),
                                                       rounding_mode="trunc"),
    "remainder number first": lambda L, T: L.remainder(5, T([2, 3])),
    "remainder number first 0-d": lambda L, T: L.remainder(-5, T(3, dtype=L.int8)),
    "floor_divide number first": lambda L, T: L.floor_divide(5, T([2, 3])),
    "bitwise_and number first 0-d": lambda L, T: L.bitwise_and(-4, T(2, dtype=L.uint8)),
    "left shift number first 0-d": lambda L, T: L.bitwise_left_shift(3, T(2, dtype=L.int32)),
    "bitwise_or bool number first": lambda L, T: L.bitwise_or(True, T([1, 2], dtype=L.int8)),
    "bool add alpha": lambda L, T: T([True, False]).add(False, alpha=2),
    "bool add True alpha 0": lambda L, T: T([True, False]).add(True, alpha=0),
    "bool add int alpha": lambda L, T: T([True, False]).add(1, alpha=2),
    "fmax out int": lambda L, T: L.fmax(T([2.7]), T([0.]), out=L.empty(1, dtype=L.int64)),
    "atan2 out int": lambda L, T: L.atan2(T([2.7]), T([1.]), out=L.empty(1, dtype=L.int64)),
    "eq out empty": lambda L, T: L.eq(T([1, 2]), 1, out=L.empty(0, dtype=L.bool)),
    "hypot out float64": lambda L, T: L.hypot(T([3.]), T([4.]),
                                              out=L.empty(1, dtype=L.float64)),
    "unique NaN": lambda L, T: L.unique(T([NAN, 1., NAN, 2., 1.]), return_inverse=True,
                                        return_counts=True),
    "unique_consecutive size-1 dim": lambda L, T: L.unique_consecutive(T([[5, -4]]), dim=0,
                                                                       return_counts=True),
    "bucketize 0-d int8 in uint8": lambda L, T: L.bucketize(T(-3, dtype=L.int8),
                                                            T([0], dtype=L.uint8)),
    "searchsorted 0-d int32 in uint8": lambda L, T: L.searchsorted(T([0, 2], dtype=L.uint8),
                                                                   T(-3, dtype=L.int32)),
    "searchsorted int8 in uint8 n-d": lambda L, T: L.searchsorted(
        T([0, 2, 200], dtype=L.uint8), T([-3, 1, 100], dtype=L.int8)),
    "searchsorted empty rows": lambda L, T: L.searchsorted(L.zeros(2, 0, dtype=L.int64),
                                                           T([[1], [2]])),
    "split negative size": lambda L, T: L.split(T([1, 2, 3]), [3, -3]),
    "pow bool number first": lambda L, T: L.pow(False, T([False])),
    "pow int number first bool": lambda L, T: L.pow(2, T([True])),
    # the dtype and shape checks of the indexed writes
    "scatter_add_ dtype": lambda L, T: L.zeros(3).scatter_add_(0, T([1]), L.ones(1, dtype=L.float64)),
    "scatter_ dtype": lambda L, T: L.zeros(3).scatter_(0, T([1]), L.ones(1, dtype=L.float64)),
    "index_put_ dtype": lambda L, T: L.zeros(3).index_put_((T([1]),), L.ones(1, dtype=L.float64)),
    "index_put dtype": lambda L, T: L.zeros(3).index_put((T([1]),), L.ones(1, dtype=L.float64)),
    "index_put_ mask one value": lambda L, T: L.zeros(3).index_put_(
        (T([True, False, False]),), L.ones(1, dtype=L.float64)),
    "setitem index dtype": lambda L, T: _set(L.zeros(3), T([0, 1]), L.ones((), dtype=L.int64)),
    "setitem mask one value": lambda L, T: _set(L.zeros(3), T([True, False, False]),
                                                L.ones((), dtype=L.float64)),
    "setitem mask two values": lambda L, T: _set(L.zeros(3), T([True, True, False]),
                                                 L.ones(2, dtype=L.float64)),
    "index_add_ 0-d source, dim 1": lambda L, T: L.zeros(2, 3).index_add_(1, T([0]), T(1.)),
    "index_add_ 0-d source, dim 0": lambda L, T: L.zeros(2, 3).index_add_(0, T([0]), T(1.)),
    "index_add_ 0-d source, 1-D": lambda L, T: L.zeros(3).index_add_(0, T([0]), T(1.)),
    "index_add_ 0-d both": lambda L, T: L.zeros(()).index_add_(0, T([0]), T(1.)),
    "index_copy_ 0-d source, 2-D": lambda L, T: L.zeros(2, 3).index_copy_(1, T([0]), T(1.)),
    "index_copy_ 0-d source, 1-D": lambda L, T: L.zeros(3).index_copy_(0, T([0]), T(1.)),
    "unflatten -1 of an empty tensor": lambda L, T: L.zeros(1, 0).unflatten(0, (1, -1)),
    "unflatten 0 and -1": lambda L, T: L.zeros(0, 3).unflatten(0, (0, -1)),
    "unflatten 0 and -1 of 6": lambda L, T: L.zeros(6).unflatten(0, (0, -1)),
}


def _set(x, key, value):
    x[key] = value
    return x


def _outcome(L, fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(L, L.tensor)
    except Exception as e:   # noqa: BLE001 - what each raises is the comparison
        return ("raises", type(e).__name__, str(e).split("\n")[0])
    rs = r if isinstance(r, (tuple, list)) else (r,)
    return tuple((str(x.dtype).split(".")[-1], tuple(x.shape),
                  np.asarray(x.tolist(), dtype=object).tolist()) for x in rs)


def _same(a, b):
    if a[0] == "raises" or b[0] == "raises":
        return a == b
    return len(a) == len(b) and all(
        x[0] == y[0] and x[1] == y[1] and np.array_equal(np.asarray(x[2], dtype=float),
                                                         np.asarray(y[2], dtype=float),
                                                         equal_nan=True)
        for x, y in zip(a, b))


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_torch(name):
    torch = torch_or_skip()
    v, t = _outcome(vg, CASES[name]), _outcome(torch, CASES[name])
    assert _same(v, t), (v, t)


def test_out_resized_with_torchs_warning():
    torch = torch_or_skip()
    for L in (vg, torch):
        o = L.zeros(3, dtype=L.bool)
        with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
            L.eq(L.tensor([1., 2.]), 1, out=o)
        assert tuple(o.shape) == (2,) and o.tolist() == [True, False]


def test_addcmul_gradients_in_the_common_dtype():
    torch = torch_or_skip()
    outs = []
    for L in (vg, torch):
        a = L.tensor([1., 2.], dtype=L.float32, requires_grad=True)
        b = L.tensor([3., 4.], dtype=L.float64, requires_grad=True)
        c = L.tensor(2., dtype=L.float64, requires_grad=True)
        r = L.addcmul(a, b, c, value=0.5) + L.addcdiv(a, b, c, value=0.25)
        r.sum().backward()
        outs.append([(str(x.dtype).split(".")[-1], x.tolist())
                     for x in (r.detach(), a.grad, b.grad, c.grad)])
    assert outs[0] == outs[1]
