"""LU factorisation with partial pivoting: ``torch.linalg.lu_factor``, ``lu_factor_ex``,
``lu``, ``lu_solve``, and ``torch.lu_unpack`` (with the old ``torch.lu`` and
``torch.lu_solve``), for batches of real matrices of any shape, with PyTorch's node names,
saved values, derivatives and errors.

A = P L U: P a permutation, L unit lower triangular (m × k), U upper triangular (k × n),
k = min(m, n). ``lu_factor`` returns L and U packed in one matrix (L's strictly lower part,
U's upper part with the diagonal) and LAPACK's pivots: row i was swapped with row
pivots[i] (1-based) at step i. The factorisation is LAPACK's getf2, column by column: the
pivot is the first entry of largest magnitude (``i?amax``); a zero pivot is left in place
and reported in ``info`` (its 1-based step), as LAPACK does.

Note [LU derivatives]: with A = P L U and k = min(m, n), the square case is
  gA = P L⁻ᵀ (tril(Lᵀ gL, -1) + triu(gU Uᵀ)) U⁻ᵀ;
a wide A = P L [U₁ | U₂] is the square case for A₁ = P L U₁ with gL shifted by
-L⁻ᵀ gU₂ U₂ᵀ, and gA₂ = P L⁻ᵀ gU₂; a tall Pᵀ A = [L₁; L₂] U is the square case for
L₁ U with gU shifted by -L₂ᵀ gL₂ U⁻ᵀ, and gA₂ = gL₂ U⁻ᵀ. ``lu_factor``'s gradient
reads gL and gU off the packed matrix's two triangles; ``lu_solve``'s gradient with
respect to the packed LU is the same projection of its dense gA: tril(Pᵀ gA Uᵀ, -1) +
triu(Lᵀ Pᵀ gA). Every formula is written in viewgrad ops, so double backward works.
"""
from __future__ import annotations

import math


from .. import backend as B
from .. import return_types as RT
from ..tensor import Tensor
from .args import torch_type_name
from .factories import eye, zeros
from .joining import cat
from .linalg import matmul
from .warn_once import warn_once
from .linalg_solve import _batch_prefix, _out, batched_solve, check_float, check_matrix
from .linalg_tri import _triangle, solve_triangular
from .stats import _multi
from .table import defop, dispatch, method

__all__ = ["lu_factor", "lu_factor_ex", "lu", "lu_unpack", "lu_solve", "lu_legacy",
           "lu_solve_legacy"]

_xp = B.xp_of
_INT32 = B.int32   # (lu_solve's argument B, PyTorch's name, hides the backend module there)


def _t(x):
    return x.transpose(-1, -2)


# -- the factorisation, on arrays ----------------------------------------------------------

def _getrf(A, pivot):
    """(LU, pivots, info) of the array ``A`` (..., m, n): LAPACK's getf2, every matrix of
    the batch at once, one column per step (see the module docstring)."""
    xp = _xp(A)
    shape = A.shape
    m, n = shape[-2:]
    k = min(m, n)
    # (the batch's size, not -1: an empty matrix leaves -1 undetermined)
    a = xp.array(A.reshape((math.prod(shape[:-2]), m, n)), copy=True)
    b = a.shape[0]
    piv = xp.empty((b, k), dtype=B.int32)
    info = xp.zeros((b,), dtype=B.int32)
    rows = xp.arange(b)
    for j in range(k):
        if pivot and b:
            p = xp.argmax(xp.abs(a[:, j:, j]), axis=1) + j   # (the first of the largest)
            piv[:, j] = p + 1
            _swap_rows(a, rows, j, p)
        else:
            piv[:, j] = j + 1
        d = a[:, j, j]
        zero = d == 0
        info = xp.where((info == 0) & zero, j + 1, info).astype(B.int32)
        a[:, j + 1:, j] /= xp.where(zero, 1, d)[:, None]   # (a zero pivot: left in place)
        a[:, j + 1:, j + 1:] -= a[:, j + 1:, j:j + 1] * a[:, j:j + 1, j + 1:]
    return (B.lapack_layout(a.reshape(shape)), piv.reshape(shape[:-2] + (k,)),
            info.reshape(shape[:-2]))


