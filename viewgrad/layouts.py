"""Stride arithmetic of PyTorch's layouts: which strides a result gets (Note [an
elementwise result's layout]), on shapes and strides alone, no arrays. The array
backend (backend/strided.py: ``iterator_layout``, ``preserve_layout``) lays results out with
them; AccumulateGrad's layout contract asks ``non_overlapping_and_dense``.
"""
from __future__ import annotations

__all__ = ["iterator_strides", "dense_strides", "non_overlapping_and_dense",
           "torch_contiguous", "dense_in_order", "channels_last_strides", "row_major_strides",
           "ordered", "view_strides", "index_strides", "column_major", "maybe_overlapping"]


# Note [an elementwise result's layout]
# Strides are behaviour (Note [result layouts]): ``x.t() + y`` is transposed in PyTorch,
# and the product inside ``kron`` of two transposed matrices is laid out so that the view
# after it works. TensorIterator decides the layout in two ways, and ``iterator_strides``
# follows both, step by step:
# * every operand of the result's shape (no broadcast, no Python number): the result is
#   contiguous if they all are, channels_last if they all are, else the operands' own
#   strides if they are all the same and non-overlapping and dense (its fast set-up);
# * otherwise its ``reorder_dimensions``: the dims put in order, fastest first, by an
#   insertion sort whose comparison asks the operands in turn (a broadcast dim, stride 0,
#   tells nothing; the first operand with two different strides decides; equal strides
#   put the smaller dim first), then strides laid out in that order (row-major when the
#   order is the plain one).
# On the CPU, an operand of another dtype than the computation's is first copied to it
# (``a.to(dtype)``, which lays the copy out as backend's ``preserved_strides`` says: its
# own strides when dense, else ``dense_strides``), and it is that copy's strides that
# count. NumPy's ufuncs order dims by their operands' strides too, but break ties and
# disagreements differently, so backend's ``iterator_layout`` copies the result into
# PyTorch's layout when the two differ (rarely: an operand that is not row-major; the
# strides are in elements here, in bytes there). Row-major operands give
# a row-major result at once: NumPy's flags ignore the stride of a size-1 dim, which can
# take part in the order only where the result has a size-1 dim too, so there (and with
# no empty dim, whose ties order otherwise) such an operand's strides are compared with
# the row-major ones. tests/ops/test_iterator_layout_vs_torch.py compares strides with
# torch over random programs.

def torch_contiguous(shape, st):
    """torch's is_contiguous (a size-1 dim's stride does not count; an empty tensor is
    contiguous whatever its strides)."""
    if 0 in shape:
        return True
    need = 1
    for n, s in zip(reversed(shape), reversed(st)):
        if n != 1:
            if s != need:
                return False
            need *= n
    return True


def dense_in_order(shape, st, order):
    """Whether the geometry is dense with its dims laid out in ``order``, fastest first
    (a size-1 dim's stride does not count): torch's is_contiguous for a memory format."""
    expected = 1
    for d in order:
        if shape[d] != 1:
            if st[d] != expected:
                return False
            expected *= shape[d]
    return True


def channels_last_strides(shape, st):
    """torch's is_contiguous(memory_format=channels_last) of a 4-D geometry."""
    return len(shape) == 4 and dense_in_order(shape, st, (1, 3, 2, 0))


def non_overlapping_and_dense(shape, st):
    """torch's is_non_overlapping_and_dense of (shape, element strides): an empty tensor
    is (it is contiguous)."""
    if 0 in shape:
        return True
    if len(shape) == 1:
        return shape[0] < 2 or st[0] == 1
    need = 1
    for d in sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: st[d]):
        if st[d] != need:
            return False
        need *= shape[d]
    return True


def maybe_overlapping(shape, st):
    """Whether two elements of a geometry (sizes, element strides) may share a storage
    element: PyTorch's ``_maybe_overlapping_memory`` of its dims of size > 1, taken by
    increasing stride, each stride past the last element the smaller ones reach (so a
    broadcast dim, stride 0, overlaps). False may be answered only when none do."""
    reach = 0
    for d in sorted((d for d in range(len(shape)) if shape[d] > 1), key=lambda d: st[d]):
        if st[d] <= reach:
            return True
        reach += st[d] * (shape[d] - 1)
    return False


def column_major(shape, st):
    """Whether a matrix of sizes ``shape`` and strides ``st`` is laid out column-major as
    PyTorch's mm backward asks it (``st[0] == 1 and st[1] == shape[0]``: ``W.t()`` of a
    row-major W); Note [a matrix gradient in its matrix's layout], ops/linalg.py."""
    return st[0] == 1 and st[1] == shape[0]


def row_major_strides(shape):
    st, n = [], 1
    for s in reversed(shape):
        st.append(n)
        n *= max(s, 1)
    return tuple(reversed(st))


def ordered(shape, strides_of):
    """TensorIterator's reorder_dimensions (and infer_dense_strides, one operand): the dims
    fastest first, by an insertion sort on the operands' strides (``strides_of``)."""
    def should_swap(d0, d1):
        for st in strides_of:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    nd = len(shape)
    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def dense_strides(shape, st):
    """PyTorch's infer_dense_strides: dense strides (elements) keeping the order of the
    geometry (shape, element strides ``st``) that is not dense itself."""
    if len(shape) < 2:
        return (1,) * len(shape)
    out, n = [0] * len(shape), 1
    for d in ordered(shape, (st,)):
        out[d] = n
        if shape[d] > 1:
            n *= shape[d]
    return tuple(out)


