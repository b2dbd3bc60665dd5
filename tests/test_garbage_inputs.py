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
    ("300 as uint8", lambda m: m.tensor([1, 300], dtype=m.uint8), RuntimeError,
     "value cannot be converted to type uint8 without overflow"),
    ("NaN as int64", lambda m: m.tensor([float("nan")], dtype=m.int64), RuntimeError,
     "value cannot be converted to type int64 without overflow"),
    ("1e30 as int64", lambda m: m.tensor([[1e30]], dtype=m.int64), RuntimeError,
     "value cannot be converted to type int64 without overflow"),
    ("2**40 as int32", lambda m: m.tensor(2 ** 40, dtype=m.int32), RuntimeError,
     "value cannot be converted to type int32 without overflow"),
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


def test_numbers_that_fit_after_conversion_are_stored_as_pytorch_stores_them():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch stores these silently
        assert vg.tensor([-1, 255], dtype=vg.uint8).tolist() == [255, 255]  # wraps, as C
        assert vg.tensor([2.7, -2.7], dtype=vg.int64).tolist() == [2, -2]  # truncates
        assert vg.tensor([1e40], dtype=vg.float32).tolist() == [float("inf")]
        assert vg.tensor([70000], dtype=vg.float16).tolist() == [float("inf")]
