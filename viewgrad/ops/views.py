"""View ops (DESIGN §3): the output shares memory with its input.

view, reshape (a view when the strides allow, else a copy, as PyTorch), flatten, unflatten,
view_as, as_strided, select, narrow/slice, diagonal, unsqueeze, squeeze, transpose, t,
permute, movedim, expand, expand_as, broadcast_to, unfold. Every view is recorded with its
base and a replay link (see autograd/views.py). The multi-output views (split, chunk,
unbind) are in ops/splitting.py; ``x[...]`` indexing is in ops/indexing.py.

Backward formulas of views that pick a region (select, slice, diagonal) write the
gradient into zeros of the input's shape: ``select_backward`` & co. are ops themselves
(``SelectBackwardBackward0``...), whose backward is the view again — double backward.
Views that may overlap (as_strided, unfold) scatter-ADD through flat indices with
``take`` / ``put`` (ops/flat.py).
"""
from __future__ import annotations

import builtins as _builtins
import operator

from .. import backend as B
from .. import layouts as _L
from ..autograd.views import make_view, strided_region
from ..autograd.inplace_lean import lean_select
from ..autograd.saved_names import show_as, show_given
from ..autograd.views_fast import select_geometry, slice_geometry
from ..tensor import Tensor, _unique_dims, _wrap_dim
from .flat import put, take
from .memory import view_dtype as _view_dtype
from .operands import invalid_combination
from .table import defop, dispatch, dispatch_view, method, sum_to, unpack_args

__all__ = ["view", "reshape", "as_strided", "select", "narrow", "slice", "unsqueeze",
           "squeeze", "transpose", "t", "permute", "movedim", "expand", "expand_as",
           "broadcast_to", "diagonal", "unfold", "flatten", "unflatten", "view_as",
           "reshape_as"]

_xp = B.xp_of
_builtin_slice = _builtins.slice   # this module defines its own `slice` (the view op)
builtins_max = _builtins.max
builtins_min = _builtins.min

def _infer_shape(shape, numel, what="view"):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return tuple(shape)


# -- the view ops ------------------------------------------------------------------------

def _view_fwd(self, shape):
    v = B.reshape_view(self, shape)
    if v is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return v


VIEW = defop("view", "ViewBackward0", _view_fwd, attrs=("shape",), view=True,
             self=lambda grad, self_shape: grad.reshape(self_shape))
# PyTorch's reshape of a tensor it can view without copying is a view: ``view`` when the
# tensor is contiguous, else its private ``_reshape_alias`` (node ReshapeAliasBackward0).
RESHAPE_ALIAS = defop("_reshape_alias", "ReshapeAliasBackward0", _view_fwd, attrs=("shape",),
                      view=True, self=lambda grad, self_shape: grad.reshape(self_shape))
# (``_unsafe_view`` is ``view`` without the view's autograd meaning: the result shares
# memory but not the version counter, and is refused where ``view`` is, as PyTorch's)
UNSAFE_VIEW = defop("_unsafe_view", "UnsafeViewBackward0", _view_fwd, attrs=("shape",),
                    self=lambda grad, self_shape: grad.reshape(self_shape))


@method("view")
def view(self, *shape, size=None, dtype=None):
    if dtype is not None and not shape and size is None:
        return _view_dtype(self, dtype)
    if len(shape) == 1 and dtype is None and size is None and B.is_dtype_like(shape[0]):
        return _view_dtype(self, shape[0])   # Note [a view as another dtype] (memory.py)
    shape = unpack_args(shape, size, "size", "view")
    if len(shape) == 1 and not isinstance(shape[0], int):
        raise TypeError(f"view(): expected a shape or a dtype, got {shape[0]!r}")
    shape = _infer_shape(shape, self.numel())
    return dispatch_view(VIEW, self, (shape,), (view, (shape,)))


