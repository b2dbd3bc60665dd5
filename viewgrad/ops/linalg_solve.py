"""Matrix functions built on LU: inv, det, slogdet, logdet, solve, lstsq, pinv,
matrix_power, multi_dot, matrix_rank — ``torch.linalg.*`` (and the old ``torch.inverse``,
``torch.det``, ``torch.logdet``, ``torch.pinverse``, ``torch.matrix_power``) with
PyTorch's node names, derivatives and errors. Batches of matrices (``(..., n, n)``) work
throughout.

Each backward formula is written in viewgrad ops (matmul, the rows here), so double
backward works: the derivative of ``inv`` uses ``inv``'s saved result, ``det``'s uses
``inv`` of the input, ``solve``'s solves again with the transposed matrix.

Note [singular matrices]: LAPACK's LU stops at the first zero pivot; PyTorch reports its
1-based position ("The diagonal element 3 is zero") as a ``torch.linalg.LinAlgError``
(a RuntimeError). viewgrad finds the same pivot by redoing the LU (with partial
pivoting, as LAPACK) of the failing matrix on the host, only when the solver failed.
"""
from __future__ import annotations

import math
import operator

from .. import backend as B
from ..autograd.state import state as _st
from ..tensor import Tensor
from .. import return_types as RT
from .args import cpp_type_name, torch_type_name
from .linalg import matmul, mm
from .pointwise import where
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .table import defop, dispatch

__all__ = ["LinAlgError", "inv", "inverse", "det", "slogdet", "logdet", "solve", "lstsq",
           "pinv", "pinverse", "matrix_power", "multi_dot", "matrix_rank", "check_square",
           "check_float", "check_matrix", "check_same_dtype"]

_xp = B.xp_of


class _LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError``: a matrix the algorithm cannot handle (singular, not
    positive-definite). A ``RuntimeError``, as in PyTorch."""


LinAlgError = _LinAlgError


def check_matrix(A, name):
    if not isinstance(A, Tensor):
        raise TypeError(f"{name}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")


def check_float(A, name, refusals=None):
    # (``refusals``: the name of A's kernel refusals, when it is not ``name``)
    refusal = _CX.get(refusals or name)   # (Note [inputs PyTorch refuses], kernel_refusals.py)
    if refusal is not None:
        _refuse(refusal, A)
    if A._data.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {torch_type_name(A._data.dtype)}")


def check_same_dtype(a, b, name, a_name="A", b_name="B", end=""):
    """PyTorch's checkLinalgCompatibleDtype for solvers: they do not promote, the right
    side must have the matrix's dtype (``end`` is the period some messages end with)."""
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"{name}Expected {a_name} and {b_name} to have the same dtype, "
                           f"but found {a_name} of type {torch_type_name(a._data.dtype)} "
                           f"and {b_name} of type {torch_type_name(b._data.dtype)} "
                           f"instead{end}")


def check_square(A, name, refusals=None):
    """PyTorch's squareCheckInputs + the dtype check."""
    check_matrix(A, name)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: " * bool(name) + "A must be batches of square "
                           f"matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices")
    check_float(A, name, refusals)


def _batch_prefix(a, i):
    return f"(Batch element {i}): " if a.ndim > 2 else ""


def _singular(name, a, dev, inverse):
    """Note [singular matrices]: the error PyTorch raises for this batch of matrices."""
    host = dev.to_host(a)
    flat = host.reshape((-1,) + host.shape[-2:])
    for i in range(flat.shape[0]):
        k = B.lu_zero_pivot(flat[i])
        if k:
            pre = _batch_prefix(a, i)
            if inverse:
                return _LinAlgError(f"{name}: {pre}The diagonal element {k} is zero, the "
                                    "inversion could not be completed because the input "
                                    "matrix is singular.")
            return _LinAlgError(f"{name}: {pre}The solver failed because the input matrix "
                                "is singular.")
    return _LinAlgError(f"{name}: the input matrix is singular.")


# -- inv -----------------------------------------------------------------------------------

def _inv_fwd(A, name):
    try:
        with B.linalg_raises(A):
            return B.lapack_layout(B.inv(A))
    except B.LinAlgError:
        if name is None:   # inv_ex: LAPACK's values (Note [the _ex functions' info])
            return B.lapack_layout(_lapack_values(B.solve_each, A, _xp(A).eye(
                A.shape[-1], dtype=A.dtype)))
        raise _singular(name, A, B._dev_of(A), True) from None


