"""Diagonals and the cross product: diag, diag_embed, diagflat, trace, cross /
linalg.cross — rows of the derivatives table with PyTorch's node names
(``DiagEmbedBackward0``, ``DiagonalBackward0_copy``, ``TraceBackward0``,
``LinalgCrossBackward0``).

``diag_embed`` and the diagonal of ``diagonal_backward`` (ops/views.py) are each other's
gradients, so double backward goes back and forth between the two rows.
"""
from __future__ import annotations


from .. import backend as B
from ..autograd.saved_names import show_given
from ..tensor import Tensor, _wrap_dim
from .args import torch_type_name, with_out
from .kernel_refusals import REFUSALS as _CX, refuse as _refuse
from .table import defop, dispatch, method
from .warn_once import warn_once
from .views import DIAG_BWD

__all__ = ["diag", "diag_embed", "diagflat", "matrix_trace", "cross", "linalg_cross"]

_xp = B.xp_of


def _diag_embed_fwd(self, offset, dim1, dim2):
    xp = _xp(self)
    k = self.shape[-1]
    n = k + abs(offset)
    base = xp.zeros(self.shape[:-1] + (n, n), dtype=self.dtype)
    i = xp.arange(k)
    base[..., i + max(-offset, 0), i + max(offset, 0)] = self
    nd = self.ndim + 1
    return xp.ascontiguousarray(xp.moveaxis(base, (nd - 2, nd - 1), (dim1, dim2)))


DIAG_EMBED = defop("diag_embed", "DiagEmbedBackward0", _diag_embed_fwd,
                   attrs=("offset", "dim1", "dim2"),
                   self=lambda grad, offset, dim1, dim2: grad.diagonal(offset, dim1, dim2))


def _diagonal_copy_fwd(self, offset):
    return _xp(self).diagonal(self, offset).copy()


DIAG_COPY = defop("diagonal_copy", "DiagonalBackward0_copy", _diagonal_copy_fwd,
                  attrs=("offset",), self=lambda grad, self_shape, offset: dispatch(
                      DIAG_BWD, (grad,), (self_shape, offset, 0, 1)))


@method("diag_embed")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Put the last dim of ``input`` on a diagonal of new (n, n) planes, as
    ``torch.diag_embed``: shape (..., k) gives (..., k + |offset|, k + |offset|), the
    planes placed at dims ``dim1``, ``dim2`` of the result. Backward
    (``DiagEmbedBackward0``): the same diagonal of the gradient."""
    nd = input.dim() + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _dims_as_given(dispatch(DIAG_EMBED, (input,), (int(offset), d1, d2)), dim1, dim2,
                          d1, d2)


def _dims_as_given(out, dim1, dim2, d1, d2):
    """``out``'s DiagEmbedBackward0 showing dim1 and dim2 as the caller gave them (diag and
    diagflat call PyTorch's diag_embed with its defaults, -2 and -1: Note [dims as given])."""
    return show_given(show_given(out, "dim1", dim1, d1), "dim2", dim2, d2)


@method("diag")
def diag(input, diagonal=0, *, out=None):
    """``torch.diag``: a 1-D tensor becomes a square matrix with it on the ``diagonal``-th
    diagonal (``DiagEmbedBackward0``); a matrix gives a copy of that diagonal
    (``DiagonalBackward0_copy``; ``x.diagonal()`` is the view)."""
    if input.dim() == 1:
        r = _dims_as_given(dispatch(DIAG_EMBED, (input,), (int(diagonal), 0, 1)), -2, -1, 0, 1)
    elif input.dim() == 2:
        r = dispatch(DIAG_COPY, (input,), (int(diagonal),))
    else:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")
    return with_out(r, out, "diag")


@method("diagflat")
def diagflat(input, offset=0):
    """``input`` flattened, on the ``offset``-th diagonal of a square matrix, as
    ``torch.diagflat`` (a reshape, then ``DiagEmbedBackward0``)."""
    return _dims_as_given(dispatch(DIAG_EMBED, (input.reshape(-1),), (int(offset), 0, 1)),
                          -2, -1, 0, 1)


def _trace_fwd(self):
    xp = _xp(self)
    dt = B.int64 if self.dtype.kind in "iub" else self.dtype
    return xp.asarray(xp.trace(self), dtype=dt)


def _trace_bwd(grad, self_shape):
    k = min(self_shape)
    return dispatch(DIAG_BWD, (grad.expand(k),), (self_shape, 0, 0, 1))


TRACE = defop("trace", "TraceBackward0", _trace_fwd, self=_trace_bwd)


def matrix_trace(input):
    """The sum of the main diagonal of a matrix, as ``torch.trace`` (under
    ``viewgrad run --torch``, ``torch.trace`` is this; ``vg.trace(A)`` of a tensor is this
    too, and ``vg.trace()`` the tracer). Integer matrices give int64. Backward
    (``TraceBackward0``): grad on the diagonal."""
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    _refuse(_CX["trace"], input)   # (bool: Note [inputs PyTorch refuses])
    return dispatch(TRACE, (input,))


method("trace")(matrix_trace)


# -- cross ----------------------------------------------------------------------------------

def _cross_fwd(self, other, dim):
    return _xp(self, other).cross(self, other, axis=dim)


CROSS = defop("linalg_cross", "LinalgCrossBackward0", _cross_fwd, promote=True,
              inputs=("self", "other"), attrs=("dim",), broadcast=True,
              self=lambda grad, other, dim: dispatch(CROSS, (other, grad), (dim,)),
              other=lambda grad, self, dim: dispatch(CROSS, (grad, self), (dim,)))
CROSS.follows_first = False   # (PyTorch allocates cross's result row-major first)


def linalg_cross(input, other, *, dim=-1, out=None):
    """The cross product of 3-vectors along ``dim`` (broadcast), as
    ``torch.linalg.cross``. Backward (``LinalgCrossBackward0``): cross(other, grad) for
    input, cross(grad, input) for other."""
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    # (bool: Note [inputs PyTorch refuses]; the kernel is picked by input's dtype)
    _refuse(_CX["cross"], input, other if other.dtype == input.dtype else input)
    d = _wrap_dim(dim, input.dim())
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[d]} and {other.shape[d]}")
    if other.dtype != input.dtype:   # PyTorch's kernel: no promotion, after broadcasting
        from .pointwise import _bshape_err
        try:
            input._device.xp.broadcast_shapes(input._data.shape, other._data.shape)
        except ValueError:
            raise _bshape_err("linalg.cross", input, other) from None
        raise RuntimeError(f"expected scalar type {torch_type_name(input.dtype)} but found "
                           f"{torch_type_name(other.dtype)}")
    try:
        return with_out(show_given(dispatch(CROSS, (input, other), (d,)), "dim", dim, d), out,
                        "linalg.cross")   # (the dim as given: Note [dims as given])
    except ValueError:
        from .pointwise import _bshape_err
        raise _bshape_err("linalg.cross", input, other) from None


@method("cross")
def cross(input, other, dim=None, *, out=None):
    """``torch.cross``: the cross product along ``dim``; without ``dim``, the first dim of
    size 3 (deprecated in PyTorch, with its warning: pass dim or use ``linalg.cross``)."""
    if dim is None:
        warn_once("cross")   # Note [warnings given once]
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim, out=out)
