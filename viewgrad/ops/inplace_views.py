"""In-place view ops: ``t_``, ``transpose_`` (``swapdims_``, ``swapaxes_``),
``unsqueeze_``, ``squeeze_``, ``as_strided_``.

They change a tensor's *metadata* (shape, strides, offset) in place, not its values:
``y.t_()`` makes ``y`` itself the transpose, over the same memory. PyTorch's rules, which
viewgrad follows (torch 2.13):

* the in-place checks apply (a leaf that requires grad, a view of one, a multi-output
  view... are refused, as for ``mul_``); an expanded tensor may be transposed;
* the version counter is bumped, so a node that saved the tensor refuses to run
  backward, and the other views of the same storage get a regenerated grad_fn;
* no CopySlices: the values did not change, so the base's history is untouched. The
  tensor's own grad_fn becomes the op's node, with its own names — ``TBackward1``,
  ``TransposeBackward1``, ``UnsqueezeBackward1``, ``SqueezeBackward3/4/5``,
  ``AsStridedBackward1`` — whose edge is the tensor's old history;
* a view stays a view of its base: the op joins its chain of view ops (so a later
  in-place op on it writes the right elements of the base), and its grad_fn is current;
* ``retain_grad`` stays with the old version (PyTorch does not move it here).
"""
from __future__ import annotations

import operator

from .. import backend as B
from ..autograd.views import check_inplace, strided_region
from ..autograd.state import state as _st
from ..autograd.saved_names import show_as, show_given
from ..tensor import Tensor, _wrap_dim
from .table import defop, method, record
from .views import (_as_strided_bwd, _xp, as_strided, squeeze, squeeze_dims, t, transpose,
                    unsqueeze,
                    as_strided_bounds)

__all__ = ["t_", "transpose_", "unsqueeze_", "squeeze_", "as_strided_"]

T_ = defop("t_", "TBackward1", lambda self: self.T, self=lambda grad: grad.t())
TRANSPOSE_ = defop("transpose_", "TransposeBackward1",
                   lambda self, dim0, dim1: _xp(self).swapaxes(self, dim0, dim1),
                   attrs=("dim0", "dim1"),
                   self=lambda grad, dim0, dim1: grad.transpose(dim0, dim1))
UNSQUEEZE_ = defop("unsqueeze_", "UnsqueezeBackward1",
                   lambda self, dim: B.unsqueeze_view(self, dim), attrs=("dim",),
                   self=lambda grad, dim: grad.squeeze(dim))


def _squeeze_fwd(self, dims):
    return _xp(self).squeeze(self, axis=dims)


def _unsqueeze_to(grad, self_shape):
    return grad.reshape(self_shape)


SQUEEZE_ = defop("squeeze_", "SqueezeBackward3", _squeeze_fwd, attrs=("dims",),
                 self=_unsqueeze_to)
# (``dim``: the dims squeezed, shown as given as the out-of-place rows' in ops/views.py)
SQUEEZE_DIM_ = defop("squeeze_dim_", "SqueezeBackward4", _squeeze_fwd, attrs=("dim",),
                     self=lambda grad, self_shape, dim: grad.reshape(self_shape))
SQUEEZE_DIMS_ = defop("squeeze_dims_", "SqueezeBackward5", _squeeze_fwd, attrs=("dim",),
                      self=lambda grad, self_shape, dim: grad.reshape(self_shape))
AS_STRIDED_ = defop("as_strided_", "AsStridedBackward1", None,
                    attrs=("size", "stride", "storage_offset", "_in_geom"),
                    self=_as_strided_bwd)


def _restride(self, op, attrs, data, replay, name, args=()):
    """Give ``self`` the array ``data`` (a view of its memory) in place: checks, version
    bump, view chain, and the op's node as its new grad_fn. ``args``: the call's
    arguments as the user gave them (the tracer shows them)."""
    requires = _st.grad_enabled and self.requires_grad
    check_inplace(self, requires, name, overlap=False)
    hook = _st.inplace_observer
    token = hook.before(name, self, tuple(args)) if hook is not None else None
    edge = self._edge() if requires else None  # the old history (a stale view regenerated)
    old = Tensor._make(self._data, self._device)  # what the node's formula needs: shapes
    storage = self._storage
    self._data = data
    self._storage = storage
    vc = self._version_counter
    vc.bump(name)
    vi = self._view_info
    if vi is not None:
        vi.extend(replay)
        vi.geom = None
        if edge is not None:   # its grad_fn is this op's node, current
            vi.version = vc.version
        # (else, under no_grad, its old grad_fn no longer describes it: left stale, it is
        # regenerated from the base when next asked, AsStridedBackward0, as PyTorch's)
    if edge is not None:
        self._grad_fn = record(op, (old,), self, attrs, (edge,))
        self._output_nr = 0
    if token is not None:
        hook.after(token)
    return self


