"""Triangular and Cholesky solves, and the small products: ``linalg.solve_triangular``
(and the old ``triangular_solve``), ``cholesky_solve``, ``cholesky_inverse``, ``vdot``,
``inner``, ``dist``, ``chain_matmul`` — with PyTorch's node names and derivatives.

A triangular solve reads only its triangle of A (the rest may hold anything, e.g. the
other factor of an LU), and A's gradient is that triangle's: the formula's result is
masked with ``triu``/``tril`` (strictly, for ``unitriangular``), as in PyTorch.
"""
from __future__ import annotations

import math

from .. import backend as B
from .. import return_types as RT
from .args import torch_type_name
from .linalg import check_vectors, matmul
from .warn_once import warn_once
from .linalg_solve import (_out, batched_solve, check_float, check_matrix, check_same_dtype,
                           check_square, multi_dot)
from .operands import need_tensor
from .pointwise import where
from .shaping import tensordot
from ..tensor import Tensor
from .table import defop, dispatch, method

__all__ = ["solve_triangular", "triangular_solve", "cholesky_solve", "cholesky_inverse",
           "vdot", "inner", "dist", "chain_matmul"]

_xp = B.xp_of


def _t(x):
    return x.transpose(-1, -2)


def _triangle(xp, A, upper, unit):
    T = xp.triu(A) if upper else xp.tril(A)
    if unit:
        n = A.shape[-1]
        T = T * (1 - xp.eye(n, dtype=A.dtype)) + xp.eye(n, dtype=A.dtype)
    return T


def _tri_fwd(A, Bm, upper, left, unit):
    xp = _xp(A, Bm)
    T = _triangle(xp, A, upper, unit)
    if left:
        return B.lapack_layout(_tri_solve(xp, T, Bm, upper))
    return B.lapack_layout(xp.swapaxes(_tri_solve(xp, xp.swapaxes(T, -1, -2),
                                                  xp.swapaxes(Bm, -1, -2), not upper), -1, -2))


def _tri_solve(xp, T, Bm, upper):
    """``T X = B`` for triangular T. A zero on the diagonal is no error for LAPACK's
    triangular solve, nor PyTorch's: it divides, giving inf and NaN; NumPy's general
    solve refuses the singular matrix, so then the rows are substituted one by one."""
    try:
        with B.linalg_raises(T):
            return batched_solve(xp, T, Bm)
    except B.LinAlgError:
        pass
    batch = B.broadcast_shapes(T.shape[:-2], Bm.shape[:-2])
    T = xp.broadcast_to(T, batch + T.shape[-2:])
    X = xp.zeros(batch + Bm.shape[-2:], dtype=xp.result_type(T, Bm))
    X[...] = Bm
    n = T.shape[-1]
    for i in (range(n - 1, -1, -1) if upper else range(n)):   # (warnings: backend's filter)
        done = slice(i + 1, n) if upper else slice(0, i)   # the rows solved already
        X[..., i, :] = (X[..., i, :] - (T[..., i, None, done] @ X[..., done, :])[..., 0, :]
                        ) / T[..., i, i, None]
    return X


def _tri_gB(row, grad, A, upper, left, unit):
    return dispatch(row, (_t(A), grad), (not upper, left, unit))


def _tri_gA(row, grad, A, result, upper, left, unit):
    gB = _tri_gB(row, grad, A, upper, left, unit)
    g = -matmul(gB, _t(result)) if left else -matmul(_t(result), gB)
    k = 1 if unit else 0
    return g.triu(k) if upper else g.tril(-k)


def _tri_row(name, node):
    row = defop(name, node, _tri_fwd, inputs=("A", "B"), attrs=("upper", "left", "unit"),
                broadcast=True,
                A=lambda grad, A, result, upper, left, unit: _tri_gA(
                    row, grad, A, result, upper, left, unit),
                B=lambda grad, A, upper, left, unit: _tri_gB(row, grad, A, upper, left, unit))
    return row


TRI = _tri_row("linalg_solve_triangular", "LinalgSolveTriangularBackward0")
TRI_LEGACY = _tri_row("triangular_solve", "TriangularSolveBackward0")


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """The X with A X = B (``left=False``: X A = B) for a triangular A — only its upper
    (``upper=True``) or lower triangle is read, with ones on the diagonal if
    ``unitriangular`` — as ``torch.linalg.solve_triangular``. Backward
    (``LinalgSolveTriangularBackward0``): one more triangular solve with Aᵀ; A's
    gradient is confined to its triangle."""
    check_matrix(A, "linalg.solve_triangular")
    check_float(A, "linalg.solve_triangular")
    if isinstance(B, Tensor) and B._data.dtype != A._data.dtype:
        B = B.to(A.dtype)   # PyTorch solves in A's dtype (B is cast, not promoted)
    return _out(dispatch(TRI, (A, B), (bool(upper), bool(left), bool(unitriangular))), out,
                "linalg.solve_triangular")


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """``torch.triangular_solve`` (deprecated in PyTorch for
    ``linalg.solve_triangular``, arguments reversed): the named tuple
    ``(solution, cloned_coefficient)`` of A X = b (``transpose``: Aᵀ X = b)."""
    warn_once("triangular_solve")   # Note [warnings given once]
    check_same_dtype(b, A, "", "b", "A", ".")
    check_square(A, "")   # (PyTorch's words, with no op name in front)
    M = _t(A) if transpose else A
    X = dispatch(TRI_LEGACY, (M, b), (bool(upper) != bool(transpose), True,
                                      bool(unitriangular)))
    return RT.triangular_solve((X, A.clone()))