def _lapack_values(fn, *arrays):
    """``fn`` (backend's solve_each, cholesky_each) on host copies, back on the device."""
    dev = B._dev_of(arrays[0])
    r = fn(*(dev.to_host(a) for a in arrays))
    return r if dev is B.cpu else dev.from_host(r)


def _inv_bwd(grad, result):
    rt = result.transpose(-1, -2)
    return -matmul(matmul(rt, grad), rt)


INV = defop("linalg_inv", "LinalgInvExBackward0", _inv_fwd, inputs=("A",), attrs=("name",),
            result_name="inverse", A=_inv_bwd)


def inv(A, *, out=None):
    """The inverse A⁻¹ of a square matrix (or batch), as ``torch.linalg.inv``; a singular
    matrix raises ``LinAlgError`` with PyTorch's message (Note [singular matrices]).
    Backward (``LinalgInvExBackward0``): -A⁻ᵀ grad A⁻ᵀ from the saved result. Solving
    ``A x = b`` is better done with ``solve``."""
    check_square(A, "linalg.inv")
    return _out(dispatch(INV, (A,), ("linalg.inv",)), out, "linalg.inv")


def inverse(input, *, out=None):
    """``torch.inverse``: the same as ``linalg.inv``."""
    return inv(input, out=out)


def _out(r, out, name):
    from .args import with_out
    return with_out(r, out, name)


# -- det, slogdet, logdet ---------------------------------------------------------------------

def _det_bwd(grad, A, result):
    # d det(A) / dA = det(A) A⁻ᵀ (the cofactors). A singular A has cofactors too, but no
    # A⁻¹: Note [det's gradient at a singular matrix]
    if _st.grad_enabled:   # create_graph: the SVD's cofactors where |det(A)| is tiny
        small = result.abs() < 100 * B.finfo_fields(A.dtype)["eps"]
        if not bool(small.any()):
            return _det_bwd_regular(grad, A, result)
        if not small.dim() or bool(small.all()):
            return _det_bwd_singular(grad, A)
        # PyTorch's masked_fmap: each formula on its own matrices of the batch only (the
        # SVD's derivative is NaN at a matrix with repeated singular values, as I's)
        out = A.new_zeros(A.shape).index_put((small,), _det_bwd_singular(grad[small],
                                                                        A[small]))
        keep = small.logical_not()
        return out.index_put((keep,), _det_bwd_regular(grad[keep], A[keep], result[keep]))
    # PyTorch's plain backward solves det(A)·I against A's LU: 0 where det(A) is 0
    singular = result == 0
    if bool(singular.any()):
        A = where(singular.unsqueeze(-1).unsqueeze(-1), _eye_like(A), A)
    return _det_bwd_regular(grad, A, result)


def _det_bwd_regular(grad, A, result):
    return (grad * result).unsqueeze(-1).unsqueeze(-1) * inv(A).transpose(-1, -2)


def _eye_like(A):
    from .factories import eye
    return eye(A.shape[-1], dtype=A.dtype, device=A.device)


# Note [det's gradient at a singular matrix]
# PyTorch's LinalgDetBackward0 answers two ways at a matrix whose determinant is exactly
# 0. In a plain backward it computes det(A)·A⁻ᴴ by solving against A's LU factors with a
# right-hand side of zeros: the gradient is 0 (not the cofactors, which may be nonzero).
# With create_graph (grad mode on in the backward) it computes the cofactors from an SVD,
# differentiably, for every matrix of the batch whose |det| is below 100·eps (nearly
# singular too: there A⁻¹'s second derivative is mostly rounding), and det(A)·A⁻ᵀ for the
# others, each formula on its own matrices. viewgrad gives the same answers: what a
# PyTorch user sees there, they see here.


def _det_bwd_singular(grad, A):
    """The cofactors from A = U·diag(S)·Vh: det(A) = det(U)·det(Vh)·∏S, so the gradient is
    U·diag(det(U)·det(Vh)·grad·∏_{j≠i} S_j)·Vh — a product that leaves out each factor in
    turn, exact when some are 0 (PyTorch's prod_safe_zeros_backward)."""
    from .linalg_decomp import svd
    U, S, Vh = svd(A)
    alpha = det(U) * det(Vh)
    ones = S.new_ones(S.shape[:-1] + (1,))
    before = _cat_last(ones, S[..., :-1]).cumprod(-1)                  # ∏_{j<i} S_j
    after = _cat_last(ones, S.flip(-1)[..., :-1]).cumprod(-1).flip(-1)  # ∏_{j>i} S_j
    D = (alpha * grad).unsqueeze(-1) * before * after
    return matmul(U * D.unsqueeze(-2), Vh)


