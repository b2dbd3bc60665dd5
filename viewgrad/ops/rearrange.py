"""Copies that rearrange or repeat elements: tril, triu, flip, roll, repeat, tile,
repeat_interleave, ravel (and their in-place forms ``tril_``, ``triu_``).

Rows of the derivatives table where PyTorch has a node (``TrilBackward0``,
``FlipBackward0``, ``RollBackward0``, ``RepeatBackward0``); the others are composed of
existing ops exactly as PyTorch composes them, so a learner sees the same graph:
``tile`` is ``repeat``; ``repeat_interleave(2)`` is unsqueeze → expand → clone → view;
``repeat_interleave(tensor)`` is an ``index_select``; ``ravel`` is
``contiguous().view(-1)``.
"""
from __future__ import annotations

import operator

from .. import backend as B
from ..autograd.saved_names import show_given
from ..tensor import Tensor, _unique_dims, _wrap_dim
from .args import torch_type_name
from .table import apply_inplace, defop, dispatch, method, unpack_args

__all__ = ["tril", "triu", "flip", "roll", "repeat", "tile", "repeat_interleave", "ravel",
           "fliplr", "flipud", "rot90"]


def _tri(fn):
    def fwd(self, diagonal):
        r = getattr(B.xp_of(self), fn)(self, diagonal)
        # (PyTorch's result keeps a transposed matrix's layout, not a permuted batch's)
        return B.row_major(r) if r.ndim > 2 else r
    return fwd


TRIL = defop("tril", "TrilBackward0", _tri("tril"), attrs=("diagonal",),
             self=lambda grad, diagonal: grad.tril(diagonal))
TRIU = defop("triu", "TriuBackward0", _tri("triu"), attrs=("diagonal",),
             self=lambda grad, diagonal: grad.triu(diagonal))
def _flip_fwd(self, dims):
    return B.layout_like(B.xp_of(self).flip(self, axis=dims).copy(), self)


FLIP = defop("flip", "FlipBackward0", _flip_fwd, attrs=("dims",),
             self=lambda grad, dims: grad.flip(dims))


def _roll_fwd(self, shifts, dims):
    xp = B.xp_of(self)
    if dims is None:
        return xp.roll(self.reshape(-1), shifts[0]).reshape(self.shape)
    return B.row_major(xp.roll(self, shifts, axis=dims))


ROLL = defop("roll", "RollBackward0", _roll_fwd, attrs=("shifts", "dims"),
             self=lambda grad, shifts, dims: grad.roll(tuple(-s for s in shifts), dims))


def _repeat_fwd(self, repeats):
    lead = len(repeats) - self.ndim
    return B.row_major(B.xp_of(self).tile(self.reshape((1,) * lead + self.shape), repeats))


def _repeat_bwd(grad, self_shape, repeats):
    # PyTorch's repeat_backward: dim k of the result is (repeat r_k) x (size s_k), row
    # major, so a reshape to (r_0, s_0, r_1, s_1, ...) and a sum over the r's undoes it.
    lead = len(repeats) - len(self_shape)
    split = []
    for r, s in zip(repeats, (1,) * lead + tuple(self_shape)):
        split += [r, s]
    g = grad.reshape(tuple(split))
    if split:
        g = g.sum(tuple(range(0, len(split), 2)))
    return g.reshape(tuple(self_shape))


REPEAT = defop("repeat", "RepeatBackward0", _repeat_fwd, attrs=("repeats",),
               self=_repeat_bwd)


def _need_2d(self, name):
    if self.dim() < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


@method("tril")
def tril(self, diagonal=0):
    """A copy keeping the lower triangle (elements on and below the ``diagonal``-th
    diagonal) of the last two dims, zeros elsewhere (``torch.tril``). The gradient is
    masked the same way (``TrilBackward0``)."""
    _need_2d(self, "tril")
    return dispatch(TRIL, (self,), (int(diagonal),))


@method("triu")
def triu(self, diagonal=0):
    """A copy keeping the upper triangle (on and above the ``diagonal``-th diagonal) of
    the last two dims, zeros elsewhere (``torch.triu``, node ``TriuBackward0``)."""
    _need_2d(self, "triu")
    return dispatch(TRIU, (self,), (int(diagonal),))


