"""``torch.testing.assert_close`` for scripts that check their own numbers.

Defaults follow PyTorch: for float32 ``rtol=1.3e-6, atol=1e-5``; float64 ``1e-7, 1e-7``;
float16 ``1e-3, 1e-5``; integers and bools exactly. ``|actual - expected| <= atol + rtol *
|expected|`` elementwise; NaNs only match with ``equal_nan=True``.
"""
from __future__ import annotations

from ..tensor import Tensor

__all__ = ["assert_close", "assert_allclose"]

_TOL = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise AssertionError (with the greatest differences) unless ``actual`` and
    ``expected`` are close; both may be tensors, numbers or nested sequences/dicts."""
    from ..ops.factories import tensor as _tensor
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and actual.keys() == expected.keys(), \
            msg or f"The keys differ: {list(actual)} vs {list(expected)}"
        for k in expected:
            assert_close(actual[k], expected[k], rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_dtype=check_dtype, msg=msg)
        return
    if isinstance(expected, (list, tuple)) and not isinstance(actual, Tensor):
        assert len(actual) == len(expected), msg or \
            f"The length of the sequences mismatch: {len(actual)} != {len(expected)}"
        for a, e in zip(actual, expected):
            assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_dtype=check_dtype, msg=msg)
        return
    a = actual if isinstance(actual, Tensor) else _tensor(actual)
    e = expected if isinstance(expected, Tensor) else _tensor(expected)
    if tuple(a.shape) != tuple(e.shape):
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: "
                                    f"{a.shape} != {e.shape}.")
    if check_dtype and a.dtype != e.dtype and isinstance(actual, Tensor) and \
            isinstance(expected, Tensor):
        raise AssertionError(msg or f"The values for attribute 'dtype' do not match: "
                                    f"{a.dtype} != {e.dtype}.")
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but "
                         f"got no {'rtol' if rtol is None else 'atol'}.")
    if rtol is None:
        rtol, atol = _TOL.get(str(e.dtype).replace("viewgrad.", ""), (0.0, 0.0))
    a64, e64 = a.detach().cpu().double(), e.detach().cpu().double()
    diff = (a64 - e64).abs()
    both_nan = (a64 != a64) & (e64 != e64)
    bad = ~((diff <= atol + rtol * e64.abs()) | (both_nan if equal_nan else both_nan & False))
    if bool(bad.any()):
        n, total = int(bad.sum().item()), e.numel()
        raise AssertionError(msg or (
            f"Tensor-likes are not close!\n\nMismatched elements: {n} / {total} "
            f"({100.0 * n / max(total, 1):.1f}%)\nGreatest absolute difference: "
            f"{diff.max().item()} (up to {atol} allowed)\nGreatest relative difference: "
            f"{(diff / e64.abs()).max().item()} (up to {rtol} allowed)"))


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """The deprecated spelling: assert_close without the dtype check."""
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_dtype=False, msg=msg or None)
