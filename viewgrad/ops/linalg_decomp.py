"""Matrix decompositions: cholesky, qr, svd/svdvals, eigh/eigvalsh — ``torch.linalg.*``
(and the old ``torch.cholesky``, ``torch.svd``, ``torch.qr``) with PyTorch's node names,
derivatives and errors, for batches of real matrices.

Note [decompositions save their outputs]: the backward of a multi-output decomposition
needs its outputs (U, S, Vh; Q, R; eigenvalues and eigenvectors), and saves them, as
PyTorch does (``grad_fn._saved_Q``, ``_saved_U``, ``_saved_eigenvectors``...; Note [saved
outputs of a multi-output node] in autograd/nodes.py): modifying the input in place after
the decomposition is harmless, modifying an output raises "modified by an inplace
operation" at backward, exactly where PyTorch's does. The formulas are viewgrad ops on
the saved outputs, so a double backward differentiates through them, and through the
node itself (an unpacked output has the node as its grad_fn).

The formulas are the classic ones (Giles' "Collected matrix derivative results",
Walter & Lehmann for QR), as in PyTorch's FunctionsManual: the terms with 1/(σⱼ² - σᵢ²)
or 1/(λⱼ - λᵢ) make the gradients of singular vectors and eigenvectors undefined for
repeated values, as in PyTorch.
"""
from __future__ import annotations

from .. import backend as B
from .. import return_types as RT
from .diag import diag_embed
from .linalg import matmul
from .linalg_solve import _LinAlgError, _batch_prefix, _out, check_float, check_matrix, \
    check_square, inv
from .linalg_tri import solve_triangular
from .stats import _multi
from .table import defop, dispatch

__all__ = ["cholesky", "cholesky_legacy", "qr", "svd", "svdvals", "svd_legacy", "eigh",
           "eigvalsh"]

_xp = B.xp_of


def _t(x):
    return x.transpose(-1, -2)


# -- cholesky ----------------------------------------------------------------------------------

def _not_pd(name, a):
    host = B.device_of_array(a).to_host(a)
    flat = host.reshape((-1,) + host.shape[-2:])
    for i in range(flat.shape[0]):
        k = B.first_non_pd_minor(flat[i])
        if k:
            return _LinAlgError(f"{name}: {_batch_prefix(a, i)}The factorization could not be "
                                "completed because the input is not positive-definite (the "
                                f"leading minor of order {k} is not positive-definite).")
    return _LinAlgError(f"{name}: the input is not positive-definite.")


def _cholesky_fwd(A, upper, name):
    try:
        with B.linalg_raises(A):
            L = _xp(A).linalg.cholesky(A)
    except B.LinAlgError:
        if name is not None:
            raise _not_pd(name, A) from None
        # cholesky_ex: LAPACK's values (Note [the _ex functions' info], linalg_names.py)
        dev = B._dev_of(A)
        L = B.cholesky_each(dev.to_host(A))
        L = L if dev is B.cpu else dev.from_host(L)
    return B.lapack_layout(_xp(A).swapaxes(L, -1, -2) if upper else L)


def _cholesky_bwd(grad, result, upper):
    # gA = L⁻ᵀ Φ(Lᵀ gL) L⁻¹, Φ = the lower triangle with a halved diagonal; symmetrised
    L, gL = (_t(result), _t(grad)) if upper else (result, grad)
    Linv = inv(L)
    P = matmul(_t(L), gL).tril()
    P = P - 0.5 * diag_embed(P.diagonal(0, -2, -1))
    g = matmul(matmul(_t(Linv), P), Linv)
    return 0.5 * (g + _t(g))


CHOLESKY = defop("linalg_cholesky", "LinalgCholeskyExBackward0", _cholesky_fwd,
                 attrs=("upper", "name"), result_name="L",
                 self=lambda grad, result, upper: _cholesky_bwd(grad, result, upper))
CHOLESKY_LEGACY = defop("cholesky", "CholeskyBackward0", _cholesky_fwd,
                        attrs=("upper", "name"),
                        self=lambda grad, result, upper: _cholesky_bwd(grad, result, upper))


def cholesky(A, *, upper=False, out=None):
    """The Cholesky factor L (lower triangular, A = L Lᵀ) of a symmetric positive-definite
    matrix, as ``torch.linalg.cholesky`` (``upper=True``: U = Lᵀ); only the lower triangle
    of A is read. A matrix that is not positive-definite raises ``LinAlgError`` naming the
    first failing leading minor. Backward (``LinalgCholeskyExBackward0``):
    L⁻ᵀ Φ(Lᵀ grad) L⁻¹, symmetrised."""
    check_square(A, "linalg.cholesky")
    return _out(dispatch(CHOLESKY, (A,), (bool(upper), "linalg.cholesky")), out,
                "linalg.cholesky")


