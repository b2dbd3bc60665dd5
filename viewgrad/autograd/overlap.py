"""The in-place choke point's memory-overlap checks (``apply_inplace``, views.py): an
operand that overlaps the written tensor in part, a written tensor whose own elements
overlap, and which writes are computed anyway (Note [overlapping writes] in
backend/strided.py says why NumPy's answer would not be PyTorch's)."""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor
from .accumulate import is_non_overlapping_and_dense

__all__ = ["overlap_allowed", "check_no_partial_overlap", "compute_on_overlap"]

# The in-place ops PyTorch runs on a tensor whose elements overlap (an expanded one)
# that are computed here as they are there: the fills, which write one value wherever
# they write, and copy_ from the tensor itself. (PyTorch also runs masked_fill_,
# index_fill_ and index_put_ there, deprecated: each write lands on the shared memory in
# its order, which a copy of the result cannot reproduce, so viewgrad refuses them.)
_FILL_ON_EXPANDED = ("zero_", "fill_")


def overlap_allowed(opname, self, others):
    """Whether the op may write ``self`` whatever its elements share (the fills, copy_
    from self itself)."""
    if opname in _FILL_ON_EXPANDED:
        return opname == "zero_" or not others   # (fill_ with a tensor value: refused)
    return opname == "copy_" and bool(others) and others[0] is self


def _dense_extent(t):
    """(first, last + 1) storage offsets of a non-overlapping and dense tensor, else None
    (PyTorch's ``is_non_overlapping_and_dense``: some permutation of it is contiguous)."""
    d = t._data
    if not is_non_overlapping_and_dense(d.shape, t.stride()):
        return None
    start = t.storage_offset()
    return start, start + int(d.size)


_ORDER_DEPENDENT = ("unsupported operation: some elements of the {what} refer to a single "
                    "memory location{where}, so the result would depend on the order of the "
                    "writes. Please clone() the {which} before performing the operation.")


def check_no_partial_overlap(t, others, opname):
    """PyTorch's ``assert_no_partial_overlap(output, input)``: an operand may be the
    written tensor itself (``b.mul_(b)``: same memory, same strides) or be disjoint from
    it, but not overlap it otherwise (``b.mul_(b.t())``, ``b[1:].add_(b[:-1])``): the op
    would read elements it has already overwritten. Layouts too hard for PyTorch's test
    (not dense), which it lets run in its loops' order, are refused where the memory is
    really shared (Note [overlapping writes])."""
    storage = t._storage
    mine = None
    for o in others:
        if o is t or not isinstance(o, type(t)) or o._storage is not storage:
            continue
        if not o._data.size or not t._data.size:
            continue
        if mine is None:
            mine = _dense_extent(t) or False
        theirs = _dense_extent(o)
        if not mine or theirs is None:
            if not B.shares_memory(t._data, o._data) or (
                    o.shape == t.shape and o.stride() == t.stride()
                    and o.storage_offset() == t.storage_offset()):
                continue   # (or the same elements: each reads itself)
            raise RuntimeError(f"{opname}: " + _ORDER_DEPENDENT.format(
                what="input tensor and the written-to tensor", where="", which="input"))
        if mine == theirs:
            if o.stride() == t.stride():
                continue  # full overlap: elementwise, each element reads itself
        elif not (mine[0] < theirs[1] and theirs[0] < mine[1]):
            continue
        raise RuntimeError(
            f"{opname}: unsupported operation: some elements of the input tensor and the "
            "written-to tensor refer to a single memory location. Please clone() the tensor "
            "before performing the operation.")


def compute_on_overlap(op, self, others, requires, opname, compute):
    """``compute`` for writing ``self``, unchanged unless self's own elements share memory
    (an unfold with step < size). Then an elementwise op of self alone (``u.mul_(2)``,
    ``u.exp_()``) is PyTorch's loop: each position in turn reads its element and writes
    it back, so an element that k positions share gets the op k times — the compute
    returned does that (writing self's memory itself). Anything else — an operand tensor,
    an indexed write, a graph to record, a compute of the caller's — depends on the order
    of the writes: refused."""
    d = self._data
    if (d.ndim < 2 or d.flags.c_contiguous or d.flags.f_contiguous
            or not B.has_internal_overlap(d)):   # (row- or column-major: no overlap)
        return compute
    if (requires or compute is not None or any(isinstance(o, Tensor) for o in others)
            or not (op.host is not None or op.follows_first or op.promote)):
        raise RuntimeError(f"{opname}: " + _ORDER_DEPENDENT.format(
            what="written-to tensor", where=" (an unfold with step < size, an as_strided "
            "view)", which="tensor"))

    def by_positions(d, *rest):
        B.apply_by_positions(d, lambda v: op.forward(v, *rest))
        return d   # (written: _write_into sees self's own array)
    return by_positions
