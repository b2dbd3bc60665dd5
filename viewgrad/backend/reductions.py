"""Reductions whose floating-point warnings stay inside viewgrad: sum, prod and mean of an
array, and ``quietly`` for the NumPy functions written in Python (nansum, det, slogdet).

Note [warnings from NumPy's own Python]
Note [floating-point warnings] (backend/__init__.py) silences NumPy's "invalid value" and
"overflow" warnings by the module they are attributed to: viewgrad's. A ufunc called from
a viewgrad frame is attributed to that frame; but ``ndarray.sum``, ``.prod`` and ``.mean``
run NumPy's Python helpers (``numpy/_core/_methods.py``), and ``np.nansum`` or
``np.linalg.det`` are Python functions themselves, so their warnings (``sum`` of inf and
-inf: "invalid value encountered in reduce") were attributed to NumPy and reached the
user, where PyTorch is silent — and were an exception under ``python -W error``.
Silencing NumPy's modules instead would silence the user's own NumPy too. So the common
reductions call the ufunc's ``reduce`` here, exactly what NumPy's helpers call (the same
bits), and the rarer Python functions run under ``np.errstate``. Other devices' arrays
(CuPy, the strict test device) never warn: they take their own methods.
"""
from __future__ import annotations

import numpy as np

__all__ = ["array_sum", "array_prod", "array_mean", "quietly"]

_HOST = np.ndarray
_sum = np.add.reduce
_prod = np.multiply.reduce
_divide = np.true_divide
_F8, _F4, _F2 = np.dtype("f8"), np.dtype("f4"), np.dtype("f2")
_intp = np.intp


def array_sum(a, axis=None, dtype=None, keepdims=False):
    """``a.sum(axis=axis, dtype=dtype, keepdims=keepdims)`` (Note [warnings from NumPy's
    own Python])."""
    if type(a) is _HOST:
        return _sum(a, axis, dtype, None, keepdims)
    return a.sum(axis=axis, dtype=dtype, keepdims=keepdims)


def array_prod(a, axis=None, dtype=None, keepdims=False):
    """``a.prod(axis=axis, dtype=dtype, keepdims=keepdims)`` (Note [warnings from NumPy's
    own Python])."""
    if type(a) is _HOST:
        return _prod(a, axis, dtype, None, keepdims)
    return a.prod(axis=axis, dtype=dtype, keepdims=keepdims)


def array_mean(a, axis=None, keepdims=False, dtype=None):
    """``a.mean(axis=axis, keepdims=keepdims, dtype=dtype)``: NumPy's own steps for a host
    array (the sum — in ``dtype`` if given, else in float32 for float16 and in float64 for
    integers — then a division by the count as an intp, the result in the sum's dtype,
    float16's rounded back), so the same bits, with no warning for an empty slice (PyTorch
    gives NaN silently) (Note [warnings from NumPy's own Python])."""
    if type(a) is not _HOST:
        return a.mean(axis=axis, keepdims=keepdims, dtype=dtype)
    shape = a.shape
    if axis is None:
        count = a.size
    else:
        count = 1
        nd = len(shape)
        for ax in (axis if type(axis) is tuple else (axis,)):
            count *= shape[ax + nd if ax < 0 else ax]
    count = _intp(count)
    dt = a.dtype
    half = False
    if dtype is not None:
        sum_dt = dtype
    elif dt.kind in "biu":
        sum_dt = _F8
    elif dt == _F2:
        sum_dt, half = _F4, True
    else:
        sum_dt = None
    s = _sum(a, axis, sum_dt, None, keepdims)
    if type(s) is _HOST:
        s = _divide(s, count, out=s, casting="unsafe")
        return s.astype(dt) if half else s
    return dt.type(s / count) if half else s.dtype.type(s / count)


def quietly(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` with NumPy's floating-point warnings off: for NumPy
    functions written in Python (nansum, linalg.det...), whose warnings the module filter
    cannot tell from the user's (Note [warnings from NumPy's own Python]). The errstate
    costs ~1 µs: not for the hot path."""
    with np.errstate(all="ignore"):
        return fn(*args, **kwargs)
