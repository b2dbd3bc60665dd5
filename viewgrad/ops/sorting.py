"""Sorting and order statistics: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode —
each a row of the derivatives table named as PyTorch names its node (SortBackward0 /
SortBackward1 for ``stable=True``, TopkBackward0, KthvalueBackward0, MedianBackward0 for
the median of all entries, MedianBackward1 along a dim, NanmedianBackward0/1 likewise,
ModeBackward0), returning
``torch.return_types``-style named tuples (``values``, ``indices``).

The indices are found on the arrays first (a stable sort), then the values are *selected*
with them by the row's forward, so the backward is the one rule every value-selecting op
shares: scatter the incoming gradient back to the positions the values came from
(PyTorch's value_selecting_reduction_backward). Ties: viewgrad takes the first occurrence
in a stable order; PyTorch's kernels may pick another of equal values for ``topk``,
``kthvalue`` and ``median`` (the values agree, an index may differ). NaN sorts as the
largest value, as in PyTorch.
"""
from __future__ import annotations

from .. import backend as B
from .. import return_types as RT
from ..autograd.saved_names import show_given
from ..tensor import Tensor, _wrap_dim
from .reduce import _evenly, _select_fwd, _value_selecting_bwd
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .table import defop, dispatch, fresh_results, method

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode"]

_xp = B.xp_of


# -- on arrays ----------------------------------------------------------------------------

def _argsort(a, dim, descending):
    """Stable argsort along ``dim``; descending keeps equal values in their original
    order too (sort the reversed array ascending, then reverse: NaNs come first)."""
    xp = _xp(a)
    if not descending:
        return xp.argsort(a, axis=dim, kind="stable")
    n = a.shape[dim]
    idx = xp.argsort(xp.flip(a, axis=dim), axis=dim, kind="stable")
    return xp.flip(n - 1 - idx, axis=dim)


def _take(self, indices, dim):
    if self.ndim == 0:
        return self.copy()
    return _xp(self).take_along_axis(self, indices, axis=dim)


def _indices(x, idx):
    return Tensor._make(idx.astype(B.int64, copy=False), x._device)


def _scatter_back(grad, indices, self_shape, dim):
    # every value came from one position: put its gradient back there
    if not self_shape:
        return grad
    from .factories import zeros
    return zeros(self_shape, dtype=grad.dtype, device=grad.device).scatter(dim, indices, grad)


def _sorted(self, indices, dim):
    return B.layout_like(_take(self, indices, dim), self)   # (self's layout, as PyTorch's)


SORT = defop("sort", "SortBackward0", _sorted, inputs=("self", "indices"), attrs=("dim",),
             self=_scatter_back)
SORT_STABLE = defop("sort_stable", "SortBackward1", _sorted, inputs=("self", "indices"),
                    attrs=("dim",), self=_scatter_back)
TOPK = defop("topk", "TopkBackward0", _take, inputs=("self", "indices"), attrs=("dim",),
             self=_scatter_back)
KTHVALUE = defop("kthvalue", "KthvalueBackward0", _select_fwd, inputs=("self", "indices"),
                 attrs=("dim", "keepdim"), self=_value_selecting_bwd)
MEDIAN_DIM = defop("median_dim", "MedianBackward1", _select_fwd, inputs=("self", "indices"),
                   attrs=("dim", "keepdim"), self=_value_selecting_bwd)
MODE = defop("mode", "ModeBackward0", _select_fwd, inputs=("self", "indices"),
             attrs=("dim", "keepdim"), self=_value_selecting_bwd)
fresh_results(KTHVALUE, MEDIAN_DIM, MODE)   # (row-major, as PyTorch's)


