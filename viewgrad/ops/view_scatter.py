"""The view scatters: select_scatter, slice_scatter, diagonal_scatter, as_strided_scatter.

Each is the out-of-place twin of writing through a view: ``b.select_scatter(src, 0, 2)``
is a copy of ``b`` whose ``b[2]`` holds ``src`` — what ``b[2].copy_(src)`` does in place.
They are how the functionalized rewrite (``trace.explain``) spells an in-place op on a
view (``b1 = b0.select_scatter(x1, 0, 2)``), so a learner can run those lines as printed.

Rows of the derivatives table, as PyTorch's ``SelectScatterBackward0`` & co.: the
gradient for ``self`` is ``grad`` with the region zeroed (a scatter of zeros), the
gradient for ``src`` is the region of ``grad`` (the view op). Both formulas are viewgrad
ops, so double backward works.
"""
from __future__ import annotations

import builtins as _builtins

from .. import backend as B
from ..tensor import Tensor, _wrap_dim
from .table import defop, dispatch, method
from .views import _diag_fwd, _select_fwd, _slice_fwd, as_strided

__all__ = ["select_scatter", "slice_scatter", "diagonal_scatter", "as_strided_scatter"]

_builtin_slice = _builtins.slice


def _zeros(shape, like):
    from .factories import zeros
    return zeros(tuple(shape), dtype=like.dtype, device=like.device)


def _scatter_fwd(region):
    """Forward of 'a copy of self with region(copy) = src'."""
    def fwd(self, src, *attrs):
        out, _ = B.clone_preserving_storage(self)   # (self's strides, as PyTorch's)
        region(out, *attrs)[...] = src
        return out
    return fwd


def _as_strided_region(flat, size, stride, storage_offset):
    dev = B.device_of_array(flat) or B.cpu
    if dev.as_strided is None:
        raise RuntimeError(f"as_strided_scatter is not supported on device {dev.type} "
                           "(it has no as_strided)")
    isz = flat.itemsize
    return B.strided_in(dev, flat, size, tuple(s * isz for s in stride), storage_offset)


def _as_strided_scatter_fwd(self, src, size, stride, storage_offset):
    # PyTorch's steps: a copy of self's whole storage, self's geometry in it, and the
    # region as_strided addresses in that storage (relative to the storage, not to
    # self's first element) written
    out, storage = B.clone_preserving_storage(self)
    _as_strided_region(storage, size, stride, storage_offset)[...] = src
    return out


def _fresh(g):
    """``g`` as a tensor owning contiguous memory from offset 0, so that as_strided (which
    is relative to the storage) addresses it as the forward addressed its copy."""
    if g._base is None and g.storage_offset() == 0 and g.is_contiguous():
        return g
    return g.clone(memory_format=B.contiguous_format)


SELECT_SCATTER = defop(
    "select_scatter", "SelectScatterBackward0", _scatter_fwd(_select_fwd),
    inputs=("self", "src"), attrs=("dim", "index"),
    self=lambda grad, src_shape, dim, index: grad.select_scatter(
        _zeros(src_shape, grad), dim, index),
    src=lambda grad, dim, index: grad.select(dim, index))
SLICE_SCATTER = defop(
    "slice_scatter", "SliceScatterBackward0", _scatter_fwd(_slice_fwd),
    inputs=("self", "src"), attrs=("dim", "start", "end", "step"),
    self=lambda grad, src_shape, dim, start, end, step: grad.slice_scatter(
        _zeros(src_shape, grad), dim, start, end, step),
    src=lambda grad, dim, start, end, step: grad.slice(dim, start, end, step))
DIAGONAL_SCATTER = defop(
    "diagonal_scatter", "DiagonalScatterBackward0", _scatter_fwd(_diag_fwd),
    inputs=("self", "src"), attrs=("offset", "dim1", "dim2"),
    self=lambda grad, src_shape, offset, dim1, dim2: grad.diagonal_scatter(
        _zeros(src_shape, grad), offset, dim1, dim2),
    src=lambda grad, offset, dim1, dim2: grad.diagonal(offset, dim1, dim2))