method("triangular_solve")(triangular_solve)


# -- cholesky_solve, cholesky_inverse --------------------------------------------------------

def _llt(xp, L, upper):
    T = xp.triu(L) if upper else xp.tril(L)
    H = xp.swapaxes(T, -1, -2)
    if H.dtype.kind == "c":
        H = H.conj()   # (Lᴴ: the conjugate transpose)
    return H @ T if upper else T @ H


def _chol_solve_fwd(Bm, L, upper):
    # LAPACK's potrs: two triangular solves with the factor's triangle (a zero on its
    # diagonal gives inf and NaN, as PyTorch's)
    xp = _xp(Bm, L)
    T = xp.triu(L) if upper else xp.tril(L)
    Th = xp.swapaxes(T, -1, -2).conj()
    first, second = (Th, T) if upper else (T, Th)
    return B.lapack_layout(_tri_solve(xp, second, _tri_solve(xp, first, Bm, False), True))


def _chol_solve_gB(grad, L, upper):
    return dispatch(CHOL_SOLVE, (grad, L), (upper,))


def _chol_solve_gL(grad, L, result, upper):
    gB = _chol_solve_gB(grad, L, upper)
    common = matmul(gB, _t(result))
    common = common + _t(common)
    return -matmul(L, common) if upper else -matmul(common, L)


CHOL_SOLVE = defop("cholesky_solve", "CholeskySolveBackward0", _chol_solve_fwd,
                   inputs=("self", "input2"), attrs=("upper",), broadcast=True,
                   self=lambda grad, input2, upper: _chol_solve_gB(grad, input2, upper),
                   input2=lambda grad, input2, result, upper: _chol_solve_gL(
                       grad, input2, result, upper))


@method("cholesky_solve")
def cholesky_solve(B, L, upper=False, *, out=None):
    """The X with (L Lᵀ) X = B given the Cholesky factor L (``upper``: A = Uᵀ U), as
    ``torch.cholesky_solve``. Backward (``CholeskySolveBackward0``): gB is a
    cholesky_solve of the gradient; L's gradient -(gB Xᵀ + X gBᵀ) L."""
    if isinstance(B, Tensor) and isinstance(L, Tensor) and B.dim() >= 2:
        check_same_dtype(B, L, "", "b", "A", ".")
    check_matrix(L, "cholesky_solve")
    check_square(L, "", "cholesky_solve")   # (PyTorch's words, with no op name in front)
    if B.dim() >= 2 and B.shape[-2] != L.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{L.shape[-1]} by {L.shape[-1]} but each b matrix is "
                           f"{B.shape[-2]} by {B.shape[-1]}")
    return _out(dispatch(CHOL_SOLVE, (B, L), (bool(upper),)), out, "cholesky_solve")


def _chol_inv_fwd(L, upper):
    xp = _xp(L)
    return B.lapack_layout(xp.linalg.inv(_llt(xp, L, upper)))


def _chol_inv_bwd(grad, self, result, upper):
    common = matmul(result, matmul(grad + _t(grad), result))
    return -matmul(self, common) if upper else -matmul(common, self)


CHOL_INV = defop("cholesky_inverse", "CholeskyInverseBackward0", _chol_inv_fwd,
                 attrs=("upper",), self=_chol_inv_bwd)


@method("cholesky_inverse")
def cholesky_inverse(L, upper=False, *, out=None):
    """(L Lᵀ)⁻¹ from the Cholesky factor L (``upper``: (Uᵀ U)⁻¹), as
    ``torch.cholesky_inverse``. Backward (``CholeskyInverseBackward0``)."""
    check_square(L, "cholesky_inverse")
    return _out(dispatch(CHOL_INV, (L,), (bool(upper),)), out, "cholesky_inverse")


# -- vdot, inner, dist, chain_matmul ----------------------------------------------------------

VDOT = defop("vdot", "VdotBackward0", lambda self, other: _xp(self).asarray(
    (self.conj() if self.dtype.kind == "c" else self) @ other),   # (the first conjugated)
             inputs=("self", "other"), promote=True,
             self=lambda grad, other: grad * other, other=lambda grad, self: grad * self)