def _cat_last(a, b):
    from .joining import cat
    return cat([a, b], -1)


DET = defop("linalg_det", "LinalgDetBackward0", lambda A: _xp(A).asarray(
    B.quietly(_xp(A).linalg.det, A)), inputs=("A",), A=_det_bwd)   # (Note [warnings from
# NumPy's own Python])


def det(A, *, out=None):
    """The determinant of a square matrix (or batch), as ``torch.linalg.det`` /
    ``torch.det``. Backward (``LinalgDetBackward0``): grad·det(A)·A⁻ᵀ."""
    check_square(A, "linalg.det")
    return _out(dispatch(DET, (A,)), out, "linalg.det")


def _slogdet_fwd(A):
    xp = _xp(A)
    s, l = B.quietly(xp.linalg.slogdet, A)   # (Note [warnings from NumPy's own Python])
    return xp.asarray(s, dtype=A.dtype), xp.asarray(l, dtype=A.real.dtype)   # (real)


def _slogdet_bwd(grads, A, sign):
    # (the sign is saved as PyTorch saves it, for complex inputs' formula: modifying it in
    # place before backward raises; for real inputs it has no gradient and no part here)
    g = grads[1]
    if g is None:
        return None
    # A⁻ᵀ as PyTorch computes it, solve(Aᵀ, I). In a plain backward it solves with the
    # LU factors: at a singular A, LAPACK's inf and NaN (SOLVE's name None: Note [the _ex
    # functions' info], linalg_names.py), not an error; with create_graph (grad mode on)
    # it calls linalg.solve, which raises there.
    eye = _eye_like(A)
    name = "torch.linalg.solve" if _st.grad_enabled else None
    return g.unsqueeze(-1).unsqueeze(-1) * dispatch(SOLVE, (A.transpose(-1, -2), eye),
                                                     (False, True, name))


SLOGDET = defop("linalg_slogdet", "LinalgSlogdetBackward0", None, inputs=("A",),
                multi_output=("sign", "logabsdet"), A=_slogdet_bwd)


def slogdet(A, *, out=None):
    """``(sign, logabsdet)`` with det(A) = sign·exp(logabsdet), as
    ``torch.linalg.slogdet`` (a named tuple): the log of a determinant that would
    overflow. Backward (``LinalgSlogdetBackward0``): grad·A⁻ᵀ for logabsdet; the sign
    has no gradient."""
    check_square(A, "linalg.slogdet")
    from .stats import _multi
    return _out(RT.linalg_slogdet(_multi(SLOGDET, A, _slogdet_fwd(A._data), ())), out,
                "linalg.slogdet")


def logdet(input):
    """log(det(A)), as ``torch.logdet``: NaN for a negative determinant, -inf for a
    singular matrix. Composed as PyTorch does (``WhereBackward0`` over
    ``LinalgSlogdetBackward0``)."""
    check_square(input, "linalg.slogdet")
    sign, logabs = slogdet(input)
    return where(sign < 0, math.nan, logabs)


# -- solve -----------------------------------------------------------------------------------

def batched_solve(xp, A, Bm):
    """``xp.linalg.solve`` with the batch dims broadcasting against each other, as in
    PyTorch and numpy (CuPy wants them equal)."""
    batch = B.broadcast_shapes(A.shape[:-2], Bm.shape[:-2])
    return xp.linalg.solve(xp.broadcast_to(A, batch + A.shape[-2:]),
                           xp.broadcast_to(Bm, batch + Bm.shape[-2:]))


def _solve_fwd(A, Bm, vec, left, name="torch.linalg.solve"):
    xp = _xp(A, Bm)
    if not left:    # X A = B: Xᵀ = solve(Aᵀ, Bᵀ)
        return xp.swapaxes(_solve_fwd(xp.swapaxes(A, -1, -2), xp.swapaxes(Bm, -1, -2), vec,
                                      True, name), -1, -2)
    Bm = Bm[..., None] if vec else Bm
    try:
        with B.linalg_raises(A):
            X = batched_solve(xp, A, Bm)
    except B.LinAlgError:
        if name is not None:
            raise _singular(name, A, B._dev_of(A), False) from None
        X = _lapack_values(B.solve_each, A, Bm)   # solve_ex (Note [the _ex functions' info])
    return X[..., 0] if vec else B.lapack_layout(X)


