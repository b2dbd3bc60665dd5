"""Strided arrays: results laid out as PyTorch lays them out (Note [result layouts]; the
stride arithmetic itself is ``viewgrad/layouts.py``'s), views with PyTorch's strides
(reshape, unsqueeze, expand, unfold, diagonal), arrays over a storage buffer
(``empty_strided``, ``strided_in``), and broadcasting's shapes and PyTorch's errors."""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided as _np_as_strided

from .. import layouts as _L
from .devices import Device, cpu, device_of_array, xp_of
from .formats import contiguous_format, format_strides, preserve_format

_ndarray = np.ndarray

__all__ = ["is_channels_last", "row_major", "fresh_row_major", "layout_like",
           "iterator_layout", "index_layout", "index_geometry", "preserved_strides", "preserve_layout", "in_memory_format",
           "unsqueeze_view", "reshape_view", "slice_view", "torch_strides", "row_major_exactly",
           "empty_strided", "strided_in", "clone_preserving_storage",
           "broadcast_shapes", "broadcast_error", "shapes_error", "checked_broadcast",
           "strided_view", "expand_view", "unfold_view", "diagonal_view",
           "has_internal_overlap", "shares_memory", "apply_by_positions"]


# Note [result layouts]
# Strides are behaviour: they decide whether ``.view()`` works and what ``.stride()`` and
# ``is_contiguous()`` say, so a result is laid out as PyTorch lays it out, not as NumPy
# happens to. Five rules, one helper each, applied by the ops that need them:
# * a kernel that writes a fresh tensor: row-major (``row_major``: softmax, cumsum, cat...);
#   a reduction: row-major with canonical strides along kept dims of size 1
#   (``fresh_row_major``, through ops.table.fresh_results);
# * a clone-then-write kernel, clone() and to(dtype): the input's own layout, as
#   ``empty_like`` keeps it (``layout_like``, ``preserve_layout``: flip, sort, the
#   scatters);
# * an elementwise op: TensorIterator's layout, its dims ordered by its operands' strides,
#   the first operand first (``iterator_layout``: dispatch's elementwise rows, the lean
#   unary and binary calls, where, lerp, the comparisons, the logical and bitwise ops;
#   Note [an elementwise result's layout], layouts.py);
# * a view: PyTorch's strides (``reshape_view``: computeStride; ``unsqueeze_view``);
# * a LAPACK result: batched column-major (``lapack_layout`` in lapack.py: inv, solve...);
# * channels_last kept where PyTorch keeps a suggested memory format (``is_channels_last``:
#   cat, stack, batch_norm).
# tests/ops/test_result_layout_vs_torch.py and test_linalg_layout_vs_torch.py compare
# strides with torch op by op; the random view programs compare every live tensor's.

def is_channels_last(a):
    """Whether 4-D array ``a`` is laid out NHWC (PyTorch's channels_last), not NCHW: a
    kernel that keeps a suggested memory format (cat, batch_norm) keeps that one."""
    n, c, h, w = a.shape
    st, it = a.strides, a.itemsize
    return (not a.flags.c_contiguous and st[1] == it and st[3] == c * it
            and st[2] == w * c * it and (n == 1 or st[0] == h * w * c * it))


def row_major(a):
    """``a`` row-major (copied only when it is not): PyTorch's layout for the result of a
    kernel that writes a fresh contiguous tensor (softmax, cumsum, roll, masked_fill...),
    where NumPy's ufuncs would follow a transposed input's layout."""
    return a if a.flags.c_contiguous else xp_of(a).ascontiguousarray(a)


def fresh_row_major(a):
    """``a`` as PyTorch allocates a reduction's result: row-major, with the canonical
    strides along dims of size 1 too (NumPy keeps an input's strides there, and follows a
    permuted input's layout)."""
    if a.ndim > 1 and (not a.flags.c_contiguous or 1 in a.shape):
        return a.copy()   # (a copy is laid out afresh: row-major, canonical strides)
    return a