def _swap_rows(a, rows, j, p):
    """Swap row ``j`` with row ``p[i]`` of every matrix ``a[i]`` of a batch."""
    top = a[rows, j].copy()
    a[rows, j] = a[rows, p]
    a[rows, p] = top


def _permutation(pivots, m, dtype):
    """The permutation matrices P (..., m, m) of LAPACK's pivots (A = P L U)."""
    xp = _xp(pivots)
    batch = pivots.shape[:-1]
    flat = pivots.reshape((math.prod(batch), pivots.shape[-1])).astype(B.int64) - 1
    b = flat.shape[0]
    perm = xp.broadcast_to(xp.arange(m), (b, m)).copy()
    rows = xp.arange(b)
    for j in range(flat.shape[1]):
        _swap_rows(perm, rows, j, flat[:, j])
    # row i of Pᵀ A is row perm[i] of A: P[perm[i], i] = 1
    P = xp.zeros((b, m, m), dtype=dtype)
    P[rows[:, None], perm, xp.arange(m)[None, :]] = 1
    return P.reshape(batch + (m, m))


def _unpacked(LU):
    """L (unit lower, m × k) and U (upper, k × n) of a packed LU, as arrays."""
    xp = _xp(LU)
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = xp.tril(LU[..., :, :k], -1) + xp.eye(m, k, dtype=LU.dtype)
    U = xp.triu(LU[..., :k, :])
    return L, U


# -- Note [LU derivatives] -----------------------------------------------------------------

def _lu_grad(gL, gU, P, L, U):
    """gA of A = P L U from the gradients of L and U (either may be None)."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if gL is None:
        gL = L.new_zeros(L.shape)
    if gU is None:
        gU = U.new_zeros(U.shape)
    if m == n:
        return matmul(P, _square_grad(gL, gU, L, U))
    if m < n:   # wide: A = P L [U1 | U2]
        U1, U2, gU1, gU2 = U[..., :, :k], U[..., :, k:], gU[..., :, :k], gU[..., :, k:]
        Lt = _t(L)
        gA2 = solve_triangular(Lt, gU2, upper=True, unitriangular=True)
        shifted = gL - matmul(gA2, _t(U2))
        return matmul(P, cat([_square_grad(shifted, gU1, L, U1), gA2], -1))
    # tall: Pᵀ A = [L1; L2] U
    L1, L2, gL1, gL2 = L[..., :k, :], L[..., k:, :], gL[..., :k, :], gL[..., k:, :]
    gA2 = solve_triangular(_t(U), gL2, upper=False, left=False)
    shifted = gU - matmul(_t(L2), gA2)
    return matmul(P, cat([_square_grad(gL1, shifted, L1, U), gA2], -2))


def _square_grad(gL, gU, L, U):
    """The gradient of Pᵀ A = L U (square) from gL and gU: L⁻ᵀ (tril(Lᵀ gL, -1) +
    triu(gU Uᵀ)) U⁻ᵀ."""
    inner = matmul(_t(L), gL).tril(-1) + matmul(gU, _t(U)).triu()
    g = solve_triangular(_t(U), inner, upper=False, left=False)
    return solve_triangular(_t(L), g, upper=True, unitriangular=True)


def _packed_parts(LU):
    """L and U of a packed LU Tensor, as differentiable views of it (viewgrad ops)."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = LU[..., :, :k].tril(-1) + eye(m, k, dtype=LU.dtype, device=LU.device)
    U = LU[..., :k, :].triu()
    return L, U


def _P_of(pivots, LU):
    """P of a packed LU Tensor's pivots, as a Tensor (not differentiable)."""
    return Tensor._make(_permutation(pivots._data, LU.shape[-2], LU._data.dtype), LU._device)


def _lu_factor_bwd(grads, LU, pivots, pivot):
    g = grads[0]
    m, n = LU.shape[-2:]
    k = min(m, n)
    L, U = _packed_parts(LU)
    return _lu_grad(g[..., :, :k].tril(-1), g[..., :k, :].triu(), _P_of(pivots, LU), L, U)


def _lu_bwd(grads, L, U, P, pivot):
    return _lu_grad(grads[0], grads[1], P, L, U)


