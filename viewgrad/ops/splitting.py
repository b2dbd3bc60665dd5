"""Multi-output views: split, chunk, unbind; and tensor_split, hsplit, vsplit, dsplit.

split/chunk/unbind: one node for all outputs; each output is a view with creation_meta
MULTI_OUTPUT_NODE, so an in-place op on one of them is an error (PyTorch).
tensor_split and its h/v/d forms are, as in PyTorch, a tuple of ordinary slices (each its
own ``SliceBackward0``): modifying a piece in place is allowed (CopySlices on the base).
"""
from __future__ import annotations

import builtins as _builtins

from ..autograd.saved_names import show_given
from ..autograd.state import state as _st
from ..autograd.views import CreationMeta, make_view
from ..tensor import Tensor, _wrap_dim
from .joining import cat, stack
from .table import defop, method, _edges
from .views import _select_fwd, _slice_fwd, narrow, select, slice as _slice

__all__ = ["split", "chunk", "unbind", "tensor_split", "hsplit", "vsplit", "dsplit",
           "unsafe_split", "unsafe_chunk"]

builtins_max = _builtins.max
builtins_min = _builtins.min


def _split_bwd(grads, self_shape, dim, sizes, dtype, device):
    from .factories import zeros
    parts = []
    for g, s in zip(grads, sizes):
        if g is None:
            shp = list(self_shape)
            shp[dim] = s
            g = zeros(tuple(shp), dtype=dtype, device=device)
        parts.append(g)
    return cat(parts, dim)


def _unbind_bwd(grads, self_shape, dim, dtype, device):
    from .factories import zeros
    shp = tuple(s for i, s in enumerate(self_shape) if i != dim)
    return stack([g if g is not None else zeros(shp, dtype=dtype, device=device)
                  for g in grads], dim)


# (the pieces' sizes, dtype and device are viewgrad's own, for the formula's zeros: hidden,
# Note [hidden saved values]; PyTorch's nodes show the split size, or the sizes, as given)
SPLIT = defop("split", "SplitBackward0", None,
              attrs=("dim", "_sizes", "_dtype", "_device", "split_size"),
              view=True, multi_output=True,
              self=lambda grad, self_shape, dim, _sizes, _dtype, _device, split_size:
              _split_bwd(grad, self_shape, dim, _sizes, _dtype, _device))
SPLIT_WITH_SIZES = defop(
    "split_with_sizes", "SplitWithSizesBackward0", None,
    attrs=("dim", "split_sizes", "_dtype", "_device"), view=True, multi_output=True,
    self=lambda grad, self_shape, dim, split_sizes, _dtype, _device:
    _split_bwd(grad, self_shape, dim, split_sizes, _dtype, _device))
UNBIND = defop("unbind", "UnbindBackward0", None, attrs=("dim", "_dtype", "_device"),
               view=True, multi_output=True,
               self=lambda grad, _self_shape, dim, _dtype, _device:
               _unbind_bwd(grad, _self_shape, dim, _dtype, _device))


# unsafe_split / unsafe_chunk: the same pieces, but not views to autograd (PyTorch uses
# them inside its own layers, the GRU cell's gates): one UnsafeSplitBackward0 node, each
# piece an ordinary tensor (a copy here, so no untracked alias exists)
UNSAFE_SPLIT = defop("unsafe_split", "UnsafeSplitBackward0", None,
                     attrs=("dim", "_sizes", "_dtype", "_device", "split_size"),
                     multi_output=True,
                     self=lambda grad, self_shape, dim, _sizes, _dtype, _device, split_size:
                     _split_bwd(grad, self_shape, dim, _sizes, _dtype, _device))


@method("unsafe_split")
def unsafe_split(self, split_size, dim=0):
    """``split`` whose pieces are not views to autograd (``torch.Tensor.unsafe_split``):
    one ``UnsafeSplitBackward0`` node; modifying a piece in place is not refused."""
    from .stats import _multi
    if not self.dim():   # (split's words, as PyTorch's)
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, self.dim())
    n = self._data.shape[d]
    if split_size <= 0 and n:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                           f"dimension size of {n}")
    sizes = [builtins_min(split_size, n - i) for i in range(0, n, split_size)] if n else [0]
    datas, off = [], 0
    for s in sizes:
        datas.append(_slice_fwd(self._data, d, off, off + s, 1).copy())
        off += s
    return _multi(UNSAFE_SPLIT, self, datas,
                  (d, tuple(sizes), self.dtype, self.device, split_size))


