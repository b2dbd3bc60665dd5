"""The linear-algebra functions under their other names: the ``Tensor`` methods
(``A.inverse()``, ``A.det()``, ``A.svd()``...), the old ``torch.*`` functions PyTorch
keeps for compatibility (``torch.svd`` returning V, ``torch.qr(some=)``,
``torch.slogdet``, ``torch.cholesky``), and the small ``torch.linalg`` extras
(``cond``, ``vecdot``, ``diagonal``, ``inv_ex``, ``cholesky_ex``, ``solve_ex``).
"""
from __future__ import annotations

import warnings

from .. import return_types as RT
from . import linalg_decomp as D
from . import linalg_solve as S
from ..tensor import Tensor
from .table import method

__all__ = ["slogdet_legacy", "qr_legacy", "cond", "vecdot", "linalg_diagonal", "inv_ex",
           "cholesky_ex", "solve_ex"]


def slogdet_legacy(input):
    """``torch.slogdet``: ``linalg.slogdet`` as the named tuple ``torch.return_types.slogdet``
    (``sign, logabsdet``)."""
    return RT.slogdet(S.slogdet(input))


def qr_legacy(input, some=True):
    """``torch.qr`` (deprecated in PyTorch, with its warning): ``linalg.qr`` with
    ``mode='reduced'`` when ``some`` else ``'complete'``."""
    warnings.warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in "
                  "a future PyTorch release.", UserWarning, stacklevel=2)
    return RT.qr(D.qr(input, "reduced" if some else "complete"))


def cond(A, p=None):
    """The condition number of A in the ``p`` norm (default 2: σ_max / σ_min), as
    ``torch.linalg.cond``; p may also be 'fro', 'nuc', inf, -inf, 1, -1, -2 (via
    ``linalg.matrix_norm`` of A and of inv(A))."""
    if p is None or p == 2 or p == -2:
        s = D.svdvals(A)   # (descending; PyTorch's steps: narrow, divide, squeeze)
        hi, lo = s.narrow(-1, 0, 1), s.narrow(-1, -1, 1)
        return (lo / hi if p == -2 else hi / lo).squeeze(-1)
    from .vector_norms import matrix_norm
    return matrix_norm(A, p) * matrix_norm(S.inv(A), p)


def vecdot(x, y, *, dim=-1):
    """The dot product of the vectors along ``dim`` (broadcast), as
    ``torch.linalg.vecdot``: ``(x.conj() * y).sum(dim)``."""
    for t in (x, y):   # (PyTorch's check, its words)
        if isinstance(t, Tensor):
            S.check_float(t, "linalg.vecdot")
    return (x.conj_physical() * y).sum(dim)


def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``torch.linalg.diagonal``: ``A.diagonal`` over the last two dims by default (a
    view)."""
    return A.diagonal(offset, dim1, dim2)


def _info(A):
    return A.new_zeros(A.shape[:-2], dtype=S.B.int32) if A.dim() > 2 else \
        A.new_zeros((), dtype=S.B.int32)


def inv_ex(A, *, check_errors=False):
    """``torch.linalg.inv_ex``: ``(inverse, info)``; info is 0 (viewgrad raises on a
    singular matrix instead of reporting it in info)."""
    return S.inv(A), _info(A)


def cholesky_ex(A, *, upper=False, check_errors=False):
    """``torch.linalg.cholesky_ex``: ``(L, info)``; info is 0 (a matrix that is not
    positive-definite raises)."""
    return D.cholesky(A, upper=upper), _info(A)


def solve_ex(A, B, *, left=True, check_errors=False):
    """``torch.linalg.solve_ex``: ``(solution, info)``; info is 0 (a singular matrix
    raises)."""
    return S.solve(A, B, left=left), _info(A)


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
