"""View ops (DESIGN §3) and the other shape ops: cat, stack, getitem.

A view op returns a tensor sharing memory with its input: view, reshape (a view when the
strides allow, else a copy, as PyTorch), as_strided, select, narrow/slice, unsqueeze,
squeeze, transpose, t, permute, movedim, expand, expand_as, diagonal, unfold, flatten,
view_as, and the multi-output split, chunk, unbind. Every view is recorded with its base
and a replay link (see autograd/views.py).

Backward formulas of views that pick a region (select, slice, diagonal) write the
gradient into zeros of the input's shape: ``select_backward`` & co. are ops themselves
(``SelectBackwardBackward0``...), whose backward is the view again — double backward.
Views that may overlap (as_strided, unfold) scatter-ADD through flat indices with
``take`` / ``put``.
"""
from __future__ import annotations

import builtins as _builtins
import operator

from .. import backend as B
from ..autograd.state import state as _st
from ..autograd.graph import Node
from ..autograd.views import CreationMeta, make_view
from ..tensor import Tensor, _wrap_dim
from .table import defop, dispatch, dispatch_view, method, sum_to, unpack_args, _edges

__all__ = ["view", "reshape", "as_strided", "select", "narrow", "slice", "unsqueeze",
           "squeeze", "transpose", "t", "permute", "movedim", "expand", "expand_as",
           "diagonal", "unfold", "flatten", "view_as", "split", "chunk", "unbind", "cat",
           "stack", "take", "put", "getitem"]

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
UNSAFE_VIEW = defop("_unsafe_view", "UnsafeViewBackward0",
                    lambda self, shape: self.reshape(shape), attrs=("shape",),
                    self=lambda grad, self_shape: grad.reshape(self_shape))


@method("view")
def view(self, *shape):
    shape = unpack_args(shape)
    if len(shape) == 1 and not isinstance(shape[0], int):  # view(dtype) is not supported
        raise TypeError(f"view(): expected a shape, got {shape[0]!r}")
    shape = _infer_shape(shape, self.numel())
    return dispatch_view(VIEW, self, (shape,), (view, (shape,)))


@method("reshape")
def reshape(self, *shape):
    shape = _infer_shape(unpack_args(shape), self.numel())
    if B.reshape_view(self._data, shape) is not None:
        return dispatch_view(VIEW, self, (shape,), (view, (shape,)))
    return dispatch(UNSAFE_VIEW, (self.clone(memory_format="contiguous"),), (shape,))


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
    shape = tuple(self.shape)
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return reshape(self, shape[:s] + (n,) + shape[e + 1:])


@method("unflatten")
def unflatten(self, dim, sizes):
    d = _wrap_dim(dim, self.dim())
    shape = tuple(self.shape)
    return view(self, shape[:d] + tuple(sizes) + shape[d + 1:])


# as_strided: relative to the STORAGE, like PyTorch. Its backward scatters through flat
# storage indices so overlapping geometries accumulate correctly.

def _geometry_indices(xp, sizes, strides, offset):
    idx = xp.asarray(offset, dtype=B.int64)
    for i, (sz, st) in enumerate(zip(sizes, strides)):
        shp = [1] * len(sizes)
        shp[i] = sz
        idx = idx + xp.arange(sz, dtype=B.int64).reshape(shp) * st
    return xp.broadcast_to(idx, tuple(sizes)) if sizes else idx.reshape(())


def _as_strided_bwd(grad, size, stride, storage_offset, in_geom):
    from .factories import zeros
    in_sizes, in_strides, in_offset = in_geom
    xp = grad._device.xp
    out_idx = _geometry_indices(xp, size, stride, storage_offset)
    in_idx = _geometry_indices(xp, in_sizes, in_strides, in_offset)
    n = 1 + builtins_max(int(out_idx.max()) if out_idx.size else 0,
                         int(in_idx.max()) if in_idx.size else 0)
    storage = put(zeros((n,), dtype=grad.dtype, device=grad.device),
                  Tensor._make(out_idx, grad._device), grad, accumulate=True)
    return take(storage, Tensor._make(in_idx, grad._device))