@method("reshape")
def reshape(self, *shape, **kw):
    if kw.keys() - {"shape"}:
        raise TypeError(f"reshape() got an unexpected keyword argument "
                        f"'{sorted(kw.keys() - {'shape'})[0]}'")
    shape = _infer_shape(unpack_args(shape, kw.get("shape"), "shape", "reshape"), self.numel())
    if B.reshape_view(self._data, shape) is not None:
        return dispatch_view(VIEW if self.is_contiguous() else RESHAPE_ALIAS, self, (shape,),
                             (view, (shape,)))
    return dispatch(UNSAFE_VIEW, (self.clone(memory_format=B.contiguous_format),), (shape,))


@method("view_as")
def view_as(self, other):
    return view(self, tuple(other.shape))


@method("reshape_as")
def reshape_as(self, other):
    return reshape(self, tuple(other.shape))


@method("flatten")
def flatten(self, start_dim=0, end_dim=-1):
    if self.dim() == 0:
        return reshape(self, (1,))
    s = _wrap_dim(start_dim, self.dim())
    e = _wrap_dim(end_dim, self.dim())
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    shape = self._data.shape
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    # (the method: a row-major tensor's reshape in one body, Note [lean views])
    return self.reshape(shape[:s] + (n,) + shape[e + 1:])