def cholesky_legacy(input, upper=False, *, out=None):
    """``torch.cholesky`` (deprecated in PyTorch for ``torch.linalg.cholesky``): the same
    factor, node ``CholeskyBackward0``."""
    check_square(input, "cholesky")
    return _out(dispatch(CHOLESKY_LEGACY, (input,), (bool(upper), "cholesky")), out,
                "cholesky")


# -- qr ------------------------------------------------------------------------------------------

def _qr_fwd(A, mode):
    xp = _xp(A)
    # (+ 0.0: a -0.0 entry counts as +0.0 where a Householder reflection picks its sign,
    # as in PyTorch's LAPACK; NumPy's reads the sign bit and gives another, valid, QR)
    Q, R = (B.lapack_layout(xp.asarray(r)) for r in xp.linalg.qr(
        A + 0.0, mode="complete" if mode == "complete" else "reduced"))
    return Q, R


def _qr_tall(gQ, gR, Q, R):
    # gA = (gQ + Q copyltu(M)) R⁻ᵀ, M = R gRᵀ - gQᵀ Q (Walter & Lehmann)
    M = matmul(R, _t(gR)) - matmul(_t(gQ), Q)
    C = M.tril() + M.tril(-1).transpose(-1, -2)
    # (· R⁻ᵀ as PyTorch computes it, a triangular solve: inf and NaN at a singular R)
    return solve_triangular(_t(R), gQ + matmul(Q, C), upper=False, left=False)


def _qr_bwd(grads, Q, R, mode):
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                           "when mode='r'. Please use linalg.qr(A, mode='reduced') if you are "
                           "going to differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                           "and nrows > ncols.")
    gQ, gR = grads
    gQ = Q.new_zeros(Q.shape) if gQ is None else gQ
    gR = R.new_zeros(R.shape) if gR is None else gR
    if m >= n:
        return _qr_tall(gQ, gR, Q, R)
    # wide: A = [X | Y], R = [U | V] with X = Q U, Y = Q V
    U, V, gU, gV = R[..., :, :m], R[..., :, m:], gR[..., :, :m], gR[..., :, m:]
    gX = _qr_tall(gQ + matmul(matmul(Q, V), _t(gV)), gU, Q, U)
    from .joining import cat
    return cat([gX, matmul(Q, gV)], -1)


QR = defop("linalg_qr", "LinalgQrBackward0", None, inputs=("A",), attrs=("mode",),
           multi_output=("Q", "R"), A=_qr_bwd)