def _as_strided_fwd(self, size, stride, storage_offset, in_geom):
    raise AssertionError("as_strided is computed from the storage in as_strided()")


AS_STRIDED = defop("as_strided", "AsStridedBackward0", _as_strided_fwd,
                   attrs=("size", "stride", "storage_offset", "in_geom"), view=True,
                   self=_as_strided_bwd)


def strided_region(t, size, stride, storage_offset):
    """The array with geometry (size, stride, storage_offset) over t's storage (no
    bounds check: as_strided does it)."""
    dev = t._device
    if dev.as_strided is None:
        raise RuntimeError(f"as_strided is not supported on device {dev.type}; use view "
                           "replay (viewgrad.autograd.set_view_replay(True))")
    storage = t._storage
    isz = storage.itemsize
    flat = dev.as_strided(storage, (int(storage.size),), (isz,))
    return dev.as_strided(flat[storage_offset:], size, tuple(s * isz for s in stride))


@method("as_strided")
def as_strided(self, size, stride, storage_offset=None):
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape ({len(stride)} vs "
                           f"{len(size)})")
    if storage_offset is None:
        storage_offset = self.storage_offset()
    dev = self._device
    isz = self._data.itemsize
    storage = self._storage
    need = (storage_offset + 1 + sum((a - 1) * b for a, b in zip(size, stride))) if all(
        size) else 0
    have = int(storage.size)
    if need > have or storage_offset < 0 or any(s < 0 for s in stride):
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
            f"{storage_offset}, and itemsize {isz} requiring a storage size of {need * isz} "
            f"are out of bounds for storage of size {have * isz}")
    data = strided_region(self, size, stride, storage_offset)
    in_geom = (tuple(self._data.shape), self.stride(), self.storage_offset())
    attrs = (size, stride, storage_offset, in_geom)
    return make_view(AS_STRIDED, self, data, attrs, (as_strided, (size, stride,
                                                                  storage_offset)))


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
    return self[(_builtin_slice(None),) * dim + (_builtin_slice(start, end, step),)]


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
    if self.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, self.dim())
    n = self._data.shape[d]
    i = operator.index(index)
    if not -n <= i < n:
        raise IndexError(f"select(): index {i} out of range for tensor of size "
                         f"{list(self.shape)} at dimension {d}")
    if i < 0:
        i += n
    return dispatch_view(SELECT, self, (d, i), (select, (d, i)))


@method("slice")
def slice(self, dim=0, start=None, end=None, step=1):
    d = _wrap_dim(dim, self.dim())
    if step is None:
        step = 1
    if step <= 0:
        raise ValueError("step must be greater than zero")
    n = self._data.shape[d]
    start, end, _ = _builtin_slice(start, end, step).indices(n)
    end = builtins_max(start, end)
    return dispatch_view(SLICE, self, (d, start, end, step), (slice, (d, start, end, step)))


@method("narrow")
def narrow(self, dim, start, length):
    d = _wrap_dim(dim, self.dim())
    n = self._data.shape[d]
    if start < 0:
        start += n
    if not (0 <= start <= n and 0 <= length and start + length <= n):
        raise IndexError(f"narrow(): start ({start}) + length ({length}) exceeds dimension "
                         f"size ({n}).")
    return slice(self, d, start, start + length, 1)


@method("diagonal")
def diagonal(self, offset=0, dim1=0, dim2=1):
    d1 = _wrap_dim(dim1, self.dim())
    d2 = _wrap_dim(dim2, self.dim())
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return dispatch_view(DIAGONAL, self, (offset, d1, d2), (diagonal, (offset, d1, d2)))


# Shape-only views: their backward is another view or a reshape.

UNSQUEEZE = defop("unsqueeze", "UnsqueezeBackward0", lambda self, dim: _xp(self).expand_dims(
    self, dim), attrs=("dim",), view=True, self=lambda grad, dim: grad.squeeze(dim))
