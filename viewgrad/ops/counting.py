"""Counting and searching: unique, unique_consecutive, bincount, histc, searchsorted,
bucketize — as PyTorch's. None of them has a gradient (their results are indices,
counts or values picked by comparison), so they build no graph.
"""
from __future__ import annotations

import math

from .. import backend as B
from ..tensor import Tensor, _wrap_dim
from .args import with_out
from .args import torch_type_name
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .table import method, promoted_dtype

__all__ = ["unique", "unique_consecutive", "bincount", "histc", "searchsorted", "bucketize"]

_make = Tensor._make


def _results(dev, first, inverse, counts, return_inverse, return_counts):
    out = [_make(first, dev)]
    if return_inverse:
        out.append(_make(inverse.astype(B.int64, copy=False), dev))
    if return_counts:
        out.append(_make(counts.astype(B.int64, copy=False), dev))
    return out[0] if len(out) == 1 else tuple(out)


def _zero_sized_dims(shape, d):
    """PyTorch's refusals of ``unique(dim=d)`` on an input with size-0 dims: one beside
    ``d`` leaves slices with nothing to compare (trailing space as PyTorch's)."""
    zeros = shape.count(0)
    if shape[d] == 0 and zeros > 1:
        raise RuntimeError("Number of zero sized dimensions is more than one, so unique "
                           "cannot be applied ")
    if shape[d] != 0 and zeros:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so "
                           "unique cannot be applied")


@method("unique")
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values, in ascending order, as ``torch.unique``; with
    ``return_inverse`` also where each element went (shape of input), with
    ``return_counts`` how often each value occurs. ``dim`` finds distinct slices along
    a dim instead. (PyTorch sorts on CPU even with ``sorted=False``; so does viewgrad.)"""
    _refuse(_CX["unique"], input)   # Note [inputs PyTorch refuses]
    dev = input._device
    xp = dev.xp
    a = input._data
    if dim is None:
        # every NaN is a value of its own, as PyTorch's sort-based unique gives (NumPy
        # collapses them unless told not to)
        nan_kw = {"equal_nan": False} if a.dtype.kind in "fc" else {}
        vals, inv, cnt = xp.unique(a.reshape(-1), return_inverse=True, return_counts=True,
                                   **nan_kw)
        inv = inv.reshape(a.shape)
    else:
        d = _wrap_dim(dim, input.dim())
        _zero_sized_dims(a.shape, d)
        vals, inv, cnt = xp.unique(a, return_inverse=True, return_counts=True, axis=d)
        inv = inv.reshape(-1)
    return _results(dev, vals, inv, cnt, return_inverse, return_counts)


@method("unique_consecutive")
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive values (``[1, 1, 2, 1]`` -> ``[1, 2, 1]``), as
    ``torch.unique_consecutive``; ``return_inverse`` / ``return_counts`` as in
    ``unique``. ``dim`` compares whole slices along that dim."""
    _refuse(_CX["unique"], input)   # Note [inputs PyTorch refuses]
    dev = input._device
    xp = dev.xp
    a = input._data
    if dim is None:
        flat = a.reshape(-1)
        change = flat[1:] != flat[:-1]
    else:
        d = _wrap_dim(dim, input.dim())
        _zero_sized_dims(a.shape, d)
        flat = xp.moveaxis(a, d, 0)
        diff = (flat[1:] != flat[:-1]).reshape(max(flat.shape[0] - 1, 0),
                                               math.prod(flat.shape[1:]))
        change = diff.any(axis=1)
    n = flat.shape[0]
    if n == 0:
        starts = xp.zeros((0,), dtype=B.int64)
    else:
        starts = xp.concatenate([xp.zeros((1,), dtype=B.int64),
                                 xp.nonzero(change)[0].astype(B.int64) + 1])
    inv = xp.cumsum(xp.concatenate([xp.zeros((min(n, 1),), dtype=B.int64),
                                    change.astype(B.int64)]))
    cnt = xp.diff(xp.concatenate([starts, xp.asarray([n], dtype=B.int64)]))
    vals = flat[starts] if dim is None else xp.moveaxis(flat[starts], 0, d)
    return _results(dev, xp.ascontiguousarray(vals), inv.reshape(a.shape) if dim is None
                    else inv, cnt, return_inverse, return_counts)