def layout_like(a, ref):
    """``a`` (``ref``'s shape) laid out as ``ref`` is: PyTorch's ``empty_like`` and
    ``clone()`` keep a transposed or permuted layout, so a flip, a sort or a scatter of a
    transposed tensor is transposed too (NumPy's ``empty_like`` keeps it the same way; on
    the host, exactly PyTorch's strides: ``preserve_layout``)."""
    if type(a) is _ndarray and type(ref) is _ndarray:
        return preserve_layout(a, ref)
    if ref.flags.c_contiguous or a.shape != ref.shape:
        return a
    out = xp_of(a).empty_like(ref, dtype=a.dtype)
    out[...] = a
    return out


def iterator_layout(r, operands, common=None, keep_first=False):
    """``r``, the host result of an elementwise op, laid out as PyTorch's TensorIterator
    allocates it for ``operands`` (their arrays in order, None for a Python number; an
    operand whose dtype is not ``common``, the computation's, is seen as its copy in that
    dtype, except the first with ``keep_first``, where's condition): Note [an elementwise
    result's layout]. A copy only when NumPy laid it out otherwise."""
    if r.ndim < 2 or type(r) is not _ndarray:
        return r
    # the commonest case: every operand row-major (a size-1 dim's stride as well, when the
    # result has one: only there can it count; no empty dim), and so the result
    shape = r.shape
    ones = 1 in shape
    if not ones or 0 not in shape:
        for a in operands:
            if a is not None and not (row_major_exactly(a) if ones else a.flags.c_contiguous):
                break
        else:
            return r if r.flags.c_contiguous else np.ascontiguousarray(r)
    seen = []
    for i, a in enumerate(operands):
        if a is None or not a.ndim:
            seen.append(None)   # a number, or a 0-d tensor: no dims to order
        elif common is not None and a.dtype != common and not (keep_first and i == 0):
            seen.append((a.shape, preserved_strides(a)))   # (promoted by a.to(common))
        else:
            seen.append((a.shape, _elem_strides(a)))
    return _laid_out(r, _L.iterator_strides(r.shape, seen))


def index_layout(r, src, key):
    """``r = src[key]`` for an advanced key (NumPy's layout), laid out as PyTorch's
    ``index`` lays it out (Note [an advanced index's result layout], layouts.py). A copy
    only when NumPy laid it out otherwise; a key ``index_geometry`` does not read, as is."""
    if type(r) is not _ndarray or r.ndim < 2 or type(src) is not _ndarray:
        return r
    geo = index_geometry(src, key)
    return r if geo is None or geo[0] != r.shape else _laid_out(r, geo[1])


def index_geometry(src, key):
    """``(shape, element strides)`` of PyTorch's ``src[key]`` for an advanced key of
    host arrays, or None for a key it does not read: the key read as PyTorch's
    applySlicing reads it (slices and None views first, a Python bool a new dim indexed
    by ``[0]`` or ``[]``, a k-d mask k index tensors of its nonzero()'s columns)."""
    if type(key) is not tuple:
        key = (key,)
    n_real = 0
    for k in key:
        if type(k) is _ndarray:
            n_real += k.ndim if k.dtype.kind == "b" else 1
        elif type(k) is slice:
            n_real += 1
    shape, strides = src.shape, _elem_strides(src)
    geo_shape, geo_st, indices = [], [], []
    pos = 0

    def keep(i):
        geo_shape.append(shape[i])
        geo_st.append(strides[i])

    if n_real > src.ndim:
        return None
    for k in key:
        t = type(k)
        if k is Ellipsis:
            for _ in range(src.ndim - n_real):
                keep(pos)
                indices.append(None)
                pos += 1
        elif k is None or t is bool:
            # unsqueeze: the size times the stride of the dim it comes before, 1 at the end
            geo_shape.append(1)
            geo_st.append(shape[pos] * strides[pos] if pos < src.ndim else 1)
            indices.append(None if k is None else ((1 if k else 0,), (1,)))
        elif t is slice:
            start, stop, step = k.indices(shape[pos])
            geo_shape.append(len(range(start, stop, step)))
            geo_st.append(strides[pos] * step)
            indices.append(None)
            pos += 1
        elif t is _ndarray and k.dtype.kind == "b":
            found = (int(np.count_nonzero(k)),), (k.ndim,)   # a column of nonzero()
            for _ in range(k.ndim):
                keep(pos)
                indices.append(found)
                pos += 1
        elif t is _ndarray and k.dtype.kind in "iu":
            keep(pos)
            indices.append((k.shape, _elem_strides(k)))
            pos += 1
        else:
            return None
    if pos > src.ndim:
        return None
    while pos < src.ndim:
        keep(pos)
        indices.append(None)
        pos += 1
    if all(g is None for g in indices):
        return None
    try:
        return _L.index_strides(geo_shape, geo_st, indices)
    except ValueError:   # (indices that do not broadcast: the indexing itself raises)
        return None