def _unpack_bwd(grads, LU_data_sym_argsize_minus_2, LU_data_sym_argsize_minus_1):
    gL, gU = grads
    m, n = LU_data_sym_argsize_minus_2, LU_data_sym_argsize_minus_1
    k = min(m, n)
    like = gL if gL is not None else gU
    if gL is None:
        gL = zeros(like.shape[:-2] + (m, k), dtype=like.dtype, device=like.device)
    if gU is None:
        gU = zeros(like.shape[:-2] + (k, n), dtype=like.dtype, device=like.device)
    if m == n:
        return gL.tril(-1) + gU.triu()
    if m < n:   # L is m × m, U is m × n
        return cat([gL.tril(-1) + gU[..., :, :k].triu(), gU[..., :, k:]], -1)
    return cat([gL[..., :k, :].tril(-1) + gU.triu(), gL[..., k:, :]], -2)


LU_FACTOR = defop("linalg_lu_factor_ex", "LinalgLuFactorExBackward0", None, inputs=("A",),
                  attrs=("pivots", "pivot"), multi_output=("LU",), A=_lu_factor_bwd)
LU = defop("linalg_lu", "LinalgLuBackward0", None, inputs=("A",), attrs=("P", "pivot"),
           multi_output=("L", "U"), A=_lu_bwd)
LU_UNPACK = defop("lu_unpack", "LuUnpackBackward0", None, inputs=("LU_data",),
                  attrs=("LU_data_sym_argsize_minus_2", "LU_data_sym_argsize_minus_1"),
                  multi_output=("L", "U"), LU_data=_unpack_bwd)


# -- lu_solve ----------------------------------------------------------------------------

def _solve_fwd(LU, pivots, Bm, left, adjoint):
    """X with A X = B (``adjoint``: Aᵀ X = B; ``left=False``: X A = B, X Aᵀ = B) for
    A = P L U given packed, by permutation and two triangular solves."""
    xp = _xp(LU, Bm)
    n = LU.shape[-1]
    P = _permutation(pivots, n, LU.dtype)
    L = _triangle(xp, LU, False, True)
    U = _triangle(xp, LU, True, False)
    if not left:   # X A = B  <=>  Aᵀ Xᵀ = Bᵀ (PyTorch lays this one out row-major)
        return B.row_major(xp.swapaxes(
            _solve_fwd(LU, pivots, xp.swapaxes(Bm, -1, -2), True, not adjoint), -1, -2))
    if adjoint:   # Aᵀ = Uᵀ Lᵀ Pᵀ: X = P L⁻ᵀ U⁻ᵀ B
        y = batched_solve(xp, xp.swapaxes(U, -1, -2), Bm)
        y = batched_solve(xp, xp.swapaxes(L, -1, -2), y)
        return B.lapack_layout(P @ y)
    y = batched_solve(xp, L, xp.swapaxes(P, -1, -2) @ Bm)
    return B.lapack_layout(batched_solve(xp, U, y))


def _solve_gB(grad, LU, pivots, left, adjoint):
    return dispatch(LU_SOLVE, (LU, pivots, grad), (left, not adjoint))


def _solve_gLU(grad, LU, pivots, result, left, adjoint):
    gB = _solve_gB(grad, LU, pivots, left, adjoint)
    X = result
    if left:
        gA = -matmul(X, _t(gB)) if adjoint else -matmul(gB, _t(X))
    else:
        gA = -matmul(_t(gB), X) if adjoint else -matmul(_t(X), gB)
    L, U = _packed_parts(LU)
    PtgA = matmul(_t(_P_of(pivots, LU)), gA)
    return matmul(PtgA, _t(U)).tril(-1) + matmul(_t(L), PtgA).triu()


LU_SOLVE = defop("linalg_lu_solve", "LinalgLuSolveBackward0", _solve_fwd,
                 inputs=("LU", "pivots", "B"), attrs=("left", "adjoint"), broadcast=True,
                 LU=_solve_gLU, B=_solve_gB)


# -- the public functions ------------------------------------------------------------------