def _empty_median(xp, dtype):
    """The median of no entries: NaN, as PyTorch's ``full({}, NAN)`` stores it in the
    dtype (the CPU's float-to-integer conversion of NaN: the most negative int32 or int64,
    0 in the narrower integers and in uint32, which go through int64; True for bool)."""
    if dtype.kind in "fc":
        return xp.asarray(float("nan"), dtype=dtype)
    if dtype.kind == "b":
        return xp.asarray(True)
    v = {("i", 4): -2 ** 31, ("i", 8): -2 ** 63}.get((dtype.kind, dtype.itemsize), 0)
    return xp.asarray(v, dtype=B.int64).astype(dtype)


def _median_all_fwd(self):
    xp = _xp(self)
    flat = self.reshape(-1)
    if flat.size == 0:
        return _empty_median(xp, self.dtype)
    s = xp.sort(flat)           # NaNs last: if there is one, the median is NaN
    return xp.asarray(s[-1] if bool(xp.isnan(s[-1])) else s[(flat.size - 1) // 2])


def _nanmedian_all_fwd(self):
    xp = _xp(self)
    flat = self.reshape(-1)
    if flat.size == 0:
        return _empty_median(xp, self.dtype)
    s = xp.sort(flat)           # NaNs last: the lower middle of the others
    m = flat.size - int(xp.isnan(s).sum()) if s.dtype.kind == "f" else flat.size
    return xp.asarray(s[max(m - 1, 0) // 2])   # (all NaN: NaN)


# all entries equal to the median share its gradient (PyTorch's evenly_distribute_backward)
MEDIAN_ALL = defop("median", "MedianBackward0", _median_all_fwd, self=_evenly)
NANMEDIAN_ALL = defop("nanmedian", "NanmedianBackward0", _nanmedian_all_fwd, self=_evenly)
NANMEDIAN_DIM = defop("nanmedian_dim", "NanmedianBackward1", _select_fwd,
                      inputs=("self", "indices"), attrs=("dim", "keepdim"),
                      self=_value_selecting_bwd)
fresh_results(NANMEDIAN_DIM)


# -- the public functions ------------------------------------------------------------------

def _dim_of(self, dim):
    return _wrap_dim(dim, self.dim())


@method("sort")
def sort(self, dim=-1, descending=False, *, stable=False):
    """The entries sorted along ``dim`` (ascending unless ``descending=True``) and where
    each came from: a named tuple ``(values, indices)``, as ``torch.sort``. The values
    record ``SortBackward0`` (``SortBackward1`` with ``stable=True``): the gradient goes
    back to the position each value came from. viewgrad's sort is always stable."""
    if isinstance(dim, bool):   # x.sort(True): PyTorch refuses it (stable is keyword-only)
        raise TypeError("sort() received an invalid combination of arguments - got (bool): "
                        "pass sort(dim=-1, descending=False, *, stable=False) by keyword")
    _refuse(_CX["sort"], self)   # Note [inputs PyTorch refuses]
    d = _dim_of(self, dim)
    a = self._data
    idx = B.layout_like(_argsort(a, d, descending), a) if a.ndim else _xp(a).zeros(
        (), dtype=B.int64)
    ind = _indices(self, idx)
    vals = dispatch(SORT_STABLE if stable else SORT, (self, ind), (d,))
    return show_given(RT.sort((vals, ind)), "dim", dim, d)   # (Note [dims as given])


@method("argsort")
def argsort(self, dim=-1, descending=False, stable=False):
    """The indices that sort ``self`` along ``dim`` (``sort(...).indices``), as
    ``torch.argsort``: an int64 tensor, not differentiable."""
    _refuse(_CX["sort"], self)   # Note [inputs PyTorch refuses]
    d = _dim_of(self, dim)
    a = self._data
    # (laid out as sort lays its indices out: like self)
    return _indices(self, B.layout_like(_argsort(a, d, descending), a) if a.ndim else
                    _xp(a).zeros((), dtype=B.int64))


@method("msort")
def msort(self):
    """``sort(self, dim=0).values``: the entries sorted along the first dim, as
    ``torch.msort`` (``SortBackward0``)."""
    return sort(self, 0).values


@method("topk")
def topk(self, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest entries along ``dim`` (the ``k`` smallest with
    ``largest=False``) and their indices, as ``torch.topk``: a named tuple
    ``(values, indices)``; the values record ``TopkBackward0``. The result is always in
    sorted order (PyTorch leaves the order unspecified with ``sorted=False``)."""
    _refuse(_CX["topk"], self)   # Note [inputs PyTorch refuses]
    d = _dim_of(self, dim)
    n = self.shape[d] if self.dim() else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    a = self._data
    if a.ndim:
        idx = _argsort(a, d, largest)
        idx = _xp(a).take(idx, _xp(a).arange(k), axis=d)
    else:
        idx = _xp(a).zeros((), dtype=B.int64)
    ind = _indices(self, idx)
    return show_given(RT.topk((dispatch(TOPK, (self, ind), (d,)), ind)), "dim", dim, d)


def _nonempty_dim(self, d, name):
    if self.dim() and self.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _pick(self, d, keepdim, positions):
    """The indices (along ``d``) of the sorted positions ``positions`` (an array broadcast
    against the reduced shape), kept or squeezed."""
    xp = _xp(self._data)
    order = xp.argsort(self._data, axis=d, kind="stable")
    idx = xp.take_along_axis(order, positions, axis=d)
    return idx if keepdim else xp.squeeze(idx, axis=d)


def _scalar_result(self, op, out_type):
    """0-d input: the value itself, index 0."""
    ind = _indices(self, self._device.xp.zeros((), dtype=B.int64))
    return out_type((dispatch(op, (self, ind), (0, False)), ind))


@method("kthvalue")
def kthvalue(self, k, dim=-1, keepdim=False):
    """The ``k``-th smallest entry along ``dim`` (``k`` counts from 1) and its index, as
    ``torch.kthvalue``: a named tuple ``(values, indices)``; the values record
    ``KthvalueBackward0``."""
    _refuse(_CX["kthvalue"], self)   # Note [inputs PyTorch refuses]
    d = _dim_of(self, dim)
    _nonempty_dim(self, d, "kthvalue")
    n = self.shape[d] if self.dim() else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if not self.dim():
        return _scalar_result(self, KTHVALUE, RT.kthvalue)
    xp = self._device.xp
    shape = tuple(1 if i == d else s for i, s in enumerate(self._data.shape))
    ind = _indices(self, B.fresh_row_major(_pick(self, d, keepdim, xp.full(shape, k - 1,
                                                                      dtype=B.int64))))
    return show_given(RT.kthvalue((dispatch(KTHVALUE, (self, ind), (d, bool(keepdim))), ind)),
                      "dim", dim, d)


def _median_dim(self, dim, keepdim, ignore_nan, op, out_type):
    """median/nanmedian along ``dim``: the sorted position of the lower middle (of the
    values that are not NaN for nanmedian; for median the first NaN, if any)."""
    d = _dim_of(self, dim)
    _nonempty_dim(self, d, "median")   # (nanmedian's words are median's, as PyTorch's)
    _refuse(_CX["median_dim"], self)   # Note [inputs PyTorch refuses]
    if not self.dim():
        return _scalar_result(self, op, out_type)
    xp = self._device.xp
    a = self._data
    n = a.shape[d]
    if a.dtype.kind in "fc":
        nans = xp.isnan(a).sum(axis=d, keepdims=True)
        if ignore_nan:   # the lower middle of the rest (all NaN: the first NaN)
            pos = xp.maximum(n - nans - 1, 0) // 2
        else:   # the first NaN (NaNs sort last, in their original order), else the middle
            pos = xp.where(nans > 0, n - nans, (n - 1) // 2)
        pos = pos.astype(B.int64)
    else:
        pos = xp.full(tuple(1 if i == d else s for i, s in enumerate(a.shape)),
                      (n - 1) // 2, dtype=B.int64)
    ind = _indices(self, B.fresh_row_major(_pick(self, d, keepdim, pos)))
    return show_given(out_type((dispatch(op, (self, ind), (d, bool(keepdim))), ind)),
                      "dim", dim, d)


@method("median")
def median(self, dim=None, keepdim=False):
    """The median: of all entries (``dim=None``: a tensor, ``MedianBackward0``, the
    gradient shared by the entries equal to it), or along ``dim`` (a named tuple
    ``(values, indices)``, ``MedianBackward1``), as ``torch.median``. With an even count
    it is the LOWER of the two middle values (not their mean); a NaN makes it NaN."""
    if dim is None:
        if self.numel():   # (PyTorch answers an empty input before its kernel refuses)
            _refuse(_CX["median"], self)   # Note [inputs PyTorch refuses]
        return dispatch(MEDIAN_ALL, (self,))
    return _median_dim(self, dim, keepdim, False, MEDIAN_DIM, RT.median)


@method("nanmedian")
def nanmedian(self, dim=None, keepdim=False):
    """``median`` that ignores NaN, as ``torch.nanmedian``: the lower middle of the values
    that are not NaN (NaN only when all are). Of all entries a tensor
    (``NanmedianBackward0``), along ``dim`` a named tuple ``(values, indices)``
    (``NanmedianBackward1``: the gradient goes to the chosen entry). In a row of NaNs
    only, PyTorch's index is whichever NaN its selection left there; viewgrad's is the
    first."""
    if dim is None:
        if self.numel():
            _refuse(_CX["median"], self)   # Note [inputs PyTorch refuses]
        return dispatch(NANMEDIAN_ALL, (self,))
    return _median_dim(self, dim, keepdim, True, NANMEDIAN_DIM, RT.nanmedian)


def _mode_indices(a, d):
    """Index along ``d`` of the most frequent value (ties: the smallest value; its LAST
    occurrence, as PyTorch), keeping ``d`` with size 1."""
    xp = _xp(a)
    order = xp.argsort(a, axis=d, kind="stable")
    s = xp.take_along_axis(a, order, axis=d)
    n = a.shape[d]
    s = xp.moveaxis(s, d, -1)
    new = xp.ones(s.shape, dtype=bool)               # a run of equal values starts here
    new[..., 1:] = s[..., 1:] != s[..., :-1]
    pos = xp.broadcast_to(xp.arange(n), s.shape)
    run = xp.cumsum(new, axis=-1) - 1                # which run each position is in
    starts = xp.sort(xp.where(new, pos, n), axis=-1)  # run starts, in order
    count = pos - xp.take_along_axis(starts, run, axis=-1) + 1
    last = xp.ones(s.shape, dtype=bool)              # the run ends here
    last[..., :-1] = new[..., 1:]
    best = xp.argmax(xp.where(last, count, 0), axis=-1)  # first max: the smallest value
    best = xp.moveaxis(best[..., None], -1, d)
    return xp.take_along_axis(order, best, axis=d)   # stable: the run's last occurrence


@method("mode")
def mode(self, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` and the index of (its last occurrence), as
    ``torch.mode``: a named tuple ``(values, indices)``; ties go to the smallest value.
    The values record ``ModeBackward0``."""
    _refuse(_CX["mode"], self)   # Note [inputs PyTorch refuses]
    d = _dim_of(self, dim)
    _nonempty_dim(self, d, "mode")
    if not self.dim():
        return _scalar_result(self, MODE, RT.mode)
    idx = _mode_indices(self._data, d)
    idx = idx if keepdim else self._device.xp.squeeze(idx, axis=d)
    ind = _indices(self, B.fresh_row_major(idx))
    return show_given(RT.mode((dispatch(MODE, (self, ind), (d, bool(keepdim))), ind)), "dim",
                      dim, d)