def _solve_gB(grad, A, vec, left):
    # left: A⁻ᵀ grad; right (X = B A⁻¹): grad A⁻ᵀ — both one more solve with Aᵀ
    return dispatch(SOLVE, (A.transpose(-1, -2), grad), (vec, left, "torch.linalg.solve"))


def _solve_gA(grad, A, result, vec, left):
    gB = _solve_gB(grad, A, vec, left)
    if vec:
        return -gB.unsqueeze(-1) * result.unsqueeze(-2)
    if not left:
        return -matmul(result.transpose(-1, -2), gB)
    return -matmul(gB, result.transpose(-1, -2))


SOLVE = defop("linalg_solve", "LinalgSolveExBackward0", _solve_fwd, inputs=("A", "B"),
              attrs=("vec", "left", "name"), broadcast=True, A=_solve_gA, B=_solve_gB)


def solve(A, B, *, left=True, out=None):
    """The X with A X = B (A square, B a matrix or a vector), as ``torch.linalg.solve`` —
    better than ``inv(A) @ B``. ``left=False`` solves X A = B. Backward
    (``LinalgSolveExBackward0``): gB = solve(Aᵀ, grad), gA = -gB Xᵀ."""
    check_square(A, "linalg.solve")
    return _out(solve_named(A, B, left, "torch.linalg.solve"), out, "linalg.solve")


def solve_named(A, B, left, name):
    """``solve``'s checks and node; a singular A raises naming ``name``, or with ``name``
    None gives solve_ex's values (Note [the _ex functions' info], linalg_names.py)."""
    # B is a (batch of) vector(s) by its shape alone, whichever side A is on (a vector on
    # the right is an n x 1 matrix: PyTorch refuses it)
    check_same_dtype(A, B, "linalg.solve: ")
    vec = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    n = A.shape[-1]
    rows, cols = (B.shape[-1], 1) if vec else (B.shape[-2], B.shape[-1])
    if (rows if left else cols) != n:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {rows}x{cols})")
    return dispatch(SOLVE, (A, B), (vec, bool(left), name))


# -- pinv, lstsq -----------------------------------------------------------------------------

def _pinv_fwd(A, atol, rtol, hermitian=False):
    xp = _xp(A)
    if hermitian:   # PyTorch's way: eigh of the lower triangle, |λ| as the singular values
        L, Q = (xp.asarray(r) for r in xp.linalg.eigh(A, UPLO="L"))
        keep = _above_tolerance(xp, xp.abs(L), atol, rtol)
        linv = xp.where(keep, 1 / xp.where(keep, L, 1), 0).astype(A.dtype)
        return (Q * linv[..., None, :]) @ xp.swapaxes(Q, -1, -2).conj()
    U, S, Vh = (xp.asarray(r) for r in xp.linalg.svd(A, full_matrices=False))
    keep = _above_tolerance(xp, S, atol, rtol)
    sinv = xp.where(keep, 1 / xp.where(keep, S, 1), 0).astype(A.dtype)
    V, Uh = xp.swapaxes(Vh, -1, -2), xp.swapaxes(U, -1, -2)
    if A.dtype.kind == "c":   # (V Σ⁺ Uᴴ: the conjugate transposes)
        V, Uh = V.conj(), Uh.conj()
    return V @ (sinv[..., :, None] * Uh)


def _above_tolerance(xp, S, atol, rtol):
    """Which singular values (``S``, batched) count: those above max(atol, rtol·σ_max);
    atol and rtol numbers, or arrays of one per matrix (broadcast with the batch)."""
    smax = S.max(axis=-1, keepdims=True) if S.shape[-1] else xp.zeros(S.shape[:-1] + (1,),
                                                                     dtype=S.dtype)
    return S > xp.maximum(xp.asarray(atol)[..., None], xp.asarray(rtol)[..., None] * smax)


def _tolerances(A, atol, rtol, name):
    """PyTorch's get_atol_rtol: atol 0 and rtol eps·max(m, n) by default, rtol 0 where
    a given atol is positive; either may be a tensor (one per matrix of the batch), whose
    values are used as arrays."""
    for what, t in (("atol", atol), ("rtol", rtol)):
        if isinstance(t, Tensor) and t._data.dtype.kind == "c":
            raise RuntimeError(f"{name}: {what} tensor of complex type is not supported.")
    a = atol._data if isinstance(atol, Tensor) else 0.0 if atol is None else float(atol)
    if rtol is not None:
        return a, rtol._data if isinstance(rtol, Tensor) else float(rtol)
    default = B.finfo_fields(A.dtype)["eps"] * max(A.shape[-1], A.shape[-2])
    if atol is None:
        return a, default
    if isinstance(atol, Tensor):
        return a, _xp(a).where(a > 0, 0.0, default)
    return a, 0.0 if a > 0 else default