@method("vdot")
def vdot(input, other, *, out=None):
    """The dot product of two 1-D tensors, as ``torch.vdot`` (for real tensors the same
    as ``dot``; node ``VdotBackward0``)."""
    if input.dim() == 1 == other.dim() and input.dtype != other.dtype:
        # PyTorch's dot_check: after the dims, before the sizes; no promotion
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{torch_type_name(input.dtype)} and {torch_type_name(other.dtype)}")
    check_vectors(input, other)
    return _out(dispatch(VDOT, (input, other)), out, "vdot")


@method("inner")
def inner(input, other, *, out=None):
    """Sum-products over the last dims of both, as ``torch.inner``: for vectors the dot
    product; in general ``tensordot`` over the last dim of each (a number with a tensor
    is their product)."""
    if input.dim() == 0 or other.dim() == 0:
        return _out(input * other, out, "inner")
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors "
                           f"but got shapes {list(input.shape)} and {list(other.shape)}")
    return _out(tensordot(input, other, dims=([input.dim() - 1], [other.dim() - 1])), out,
                "inner")


def _dist_fwd(self, other, p):
    xp = _xp(self, other)
    d = xp.abs(self - other).reshape(-1)
    if p == 0:
        r = (d != 0).sum()
    elif math.isinf(p):
        r = (d.max() if p > 0 else d.min()) if d.size else xp.asarray(0.0)
    elif p == 1:
        r = d.sum()
    elif p == 2:
        r = xp.sqrt((d * d).sum())
    else:
        r = (d ** p).sum() ** (1.0 / p)
    rt = B.result_type(self.dtype, other.dtype)
    return xp.asarray(r, dtype=rt if rt.kind != "c" else d.dtype)   # (a norm is real)


def _dist_grad(grad, self, other, p, result):
    """PyTorch's norm_backward of the difference (the sign flips for ``other``)."""
    if p == 0:   # the count of nonzeros: no gradient (PyTorch's undefined one, not zeros)
        return None
    d = self - other
    if p == 1:
        return d.sign() * grad
    nz = result != 0
    safe = where(nz, result, 1.0)
    if p == 2:   # 0/0 masked to 0 as in PyTorch's formula: its derivative there is NaN
        return grad * (d / result).masked_fill(result == 0, 0.0)
    if math.isinf(p):
        mask = (d.abs() == result) | d.isnan()
        return d.sign() * (grad / mask.sum()) * mask
    ad = d.abs()
    if p < 1:   # (masked after the power, as PyTorch's: NaN in its derivative at 0)
        f = d.sign() * ad.pow(p - 1).masked_fill(d == 0, 0.0)
        return f * grad * result.pow(1 - p)
    f = d.sign() * ad.pow(p - 1) if p < 2 else d * ad.pow(p - 2)
    return f * where(nz, grad / safe.pow(p - 1), 0.0)


DIST = defop("dist", "DistBackward0", _dist_fwd, inputs=("self", "other"), attrs=("p",),
             promote=True, broadcast=True,
             self=lambda grad, self, other, p, result: _dist_grad(grad, self, other, p,
                                                                  result),
             other=lambda grad, self, other, p, result: _neg(_dist_grad(grad, self, other,
                                                                        p, result)))


def _neg(g):
    """``-g`` for ``other``'s gradient. p = 0 gives none, and PyTorch's formula negates
    it all the same, which raises: its error, in its words (and what it means here)."""
    if g is None:
        raise RuntimeError("Expected a proper Tensor but got None (or an undefined Tensor in "
                           "C++) for argument #0 'self' (dist with p=0 counts nonzeros: it "
                           "has no gradient for `other`; detach `other` or use p > 0)")
    return -g


@method("dist")
def dist(input, other, p=2):
    """The p-norm of ``input - other`` (broadcast), as ``torch.dist`` (p = 2: the
    Euclidean distance). Backward (``DistBackward0``): the norm's gradient, with the
    subgradient 0 where the distance is 0."""
    need_tensor("dist", other)
    if input._data.dtype.kind in "iub" or (isinstance(other, Tensor)
                                           and other._data.dtype.kind in "iub"):
        _dist_integer_check(input, other)
    try:
        return dispatch(DIST, (input, other), (float(p),))
    except ValueError:
        from .pointwise import _bshape_err
        raise _bshape_err("dist", input, other) from None


def _dist_integer_check(input, other):
    """PyTorch's dist of integer or bool tensors: a difference with a bool is refused
    (sub's words), an integer difference has no norm."""
    from .args import torch_type_name
    from .pointwise import _check_bool_sub
    from .table import promoted_dtype
    _check_bool_sub(input, other)   # any bool operand: sub's refusal, as in PyTorch
    rt = promoted_dtype((input, other))
    if rt.kind != "f" and rt.kind != "c":
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {torch_type_name(rt)} instead.")


def chain_matmul(*matrices, out=None):
    """``torch.chain_matmul`` (deprecated in PyTorch for ``linalg.multi_dot``, with its
    warning): the product of 2-D matrices in the cheapest order."""
    warn_once("chain_matmul")   # Note [warnings given once]
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        return _out(matrices[0].clone(), out, "chain_matmul")
    return multi_dot(list(matrices), out=out)
