"""The linear-algebra functions under their other names: the ``Tensor`` methods
(``A.inverse()``, ``A.det()``, ``A.svd()``...), the old ``torch.*`` functions PyTorch
keeps for compatibility (``torch.svd`` returning V, ``torch.qr(some=)``,
``torch.slogdet``, ``torch.cholesky``), and the small ``torch.linalg`` extras
(``cond``, ``vecdot``, ``diagonal``, ``inv_ex``, ``cholesky_ex``, ``solve_ex``).
"""
from __future__ import annotations


from .. import return_types as RT
from . import linalg_decomp as D
from . import linalg_solve as S
from ..tensor import Tensor
from .factories import tensor
from .table import dispatch, method
from .warn_once import warn_once

__all__ = ["slogdet_legacy", "qr_legacy", "cond", "vecdot", "linalg_diagonal", "inv_ex",
           "cholesky_ex", "solve_ex"]


def slogdet_legacy(input):
    """``torch.slogdet``: ``linalg.slogdet`` as the named tuple ``torch.return_types.slogdet``
    (``sign, logabsdet``)."""
    return RT.slogdet(S.slogdet(input))


def qr_legacy(input, some=True):
    """``torch.qr`` (deprecated in PyTorch, with its warning): ``linalg.qr`` with
    ``mode='reduced'`` when ``some`` else ``'complete'``."""
    warn_once("qr")   # Note [warnings given once]
    return RT.qr(D.qr(input, "reduced" if some else "complete"))


def cond(A, p=None):
    """The condition number of A in the ``p`` norm (default 2: σ_max / σ_min), as
    ``torch.linalg.cond``; p may also be 'fro', 'nuc', inf, -inf, 1, -1, -2 — PyTorch's
    steps: ``matrix_norm`` of A times that of ``inv_ex(A)``, whose failed inverses are
    filled with inf (a singular matrix's condition number is inf; an empty one's is 0)."""
    inf = float("inf")
    name = p if isinstance(p, str) else "inf" if p == inf else "-inf" if p == -inf else \
        int(p) if p is not None and not isinstance(p, bool) else p
    if isinstance(p, str):   # (PyTorch's order: a named norm asks for square matrices first)
        S.check_square(A, f"linalg.cond(ord={name})")
    elif A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p not in (None, 1, -1, 2, -2, inf, -inf, "fro", "nuc") or isinstance(p, bool):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A.numel() == 0:
        return A.new_zeros(tuple(A.shape[:-2]), dtype=A.real.dtype if A.is_complex()
                           else A.dtype)
    if p is None or p == 2 or p == -2:
        s = D.svdvals(A)   # (descending; PyTorch's steps: narrow, divide, squeeze)
        hi, lo = s.narrow(-1, 0, 1), s.narrow(-1, -1, 1)
        return (lo / hi if p == -2 else hi / lo).squeeze(-1)
    if p == "nuc":   # the singular values' sum, times their reciprocals' sum
        s = D.svdvals(A)
        return s.sum(-1) * s.reciprocal().sum(-1)
    from .vector_norms import matrix_norm
    S.check_square(A, f"linalg.cond(ord={name})")
    inverse, info = inv_ex(A)
    inverse.masked_fill_(info.unsqueeze(-1).unsqueeze(-1) > 0, inf)
    return (matrix_norm(A, p) * matrix_norm(inverse, p)).nan_to_num_(inf, inf, -inf)


def vecdot(x, y, *, dim=-1):
    """The dot product of the vectors along ``dim`` (broadcast), as
    ``torch.linalg.vecdot``: ``(x.conj() * y).sum(dim)``."""
    # (PyTorch's checks, its words: x's kind, then the same dtype, then y's kind)
    if isinstance(x, Tensor):
        S.check_float(x, "linalg.vecdot")
        if isinstance(y, Tensor):
            S.check_same_dtype(x, y, "linalg.vecdot: ", "x", "y")
    if isinstance(y, Tensor):
        S.check_float(y, "linalg.vecdot")
    return (x.conj_physical() * y).sum(dim)


def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``torch.linalg.diagonal``: ``A.diagonal`` over the last two dims by default (a
    view)."""
    return A.diagonal(offset, dim1, dim2)


# Note [the _ex functions' info]
# inv_ex, solve_ex and cholesky_ex do not raise for a singular (not positive-definite)
# matrix unless check_errors=True: they report LAPACK's info per matrix (the 1-based
# position of the first zero pivot of the LU factorisation, or the order of the first
# leading minor that is not positive-definite) and return what LAPACK leaves there, in
# the same node as the checked function (its row's ``name`` attribute None: backend's
# solve_each, whose division by the zero pivot gives inf and NaN, and cholesky_each, the
# factor up to the failing column). Their gradients are the same formulas' (inf and NaN
# there, as PyTorch's).

def _infos(A, info_of):
    """LAPACK's info for each matrix of A's batch, an int32 tensor of the batch's shape."""
    host = A._device.to_host(A._data)
    batch = 1
    for d in host.shape[:-2]:
        batch *= d
    # (the batch size spelled out: -1 is ambiguous for 0 x 0 matrices)
    flat = host.reshape((batch,) + host.shape[-2:])
    codes = [info_of(m) for m in flat]
    return tensor(codes, dtype=S.B.int32, device=A.device).reshape(tuple(A.shape[:-2]))


def inv_ex(A, *, check_errors=False):
    """``torch.linalg.inv_ex``: ``(inverse, info)``; a singular matrix is reported in info
    (Note [the _ex functions' info]), and raises only with ``check_errors=True``."""
    S.check_square(A, "linalg.inv_ex")
    inverse = dispatch(S.INV, (A,), ("linalg.inv_ex" if check_errors else None,))
    return RT.linalg_inv_ex((inverse, _infos(A, S.B.lu_zero_pivot)))


def solve_ex(A, B, *, left=True, check_errors=False):
    """``torch.linalg.solve_ex``: ``(result, info)``; a singular matrix is reported in info
    (Note [the _ex functions' info]), and raises only with ``check_errors=True``."""
    S.check_square(A, "linalg.solve_ex")
    name = "torch.linalg.solve_ex" if check_errors else None
    return RT.linalg_solve_ex((S.solve_named(A, B, left, name),
                               _infos(A, S.B.lu_zero_pivot)))


def cholesky_ex(A, *, upper=False, check_errors=False):
    """``torch.linalg.cholesky_ex``: ``(L, info)``; a matrix that is not
    positive-definite is reported in info (Note [the _ex functions' info]), and raises
    only with ``check_errors=True``."""
    S.check_square(A, "linalg.cholesky_ex")
    L = dispatch(D.CHOLESKY, (A,), (bool(upper), "linalg.cholesky_ex" if check_errors
                                    else None))
    return RT.linalg_cholesky_ex((L, _infos(A, S.B.first_non_pd_minor)))


# Tensor methods, as PyTorch names them
method("inverse")(S.inverse)
method("det")(S.det)
method("logdet")(S.logdet)
method("slogdet")(slogdet_legacy)
method("pinverse")(S.pinverse)
method("matrix_power")(S.matrix_power)
method("cholesky")(D.cholesky_legacy)
method("qr")(qr_legacy)
method("svd")(D.svd_legacy)
