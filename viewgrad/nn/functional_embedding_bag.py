"""``nn.functional.embedding_bag``: sums, means or maxima of embedding rows per bag, as
PyTorch 2.13 computes them on the CPU, with its one node ``EmbeddingBagBackward0``.

PyTorch's ``_embedding_bag`` returns, beside the bags, three integer tensors that its node
saves (``_saved_result1`` to ``_saved_result3``) and its backward reads:

* ``offset2bag``: the bag of every index position. PyTorch skips it (an empty tensor)
  where its fast 'sum' kernel runs: weights of float32 or narrower, no ``padding_idx``
  and a row-contiguous weight;
* ``bag_size``: the entries of each bag that are not ``padding_idx`` (mode 'mean' and
  'max'; zeros for 'sum');
* ``max_indices``: per bag and column, the row that gave the maximum (mode 'max', 0 for an
  empty bag); for 'sum' and 'mean' a copy of ``bag_size``.

With ``include_last_offset`` the last offset only closes the count of bags: the last bag
runs to the end of the indices (PyTorch's CPU kernel). The row's forward computes all
four on arrays; the three extra outputs are saved as a normalisation's statistics are
(Note [statistics saved as PyTorch saves them], ops/table.py).

The backward formulas are PyTorch's ``_embedding_bag_backward`` (weight) and
``_embedding_bag_per_sample_weights_backward``, on arrays. Neither has a derivative in
PyTorch: under ``create_graph`` the first records ``EmbeddingBagBackwardBackward0``, which
refuses with NotImplementedError, and the second a ``NotImplemented`` node, which refuses
with RuntimeError — as here.
"""
from __future__ import annotations

import warnings

from .. import backend as B
from ..autograd.grad_mode import no_grad
from ..autograd.nodes import OpDef
from ..ops import factories as Fa
from ..ops.args import torch_type_name
from ..ops.table import RefusingNode, refusing
from ..ops.pointwise import where
from ..ops.table import defop, dispatch, dispatch_stats
from .functional_more import _norm

__all__ = ["embedding_bag"]

_MODES = {"sum": 0, "mean": 1, "max": 2}


# -- the kernels, on arrays ------------------------------------------------------------------

def _offset2bag(xp, offsets, n_indices, n_bags, dtype):
    """The bag of every index position: how many of the bags' starts after the first are
    at or before it (PyTorch's cumulative sum of ones at the offsets)."""
    starts = offsets[1:n_bags]
    pos = xp.arange(n_indices)
    return xp.searchsorted(starts, pos, side="right").astype(dtype)


def _fast_sum(weight, mode, padding_idx):
    """Whether PyTorch's fast 'sum' kernel runs, which leaves offset2bag empty."""
    return (mode == 0 and padding_idx < 0 and weight.dtype.itemsize <= 4
            and (weight.shape[1] <= 1 or weight.strides[1] == weight.itemsize))