def _laid_out(r, strides):
    """``r`` with these element strides: itself, or a copy into a fresh buffer so laid out."""
    item = r.itemsize
    if r.strides == tuple(s * item for s in strides):
        return r
    # (over a buffer only it holds, its base: a copy that owns its memory, as
    # AccumulateGrad and CopySlices ask: autograd/accumulate.py owns_memory)
    out, _ = empty_strided(cpu, r.shape, strides, r.dtype)
    out[...] = r
    return out


def _elem_strides(a):
    item = a.itemsize
    return tuple(s // item for s in a.strides)


def _row_major_bytes(a):
    """The byte strides of a fresh row-major array like ``a`` (remembered per shape and
    item size: the check runs for every keepdim-shaped operand)."""
    key = (a.shape, a.itemsize)
    st = _ROW_MAJOR.get(key)
    if st is None:
        if len(_ROW_MAJOR) > 4096:
            _ROW_MAJOR.clear()
        st = _ROW_MAJOR[key] = tuple(s * a.itemsize for s in _L.row_major_strides(a.shape))
    return st


_ROW_MAJOR = {}


def preserved_strides(a):
    """The element strides of PyTorch's ``empty_like(a)`` (memory_format=preserve: what
    ``clone()`` and ``to(dtype)`` lay out): ``a``'s own when it is non-overlapping and
    dense (an empty one's as PyTorch reports them: ``torch_strides``), else dense ones in
    its order."""
    st = torch_strides(a)
    if _L.non_overlapping_and_dense(a.shape, st):
        return st
    return _L.dense_strides(a.shape, st)


def preserve_layout(r, like):
    """``r`` (``like``'s shape) laid out as PyTorch's ``empty_like(like)`` lays out a copy
    (``preserved_strides``): clone(), to(dtype)."""
    if type(r) is not _ndarray or not r.ndim or r.shape != like.shape:
        return r
    if like.size and row_major_exactly(like):
        return r if r.flags.c_contiguous else np.ascontiguousarray(r)
    return _laid_out(r, preserved_strides(like))


def in_memory_format(r, fmt, like=None):
    """Fresh array ``r`` laid out in memory format ``fmt`` (Note [memory formats],
    formats.py): preserve_format as ``like`` is (``preserve_layout``), contiguous_format
    row-major, a channels-last format with its strides (on the host; a device array
    stays row-major). A channels-last format at the wrong rank raises PyTorch's error."""
    if fmt is preserve_format:
        return r if like is None else preserve_layout(r, like)
    st = format_strides(r.shape, fmt)
    if fmt is contiguous_format:
        return fresh_row_major(r) if type(r) is _ndarray else row_major(r)
    return _laid_out(r, st) if type(r) is _ndarray else row_major(r)


def unsqueeze_view(a, k):
    """``a`` with a dim of size 1 inserted at ``k``, a view with PyTorch's stride for it
    (inferUnsqueezeGeometry: 1 at the end, else the size times the stride of the dim it
    comes before); every other dim keeps its stride. NumPy's reshape picks others: for a
    transposed array (``x.t()`` unsqueezed last: 12 where PyTorch says 1), and for a
    size-1 dim it keeps (``x[:, :1]`` of a 3×4 unsqueezed first: (12, 4, 4) where
    PyTorch says (12, 4, 1))."""
    shape = a.shape
    r = a.reshape(shape[:k] + (1,) + shape[k:])
    if type(r) is not _ndarray:
        return r
    st = a.strides   # (kept as they are, a size-1 dim's too: NumPy may renumber those)
    want = st[:k] + (a.itemsize if k == len(shape) else shape[k] * st[k],) + st[k:]
    if r.strides == want:
        return r
    return _np_as_strided(r, r.shape, want, writeable=r.flags.writeable)


def reshape_view(a, shape):
    """``a`` reshaped WITHOUT copying, or None when its strides do not allow it; on the
    host, with PyTorch's strides (layouts.view_strides: a new size-1 dim of a tensor that
    is not row-major gets its own there)."""
    try:
        if type(a) is not _ndarray:
            return _generic_reshape_view(a, shape)
        r = np.reshape(a, shape, copy=False)
    except ValueError:
        return None
    if a.size and row_major_exactly(a):   # (row-major strides in and out: the same; an
        return r                            # empty array: Note [empty views])
    item = a.itemsize
    want = _L.view_strides(a.shape, _elem_strides(a), tuple(shape))
    if want is None:
        return None   # (PyTorch's chunks disagree with NumPy's: its refusal)
    want = tuple(s * item for s in want)
    if r.strides == want:
        return r
    return _np_as_strided(r, r.shape, want, writeable=r.flags.writeable)


# Note [empty views]
# PyTorch gives a view the storage offset and strides its arithmetic gives, even when the
# view has no elements: ``x[:, 1:1]`` of a 2×3 starts 1 element into the storage, and
# ``x[:, 1:1:2]`` has the stride 2. NumPy's slicing resets an empty slice to start 0 with
# step 1, and its reshape of an empty array picks strides of its own, so ``slice_view``
# and ``reshape_view`` give such a view PyTorch's geometry themselves (computeStride's rule
# for no elements: the strides kept for the same shape, contiguous ones, counting a size 0
# as 1, for another). ``storage_offset()`` reads the data pointer, so it follows.
# tests/views/test_empty_views_vs_torch.py compares random view chains with torch's.

def slice_view(a, dim, start, end, step):
    """``a[..., start:end:step, ...]`` along ``dim`` (start and end already clamped, as
    ``slice`` clamps them), with PyTorch's offset and stride when it is empty (Note [empty
    views])."""
    r = a[(slice(None),) * dim + (slice(start, end, step),)]
    if end > start or (not start and step == 1) or type(a) is not _ndarray:
        return r
    item = a.itemsize
    st = [s * item for s in torch_strides(a)]
    ptr = a.ctypes.data + start * st[dim]
    st[dim] *= step
    face = dict(a.__array_interface__, shape=r.shape, strides=tuple(st),
                data=(ptr, not a.flags.writeable))
    return np.asarray(_At(face, a))   # (nothing to read there: no element)


class _At:
    """An array interface at an address inside ``base``'s memory (how NumPy's own
    as_strided makes an array of any geometry); ``base`` keeps that memory alive."""

    def __init__(self, face, base):
        self.__array_interface__ = face
        self.base = base


def torch_strides(a):
    """``a``'s strides in elements as PyTorch reports them: NumPy's, except that an empty
    array NumPy made with every stride 0 has the contiguous strides PyTorch gives a fresh
    empty tensor, counting a size of 0 as 1 (``zeros(0, 3).stride() == (3, 1)``)."""
    item = a.itemsize
    st = tuple([s // item for s in a.strides])
    return st if a.size or any(st) else _L.row_major_strides(a.shape)


def row_major_exactly(a):
    """Whether host array ``a`` is row-major with the row-major stride of every dim, a
    size-1 dim's too (NumPy's flag ignores those)."""
    return a.flags.c_contiguous and (1 not in a.shape or a.strides == _row_major_bytes(a))


def _generic_reshape_view(a, shape):
    v = a.view()
    try:
        v.shape = shape
    except AttributeError:
        raise ValueError("needs a copy") from None
    return v


def empty_strided(dev, size, stride, dt):
    """(array, buffer): an uninitialised array with the given strides (in elements) over a
    fresh 1-D buffer that it alone uses (factories.empty_strided, CopySlices, AccumulateGrad)."""
    extent = 1 + sum((sz - 1) * st for sz, st in zip(size, stride)) if all(size) else 0
    buf = dev.xp.empty((max(extent, 1),), dtype=dt)
    if dev.as_strided is not None:   # (on the host, an array whose base is the buffer)
        a = strided_in(dev, buf, tuple(size), tuple(s * dt.itemsize for s in stride), 0)
    else:
        a = dev.xp.empty(size, dtype=dt)
    return a, buf


def strided_in(dev, flat, size, strides, offset):
    """The array of geometry (size, strides in bytes) starting ``offset`` elements into the
    1-D array ``flat`` (a storage). On the CPU, numpy's C constructor (one call; it checks
    the bounds, and anything it refuses goes the general way); elsewhere the device's
    as_strided — numpy's own as_strided is Python code, ~10x slower per call."""
    if dev is cpu and type(flat) is np.ndarray and flat.flags.c_contiguous:
        try:
            return np.ndarray(size, flat.dtype, buffer=flat, offset=offset * flat.itemsize,
                              strides=strides)
        except (TypeError, ValueError):
            pass
    return dev.as_strided(flat[offset:], size, strides)


def clone_preserving_storage(a):
    """``(copy, storage)``: PyTorch's ``clone_preserve_strides`` of array ``a`` — its
    whole storage copied (the array its memory belongs to, flat) and ``copy`` that new
    storage's view with ``a``'s strides and offset, so that storage-relative geometry
    (as_strided_scatter's) means in the copy what it meant in ``a``. An array whose
    elements overlap (an expanded one) is cloned compactly, as PyTorch does."""
    dev = device_of_array(a) or cpu
    if any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape)) or dev.as_strided is None:
        flat = xp_of(a).ascontiguousarray(a).reshape(-1).copy()
        return flat.reshape(a.shape), flat
    root = a
    while getattr(root, "base", None) is not None and type(root.base) is type(a):
        root = root.base
    if not root.flags.c_contiguous:
        flat = xp_of(a).ascontiguousarray(a).reshape(-1).copy()
        return flat.reshape(a.shape), flat
    flat = root.reshape(-1).copy()
    offset = (dev.data_ptr(a) - dev.data_ptr(root)) // a.itemsize
    return strided_in(dev, flat, a.shape, a.strides, offset), flat


def broadcast_shapes(*shapes) -> tuple:
    """The broadcast of shapes (tuples of ints): host arithmetic, the same on every device
    (not every array module has ``broadcast_shapes``). ValueError when they don't broadcast."""
    return tuple(np.broadcast_shapes(*shapes))


def broadcast_error(name, sa, sb):
    """PyTorch's broadcasting error (``infer_size``) for shapes ``sa`` and ``sb`` that do
    not broadcast: the first dim from the right where they differ and neither is 1,
    numbered in the broadcast result; plus what to do."""
    sa, sb = list(sa), list(sb)
    n = max(len(sa), len(sb))
    for i in range(n - 1, -1, -1):
        da = sa[i - n + len(sa)] if i - n + len(sa) >= 0 else 1
        db = sb[i - n + len(sb)] if i - n + len(sb) >= 0 else 1
        if da != db and da != 1 and db != 1:
            break
    return RuntimeError(
        f"The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton "
        f"dimension {i} ({name} of shapes {sa} and {sb}: reshape or unsqueeze one of them)")


def shapes_error(name, shapes):
    """``broadcast_error`` for the first of ``shapes`` (taken in order, each against the
    broadcast of those before it, as PyTorch's TensorIterator does) that does not
    broadcast; None when they all do."""
    shape = None
    for s in shapes:
        s = tuple(s)
        if shape is not None:
            try:
                s = tuple(np.broadcast_shapes(shape, s))
            except ValueError:
                return broadcast_error(name, shape, s)
        shape = s
    return None


def checked_broadcast(name, *shapes) -> tuple:
    """``broadcast_shapes``, with PyTorch's error (``shapes_error``) when they do not."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise shapes_error(name, shapes) from None


# -----------------------------------------------------------------------------------
# Strided views for view ops' forwards (expand, unfold, diagonal). With the device's
# as_strided they are exact, writeable views (numpy's own broadcast_to/diagonal are
# read-only); on a backend without as_strided they fall back on the array module's view
# functions, which the backend must make writeable.
# -----------------------------------------------------------------------------------

def _dev_of(a) -> Device:
    dev = device_of_array(a)
    if dev is None:
        raise TypeError(f"expected an array of a viewgrad device, got {type(a).__name__}")
    return dev


def strided_view(a, shape, strides):
    """A writeable view of ``a``'s memory with ``shape`` and byte ``strides``."""
    dev = _dev_of(a)
    if dev.as_strided is None:
        raise RuntimeError(
            f"device '{dev.type}' has no as_strided: views with arbitrary strides cannot be "
            "made on it (use view ops such as select, narrow, expand, unfold instead)")
    return dev.as_strided(a, tuple(shape), tuple(strides))


def expand_view(a, shape):
    """``a`` broadcast to ``shape`` as a WRITEABLE view (stride 0 on expanded dims), so an
    in-place write reaches check_inplace's overlap error as in PyTorch."""
    dev = _dev_of(a)
    shape = tuple(shape)
    if dev.as_strided is None:
        return dev.xp.broadcast_to(a, shape)
    # PyTorch's inferExpandGeometry: a kept dim keeps its stride, an expanded one gets 0;
    # a new leading dim of size 1 gets the stride it would have if contiguous over the
    # dims after it (not 0), so ones(3).expand(1, 3).stride() == (3, 1) as in PyTorch.
    lead = len(shape) - a.ndim
    strides = [0] * len(shape)
    nxt = 0  # stride * size of the dim after the current one (bytes; 0 past the last)
    for i in range(len(shape) - 1, -1, -1):
        if i >= lead:
            s, st = a.shape[i - lead], a.strides[i - lead]
        else:
            s, st = 1, nxt
        if s != shape[i]:
            st = 0
        strides[i] = st
        nxt = shape[i] * st
    return dev.as_strided(a, shape, tuple(strides))


def unfold_view(a, dim, size, step):
    """All windows of length ``size`` every ``step`` along ``dim`` (window dim last)."""
    dev = _dev_of(a)
    if dev.as_strided is None:
        w = dev.xp.lib.stride_tricks.sliding_window_view(a, size, axis=dim, writeable=True)
        return w[(slice(None),) * dim + (slice(None, None, step),)]
    shape = list(a.shape)
    strides = list(a.strides)
    n = (shape[dim] - size) // step + 1
    new_shape = shape[:dim] + [n] + shape[dim + 1:] + [size]
    new_strides = strides[:dim] + [strides[dim] * step] + strides[dim + 1:] + [strides[dim]]
    return dev.as_strided(a, tuple(new_shape), tuple(new_strides))


def diagonal_view(a, offset, dim1, dim2):
    """The diagonal of dims (dim1, dim2) as a writeable view, diagonal dim last."""
    dev = _dev_of(a)
    xp = dev.xp
    if dev.as_strided is None:
        return xp.diagonal(a, offset, dim1, dim2)
    b = xp.moveaxis(a, (dim1, dim2), (-2, -1))
    start = b[..., :, offset:] if offset >= 0 else b[..., -offset:, :]
    n = max(0, min(start.shape[-2], start.shape[-1]))
    st = b.strides
    return dev.as_strided(start, b.shape[:-2] + (n,), st[:-2] + (st[-2] + st[-1],))


# Note [overlapping writes]
# PyTorch refuses an in-place write whose elements overlap only where it can tell cheaply
# (a stride 0: "more than one element of the written-to tensor refers to a single memory
# location"; a dense operand overlapping a dense output in part). Where it cannot tell (an
# unfold with step < size, an as_strided, a non-dense operand sharing the written memory:
# ``x.add_(x[:, :1])``) its kernel runs element by element and each read sees the writes
# before it, in an order that depends on its loops and vector widths. NumPy copies such
# operands first, so it would give a different answer without a word. viewgrad refuses
# those writes instead (clone() first), which these two exact tests find — except an
# elementwise op of the written tensor alone (``u.mul_(2)`` on an unfold), which reads
# and writes each position's own element: there the order does not matter, and each
# element gets the op once per position that holds it, as in PyTorch's loop
# (``apply_by_positions``).

_MAX_ENUMERATED = 1 << 22


def has_internal_overlap(a) -> bool:
    """Whether two elements of ``a`` (NumPy or CuPy) share memory: exactly, from its shape
    and strides (the strides sorted, each larger than the reach of the smaller ones: no
    overlap; else the offsets enumerated, or, past 4M elements, assumed to overlap)."""
    if a.size <= 1:
        return False
    item = a.itemsize
    dims = sorted((abs(st), n) for n, st in zip(a.shape, a.strides) if n > 1)
    reach = item - 1
    for st, n in dims:
        if st <= reach:
            break
        reach += st * (n - 1)
    else:
        return False
    if a.size > _MAX_ENUMERATED:
        return True
    return np.unique(_element_offsets(a)).size < a.size


def _element_offsets(a):
    """Each position's element offset from the first (in elements), positions in
    row-major order."""
    item = a.itemsize
    offs = np.zeros((), dtype=np.int64)
    for n, st in zip(a.shape, a.strides):
        offs = np.add.outer(offs, np.arange(n, dtype=np.int64) * (st // item))
    return offs.reshape(-1)


def shares_memory(a, b) -> bool:
    """Whether arrays ``a`` and ``b`` (of one device) have an element in common, exactly
    (or, for a problem too large to decide, True)."""
    xp = xp_of(a)
    try:
        return bool(xp.shares_memory(a, b, max_work=1 << 20))
    except Exception:   # noqa: BLE001 - TooHardError, or a device without the exact test
        return bool(xp.may_share_memory(a, b))


def apply_by_positions(a, fn):
    """Apply elementwise ``fn`` (values -> values) to ``a`` in place position by position,
    as a loop over its positions would: an element that k positions share (``a`` overlaps
    itself, non-negative strides) gets ``fn`` k times. In rounds: round r takes each
    element's (r+1)-th position, so no round holds one element twice."""
    xp = xp_of(a)
    offs = _element_offsets(a)
    order = np.argsort(offs, kind="stable")
    ranked = offs[order]
    first = np.concatenate([[True], ranked[1:] != ranked[:-1]])
    starts = np.maximum.accumulate(np.where(first, np.arange(offs.size), 0))
    rank = np.empty(offs.size, dtype=np.int64)
    rank[order] = np.arange(offs.size) - starts
    span = int(offs.max()) + 1
    flat = xp.lib.stride_tricks.as_strided(a, (span,), (a.itemsize,))
    for r in range(int(rank.max()) + 1):
        at = offs[rank == r]
        if xp is not np:
            at = xp.asarray(at)
        flat[at] = fn(flat[at])