def _check_lu_input(A, name):
    if not isinstance(A, Tensor):
        raise TypeError(f"{name}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    if A._data.dtype.kind not in "fc" or A._data.dtype.char == "e":   # (float16 too)
        raise NotImplementedError(f'"lu_cpu" not implemented for '
                                  f"'{torch_type_name(A._data.dtype)}'")


def _check_pivot(A, pivot, name):
    if not pivot and A._device.type == "cpu":
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")


def _zero_pivot_error(name, info):
    """PyTorch's error for the first matrix of the batch whose U has a zero pivot."""
    host = info._device.to_host(info._data).reshape(-1)
    for i, v in enumerate(host.tolist()):
        if v:
            pre = _batch_prefix(info._data.reshape(info.shape + (1, 1)), i) \
                if info.dim() else ""
            return RuntimeError(
                f"{name}: {pre}U[{v},{v}] is zero and using it on lu_solve would result in "
                "a division by zero. If you still want to perform the factorization, "
                "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return None


def _factor(A, pivot):
    """(LU Tensor, pivots Tensor, info Tensor): one LinalgLuFactorExBackward0 node (every
    entry point's checks say "torch.lu_factor", as PyTorch's do)."""
    _check_lu_input(A, "torch.lu_factor")
    _check_pivot(A, pivot, "linalg.lu_factor")
    LU, piv, info = _getrf(A._data, bool(pivot))
    dev = A._device
    pivots, info = Tensor._make(piv, dev), Tensor._make(info, dev)
    (LU,) = _multi(LU_FACTOR, A, (LU,), (pivots, bool(pivot)))
    return LU, pivots, info


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """The LU factorisation A = P L U with partial pivoting, packed as LAPACK packs it:
    a named tuple ``LU, pivots, info`` as ``torch.linalg.lu_factor_ex`` (``info``: the
    1-based step of the first zero pivot of each matrix, 0 if none; ``check_errors=True``
    raises then). Backward (``LinalgLuFactorExBackward0``): Note [LU derivatives]."""
    LU_t, pivots, info = _factor(A, pivot)
    if check_errors:
        err = _zero_pivot_error("torch.linalg.lu_factor_ex", info)
        if err is not None:
            raise err
    return _out(RT.linalg_lu_factor_ex((LU_t, pivots, info)), out, "linalg.lu_factor_ex")


def lu_factor(A, *, pivot=True, out=None):
    """The packed LU factorisation and pivots of A, a named tuple ``LU, pivots``, as
    ``torch.linalg.lu_factor``; a zero pivot raises (lu_solve would divide by it): use
    ``lu_factor_ex`` or ``lu`` for a singular matrix. Backward
    (``LinalgLuFactorExBackward0``): Note [LU derivatives]."""
    LU_t, pivots, info = _factor(A, pivot)
    err = _zero_pivot_error("torch.linalg.lu_factor", info)
    if err is not None:
        raise err
    return _out(RT.linalg_lu_factor((LU_t, pivots)), out, "linalg.lu_factor")


def lu(A, *, pivot=True, out=None):
    """A = P L U as three matrices, a named tuple ``P, L, U``, as ``torch.linalg.lu``: P
    a permutation (not differentiable), L unit lower triangular (m × k), U upper
    triangular (k × n), k = min(m, n). A singular matrix is fine. Backward
    (``LinalgLuBackward0``): Note [LU derivatives]."""
    _check_lu_input(A, "linalg.lu")
    _check_pivot(A, pivot, "linalg.lu")
    LU_a, piv, _ = _getrf(A._data, bool(pivot))
    xp = _xp(LU_a)
    m = A.shape[-2]
    P = Tensor._make(_permutation(piv, m, LU_a.dtype), A._device)
    L, U = (xp.ascontiguousarray(x) for x in _unpacked(LU_a))
    L_t, U_t = _multi(LU, A, (L, U), (P, bool(pivot)))
    return _out(RT.linalg_lu((P, L_t, U_t)), out, "linalg.lu")


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """P, L and U of a packed LU and its pivots (``lu_factor``'s), a named tuple, as
    ``torch.lu_unpack``; what is not unpacked comes back empty. Backward
    (``LuUnpackBackward0``): L's gradient goes to the strictly lower part, U's to the
    upper part."""
    if not isinstance(LU_data, Tensor) or not isinstance(LU_pivots, Tensor):
        raise TypeError("lu_unpack(): arguments 'LU_data' and 'LU_pivots' must be Tensors")
    if LU_pivots._data.dtype != B.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor "
                           "of torch.int32 dtype.\nNote: this function is intended to be "
                           "used with the output produced by torch.linalg.lu_factor")
    if LU_data.dim() < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(LU_data.shape)} instead")
    m, n = LU_data.shape[-2:]
    xp = LU_data._device.xp
    dev = LU_data._device
    if unpack_pivots:
        P = _P_of(LU_pivots, LU_data)
    else:
        P = Tensor._make(xp.zeros((0,), dtype=LU_data._data.dtype), dev)
    if unpack_data:
        L, U = (xp.ascontiguousarray(x) for x in _unpacked(LU_data._data))
        L_t, U_t = _multi(LU_UNPACK, LU_data, (L, U), (m, n))
    else:
        L_t = Tensor._make(xp.zeros((0,), dtype=LU_data._data.dtype), dev)
        U_t = Tensor._make(xp.zeros((0,), dtype=LU_data._data.dtype), dev)
    return _out(RT.lu_unpack((P, L_t, U_t)), out, "lu_unpack")


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """The X with A X = B for A given by ``lu_factor`` (``adjoint=True``: Aᵀ X = B;
    ``left=False``: X A = B), as ``torch.linalg.lu_solve``. Backward
    (``LinalgLuSolveBackward0``): another lu_solve with the other adjoint for B, and the
    projection of Note [LU derivatives] for LU."""
    name = "linalg.lu_solve"
    for what, t in (("LU", LU), ("pivots", pivots), ("B", B)):
        if not isinstance(t, Tensor):
            raise TypeError(f"linalg_lu_solve(): argument '{what}' must be Tensor, not "
                            f"{type(t).__name__}")
    check_matrix(LU, "torch." + name)
    if LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(f"torch.{name}: A must be batches of square matrices, but they "
                           f"are {LU.shape[-2]} by {LU.shape[-1]} matrices")
    if B.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if pivots._data.dtype != _INT32:
        raise RuntimeError(f"{name}: pivots should be a Tensor of scalar type torch.int32")
    if LU._data.dtype != B._data.dtype:
        raise RuntimeError(f"{name}: Expected LU and B to have the same dtype, but found LU "
                           f"of type {torch_type_name(LU._data.dtype)} and B of type "
                           f"{torch_type_name(B._data.dtype)} instead")
    check_float(LU, name)
    n = LU.shape[-1]
    rows = B.shape[-2] if left else B.shape[-1]
    if rows != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if pivots.numel():   # (LAPACK's getrs would read out of bounds: PyTorch checks first)
        for bad, words in ((pivots < 1, "greater or equal to 1"),
                           (pivots > LU.shape[-2], "smaller or equal to LU.size(-2)")):
            if bool(bad.any()):
                raise RuntimeError(f"Pivots given to lu_solve must all be {words}. Did you "
                                   f"properly pass the result of lu_factor?")
    return _out(dispatch(LU_SOLVE, (LU, pivots, B), (bool(left), bool(adjoint))), out, name)