@method("unflatten")
def unflatten(self, dim, sizes):
    d = _wrap_dim(dim, self.dim())
    shape = tuple(self.shape)
    sizes = tuple(sizes)
    known = 1
    for s in sizes:
        known *= s if s != -1 else 1
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be "
                           "inferred")
    if known == 0 and -1 in sizes and shape[d] == 0:
        raise RuntimeError(f"unflatten got an unexpected error:\ncannot reshape tensor of 0 "
                           f"elements into shape {list(sizes)} because the unspecified "
                           f"dimension size -1 can be any value and is ambiguous")
    if (known != shape[d] if -1 not in sizes else (known == 0 or shape[d] % known)):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {d} ({shape[d]}) in the input tensor")
    if -1 in sizes:   # inferred from dim d alone (the view of an empty tensor could not)
        sizes = tuple(shape[d] // known if s == -1 else s for s in sizes)
    return view(self, shape[:d] + sizes + shape[d + 1:])


# as_strided: relative to the STORAGE, like PyTorch.
#
# Note [as_strided's backward]
# The gradient of ``x.as_strided(size, stride, offset)`` for x is made in a storage of its
# own, as PyTorch's as_strided_backward makes it: a zero storage spanning both geometries
# (from the lower of the two offsets to the furthest element either reaches), the
# gradient written into it through the output's geometry, and x's gradient read out of
# it through x's own geometry. When neither geometry can overlap itself (PyTorch's
# ``_maybe_overlapping_memory``; an output dim expanded with stride 0 is summed away
# first, as PyTorch does) that is a plain write and a view: no index arrays. Otherwise
# the general way: storage indices of every element, the gradient scattered with
# accumulation (elements the output repeats add up), and divided where x's own elements
# share storage (an expanded x sees each storage element once per alias; its expand's
# backward adds them back up). A stale view's regenerated ``AsStridedBackward0`` (Note
# [stale views], autograd/views.py) takes the plain way: its geometries are a view's.

def _geometry_indices(xp, sizes, strides, offset):
    idx = xp.asarray(offset, dtype=B.int64)
    for i, (sz, st) in enumerate(zip(sizes, strides)):
        shp = [1] * len(sizes)
        shp[i] = sz
        idx = idx + xp.arange(sz, dtype=B.int64).reshape(shp) * st
    return xp.broadcast_to(idx, tuple(sizes)) if sizes else idx.reshape(())


def _extent(sizes, strides, offset):
    """One past the furthest storage element a geometry reaches (``offset`` when empty)."""
    if not all(sizes):
        return offset
    return offset + 1 + sum((sz - 1) * st for sz, st in zip(sizes, strides))


def as_strided_plan(size, stride, storage_offset, in_geom):
    """The plain way of Note [as_strided's backward], or None (the general way):
    ``(sum_dims, out_stride, out_offset, in_offset, n)`` — the output dims to sum (stride
    0, size > 1; kept, of size 1), the output's strides then, the two offsets into a
    storage of ``n`` elements."""
    in_sizes, in_strides, in_offset = in_geom
    if not all(size) or not all(in_sizes):
        return None
    sum_dims = tuple(d for d, (sz, st) in enumerate(zip(size, stride)) if st == 0 and sz > 1)
    out_size = tuple(1 if d in sum_dims else sz for d, sz in enumerate(size))
    if _L.maybe_overlapping(out_size, stride) or _L.maybe_overlapping(in_sizes, in_strides):
        return None
    lo = min(storage_offset, in_offset)
    n = max(_extent(out_size, stride, storage_offset), _extent(in_sizes, in_strides,
                                                                in_offset)) - lo
    return sum_dims, tuple(stride), storage_offset - lo, in_offset - lo, n


def _as_strided_bwd(grad, size, stride, storage_offset, _in_geom):
    from .factories import zeros
    in_sizes, in_strides, in_offset = _in_geom
    xp = grad._device.xp
    plan = as_strided_plan(size, stride, storage_offset, _in_geom) if (
        grad._device.as_strided is not None) else None
    if plan is not None:   # Note [as_strided's backward]: a write, then a view
        sum_dims, out_stride, out_offset, in_off, n = plan
        g = grad.sum(sum_dims, keepdim=True) if sum_dims else grad
        storage = zeros((n,), dtype=grad.dtype, device=grad.device)
        storage.as_strided(tuple(g.shape), out_stride, out_offset).copy_(g)
        return storage.as_strided(tuple(in_sizes), tuple(in_strides), in_off)
    out_idx = _geometry_indices(xp, size, stride, storage_offset)
    in_idx = _geometry_indices(xp, in_sizes, in_strides, in_offset)
    n = 1 + builtins_max(int(out_idx.max()) if out_idx.size else 0,
                         int(in_idx.max()) if in_idx.size else 0)
    storage = put(zeros((n,), dtype=grad.dtype, device=grad.device),
                  Tensor._make(out_idx, grad._device), grad, accumulate=True)
    # An input whose elements share memory (an expanded input: stride 0) sees each storage
    # element several times; PyTorch's as_strided_backward divides each storage gradient
    # by that count, so that the input's own backward (expand: a sum) adds it up once.
    count = xp.bincount(in_idx.reshape(-1), minlength=n) if in_idx.size else None
    if count is not None and int(count.max()) > 1:
        storage = storage / Tensor._make(xp.maximum(count, 1).astype(grad.dtype),
                                         grad._device)
    return take(storage, Tensor._make(in_idx, grad._device))


def as_strided_grad(grad, size, stride, storage_offset, _in_geom):
    """``_as_strided_bwd`` on arrays (the plain backward's kernel, ops/fast.py): the plain
    way of Note [as_strided's backward] written out, the formula itself otherwise."""
    dev = B.device_of_array(grad)
    plan = as_strided_plan(size, stride, storage_offset, _in_geom) if (
        dev is not None and dev.as_strided is not None) else None
    if plan is None:
        return _as_strided_bwd(Tensor._make(grad, dev or B.cpu), size, stride,
                               storage_offset, _in_geom)._data
    sum_dims, out_stride, out_offset, in_off, n = plan
    xp = dev.xp
    g = grad.sum(axis=sum_dims, keepdims=True) if sum_dims else grad
    storage = xp.zeros((n,), dtype=grad.dtype)
    item = storage.itemsize
    B.strided_in(dev, storage, g.shape, tuple(st * item for st in out_stride),
                 out_offset)[...] = g
    in_sizes, in_strides, _ = _in_geom
    return B.strided_in(dev, storage, tuple(in_sizes), tuple(st * item for st in in_strides),
                        in_off)


def _as_strided_fwd(self, size, stride, storage_offset, _in_geom):
    raise AssertionError("as_strided is computed from the storage in as_strided()")


# (the input's geometry is viewgrad's own, for the formula: PyTorch's node reads it off
# the input's TensorGeometry, which it does not show; Note [hidden saved values])
AS_STRIDED = defop("as_strided", "AsStridedBackward0", _as_strided_fwd,
                   attrs=("size", "stride", "storage_offset", "_in_geom"), view=True,
                   self=_as_strided_bwd)


def as_strided_bounds(self, size, stride, storage_offset):
    """PyTorch's setStorage check: the geometry must fit in self's storage."""
    isz = self._data.itemsize
    need = _extent(size, stride, storage_offset) if all(size) else 0
    have = int(self._storage.size)
    if need > have or storage_offset < 0 or any(s < 0 for s in stride):
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
            f"{storage_offset}, and itemsize {isz} requiring a storage size of {need * isz} "
            f"are out of bounds for storage of size {have * isz}")