@method("tril_")
def tril_(self, diagonal=0):
    """In-place ``tril`` (``torch.Tensor.tril_``): version bump, node ``TrilBackward0``."""
    _need_2d(self, "tril")
    return apply_inplace(TRIL, self, (), (int(diagonal),), name="tril_")


@method("triu_")
def triu_(self, diagonal=0):
    """In-place ``triu`` (``torch.Tensor.triu_``): version bump, node ``TriuBackward0``."""
    _need_2d(self, "triu")
    return apply_inplace(TRIU, self, (), (int(diagonal),), name="triu_")


def _dim_list(self, dims, name):
    return tuple(_unique_dims([_wrap_dim(d, self.dim()) for d in dims]))


@method("flip")
def flip(self, *dims, **kw):
    """A copy with the order of elements reversed along ``dims`` (``torch.flip``; NumPy's
    ``flip`` returns a view, PyTorch and viewgrad copy). Node ``FlipBackward0``."""
    if kw.keys() - {"dims"}:
        raise TypeError(f"flip() got an unexpected keyword argument "
                        f"'{sorted(kw.keys() - {'dims'})[0]}'")
    given = unpack_args(dims, kw.get("dims"), "dims", "flip")
    dims = _dim_list(self, given, "flip")
    if not self.dim():
        return dispatch(FLIP, (self,), ((),))
    return show_given(dispatch(FLIP, (self,), (dims,)), "dims", given, dims)   # (as given)


def _rot90_fwd(self, k, dims):
    # PyTorch's steps, whose layout is the result's: a flip (a copy laid out as self),
    # transposed for an odd k; k = 0 is a row-major clone
    d0, d1 = dims
    if k == 0:
        return B.in_memory_format(self.copy(), B.contiguous_format)
    if k == 2:
        return _flip_fwd(self, dims)
    return B.xp_of(self).swapaxes(_flip_fwd(self, (d1,) if k == 1 else (d0,)), d0, d1)


ROT90 = defop("rot90", "Rot90Backward0", _rot90_fwd, attrs=("k", "dims"),
              self=lambda grad, k, dims: rot90(grad, -k, dims))


@method("rot90")
def rot90(self, k=1, dims=(0, 1)):
    """A copy rotated by 90° ``k`` times in the plane of ``dims``, from the first towards
    the second (``torch.rot90``; node ``Rot90Backward0``)."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if self.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {self.dim()}")
    d0, d1 = _wrap_dim(dims[0], self.dim()), _wrap_dim(dims[1], self.dim())
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    return dispatch(ROT90, (self,), (int(k) % 4, (d0, d1)))


@method("fliplr")
def fliplr(self):
    """``flip(1)``: left/right mirrored (``torch.fliplr``; needs at least 2 dims)."""
    if self.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(self, 1)


@method("flipud")
def flipud(self):
    """``flip(0)``: upside down (``torch.flipud``; needs at least 1 dim)."""
    if self.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(self, 0)


@method("roll")
def roll(self, shifts, dims=None):
    """A copy with elements shifted by ``shifts`` along ``dims``, wrapping around
    (``torch.roll``); without ``dims`` the flattened tensor is rolled and reshaped back.
    Its backward rolls the gradient the other way (``RollBackward0``)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               "dims:0")
        return dispatch(ROLL, (self,), (tuple(int(s) for s in shifts), None))
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    given, dims = dims, tuple(_wrap_dim(d, self.dim()) for d in dims)
    return show_given(dispatch(ROLL, (self,), (tuple(int(s) for s in shifts), dims)), "dims",
                      given, dims)   # (Note [dims as given])