AS_STRIDED_SCATTER = defop(
    "as_strided_scatter", "AsStridedScatterBackward0", _as_strided_scatter_fwd,
    inputs=("self", "src"), attrs=("size", "stride", "storage_offset"),
    self=lambda grad, src_shape, size, stride, storage_offset:
    _fresh(grad).as_strided_scatter(_zeros(src_shape, grad), size, stride, storage_offset),
    src=lambda grad, size, stride, storage_offset:
    as_strided(_fresh(grad), size, stride, storage_offset))


def _run(op, self, src, region_shape, attrs):
    if not isinstance(src, Tensor):
        raise TypeError(f"{op.name}(): argument 'src' must be Tensor, not "
                        f"{type(src).__name__}")
    if tuple(src.shape) != tuple(region_shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src "
                           f"size = {list(src.shape)}, slice size = {list(region_shape)}")
    if src._data.dtype != self._data.dtype:
        src = src.to(self.dtype)  # written into a copy of self: self's dtype, as copy_
    return dispatch(op, (self, src), attrs)


@method("select_scatter")
def select_scatter(self, src, dim, index):
    """A copy of ``self`` whose ``self.select(dim, index)`` holds ``src``
    (``torch.select_scatter``): the out-of-place form of ``self[index].copy_(src)``, as
    ``explain`` prints it. Node ``SelectScatterBackward0``."""
    if self.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, self.dim())
    n = self._data.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(self.shape)} at dimension {d}")
    i = index + n if index < 0 else index
    return _run(SELECT_SCATTER, self, src, _select_fwd(self._data, d, i).shape, (d, i))


@method("slice_scatter")
def slice_scatter(self, src, dim=0, start=None, end=None, step=1):
    """A copy of ``self`` whose slice ``start:end:step`` along ``dim`` holds ``src``
    (``torch.slice_scatter``; what ``b[:, 1:3] = src`` is, functionally). Node
    ``SliceScatterBackward0``."""
    d = _wrap_dim(dim, self.dim())
    step = 1 if step is None else step
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    s, e, _ = _builtin_slice(start, end, step).indices(self._data.shape[d])
    e = max(s, e)
    attrs = (d, s, e, step)
    return _run(SLICE_SCATTER, self, src, _slice_fwd(self._data, *attrs).shape, attrs)


@method("diagonal_scatter")
def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
    """A copy of ``self`` whose ``diagonal(offset, dim1, dim2)`` holds ``src``
    (``torch.diagonal_scatter``). Node ``DiagonalScatterBackward0``."""
    d1, d2 = _wrap_dim(dim1, self.dim()), _wrap_dim(dim2, self.dim())
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    attrs = (offset, d1, d2)
    return _run(DIAGONAL_SCATTER, self, src, _diag_fwd(self._data, *attrs).shape, attrs)


@method("as_strided_scatter")
def as_strided_scatter(self, src, size, stride, storage_offset=None):
    """A copy of ``self`` in which the elements that ``as_strided(size, stride,
    storage_offset)`` addresses hold ``src`` (``torch.as_strided_scatter``; the geometry
    is relative to a copy of ``self``'s whole storage, as in PyTorch). What ``explain`` falls back on for a
    view that no simpler scatter undoes. Node ``AsStridedScatterBackward0``."""
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    off = 0 if storage_offset is None else int(storage_offset)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape ({len(stride)} vs "
                           f"{len(size)})")
    if self.requires_grad and not self.is_contiguous():   # (PyTorch's internal assert)
        raise RuntimeError("as_strided_scatter is currently only supported for contiguous "
                           "inputs (self requires grad and is not contiguous)")
    need = off + 1 + sum((a - 1) * b for a, b in zip(size, stride)) if all(size) else 0
    have = int(self._storage.size)   # (the geometry is relative to self's storage)
    if need > have or off < 0 or any(s < 0 for s in stride):
        isz = self._data.itemsize
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {off}, "
            f"and itemsize {isz} requiring a storage size of {need * isz} are out of bounds "
            f"for storage of size {have * isz}")
    return _run(AS_STRIDED_SCATTER, self, src, size, (size, stride, off))
