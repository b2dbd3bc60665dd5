"""Index pairs and combinations: ``tril_indices``/``triu_indices`` (the coordinates of a
matrix's lower or upper triangle, as a (2, N) integer tensor) and ``combinations`` (the
r-length combinations of a 1-D tensor's elements, as Python's ``itertools.combinations``
and ``combinations_with_replacement`` order them).

``combinations`` is composed as PyTorch composes it (aten/src/ATen/native/Itertools.cpp):
an r-fold ``meshgrid`` of the input, each grid ``masked_select``-ed where its indices
increase along the grid's dims, then ``stack``-ed, so its graph is PyTorch's
(``StackBackward0`` over ``MaskedSelectBackward0`` over expanded views) and the gradient
of each element is the sum over the combinations it appears in.
"""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor
from .args import torch_type_name
from .factories import _finish
from .index_ops import masked_select
from .joining import stack
from .shaping import meshgrid

__all__ = ["tril_indices", "triu_indices", "combinations"]


def _triangle(name, row, col, offset, dtype, device, requires_grad, pick):
    # PyTorch's words, without a space before the number
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dt = B.to_dtype(dtype) if dtype is not None else B.int64
    if dt not in (B.int64, B.int32):   # PyTorch's kernel is dispatched on int32/int64 only
        raise NotImplementedError(f'"{name}" not implemented for '
                                  f"'{torch_type_name(dt)}'")
    dev = B.device(device)
    xp = dev.xp
    rows, cols = pick(xp, row, col, offset)   # row-major order, as PyTorch lists them
    return _finish(xp.stack([rows, cols]).astype(dt), dev, requires_grad)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 requires_grad=False):
    """The (row, column) coordinates of the lower triangle of a ``row`` x ``col`` matrix
    (the entries with ``column - row <= offset``), in row-major order, as a (2, N) tensor:
    ``torch.tril_indices``. ``x[tuple(vg.tril_indices(n, n))]`` lists ``x.tril()``'s kept
    entries. ``dtype``: int64 (the default) or int32."""
    return _triangle("tril_indices", row, col, offset, dtype, device, requires_grad,
                     lambda xp, r, c, k: xp.tril_indices(r, k, c))


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 requires_grad=False):
    """The (row, column) coordinates of the upper triangle (``column - row >= offset``),
    in row-major order, as a (2, N) tensor: ``torch.triu_indices``."""
    return _triangle("triu_indices", row, col, offset, dtype, device, requires_grad,
                     lambda xp, r, c, k: xp.triu_indices(r, k, c))


def _increasing_mask(xp, n, r, with_replacement):
    """PyTorch's ``_triu_mask``: True where the r grid indices increase (or do not
    decrease, with replacement) from each dim to the next."""
    idx = [xp.arange(n).reshape([-1 if i == d else 1 for i in range(r)]) for d in range(r)]
    mask = xp.ones((n,) * r, dtype=B.bool_)
    for a, b in zip(idx, idx[1:]):
        mask &= (a <= b) if with_replacement else (a < b)
    return mask


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of a 1-D tensor's elements, one per row, in
    ``itertools.combinations`` order (``combinations_with_replacement`` with
    ``with_replacement=True``), as ``torch.combinations``: (N, r). Differentiable: each
    element's gradient sums over the rows it is in. ``r=0`` gives an empty 1-D tensor."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    xp = input._device.xp
    if r == 0:   # (a new empty tensor, outside the graph, as PyTorch's at::empty)
        return Tensor._make(xp.empty((0,), dtype=input._data.dtype), input._device)
    grids = meshgrid(*([input] * r), indexing="ij")
    mask = Tensor._make(_increasing_mask(xp, input.shape[0], r, with_replacement),
                        input._device)
    return stack([masked_select(g, mask) for g in grids], 1)
