"""``narrow_copy``: ``narrow`` as a new contiguous tensor instead of a view
(``torch.narrow_copy``, ``Tensor.narrow_copy``), recording ``NarrowCopyBackward0``: the
gradient is put back into zeros of the input's shape at the narrowed positions (PyTorch's
``slice_backward``, so a double backward records ``SliceBackwardBackward0``).

Its checks are those of PyTorch's CPU kernel, not of ``narrow``: a positive dim out of
range is refused by a bare check, and a negative length with the bounds' message.
"""
from __future__ import annotations

from .. import backend as B
from ..autograd.saved_names import show_given
from ..tensor import _wrap_dim
from .table import defop, dispatch, method
from .views import SLICE_BWD

__all__ = ["narrow_copy"]


def _narrow_copy_fwd(self, dim, start, length):
    key = [slice(None)] * self.ndim
    key[dim] = slice(start, start + length)
    return B.fresh_row_major(self[tuple(key)])


NARROW_COPY = defop(
    "narrow_copy", "NarrowCopyBackward0", _narrow_copy_fwd, attrs=("dim", "start", "length"),
    self=lambda grad, self_shape, dim, start, length:
    dispatch(SLICE_BWD, (grad,), (self_shape, dim, start, start + length, 1)))


@method("narrow_copy")
def narrow_copy(input, dim, start, length):
    """``input.narrow(dim, start, length)`` copied into a new contiguous tensor, as
    ``torch.narrow_copy``; ``start`` may be negative (counted from the end)."""
    if input.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim, start, length = int(dim), int(start), int(length)
    if dim >= input.dim():   # (PyTorch's kernel checks a positive dim so)
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be "
                           "true, but got false.  (Could this error message be improved?  "
                           "If so, please report an enhancement request to PyTorch.)")
    d = _wrap_dim(dim, input.dim())
    n = input.shape[d]
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but "
                         f"got {start})")
    s = start + n if start < 0 else start
    if length < 0 or s + length > n:
        raise RuntimeError(f"start ({s}) + length ({length}) exceeds dimension size ({n}).")
    out = dispatch(NARROW_COPY, (input,), (d, s, length))
    show_given(out, "dim", dim, d)   # (Note [dims as given]: saved as the caller gave them)
    return show_given(out, "start", start, s)
