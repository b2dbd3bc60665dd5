"""PyTorch's one-time warnings: the deprecations its C++ core raises with
``TORCH_WARN_ONCE``, word for word, and ``warn_once``, which gives each of them once per
process.

Note [warnings given once]
Python's default filter shows a warning once per *calling line*; PyTorch's C++ warnings
marked ``TORCH_WARN_ONCE`` appear once per *process*, whatever the line. A script that
calls ``torch.lu`` from two places sees one warning under PyTorch, so it sees one here.
The texts are PyTorch 2.13's, its two missing spaces included ("solve_triangularand"),
without the "(Triggered internally at ...)" that names PyTorch's own C++ source file.
A warning that PyTorch gives from Python (``warnings.warn``) is not one of these: it
stays a plain ``warnings.warn`` at its call site.
"""
from __future__ import annotations

import os
import sys
import threading
import warnings

__all__ = ["warn_once", "ONCE"]

ONCE = {
    # (given from Python by PyTorch, once per process too: torch/storage.py)
    "typed_storage": "TypedStorage is deprecated. It will be removed in the future and "
                     "UntypedStorage will be the only storage class. This should only matter "
                     "to you if you are using storages directly.  To access UntypedStorage "
                     "directly, use tensor.untyped_storage() instead of tensor.storage()",
    "adjoint_0d": "adjoint() is deprecated on 0-D tensors. Consider using x.conj().",
    "H_0d": "Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
    "chain_matmul": "torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                    "release. Use torch.linalg.multi_dot instead, which accepts a list of two "
                    "or more tensors rather than multiple parameters.",
    "lu": "torch.lu is deprecated in favor of torch.linalg.lu_factor / "
          "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.\n"
          "LU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\n"
          "LU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
          "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\n"
          "should be replaced with\n"
          "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)",
    "lu_solve": "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be "
                "removed in a future PyTorch release.\nNote that torch.linalg.lu_solve has "
                "its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be "
                "replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)",
    "triangular_solve": "torch.triangular_solve is deprecated in favor of "
                        "torch.linalg.solve_triangularand will be removed in a future PyTorch "
                        "release.\ntorch.linalg.solve_triangular has its arguments reversed "
                        "and does not return a copy of one of the inputs.\n"
                        "X = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
                        "X = torch.linalg.solve_triangular(A, B).",
    "qr": "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a "
          "future PyTorch release.\nThe boolean parameter 'some' has been replaced with a "
          "string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\n"
          "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')",
    "cross": "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
             "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value "
             "of dim will change to agree with that of linalg.cross in a future release.",
    "meshgrid": "torch.meshgrid: in an upcoming release, it will be required to pass the "
                "indexing argument.",
    "index_reduce": "index_reduce() is in beta and the API may change at any time.",
}

_given = set()
_lock = threading.Lock()
_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn_once(key):
    """Give ``ONCE[key]`` as a UserWarning, the first time in this process only (Note
    [warnings given once]), attributed to the innermost line outside viewgrad: the
    user's call, however many of viewgrad's own frames lie between."""
    if key in _given:
        return
    with _lock:
        if key in _given:
            return
        _given.add(key)
    level, f = 2, sys._getframe(1)   # (stacklevel 2 names the caller: frame 1 here)
    while f is not None and f.f_code.co_filename.startswith(_PKG):
        level, f = level + 1, f.f_back
    warnings.warn(ONCE[key], UserWarning, stacklevel=level)