def qr(A, mode="reduced", *, out=None):
    """The QR decomposition A = Q R (Q with orthonormal columns, R upper triangular), as
    ``torch.linalg.qr`` (a named tuple ``Q, R``): ``mode='reduced'`` (k = min(m, n)
    columns), ``'complete'`` (Q square) or ``'r'`` (R only; Q is empty). Backward
    (``LinalgQrBackward0``): Walter & Lehmann's formula, from the saved Q and R (Note
    [decompositions save their outputs])."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    check_matrix(A, "linalg.qr")
    check_float(A, "linalg.qr")
    Q, R = _qr_fwd(A._data, mode)
    if mode == "r":
        Q = A._device.xp.zeros((0,), dtype=A._data.dtype)
    return _out(RT.linalg_qr(_multi(QR, A, (Q, R), (mode,))), out, "linalg.qr")


# -- svd ----------------------------------------------------------------------------------------

def _svd_fwd(A, full_matrices):
    xp = _xp(A)
    U, S, Vh = (xp.asarray(r) for r in xp.linalg.svd(A, full_matrices=full_matrices))
    return B.lapack_layout(U), S, B.lapack_layout(Vh)


def _svd_bwd(grads, U, S, Vh, full_matrices):
    gU, gS, gVh = grads
    m, n = U.shape[-2], Vh.shape[-1]
    k = S.shape[-1]
    if full_matrices:   # (PyTorch's formula narrows the saved U and Vh the same way)
        U, Vh = U[..., :, :k], Vh[..., :k, :]
        gU = None if gU is None else gU[..., :, :k]
        gVh = None if gVh is None else gVh[..., :k, :]
    if gU is None and gVh is None:
        g = gS.unsqueeze(-1) * Vh if gS is not None else Vh * 0
        return matmul(U, g)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)          # E_ij = σⱼ² - σᵢ²
    eye = diag_embed(S.new_ones(S.shape))
    E = E + eye                                      # 1 on the diagonal (masked below)
    off = 1 - eye

    def skew(X):
        return X - _t(X)
    if gU is not None and gVh is not None:
        inner = (skew(matmul(_t(U), gU)) * S.unsqueeze(-2)
                 + S.unsqueeze(-1) * skew(matmul(Vh, _t(gVh)))) / E
    elif gU is not None:
        inner = (skew(matmul(_t(U), gU)) / E) * S.unsqueeze(-2)
    else:
        inner = S.unsqueeze(-1) * (skew(matmul(Vh, _t(gVh))) / E)
    inner = inner * off
    if gS is not None:
        inner = inner + diag_embed(gS)
    if m > k and gU is not None:
        g = matmul(U, inner)
        gUS = gU / S.unsqueeze(-2)
        g = g + gUS - matmul(U, matmul(_t(U), gUS))
        return matmul(g, Vh)
    if n > k and gVh is not None:
        g = matmul(inner, Vh)
        SgVh = gVh / S.unsqueeze(-1)
        g = g + SgVh - matmul(matmul(SgVh, _t(Vh)), Vh)
        return matmul(U, g)
    return matmul(U, matmul(inner, Vh))


SVD = defop("linalg_svd", "LinalgSvdBackward0", None, inputs=("A",),
            attrs=("full_matrices",), multi_output=("U", "S", "Vh"), A=_svd_bwd)


def svd(A, full_matrices=True, *, driver=None, out=None):
    """The singular value decomposition A = U diag(S) Vh, as ``torch.linalg.svd`` (a named
    tuple ``U, S, Vh``; S descending). ``full_matrices=True`` (the default) gives square
    U and Vh, ``False`` only k = min(m, n) columns. Singular vectors are defined up to
    sign. Backward (``LinalgSvdBackward0``, Note [decompositions save their outputs]): undefined
    for repeated singular values when U or Vh is used, as in PyTorch."""
    check_matrix(A, "linalg.svd")
    check_float(A, "linalg.svd")
    datas = _svd_fwd(A._data, bool(full_matrices))
    return _out(RT.linalg_svd(_multi(SVD, A, datas, (bool(full_matrices),))), out,
                "linalg.svd")


def svdvals(A, *, driver=None, out=None):
    """The singular values only (descending), as ``torch.linalg.svdvals``; its gradient
    U diag(grad) Vh is always defined (node ``LinalgSvdBackward0``)."""
    check_matrix(A, "linalg.svdvals")
    check_float(A, "linalg.svdvals")
    return _out(svd(A, full_matrices=False)[1], out, "linalg.svdvals")


def svd_legacy(input, some=True, compute_uv=True, *, out=None):
    """``torch.svd`` (deprecated in PyTorch): returns ``U, S, V`` — V, not Vh — reduced
    unless ``some=False``. With ``compute_uv=False`` U and V are zeros."""
    U, S, Vh = svd(input, full_matrices=not some)
    if not compute_uv:   # zeros of the full shapes whatever ``some`` says, V transposed
        *batch, m, n = input.shape
        return RT.svd((U.new_zeros((*batch, m, m)), S, _t(Vh.new_zeros((*batch, n, n)))))
    return _out(RT.svd((U, S, _t(Vh))), out, "svd")


# -- eigh ----------------------------------------------------------------------------------------

def _eigh_fwd(A, uplo):
    xp = _xp(A)
    L, V = (xp.asarray(r) for r in xp.linalg.eigh(A, UPLO=uplo))
    return L, B.lapack_layout(V)


def _eigh_bwd(grads, eigenvalues, eigenvectors):
    gL, gV = grads
    L, V = eigenvalues, eigenvectors
    if gV is None:
        return matmul(V * gL.unsqueeze(-2), _t(V))
    VhgV = matmul(_t(V), gV)
    E = L.unsqueeze(-2) - L.unsqueeze(-1)            # E_ij = λⱼ - λᵢ
    eye = diag_embed(L.new_ones(L.shape))
    inner = 0.5 * (VhgV - _t(VhgV)) / (E + eye) * (1 - eye)
    if gL is not None:
        inner = inner + diag_embed(gL)
    return matmul(matmul(V, inner), _t(V))


EIGH = defop("linalg_eigh", "LinalgEighBackward0", None, inputs=("A",), attrs=("uplo",),
             multi_output=("eigenvalues", "eigenvectors"), A=_eigh_bwd)


def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric matrix, as
    ``torch.linalg.eigh`` (a named tuple ``eigenvalues, eigenvectors``); only the lower
    (``UPLO='L'``) or upper triangle is read. Backward (``LinalgEighBackward0``):
    V (diag(gλ) + skew(Vᵀ gV) / (λⱼ - λᵢ)) Vᵀ, undefined for repeated eigenvalues when
    the eigenvectors are used."""
    check_square(A, "linalg.eigh")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    datas = _eigh_fwd(A._data, UPLO)
    return _out(RT.linalg_eigh(_multi(EIGH, A, datas, (UPLO,))), out, "linalg.eigh")


def eigvalsh(A, UPLO="L", *, out=None):
    """The eigenvalues of a symmetric matrix (ascending), as ``torch.linalg.eigvalsh``
    (node ``LinalgEighBackward0``)."""
    return _out(eigh(A, UPLO)[0], out, "linalg.eigvalsh")
