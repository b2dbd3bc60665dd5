"""Ops that pick or write along a dimension by an index vector or a mask:
index_select, index_add, index_copy, index_fill, masked_select, masked_scatter, nonzero,
and the in-place forms (``index_add_``, ``index_copy_``, ``index_fill_``,
``masked_scatter_``, ``scatter_``, ``scatter_add_``).

Each is a row of the derivatives table (node names as PyTorch's: ``IndexSelectBackward0``,
``IndexAddBackward0``...). Their backward formulas are written with each other, so double
backward works: index_select's gradient is an index_add into zeros, whose gradient for
its source is an index_select again; masked_select and masked_scatter pair up the same
way. The in-place forms run the same rows through the choke point (``apply_inplace``).
"""
from __future__ import annotations

from .. import backend as B
from ..autograd.nodes import OpDef
from ..autograd.saved_names import show_given
from ..tensor import Tensor, _wrap_dim
from .reduce import _full_index
from .args import torch_type_name
from .table import apply_inplace, defop, dispatch, method

__all__ = ["index_select", "index_add", "index_copy", "index_fill", "masked_select",
           "masked_scatter", "nonzero", "argwhere"]

_builtin_slice = slice


def _key(dim, index):
    return (_builtin_slice(None),) * dim + (index,)


def _zeros(shape, like):
    from .factories import zeros
    return zeros(tuple(shape), dtype=like.dtype, device=like.device)


# -- forwards (on backend arrays) ----------------------------------------------------------

def _index_select_fwd(self, index, dim):
    if self.ndim == 0:
        return self.reshape(1)[index].reshape(())
    return B.xp_of(self).take(self, index, axis=dim)


def _index_add_fwd(self, index, source, dim, alpha, source_dim=None):
    out = self.copy()
    if alpha != 1:
        source = source * alpha
    if out.ndim == 0:
        B.add_at(out.reshape(1), index, source.reshape(-1))
        return out
    B.add_at(out, _key(dim, index), source)
    return out


def _index_copy_fwd(self, index, source, dim, source_dim=None):
    out = self.copy()
    if out.ndim == 0:
        out.reshape(1)[index] = source.reshape(-1)
        return out
    out[_key(dim, index)] = source
    return out


def _index_fill_fwd(self, index, value, dim):
    out = self.copy(order="K")   # (self's layout, as PyTorch's clone keeps it)
    if out.ndim == 0:
        out.reshape(1)[index] = value
        return out
    out[_key(dim, index)] = value
    return out


def _masked_select_fwd(self, mask):
    xp = B.xp_of(self)
    shape = B.broadcast_shapes(self.shape, mask.shape)
    return xp.broadcast_to(self, shape)[xp.broadcast_to(mask, shape)]


def _masked_scatter_fwd(self, mask, source):
    xp = B.xp_of(self)
    shape = B.broadcast_shapes(self.shape, mask.shape)
    out = xp.broadcast_to(self, shape).copy()
    m = xp.broadcast_to(mask, shape)
    n = int(m.sum())
    if n > source.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out[m] = source.reshape(-1)[:n]
    return out


# -- backward helpers, written in viewgrad ops ---------------------------------------------

def _index_select_bwd(grad, index, self_shape, dim):
    # PyTorch's index_select_backward: an index_add into zeros (repeated indices add up)
    return index_add(_zeros(self_shape, grad), dim, index, grad)


def _picked(grad, index, dim, source_shape):
    """The rows of ``grad`` that ``index`` wrote to, shaped like the source."""
    g = grad.index_select(dim, index)
    return g if tuple(g.shape) == tuple(source_shape) else g.reshape(source_shape)


def _masked_scatter_source_bwd(grad, mask, source_shape):
    # PyTorch's masked_scatter_backward: the masked gradients in order, padded with zeros
    # for the source elements the mask did not use.
    from .joining import cat
    g = grad.masked_select(mask)
    n = 1
    for s in source_shape:
        n *= s
    if g.numel() < n:
        g = cat([g, _zeros((n - g.numel(),), grad)])
    return g.reshape(source_shape)


def _masked_select_bwd(grad, mask, self_shape):
    shape = B.broadcast_shapes(tuple(self_shape), tuple(mask.shape))
    return _zeros(shape, grad).masked_scatter(mask, grad)


INDEX_SELECT = defop("index_select", "IndexSelectBackward0", _index_select_fwd,
                     inputs=("self", "index"), attrs=("dim",), self=_index_select_bwd)