def _bag_fwd(weight, indices, offsets, per_sample_weights, num_weights, scale_grad_by_freq,
             mode, sparse, padding_idx, include_last_offset):
    """``(bags, offset2bag, bag_size, max_indices)`` as PyTorch's CPU ``_embedding_bag``."""
    xp = B.xp_of(weight)
    itype = xp.result_type(indices, offsets)
    n, d = indices.shape[0], weight.shape[1]
    n_bags = offsets.shape[0] - (1 if include_last_offset else 0)
    if n_bags == 0:   # no bags (a 2-D input of no rows): nothing to look up
        o2b = xp.zeros(0 if _fast_sum(weight, mode, padding_idx) else n, itype)
        return (xp.zeros((0, d), weight.dtype), o2b, xp.zeros(0, itype),
                xp.zeros((0, d) if mode == 2 else 0, itype))
    o2b = _offset2bag(xp, offsets, n, n_bags, itype)
    keep = indices != padding_idx
    fast = _fast_sum(weight, mode, padding_idx)
    if fast and include_last_offset:   # (the fast kernel ends the last bag at the last offset)
        keep = keep & (xp.arange(n) < offsets[-1])
    ends = xp.concatenate([offsets[1:n_bags], xp.asarray([n])]).astype(itype)
    # each bag's entries, less its padding ones
    size = (ends - offsets[:n_bags]).astype(itype) - \
        xp.bincount(o2b[~keep], minlength=n_bags).astype(itype)[:n_bags]
    # half-precision bags are summed in float32, as PyTorch's kernels do
    acc = xp.float32 if weight.dtype.itemsize < 4 else weight.dtype
    out = xp.zeros((n_bags, d), dtype=acc)
    if mode == 2:
        max_idx = xp.zeros((n_bags, d), dtype=itype)
        seen = xp.zeros(n_bags, dtype=bool)
        for i in range(n):   # in order: the first of equal maxima wins, as in PyTorch
            if not keep[i]:
                continue
            b, row = o2b[i], weight[indices[i]]
            better = ~seen[b] | (row > out[b])
            out[b] = xp.where(better, row, out[b])
            max_idx[b] = xp.where(better, indices[i], max_idx[b])
            seen[b] = True
        return out.astype(weight.dtype), o2b, size, max_idx
    rows = weight[indices[keep]].astype(acc)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[keep].astype(acc)[:, None]
    xp.add.at(out, o2b[keep], rows)   # (unbuffered, in index order, as PyTorch's loop)
    if mode == 1:
        out = out / xp.maximum(size, 1).astype(acc)[:, None]
    else:
        size = xp.zeros_like(size)   # (PyTorch zeroes it for 'sum', to be deterministic)
    if fast:
        o2b = o2b[:0]
    return out.astype(weight.dtype), o2b, size, size.copy()


def _bags_of(xp, offset2bag, indices, offsets, n_bags):
    """(offset2bag, whether each entry is in a bag): made again from every offset where
    PyTorch's fast path left it empty, as its backward does. An entry past the last
    offset of ``include_last_offset`` is then in no bag (the fast forward left it out;
    PyTorch's backward reads out of bounds for it: here it gets no gradient)."""
    if offset2bag.shape[0] == 0 and indices.shape[0] != 0:
        o2b = _offset2bag(xp, offsets, indices.shape[0], offsets.shape[0], offsets.dtype)
        inside = o2b < n_bags
        return xp.where(inside, o2b, 0), inside
    return offset2bag, True


def _weight_grad_fwd(grad, indices, offsets, offset2bag, bag_size, maximum_indices,
                     per_sample_weights, num_weights, scale_grad_by_freq, mode, sparse,
                     padding_idx):
    """PyTorch's ``_embedding_bag_backward`` (dense) on arrays."""
    xp = B.xp_of(grad)
    n_bags, d = grad.shape
    out = xp.zeros((num_weights, d), dtype=grad.dtype)
    if mode == 2:   # each column's gradient goes to the row that gave its maximum
        full = xp.nonzero(bag_size)[0]
        cols = xp.broadcast_to(xp.arange(d), (full.shape[0], d))
        xp.add.at(out, (maximum_indices[full], cols), grad[full])
        return out
    o2b, inside = _bags_of(xp, offset2bag, indices, offsets, n_bags)
    keep = (indices != padding_idx) & inside
    scale = xp.ones(indices.shape[0], dtype=grad.dtype)
    if per_sample_weights is not None:
        scale = scale * per_sample_weights
    if mode == 1:   # (a padding entry's bag may have no entries left: it gets nothing)
        scale = scale / xp.maximum(bag_size[o2b], 1).astype(grad.dtype)
    if scale_grad_by_freq:
        scale = scale / _freq_divisors(xp, indices, num_weights).astype(grad.dtype)
    xp.add.at(out, indices[keep], grad[o2b[keep]] * scale[keep][:, None])
    return out