SQUEEZE = defop("squeeze", "SqueezeBackward0", lambda self, dims: _xp(self).squeeze(
    self, axis=dims), attrs=("dims",), view=True,
    self=lambda grad, self_shape: grad.reshape(self_shape))
SQUEEZE_DIM = defop("squeeze_dim", "SqueezeBackward1", lambda self, dims: _xp(self).squeeze(
    self, axis=dims), attrs=("dims",), view=True,
    self=lambda grad, self_shape: grad.reshape(self_shape))
TRANSPOSE = defop("transpose", "TransposeBackward0", lambda self, d0, d1: _xp(self).swapaxes(
    self, d0, d1), attrs=("dim0", "dim1"), view=True,
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
    return dispatch_view(UNSQUEEZE, self, (d,), (unsqueeze, (d,)))


@method("squeeze")
def squeeze(self, dim=None):
    if dim is None:
        dims = tuple(i for i, s in enumerate(self._data.shape) if s == 1)
        return dispatch_view(SQUEEZE, self, (dims,), (squeeze, ()))
    ds = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(d for d in (_wrap_dim(x, self.dim()) for x in ds) if self._data.shape[d] == 1)
    return dispatch_view(SQUEEZE_DIM, self, (dims,), (squeeze, (dim,)))


@method("transpose", "swapaxes", "swapdims")
def transpose(self, dim0, dim1):
    if self.dim() == 0:
        return view(self, ())
    d0 = _wrap_dim(dim0, self.dim())
    d1 = _wrap_dim(dim1, self.dim())
    return dispatch_view(TRANSPOSE, self, (d0, d1), (transpose, (d0, d1)))


@method("t")
def t(self):
    if self.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{self.dim()}D")
    return dispatch_view(T, self, (), (t, ()))


@method("permute")
def permute(self, *dims):
    dims = tuple(_wrap_dim(d, self.dim()) for d in unpack_args(dims))
    if sorted(dims) != list(range(self.dim())):
        raise RuntimeError(f"permute(): dims {list(dims)} are not a permutation of the "
                           f"{self.dim()} dims of the input")
    return dispatch_view(PERMUTE, self, (dims,), (permute, (dims,)))


@method("movedim", "moveaxis")
def movedim(self, source, destination):
    n = self.dim()
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [_wrap_dim(s, n) for s in src]
    dst = [_wrap_dim(d, n) for d in dst]
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    order = [o if o is not None else next(rest) for o in order]
    return permute(self, order)


@method("expand")
def expand(self, *sizes):
    sizes = list(unpack_args(sizes))
    nd = self.dim()
    if len(sizes) < nd:
        raise RuntimeError(
            f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to "
            f"the number of dimensions in the tensor ({nd})")
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
    shape = tuple(shape)
    return dispatch_view(EXPAND, self, (shape,), (expand, (shape,)))


@method("expand_as")
def expand_as(self, other):
    return expand(self, tuple(other.shape))


@method("broadcast_to")
def broadcast_to(self, shape):
    return expand(self, tuple(shape))


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


# -- multi-output views: split / chunk / unbind --------------------------------------------
# One node for all outputs; each output is a view with creation_meta MULTI_OUTPUT_NODE,
# so an in-place op on one of them is an error (PyTorch).

def _split_bwd(grads, self_shape, dim, sizes, dtype, device):
    from .factories import zeros
    parts = []
    for g, s in zip(grads, sizes):
        if g is None:
            shp = list(self_shape)
            shp[dim] = s
            g = zeros(tuple(shp), dtype=dtype, device=device)
        parts.append(g)
    return cat(parts, dim)


def _unbind_bwd(grads, self_shape, dim, dtype, device):
    from .factories import zeros
    shp = tuple(s for i, s in enumerate(self_shape) if i != dim)
    return stack([g if g is not None else zeros(shp, dtype=dtype, device=device)
                  for g in grads], dim)


SPLIT = defop("split", "SplitBackward0", None, attrs=("dim", "sizes", "dtype", "device"),
              view=True, multi_output=True,
              self=lambda grad, self_shape, dim, sizes, dtype, device:
              _split_bwd(grad, self_shape, dim, sizes, dtype, device))
SPLIT_WITH_SIZES = defop(
    "split_with_sizes", "SplitWithSizesBackward0", None,
    attrs=("dim", "sizes", "dtype", "device"), view=True, multi_output=True,
    self=lambda grad, self_shape, dim, sizes, dtype, device:
    _split_bwd(grad, self_shape, dim, sizes, dtype, device))
UNBIND = defop("unbind", "UnbindBackward0", None, attrs=("dim", "dtype", "device"), view=True,
               multi_output=True,
               self=lambda grad, self_shape, dim, dtype, device:
               _unbind_bwd(grad, self_shape, dim, dtype, device))


def _multi_view(op, self, datas, attrs, replays):
    node = None
    if _st.grad_enabled:
        edges = _edges((self,))
        if edges is not None:
            from .table import record
            node = record(op, (self,), None, attrs, edges)
            node._n_outputs = len(datas)
    outs = []
    for i, (d, rp) in enumerate(zip(datas, replays)):
        outs.append(make_view(op, self, d, attrs, rp, CreationMeta.MULTI_OUTPUT_NODE, i,
                              node))
    return tuple(outs)


@method("split")
def split(self, split_size_or_sections, dim=0):
    d = _wrap_dim(dim, self.dim())
    n = self._data.shape[d]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        if s <= 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {n}")
        sizes = [builtins_min(s, n - i) for i in range(0, n, s)] if n else [0]
    else:
        sizes = list(split_size_or_sections)
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {d}), but got "
                               f"split_sizes={sizes}")
    datas, replays, off = [], [], 0
    for s in sizes:
        datas.append(_slice_fwd(self._data, d, off, off + s, 1))
        replays.append((narrow, (d, off, s)))
        off += s
    # a list of sizes is PyTorch's split_with_sizes (its node is SplitWithSizesBackward0)
    op = SPLIT if isinstance(split_size_or_sections, int) else SPLIT_WITH_SIZES
    return _multi_view(op, self, datas, (d, tuple(sizes), self.dtype, self.device), replays)


