"""``vg.linalg``: the part of ``torch.linalg`` viewgrad provides — the norms
(``vector_norm``, ``matrix_norm``, ``norm``), each a differentiable op recorded with
PyTorch's node names. Under ``viewgrad run --torch``, ``torch.linalg`` is this module.
"""
from __future__ import annotations

from .ops.vector_norms import linalg_norm as norm, matrix_norm, vector_norm
from .ops.diag import linalg_cross as cross

__all__ = ["norm", "vector_norm", "matrix_norm", "cross"]
