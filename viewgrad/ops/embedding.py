"""embedding as PyTorch records it: one ``EmbeddingBackward0`` node whose only edge is the
weight (the indices are saved, version-checked, and get no edge). Its backward adds each
incoming gradient row into the row of the weight it was read from (``index_add``, so
double backward works), skipping ``padding_idx``.
"""
from __future__ import annotations

from ..autograd.saved_names import alias_property
from .table import defop, dispatch

__all__ = ["embedding_rows"]


def _emb_fwd(weight, indices, padding_idx, scale_grad_by_freq):
    return weight[indices]


def _emb_weight(grad, _weight_shape, indices, padding_idx, scale_grad_by_freq):
    from .factories import ones, zeros
    weight_shape = _weight_shape
    from .index_ops import index_add
    rows = grad.reshape(-1, weight_shape[-1])
    idx = indices.reshape(-1)
    if padding_idx is not None:
        rows = rows * (idx != padding_idx).unsqueeze(1).to(rows.dtype)
    if scale_grad_by_freq:
        # PyTorch's embedding_dense_backward: each row's gradient divided by how often
        # its index occurs among all the indices
        counts = index_add(zeros(weight_shape[0], dtype=grad.dtype, device=grad.device), 0,
                           idx, ones(idx.shape[0], dtype=grad.dtype, device=grad.device))
        # (added as a constant: PyTorch's double backward, embedding_dense_double_backward,
        # differentiates the unscaled rows, and so does this)
        rows = rows + (rows / counts[idx].unsqueeze(1) - rows).detach()
    return index_add(zeros(*weight_shape, dtype=grad.dtype, device=grad.device), 0, idx, rows)


EMBEDDING = defop("embedding", "EmbeddingBackward0", _emb_fwd,
                  inputs=("weight", "indices"), attrs=("padding_idx", "scale_grad_by_freq"),
                  weight=_emb_weight)
# (PyTorch's node also shows the flag viewgrad's embedding refuses to be given)
EMBEDDING.node_cls._saved_sparse = property(lambda self: False)
# (PyTorch saves weight.size(0) alone; viewgrad keeps the whole size, hidden: Note [hidden
# saved values] in autograd/saved_names.py)
EMBEDDING.node_cls._saved_weight_sym_argsize_0 = alias_property(
    "_weight_shape", "_saved_weight_sym_argsize_0", lambda v: v[0])


def embedding_rows(weight, indices, padding_idx=None, scale_grad_by_freq=False):
    """``weight[indices]`` as one EmbeddingBackward0 node (what ``F.embedding`` records)."""
    idx = indices._data
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= weight.shape[0]):
        # PyTorch's words (a negative index is out of range too: no wrapping around)
        raise IndexError("index out of range in self")
    return dispatch(EMBEDDING, (weight, indices), (padding_idx, bool(scale_grad_by_freq)))