@method("t_")
def t_(self):
    """In-place ``t()``: ``self`` becomes its own transpose (same memory, new strides;
    ``torch.Tensor.t_``). Bumps the version; autograd records ``TBackward1``."""
    if self.dim() > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self.dim()}D")
    return _restride(self, T_, (), self._data.T, (t, ()), "t_")


@method("transpose_", "swapdims_", "swapaxes_")
def transpose_(self, dim0, dim1):
    """In-place ``transpose(dim0, dim1)`` (``torch.Tensor.transpose_``, also
    ``swapdims_``/``swapaxes_``): swaps two dims of ``self`` itself, over the same memory.
    Bumps the version; autograd records ``TransposeBackward1``."""
    n = max(self.dim(), 1)
    d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    if not self.dim():
        return _restride(self, TRANSPOSE_, (0, 0), self._data, (transpose, (0, 0)),
                         "transpose_")
    data = TRANSPOSE_.forward(self._data, d0, d1)
    out = _restride(self, TRANSPOSE_, (d0, d1), data, (transpose, (d0, d1)), "transpose_",
                    (dim0, dim1))
    # (the dims as given, as the out-of-place rows': Note [dims as given])
    return show_given(show_given(out, "dim0", dim0, d0), "dim1", dim1, d1)


@method("unsqueeze_")
def unsqueeze_(self, dim):
    """In-place ``unsqueeze(dim)`` (``torch.Tensor.unsqueeze_``): ``self`` gains a size-1
    dim. Bumps the version; autograd records ``UnsqueezeBackward1``."""
    d = _wrap_dim(dim, self.dim() + 1)
    data = UNSQUEEZE_.forward(self._data, d)
    return show_given(_restride(self, UNSQUEEZE_, (d,), data, (unsqueeze, (d,)), "unsqueeze_",
                                (dim,)), "dim", dim, d)


@method("squeeze_")
def squeeze_(self, dim=None):
    """In-place ``squeeze`` (``torch.Tensor.squeeze_``): ``self`` loses its size-1 dims
    (those in ``dim`` when given). Bumps the version even when nothing is removed;
    autograd records ``SqueezeBackward3`` (all dims), ``SqueezeBackward4`` (one dim) or
    ``SqueezeBackward5`` (a tuple of dims)."""
    shape = self._data.shape
    if dim is None:
        op, dims, replay = SQUEEZE_, tuple(i for i, s in enumerate(shape) if s == 1), ()
    else:
        op = SQUEEZE_DIM_ if isinstance(dim, int) else SQUEEZE_DIMS_
        dims = squeeze_dims(self, dim)
        replay = (dim,)
    data = _squeeze_fwd(self._data, dims)
    out = _restride(self, op, (dims,), data, (squeeze, replay), "squeeze_", replay)
    return out if dim is None else show_given(out, "dim", dim, None)   # (as given)


@method("as_strided_")
def as_strided_(self, size, stride, storage_offset=None):
    """In-place ``as_strided`` (``torch.Tensor.as_strided_``): ``self`` takes the given
    geometry over its storage. Bumps the version; autograd records
    ``AsStridedBackward1``."""
    size = tuple(operator.index(s) for s in size)
    stride = tuple(operator.index(s) for s in stride)
    given = storage_offset
    if storage_offset is None:
        storage_offset = self.storage_offset()
    as_strided_bounds(self, size, stride, storage_offset)
    data = strided_region(self, size, stride, storage_offset)
    in_geom = (tuple(self._data.shape), self.stride(), self.storage_offset())
    out = _restride(self, AS_STRIDED_, (size, stride, storage_offset, in_geom), data,
                    (as_strided, (size, stride, storage_offset)), "as_strided_",
                    (size, stride, storage_offset))
    # PyTorch's node keeps the offset as given: None when not (Note [dims as given])
    return out if given is not None else show_as(out, "storage_offset", None)
