"""Indexed reductions: ``scatter_reduce`` and ``index_reduce`` (and their in-place forms),
as ``torch.scatter_reduce`` / ``torch.index_reduce`` define them.

Both combine values into positions of a copy of ``self``: ``scatter_reduce`` sends
``src[i][j]`` to the position ``index[i][j]`` names along ``dim`` (an index as large as
``src``, like ``scatter_add``); ``index_reduce`` sends the whole slice ``source[k]`` along
``dim`` to the slice ``index[k]`` (a vector index, like ``index_add``). Values that land
on one position are combined by ``reduce``: ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"``
or ``"amin"`` (``index_reduce`` has no ``"sum"``: that is ``index_add``). With
``include_self=False`` the positions written to forget ``self``'s value first (they start
from the reduction's identity); positions nothing lands on keep ``self``'s value.

Each is one row of the derivatives table, ``ScatterReduceBackward0`` /
``IndexReduceBackward0``, whose formulas follow PyTorch's ``scatter_reduce_backward`` /
``index_reduce_backward`` written in viewgrad ops (so double backward works):

* prod: the gradient of a factor is the product of the OTHER factors. Dividing the
  result by the factor is wrong when a factor is 0, so the products are recomputed with
  the zeros replaced by 1 (a position with exactly one zero factor gives that factor the
  product of the others, every other factor 0);
* mean: the gradient divided by how many values each position averaged;
* amax / amin: the gradient split evenly among every value equal to the result (ties
  share it, ``self``'s own value included when it ties).
"""
from __future__ import annotations

import math

from .. import backend as B
from ..tensor import Tensor, _wrap_dim
from .reduce import _full_index, as_input_shape
from .signatures import BOOL, INT, STR, TENSOR, _function, _method
from .table import apply_inplace, defop, dispatch, method
from .warn_once import warn_once

__all__ = ["scatter_reduce", "index_reduce"]

_builtin_slice = slice
_SCATTER_REDUCES = ("sum", "prod", "mean", "amax", "amin")
# PyTorch's forward also takes "max" and "min" (its older names) and computes amax / amin;
# its backward then refuses them, which the formulas below do too
_OLD_NAMES = {"max": "amax", "min": "amin"}
_MISSING = object()   # reduce not given: PyTorch's parser words that refusal


# -- forwards (on backend arrays) ------------------------------------------------------------

