"""Linear algebra as LAPACK and PyTorch do it, on every device: the error a singular
matrix raises, results laid out column-major (``lapack_layout``), an inverse that
factorises the matrix itself, and where a factorisation fails (the pivot or minor
PyTorch's messages name)."""
from __future__ import annotations

import contextlib

import numpy as np

from .devices import device_of_array, xp_of

_ndarray = np.ndarray

__all__ = ["LinAlgError", "lu_zero_pivot", "getrf_solve", "potf2", "solve_each",
           "cholesky_each", "first_non_pd_minor",
           "linalg_raises", "lapack_layout", "inv"]


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


def getrf_solve(a, b):
    """``a x = b`` for host matrices as LAPACK's getrf and getrs compute it, a singular
    ``a`` included (what ``solve_ex`` and ``inv_ex`` return with a nonzero info): LU
    with partial pivoting, a zero pivot's column left as it is (getf2), then the two
    triangular solves, whose division by the zero pivot gives inf and NaN."""
    u = np.array(a, dtype=np.result_type(a, b, np.float32))
    x = np.array(b, dtype=u.dtype)
    n = u.shape[0]
    with np.errstate(all="ignore"):
        for k in range(n):
            p = k + int(np.argmax(np.abs(u[k:, k])))
            if u[p, k] != 0:
                u[[k, p]], x[[k, p]] = u[[p, k]], x[[p, k]]
                u[k + 1:, k] /= u[k, k]
            u[k + 1:, k + 1:] -= np.outer(u[k + 1:, k], u[k, k + 1:])
        for k in range(n):   # L (unit diagonal), forward
            x[k + 1:] -= np.outer(u[k + 1:, k], x[k])
        for k in range(n - 1, -1, -1):   # U, backward
            x[k] = (x[k] - u[k, k + 1:] @ x[k + 1:]) / u[k, k]
    return x


def potf2(a):
    """The lower Cholesky factor of host matrix ``a`` (its lower triangle read) as
    LAPACK's potf2 leaves it when the matrix is not positive-definite (what
    ``cholesky_ex`` returns with a nonzero info): the columns before the failing one
    factored, the failing diagonal entry holding a_jj - |l_j|² (not square-rooted), the
    rest of the lower triangle as it was."""
    L = np.tril(np.array(a))
    n = L.shape[0]
    with np.errstate(all="ignore"):
        for j in range(n):
            d = L[j, j] - L[j, :j] @ L[j, :j].conj()
            if not d > 0:
                L[j, j] = d
                return L
            L[j, j] = np.sqrt(d)
            L[j + 1:, j] = (L[j + 1:, j] - L[j + 1:, :j] @ L[j, :j].conj()) / L[j, j]
    return L


def solve_each(a, b):
    """``a⁻¹ b`` for each matrix of the broadcast batch of host arrays, as LAPACK's gesv
    leaves it: a singular matrix's solution as ``getrf_solve`` gives it (inf and NaN),
    not an error (the ``_ex`` functions with ``check_errors=False``)."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    A = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1,) + a.shape[-2:])
    Bm = np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    out = np.empty((A.shape[0],) + Bm.shape[1:], dtype=np.result_type(a, b))
    for i in range(A.shape[0]):
        out[i] = getrf_solve(A[i], Bm[i]) if lu_zero_pivot(A[i]) else np.linalg.solve(
            A[i], Bm[i])
    return out.reshape(batch + Bm.shape[1:])


def cholesky_each(a):
    """The lower Cholesky factor of each host matrix of ``a``; one that is not
    positive-definite as ``potf2`` leaves it (the ``_ex`` functions)."""
    flat = a.reshape((-1,) + a.shape[-2:])
    out = np.empty_like(flat)
    for i in range(flat.shape[0]):
        out[i] = potf2(flat[i]) if first_non_pd_minor(flat[i]) else np.linalg.cholesky(
            flat[i])
    return out.reshape(a.shape)


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
