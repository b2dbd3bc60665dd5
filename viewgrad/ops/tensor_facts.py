"""What PyTorch code asks a tensor about itself, and a few small methods it calls:

* the facts of a dense host-or-GPU tensor: ``layout`` (``vg.strided``), ``is_sparse``,
  ``is_quantized``, ``is_meta``, ``is_nested``... (False: viewgrad has none of those
  kinds), ``dim_order()``, ``is_shared()`` / ``share_memory_()``;
* in-place comparisons, ``x.eq_(y)``, ``lt_``... and their aliases (``greater_``,
  ``less_equal_``...): self becomes 1 where the comparison holds and 0 elsewhere, in its
  own dtype, recorded as PyTorch records them (Note [comparisons in place]);
* ``angle`` and ``isreal``; ``adjoint()`` and ``H`` (refused on a complex tensor, as
  ``conj``); ``new_empty_strided``; the method forms of ``cov`` and ``corrcoef``;
  ``is_set_to``; ``apply_``, ``map_`` and ``map2_`` (a Python function per element).
"""
from __future__ import annotations

from .. import backend as B
from ..autograd.grad_mode import is_grad_enabled
from ..backend.formats import strided as _STRIDED
from ..layouts import ordered
from ..tensor import Tensor
from .conveniences import refuse_conjugate_view
from .table import METHODS, apply_inplace, defop, dispatch, method, zeros_grad
from .warn_once import warn_once

__all__ = ["angle", "isreal", "adjoint"]

_FALSE_FACTS = ("is_sparse", "is_sparse_csr", "is_quantized", "is_meta", "is_mkldnn",
                "is_nested", "is_xla", "is_xpu", "is_mps", "is_ipu", "is_vulkan", "is_maia",
                "is_mtia")


def _false(self):
    return False


# the properties ops/__init__.py sets on Tensor (not methods: nothing to call)
PROPERTIES = {_n: property(_false, doc=f"False, as PyTorch's ``Tensor.{_n}`` for a dense "
                                       "tensor: viewgrad's tensors are all dense and strided.")
              for _n in _FALSE_FACTS}
PROPERTIES["layout"] = property(lambda self: _STRIDED,
                                doc="``vg.strided``, the only layout viewgrad has.")


@method("is_shared")
def is_shared(self):
    """Whether ``share_memory_()`` was called (``torch.Tensor.is_shared``)."""
    return self.__dict__.get("_shared", False)


@method("share_memory_")
def share_memory_(self):
    """``torch.Tensor.share_memory_``: in PyTorch it moves the storage to shared memory for
    other processes; viewgrad has one process, so it only remembers it. Returns self."""
    self._shared = True
    return self


@method("dim_order")
def dim_order(self, *, ambiguity_check=False):
    """The dims from the outermost to the innermost in memory (``torch.Tensor.dim_order``):
    PyTorch's ordering by stride, where a stride of 0 says nothing and equal strides are
    ordered by size."""
    shape = tuple(self.shape)
    if self.is_contiguous():   # (its size-1 dims' strides say nothing: PyTorch's shortcut)
        return tuple(range(len(shape)))
    # TensorIterator's order of the dims (fastest first), read from the slowest
    return tuple(reversed(ordered(shape, (self.stride(),))))


# -- Note [comparisons in place] ----------------------------------------------------------
# ``x.lt_(y)`` compares as ``x < y`` does (the promoted dtype, PyTorch's refusals), then
# writes the answer into x in x's dtype, through the in-place choke point (version bump,
# CopySlices on a view). PyTorch records LtBackward0 (a number y) or LtBackward1 (a
# tensor y); both give zero gradients and show no saved values.

def _compare_rows(name):
    title = name.capitalize()
    number = defop(name + "_scalar_", f"{title}Backward0", None, attrs=("other",),
                   self=zeros_grad)
    tensor = defop(name + "_tensor_", f"{title}Backward1", None, inputs=("self", "other"),
                   self=zeros_grad, other=lambda grad, _other_shape: grad.new_zeros(
                       _other_shape))
    return number, tensor


def _compare_inplace(name, rows):
    compare = METHODS[name]

    def op(self, other):
        answer = compare(self, other)
        if answer is NotImplemented:
            raise TypeError(f"{name}_(): argument 'other' (position 1) must be Tensor or "
                            f"Number, not {type(other).__name__}")
        if tuple(answer.shape) != tuple(self.shape):
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the "
                               f"broadcast shape {list(answer.shape)}")
        data = answer._data
        if isinstance(other, Tensor):
            return apply_inplace(rows[1], self, (other,), name=name + "_",
                                 compute=lambda a, b: data.astype(a.dtype))
        return apply_inplace(rows[0], self, (), (other,), name=name + "_",
                             compute=lambda a, _other: data.astype(a.dtype))
    op.__name__ = name + "_"
    op.__doc__ = (f"In place: 1 where ``self.{name}(other)`` holds, 0 elsewhere, in self's "
                  f"dtype (``torch.Tensor.{name}_``; Note [comparisons in place]).")
    return op


for _name, _aliases in (("eq", ()), ("ne", ("not_equal_",)), ("lt", ("less_",)),
                        ("le", ("less_equal_",)), ("gt", ("greater_",)),
                        ("ge", ("greater_equal_",))):
    _op = _compare_inplace(_name, _compare_rows(_name))
    method(_name + "_", *_aliases)(_op)


# -- angle, isreal, adjoint ------------------------------------------------------------------

