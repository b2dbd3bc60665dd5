"""Linear algebra as LAPACK and PyTorch do it, on every device: the error a singular
matrix raises, results laid out column-major (``lapack_layout``), an inverse that
factorises the matrix itself, and where a factorisation fails (the pivot or minor
PyTorch's messages name)."""
from __future__ import annotations

import contextlib

import numpy as np

from .devices import device_of_array, xp_of

_ndarray = np.ndarray

__all__ = ["LinAlgError", "lu_zero_pivot", "first_non_pd_minor", "linalg_raises",
           "lapack_layout", "inv"]


LinAlgError = np.linalg.LinAlgError   # what numpy (and CuPy) raise for a singular matrix


def lu_zero_pivot(a) -> int:
    """The 1-based position of the first zero pivot of the LU factorisation with partial
    pivoting (LAPACK's getrf) of the host matrix ``a``, or 0 if there is none."""
    u = np.array(a, dtype=a.dtype if a.dtype.kind == "f" else np.float64)
    n = u.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(u[k:, k])))
        if u[p, k] == 0:
            return k + 1
        u[[k, p]] = u[[p, k]]
        u[k + 1:, k:] -= np.outer(u[k + 1:, k] / u[k, k], u[k, k:])
    return 0


def first_non_pd_minor(a) -> int:
    """The order of the first leading minor of the host matrix ``a`` (lower triangle
    read) whose Cholesky factorisation fails, or 0 if ``a`` is positive-definite."""
    for k in range(1, a.shape[0] + 1):
        try:
            np.linalg.cholesky(a[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return 0


def linalg_raises(a):
    """A context in which the linear algebra of ``a``'s device raises ``LinAlgError`` for a
    singular or non-positive-definite matrix: numpy does by itself, CuPy only when asked
    (it returns inf/nan otherwise, where PyTorch raises)."""
    if type(a) is _ndarray:
        return _NO_CONTEXT
    dev = device_of_array(a)
    if dev is not None and dev.type == "cuda":
        import cupyx
        return cupyx.errstate(linalg="raise")
    return _NO_CONTEXT


_NO_CONTEXT = contextlib.nullcontext()


def lapack_layout(a):
    """``a`` laid out as LAPACK writes a matrix, and as PyTorch returns the result of a
    linear-algebra kernel (an inverse, a solve, a factor): each matrix column-major, the
    batch dims outermost (strides ``(..., 1, m)``). So ``Q.is_contiguous()`` is False and
    ``Q.view(-1)`` refuses, as in PyTorch; a 0-d or 1-d array is returned as it is."""
    if a.ndim < 2:
        return a
    xp = xp_of(a)
    return xp.swapaxes(xp.swapaxes(a, -1, -2).copy(), -1, -2)


def inv(a):
    """``xp.linalg.inv(a)`` factorising ``a`` itself on every device (LU with partial
    pivoting), as LAPACK and PyTorch's kernels do. CuPy hands a C-ordered matrix to
    cuSOLVER as it lies in memory, that is transposed, and the pivots of the transpose
    differ: a singular float32 matrix then meets no exactly zero pivot and comes back as a
    huge finite "inverse" where PyTorch raises. So on CUDA: inv(A) = inv(Aᵀ laid out
    C-ordered)ᵀ, whose factorisation is A's."""
    if type(a) is not _ndarray:
        dev = device_of_array(a)
        if dev is not None and dev.type == "cuda":
            xp = dev.xp
            t = xp.ascontiguousarray(xp.swapaxes(a, -1, -2))
            return xp.swapaxes(xp.linalg.inv(t), -1, -2)
    return xp_of(a).linalg.inv(a)