@method("as_strided")
def as_strided(self, size, stride, storage_offset=None):
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape ({len(stride)} vs "
                           f"{len(size)})")
    given = storage_offset
    if storage_offset is None:
        storage_offset = self.storage_offset()
    as_strided_bounds(self, size, stride, storage_offset)
    data = strided_region(self, size, stride, storage_offset)
    in_geom = (tuple(self._data.shape), self.stride(), self.storage_offset())
    attrs = (size, stride, storage_offset, in_geom)
    out = make_view(AS_STRIDED, self, data, attrs, (as_strided, (size, stride,
                                                                 storage_offset)))
    # PyTorch's node keeps the offset as given: None when not (Note [dims as given])
    return out if given is not None else show_as(out, "storage_offset", None)


# select / slice / diagonal: region views; backward writes grad into zeros.

def _region_backward(view_fn):
    """Forward of 'zeros(input_shape) with grad written into view_fn(zeros)'."""
    def fwd(grad, input_shape, *attrs):
        xp = _xp(grad)
        z = xp.zeros(input_shape, dtype=grad.dtype)
        view_fn(z, *attrs)[...] = grad
        return z
    return fwd


def _select_fwd(self, dim, index):
    return self[(_builtin_slice(None),) * dim + (index, Ellipsis)]  # Ellipsis: 0-d stays a view


def _slice_fwd(self, dim, start, end, step):
    return B.slice_view(self, dim, start, end, step)   # (Note [empty views], strided.py)


def _diag_fwd(self, offset, dim1, dim2):
    return B.diagonal_view(self, offset, dim1, dim2)


SELECT_BWD = defop("select_backward", "SelectBackwardBackward0", _region_backward(_select_fwd),
                   inputs=("grad",), attrs=("input_shape", "dim", "index"),
                   grad=lambda grad, dim, index: grad.select(dim, index))
SLICE_BWD = defop("slice_backward", "SliceBackwardBackward0", _region_backward(_slice_fwd),
                  inputs=("grad",), attrs=("input_shape", "dim", "start", "end", "step"),
                  grad=lambda grad, dim, start, end, step: slice(grad, dim, start, end, step))
DIAG_BWD = defop("diagonal_backward", "DiagonalBackwardBackward0", _region_backward(_diag_fwd),
                 inputs=("grad",), attrs=("input_shape", "offset", "dim1", "dim2"),
                 grad=lambda grad, offset, dim1, dim2: grad.diagonal(offset, dim1, dim2))

SELECT = defop("select", "SelectBackward0", _select_fwd, attrs=("dim", "index"), view=True,
               self=lambda grad, self_shape, dim, index:
               dispatch(SELECT_BWD, (grad,), (self_shape, dim, index)))
SLICE = defop("slice", "SliceBackward0", _slice_fwd, attrs=("dim", "start", "end", "step"),
              view=True,
              self=lambda grad, self_shape, dim, start, end, step:
              dispatch(SLICE_BWD, (grad,), (self_shape, dim, start, end, step)))