def _pinv_bwd(grad, A, result):
    """The derivative of the pseudo-inverse (Golub & Pereyra), smallest products first."""
    m, n = A.shape[-2], A.shape[-1]
    pA = result
    pAh = pA.transpose(-1, -2)
    gh = grad.transpose(-1, -2)
    if m <= n:
        K = matmul(gh, pA)
        KpAh = matmul(K, pAh)
        return (-matmul(pA, K).transpose(-1, -2) + KpAh - matmul(matmul(A, pA), KpAh)
                + matmul(matmul(pAh, pA), gh - matmul(K, A)))
    K = matmul(pA, gh)
    pAhK = matmul(pAh, K)
    return (-matmul(K, pA).transpose(-1, -2) + matmul(matmul(gh - matmul(A, K), pA), pAh)
            + pAhK - matmul(matmul(pAhK, pA), A))


PINV = defop("linalg_pinv", "LinalgPinvBackward0", _pinv_fwd, inputs=("A",),
             attrs=("atol", "rtol", "hermitian"), A=_pinv_bwd)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The Moore-Penrose pseudo-inverse (via the SVD: singular values at most
    max(atol, rtol·σ_max) are treated as zero), as ``torch.linalg.pinv``; by default
    rtol = eps·max(m, n). Backward (``LinalgPinvBackward0``): the pseudo-inverse's
    derivative from the saved result."""
    check_matrix(A, "linalg.pinv")
    check_float(A, "linalg.pinv")
    if hermitian:   # (only the lower triangle is read)
        check_square(A, "linalg.eigh")
    atol, rtol = _tolerances(A, atol, rtol, "linalg.pinv")
    return _out(dispatch(PINV, (A,), (atol, rtol, bool(hermitian))), out, "linalg.pinv")


def pinverse(input, rcond=1e-15):
    """``torch.pinverse``: ``linalg.pinv`` with ``rcond`` as the relative tolerance."""
    return pinv(input, rtol=rcond)


def _lstsq_gB(grad, A):
    return matmul(pinv(A).transpose(-1, -2), grad)


def _lstsq_gA(grad, A, B):
    pA = pinv(A)
    return _pinv_bwd(matmul(grad, B.transpose(-1, -2)), A, pA)


def _lstsq_fwd(A, Bm):
    X = _pinv_fwd(A, 0.0, B.finfo_fields(A.dtype)["eps"] * max(A.shape[-2:])) @ Bm
    m, n = A.shape[-2], A.shape[-1]
    if m <= n:
        return B.lapack_layout(X)
    # LAPACK solves in B's own (m, k) column-major buffer and PyTorch returns its first n
    # rows: a view with B's strides (its storage is m rows long)
    buf = B.lapack_layout(_xp(X).zeros(X.shape[:-2] + (m, X.shape[-1]), dtype=X.dtype))
    buf[..., :n, :] = X
    return buf[..., :n, :]


# The solution is saved as PyTorch saves it (``_saved_solution``: modifying it in place
# before backward raises there); the gradients are the pseudo-inverse's.
LSTSQ = defop("linalg_lstsq", "LinalgLstsqBackward0", _lstsq_fwd, inputs=("self", "b"),
              broadcast=True, result_name="solution",
              self=lambda grad, self, b, result: _lstsq_gA(grad, self, b),
              b=lambda grad, self, result: _lstsq_gB(grad, self))


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution X minimising ‖A X - B‖, as ``torch.linalg.lstsq`` (a
    named tuple ``solution, residuals, rank, singular_values``; as with PyTorch's default
    CPU driver 'gelsy', residuals and singular_values are empty). Backward
    (``LinalgLstsqBackward0``) through the pseudo-inverse."""
    check_matrix(A, "torch.linalg.lstsq")
    if A._data.dtype != B._data.dtype:   # (before the float check, as PyTorch)
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same "
                           f"dtype, but got input's dtype {torch_type_name(A._data.dtype)} "
                           f"and other's dtype {torch_type_name(B._data.dtype)}")
    check_float(A, "torch.linalg.lstsq")
    vec = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vec else B
    if Bm.shape[-2] != A.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    X = dispatch(LSTSQ, (A, Bm))
    if vec:
        X = X.squeeze(-1)
    rank = matrix_rank(A)
    # (residuals and singular values are real, a complex A's too)
    empty = A.new_zeros(0, dtype=A._data.real.dtype)
    return RT.linalg_lstsq((X, empty, rank, empty))


