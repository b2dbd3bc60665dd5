"""Tensor methods PyTorch code calls that are other ops in other words, each recorded as
PyTorch records it:

* ``fill_diagonal_(value, wrap=False)``: PyTorch's own steps — the diagonal as an
  ``as_strided`` view, ``fill_`` on it (so the graph is a CopySlices, the version moves
  once, twice with ``wrap``);
* ``sum_to_size(*size)``: ``at::sum_to`` — one sum with ``keepdim`` over the dims to
  reduce (SumBackward1), then a view to drop leading dims; itself when nothing is reduced;
* ``absolute_`` and ``negative_``: ``abs_`` and ``neg_``;
* ``conj``, ``resolve_conj``, ``resolve_neg``, ``conj_physical`` of a real tensor: the
  tensor itself (PyTorch returns the same object), ``is_conj``/``is_neg``: False.
"""
from __future__ import annotations

from .. import backend as B
from ..tensor import Tensor
from .table import METHODS, method

__all__ = ["fill_diagonal_", "sum_to_size", "conj_physical"]


@method("fill_diagonal_")
def fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal (of a 2-D tensor, or of an n-D one with equal sizes) with
    ``fill_value`` in place; ``wrap=True`` continues below a tall matrix's diagonal every
    ``width + 1`` rows, as ``torch.Tensor.fill_diagonal_``."""
    nd = self.dim()
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = self.shape[0], self.shape[1]
    if nd > 2 and any(s != height for s in self.shape[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    offset = self.storage_offset()
    stride = sum(self.stride())
    size = min(height, width)
    self.as_strided((size,), (stride,), offset).fill_(fill_value)
    if wrap and nd == 2 and height > width + 1:
        step = width + 1
        wrap_size = (self.numel() + step - 1) // step - size
        self.as_strided((wrap_size,), (stride,), offset + self.stride(0) * step).fill_(
            fill_value)
    return self


@method("sum_to_size")
def sum_to_size(self, *size):
    """``self`` summed down to ``size`` (which must expand to self's shape), as
    ``torch.Tensor.sum_to_size``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    size = tuple(int(s) for s in size)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != t for s, t in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size "
                           f"{{{list(shape)}}}.")
    dims = list(range(lead)) + [i for i in range(lead, len(shape))
                                if size[i - lead] == 1 and shape[i] != 1]
    out = self.sum(dims, keepdim=True) if dims else self
    return out.view(size) if lead > 0 else out


@method("conj")
def conj(self):
    """``torch.Tensor.conj`` of a real tensor: the tensor itself (PyTorch returns the same
    object). A complex one is refused: PyTorch's is a lazy view with a conjugate bit,
    which writes through to its base conjugated, and viewgrad keeps no such bit."""
    refuse_conjugate_view(self, "conj", "z.conj_physical()")
    return self


def refuse_conjugate_view(t, name, instead):
    """PyTorch's ``conj``, ``mH``, ``H`` and ``adjoint`` of a complex tensor are lazy views
    with a conjugate bit, which viewgrad does not keep: refused, never the unconjugated
    values."""
    if t._data.dtype.kind == "c":
        raise RuntimeError(f"{name}: viewgrad keeps no conjugate bit on a complex tensor, so "
                           f"it cannot give PyTorch's lazy conjugate view; use {instead} (a "
                           "new tensor, the same values)")


def _resolved(name):
    def resolve(self):
        return self
    resolve.__name__ = name
    resolve.__doc__ = (f"``torch.Tensor.{name}``: the tensor itself, as PyTorch returns a "
                       "tensor with no such bit set (viewgrad never sets one).")
    return resolve


for _name in ("resolve_conj", "resolve_neg"):
    method(_name)(_resolved(_name))


@method("conj_physical")
def conj_physical(input):
    """The elementwise complex conjugate, computed (a new tensor), as
    ``torch.conj_physical``; a real tensor is returned itself, as PyTorch returns it. (No
    node: a complex tensor never has a history, Note [no complex gradients] in
    autograd/graph.py.)"""
    d = input._data
    if d.dtype.kind != "c":
        return input
    return Tensor._make(B.xp_of(d).conj(d), input._device)


@method("is_conj")
def is_conj(self):
    """False: viewgrad has no conjugate bit (a real tensor's is always unset)."""
    return False


@method("is_neg")
def is_neg(self):
    """False: viewgrad has no negative bit."""
    return False


@method("absolute_")
def absolute_(self):
    """In-place ``abs`` under PyTorch's other name (``torch.Tensor.absolute_``):
    ``AbsBackward0`` on self's history, the version bumped."""
    return METHODS["abs_"](self)


@method("negative_")
def negative_(self):
    """In-place ``neg`` under PyTorch's other name (``torch.Tensor.negative_``):
    ``NegBackward0`` on self's history, the version bumped."""
    return METHODS["neg_"](self)