def _freq_divisors(xp, indices, num_weights):
    """What PyTorch's CPU backward divides each entry's gradient by under
    ``scale_grad_by_freq``. Its loop walks the sorted indices one group of equal indices
    at a time, but divides group ``i`` by the count of ``sorted[i]`` (the i-th sorted
    entry, not the group's own index): each index's own count when the counts allow it
    ([1, 1, 0]), a neighbour's otherwise ([0, 0, 1, 1, 1] divides index 1's by 2)."""
    counts = xp.bincount(indices, minlength=num_weights)
    order = xp.sort(indices)
    groups = xp.unique(indices)
    divisor = counts[order[:groups.shape[0]]]
    return divisor[xp.searchsorted(groups, indices)]


def _psw_grad_fwd(grad, weight, indices, offsets, offset2bag, mode, padding_idx):
    """PyTorch's ``_embedding_bag_per_sample_weights_backward``: the bag's gradient dotted
    with the entry's row; 0 for a padding entry."""
    xp = B.xp_of(grad)
    o2b, inside = _bags_of(xp, offset2bag, indices, offsets, grad.shape[0])
    dots = (grad[o2b] * weight[indices]).sum(axis=1)
    return xp.where((indices != padding_idx) & inside, dots, 0).astype(grad.dtype, copy=False)


# -- the nodes -------------------------------------------------------------------------------

def _not_differentiable(*_):
    raise NotImplementedError("the derivative for '_embedding_bag_backward' is not "
                              "implemented.")


def _psw_not_differentiable(*_):
    raise RuntimeError("derivative for aten::_embedding_bag_per_sample_weights_backward is "
                       "not implemented")


# a row of PyTorch's derivatives table (``grad`` and ``per_sample_weights`` refused): an
# ordinary node with both edges, named as PyTorch's generated one
_WEIGHT_BACKWARD = OpDef(
    "_embedding_bag_backward", "EmbeddingBagBackwardBackward0", _weight_grad_fwd,
    ("grad", "indices", "offsets", "offset2bag", "bag_size", "maximum_indices",
     "per_sample_weights"),
    ("num_weights", "scale_grad_by_freq", "mode", "sparse", "padding_idx"),
    {"grad": _not_differentiable, "per_sample_weights": _not_differentiable},
    False, False, False, None, None)
# no row of PyTorch's table: its hand-written NotImplemented node
_PSW_BACKWARD = OpDef(
    "_embedding_bag_per_sample_weights_backward", "NotImplemented", _psw_grad_fwd,
    ("grad", "weight", "indices", "offsets", "offset2bag"), ("mode", "padding_idx"),
    {"grad": _psw_not_differentiable, "weight": _psw_not_differentiable},
    False, False, False, None, None, RefusingNode)


def _weight_formula(grad, indices, offsets, result1, result2, result3, weight_sym_argsize_0,
                    scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx):
    return dispatch(_WEIGHT_BACKWARD, (grad, indices, offsets, result1, result2, result3,
                                       per_sample_weights),
                    (weight_sym_argsize_0, scale_grad_by_freq, mode, sparse, padding_idx))


def _psw_formula(grad, weight, indices, offsets, result1, mode, padding_idx,
                 per_sample_weights):
    # (``per_sample_weights`` is unused: taken so that the node saves it whatever needs a
    # gradient, as PyTorch saves an optional tensor; ``weight`` it saves only for this)
    return refusing(_PSW_BACKWARD, (grad, weight, indices, offsets, result1),
                    (mode, padding_idx))


EMBEDDING_BAG = defop(
    "_embedding_bag", "EmbeddingBagBackward0", _bag_fwd,
    inputs=("weight", "indices", "offsets", "per_sample_weights"),
    attrs=("weight_sym_argsize_0", "scale_grad_by_freq", "mode", "sparse", "padding_idx",
           "include_last_offset", "result1", "result2", "result3"),
    weight=_weight_formula, per_sample_weights=_psw_formula)