# -- matrix_power, multi_dot, matrix_rank ------------------------------------------------------

def matrix_power(A, n, *, out=None):
    """A multiplied by itself ``n`` times, as ``torch.linalg.matrix_power`` /
    ``torch.matrix_power``: by repeated squaring (matmuls, so ``MmBackward0`` nodes);
    n = 0 gives the identity, n < 0 powers of ``inv(A)``."""
    try:   # (PyTorch's argument parser: an int, or an integer 0-d tensor; not a bool)
        if isinstance(n, bool):
            raise TypeError
        n = operator.index(n)
    except TypeError:
        from .operands import type_name
        raise TypeError(f"linalg_matrix_power(): argument 'n' (position 2) must be int, not "
                        f"{type_name(n)}") from None
    check_matrix(A, "linalg.matrix_power")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {A.shape[-2]} by {A.shape[-1]} matrices")
    if n == 0:
        from .factories import eye
        e = eye(A.shape[-1], dtype=A.dtype, device=A.device)
        return _out(A.clone().copy_(e.expand(*A.shape)), out, "linalg.matrix_power")
    if n < 0:
        A, n = inv(A), -n
    if n == 1:
        return _out(A.clone(), out, "linalg.matrix_power")
    z = result = None
    while n > 0:      # the bits of n from the lowest: z = A^(2^k)
        bit, n = n % 2, n // 2
        z = A if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return _out(result, out, "linalg.matrix_power")


def _chain_order(dims):
    """The cheapest parenthesisation of a chain of matrices (dims[i] x dims[i+1])."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(tensors, *, out=None):
    """The product of a chain of matrices computed in the cheapest order, as
    ``torch.linalg.multi_dot``: the first may be a 1-D row vector, the last a 1-D column
    vector. Built of ``mm`` nodes."""
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    for i, t in enumerate(ts):
        if i in (0, len(ts) - 1) and t.dim() not in (1, 2):
            which = "first" if i == 0 else "last"
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got "
                               f"{t.dim()}D")
        if 0 < i < len(ts) - 1 and t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    for i, t in enumerate(ts[1:], 1):   # (no promotion, as PyTorch)
        if t._data.dtype != ts[0]._data.dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but "
                               f"tensor 0 is {cpp_type_name(ts[0]._data.dtype)} and tensor "
                               f"{i} {cpp_type_name(t._data.dtype)}")
    first_vec, last_vec = ts[0].dim() == 1, ts[-1].dim() == 1
    if first_vec:
        ts[0] = ts[0].unsqueeze(0)
    if last_vec:
        ts[-1] = ts[-1].unsqueeze(1)
    for i in range(len(ts) - 1):
        if ts[i].shape[1] != ts[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{list(ts[i].shape)} and {list(ts[i + 1].shape)} cannot be "
                               "multiplied")
    split = _chain_order([t.shape[0] for t in ts] + [ts[-1].shape[1]])

    def prod(i, j):
        if i == j:
            return ts[i]
        k = split[i][j]
        return mm(prod(i, k), prod(k + 1, j))
    r = prod(0, len(ts) - 1)
    shape = ([] if first_vec else [r.shape[0]]) + ([] if last_vec else [r.shape[1]])
    return _out(r.view(*shape), out, "linalg.multi_dot")


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The number of singular values above max(atol, rtol·σ_max) (by default rtol =
    eps·max(m, n)), as ``torch.linalg.matrix_rank``; an int64 tensor (batched: one per
    matrix). Not differentiable."""
    check_matrix(A, "linalg.matrix_rank")
    check_float(A, "linalg.matrix_rank")
    xp = A._device.xp
    if hermitian:   # |eigenvalues| of the lower triangle, as PyTorch's
        check_square(A, "linalg.eigh")
        S = xp.abs(xp.asarray(xp.linalg.eigvalsh(A._data, UPLO="L")))
    else:
        S = xp.asarray(xp.linalg.svd(A._data, compute_uv=False))
    atol, rtol = _tolerances(A, atol, rtol, "linalg.matrix_rank")
    r = _above_tolerance(xp, S, atol, rtol).sum(-1).astype(B.int64)
    return _out(Tensor._make(xp.asarray(r), A._device), out, "linalg.matrix_rank")