@method("split_with_sizes")
def split_with_sizes(self, split_sizes, dim=0):
    """Split into pieces of the given sizes along ``dim`` (views; ``torch.split_with_sizes``
    — what ``split`` does when given a list). The sizes must sum to the dimension's size;
    the pieces are multi-output views (modifying one in place is refused)."""
    return split(self, list(split_sizes), dim)


@method("chunk")
def chunk(self, chunks, dim=0):
    d = _wrap_dim(dim, self.dim())
    n = self._data.shape[d]
    size = -(-n // chunks) if chunks > 0 else 0
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0")
    return split(self, builtins_max(size, 1), d)


@method("unbind")
def unbind(self, dim=0):
    d = _wrap_dim(dim, self.dim())
    datas = [_select_fwd(self._data, d, i) for i in range(self._data.shape[d])]
    replays = [(select, (d, i)) for i in range(len(datas))]
    return _multi_view(UNBIND, self, datas, (d, self.dtype, self.device), replays)


# -- take / put: flat gather and scatter(-add), the backward of overlapping views ---------

def _take_fwd(self, index):
    return self.reshape(-1)[index]


def _put_fwd(self, index, source, accumulate):
    out = self.copy()
    flat = out.reshape(-1)
    src = source.reshape(-1) if hasattr(source, "reshape") else source
    if accumulate:
        B.add_at(flat, index.reshape(-1), src)
    else:
        flat[index.reshape(-1)] = src
    return out


def _put_zeros(grad, index, self_shape):
    from .factories import zeros
    return put(zeros(self_shape, dtype=grad.dtype, device=grad.device), index, grad,
               accumulate=True)


TAKE = defop("take", "TakeBackward0", _take_fwd, inputs=("self", "index"), self=_put_zeros)
PUT = defop("put", "PutBackward0", _put_fwd, inputs=("self", "index", "source"),
            attrs=("accumulate",),
            self=lambda grad, index, accumulate: grad if accumulate else put(
                grad, index, 0.0 * grad.take(index), False),
            source=lambda grad, index, source: grad.take(index).reshape(
                tuple(source.shape) if isinstance(source, Tensor) else ()))


@method("take")
def take(self, index):
    return dispatch(TAKE, (self, index))


@method("put")
def put(self, index, source, accumulate=False):
    return dispatch(PUT, (self, index, source), (bool(accumulate),))


# -- cat / stack (variadic inputs: their nodes are written by hand) -----------------------

class CatBackward0(Node):
    __slots__ = ("dim", "sizes")

    def apply(self, grads):
        g = grads[0]
        out, off = [], 0
        for e, s in zip(self.next_functions, self.sizes):
            out.append(narrow(g, self.dim, off, s) if e[0] is not None else None)
            off += s
        return out

    def saved_items(self):
        return [("dim", self.dim)]


class StackBackward0(Node):
    __slots__ = ("dim",)

    def apply(self, grads):
        g = grads[0]
        return [select(g, self.dim, i) if e[0] is not None else None
                for i, e in enumerate(self.next_functions)]

    def saved_items(self):
        return [("dim", self.dim)]


def _seq_check(tensors, name):
    if isinstance(tensors, Tensor) or not len(tensors):
        raise RuntimeError(f"{name}(): expected a non-empty list of Tensors")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): expected a list of Tensors, got {type(t).__name__}")
    devs = {t.device.type for t in tensors}
    if len(devs) > 1:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least "
                           f"two devices, {' and '.join(sorted(devs))}!")