def iterator_strides(shape, seen):
    """The element strides TensorIterator gives an elementwise result of ``shape`` for
    operands as it sees them (``(shape, element strides)``, None for a number or a 0-d
    tensor): Note [an elementwise result's layout]."""
    nd = len(shape)
    geoms = [g for g in seen if g is not None]
    if len(geoms) == len(seen) and all(sh == shape for sh, _ in geoms):
        if all(torch_contiguous(sh, st) for sh, st in geoms):
            return row_major_strides(shape)
        if all(channels_last_strides(sh, st) for sh, st in geoms):
            c, h, w = shape[1], shape[2], shape[3]
            return (h * w * c, 1, w * c, c)
        first = geoms[0][1]
        if all(st == first for _, st in geoms) and non_overlapping_and_dense(shape, first):
            return first
    # reorder_dimensions: each operand's strides against the result's shape (0: broadcast)
    strides_of = []
    for sh, st in geoms:
        off = nd - len(sh)
        strides_of.append((0,) * off + tuple(
            0 if (n == 1 and shape[off + i] != 1) else s
            for i, (n, s) in enumerate(zip(sh, st))))
    perm = ordered(shape, strides_of)
    if perm == list(range(nd - 1, -1, -1)):
        return row_major_strides(shape)
    out, n = [0] * nd, 1
    for d in perm:   # (TensorIterator's compatible_stride: sizes as they are, 0 too)
        out[d] = n
        n *= shape[d]
    return tuple(out)


def view_strides(oldshape, oldstride, newshape):
    """The element strides of ``view(newshape)`` of a geometry, as PyTorch's computeStride
    gives them, or None when it cannot be viewed so. The dims are walked from the last in
    chunks of memory that is contiguous (a size-1 dim never breaks a chunk); each chunk
    of the old shape must be exactly the product of some run of new dims, which get the
    chunk's strides (a new size-1 dim gets the stride its place in the chunk gives it:
    NumPy's reshape picks another for one of a non-contiguous tensor)."""
    if not oldshape:
        return (1,) * len(newshape)
    numel = 1
    for n in oldshape:
        numel *= n
    if numel == 0:
        if tuple(oldshape) == tuple(newshape):
            return tuple(oldstride)
        out, n = [0] * len(newshape), 1
        for d in range(len(newshape) - 1, -1, -1):
            out[d] = n
            n *= max(newshape[d], 1)
        return tuple(out)
    out = [0] * len(newshape)
    view_d = len(newshape) - 1
    base = oldstride[-1]   # the stride of each chunk's fastest element
    tensor_numel = view_numel = 1
    for d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[d]
        if d == 0 or (oldshape[d - 1] != 1 and oldstride[d - 1] != tensor_numel * base):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                out[view_d] = view_numel * base
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                base = oldstride[d - 1]
                tensor_numel = view_numel = 1
    return tuple(out) if view_d == -1 else None


# Note [an advanced index's result layout]
# ``x[:, idx]`` is a copy, and its strides are TensorIterator's again (Note [an elementwise
# result's layout]), for the operands PyTorch's ``index`` gives it (TensorAdvancedIndexing's
# make_info and AdvancedIndex): the index tensors broadcast together (expand_outplace: one
# already of the common shape is kept as it is), moved with their dims to the front of
# the source when they are not adjacent (transposeToFront), the source restrided to the
# result's shape with stride 0 along the index dims (restride_src), each index reshaped
# to the result's rank with size-1 dims around it (reshape_indexer, a view: its strides
# are computeStride's). The source's own strides order the result's dims first, so
# ``x[:, idx]`` of a row-major x is row-major, where NumPy lays it out with the index dim
# first in memory. ``index_strides`` does those steps on geometries; backend's
# ``index_layout`` reads the key.

def index_strides(src_shape, src_strides, indices):
    """The element strides of PyTorch's ``index(src, indices)`` result (Note [an advanced
    index's result layout]): ``indices`` has one entry per dim of the source, None where
    it is not indexed, else the index's ``(shape, element strides)``. Indices that do not
    broadcast together raise ValueError."""
    defined = [d for d, g in enumerate(indices) if g is not None]
    common = ()
    for d in defined:   # expand_outplace's shape
        common = _broadcast_pair(common, tuple(indices[d][0]))
    geoms = {}
    for d in defined:
        sh, st = tuple(indices[d][0]), tuple(indices[d][1])
        if sh != common:   # expand(): a new or a broadcast dim gets stride 0
            off = len(common) - len(sh)
            st = (0,) * off + tuple(0 if n == 1 and common[off + i] != 1 else s
                                    for i, (n, s) in enumerate(zip(sh, st)))
        geoms[d] = st
    order = list(range(len(src_shape)))
    if defined != list(range(defined[0], defined[-1] + 1)):   # transposeToFront
        order = defined + [d for d in order if d not in geoms]
    shape = [src_shape[d] for d in order]
    strides = [src_strides[d] for d in order]
    before = next(i for i, d in enumerate(order) if d in geoms)
    after = len(order) - before - len(defined)
    end = before + len(defined)
    out_shape = tuple(shape[:before]) + common + tuple(shape[end:])
    seen = [(out_shape, tuple(strides[:before]) + (0,) * len(common) + tuple(strides[end:]))]
    for d in order:   # reshape_indexer: (1,) * before + common + (1,) * after, a view
        if d in geoms:
            new = (1,) * before + common + (1,) * after
            seen.append((new, view_strides(common, geoms[d], new)))
    return out_shape, iterator_strides(out_shape, seen)


def _broadcast_pair(a, b):
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    if any(x != y and x != 1 and y != 1 for x, y in zip(a, b)):
        raise ValueError("shape mismatch: indexing tensors could not be broadcast together")
    return tuple(y if x == 1 else x for x, y in zip(a, b))