# An absent per_sample_weights reads None even after backward has freed the node, as
# PyTorch's undefined saved tensor does: kept with the non-tensor values (a saved tensor
# is never kept, Note [what a freed node keeps])
EMBEDDING_BAG.kept = EMBEDDING_BAG.kept + ("per_sample_weights",)


# -- the function ----------------------------------------------------------------------------

def _index_checks(indices, offsets, weight, per_sample_weights, include_last_offset):
    """PyTorch's check_arguments, in its order and words."""
    common = B.promote_types(indices._data.dtype, offsets._data.dtype)   # (torch's rules)
    if common.kind not in "iu" or B.dtype_name(common) not in ("int64", "int32"):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"torch.{torch_type_name(common)}Tensor "
                           "instead (while checking arguments for embedding_bag)")
    if weight._data.dtype.kind != "f":
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the "
                           "following scalar types: Half, BFloat16, Float, Double; but got "
                           f"{weight.type()} instead (while checking arguments for "
                           "embedding_bag)")
    offs = offsets.tolist()
    if offs and offs[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the "
                           "mini-batch has to start from position 0. However, got "
                           f"{offs[0]}")
    if offs and offs[-1] > indices.shape[0]:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length "
                           f"{indices.shape[0]} but got offsets[-1] of {offs[-1]}")
    if any(b < a for a, b in zip(offs, offs[1:])) or (offs and offs[0] < 0):
        # (PyTorch reads out of bounds here; refused rather than copied)
        raise RuntimeError("embedding_bag: offsets have to be non-decreasing")
    if per_sample_weights is not None and per_sample_weights._data.dtype != weight._data.dtype:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type "
                           "as tensor for argument #1 'per_sample_weights'; but type "
                           f"{weight.type()} does not equal {per_sample_weights.type()} "
                           "(while checking arguments for embedding_bag)")
    if include_last_offset and not offs:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    n = weight.shape[0]
    bad = [v for v in indices.tolist() if not 0 <= v < n]
    if bad:
        raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but "
                           f"found idx to be {bad[0]}")


def _renorm_(weight, flat, max_norm, norm_type):
    """PyTorch's ``embedding_renorm_`` under no_grad: the rows looked up, scaled down in
    place to norm ``max_norm`` where above it."""
    with no_grad():
        rows = weight[flat]
        norms = _norm(rows, norm_type, -1)
        scale = where(norms > max_norm, max_norm / (norms + 1e-7), Fa.ones_like(norms))
        weight[flat] = rows * scale


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sum, mean or max of the embedding rows of each bag: the rows of a 2-D ``input``,
    or the slices of a 1-D ``input`` starting at ``offsets``; ``per_sample_weights``
    scales rows (mode 'sum'); ``padding_idx`` entries are left out; an empty bag is 0.
    One ``EmbeddingBagBackward0`` node, as ``torch.nn.functional.embedding_bag``."""
    if B.dtype_name(weight._data.dtype) == "int64" and input._data.dtype.kind == "f":
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         "is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found "
                             f"offsets of type {type(offsets)}")
        if input.shape[1] == 0:   # (PyTorch's arange(0, numel, 0))
            raise RuntimeError("step must be nonzero")
        offsets = Fa.arange(0, input.numel(), input.shape[1], dtype=input.dtype,
                            device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if sparse:   # (as F.embedding: a sparse gradient is PyTorch's alone)
        raise ValueError("embedding_bag: sparse gradients are not provided by viewgrad "
                         "(dense gradients only)")
    if max_norm is not None:
        _renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    n = weight.shape[0]
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{n} "
                               f"through {n - 1}, but got {padding_idx}")
        padding_idx %= n
    _index_checks(input, offsets, weight, per_sample_weights, include_last_offset)
    return dispatch_stats(EMBEDDING_BAG, (weight, input, offsets, per_sample_weights),
                          (n, bool(scale_grad_by_freq), _MODES[mode], bool(sparse),
                           -1 if padding_idx is None else padding_idx,
                           bool(include_last_offset)))