# (index_add and index_copy save ``source`` itself, as PyTorch does for its shape: a
# source modified in place before backward is refused there, so here too; and, as
# PyTorch's nodes, source.dim() whatever needs a gradient)
INDEX_ADD = defop("index_add", "IndexAddBackward0", _index_add_fwd,
                  inputs=("self", "index", "source"), attrs=("dim", "alpha", "source_dim"),
                  self=lambda grad, source_dim: grad,
                  source=lambda grad, index, dim, alpha, source:
                  _picked(grad, index, dim, tuple(source.shape)) * alpha if alpha != 1 else
                  _picked(grad, index, dim, tuple(source.shape)))
INDEX_COPY = defop("index_copy", "IndexCopyBackward0", _index_copy_fwd,
                   inputs=("self", "index", "source"), attrs=("dim", "source_dim"),
                   self=lambda grad, index, dim, source_dim: grad.index_fill(dim, index, 0.0),
                   source=lambda grad, index, dim, source:
                   _picked(grad, index, dim, tuple(source.shape)))
INDEX_FILL = defop("index_fill", "IndexFillBackward0",
                   lambda self, index, value, dim: _index_fill_fwd(self, index, value, dim),
                   inputs=("self", "index"), attrs=("value", "dim"),
                   self=lambda grad, index, dim: grad.index_fill(dim, index, 0.0))
INDEX_FILL_T = defop("index_fill_tensor", "IndexFillBackward1", _index_fill_fwd,
                     inputs=("self", "index", "value"), attrs=("dim",),
                     self=lambda grad, index, dim: grad.index_fill(dim, index, 0.0),
                     # each filled element once, however often the index names it
                     # (PyTorch: grad.index_select(dim, unique(index)).sum())
                     value=lambda grad, index, dim: grad.index_select(
                         dim, index.reshape(-1).unique()).sum())
# (``self`` saved as PyTorch's MaskedSelectBackward0 saves it: a version-checked input)
MASKED_SELECT = defop("masked_select", "MaskedSelectBackward0", _masked_select_fwd,
                      inputs=("self", "mask"), broadcast=True,
                      self=lambda grad, self, mask, _self_shape: _masked_select_bwd(
                          grad, mask, _self_shape))
MASKED_SCATTER = defop("masked_scatter", "MaskedScatterBackward0", _masked_scatter_fwd,
                       inputs=("self", "mask", "source"), broadcast=True,
                       self=lambda grad, mask: grad.masked_fill(mask, 0.0),
                       source=_masked_scatter_source_bwd)


# -- argument checks (PyTorch's wording) ----------------------------------------------------

def _dtype_name(t):
    """PyTorch's ScalarType name (``Float``, ``Double``, ``Long``) used in its messages."""
    from .tensortypes import _BY_DTYPE
    name = _BY_DTYPE.get(t.dtype)
    return name[:-len("Tensor")] if name else B.dtype_name(t.dtype).capitalize()


def _check_index(self, dim, index, name, alpha=1):
    if not isinstance(index, Tensor) or index._data.dtype.kind not in "iu":
        raise RuntimeError(f"{name}(): Expected dtype int32 or int64 for index")
    if index.dim() > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    if index._data.dtype.itemsize != 8:   # int32 positions: two kernels take int64 only
        if name == "index_copy":
            raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                               f"{_dtype_name(index)}")
        if name == "index_fill":
            raise IndexError("index_fill_(): Expected dtype int64 for index.")
    d = _wrap_dim(dim, self.dim()) if self.dim() else _wrap_dim(dim, 1)
    if index._device is not self._device:
        index = index.to(self._device)
    n = self._data.shape[d] if self.dim() else 1
    if index.numel():
        lo, hi = int(index._data.min()), int(index._data.max())
        # only index_fill counts from the end (PyTorch's kernels, op by op)
        if lo < (-n if name == "index_fill" else 0) or hi >= n:
            bad = hi if hi >= n else lo
            if name == "index_select" or (name == "index_add" and (
                    self.dim() < 2 or alpha != 1 or index._data.dtype.itemsize != 8)):
                # (index_add's general loop; with alpha 1 over a matrix and int64
                # positions PyTorch takes index_put's, whose words are below)
                raise IndexError("index out of range in self")
            msg = f"index {bad} is out of bounds for dimension {d} with size {n}"
            if name == "index_fill":   # (PyTorch's types and words, op by op)
                raise IndexError(msg)
            if name == "index_copy":
                raise IndexError(f"index_copy_(): {msg}")
            raise RuntimeError(msg)
    return d, index.reshape(-1) if index.dim() == 0 else index