@method("unsafe_chunk")
def unsafe_chunk(self, chunks, dim=0):
    """``chunk`` whose pieces are not views to autograd (``torch.Tensor.unsafe_chunk``)."""
    if not self.dim():   # (chunk's words, as PyTorch's)
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0")
    d = _wrap_dim(dim, self.dim())
    return unsafe_split(self, builtins_max(-(-self._data.shape[d] // chunks), 1), d)


def _multi_view(op, self, datas, attrs, replays):
    node = None
    if _st.grad_enabled:
        edges = _edges((self,))
        if edges is not None:
            from .table import record
            node = record(op, (self,), None, attrs, edges)
            node._n_outputs = len(datas)
    outs = []
    for i, (d, rp) in enumerate(zip(datas, replays)):
        outs.append(make_view(op, self, d, attrs, rp, CreationMeta.MULTI_OUTPUT_NODE, i,
                              node))
    return tuple(outs)


@method("split")
def split(self, split_size_or_sections, dim=0):
    if not self.dim():
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, self.dim())
    n = self._data.shape[d]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        if s <= 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {n}")
        sizes = [builtins_min(s, n - i) for i in range(0, n, s)] if n else [0]
    else:
        sizes = list(split_size_or_sections)
        if any(s < 0 for s in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={sizes}")
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {d}), but got "
                               f"split_sizes={sizes}")
    datas, replays, off = [], [], 0
    for s in sizes:
        datas.append(_slice_fwd(self._data, d, off, off + s, 1))
        replays.append((narrow, (d, off, s)))
        off += s
    # a list of sizes is PyTorch's split_with_sizes (its node is SplitWithSizesBackward0)
    if isinstance(split_size_or_sections, int):
        op, attrs = SPLIT, (d, tuple(sizes), self.dtype, self.device, split_size_or_sections)
    else:
        op, attrs = SPLIT_WITH_SIZES, (d, tuple(sizes), self.dtype, self.device)
    return show_given(_multi_view(op, self, datas, attrs, replays),
                      "dim", dim, d)   # (Note [dims as given])


@method("split_with_sizes")
def split_with_sizes(self, split_sizes, dim=0):
    """Split into pieces of the given sizes along ``dim`` (views; ``torch.split_with_sizes``
    — what ``split`` does when given a list). The sizes must sum to the dimension's size;
    the pieces are multi-output views (modifying one in place is refused)."""
    return split(self, list(split_sizes), dim)


@method("chunk")
def chunk(self, chunks, dim=0):
    if not self.dim():
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, self.dim())
    n = self._data.shape[d]
    size = -(-n // chunks) if chunks > 0 else 0
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0")
    if n == 0:   # `chunks` empty pieces (PyTorch: split would give one), by their sizes
        return show_given(split_with_sizes(self, [0] * chunks, d), "dim", dim, d)
    return show_given(split(self, builtins_max(size, 1), d), "dim", dim, d)


@method("unbind")
def unbind(self, dim=0):
    d = _wrap_dim(dim, self.dim())
    datas = [_select_fwd(self._data, d, i) for i in range(self._data.shape[d])]
    replays = [(select, (d, i)) for i in range(len(datas))]
    return show_given(_multi_view(UNBIND, self, datas, (d, self.dtype, self.device), replays),
                      "dim", dim, d)


@method("tensor_split")
def tensor_split(self, indices_or_sections, dim=0):
    """Split into views along ``dim`` (``torch.tensor_split``): an int ``n`` gives ``n``
    pieces as equal as possible (the first ``size % n`` one longer); a list (or 1-D
    tensor) of indices cuts before each index. Unlike ``split``, the pieces are plain
    slices (``SliceBackward0`` each), so modifying one in place is allowed."""
    if not self.dim():
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = _wrap_dim(dim, self.dim())
    n = self._data.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios._data.dtype.kind not in "iu" or ios.dim() > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional "
                f"or one-dimensional tensor, but got a tensor with {ios.dim()} dims")
        ios = int(ios.item()) if ios.dim() == 0 else [int(i) for i in ios.tolist()]
    if isinstance(ios, bool) or not isinstance(ios, (int, list, tuple)):
        raise TypeError(f"tensor_split(): argument 'indices_or_sections' must be an int or a "
                        f"sequence of ints, not {type(ios).__name__}")
    if isinstance(ios, int):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        q, r = divmod(n, ios)
        bounds, start = [], 0
        for i in range(ios):
            end = start + q + (1 if i < r else 0)
            bounds.append((start, end))
            start = end
    else:
        cuts = [0] + [builtins_min(builtins_max(int(i) + (n if int(i) < 0 else 0), 0), n)
                      for i in ios] + [n]
        bounds = [(a, builtins_max(a, b)) for a, b in zip(cuts, cuts[1:])]
    return tuple(_slice(self, d, a, b) for a, b in bounds)


def _dir_split(self, ios, dim, name):
    if isinstance(ios, int) and ios > 0 and self._data.shape[dim] % ios:
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                           f"size of the dimension {self._data.shape[dim]} is not divisible "
                           f"by the split_size {ios}!")
    return tensor_split(self, ios, dim)


@method("hsplit")
def hsplit(self, indices_or_sections):
    """``tensor_split`` along dim 1 (dim 0 for a 1-D tensor), as ``torch.hsplit``: an int
    must divide the dimension evenly."""
    if self.dim() < 1:
        raise RuntimeError("torch.hsplit requires a tensor with at least 1 dimension, but "
                           "got a tensor with 0 dimensions!")
    return _dir_split(self, indices_or_sections, 1 if self.dim() > 1 else 0, "hsplit")


@method("vsplit")
def vsplit(self, indices_or_sections):
    """``tensor_split`` along dim 0 of a tensor with at least 2 dims (``torch.vsplit``)."""
    if self.dim() < 2:
        raise RuntimeError(f"torch.vsplit requires a tensor with at least 2 dimension, but "
                           f"got a tensor with {self.dim()} dimensions!")
    return _dir_split(self, indices_or_sections, 0, "vsplit")


@method("dsplit")
def dsplit(self, indices_or_sections):
    """``tensor_split`` along dim 2 of a tensor with at least 3 dims (``torch.dsplit``)."""
    if self.dim() < 3:
        raise RuntimeError(f"torch.dsplit requires a tensor with at least 3 dimension, but "
                           f"got a tensor with {self.dim()} dimensions!")
    return _dir_split(self, indices_or_sections, 2, "dsplit")
