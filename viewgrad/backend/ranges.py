"""PyTorch's CPU ``arange`` and ``logspace`` values, bit for bit, on host arrays.

PyTorch does not compute ``arange(start, end, step)[i]`` as one ``start + i*step``:

  * the arithmetic is in the dtype's accumulate type (double for float32 and float64,
    float for float16, int64 for the integer dtypes: ``at::acc_type<T, false>``);
  * its kernel (aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp) fills whole vectors
    of ``VEC_BYTES`` at a time over the first ``2*V*floor(n / 2V)`` elements: a vector
    starting at ``j`` holds ``T(base + k*step)`` with ``base = T(start + j*step)``, and
    the elements after them are ``T(start + i*step)``;
  * that file is built with FMA, and the compiler fuses each ``x + y*z``: one rounding.

NumPy has no fused multiply-add, so ``_fma64`` / ``_fma32`` emulate it exactly with
error-free transformations (Boldo & Melquiond, "Emulation of FMA and correctly rounded
sums: proved algorithms using rounding to odd", 2008).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["torch_arange", "torch_logspace", "ARANGE_VEC_BYTES"]

# The width of PyTorch's CPU vectors (at::vec::Vectorized) in bytes: 32 for its AVX2 and
# default builds and on ARM; 64 where it dispatches to AVX-512, and there the values of
# a float arange may differ from these in the last bit.
ARANGE_VEC_BYTES = 32

_SPLIT = 134217729.0   # 2**27 + 1: Veltkamp's splitter for float64


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a, b):
    """``(p, e)`` with ``p + e == a*b`` exactly (Dekker's product, no FMA needed)."""
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_to_odd(s, err):
    """``s + err`` (``s`` its nearest float64, ``err`` the exact rest) rounded to odd: an
    inexact result takes the neighbour whose last bit is 1, so that a later rounding to
    nearest cannot round twice."""
    even = (s.view(np.int64) & 1) == 0
    fix = (err != 0) & even
    return np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)


def _fma64(a, b, c):
    """``a*b + c`` rounded once, in float64 arrays."""
    a, b, c = (np.asarray(x, dtype=np.float64) for x in (a, b, c))
    uh, ul = _two_prod(a, b)
    th, tl = _two_sum(c, uh)
    v, w = _two_sum(tl, ul)
    return th + _round_to_odd(v, w)


def _fma32(a, b, c):
    """``a*b + c`` rounded once to float32 (float32 operands: the product is exact in
    float64, and the sum rounded to odd there rounds to float32 as the exact one)."""
    p = np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)
    s, e = _two_sum(p, np.asarray(c, dtype=np.float64))
    return _round_to_odd(s, e).astype(np.float32)


def torch_arange(start, step, n: int, dtype):
    """The ``n`` values of PyTorch's CPU ``arange`` from ``start`` by ``step`` as a host
    array of ``dtype`` (float16/32/64 or an integer dtype). For an integer dtype
    ``start`` and ``step`` must be ints already (PyTorch truncates them to int64 first)."""
    dtype = np.dtype(dtype)
    idx = np.arange(n, dtype=np.int64)
    if dtype.kind in "iub":
        # int64 arithmetic (wrapping, as the C++ does), then a wrapping cast
        return (np.int64(start) + np.int64(step) * idx).astype(dtype)
    V = ARANGE_VEC_BYTES // dtype.itemsize
    j = idx - idx % V                       # where each element's vector starts
    k = idx - j
    if dtype == np.float16:                 # accumulates in float
        fma, acc = _fma32, np.float32
    else:
        fma, acc = _fma64, np.float64
    s, st = acc(start), acc(step)
    with np.errstate(all="ignore"):   # (an infinite step's splitting makes NaNs, unused)
        tail = fma(st, idx.astype(acc), s).astype(dtype)
        base = fma(st, j.astype(acc), s).astype(dtype)
        vec = fma(k.astype(acc), st, base.astype(acc)).astype(dtype)
    return np.where(idx < n - n % (2 * V), vec, tail)


def _c_pow(b, x):
    """C's ``pow(b, v)`` for each double v of ``x``, as PyTorch's ``std::pow``: NumPy's
    power agrees with it except on a CPU where NumPy runs its own AVX-512 kernels (not
    correctly rounded in the last place), so each finite result is taken from C's pow,
    through Python's ``math.pow``."""
    out = np.power(b, x)
    fin = np.isfinite(out)
    if fin.any():
        vals = []
        for v in x[fin].tolist():
            try:
                vals.append(math.pow(b, v))
            except (OverflowError, ValueError):   # (the edge of the range: NumPy's answer)
                vals.append(float(np.power(b, v)))
        out[fin] = vals
    return out


def torch_logspace(start, end, steps: int, base, dtype):
    """PyTorch's CPU ``logspace`` (aten/src/ATen/native/RangeFactories.cpp, built without
    FMA): ``start`` and ``end`` as the dtype holds them (the caller converts them), step
    = (end - start) / (steps - 1), the difference in the dtype, the division in double; the first half ``base ** (start + step*i)``,
    the second ``base ** (end - step*(steps-1-i))``, pow in double, then cast."""
    dtype = np.dtype(dtype)
    i = np.arange(steps, dtype=np.float64)
    with np.errstate(all="ignore"):
        if dtype.kind in "iub":   # (ints: their difference is exact)
            s, e = np.float64(int(start)), np.float64(int(end))
            diff = np.float64(int(end) - int(start))
        else:   # the difference is taken in the dtype: float32 - float32 is a float32
            s, e = np.float64(dtype.type(start)), np.float64(dtype.type(end))
            diff = np.float64(dtype.type(end) - dtype.type(start))
        b = np.float64(base)
        step = diff / np.float64(steps - 1)
        x = np.where(np.arange(steps) < steps // 2, s + step * i,
                     e - step * (np.float64(steps - 1) - i))
        out = _c_pow(b, x)
        # (a double becomes a Half through float: two roundings, as c10::Half's constructor;
        # out of an integer dtype's range, the cast is C's, undefined, silently)
        return (out.astype(np.float32) if dtype == np.float16 else out).astype(dtype)