def _check_source(self, d, index, source, name, sep=":"):
    if not isinstance(source, Tensor):
        raise TypeError(f"{name}(): argument 'source' must be Tensor, not "
                        f"{type(source).__name__}")
    if source._data.dtype != self._data.dtype:
        raise RuntimeError(f"{name}_(): self ({_dtype_name(self)}) and source "
                           f"({_dtype_name(source)}) must have the same scalar type")
    if not source.dim() and self.dim() > (1 if name == "index_copy" else 0):
        # a 0-d source fills one slice only of a 0-d (index_copy: 1-D) self, as PyTorch
        if name == "index_copy":
            rest = " ".join(str(n) for i, n in enumerate(self.shape) if i != d)
            raise RuntimeError(f"index_copy_(): Source/destination tensor must have same "
                               f"slice shapes. Destination slice shape: {rest} at dimension "
                               f"{d} and source slice shape:  at dimension 0.")
        if d > 0:
            raise RuntimeError(f"index_add_(): Indexing dim {d} is out of bounds of the "
                               f"source tensor with dim 0")
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding "
                           f"the specified dimension. Got self.shape = {list(self.shape)} "
                           f"source.shape = []")
    ns = source._data.shape[d] if source.dim() else 1
    if index.numel() != ns:
        err = IndexError if name == "index_copy" else RuntimeError
        tail = f", for dim: {d}" if name == "index_add" else ""
        raise err(f"{name}_(): Number of indices ({index.numel()}) should be equal to "
                  f"source.size(dim){sep} ({ns}){tail}")
    want = list(self.shape)
    if want:
        want[d] = ns
    if source.dim() and list(source.shape) != want:
        raise RuntimeError(f"{name}_(): source {list(source.shape)} must have the shape of "
                           f"self {list(self.shape)} except at dim {d} (size {ns})")


def _check_mask(mask, name):
    if not isinstance(mask, Tensor) or mask._data.dtype.kind != "b":
        if name == "masked_scatter_" and isinstance(mask, Tensor):   # (its own words)
            raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask "
                               f"with dtype {torch_type_name(mask._data.dtype)}")
        raise RuntimeError(f"{name}: expected BoolTensor for mask")
    return mask


def _value(value, name):
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"{name} only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.dim()} dimension(s).")
    return value


# -- the functions and methods ---------------------------------------------------------------

@method("index_select")
def index_select(self, dim, index):
    """The slices of ``self`` along ``dim`` at the positions in ``index`` (a 1-D int
    tensor), in that order, repeats allowed: a copy (``torch.index_select``). Autograd
    records ``IndexSelectBackward0``, whose backward index_adds the gradient into zeros
    (repeated positions add up)."""
    d, index = _check_index(self, dim, index, "index_select")
    return show_given(dispatch(INDEX_SELECT, (self, index), (d,)), "dim", dim, d)


def _index_add_args(self, dim, index, source, name, alpha=1):
    d, index = _check_index(self, dim, index, name, alpha)
    _check_source(self, d, index, source, name)
    return d, index


@method("index_add")
def index_add(self, dim, index, source, alpha=1):
    """A copy of ``self`` with ``alpha * source[i]`` added to the slice ``index[i]``
    along ``dim`` (repeated indices add up): ``torch.index_add``, node
    ``IndexAddBackward0`` (the source's gradient is ``grad.index_select(dim, index)``)."""
    d, index = _index_add_args(self, dim, index, source, "index_add", alpha)
    return show_given(dispatch(INDEX_ADD, (self, index, source), (d, alpha, source.dim())),
                      "dim", dim, d)


@method("index_add_")
def index_add_(self, dim, index, source, alpha=1):
    """In-place ``index_add`` (``torch.Tensor.index_add_``): bumps the version counter;
    on a view, the base's history becomes a CopySlices wrapping ``IndexAddBackward0``."""
    d, index = _index_add_args(self, dim, index, source, "index_add", alpha)
    return apply_inplace(INDEX_ADD, self, (index, source), (d, alpha, source.dim()),
                         name="index_add_")