def _identity(reduce, dtype, xp):
    """What a position written with ``include_self=False`` starts from."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "b":
        return reduce == "amin"
    if dtype.kind in "iu":
        info = xp.iinfo(dtype)
        return info.min if reduce == "amax" else info.max
    return -math.inf if reduce == "amax" else math.inf


def _combine_at(out, key, vals, reduce):
    """``out[key] (reduce)= vals``, values landing on one position combining in turn."""
    if reduce in ("sum", "mean"):
        B.add_at(out, key, vals)
        return
    if reduce == "prod":
        B.multiply_at(out, key, vals)
        return
    xp = B.xp_of(out)
    uf = xp.maximum if reduce == "amax" else xp.minimum   # both keep NaN, as PyTorch
    if type(out) is B.HOST_ARRAY:
        uf.at(out, key, vals)
        return
    _combine_in_rounds(xp, uf, out, key, vals)


def _combine_in_rounds(xp, uf, out, key, vals):
    """``uf.at(out, key, vals)`` for devices that may lack ufunc.at (CuPy): rounds of plain
    fancy-index updates, round k taking the k-th value of every position, so that no round
    writes one element twice (as backend.multiply_at does)."""
    idx = xp.broadcast_arrays(*key)
    lin = xp.ravel_multi_index(tuple(i.ravel() for i in idx), out.shape)
    vals = xp.broadcast_to(vals, idx[0].shape).ravel()
    order = xp.argsort(lin, kind="stable")
    ranked = lin[order]
    rank = xp.arange(ranked.size) - xp.searchsorted(ranked, ranked, side="left")
    flat = out.reshape(-1)   # ``out`` is a fresh C-ordered copy: a view of it
    for k in range(int(rank.max()) + 1 if rank.size else 0):
        take = order[rank == k]
        flat[lin[take]] = uf(flat[lin[take]], vals[take])


def _reduce_into(self, key, vals, reduce, include_self):
    """A copy of ``self`` with ``vals`` reduced into the positions ``key`` names."""
    xp = B.xp_of(self)
    reduce = _OLD_NAMES.get(reduce, reduce)
    out = self.copy()
    if not include_self:
        out[key] = _identity(reduce, out.dtype, xp)
    _combine_at(out, key, vals, reduce)
    if reduce == "mean":
        # how many values each position averaged (self counting once when included);
        # integer means round down, as PyTorch's floor division
        count = xp.full(out.shape, 1 if include_self else 0, dtype=out.dtype)
        B.add_at(count, key, xp.ones(vals.shape, dtype=out.dtype))
        count[count == 0] = 1
        out = out // count if out.dtype.kind in "iu" else out / count
    return out.astype(self.dtype, copy=False)


def _scatter_reduce_fwd(self, index, src, dim, reduce, include_self):
    if self.ndim == 0:   # a 0-d tensor indexed along "dim 0": as a 1-element vector
        return _scatter_reduce_fwd(self.reshape(1), index.reshape(1), src.reshape(1), 0,
                                   reduce, include_self).reshape(())
    if not index.size:   # (PyTorch returns before its shape checks)
        return self.copy()
    xp = B.xp_of(self)
    vals = src[tuple(_builtin_slice(0, n) for n in index.shape)]
    return _reduce_into(self, _full_index(xp, index, dim), vals, reduce, include_self)


def _index_reduce_fwd(self, index, source, dim, reduce, include_self):
    if self.ndim == 0:
        return _index_reduce_fwd(self.reshape(1), index.reshape(-1), source.reshape(-1), 0,
                                 reduce, include_self).reshape(())
    xp = B.xp_of(self)
    if source.ndim == 0:
        source = source.reshape(1)
    # index_reduce's slices as scatter_reduce's elements: the index broadcast to the
    # source's shape along ``dim``
    shape = [1] * source.ndim
    shape[dim] = -1
    full = xp.broadcast_to(index.reshape(shape), source.shape)
    return _reduce_into(self, _full_index(xp, full, dim), source, reduce, include_self)


# -- backward formulas, written in viewgrad ops -------------------------------------------

def _zeros_like(t):
    from .factories import zeros_like
    return zeros_like(t)


def _ones_like(t):
    from .factories import ones_like
    return ones_like(t)


def _unsupported_reduce(reduce):
    raise RuntimeError(f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', "
                       f"'amin' but got {reduce}.")


def _delayed_error(t, msg):
    """``t`` behind a node whose backward raises ``msg`` (PyTorch's DelayedError): the
    gradient is right, differentiating it again is refused."""
    from ..autograd.function import _DelayedError
    from ..autograd.state import state
    if not (state.grad_enabled and t.requires_grad):
        return t
    node = _DelayedError(msg, (t._edge(),))
    w = Tensor._make(t._data, t._device)
    w._grad_fn = node
    w._output_nr = 0
    return w


class _Ops:
    """The three ops a formula needs, for each of the two families: ``spread(base,
    values)`` (scatter_add / index_add), ``pick(t)`` (gather / index_select) and
    ``clear(t)`` (zero the written positions), plus the op itself (``again``)."""

    def __init__(self, scatter, dim, index, reduce, include_self):
        self.scatter, self.dim, self.index = scatter, dim, index
        self.reduce, self.include_self = reduce, include_self

    def spread(self, base, values):
        if self.scatter:
            return base.scatter_add(self.dim, self.index, values)
        return base.index_add(self.dim, self.index, values)

    def pick(self, t):
        if self.scatter:
            return t.gather(self.dim, self.index)
        return t.index_select(self.dim, self.index)

    def clear(self, t):
        if self.scatter:
            return t.scatter(self.dim, self.index, 0.0)
        return t.index_fill(self.dim, self.index, 0.0)

    def again(self, base, values):
        f = scatter_reduce if self.scatter else index_reduce
        return f(base, self.dim, self.index, values, self.reduce,
                 include_self=self.include_self)


def _grads(ops, grad, self, src, result, which):
    """PyTorch's scatter_reduce_backward / index_reduce_backward: the gradient for
    ``self`` (which == 0) or for ``src`` (which == 1)."""
    from .pointwise import where
    reduce = ops.reduce
    if reduce == "sum":
        g = ops.pick(grad) if which else grad
    elif reduce == "prod":
        if which == 0:
            # self's zeros replaced by 1: the product of the other factors, exactly
            masked_self = self.masked_fill(self == 0, 1)
            g = grad * ops.again(masked_self, src) / masked_self
        else:
            src_zero = src == 0
            zeros = ops.pick(ops.spread(_zeros_like(self), src_zero.to(self.dtype)))
            single = src_zero & (zeros == 1)
            # a position with one zero factor: that factor's gradient is the product of
            # the others (the product with it replaced by 1); every other factor gets 0
            # from grad * result / src, with the zeros divided by 1 instead of 0
            others = ops.again(self, src.masked_fill(single, 1))
            g = where(single, ops.pick(grad * others),
                      ops.pick(grad * result) / src.masked_fill(src_zero, 1))
            if bool((zeros > 1).any()):
                name = "scatter_reduce" if ops.scatter else "index_reduce"
                what = "src" if ops.scatter else "source"
                g = _delayed_error(g, f"{name}(): Double backward is unsupported for {what} "
                                      f"when >1 zeros in {what} are scattered to the same "
                                      f"position in self")
    elif reduce == "mean":
        n = _ones_like(grad) if ops.include_self else _zeros_like(grad)
        n = ops.spread(n, _ones_like(src))
        n = n.masked_fill(n == 0, 1)
        g = grad / n if which == 0 else ops.pick(grad) / ops.pick(n)
    elif reduce in ("amax", "amin"):
        self_is = (self == result).to(self.dtype)
        src_is = (src == ops.pick(result)).to(self.dtype)
        # ties share the gradient: every value equal to the result gets an equal part
        share = grad / ops.spread(self_is, src_is)
        g = self_is * share if which == 0 else src_is * ops.pick(share)
    else:
        _unsupported_reduce(reduce)
    if which == 0 and not ops.include_self:
        g = ops.clear(g)   # the written positions forgot self's value
    if which == 1:
        # an index smaller than src: src's gradient has the index's shape, which PyTorch's
        # engine checks (its check of every node's outputs)
        g = as_input_shape(g, src.shape, "ScatterReduceBackward0", 1)
    return g


def _sr_grad(which):
    def formula(grad, self, index, src, result, dim, reduce, include_self):
        return _grads(_Ops(True, dim, index, reduce, include_self), grad, self, src, result,
                      which)
    return formula


def _ir_grad(which):
    def formula(grad, self, index, source, result, dim, reduce, include_self):
        return _grads(_Ops(False, dim, index, reduce, include_self), grad, self, source,
                      result, which)
    return formula


SCATTER_REDUCE = defop("scatter_reduce", "ScatterReduceBackward0", _scatter_reduce_fwd,
                       inputs=("self", "index", "src"), attrs=("dim", "reduce", "include_self"),
                       self=_sr_grad(0), src=_sr_grad(1))
INDEX_REDUCE = defop("index_reduce", "IndexReduceBackward0", _index_reduce_fwd,
                     inputs=("self", "index", "source"),
                     attrs=("dim", "reduce", "include_self"),
                     self=_ir_grad(0), source=_ir_grad(1))


# -- argument checks (PyTorch's order and words) -------------------------------------------

def _type_name(t):
    from .index_ops import _dtype_name
    return _dtype_name(t)


def _missing(name, reduce):
    if reduce is _MISSING:
        raise TypeError(f'{name}() missing 1 required positional arguments: "reduce"')


def _scatter_reduce_args(self, dim, index, src, reduce):
    d = _wrap_dim(dim, self.dim()) if self.dim() else _wrap_dim(dim, 1)
    if index._data.dtype.kind not in "iu":
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if src._data.dtype != self._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.dim() != self.dim():
        raise RuntimeError("Index tensor must have the same number of dimensions as self "
                           "tensor")
    if index.dim() != src.dim():
        raise RuntimeError("Index tensor must have the same number of dimensions as src "
                           "tensor")
    ish, ssh, xsh = list(index.shape), list(self.shape), list(src.shape)
    if index.numel() and (any(ish[k] > ssh[k] for k in range(len(ish)) if k != d) or any(
            ish[k] > xsh[k] for k in range(len(ish)))):
        raise RuntimeError(f"Expected index {ish} to be no larger than self {ssh} apart from "
                           f"dimension {d} and to be no larger size than src {xsh}")
    if reduce not in _SCATTER_REDUCES and reduce not in _OLD_NAMES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    if reduce == "mean" and self._data.dtype.kind == "b":
        raise NotImplementedError('"scatter_gather_tensor_cpu_reduce_mean" not implemented '
                                  "for 'Bool'")
    if index._device is not self._device:
        index = index.to(self._device)
    n = self.shape[d] if self.dim() else 1
    if index.numel():
        lo, hi = int(index._data.min()), int(index._data.max())
        if lo < 0 or hi >= n:   # no negative positions: PyTorch refuses them here
            bad = lo if lo < 0 else hi
            raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {n}")
    return d, index


def _index_reduce_args(self, dim, index, source, reduce, include_self):
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax "
                           f"or amin but got {reduce}.")
    d = _wrap_dim(dim, self.dim()) if self.dim() else _wrap_dim(dim, 1)
    if index.dim() > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: "
                         f"{index.dim()} with type: {_type_name(index)} and size: "
                         f"{list(index.shape)}")
    if index._data.dtype.kind not in "iu":
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{_type_name(index)}")
    if source._data.dtype != self._data.dtype:
        raise RuntimeError(f"index_reduce_(): self ({_type_name(self)}) and source "
                           f"({_type_name(source)}) must have the same scalar type")
    if d != 0 and d >= source.dim():
        raise RuntimeError(f"index_reduce_(): Indexing dim {d} is out of bounds of the source "
                           f"tensor with dim {source.dim()}")
    ns = source.shape[d] if source.dim() else 1
    if index.numel() != ns:
        if not source.dim():
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.numel()}) should be "
                           f"equal to source.size(dim): ({ns}), for dim: {d}")
    ss, xs = list(self.shape), list(source.shape)
    if self.dim() and source.dim():
        del ss[d], xs[d]
    if ss != xs:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(self.shape)} "
                           f"source.shape = {list(source.shape)}")
    if self._data.dtype.kind == "b":
        if not include_self:
            raise NotImplementedError("\"index_reduce_func_exclude_input_init\" not "
                                      "implemented for 'Bool'")
        if reduce == "mean":
            raise NotImplementedError("\"div_floor_cpu\" not implemented for 'Bool'")
    if index._device is not self._device:
        index = index.to(self._device)
    n = self.shape[d] if self.dim() else 1
    if index.numel():
        lo, hi = int(index._data.min()), int(index._data.max())
        if lo < 0 or hi >= n:
            raise IndexError("index out of range in self")
    _beta_warning()
    return d, index.reshape(-1)


def _beta_warning():
    warn_once("index_reduce")   # Note [warnings given once]


# -- the functions and methods ---------------------------------------------------------------

def scatter_reduce(self, dim, index, src, reduce=_MISSING, *, include_self=True):
    """A copy of ``self`` with every ``src[i][j]`` combined into the position
    ``index[i][j]`` along ``dim`` by ``reduce`` (``"sum"``, ``"prod"``, ``"mean"``,
    ``"amax"``, ``"amin"``); ``include_self=False``: the positions written to leave
    ``self``'s value out. ``torch.scatter_reduce``; autograd records
    ``ScatterReduceBackward0`` (prod handles zero factors, amax/amin split the gradient
    evenly among ties)."""
    _missing("scatter_reduce", reduce)
    d, index = _scatter_reduce_args(self, dim, index, src, reduce)
    return dispatch(SCATTER_REDUCE, (self, index, src), (d, reduce, bool(include_self)))


def scatter_reduce_(self, dim, index, src, reduce=_MISSING, *, include_self=True):
    """In-place ``scatter_reduce`` (``torch.Tensor.scatter_reduce_``), through the in-place
    choke point: the version counter is bumped, and on a view the base's history becomes
    a CopySlices wrapping ``ScatterReduceBackward0``."""
    _missing("scatter_reduce_", reduce)
    d, index = _scatter_reduce_args(self, dim, index, src, reduce)
    return apply_inplace(SCATTER_REDUCE, self, (index, src), (d, reduce, bool(include_self)),
                         name="scatter_reduce_")


def index_reduce(self, dim, index, source, reduce=_MISSING, *, include_self=True):
    """A copy of ``self`` with each slice ``source[k]`` along ``dim`` combined into the
    slice ``index[k]`` by ``reduce`` (``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``);
    ``include_self=False``: the slices written to leave ``self``'s values out.
    ``torch.index_reduce`` (beta in PyTorch, which warns once); autograd records
    ``IndexReduceBackward0``."""
    _missing("index_reduce", reduce)
    d, index = _index_reduce_args(self, dim, index, source, reduce,
                                  include_self)
    return dispatch(INDEX_REDUCE, (self, index, source), (d, reduce, bool(include_self)))


def index_reduce_(self, dim, index, source, reduce=_MISSING, *, include_self=True):
    """In-place ``index_reduce`` (``torch.Tensor.index_reduce_``), through the in-place
    choke point (version bump; CopySlices when ``self`` is a view)."""
    _missing("index_reduce_", reduce)
    d, index = _index_reduce_args(self, dim, index, source, reduce,
                                  include_self)
    return apply_inplace(INDEX_REDUCE, self, (index, source), (d, reduce, bool(include_self)),
                         name="index_reduce_")


# PyTorch's parser checks these kinds before anything runs (ops/signatures.py's wording)
_SR = (("dim", INT), ("index", TENSOR), ("src", TENSOR), ("reduce", STR),
       ("include_self", BOOL))
_IR = (("dim", INT), ("index", TENSOR), ("source", TENSOR), ("reduce", STR),
       ("include_self", BOOL))
method("scatter_reduce")(_method(scatter_reduce, "scatter_reduce", _SR))
method("scatter_reduce_")(_method(scatter_reduce_, "scatter_reduce_", _SR))
method("index_reduce")(_method(index_reduce, "index_reduce", _IR))
method("index_reduce_")(_method(index_reduce_, "index_reduce_", _IR))
scatter_reduce = _function(scatter_reduce, "scatter_reduce", _SR)   # vg.scatter_reduce
index_reduce = _function(index_reduce, "index_reduce", _IR)