@method("bincount")
def bincount(input, weights=None, minlength=0):
    """How often each value 0, 1, 2, ... occurs in a 1-D non-negative integer tensor, as
    ``torch.bincount`` (at least ``minlength`` bins); with ``weights``, the sum of the
    weights per value: float32 for float32 weights, float64 for any other (PyTorch
    sums the rest as double). An empty input gives int64 zeros, weights or not."""
    _refuse(_CX["bincount"], input)   # (bool: Note [inputs PyTorch refuses])
    a = input._data
    if a.dtype.kind not in "iub":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for "
                                  f"'{torch_type_name(a.dtype)}'")
    if a.ndim != 1 or (a.size and bool((a < 0).any())):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    dev = input._device
    xp = dev.xp
    if weights is None or a.size == 0:   # (PyTorch checks no weights for an empty one)
        return _make(xp.bincount(a, minlength=minlength).astype(B.int64), dev)
    if tuple(weights.shape) != tuple(a.shape):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    w = weights._data
    dt = B.float32 if w.dtype == B.float32 else B.float64
    return _make(xp.bincount(a, weights=w, minlength=minlength).astype(dt), dev)


@method("histc")
def histc(input, bins=100, min=0, max=0, *, out=None):
    """A histogram of ``bins`` equal bins over [min, max] (the data's own range when both
    are 0), as ``torch.histc``; values outside are ignored, max falls in the last bin. A
    float tensor of counts in input's dtype."""
    a = input._data
    _refuse(_CX["aminmax"], input)   # (PyTorch's finds the range first: its words)
    if a.dtype.kind != "f":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for "
                                  f"'{torch_type_name(a.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    dev = input._device
    xp = dev.xp
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"torch.histc(): max must be larger than min, but got min {lo} "
                           f"max {hi}")
    flat = a.reshape(-1)
    inside = (flat >= lo) & (flat <= hi)
    x = flat[inside]
    # PyTorch's bin: (x - min) * bins / (max - min), truncated; x == max in the last bin
    pos = ((x - lo) * bins / (hi - lo)).astype(B.int64)
    pos = xp.where(pos >= bins, bins - 1, pos)
    counts = xp.bincount(pos, minlength=bins)[:bins].astype(a.dtype)
    return with_out(_make(counts, dev), out, "histc")


def _search(seq, vals, right, sorter, dev):
    xp = dev.xp
    side = "right" if right else "left"
    if seq.ndim == 1:
        s = seq if sorter is None else seq[sorter]
        return xp.searchsorted(s, vals, side=side)
    out = xp.empty(vals.shape, dtype=B.int64)
    rows = math.prod(seq.shape[:-1])   # (counted, not -1: a row may be empty)
    rows_s = seq.reshape(rows, seq.shape[-1])
    rows_v = vals.reshape(rows, vals.shape[-1])
    rows_o = out.reshape(rows, vals.shape[-1])
    srt = None if sorter is None else sorter.reshape(rows, seq.shape[-1])
    for i in range(rows_s.shape[0]):
        s = rows_s[i] if srt is None else rows_s[i][srt[i]]
        rows_o[i] = xp.searchsorted(s, rows_v[i], side=side)
    return out


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """Where each value of ``input`` would be inserted into ``sorted_sequence`` to keep it
    sorted, as ``torch.searchsorted``: the first such index (``right=True`` or
    ``side='right'``: the last). A 1-D sequence serves any shape of values; an N-D one
    is searched row by row (its leading dims must match input's). int64 indices
    (``out_int32``: int32)."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' "
                               f"but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to "
                               "opposites, got side of left while right was True")
        right = side == "right"
    if sorted_sequence.dim() == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    seq = sorted_sequence._data
    dev = sorted_sequence._device
    scalar = not isinstance(input, Tensor)
    vals = dev.xp.asarray(input) if scalar else input._data
    if seq.ndim > 1 and (vals.ndim != seq.ndim or vals.shape[:-1] != seq.shape[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           "the first N-1 dimensions of boundaries tensor and input value "
                           f"tensor must match, but we got boundaries tensor "
                           f"{list(seq.shape)} and input value tensor {list(vals.shape)}")
    if not scalar and vals.dtype != seq.dtype:
        # PyTorch searches in the pair's common dtype (result_type: a 0-d int8 -3 beside
        # uint8 boundaries is uint8 253)
        rt = promoted_dtype((sorted_sequence, input))
        seq, vals = seq.astype(rt, copy=False), vals.astype(rt, copy=False)
    srt = None if sorter is None else sorter._data
    r = _search(seq, vals, right, srt, dev)
    r = dev.xp.asarray(r).astype(B.int32 if out_int32 else B.int64)
    return with_out(_make(r, dev), out, "searchsorted")


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each value between sorted 1-D ``boundaries``, as
    ``torch.bucketize``: i such that boundaries[i-1] < x <= boundaries[i]
    (``right=True``: boundaries[i-1] <= x < boundaries[i]). ``searchsorted`` with the
    arguments swapped."""
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)