def _finish_variadic(node_cls, data, tensors, **fields):
    out = Tensor._make(data, tensors[0]._device)
    if _st.grad_enabled:
        edges = _edges(tuple(tensors))
        if edges is not None:
            node = node_cls(edges)
            for k, v in fields.items():
                setattr(node, k, v)
            out._grad_fn = node
    return out


def cat(tensors, dim=0):
    _seq_check(tensors, "cat")
    tensors = list(tensors)
    ref = tensors[0]
    d = _wrap_dim(dim, ref.dim())
    for i, t in enumerate(tensors):
        if t.dim() != ref.dim() or any(a != b for j, (a, b) in enumerate(
                zip(t.shape, ref.shape)) if j != d):
            raise RuntimeError(
                f"Sizes of tensors must match except in dimension {d}. Expected size "
                f"{list(ref.shape)} but got size {list(t.shape)} for tensor number {i} in the "
                "list.")
    xp = ref._device.xp
    data = xp.concatenate([t._data for t in tensors], axis=d)
    return _finish_variadic(CatBackward0, data, tensors, dim=d,
                            sizes=tuple(t._data.shape[d] for t in tensors))


def stack(tensors, dim=0):
    _seq_check(tensors, "stack")
    tensors = list(tensors)
    ref = tensors[0]
    for i, t in enumerate(tensors):
        if tuple(t.shape) != tuple(ref.shape):
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(ref.shape)} at entry 0 and {list(t.shape)} at entry {i}")
    d = _wrap_dim(dim, ref.dim() + 1)
    xp = ref._device.xp
    data = xp.stack([t._data for t in tensors], axis=d)
    return _finish_variadic(StackBackward0, data, tensors, dim=d)


# -- indexing ------------------------------------------------------------------------------

def _index_fwd(self, key):
    return self[key]


def _index_bwd(grad, self_shape, key):
    from .factories import zeros
    return index_put(zeros(self_shape, dtype=grad.dtype, device=grad.device), key, grad,
                     accumulate=True)


def _index_put_fwd(self, values, key, accumulate):
    out = self.copy()
    if accumulate:
        B.add_at(out, key, values)
    else:
        out[key] = values
    return out


