"""``vg.linalg``: the part of ``torch.linalg`` viewgrad provides — the norms
(``vector_norm``, ``matrix_norm``, ``norm``), the solvers and decompositions (LU, QR,
Cholesky, SVD, eigh), each a differentiable op recorded with PyTorch's node names. Under ``viewgrad run --torch``, ``torch.linalg`` is this module.
"""
from __future__ import annotations

from .ops.vector_norms import linalg_norm as norm, matrix_norm, vector_norm
from .ops.diag import linalg_cross as cross
from .ops.linalg import matmul
from .ops.linalg_solve import (LinAlgError, inv, det, slogdet, solve, lstsq, pinv,
                               matrix_power, multi_dot, matrix_rank)
from .ops.linalg_decomp import cholesky, qr, svd, svdvals, eigh, eigvalsh
from .ops.linalg_tri import solve_triangular
from .ops.matrix_exp import matrix_exp
from .ops.linalg_lu import lu_factor, lu_factor_ex, lu, lu_solve
from .ops.linalg_names import (cond, vecdot, linalg_diagonal as diagonal, inv_ex,
                               cholesky_ex, solve_ex)

__all__ = ["norm", "vector_norm", "matrix_norm", "cross", "matmul", "LinAlgError", "inv",
           "det", "slogdet", "solve", "lstsq", "pinv", "matrix_power", "multi_dot",
           "matrix_rank", "cholesky", "qr", "svd", "svdvals", "eigh", "eigvalsh", "cond",
           "vecdot", "diagonal", "inv_ex", "cholesky_ex", "solve_ex", "solve_triangular",
           "matrix_exp", "lu_factor", "lu_factor_ex", "lu", "lu_solve"]

from .ops.out_variants import LINALG_OUT_FUNCTIONS as _OUT, install_out_variants  # noqa: E402
install_out_variants(globals(), _OUT)   # out= where torch.linalg's function takes it
