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
from .factories import tensor
from .pointwise import where
from .table import dispatch, method

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


# Note [the _ex functions' info]
# inv_ex, solve_ex and cholesky_ex do not raise for a singular (not positive-definite)
# matrix unless check_errors=True: they report LAPACK's info per matrix (the 1-based
# position of the first zero pivot of the LU factorisation, or the order of the first
# leading minor that is not positive-definite) and return what LAPACK leaves there:
# backend's getrf_solve (inf and NaN from the division by the zero pivot) and potf2 (the
# factor up to the failing column). Those matrices' results are constants: no gradient
# flows into a failed factorisation (PyTorch's is inf or NaN there).

def _infos(A, info_of):
    """LAPACK's info for each matrix of A's batch, an int32 tensor of the batch's shape."""
    host = A._device.to_host(A._data)
    flat = host.reshape((-1,) + host.shape[-2:])
    codes = [info_of(m) for m in flat]
    return tensor(codes, dtype=S.B.int32, device=A.device).reshape(tuple(A.shape[:-2]))


def _mixed(good_result, failed_value, info, A, batch_shape=None):
    """``good_result`` (computed on A with each failed matrix replaced by I) with the
    failed matrices' results replaced by ``failed_value(i)`` for batch position i."""
    batch = tuple(A.shape[:-2]) if batch_shape is None else batch_shape
    flat_info = info.reshape(-1).tolist()
    host = good_result.detach()._device.to_host(good_result.detach()._data).copy()
    flat = host.reshape((-1,) + host.shape[len(batch):])
    for i, code in enumerate(flat_info):
        if code:
            flat[i] = failed_value(i)
    fixed = tensor(host, dtype=good_result.dtype, device=good_result.device)
    failed = (info != 0).reshape(batch + (1,) * (good_result.dim() - len(batch)))
    return where(failed, fixed, good_result)


def _with_identity(A, info):
    """A with each matrix whose factorisation failed replaced by the identity."""
    eye = S._eye_like(A)
    return where((info != 0).unsqueeze(-1).unsqueeze(-1), eye, A)


def _host_matrices(t, batch):
    host = t.detach()._device.to_host(t.detach()._data)
    host = S.B.host_array(host) if host.ndim >= 2 else host
    return host.reshape((-1,) + host.shape[len(batch):]) if batch else host[None]


def inv_ex(A, *, check_errors=False):
    """``torch.linalg.inv_ex``: ``(inverse, info)``; a singular matrix is reported in info
    (Note [the _ex functions' info]), and raises only with ``check_errors=True``."""
    S.check_square(A, "linalg.inv_ex")
    info = _infos(A, S.B.lu_zero_pivot)
    if not bool(info.any()):
        return RT.linalg_inv_ex((S.inv(A), info))
    if check_errors:
        raise S._singular("linalg.inv_ex", A._data, A._device, True)
    mats = _host_matrices(A, tuple(A.shape[:-2]))
    inv = S.inv(_with_identity(A, info))
    return RT.linalg_inv_ex((_mixed(inv, lambda i: S.B.getrf_solve(
        mats[i], _eye_host(mats[i])), info, A), info))


def _eye_host(m):
    e = m * 0
    e[range(m.shape[0]), range(m.shape[0])] = 1
    return e


def solve_ex(A, B, *, left=True, check_errors=False):
    """``torch.linalg.solve_ex``: ``(result, info)``; a singular matrix is reported in info
    (Note [the _ex functions' info]), and raises only with ``check_errors=True``."""
    S.check_square(A, "linalg.solve_ex")
    info = _infos(A, S.B.lu_zero_pivot)
    if not bool(info.any()):
        return RT.linalg_solve_ex((S.solve(A, B, left=left), info))
    if check_errors:
        raise S._singular("torch.linalg.solve_ex", A._data, A._device, False)
    X = S.solve(_with_identity(A, info), B, left=left)
    vec = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    batch = tuple(X.shape[:-1] if vec else X.shape[:-2])
    xp = S.B.cpu.xp
    Ah = xp.broadcast_to(A._device.to_host(A.detach()._data), batch + tuple(A.shape[-2:]))
    Bh = B._device.to_host(B.detach()._data)
    Bh = Bh[..., None] if vec else Bh
    Bh = xp.broadcast_to(Bh, batch + Bh.shape[-2:])
    codes = xp.broadcast_to(info._device.to_host(info._data), batch).reshape(-1)
    Af, Bf = Ah.reshape((-1,) + Ah.shape[-2:]), Bh.reshape((-1,) + Bh.shape[-2:])

    def failed(i):
        if left:
            x = S.B.getrf_solve(Af[i], Bf[i])
            return x[:, 0] if vec else x
        return S.B.getrf_solve(Af[i].T, Bf[i].T).T
    fixed_info = tensor(codes.reshape(batch), dtype=S.B.int32)
    return RT.linalg_solve_ex((_mixed(X, failed, fixed_info, A, batch), info))


def cholesky_ex(A, *, upper=False, check_errors=False):
    """``torch.linalg.cholesky_ex``: ``(L, info)``; a matrix that is not
    positive-definite is reported in info (Note [the _ex functions' info]), and raises
    only with ``check_errors=True``."""
    S.check_square(A, "linalg.cholesky_ex")
    if check_errors:
        L = dispatch(D.CHOLESKY, (A,), (bool(upper), "linalg.cholesky_ex"))
        return RT.linalg_cholesky_ex((L, A.new_zeros(tuple(A.shape[:-2]), dtype=S.B.int32)))
    info = _infos(A, S.B.first_non_pd_minor)
    if not bool(info.any()):
        return RT.linalg_cholesky_ex((D.cholesky(A, upper=upper), info))
    mats = _host_matrices(A, tuple(A.shape[:-2]))

    def failed(i):
        L = S.B.potf2(mats[i])
        return L.T.conj() if upper else L
    L = D.cholesky(_with_identity(A, info), upper=upper)
    return RT.linalg_cholesky_ex((_mixed(L, failed, info, A), info))
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