def _angle_fwd(self):
    xp = B.xp_of(self)
    if self.dtype.kind == "c":
        return xp.angle(self)
    if self.dtype.kind in "iub":   # (an integer's angle is a float: PyTorch's promotion)
        self = self.astype(B.to_dtype(B.default_float()))
    pi = xp.asarray(xp.pi, dtype=self.dtype)
    zero = xp.zeros((), dtype=self.dtype)
    return xp.where(self < 0, pi, xp.where(self == self, zero, self))   # (NaN stays NaN)


ANGLE = defop("angle", "AngleBackward0", _angle_fwd, self=lambda grad, self: zeros_grad(grad))


@method("angle")
def angle(input):
    """The angle of each element as a complex number: 0 for a real ``x >= 0``, pi for a
    negative one, NaN for NaN (``torch.angle``); its gradient is 0, as PyTorch's."""
    if input._data.dtype.kind == "c" and input.requires_grad and is_grad_enabled():
        raise RuntimeError("angle: viewgrad has no complex autograd; take "
                           "atan2(x.imag, x.real) of the parts instead")
    return dispatch(ANGLE, (input,))


@method("isreal")
def isreal(input):
    """True where an element has no imaginary part: every element of a real tensor
    (``torch.isreal``)."""
    d = input._data
    xp = input._device.xp
    r = (d.imag == 0) if d.dtype.kind == "c" else xp.ones(d.shape, dtype=bool)
    return Tensor._make(xp.asarray(r), input._device)


@method("adjoint")
def adjoint(input):
    """The conjugate transpose of the last two dims (``torch.adjoint``): for a real tensor
    the transpose, a view (TransposeBackward0)."""
    refuse_conjugate_view(input, "adjoint", "z.mT.conj_physical()")
    if input.dim() == 0:
        warn_once("adjoint_0d")   # Note [warnings given once]
        return input
    if input.dim() < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of "
                           f"matrices. Got {input.dim()}-D tensor.")
    return input.transpose(-2, -1)



def _H(self):
    refuse_conjugate_view(self, "H", "z.mT.conj_physical()")
    if self.dim() == 0:
        warn_once("H_0d")
        return self
    if self.dim() != 2:
        more = (" For batches of matrices, consider using tensor.mH" if self.dim() > 2
                else "")
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.dim()}-D tensor.{more}")
    return self.transpose(0, 1)


PROPERTIES["H"] = property(_H, doc="The conjugate transpose of a matrix "
                                   "(``torch.Tensor.H``).")


@method("new_empty_strided")
def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor of ``size`` at ``stride``, of self's dtype and device unless
    given (``torch.Tensor.new_empty_strided``)."""
    from .factories import empty_strided
    return empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                         device=self.device if device is None else device,
                         requires_grad=requires_grad)


@method("cov")
def _cov_method(self, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the rows' variables (``torch.Tensor.cov``, as
    ``vg.cov(self)``): a new tensor, differentiable."""
    from .covariance import cov
    return cov(self, correction=correction, fweights=fweights, aweights=aweights)


@method("corrcoef")
def _corrcoef_method(self):
    """The correlation coefficients of the rows' variables (``torch.Tensor.corrcoef``, as
    ``vg.corrcoef(self)``): a new tensor, differentiable."""
    from .covariance import corrcoef
    return corrcoef(self)



# -- apply_, map_, map2_: a Python function on each element ----------------------------------

def _python_map(name, self, others, fn):
    """Write ``fn(x, *others' elements)`` over each element of host tensor ``self``, in
    place, as PyTorch's ``apply_``/``map_``/``map2_``: no autograd (refused on a tensor
    that requires grad), no version bump (PyTorch's do not bump it either), each value
    given as a Python number and stored in self's dtype (an int truncated)."""
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")
    if self._device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    d = self._data
    xp = self._device.xp
    columns = [d.reshape(-1).tolist()] + [
        xp.broadcast_to(o._data, d.shape).reshape(-1).tolist() for o in others]
    kind = d.dtype.kind
    values = []
    for args in zip(*columns):
        v = fn(*args)
        if kind != "b" and (isinstance(v, (str, bytes)) or not isinstance(v, (int, float))):
            raise TypeError(f"must be real number, not {type(v).__name__}")
        values.append(bool(v) if kind == "b" else int(v) if kind in "iu" else float(v))
    d[...] = xp.asarray(values, dtype=d.dtype).reshape(d.shape)
    return self


@method("apply_")
def apply_(self, callable):
    """Replace each element ``x`` by ``callable(x)``, in place (``torch.Tensor.apply_``:
    host tensors only, slow, no autograd)."""
    return _python_map("apply_", self, (), callable)


@method("map_")
def map_(self, tensor, callable):
    """Replace each element ``x`` by ``callable(x, y)``, ``y`` the element of ``tensor``
    broadcast to self's shape, in place (``torch.Tensor.map_``: host tensors only)."""
    return _python_map("map_", self, (tensor,), callable)


@method("map2_")
def map2_(self, x, y, callable):
    """Replace each element ``s`` by ``callable(s, a, b)``, ``a``, ``b`` the elements of
    ``x`` and ``y`` broadcast to self's shape, in place (``torch.Tensor.map2_``)."""
    return _python_map("map2_", self, (x, y), callable)


@method("is_set_to")
def is_set_to(self, tensor):
    """Whether ``tensor`` is this very view of the same memory: the same storage, offset,
    sizes and strides (``torch.Tensor.is_set_to``). Two empty tensors are never set to
    each other."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    if not self.numel() and not tensor.numel():
        return False
    return (self._device is tensor._device
            and self.untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr()
            and self.storage_offset() == tensor.storage_offset()
            and tuple(self.shape) == tuple(tensor.shape) and self.stride() == tensor.stride())