@method("index_copy")
def index_copy(self, dim, index, source):
    """A copy of ``self`` with the slice ``index[i]`` along ``dim`` replaced by
    ``source[i]`` (``torch.index_copy``; with repeated indices one of them wins). Node
    ``IndexCopyBackward0``: the overwritten slices get no gradient, the source gets theirs."""
    d, index = _check_index(self, dim, index, "index_copy")
    _check_source(self, d, index, source, "index_copy", sep="")
    return dispatch(INDEX_COPY, (self, index, source), (d, source.dim()))


@method("index_copy_")
def index_copy_(self, dim, index, source):
    """In-place ``index_copy`` (``torch.Tensor.index_copy_``), through the in-place choke
    point (version bump; CopySlices when ``self`` is a view)."""
    d, index = _check_index(self, dim, index, "index_copy")
    _check_source(self, d, index, source, "index_copy", sep="")
    return apply_inplace(INDEX_COPY, self, (index, source), (d, source.dim()),
                         name="index_copy_")


def _index_fill(self, dim, index, value, inplace):
    d, index = _check_index(self, dim, index, "index_fill")
    value = _value(value, "index_fill_")
    run = (lambda op, ins, attrs: apply_inplace(op, self, ins[1:], attrs,
                                                name="index_fill_")) if inplace else \
        (lambda op, ins, attrs: dispatch(op, ins, attrs))
    if isinstance(value, Tensor):
        if value._data.dtype != self._data.dtype:
            value = value.to(self.dtype)
        return run(INDEX_FILL_T, (self, index, value), (d,))
    return run(INDEX_FILL, (self, index), (value, d))


@method("index_fill")
def index_fill(self, dim, index, value):
    """A copy of ``self`` with the slices ``index`` along ``dim`` set to ``value`` (a
    number, or a 0-dim tensor that then gets the sum of their gradients):
    ``torch.index_fill``, nodes ``IndexFillBackward0`` / ``IndexFillBackward1``."""
    return _index_fill(self, dim, index, value, False)


@method("index_fill_")
def index_fill_(self, dim, index, value):
    """In-place ``index_fill`` (``torch.Tensor.index_fill_``), through the choke point."""
    return _index_fill(self, dim, index, value, True)


@method("masked_select")
def masked_select(self, mask):
    """The elements of ``self`` where the boolean ``mask`` (broadcast with ``self``) is
    True, as a 1-D copy in row-major order (``torch.masked_select``). Its backward
    (``MaskedSelectBackward0``) scatters the gradient back into zeros."""
    _check_mask(mask, "masked_select")
    _broadcastable(mask, self)
    return dispatch(MASKED_SELECT, (self, mask))


def _broadcastable(a, b):
    try:
        B.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError:
        sa, sb = list(a.shape), list(b.shape)
        n = max(len(sa), len(sb))
        sa, sb = [1] * (n - len(sa)) + sa, [1] * (n - len(sb)) + sb
        for i in range(n - 1, -1, -1):
            if sa[i] != sb[i] and 1 not in (sa[i], sb[i]):
                raise RuntimeError(f"The size of tensor a ({sa[i]}) must match the size of "
                                   f"tensor b ({sb[i]}) at non-singleton dimension {i}"
                                   ) from None
    return True


def _masked_scatter_args(self, mask, source):
    _check_mask(mask, "masked_scatter_")
    _broadcastable(mask, self)
    if not isinstance(source, Tensor):
        raise TypeError(f"masked_scatter(): argument 'source' must be Tensor, not "
                        f"{type(source).__name__}")
    if source._data.dtype != self._data.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes "
                           f"but got{_dtype_name(self)} and {_dtype_name(source)}")


@method("masked_scatter")
def masked_scatter(self, mask, source):
    """A copy of ``self`` where the positions of True in ``mask`` take the elements of
    ``source`` in order (``torch.masked_scatter``; ``source`` needs at least as many
    elements as the mask has Trues). Node ``MaskedScatterBackward0``."""
    _masked_scatter_args(self, mask, source)
    return dispatch(MASKED_SCATTER, (self, mask, source))


@method("masked_scatter_")
def masked_scatter_(self, mask, source):
    """In-place ``masked_scatter`` (``torch.Tensor.masked_scatter_``): the mask broadcasts
    to ``self``'s shape, never the other way."""
    _masked_scatter_args(self, mask, source)
    if len(mask.shape) > self.dim() or B.broadcast_shapes(
            tuple(self.shape), tuple(mask.shape)) != tuple(self.shape):
        raise RuntimeError(f"masked_scatter_: the mask of shape {list(mask.shape)} cannot be "
                           f"expanded to self's shape {list(self.shape)}")
    return apply_inplace(MASKED_SCATTER, self, (mask, source), name="masked_scatter_")