DIAGONAL = defop("diagonal", "DiagonalBackward0", _diag_fwd, attrs=("offset", "dim1", "dim2"),
                 view=True,
                 self=lambda grad, self_shape, offset, dim1, dim2:
                 dispatch(DIAG_BWD, (grad,), (self_shape, offset, dim1, dim2)))


@method("select")
def select(self, dim, index):
    shape = self._data.shape
    nd = len(shape)
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = dim if type(dim) is int and 0 <= dim < nd else _wrap_dim(dim, nd)
    n = shape[d]
    i = index if type(index) is int else operator.index(index)
    if not -n <= i < n:
        raise IndexError(f"select(): index {i} out of range for tensor of size "
                         f"{list(self.shape)} at dimension {d}")
    if i < 0:
        i += n
    data = self._data[i, ...] if d == 0 else _select_fwd(self._data, d, i)  # 0-d: a view
    args = (d, i)
    out = lean_select(SELECT, self, data, d, i, (select, args))   # Note [a select view in line]
    if out is None:
        out = make_view(SELECT, self, data, args, (select, args))
        if out._grad_fn is not None:  # Note [view geometry by arithmetic] (a tracked view)
            out._view_info.geom = select_geometry(self, out, d, i)
    if dim is not d:   # (shown as given: Note [dims as given])
        show_given(out, "dim", dim, d)
    return out


@method("slice")
def slice(self, dim=0, start=None, end=None, step=1):
    d = _wrap_dim(dim, self.dim())
    if step is None:
        step = 1
    if step <= 0:
        raise ValueError("step must be greater than zero")
    n = self._data.shape[d]
    given = (start, end)
    start, end, _ = _builtin_slice(start, end, step).indices(n)
    end = builtins_max(start, end)
    out = dispatch_view(SLICE, self, (d, start, end, step), (slice, (d, start, end, step)))
    if out._grad_fn is not None:  # Note [view geometry by arithmetic] (a tracked view only)
        out._view_info.geom = slice_geometry(self, out, d, start)
        # PyTorch's node keeps start and end as given (None: 0 and INT64_MAX), the
        # formula the clamped ones (Note [dims as given])
        show_given(out, "start", 0 if given[0] is None else given[0], start)
        show_given(out, "end", _INT64_MAX if given[1] is None else given[1], end)
    return out


_INT64_MAX = 2 ** 63 - 1


@method("narrow")
def narrow(self, dim, start, length):
    d = _wrap_dim(dim, self.dim())
    n = self._data.shape[d]
    # PyTorch's checks and exception types: IndexError for start, RuntimeError for length
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but "
                         f"got {start})")
    if start < 0:
        start += n
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({n}).")
    return show_given(slice(self, d, start, start + length, 1), "dim", dim, d)


@method("diagonal")
def diagonal(self, offset=0, dim1=0, dim2=1):
    d1 = _wrap_dim(dim1, self.dim())
    d2 = _wrap_dim(dim2, self.dim())
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    out = dispatch_view(DIAGONAL, self, (offset, d1, d2), (diagonal, (offset, d1, d2)))
    show_given(out, "dim1", dim1, d1)   # (Note [dims as given])
    return show_given(out, "dim2", dim2, d2)


# Shape-only views: their backward is another view or a reshape.

UNSQUEEZE = defop("unsqueeze", "UnsqueezeBackward0", lambda self, dim: B.unsqueeze_view(
    self, dim), attrs=("dim",), view=True, self=lambda grad, dim: grad.squeeze(dim))
SQUEEZE = defop("squeeze", "SqueezeBackward0", lambda self, dims: _xp(self).squeeze(
    self, axis=dims), attrs=("dims",), view=True,
    self=lambda grad, self_shape: grad.reshape(self_shape))