@method("repeat")
def repeat(self, *sizes, repeats=None):
    """A copy made of ``self`` tiled ``sizes[k]`` times along each dim (extra leading
    sizes add dims): ``torch.Tensor.repeat`` — NumPy's ``tile``, not NumPy's ``repeat``
    (that one is ``repeat_interleave``). Node ``RepeatBackward0`` sums the copies' grads."""
    reps = tuple(operator.index(s) for s in unpack_args(sizes, repeats, "repeats", "repeat"))
    if len(reps) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than "
                           "number of dimensions of tensor")
    shape = (1,) * (len(reps) - self.dim()) + tuple(self.shape)
    out = [r * s for r, s in zip(reps, shape)]
    if any(r < 0 for r in reps):
        bad = next(o for o in out if o < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {out}")
    return dispatch(REPEAT, (self,), (reps,))


@method("tile")
def tile(self, *dims):
    """``repeat`` with the sizes padded with leading 1s when fewer than the tensor's dims
    (``torch.tile``): ``x.tile(2)`` on a matrix repeats its columns' blocks. Node
    ``RepeatBackward0``, as in PyTorch."""
    reps = tuple(unpack_args(dims))
    if len(reps) < self.dim():
        reps = (1,) * (self.dim() - len(reps)) + reps
    return repeat(self, reps)


@method("ravel")
def ravel(self):
    """The elements as a 1-D tensor: a view when ``self`` is contiguous, else a copy
    (``contiguous().view(-1)``, as ``torch.ravel``: ``ViewBackward0`` over
    ``CloneBackward0``)."""
    return self.contiguous().view(-1)


def _repeat_index(repeats, dev):
    """``[0]*r0 + [1]*r1 + ...`` as an int64 tensor (torch.repeat_interleave(repeats))."""
    xp = dev.xp
    r = repeats._data
    return Tensor._make(xp.repeat(xp.arange(r.shape[0], dtype=B.int64), r), dev)


@method("repeat_interleave")
def repeat_interleave(self, repeats=None, dim=None, *, output_size=None):
    """Each element (or each slice along ``dim``) repeated ``repeats`` times in place,
    ``[a, b] -> [a, a, b, b]`` (``torch.repeat_interleave``; NumPy's ``repeat``). Without
    ``dim`` the input is flattened. An int repeats is unsqueeze → expand → clone → view
    (so the graph shows ``ViewBackward0``); a tensor of per-slice counts is an
    ``index_select`` (``IndexSelectBackward0``). ``vg.repeat_interleave(counts)`` alone
    gives the index ``[0]*counts[0] + [1]*counts[1] + ...``."""
    if repeats is None:  # torch.repeat_interleave(repeats): the index form
        if self._data.dtype.kind not in "iu":   # (PyTorch's kernel asks this first)
            raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                      f"'{torch_type_name(self._data.dtype)}'")
        if self.dim() != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if self.numel() and int(self._data.min()) < 0:
            raise RuntimeError("repeats can not be negative")
        return _repeat_index(self, self._device)
    x = self
    if dim is None:
        x = self.flatten()
        d = 0
    else:
        # a 0-d input: PyTorch's size(dim) (tensor repeats, any dim) or unsqueeze(dim + 1)
        # (int repeats) refuses it
        tensor_repeats = isinstance(repeats, Tensor)
        if self.dim() == 0 and tensor_repeats and repeats.dim() <= 1:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        d = _wrap_dim(dim, self.dim())
        if self.dim() == 0 and not tensor_repeats and operator.index(repeats) >= 0:
            raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], "
                             f"but got {d + 1})")
    if isinstance(repeats, Tensor):
        # per-slice counts (a single count is broadcast): an index_select, as PyTorch
        if repeats._data.dtype.kind not in "iu":   # (PyTorch's kernel asks this first)
            raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                      f"'{torch_type_name(repeats._data.dtype)}'")
        if repeats.dim() > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        n = x.shape[d] if x.dim() else 1
        if repeats.numel() == 1:
            repeats = repeats.reshape(1).expand(n)
        if repeats.numel() != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.numel()} and input.size({d}) = "
                               f"{n}")
        if repeats.numel() and int(repeats._data.min()) < 0:
            raise RuntimeError("repeats can not be negative")
        idx = _repeat_index(repeats.to(self._device), self._device)
        return (x if x.dim() else x.reshape(1)).index_select(d, idx)
    r = operator.index(repeats)
    if r < 0:
        raise RuntimeError("Repeats must be non-negative")
    if not x.dim():
        x = x.reshape(1)
    shape = list(x.shape)
    big = shape[:d + 1] + [r] + shape[d + 1:]
    out = x.unsqueeze(d + 1).expand(*big).clone(memory_format=B.contiguous_format)
    shape[d] *= r
    return out.view(*shape)
