"""The matrix exponential ``linalg.matrix_exp`` (``torch.matrix_exp``), node
``LinalgMatrixExpBackward0``.

Note [matrix_exp by scaling and squaring]: exp(A) = exp(A / 2^s)^(2^s). The matrix is
scaled until its 1-norm is at most 1/2, where a degree-18 Taylor polynomial is exact to
well below float64's epsilon (0.5^19 / 19! ~ 1e-23), then squared back s times; the sums
run in float64 and the result is cast to A's dtype. Its gradient is the top-right block of
the exponential of the 2n x 2n block matrix [[Aᵀ, G], [0, Aᵀ]] (Najfeld & Havel), itself
a matrix_exp, so double backward works.
"""
from __future__ import annotations

import math

from .. import backend as B
from .joining import cat
from .linalg_solve import _out, check_square
from .table import defop, dispatch, method

__all__ = ["matrix_exp"]

_xp = B.xp_of
_DEGREE = 18


def _expm_fwd(A):
    xp = _xp(A)
    wide = B.complex128 if A.dtype.kind == "c" else B.float64   # (complex stays complex)
    a = A.astype(wide)
    n = a.shape[-1]
    norm = float(xp.abs(a).sum(axis=-2).max()) if a.size else 0.0
    s = max(0, int(math.ceil(math.log2(norm / 0.5)))) if norm > 0.5 else 0
    a = a / (2.0 ** s)
    eye = xp.broadcast_to(xp.eye(n, dtype=wide), a.shape)
    result = eye.copy()
    term = eye
    for k in range(1, _DEGREE + 1):       # Note [matrix_exp by scaling and squaring]
        term = term @ a / k
        result = result + term
    for _ in range(s):
        result = result @ result
    return result.astype(A.dtype)


def _expm_bwd(grad, self):
    n = self.shape[-1]
    At = self.transpose(-1, -2)
    top = cat([At, grad], -1)
    bottom = cat([grad.new_zeros(grad.shape), At], -1)
    big = dispatch(EXPM, (cat([top, bottom], -2),))
    return big[..., :n, n:]


EXPM = defop("linalg_matrix_exp", "LinalgMatrixExpBackward0", _expm_fwd, self=_expm_bwd)


@method("matrix_exp")
def matrix_exp(A):
    """The matrix exponential exp(A) = I + A + A²/2! + ... of a square matrix (or batch),
    as ``torch.linalg.matrix_exp`` / ``torch.matrix_exp`` (Note [matrix_exp by scaling and
    squaring]). Backward (``LinalgMatrixExpBackward0``): a block matrix exponential."""
    check_square(A, "linalg.matrix_exp")
    return dispatch(EXPM, (A,))