@method("nonzero")
def nonzero(self, *, as_tuple=False):
    """The indices of the non-zero elements: an int64 tensor of shape ``(n, ndim)``, or
    with ``as_tuple=True`` one 1-D index tensor per dimension (what ``x[x.nonzero(
    as_tuple=True)]`` indexes with). Not differentiable (integers), as ``torch.nonzero``."""
    xp = self._device.xp
    d = self._data if self.dim() else self._data.reshape(1)
    idx = xp.argwhere(d != 0).astype(B.int64)
    if as_tuple:
        return tuple(Tensor._make(xp.ascontiguousarray(idx[:, i]), self._device)
                     for i in range(idx.shape[1]))
    if not self.dim():
        idx = idx[:, :0]
    return Tensor._make(xp.ascontiguousarray(idx), self._device)


@method("argwhere")
def argwhere(self):
    """``nonzero()``: the ``(n, ndim)`` int64 indices of the non-zero elements
    (``torch.argwhere``)."""
    return nonzero(self)


# -- in-place scatter -------------------------------------------------------------------------

def _no_derivative(grad):
    raise RuntimeError("derivative for aten::scatter is not implemented")


def _scatter_reduce_fwd(self, index, src, dim, reduce):
    xp = B.xp_of(self)
    out = self.copy()
    if not hasattr(src, "shape") or src.shape == ():
        src = xp.broadcast_to(xp.asarray(src, dtype=self.dtype), index.shape)
    at = B.add_at if reduce == "add" else B.multiply_at
    at(out, _full_index(xp, index, dim), src[tuple(_builtin_slice(0, n) for n in index.shape)].astype(
        self.dtype))
    return out


# scatter(..., reduce='add'|'multiply'), PyTorch's deprecated form: it has no derivative,
# so autograd records a node named NotImplemented whose backward raises (as PyTorch).
# Not a row of the derivatives table (nothing to gradcheck): an OpDef of its own.
SCATTER_REDUCE_LEGACY = OpDef("scatter_reduce_legacy", "NotImplemented", _scatter_reduce_fwd,
                              ("self", "index", "src"), ("dim", "reduce"),
                              {"self": _no_derivative, "src": _no_derivative}, False, False,
                              False, None, None)


def _scatter_reduce(self, d, index, src, reduce, inplace):
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if inplace:
        return apply_inplace(SCATTER_REDUCE_LEGACY, self, (index, src), (d, reduce),
                             name="scatter_")
    return dispatch(SCATTER_REDUCE_LEGACY, (self, index, src), (d, reduce))


def _scatter_inplace(self, dim, index, src, op_name, reduce=None):
    from . import reduce as R
    d = R._check_index(self, dim, index, "scatter")
    R.check_index_shape(self, d, index, src)
    R.check_bounds(self, d, index)
    if isinstance(src, Tensor):
        R._same_dtype(self, src)   # (PyTorch's scatter_ casts no src)
    if reduce is not None:
        return _scatter_reduce(self, d, index, src, reduce, True)
    if op_name == "scatter_add_":
        return apply_inplace(R.SCATTER_ADD, self, (index, src), (d,), name=op_name)
    if isinstance(src, Tensor):
        return apply_inplace(R.SCATTER, self, (index, src), (d,), name=op_name)
    return apply_inplace(R.SCATTER_VALUE, self, (index,), (src, d), name=op_name)


@method("scatter_")
def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    """In-place ``scatter``: writes ``src`` (a tensor, or a number: ``value``) along
    ``dim`` at ``index`` into ``self`` (``torch.Tensor.scatter_``). Nodes
    ``ScatterBackward0`` (tensor src) / ``ScatterBackward1`` (a number); on a view, the
    base's history becomes a CopySlices around it. ``reduce='add'|'multiply'`` combines
    the values instead (no derivative: node ``NotImplemented``, as in PyTorch)."""
    return _scatter_inplace(self, dim, index, value if src is None else src, "scatter_",
                            reduce)


@method("scatter_add_")
def scatter_add_(self, dim, index, src):
    """In-place ``scatter_add``: adds ``src`` along ``dim`` at ``index`` into ``self``,
    repeated indices adding up (``torch.Tensor.scatter_add_``, ``ScatterAddBackward0``)."""
    return _scatter_inplace(self, dim, index, src, "scatter_add_")