def lu_legacy(A, pivot=True, get_infos=False, out=None):
    """``torch.lu`` (deprecated in PyTorch for ``torch.linalg.lu_factor``): ``(LU,
    pivots)``, with ``get_infos=True`` ``(LU, pivots, infos)`` and no error for a zero
    pivot."""
    warn_once("lu")   # Note [warnings given once]
    LU_t, pivots, info = _factor(A, pivot)
    if get_infos:
        return _out(RT.lu_with_info((LU_t, pivots, info)), out, "lu")
    # (no error for a zero pivot, with or without get_infos: PyTorch's _lu_with_info runs
    # lu_factor_ex without its check, whatever check_errors its Python side passes)
    return _out((LU_t, pivots), out, "lu")


def lu_solve_legacy(b, LU_data, LU_pivots, *, out=None):
    """``torch.lu_solve`` (deprecated in PyTorch for ``torch.linalg.lu_solve``): the
    solution of A x = b, arguments in the old order."""
    warn_once("lu_solve")   # Note [warnings given once]
    return _out(lu_solve(LU_data, LU_pivots, b), out, "lu_solve")


@method("lu")
def _lu_method(self, pivot=True, get_infos=False):
    """``Tensor.lu`` (deprecated, as ``torch.lu``)."""
    return lu_legacy(self, pivot, get_infos)


@method("lu_solve")
def _lu_solve_method(self, LU_data, LU_pivots):
    """``Tensor.lu_solve`` (deprecated, as ``torch.lu_solve``)."""
    return lu_solve_legacy(self, LU_data, LU_pivots)