# squeeze(dim) and squeeze(dims): ``dim`` is the dims actually squeezed (those of size 1),
# shown as the caller gave them (Note [dims as given], autograd/saved_names.py)
SQUEEZE_DIM = defop("squeeze_dim", "SqueezeBackward1", lambda self, dim: _xp(self).squeeze(
    self, axis=dim), attrs=("dim",), view=True,
    self=lambda grad, self_shape, dim: grad.reshape(self_shape))
SQUEEZE_DIMS = defop("squeeze_dims", "SqueezeBackward2", lambda self, dim: _xp(self).squeeze(
    self, axis=dim), attrs=("dim",), view=True,
    self=lambda grad, self_shape, dim: grad.reshape(self_shape))


def squeeze_dims(self, dim):
    """The dims of ``self`` that ``squeeze(dim)`` removes (those of size 1 among ``dim``,
    an int or a sequence), sorted; PyTorch's error for a dim given twice."""
    ds = (dim,) if isinstance(dim, int) else tuple(dim)
    wrapped = _unique_dims([_wrap_dim(x, self.dim()) for x in ds])   # (0-d: 0 / -1)
    return tuple(sorted(d for d in wrapped if self.dim() and self._data.shape[d] == 1))
TRANSPOSE = defop("transpose", "TransposeBackward0", lambda self, d0, d1: _xp(self).swapaxes(
    self, d0, d1) if self.ndim else self[...], attrs=("dim0", "dim1"), view=True,
    self=lambda grad, dim0, dim1: grad.transpose(dim0, dim1))
T = defop("t", "TBackward0", lambda self: self.T, view=True, self=lambda grad: grad.t())
PERMUTE = defop("permute", "PermuteBackward0", lambda self, dims: _xp(self).transpose(
    self, dims), attrs=("dims",), view=True,
    self=lambda grad, dims: grad.permute(_inverse_perm(dims)))


def _inverse_perm(dims):
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    return tuple(inv)


def _expand_fwd(self, shape):
    # A writeable view with stride 0 on broadcast dims (not numpy's read-only
    # broadcast_to), so in-place writes reach check_inplace's overlap error, as in PyTorch.
    return B.expand_view(self, shape)


EXPAND = defop("expand", "ExpandBackward0", _expand_fwd, attrs=("shape",), view=True,
               self=lambda grad, self_shape: sum_to(grad, self_shape))


def _unfold_fwd(self, dim, size, step):
    return B.unfold_view(self, dim, size, step)


def _unfold_bwd(grad, self_shape, dimension, size, step):
    from .factories import zeros
    xp = grad._device.xp
    n = 1
    for s in self_shape:
        n *= s
    idx = _unfold_fwd(xp.arange(n, dtype=B.int64).reshape(self_shape), dimension, size, step)
    z = zeros((n,), dtype=grad.dtype, device=grad.device)
    return put(z, Tensor._make(xp.ascontiguousarray(idx), grad._device), grad,
               accumulate=True).reshape(self_shape)


UNFOLD = defop("unfold", "UnfoldBackward0", _unfold_fwd, attrs=("dimension", "size", "step"),
               view=True, self=_unfold_bwd)


@method("unsqueeze")
def unsqueeze(self, dim):
    d = _wrap_dim(dim, self.dim() + 1)
    return show_given(dispatch_view(UNSQUEEZE, self, (d,), (unsqueeze, (d,))), "dim", dim, d)


@method("squeeze")
def squeeze(self, dim=None):
    if dim is None:
        dims = tuple(i for i, s in enumerate(self._data.shape) if s == 1)
        return dispatch_view(SQUEEZE, self, (dims,), (squeeze, ()))
    dims = squeeze_dims(self, dim)
    op = SQUEEZE_DIM if isinstance(dim, int) else SQUEEZE_DIMS
    return show_given(dispatch_view(op, self, (dims,), (squeeze, (dim,))), "dim", dim,
                      None)   # (shown as given, always: Note [dims as given])