INDEX = defop("index", "IndexBackward0", _index_fwd, attrs=("key",), self=_index_bwd)
INDEX_PUT = defop("index_put", "IndexPutBackward0", _index_put_fwd,
                  inputs=("self", "values"), attrs=("key", "accumulate"),
                  self=lambda grad, key, accumulate: grad if accumulate else index_put(
                      grad, key, 0.0, False),
                  values=lambda grad, values, key: sum_to(
                      dispatch(INDEX, (grad,), (key,)),
                      tuple(values.shape) if isinstance(values, Tensor) else ()))


def index_put(self, key, values, accumulate=False):
    if not isinstance(key, tuple):
        key = (key,)
    return dispatch(INDEX_PUT, (self, values), (_key_on_device(self, key), bool(accumulate)))


def _is_advanced(k):
    return isinstance(k, (Tensor, list)) or B.is_array(k) or isinstance(k, bool)


ALIAS = defop("alias", "AliasBackward0", lambda self: self[...], view=True,
              self=lambda grad: grad)


def alias(self):
    """A view of the whole tensor (``x[...]``)."""
    return dispatch_view(ALIAS, self, (), (alias, ()))


def _key_on_device(self, key):
    """Index arrays of a key moved to self's device: like PyTorch, indices may be on the
    cpu (tensors, lists, numpy arrays) or on the indexed tensor's device."""
    dev = self._device
    out = []
    for k in key:
        if isinstance(k, Tensor):
            if k._device is not dev:
                if k._device is not B.cpu:
                    raise RuntimeError(
                        f"indices should be either on cpu or on the same device as the "
                        f"indexed tensor ({dev.type}), got {k.device.type}")
                k = dev.from_host(k._data)
            else:
                k = k._data
        elif isinstance(k, list):
            k = dev.xp.asarray(k)
        elif B.is_host_array(k) and dev is not B.cpu:
            k = dev.from_host(k)
        out.append(k)
    return tuple(out)


def normalize_key(self, key):
    """Return ('basic', key-tuple) or ('advanced', array-key) for a __getitem__ key.
    A single slice (``x[:]``) is kept as a slice; in tuples full slices are skipped and an
    index that selects everything is an alias, as PyTorch does."""
    if isinstance(key, _builtin_slice):
        return "single-slice", key
    if not isinstance(key, tuple):
        key = (key,)
    if any(_is_advanced(k) for k in key):
        return "advanced", _key_on_device(self, key)
    return "basic", key


def _basic_steps(self, key, alias_self=True):
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    t, dim = self, 0
    for k in key:
        if k is Ellipsis:
            dim += self.dim() - n_real
            # dims skipped by the ellipsis stay
            continue
        if k is None:
            t = unsqueeze(t, dim)
            dim += 1
        elif isinstance(k, _builtin_slice):
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero")
            if k.indices(t._data.shape[dim]) != (0, t._data.shape[dim], 1):
                t = slice(t, dim, k.start, k.stop, k.step or 1)  # full slices are skipped
            dim += 1
        else:
            try:
                i = operator.index(k)
            except TypeError:
                raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and "
                                 f"long or byte Variables are valid indices (got "
                                 f"{type(k).__name__})") from None
            n = t._data.shape[dim]
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for dimension {dim} with size "
                                 f"{n}")
            t = select(t, dim, i)
    if t is self and alias_self:
        t = alias(self)  # a[...] is still a view: AliasBackward0
    return t


def _single_slice(self, k):
    if self.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if k.step is not None and k.step <= 0:
        raise ValueError("step must be greater than zero")
    return slice(self, 0, k.start, k.stop, k.step or 1)


@method("__getitem__")
def getitem(self, key):
    kind, k = normalize_key(self, key)
    if kind == "basic":
        return _basic_steps(self, k)
    if kind == "single-slice":
        return _single_slice(self, k)
    try:
        return dispatch(INDEX, (self,), (k,))
    except IndexError as e:
        raise IndexError(f"index out of range: {e}") from None
