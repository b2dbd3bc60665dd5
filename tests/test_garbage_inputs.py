"""Data that is not numbers gets PyTorch's error type and a clear message (issue 15),
never a tensor of Python objects or strings, and sizes must be ints (never truncated)."""
import pytest

import viewgrad as vg

try:
    import torch
except ImportError:  # the oracle is optional; the viewgrad side still runs
    torch = None

CASES = [
    ("None", lambda m: m.tensor(None), RuntimeError, "Could not infer dtype of NoneType"),
    ("None inside a list", lambda m: m.tensor([1.0, None]), RuntimeError,
     "Could not infer dtype of NoneType"),
    ("a string", lambda m: m.tensor("abc"), TypeError, "invalid data type 'str'"),
    ("a string inside a list", lambda m: m.tensor([1, "a"]), TypeError,
     "invalid data type 'str'"),
    ("an int past 64 bits", lambda m: m.tensor(2 ** 70), ValueError, "Overflow"),
    ("a float size", lambda m: m.randn(2.5), TypeError, None),
    ("a float size in a tuple", lambda m: m.zeros((2, 1.5)), TypeError, None),
]


@pytest.mark.parametrize("what,make,exc,text", CASES, ids=[c[0] for c in CASES])
def test_garbage_data_is_refused_like_pytorch(what, make, exc, text):
    with pytest.raises(exc) as info:
        make(vg)
    if text:
        assert text in str(info.value)
    if torch is not None:
        with pytest.raises(exc):
            make(torch)


def test_numbers_still_work():
    assert vg.tensor([1, 2]).dtype == vg.int64
    assert vg.tensor([True]).dtype == vg.bool
    assert vg.tensor(3.5).item() == 3.5
    assert vg.tensor(2 ** 63 - 1).item() == 2 ** 63 - 1
    assert tuple(vg.randn(2, 3).shape) == (2, 3)
    assert tuple(vg.zeros((2, 3)).shape) == (2, 3)