@method("transpose", "swapaxes", "swapdims")
def transpose(self, dim0, dim1):
    d0 = _wrap_dim(dim0, self.dim())   # a 0-d tensor accepts 0 / -1 (a view of itself)
    d1 = _wrap_dim(dim1, self.dim())
    out = dispatch_view(TRANSPOSE, self, (d0, d1), (transpose, (d0, d1)))
    show_given(out, "dim0", dim0, d0)   # (shown as given: Note [dims as given])
    return show_given(out, "dim1", dim1, d1)


@method("t")
def t(self):
    if self.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{self.dim()}D")
    return dispatch_view(T, self, (), (t, ()))


@method("permute")
def permute(self, *dims, **kw):
    if kw.keys() - {"dims"}:
        raise TypeError(f"permute() got an unexpected keyword argument "
                        f"'{sorted(kw.keys() - {'dims'})[0]}'")
    dims = unpack_args(dims, kw.get("dims"), "dims", "permute")
    if len(dims) != self.dim():
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input "
                           f"does not match the length of the desired ordering of dimensions "
                           f"i.e. input.dim() = {self.dim()} is not equal to len(dims) = "
                           f"{len(dims)}")
    dims = tuple(_wrap_dim(d, self.dim()) for d in dims)
    if sorted(dims) != list(range(self.dim())):
        raise RuntimeError(f"permute(): duplicate dims are not allowed. (dims {list(dims)} "
                           f"must be a permutation of the {self.dim()} dims of the input)")
    return dispatch_view(PERMUTE, self, (dims,), (permute, (dims,)))


@method("movedim", "moveaxis")
def movedim(self, source, destination):
    if isinstance(source, int) != isinstance(destination, int):   # both one dim, or lists
        raise TypeError(invalid_combination("movedim", (source, destination)))
    n = self.dim()
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [_wrap_dim(s, n) for s in src]
    dst = [_wrap_dim(d, n) for d in dst]
    if n == 0:  # a 0-d tensor moved "from 0 to 0": an alias, as PyTorch records it
        return self[...]
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} "
                           "dims)")
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    order = [o if o is not None else next(rest) for o in order]
    return permute(self, order)


@method("expand")
def expand(self, *sizes, size=None):
    shape = expanded_shape(self, list(unpack_args(sizes, size, "size", "expand")))
    return dispatch_view(EXPAND, self, (shape,), (expand, (shape,)))


def expanded_shape(self, sizes):
    """The shape ``self.expand(*sizes)`` has (-1 keeps a dim), after PyTorch's checks and
    in its words (an op that expands an operand first, as addmm its bias, asks here too)."""
    nd = self.dim()
    if len(sizes) < nd:
        raise RuntimeError(   # (PyTorch names the call: expand(torch.FloatTensor{[2, 3]}...)
            f"expand({B.dtype_name(self.dtype)}{{{list(self.shape)}}}, size={list(sizes)}): "
            f"the number of sizes provided ({len(sizes)}) must be greater or equal to the "
            f"number of dimensions in the tensor ({nd})")
    lead = len(sizes) - nd
    shape = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"expand: -1 is not allowed in a leading, non-existing "
                                   f"dimension {i}")
            shape.append(s)
            continue
        cur = self._data.shape[i - lead]
        if s == -1:
            s = cur
        if cur != s and cur != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) "
                f"at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                f"{list(self.shape)}")
        shape.append(s)
    return tuple(shape)


@method("expand_as")
def expand_as(self, other):
    return expand(self, tuple(other.shape))


@method("broadcast_to")
def broadcast_to(self, shape):
    return expand(self, (shape,) if isinstance(shape, int) else tuple(shape))


@method("unfold")
def unfold(self, dimension, size, step):
    d = _wrap_dim(dimension, self.dim()) if self.dim() else 0
    n = self._data.shape[d] if self.dim() else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is "
                           f"{size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return dispatch_view(UNFOLD, self, (d, size, step), (unfold, (d, size, step)))
